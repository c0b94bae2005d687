#!/bin/sh
# t2196: `fstap replay --pace=orig` keeps a thread's think time: the gap
# between two of its operations in the recording less the durations of its
# requests in between that the replay does not issue (the lookup of a path
# walk is the system call's work, done again by the replayed call). A trace
# made here: 12 mkdirs, each after the lookup of its name; the lookups take
# 20 ms (a cold directory), the thread thinks 15 ms before each lookup and
# the mkdir comes 1 ms after it: recorded 12 x 36 ms; the run starts at the
# first lookup, so the replay keeps 1 + 11 x 16 = 177 ms of think time (with
# the lookups' 20 ms kept: 417 ms). --pace=50% keeps half of it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

python3 - "$T/walk.jsonl" <<'PY'
import json, sys
ms = 1000000
lines = [{"fstap": "trace", "version": "1.1", "metadata": {"recorder": {"cache": "calls"}}},
	 {"op": "process", "pid": 7, "ppid": 1, "comm": "maker", "t": 0}]
t = ms
for k in range(12):
	t += 15 * ms
	lines.append({"op": "lookup", "t": t, "dur": 20 * ms, "tid": 7, "pid": 7, "res": -2,
		      "obj": 1, "name": "x%d" % k})
	t += 21 * ms
	lines.append({"op": "mkdir", "t": t, "dur": 20000, "tid": 7, "pid": 7, "obj": 1,
		      "name": "x%d" % k, "mode": 0o755, "child": 10 + k})
	t += 20000
lines.append({"op": "footer", "t": t + ms, "records": 24})
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
PY
expect_exit 0 "$FSTAP" import -o "$T/walk.trace" "$T/walk.jsonl"

# paced PACE: replays the trace on a fresh DIR at PACE; $elapsed in ms
paced() {
	rm -rf "$T/r" && mkdir "$T/r"
	expect_exit 0 "$FSTAP" prepare -q "$T/walk.trace" "$T/r"
	expect_exit 0 "$FSTAP" replay --no-progress --pace="$1" --json="$T/p.json" "$T/walk.trace" "$T/r"
	[ "$(json_get "$T/p.json" "j['runs'][0]['divergences']")" = 0 ] ||
		fail "replay --pace=$1 diverged: $(cat "$T/p.json")"
	[ "$(json_get "$T/p.json" "j['runs'][0]['ops']")" = 12 ] ||
		fail "replay --pace=$1 did not issue the 12 mkdirs: $(cat "$T/p.json")"
	elapsed=$(json_get "$T/p.json" "j['runs'][0]['elapsed_ns'] // 1000000")
}
# The run's time is a schedule: a loaded machine can make one run late, so
# up to 3 runs are made and one must be on time; none is early.
# on_time PACE LOW HIGH
on_time() {
	paced "$1"
	[ "$elapsed" -ge "$2" ] || fail "--pace=$1 took $elapsed ms, less than the $2 ms of think time"
	[ "$elapsed" -lt "$3" ]
}
on_time orig 170 300 || on_time orig 170 300 || on_time orig 170 300 ||
	fail "--pace=orig took $elapsed ms: the lookups' 20 ms were kept as think time (expected 177 ms)"
on_time 50% 85 160 || on_time 50% 85 160 || on_time 50% 85 160 ||
	fail "--pace=50% took $elapsed ms (expected 88 ms)"
finish
