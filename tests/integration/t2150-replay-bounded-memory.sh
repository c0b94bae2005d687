#!/bin/sh
# t2150: the replay streams the trace: its memory grows with the records of
# one reorder window and the live objects and handles, not with the length
# of the trace. A synthetic trace of 10 million records (4 threads, 100 000
# operations/s, getattr/open/read/release over 100 files) replays with
# zero divergences, and its peak RSS is under a fixed bound and no more than
# that of a million records. The long runs use --order=strict (one worker:
# the fastest, to keep make check short); a million records in the default
# order (one worker per thread, dependencies) stays under the bound too.
# Objects created and removed do not add up either (16 rounds of an
# mdtest-like stream take what 6 take). The plan (--plan-ahead: what is
# dispatched ahead of the workers) is 16 MiB here, less than either trace
# needs: both fill it, the rest is dispatched as the workers free it, and
# the bound includes it.
. "$(dirname "$0")/lib.sh"
: "${FSTAP_BUILDDIR:?}"
GEN="$FSTAP_BUILDDIR/tests/tools/gen-stream-trace"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
BOUND_KB=65536		# 64 MiB
PLAN=--plan-ahead=16M

"$GEN" "$T/small.trace" 1000000 || fail "cannot write the 1M-record trace"
"$GEN" "$T/big.trace" 10000000 || fail "cannot write the 10M-record trace"
mkdir "$T/d"
expect_exit 0 "$FSTAP" prepare "$T/big.trace" "$T/d" || exit 1

# runs the replay, prints the child's peak RSS in KiB (getrusage)
replay_peak() {
	$PY - "$FSTAP" "$1" "$T/d" "$2" "$3" "$PLAN" <<'PY'
import resource, subprocess, sys
fstap, trace, d, out, order, plan = sys.argv[1:]
with open(out, "w") as f:
    rc = subprocess.run([fstap, "replay", "--order=" + order, plan, trace, d],
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

# Objects that come and go: trace-bench's mdtest-like rounds, each in fresh
# directories (20 000 files created, stat()ed, read and removed, 0.4 s of
# trace time a round), 6 rounds against 16. Dead objects are forgotten 2 s
# after (the path map's, the namespace model's, the race table's): past 6
# rounds the peak stays. A 50 ms window keeps what the window holds small
# beside what the objects would add.
BENCH="$FSTAP_BUILDDIR/trace-bench"
churn_peak() {	# ROUNDS: prints the replay's peak RSS in KiB
	"$BENCH" --rounds "$1" --files 20000 --keep "$T/churn$1.trace" >/dev/null ||
		{ echo "trace-bench failed"; return; }
	rm -rf "$T/c" && mkdir "$T/c"
	$PY - "$FSTAP" "$T/churn$1.trace" "$T/c" "$T/churn$1.out" "$PLAN" <<'PY'
import resource, subprocess, sys
fstap, trace, d, out, plan = sys.argv[1:]
with open(out, "w") as f:
    rc = subprocess.run([fstap, "replay", "--order=strict", "--window=50000000", plan, trace, d],
                        stdout=f, stderr=subprocess.STDOUT).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "exit %d" % rc)
PY
}
six=$(churn_peak 6)
sixteen=$(churn_peak 16)
echo "peak RSS (KiB), objects that come and go: 6 rounds $six, 16 rounds $sixteen" >&2
expect_re "$T/churn16.out" "^divergences: +0$"
case $six$sixteen in
*[!0-9]*) fail "a churn replay failed: $six / $sixteen: $(tail -n 3 "$T/churn16.out")" ;;
*)	[ "$sixteen" -le $((six + 8192)) ] ||
		fail "peak RSS grows with the objects that have come and gone: $six KiB for 6 rounds, $sixteen KiB for 16" ;;
esac
finish
