#!/bin/bash
# replay-overhead.sh: what `fstap replay --pace=afap` costs over issuing the
# same system calls directly: a trace of 1M operations (stat, open, read
# 4 KiB, close over 10k files) replayed as fast as possible on tmpfs,
# against a small C program that issues the same system calls directly
# (target: the replay's time at most 1.15x the direct program's, 1.25x with
# --threads 4; docs/PERFORMANCE.md, "Replay overhead").
#
# On a tmpfs mounted for the run (unmounted at the end):
#   1. `replay-direct --setup` makes FILES files of 4 KiB in one directory;
#   2. `fstap record -o T DIR -- replay-direct -i ITERS DIR` records ITERS
#      iterations of stat, open, read 4 KiB, close (default 250 000 = 1M
#      system calls; default cache mode);
#   3. with --strace, `strace -c -f` of a replay and of the direct program,
#      each on a directory made by `fstap prepare T` (the system calls side
#      by side, in OUT/strace-*.txt);
#   4. ROUNDS rounds, each pinned (`taskset -c 0` for fstap and the direct
#      program) and unpinned: `fstap prepare T` into a fresh directory, then
#      `fstap replay --pace=afap --order=ORDER --json=...` on it;
#      `fstap prepare T` into another fresh directory, then
#      `replay-direct -i ITERS` on it. Odd
#      rounds run the replay first, even rounds the direct program first.
#      The replay's time is `elapsed_ns` of its JSON (from its first
#      dispatched operation to the last worker's end; the process's wall
#      time, start-up and trace opening included, is in results.tsv too);
#      the direct program's is its loop's.
# It prints per pinning: median and min-max of each, and the ratio
# replay / direct per round and of the medians. Raw results: OUT/results.tsv
# (pin, round, what, seconds, wall seconds), the replays' JSON, the trace
# (OUT/replay.trace, for --trace).
#
# usage: bench/replay-overhead.sh [options]     (from the build directory, as root)
#   --rounds N        rounds per pinning (default 5)
#   --iters N         iterations of the recorded program (default 250000)
#   --files N         files (default 10000)
#   --pin LIST        pinned,unpinned (default both)
#   --threads N       the recorded program and the direct one run N threads
#                     sharing the iterations (replay-direct -t N) (default 1)
#   --order ORDER     the replay's --order (default thread)
#   --strace          also compare the system calls (strace -c -f), once
#   --trace FILE      replay FILE (a trace of replay-direct, e.g. OUT/replay.trace
#                     of an earlier run) instead of recording one; the
#                     replay-direct runs then use --iters and --files as given
#   --fstap PATH      default ./fstap
#   --direct PATH     default ./replay-direct
#   --work DIR        the tmpfs mount point (default /tmp/fstap-replay-overhead)
#   --out DIR         results (default /var/tmp/fstap-replay-overhead)
#
# Needs root (mount, and the recorder mounts with allow_other), fuse3,
# python3; strace for --strace.
set -eu
ROUNDS=5 ITERS=250000 FILES=10000 PINS=pinned,unpinned STRACE=0 TRACE_IN= THREADS=1 ORDER=thread
FSTAP=./fstap DIRECT=./replay-direct
WORK=/tmp/fstap-replay-overhead OUT=/var/tmp/fstap-replay-overhead
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift ;;
	--iters) ITERS=$2; shift ;;
	--files) FILES=$2; shift ;;
	--pin) PINS=$2; shift ;;
	--threads) THREADS=$2; shift ;;
	--order) ORDER=$2; shift ;;
	--strace) STRACE=1 ;;
	--trace) TRACE_IN=$(readlink -f "$2"); shift ;;
	--fstap) FSTAP=$2; shift ;;
	--direct) DIRECT=$2; shift ;;
	--work) WORK=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "replay-overhead.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
FSTAP=$(readlink -f "$FSTAP") DIRECT=$(readlink -f "$DIRECT")
[ -x "$FSTAP" ] || { echo "replay-overhead.sh: no fstap at $FSTAP" >&2; exit 1; }
[ -x "$DIRECT" ] || { echo "replay-overhead.sh: no replay-direct at $DIRECT" >&2; exit 1; }
[ "$STRACE" = 0 ] || command -v strace >/dev/null ||
	{ echo "replay-overhead.sh: --strace needs strace" >&2; exit 1; }
mountpoint -q "$WORK" 2>/dev/null && { echo "replay-overhead.sh: $WORK is mounted already" >&2; exit 1; }

MOUNTED=0
cleanup() {
	if mountpoint -q "$WORK/rec" 2>/dev/null; then
		fusermount3 -u "$WORK/rec" 2>/dev/null || umount -l "$WORK/rec" || true
	fi
	if [ "$MOUNTED" = 1 ]; then
		umount "$WORK" 2>/dev/null || umount -l "$WORK" || true
		rmdir "$WORK" 2>/dev/null || true
	fi
}
trap 'exit 130' INT TERM
trap cleanup EXIT

mkdir -p "$WORK" "$OUT"
rm -f "$OUT"/results.tsv "$OUT"/replay-*.json "$OUT"/strace-*.txt
# 10k files of 4 KiB three times over (recorded tree, two prepared), the trace
mount -t tmpfs -o size=$(( (FILES * 3 * 8 + 512 * 1024) / 1024 + 256 ))m tmpfs "$WORK"
MOUNTED=1
T=$WORK/replay.trace

if [ -n "$TRACE_IN" ]; then
	cp "$TRACE_IN" "$T"
	echo "# trace: $TRACE_IN"
else
	echo "# setup: $FILES files of 4 KiB; recording $ITERS iterations ($((4 * ITERS)) system calls)"
	mkdir "$WORK/rec"
	"$DIRECT" -n "$FILES" --setup "$WORK/rec"
	t0=$(date +%s%N)
	"$FSTAP" record -q -o "$T" "$WORK/rec" -- "$DIRECT" -n "$FILES" -t "$THREADS" -i "$ITERS" \
		"$WORK/rec" \
		>"$OUT/record.out"
	t1=$(date +%s%N)
	echo "# recorded in $(( (t1 - t0) / 1000000 )) ms: $(cat "$OUT/record.out")"
	rm -rf "$WORK/rec"
	cp "$T" "$OUT/replay.trace"
fi
"$FSTAP" info "$T" | sed -n '/^records:/,/^metadata:/p' | sed '$d; s/^/#   /'
ls -l "$T" | awk '{ print "#   trace: " $5 " bytes" }'

# fresh DIR prepared from the trace
prep() {
	rm -rf "$1"
	mkdir "$1"
	"$FSTAP" prepare -q "$T" "$1"
}

if [ "$STRACE" = 1 ]; then
	prep "$WORK/rp"
	strace -c -f -o "$OUT/strace-replay.txt" "$FSTAP" replay --no-progress --pace=afap \
		--order=$ORDER "$T" "$WORK/rp" >"$OUT/strace-replay.out"
	prep "$WORK/rp"
	strace -c -f -o "$OUT/strace-direct.txt" "$DIRECT" -n "$FILES" -t "$THREADS" -i "$ITERS" \
		"$WORK/rp" \
		>/dev/null
	echo "# strace -c -f of the replay (every thread, reading the trace included):"
	sed 's/^/#   /' "$OUT/strace-replay.txt"
	echo "# strace -c -f of replay-direct:"
	sed 's/^/#   /' "$OUT/strace-direct.txt"
fi

run_replay() {	# PIN ROUND
	local pfx='' t0 t1 el
	[ "$1" = pinned ] && pfx="taskset -c 0"
	prep "$WORK/rp"
	t0=$(date +%s%N)
	$pfx "$FSTAP" replay --no-progress --pace=afap --order=$ORDER \
		--json="$OUT/replay-$1-$2.json" \
		"$T" "$WORK/rp" >/dev/null
	t1=$(date +%s%N)
	el=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); r=j["runs"][0]
if r["divergences"]: sys.exit("replay-overhead.sh: %d divergences" % r["divergences"])
print("%.6f" % (r["elapsed_ns"] / 1e9))' "$OUT/replay-$1-$2.json")
	printf '%s\t%s\treplay\t%s\t%.6f\n' "$1" "$2" "$el" "$(( t1 - t0 ))e-9" >>"$OUT/results.tsv"
}

run_direct() {	# PIN ROUND
	local pfx='' t0 t1 el
	[ "$1" = pinned ] && pfx="taskset -c 0"
	prep "$WORK/rp"
	t0=$(date +%s%N)
	el=$($pfx "$DIRECT" -n "$FILES" -t "$THREADS" -i "$ITERS" "$WORK/rp" |
		awk '$1 == "loop" { print $3 }')
	t1=$(date +%s%N)
	printf '%s\t%s\tdirect\t%s\t%.6f\n' "$1" "$2" "$el" "$(( t1 - t0 ))e-9" >>"$OUT/results.tsv"
}

for r in $(seq 1 "$ROUNDS"); do
	for pin in ${PINS//,/ }; do
		if [ $((r % 2)) = 1 ]; then
			run_replay "$pin" "$r"
			run_direct "$pin" "$r"
		else
			run_direct "$pin" "$r"
			run_replay "$pin" "$r"
		fi
		echo "# round $r $pin: $(grep -P "^$pin\t$r\t" "$OUT/results.tsv" | cut -f3,4 | tr '\t\n' '  ')"
	done
done

python3 - "$OUT/results.tsv" <<'EOF'
import statistics, sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().split('\n') if l]
print("| pinning | replay, s (median, min-max) | replay wall, s | direct, s (median, min-max) "
      "| replay / direct (medians) | per round |")
print("|---|---|---|---|---:|---|")
for pin in dict.fromkeys(r[0] for r in rows):
    rep = {r[1]: (float(r[3]), float(r[4])) for r in rows if r[0] == pin and r[2] == "replay"}
    dire = {r[1]: float(r[3]) for r in rows if r[0] == pin and r[2] == "direct"}
    rs = sorted(v[0] for v in rep.values())
    ws = sorted(v[1] for v in rep.values())
    ds = sorted(dire.values())
    per = ["%.2f" % (rep[k][0] / dire[k]) for k in rep if k in dire]
    print("| %s | %.3f (%.3f-%.3f) | %.3f | %.3f (%.3f-%.3f) | **%.2f** | %s |" % (
        pin, statistics.median(rs), rs[0], rs[-1], statistics.median(ws),
        statistics.median(ds), ds[0], ds[-1],
        statistics.median(rs) / statistics.median(ds), ", ".join(per)))
EOF
