#!/bin/sh
# record-many-files.sh: a large tree through `fstap record` (opt-in, not in
# make check). Creates N files (default 1000000, 1000 per directory)
# natively in a backing directory, mounts it with `fstap record
# --snapshot=none`, walks it with find (every file looked up and stat'ed),
# and checks that the recorder's open descriptors stay bounded (sampled from
# /proc/PID/fd during the walk) and that nothing failed with EMFILE.
#
# usage: sudo bench/record-many-files.sh [N] [WORKDIR]
#   FSTAP: the fstap binary (default: fstap in PATH)
set -eu
N=${1:-1000000}
W=${2:-$(mktemp -d "${TMPDIR:-/tmp}/fstap-many.XXXXXX")}
FSTAP=${FSTAP:-fstap}
# the descriptor cache takes half the hard limit; the rest is a margin
MAXFDS=${MAXFDS:-$(( $(ulimit -Hn) / 2 + 256 ))}
REC=""
SAMPLER=""
cleanup() {
	[ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null || true
	if awk -v m="$W/m" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; then
		fusermount3 -u "$W/m" 2>/dev/null || umount -l "$W/m" || true
	fi
	[ -n "$REC" ] && { kill "$REC" 2>/dev/null || true; wait "$REC" 2>/dev/null || true; }
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$W/b" "$W/m"

t0=$(date +%s.%N)
python3 - "$W/b" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for d in range((n + 999) // 1000):
    os.mkdir(os.path.join(root, "d%04d" % d))
for i in range(n):
    os.close(os.open(os.path.join(root, "d%04d" % (i // 1000), "f%07d" % i), os.O_CREAT | os.O_WRONLY, 0o644))
PY
t1=$(date +%s.%N)
"$FSTAP" record -q --snapshot=none -o "$W/t.trace" "$W/b" "$W/m" 2>"$W/rec.err" &
REC=$!
i=0
until awk -v m="$W/m" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; do
	i=$((i + 1)); [ $i -lt 400 ] || { echo "not mounted: $(cat "$W/rec.err")" >&2; exit 1; }
	sleep 0.05
done
( peak=0; while :; do
	n=$(ls /proc/$REC/fd 2>/dev/null | wc -l); [ "$n" -gt "$peak" ] && peak=$n && echo $peak >"$W/peak"
	sleep 0.2
done ) &
SAMPLER=$!
t2=$(date +%s.%N)
got=$(find "$W/m" -type f -printf '%s\n' 2>"$W/find.err" | wc -l)
t3=$(date +%s.%N)
got2=$(find "$W/m" -type f -newer "$W/b" 2>>"$W/find.err" | wc -l)
t4=$(date +%s.%N)
kill "$SAMPLER"; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=""
fds_end=$(ls /proc/$REC/fd | wc -l)
peak=$(cat "$W/peak" 2>/dev/null || echo 0)
fusermount3 -u "$W/m"
rc=0; wait "$REC" || rc=$?; REC=""
tb=$(stat -c %s "$W/t.trace")
awk -v n="$N" -v got="$got" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" \
    -v peak="$peak" -v fe="$fds_end" -v tb="$tb" 'BEGIN {
	printf "files %d, seen %d\n", n, got
	printf "create natively   %8.1f s\n", b - a
	printf "find -printf %%s   %8.1f s (%.0f files/s)\n", d - c, got / (d - c)
	printf "find -newer again %8.1f s (%.0f files/s)\n", e - d, got / (e - d)
	printf "recorder fds: peak %d, at the end %d\n", peak, fe
	printf "trace %.1f MiB, %.1f bytes per file\n", tb / 1048576, tb / n
}'
st=0
[ "$got" = "$N" ] || { echo "FAIL: find saw $got of $N files" >&2; st=1; }
[ "$peak" -lt "$MAXFDS" ] || { echo "FAIL: $peak descriptors (limit $MAXFDS)" >&2; st=1; }
if grep -qi "too many open files\|EMFILE" "$W/find.err" "$W/rec.err"; then
	echo "FAIL: EMFILE: $(grep -i 'too many open files\|EMFILE' "$W/find.err" "$W/rec.err" | head -3)" >&2; st=1
fi
[ "$rc" = 0 ] || { echo "FAIL: fstap record exited $rc" >&2; st=1; }
exit $st
