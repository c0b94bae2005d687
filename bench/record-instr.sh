#!/bin/bash
# record-instr.sh: the recorder's own instructions per directory entry
# listed, counted by valgrind (cachegrind), so that the cost of recording a
# READDIR can be compared between builds without the timing noise of a
# shared machine (no hardware counters in this VM: perf stat has no
# "instructions"). Builds FILES empty files in DIRS directories, mounts
# "FSTAP record -q --snapshot=none ARGS BACKING MNT" under cachegrind, stats
# every file once through the mount (so that their object ids are known, as
# after mdphase's create phase), then lists every directory REPS times with
# ls -f. The same is run with 0 listings; the difference in instructions
# (and simulated D1 misses), divided by the entries listed, is the cost per
# entry. Run it on "--no-trace --cache=calls" and "-o TRACE --cache=calls":
# the difference between the two is what recording adds per entry.
#
# usage: bench/record-instr.sh [--files N] [--dirs N] [--reps N] [--work DIR]
#                              FSTAP ARGS...
#   (the word TRACE in ARGS stands for WORK/instr.trace)
#   --keep     keep WORK/cg.0 and WORK/cg.N (cg_diff cg.0 cg.N | cg_annotate
#              shows the instructions per function)
set -u
FILES=20000 DIRS=100 REPS=10 WORK=/var/tmp/fstap-record-instr KEEP=
while [ $# -gt 0 ]; do
	case $1 in
	--files) FILES=$2; shift ;;
	--dirs) DIRS=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--work) WORK=$2; shift ;;
	--keep) KEEP=1 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "record-instr.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || { echo "record-instr.sh: no FSTAP" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "record-instr.sh: needs root" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "record-instr.sh: needs valgrind" >&2; exit 1; }
FSTAP=$(readlink -f "$1"); shift
ARGS=()
for a in "$@"; do [ "$a" = TRACE ] && a=$WORK/instr.trace; ARGS+=("$a"); done
B=$WORK/back M=$WORK/mnt
mkdir -p "$WORK" || exit 1
DPID=
. "$(dirname "$0")/lib-daemon.sh"
cleanup() {
	daemon_stop "$M" "$DPID" 300
	DPID=
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

# one run: $1 = listings; prints "Ir D1mr" of the whole recorder run
run() {
	local reps=$1 i d
	cleanup
	rm -rf "$B" "$WORK/instr.trace"
	mkdir -p "$B" "$M"
	python3 - "$B" "$FILES" "$DIRS" <<'PY' || exit 1
import os, sys
b, n, nd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(nd):
    os.mkdir("%s/d%03d" % (b, d))
for i in range(n):
    open("%s/d%03d/f%06d" % (b, i % nd, i), "w").close()
PY
	valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$WORK/cg.$reps" \
		"$FSTAP" record -q --snapshot=none "${ARGS[@]}" "$B" "$M" 2>"$WORK/vg.$reps" &
	DPID=$!
	for i in $(seq 600); do mountpoint -q "$M" && break; sleep 0.1; done
	mountpoint -q "$M" || { echo "record-instr.sh: mount failed" >&2; cat "$WORK/vg.$reps" >&2; exit 1; }
	for d in "$M"/d*; do stat -c %i "$d"/* >/dev/null; done
	for i in $(seq "$reps"); do
		for d in "$M"/d*; do ls -f "$d" >/dev/null; done
	done
	cleanup
	awk '/I *refs:/ {gsub(",", "", $4); ir = $4} /D1  misses:/ {gsub(",", "", $4); d1 = $4}
	     END {print ir, d1}' "$WORK/vg.$reps"
}
read -r ir0 d0 < <(run 0)
read -r irn dn < <(run "$REPS")
entries=$(( REPS * (FILES + 2 * DIRS) ))
awk -v a="$ir0" -v b="$irn" -v c="$d0" -v d="$dn" -v e="$entries" 'BEGIN {
	printf "entries listed %d\ninstructions per entry %.0f\nsimulated D1 misses per entry %.2f\n",
	       e, (b - a) / e, (d - c) / e }'
[ -n "$KEEP" ] || rm -f "$WORK/cg.0" "$WORK/cg.$REPS"
rm -rf "$B" "$WORK/instr.trace"
