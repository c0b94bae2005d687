#!/bin/sh
# t2140: --cache-limit runs the replay in a memory cgroup (cgroup v2, or
# the cgroup v1 memory controller on a hybrid system such as CI's): a trace
# that reads a 48 MiB file twice, with a pause in between, replayed with
# --cache-limit=16M. During the run the cgroup exists with the limit set;
# the replay reports the cgroup's peak memory use, at most the limit (the
# page cache of the 48 MiB read did not exceed it) and not zero; after the
# run the cgroup is gone and the process is back where it was. A replay
# killed in its run leaves its cgroup; the next replay with --cache-limit
# removes it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

[ "$(id -u)" = 0 ] || skip "needs root to make a memory cgroup"
if grep -q "^0::" /proc/self/cgroup && grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	V=2 CG=/sys/fs/cgroup LIMIT_FILE=memory.max
elif mnt=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo) &&
	[ -n "$mnt" ]; then
	V=1 CG=$mnt LIMIT_FILE=memory.limit_in_bytes
else
	skip "no memory cgroup controller (v1 or v2)"
fi

SIZE=$((48 * 1024 * 1024)) CHUNK=131072
python3 - "$T/t.jsonl" $SIZE $CHUNK <<'PY'
import json, sys
out, size, chunk = open(sys.argv[1], "w"), int(sys.argv[2]), int(sys.argv[3])
w = lambda **o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
out.write('{"fstap":"trace","version":"1.0","start_realtime_ns":1,"start_monotonic_ns":0}\n')
w(op="state_inode", obj=1, mode=0o40755, ino=2)
w(op="state_inode", obj=2, mode=0o100644, ino=3, size=size, extents=[[0, size]])
w(op="state_dentry", obj=1, name="big", child=2)
t = 1000
def rec(**o):
    global t
    w(t=t, dur=100, tid=10, pid=10, **o)
    t += 1000
for fh, pause in ((1, 1500000000), (2, 0)):
    rec(op="open", obj=2, flags=0, fh=fh)
    for off in range(0, size, chunk):
        rec(op="read", obj=2, fh=fh, offset=off, size=chunk, res=chunk)
    rec(op="release", obj=2, fh=fh)
    t += pause     # think time: the second pass starts 1.5 s later with --pace=orig
w(op="footer", t=t)
PY
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"
mkdir "$T/d"
expect_exit 0 "$FSTAP" prepare -q "$T/t.trace" "$T/d"

before=$(cat /proc/self/cgroup)
"$FSTAP" replay --drop-caches --cache-limit=16M --pace=orig --json="$T/r.json" \
	"$T/t.trace" "$T/d" >"$T/out" 2>"$T/err" &
pid=$!
# the cgroup appears when the run starts and lives at least the trace's
# 1.5 s pause; it is sampled every 50 ms for as long as the replay runs,
# however late its run starts on a loaded machine
seen=
while kill -0 $pid 2>/dev/null; do
	if [ -f "$CG/fstap-replay-$pid/$LIMIT_FILE" ]; then
		seen=$(cat "$CG/fstap-replay-$pid/$LIMIT_FILE")
		grep -qx "$pid" "$CG/fstap-replay-$pid/cgroup.procs" || fail "the replay is not in its cgroup"
		break
	fi
	sleep 0.05
done
set +e
wait $pid
rc=$?
set -e
[ "$rc" = 0 ] || fail "replay --cache-limit exited $rc: $(cat "$T/err")"
[ "$seen" = 16777216 ] || fail "the cgroup v$V limit during the run was '$seen', not 16777216"
[ ! -e "$CG/fstap-replay-$pid" ] || fail "the cgroup '$CG/fstap-replay-$pid' is left behind"
[ "$(cat /proc/self/cgroup)" = "$before" ] || fail "this shell's cgroups changed"
expect_grep "$T/err" "(cgroup v$V '$CG/fstap-replay-$pid'): peak memory use"
peak=$(sed -n 's/.*peak memory use \([0-9]*\) bytes.*/\1/p' "$T/err")
[ -n "$peak" ] && [ "$peak" -gt 0 ] && [ "$peak" -le 16777216 ] ||
	fail "peak memory use '$peak' is not within (0, 16M]"
[ "$(json_get "$T/r.json" 'j["runs"][0]["by_op"]["read"]["bytes"]')" = $((2 * SIZE)) ] ||
	fail "the replay did not read the file twice"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] || fail "divergences"

# killed in its run (kill -9 during the pause): its cgroup stays, and the
# next --cache-limit replay removes it and says so
"$FSTAP" replay --cache-limit=16M --pace=orig "$T/t.trace" "$T/d" >/dev/null 2>&1 &
pid=$!
killed_cg="$CG/fstap-replay-$pid"
test_cleanup() { kill -9 $pid 2>/dev/null; rmdir "$killed_cg" 2>/dev/null || :; }
while kill -0 $pid 2>/dev/null && [ ! -f "$CG/fstap-replay-$pid/cgroup.procs" ]; do
	sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null || :
[ -d "$CG/fstap-replay-$pid" ] || fail "the killed replay's cgroup is not there to remove"
expect_exit 0 "$FSTAP" replay --cache-limit=16M "$T/t.trace" "$T/d"
expect_grep "$T/err" "removed cgroup '$CG/fstap-replay-$pid', left by a replay that was killed"
[ ! -e "$CG/fstap-replay-$pid" ] || fail "the killed replay's cgroup '$CG/fstap-replay-$pid' is left behind"

# A limit too small to be a size is a usage error; without root's cgroup
# rights or a controller the message is clear (not checked here).
expect_exit 2 "$FSTAP" replay --cache-limit=1k "$T/t.trace" "$T/d"
finish
