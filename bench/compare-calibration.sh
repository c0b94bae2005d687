#!/bin/bash
# compare-calibration.sh: how often compare's verdicts are wrong, measured.
#   1. false alarms: N A/A compares (ext4 under two names, the same mkfs and
#      mount options) of one recorded write workload; the share whose
#      second-best row is called 'slower' (target: at most 5%);
#   2. power: N compares of ext4 against ext4 mounted -o sync on the same
#      fsync-free write workload (every write waits for the device: a
#      slowdown of far more than 20% on a loop image); the share where the
#      sync row is 'slower' (target: at least 80%).
# Each compare uses --runs=RUNS (default auto, capped by --max-runs=10) and
# its own --seed. Prints the counts and shares; every results.json is kept
# in OUT (docs/PERFORMANCE.md, "Compare calibration").
#
# usage: bench/compare-calibration.sh [-n N] [-r RUNS] [-o OUT] [FSTAP]
# As root (compare makes loop images and mounts them), from the build
# directory or with FSTAP the fstap binary.
set -euo pipefail

N=20 RUNS=auto OUT=
while getopts n:r:o: opt; do
	case $opt in
	n) N=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-n N] [-r RUNS] [-o OUT] [FSTAP]" >&2; exit 2 ;;
	esac
done
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

alarms=0 found=0
for i in $(seq "$N"); do
	"$FSTAP" compare --candidate=a:ext4 --candidate=b:ext4 --runs="$RUNS" "${MAXRUNS[@]}" \
		--seed="$i" --image-dir="$OUT/img" --no-progress --out="$OUT/aa$i" \
		"$OUT/w.trace" >"$OUT/aa$i.txt" 2>&1
	va=$(verdict "$OUT/aa$i/results.json" a) vb=$(verdict "$OUT/aa$i/results.json" b)
	[ "$va" = slower ] || [ "$vb" = slower ] && alarms=$((alarms + 1))
	echo "A/A $i: a $va, b $vb"
	"$FSTAP" compare --candidate=default:ext4 --candidate=sync:ext4::sync --runs="$RUNS" \
		"${MAXRUNS[@]}" --seed="$i" --image-dir="$OUT/img" --no-progress \
		--out="$OUT/sync$i" "$OUT/w.trace" >"$OUT/sync$i.txt" 2>&1
	vs=$(verdict "$OUT/sync$i/results.json" sync)
	[ "$vs" = slower ] && found=$((found + 1))
	echo "sync $i: $vs ($(grep -o 'sync is [^;]*' "$OUT/sync$i.txt" | head -1))"
done
echo "false alarms (A/A called slower): $alarms of $N ($((100 * alarms / N))%)"
echo "sync mount found slower: $found of $N ($((100 * found / N))%)"
echo "results in $OUT"
