#!/bin/sh
# t2150: the replay streams the trace: its memory grows with the records of
# one reorder window and the live objects and handles, not with the length
# of the trace. A synthetic trace of 10 million records (4 threads, 100 000
# operations/s, getattr/open/read/release over 100 files) replays with
# zero divergences, and its peak RSS is under a fixed bound and no more than
# that of a million records. The long runs use --order=strict (one worker:
# the fastest, to keep make check short); a million records in the default
# order (one worker per thread, dependencies) stays under the bound too.
. "$(dirname "$0")/lib.sh"
: "${FSTAP_BUILDDIR:?}"
GEN="$FSTAP_BUILDDIR/tests/tools/gen-stream-trace"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
BOUND_KB=65536		# 64 MiB

"$GEN" "$T/small.trace" 1000000 || fail "cannot write the 1M-record trace"
"$GEN" "$T/big.trace" 10000000 || fail "cannot write the 10M-record trace"
mkdir "$T/d"
expect_exit 0 "$FSTAP" prepare "$T/big.trace" "$T/d" || exit 1

# runs the replay, prints the child's peak RSS in KiB (getrusage)
replay_peak() {
	$PY - "$FSTAP" "$1" "$T/d" "$2" "$3" <<'PY'
import resource, subprocess, sys
fstap, trace, d, out, order = sys.argv[1:]
with open(out, "w") as f:
    rc = subprocess.run([fstap, "replay", "--order=" + order, trace, d],
                        stdout=f, stderr=subprocess.STDOUT).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "exit %d" % rc)
PY
}

# expect_re FILE ERE
expect_re() {
	grep -qE -- "$2" "$1" || fail "'$1' lacks /$2/; it holds: $(head -c 400 "$1")"
}

small=$(replay_peak "$T/small.trace" "$T/small.out" strict)
big=$(replay_peak "$T/big.trace" "$T/big.out" strict)
thread=$(replay_peak "$T/small.trace" "$T/thread.out" thread)
echo "peak RSS (KiB): strict 1M records $small, 10M records $big; thread 1M records $thread" >&2
for f in small big thread; do
	expect_re "$T/$f.out" "^divergences: +0$"
done
expect_re "$T/small.out" "^ops: +1000000 "
expect_re "$T/thread.out" "^ops: +1000000 .*order thread"
expect_re "$T/big.out" "^ops: +10000000 "
case $small$big$thread in
*exit*) fail "a replay failed: $(tail -n 3 "$T/big.out")" ;;
*)
	[ "$big" -le "$BOUND_KB" ] || fail "10M records: peak RSS $big KiB over the bound $BOUND_KB KiB"
	[ "$thread" -le "$BOUND_KB" ] ||
		fail "order thread: peak RSS $thread KiB over the bound $BOUND_KB KiB"
	[ "$big" -le $((small + 8192)) ] ||
		fail "peak RSS grows with the trace: $small KiB for 1M records, $big KiB for 10M"
	;;
esac
finish
