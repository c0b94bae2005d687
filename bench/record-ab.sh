#!/bin/bash
# record-ab.sh: the metadata set (or, with --set data, the data set) of
# bench/mdphase on a few recorder command lines, pinned (taskset -c 0 for the
# daemon and mdphase) or not, interleaved round-robin, a fresh mount per run.
# For short A/B comparisons (two fstap binaries, the trace on two disks,
# --no-trace against recording) that record-bench.sh's fixed variants do not
# cover. Prints one line per run and phase (round, label, phase, rate) on
# stdout, then a table of medians (min-max) and, with --ratio, per-round
# ratios.
#
# usage: bench/record-ab.sh [options] VARIANT...
#   VARIANT           LABEL=FSTAP ARGS...: "FSTAP record -q --snapshot=none
#                     ARGS BACKING MNT" (ARGS split on blanks; the word TRACE
#                     in ARGS stands for a trace file in --trace-dir)
#                     native, loggedfs, pll-never, pll-always, pll-auto0 and
#                     their -dp forms: as in record-bench.sh
#   --rounds N        rounds (default 3)
#   --files N         files (default 20000; pll-* at most 15000)
#   --dirs N          directories (default 100)
#   --sync            mdphase -S: sync before each phase
#   --image MIB       run on an ext4 file system made for the run in a
#                     MIB-MiB image in WORK (default 4096; 0: on WORK's own
#                     file system; see record-bench.sh)
#   --settle SECONDS  sync and wait SECONDS after deleting the previous run's
#                     files (default 0 with --image, 36 without; see
#                     record-bench.sh)
#   --set SET         md (default) or data: sequential write + fsync of
#                     --data-mib MiB, cold read after drop_caches, warm read
#   --data-mib N      size of the data set (default 512)
#   --pin PIN         pinned (default) or unpinned
#   --shuffle         run each round's variants in a new random order (on
#                     stderr), so that no variant always runs first or right
#                     after the same one (what the previous run left in
#                     memory can decide a cold read's rate: docs/recording.md,
#                     "The data set against passthrough_ll")
#   --ratio A/B       also print the per-round ratio of rates of label A to B
#                     (repeatable)
#   --work DIR        scratch directory (default /var/tmp/fstap-record-ab)
#   --trace-dir DIR   where TRACE goes (default: the file system under test)
#   --mdphase PATH    default ./mdphase
#
# example (trace on the same disk vs on tmpfs vs none):
#   bench/record-ab.sh --rounds 5 --ratio disk/none --ratio shm/none \
#     "none=./fstap --no-trace --cache=calls" "disk=./fstap -o TRACE --cache=calls" \
#     "shm=./fstap -o /dev/shm/ab.trace --cache=calls"
#
# example (cold read of two fstap builds against passthrough_ll, data set):
#   bench/record-ab.sh --set data --shuffle --rounds 5 --ratio new/pll-never \
#     --ratio old/pll-never "old=/tmp/old/fstap -o TRACE --cache=calls" \
#     "new=./fstap -o TRACE --cache=calls" pll-never
set -u
ROUNDS=3 FILES=20000 DIRS=100 SYNC= SETTLE= IMAGE=4096 WORK=/var/tmp/fstap-record-ab TDIR= MDPHASE=./mdphase
SET=md DATA_MIB=512 PIN=pinned SHUFFLE=
RATIOS=()
VARS=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift ;;
	--files) FILES=$2; shift ;;
	--dirs) DIRS=$2; shift ;;
	--sync) SYNC=-S ;;
	--settle) SETTLE=$2; shift ;;
	--image) IMAGE=$2; shift ;;
	--set) SET=$2; shift ;;
	--data-mib) DATA_MIB=$2; shift ;;
	--pin) PIN=$2; shift ;;
	--shuffle) SHUFFLE=1 ;;
	--ratio) RATIOS+=("$2"); shift ;;
	--work) WORK=$2; shift ;;
	--trace-dir) TDIR=$2; shift ;;
	--mdphase) MDPHASE=$2; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "record-ab.sh: unknown option $1" >&2; exit 2 ;;
	*) VARS+=("$1") ;;
	esac
	shift
done
[ ${#VARS[@]} -gt 0 ] || { echo "record-ab.sh: no variant" >&2; exit 2; }
case $SET in
md) SETARGS="$SYNC -m" ;;
data) SETARGS="-D -s $DATA_MIB" ;;
*) echo "record-ab.sh: --set md or data, not $SET" >&2; exit 2 ;;
esac
case $PIN in
pinned) TS="taskset -c 0" ;;
unpinned) TS= ;;
*) echo "record-ab.sh: --pin pinned or unpinned, not $PIN" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "record-ab.sh: needs root" >&2; exit 1; }
MDPHASE=$(readlink -f "$MDPHASE")
mkdir -p "$WORK" || exit 1
DPID= DMNT= M=$WORK/mnt
. "$(dirname "$0")/lib-daemon.sh"
cleanup() {	# unmount, let the daemon finish (the trace's footer), else stop it
	daemon_stop "${DMNT:-$M}" "$DPID" 100
	DPID= DMNT=
}
trap 'cleanup; fs_image_down; exit 130' INT TERM
trap 'cleanup; fs_image_down' EXIT
fs_base record-ab.sh "$WORK" "$IMAGE" "$SETTLE"
TDIR=${TDIR:-$BASE}
B=$BASE/back RES=$WORK/ab.tsv
: >"$RES"

PLL=
EX=/usr/share/doc/libfuse3-dev/examples
for v in "${VARS[@]}"; do
	case $v in pll-*)
		[ -n "$PLL" ] && continue
		gcc -O2 -w -I$EX -o "$WORK/passthrough_ll" $EX/passthrough_ll.c \
			$(pkg-config --cflags --libs fuse3) || exit 1
		PLL=$WORK/passthrough_ll ;;
	esac
done

NV=${#VARS[@]}
for r in $(seq "$ROUNDS"); do
	ORDER=$(seq 0 $((NV - 1)))
	if [ -n "$SHUFFLE" ]; then
		ORDER=$(shuf -e $ORDER)
		echo "record-ab.sh: round $r order:$(for k in $ORDER; do printf ' %s' "${VARS[$k]%%=*}"; done)" >&2
	fi
	for k in $ORDER; do
		v=${VARS[$k]}
		label=${v%%=*} dir=$M n=$FILES
		rm -rf "$B" "$TDIR/ab.trace"
		fs_settle "$SETTLE"
		mkdir -p "$B" "$M"
		case $v in
		native) dir=$B ;;
		loggedfs)	# mounted over the backing directory itself
			dir=$B DMNT=$B
			$TS loggedfs -f -l "$WORK/lfs.log" "$B" >/dev/null 2>&1 &
			DPID=$! ;;
		pll-never|pll-always|pll-auto0|pll-never-dp|pll-always-dp|pll-auto0-dp)
			o=$(pll_options "$v")
			[ "$n" -gt 15000 ] && n=15000
			$TS "$PLL" -f -o allow_other,source="$B",$o "$M" 2>/dev/null &
			DPID=$! ;;
		*=*)
			read -r -a cmd <<<"${v#*=}"
			for i in "${!cmd[@]}"; do [ "${cmd[$i]}" = TRACE ] && cmd[$i]=$TDIR/ab.trace; done
			$TS "${cmd[0]}" record -q --snapshot=none "${cmd[@]:1}" "$B" "$M" &
			DPID=$! ;;
		*) echo "record-ab.sh: bad variant $v" >&2; exit 2 ;;
		esac
		if [ -n "$DPID" ]; then
			for i in $(seq 100); do mountpoint -q "${DMNT:-$M}" && break; sleep 0.1; done
		fi
		$TS "$MDPHASE" $SETARGS -n "$n" -d "$DIRS" "$dir" |
			awk -v r="$r" -v l="$label" '{print r "\t" l "\t" $1 "\t" $4}' | tee -a "$RES"
		cleanup
		rm -f "$TDIR/ab.trace" "$WORK/lfs.log"
	done
done
python3 - "$RES" "${RATIOS[@]}" <<'PY'
import csv, statistics, sys
from collections import defaultdict
d = defaultdict(dict)
labels = []
for r, l, ph, rate in csv.reader(open(sys.argv[1]), delimiter="\t"):
    d[(l, ph)][r] = float(rate)
    if l not in labels:
        labels.append(l)
phs = [p for p in ("create", "stat", "readdir", "open+read", "unlink", "write", "read", "readwarm")
       if any(k[1] == p for k in d)]
print("\n| variant | " + " | ".join(phs) + " |\n|---|" + "---:|" * len(phs))
for l in labels:
    print("| %s | " % l + " | ".join("%.0f (%.0f-%.0f)" % (statistics.median(d[(l, p)].values()),
          min(d[(l, p)].values()), max(d[(l, p)].values())) for p in phs) + " |")
if sys.argv[2:]:
    print("\nper-round ratio of rates, median (min-max):\n\n| ratio | " + " | ".join(phs) + " |\n|---|" + "---:|" * len(phs))
for pair in sys.argv[2:]:
    a, b = pair.split("/")
    cells = []
    for p in phs:
        x = sorted(d[(a, p)][k] / d[(b, p)][k] for k in d[(a, p)] if k in d[(b, p)])
        cells.append("%.2f (%.2f-%.2f)" % (statistics.median(x), x[0], x[-1]) if x else "-")
    print("| %s / %s | " % (a, b) + " | ".join(cells) + " |")
PY
