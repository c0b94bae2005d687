#!/bin/bash
# compare-calibration.sh: how often compare's verdicts are wrong, measured.
#   1. false alarms: N A/A compares (ext4 under two names, the same mkfs and
#      mount options) of one recorded write workload; the share whose
#      second-best row is called 'slower' (target: at most 5%);
#   2. power: N compares of a candidate with a known slowdown against the
#      same without it, on the same fsync-free write workload; the share
#      where the slowed row is 'slower' (target: at least 80%). The slowdown
#      (-p):
#      sync      ext4 mounted -o sync (every write waits for the device: far
#                more than 20% on a loop image);
#      throttle  two ext4 file systems on loop devices with direct I/O,
#                given as --target; the 'slow' one's loop device throttled
#                by the blkio controller (blkio.throttle.write_bps_device of
#                the root cgroup, cgroup v1; io.max wbps on cgroup v2) to -b
#                BPS bytes/s, by default tuned so that a run takes 1.2 times
#                as long: BPS = bytes the device writes per run / (0.2 x the
#                median time of a run unthrottled), measured first.
# Each compare uses --runs=RUNS (default auto, capped by --max-runs=10) and
# its own --seed. Prints the counts and shares (and for each try the ratio
# of the medians); every results.json is kept in OUT (docs/PERFORMANCE.md,
# "Compare calibration"). -a skips the A/A compares.
#
# usage: bench/compare-calibration.sh [-n N] [-r RUNS] [-p sync|throttle] [-b BPS]
#                                     [-a] [-o OUT] [FSTAP]
# As root (compare makes loop images and mounts them), from the build
# directory or with FSTAP the fstap binary.
set -euo pipefail

N=20 RUNS=auto OUT= POWER=sync BPS= AA=1
usage() {
	echo "usage: $0 [-n N] [-r RUNS] [-p sync|throttle] [-b BPS] [-a] [-o OUT] [FSTAP]" >&2
	exit 2
}
while getopts n:r:o:p:b:a opt; do
	case $opt in
	n) N=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	p) POWER=$OPTARG ;;
	b) BPS=$OPTARG ;;
	a) AA=0 ;;
	*) usage ;;
	esac
done
case $POWER in sync | throttle) ;; *) usage ;; esac
shift $((OPTIND - 1))
FSTAP=$(realpath "${1:-./fstap}")
[ -x "$FSTAP" ] || { echo "compare-calibration: no fstap binary at '$FSTAP'" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "compare-calibration: must run as root" >&2; exit 1; }
OUT=${OUT:-$(mktemp -d /var/tmp/compare-calibration.XXXXXX)}
mkdir -p "$OUT/img" "$OUT/app"
MAXRUNS=()
[ "$RUNS" = auto ] && MAXRUNS=(--max-runs=10)

# The workload: 16 files of 1 MiB written in 64 KiB blocks, no fsync.
"$FSTAP" record -q -o "$OUT/w.trace" "$OUT/app" -- sh -c "cd '$OUT/app' &&
	for i in \$(seq 16); do dd if=/dev/zero of=f\$i bs=64k count=16 status=none; done"

# verdict OF ROW NAME in results.json FILE
verdict() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print({x["candidate"]: x["verdict"] for x in r["rows"]}[sys.argv[2]])' "$1" "$2"
}

# ratio of the medians of row NAME to row BASE in results.json FILE
ratio() {
	python3 -c 'import json, sys
r = {x["candidate"]: x for x in json.load(open(sys.argv[1]))["rows"]}
m = lambda n: r[n]["summary"]["elapsed_s"]["median"]
print("%.2fx" % (m(sys.argv[2]) / m(sys.argv[3])))' "$1" "$2" "$3"
}

# --- the throttled target: two loop file systems, one device throttled -------------
LOOPS=() THROTTLED=
cleanup() {
	if [ -n "$THROTTLED" ]; then throttle "$THROTTLED" 0 || true; fi
	for m in "$OUT/t-fast" "$OUT/t-slow"; do
		if mountpoint -q "$m"; then umount "$m"; fi
	done
	for d in "${LOOPS[@]}"; do losetup -d "$d" || true; done
	rm -f "$OUT/t-fast.img" "$OUT/t-slow.img"
}
trap cleanup EXIT
# throttle MAJ:MIN BPS: writes to the device at most BPS bytes/s (0: no limit)
throttle() {
	if [ -f /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ]; then
		echo "$1 $2" >/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
	else
		[ "$2" = 0 ] && set -- "$1" max
		echo "$1 wbps=$2" >/sys/fs/cgroup/io.max
	fi
}
if [ "$POWER" = throttle ]; then
	for t in fast slow; do
		truncate -s 512M "$OUT/t-$t.img"
		d=$(losetup --find --show --direct-io=on "$OUT/t-$t.img")
		LOOPS+=("$d")
		mkfs.ext4 -q -F "$d"
		mkdir -p "$OUT/t-$t"
		mount "$d" "$OUT/t-$t"
	done
	SLOWDEV=$(lsblk -dno MAJ:MIN "${LOOPS[1]}" | tr -d ' ')
	if [ -z "$BPS" ]; then
		"$FSTAP" compare --target=slow="$OUT/t-slow" --runs=5 --no-progress \
			--out="$OUT/tune" "$OUT/w.trace" >"$OUT/tune.txt" 2>&1
		# the sectors one replay writes (its trace starts from an empty directory)
		mkdir "$OUT/t-slow/tune"
		read -r w0 < <(awk '{print $7}' "/sys/dev/block/$SLOWDEV/stat")
		"$FSTAP" replay --sync-at-end --no-progress "$OUT/w.trace" "$OUT/t-slow/tune" \
			>/dev/null
		read -r w1 < <(awk '{print $7}' "/sys/dev/block/$SLOWDEV/stat")
		rm -rf "$OUT/t-slow/tune"
		BPS=$(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["rows"][0]["summary"]["elapsed_s"]["median"]
print(int((int(sys.argv[3]) - int(sys.argv[2])) * 512 / (0.2 * t)))' \
			"$OUT/tune/results.json" "$w0" "$w1")
		echo "tuned: $(( (w1 - w0) * 512 )) bytes written per run, BPS=$BPS"
	fi
	throttle "$SLOWDEV" "$BPS"
	THROTTLED=$SLOWDEV
fi

alarms=0 found=0
for i in $(seq "$N"); do
	if [ "$AA" = 1 ]; then
		"$FSTAP" compare --candidate=a:ext4 --candidate=b:ext4 --runs="$RUNS" \
			"${MAXRUNS[@]}" --seed="$i" --image-dir="$OUT/img" --no-progress \
			--out="$OUT/aa$i" "$OUT/w.trace" >"$OUT/aa$i.txt" 2>&1
		va=$(verdict "$OUT/aa$i/results.json" a) vb=$(verdict "$OUT/aa$i/results.json" b)
		[ "$va" = slower ] || [ "$vb" = slower ] && alarms=$((alarms + 1))
		echo "A/A $i: a $va, b $vb"
	fi
	if [ "$POWER" = sync ]; then
		base=default slow=sync
		set -- --candidate=default:ext4 --candidate=sync:ext4::sync
	else
		base=fast slow=slow
		set -- --target=fast="$OUT/t-fast" --target=slow="$OUT/t-slow"
	fi
	"$FSTAP" compare "$@" --runs="$RUNS" "${MAXRUNS[@]}" --seed="$i" \
		--image-dir="$OUT/img" --no-progress --out="$OUT/$POWER$i" "$OUT/w.trace" \
		>"$OUT/$POWER$i.txt" 2>&1
	vs=$(verdict "$OUT/$POWER$i/results.json" $slow)
	[ "$vs" = slower ] && found=$((found + 1))
	echo "$POWER $i: $vs, medians $(ratio "$OUT/$POWER$i/results.json" $slow $base)," \
		"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs_per_row"])' \
			"$OUT/$POWER$i/results.json") runs per row"
done
if [ "$AA" = 1 ]; then
	echo "false alarms (A/A called slower): $alarms of $N ($((100 * alarms / N))%)"
fi
echo "$POWER slowdown found slower: $found of $N ($((100 * found / N))%)"
echo "results in $OUT"
