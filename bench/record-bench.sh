#!/bin/bash
# record-bench.sh: what recording costs (docs/PERFORMANCE.md, "Recording
# overhead"). Runs bench/mdphase (the metadata set: create, stat, readdir,
# open+read 4 KiB, unlink of FILES files in DIRS directories; the data set:
# sequential write + fsync, cold read after drop_caches, warm read of a
# DATA_MIB file) on each variant:
#
#   native          the backing file system itself
#   notrace-MODE    fstap record --no-trace --cache=MODE
#   MODE            fstap record --cache=MODE (all, calls, direct, kernel)
#   MODE-shm        the same with the trace on /dev/shm (tmpfs) instead of
#                   the work directory's disk: separates the trace's disk
#                   writes from the recorder's own cost
#   loggedfs        loggedfs -f -l LOG, mounted over the directory
#   pll-never       libfuse 3's example/passthrough_ll.c, -o cache=never
#                   (timeouts 0), built from /usr/share/doc/libfuse3-dev/examples
#   pll-always      the same, -o cache=always -o writeback (kernel caching)
#   pll-auto0       the same, -o cache=auto -o timeout=0: page cache, no
#                   direct_io, no keep_cache, no writeback, timeouts 0 (the
#                   caching of --cache=all and calls; not in the default list)
#   pll-*-dp        a pll variant mounted with default_permissions, as fstap
#                   always is with allow_other (the kernel then checks access
#                   with fresh attributes: one GETATTR more per unlink, for
#                   one); not in the default list
#
# each both pinned (taskset -c 0 for the file system daemon and the workload)
# and unpinned, interleaved round-robin (round 1: every variant pinned, then
# every variant unpinned; round 2: ...). Each set runs on its own fresh
# mount, so that the trace of the metadata set is measured alone.
#
# usage: bench/record-bench.sh [options]
#   --rounds N        rounds (default 2)
#   --files N         files in the metadata set (default 20000)
#   --dirs N          directories (default 100)
#   --data-mib N      size of the data set (default 512)
#   --variants LIST   comma-separated (default: all of the above but -shm)
#   --sets LIST       md,data (default both)
#   --sync            sync before each metadata phase (mdphase -S): the
#                     write-back of the files created does not land in a
#                     later phase's time at random
#   --pin LIST        pinned,unpinned (default both)
#   --image MIB       run on an ext4 file system made for the run (mkfs.ext4
#                     defaults, with a journal) in a MIB-MiB image in WORK, on
#                     a loop device with direct I/O (default 4096; 0: on
#                     WORK's own file system). The native variant is that
#                     file system.
#   --settle SECONDS  sync and wait SECONDS after deleting the previous run's
#                     files, before mounting (default 0 with --image, 36
#                     without: on ext4 without a journal, creating files is
#                     many times slower for about 35 s after a mass deletion;
#                     bench/lib-daemon.sh, fs_settle)
#   --shuffle         run the variants of each round and pinning in a new
#                     random order (logged on stderr): a cold read's rate
#                     can depend on what the run before it left in memory (see
#                     docs/recording.md, "The data set against passthrough_ll"), so that a variant
#                     does not always run after the same one
#   --work DIR        scratch directory (the image is made in it; without
#                     --image, on the file system under test; default
#                     /var/tmp/fstap-record-bench; emptied)
#   --fstap PATH      the fstap binary (default ./fstap)
#   --mdphase PATH    the mdphase binary (default ./mdphase)
#   --out DIR         where results.tsv and summary.md go (default WORK/out)
#
# passthrough_ll keeps one O_PATH descriptor per inode the kernel knows and
# fails with EMFILE past RLIMIT_NOFILE (20000 here): its variants run the
# metadata set with min(FILES, PLL_FILES=15000) files (rates are per file).
#
# Needs root (mounts, allow_other, drop_caches). On the 2-vCPU VM of
# docs/PERFORMANCE.md a round takes about 6 minutes: the default (2 rounds)
# about 12, --rounds 3 about 18; --files 5000 --data-mib 128 about a quarter;
# the settle adds SECONDS per variant, pinning and set.
set -u
. "$(dirname "$0")/lib-daemon.sh"
ROUNDS=2 FILES=20000 DIRS=100 DATA_MIB=512 PLL_FILES=${PLL_FILES:-15000}
VARIANTS=native,notrace-calls,all,calls,direct,notrace-kernel,kernel,loggedfs,pll-never,pll-always
PINS=pinned,unpinned SETS=md,data MDSYNC= SHUFFLE=
WORK=/var/tmp/fstap-record-bench FSTAP=./fstap MDPHASE=./mdphase OUT= SETTLE= IMAGE=4096
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift ;;
	--files) FILES=$2; shift ;;
	--dirs) DIRS=$2; shift ;;
	--data-mib) DATA_MIB=$2; shift ;;
	--variants) VARIANTS=$2; shift ;;
	--pin) PINS=$2; shift ;;
	--sets) SETS=$2; shift ;;
	--sync) MDSYNC=-S ;;
	--shuffle) SHUFFLE=1 ;;
	--settle) SETTLE=$2; shift ;;
	--image) IMAGE=$2; shift ;;
	--work) WORK=$2; shift ;;
	--fstap) FSTAP=$2; shift ;;
	--mdphase) MDPHASE=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "record-bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
FSTAP=$(readlink -f "$FSTAP") MDPHASE=$(readlink -f "$MDPHASE")
[ -x "$FSTAP" ] || { echo "record-bench.sh: no fstap at $FSTAP" >&2; exit 1; }
[ -x "$MDPHASE" ] || { echo "record-bench.sh: no mdphase at $MDPHASE" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "record-bench.sh: needs root" >&2; exit 1; }
OUT=${OUT:-$WORK/out}
mkdir -p "$WORK" "$OUT" || exit 1
RES=$OUT/results.tsv
fs_base record-bench.sh "$WORK" "$IMAGE" "$SETTLE"
B=$BASE/back M=$WORK/mnt

DPID=
MOUNTED=
cleanup() {
	if [ -n "$MOUNTED" ] && mountpoint -q "$MOUNTED"; then
		fusermount3 -u "$MOUNTED" 2>/dev/null || umount -l "$MOUNTED"
	fi
	if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then
		kill "$DPID"; wait "$DPID" 2>/dev/null
	fi
	DPID= MOUNTED=
}
trap 'cleanup; fs_image_down; exit 130' INT TERM
trap 'cleanup; fs_image_down' EXIT

# passthrough_ll, if libfuse's examples are installed
PLL=
EX=/usr/share/doc/libfuse3-dev/examples
if [[ ,$VARIANTS, == *,pll-* ]]; then
	if [ -f $EX/passthrough_ll.c ] &&
	   gcc -O2 -w -I$EX -o "$WORK/passthrough_ll" $EX/passthrough_ll.c \
		$(pkg-config --cflags --libs fuse3) 2>"$WORK/pll-build.log"; then
		PLL=$WORK/passthrough_ll
	else
		echo "record-bench.sh: passthrough_ll not available ($EX): pll variants skipped" >&2
		VARIANTS=$(echo "$VARIANTS" | tr , '\n' | grep -v '^pll-' | paste -sd,)
	fi
fi

wait_mount() {	# wait for $1 to become a mount point (10 s)
	local i
	for i in $(seq 100); do
		mountpoint -q "$1" && return 0
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# run_set VARIANT PIN SET ROUND: one mount, one set, lines to $RES
run_set() {
	local v=$1 pin=$2 set=$3 round=$4 ts= dir=$M files=$FILES log=$BASE/trace
	local args
	[ "$pin" = pinned ] && ts="taskset -c 0"
	[ "$set" = md ] && args="$MDSYNC -m -n" || args="-D -n"
	case $v in *-shm) log=/dev/shm/fstap-record-bench.trace ;; esac
	rm -rf "$B" "$log" "$BASE/lfs.log"
	fs_settle "$SETTLE"
	mkdir -p "$B" "$M"
	case $v in
	native)
		dir=$B ;;
	notrace-*)
		$ts "$FSTAP" record -q --snapshot=none --no-trace --cache=${v#notrace-} "$B" "$M" &
		DPID=$! ;;
	all|calls|direct|kernel|all-shm|calls-shm|direct-shm|kernel-shm)
		$ts "$FSTAP" record -q --snapshot=none -o "$log" --cache=${v%-shm} "$B" "$M" &
		DPID=$! ;;
	loggedfs)
		dir=$B log=$BASE/lfs.log
		$ts loggedfs -f -l "$log" "$B" >/dev/null 2>&1 &
		DPID=$! ;;
	pll-never|pll-always|pll-auto0|pll-never-dp|pll-always-dp|pll-auto0-dp)
		local o=$(pll_options "$v")
		[ "$files" -gt "$PLL_FILES" ] && files=$PLL_FILES
		$ts "$PLL" -f -o allow_other,source="$B",$o "$M" 2>"$WORK/pll.log" &
		DPID=$! ;;
	*) echo "record-bench.sh: unknown variant $v" >&2; exit 2 ;;
	esac
	if [ -n "$DPID" ]; then
		MOUNTED=$dir
		wait_mount "$dir" || { echo "record-bench.sh: $v did not mount" >&2; cleanup; return 1; }
	fi
	local out
	out=$($ts "$MDPHASE" $args "$files" -d "$DIRS" -s "$DATA_MIB" "$dir") ||
		echo "record-bench.sh: mdphase failed on $v $pin $set" >&2
	if [ -n "$DPID" ]; then
		fusermount3 -u "$dir" 2>/dev/null || umount "$dir"
		wait "$DPID"
		DPID= MOUNTED=
	fi
	local bytes=0 recs=0
	case $v in
	all|calls|direct|kernel|*-shm)
		bytes=$(stat -c %s "$log")
		recs=$("$FSTAP" info --json "$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')
		case $v in *-shm) rm -f "$log" ;; esac ;;
	loggedfs)
		bytes=$(stat -c %s "$log") recs=$(wc -l <"$log") ;;
	esac
	echo "$out" | while read -r phase ops secs rate unit; do
		[ -n "$phase" ] || continue
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$pin" "$v" "$set" \
			"$phase" "$ops" "$secs" "$rate" "$bytes" "$recs"
	done >>"$RES"
}

printf 'round\tpin\tvariant\tset\tphase\tops\tseconds\trate\ttrace_bytes\ttrace_records\n' >"$RES"
START=$(date +%s)
{
	echo "# $(date -u +%FT%TZ) $(uname -r) nproc=$(nproc) files=$FILES dirs=$DIRS data_mib=$DATA_MIB rounds=$ROUNDS sets=$SETS sync=${MDSYNC:-no} settle=$SETTLE shuffle=${SHUFFLE:-no} pll_files=$PLL_FILES"
	echo "# fstap $("$FSTAP" --version 2>/dev/null | head -1); backing $(df -T "$BASE" | awk 'NR==2{print $2" on "$1}')"
} >"$OUT/env.txt"
for r in $(seq "$ROUNDS"); do
	for pin in ${PINS//,/ }; do
		ORDER=${VARIANTS//,/ }
		if [ -n "$SHUFFLE" ]; then
			ORDER=$(shuf -e $ORDER | paste -sd' ')
			echo "record-bench.sh: round $r $pin order: $ORDER" >&2
		fi
		for v in $ORDER; do
			for set in ${SETS//,/ }; do
				run_set "$v" "$pin" "$set" "$r"
			done
			echo "record-bench.sh: round $r $pin $v done ($(( $(date +%s) - START )) s)" >&2
		done
	done
done
echo "# elapsed $(( $(date +%s) - START )) s" >>"$OUT/env.txt"
python3 "$(dirname "$(readlink -f "$0")")/record-bench-summary.py" "$RES" | tee "$OUT/summary.md"
