#!/bin/sh
# t2195: a recording measures the recorder's round trips and stores them in
# the trace's metadata (recorder.calibration: non-zero, below 1 s, in
# `fstap info --json` and its text); `fstap replay --pace=native` of the
# trace runs with 0 divergences and says its pace; a trace without the keys
# (an older recorder's, made here by removing them through export and
# import) still replays with --pace=native, with one line saying that the
# recorded gaps are kept. A thread that starts another and waits for its
# end (a fork and join, in a trace made here) does not keep its recorded
# wait: paced natively (by resource order, the default with native), the
# joined thread's gaps shrink and so does the run, the joining operation
# comes after the joined thread's last one and is not counted late; paced
# as recorded, the run keeps the joined thread's pace. The round trips seen in a trace (a
# lookup and the mkdir of its name) stand for a calibration that says
# otherwise.
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-replay.sh"

need_fuse
mkdir -p "$T/b/d" "$T/r"
for i in 1 2 3 4; do echo "old $i" >"$T/b/d/f$i"; done

# a few files written, stat()ed and read, with think time between the calls
(cd "$T/b" && "$FSTAP" record -q -o "$T/t.trace" "$T/b" -- sh -c '
	for i in 1 2 3 4 5 6; do echo "new $i" >n$i; sleep 0.01; stat n$i >/dev/null; done
	cat d/f1 d/f2 n1 >/dev/null; sleep 0.01; rm n6; ls d >/dev/null') \
	>"$T/rec.out" 2>"$T/rec.err" || fail "record failed: $(cat "$T/rec.err")"

expect_exit 0 "$FSTAP" info --json "$T/t.trace" && cp "$T/out" "$T/info.json"
cal="j['metadata']['recorder']['calibration']"
[ "$(json_get "$T/info.json" "$cal['requests']")" -gt 0 ] ||
	fail "recorder.calibration.requests is not positive: $(json_get "$T/info.json" "$cal")"
for k in meta_round_trip_ns meta_round_trip_p50_ns meta_round_trip_p90_ns \
	data_round_trip_ns data_round_trip_p50_ns data_round_trip_p90_ns; do
	v=$(json_get "$T/info.json" "$cal['$k']")
	[ "$v" -gt 0 ] && [ "$v" -lt 1000000000 ] ||
		fail "recorder.calibration.$k is $v, not within (0, 1 s)"
done
[ "$(json_get "$T/info.json" "$cal['meta_round_trip_p50_ns'] <= $cal['meta_round_trip_p90_ns']")" = True ] ||
	fail "the median round trip is above its 90th percentile: $(json_get "$T/info.json" "$cal")"
expect_exit 0 "$FSTAP" info "$T/t.trace" && cp "$T/out" "$T/info.txt"
expect_grep "$T/info.txt" '"meta_round_trip_ns"'

# replay_native TRACE NAME USED: replays TRACE with --pace=native; USED is
# True if the run must have used the trace's round trips, else False
replay_native() {
	rm -rf "$T/r" && mkdir "$T/r"
	expect_exit 0 "$FSTAP" prepare -q "$1" "$T/r"
	expect_exit 0 "$FSTAP" replay --no-progress --pace=native --json="$T/$2.json" "$1" "$T/r"
	cp "$T/err" "$T/$2.err"
	cp "$T/out" "$T/$2.txt"
	[ "$(json_get "$T/$2.json" "j['runs'][0]['divergences']")" = 0 ] ||
		fail "replay --pace=native of $1 diverged: $(cat "$T/$2.json")"
	[ "$(json_get "$T/$2.json" "j['pace_native']")" = True ] ||
		fail "replay's JSON does not say pace_native"
	[ "$(json_get "$T/$2.json" "j['runs'][0]['pace_native']")" = "$3" ] ||
		fail "replay of $1: the run's pace_native is not $3"
	[ "$(json_get "$T/$2.json" "j['runs'][0]['ops']")" -gt 10 ] ||
		fail "replay --pace=native of $1 issued almost nothing: $(cat "$T/$2.json")"
}
replay_native "$T/t.trace" native True
[ ! -s "$T/native.err" ] || fail "replay --pace=native said: $(cat "$T/native.err")"
grep -Eq 'pace native \(think time [0-9]+\.[0-9]{3} s over all threads\)$' "$T/native.txt" ||
	fail "the report does not give native's think time: $(cat "$T/native.txt")"
# the think time the pace asked for: native keeps less than orig, 10%
# a tenth of orig's
for p in orig 10%; do
	rm -rf "$T/r" && mkdir "$T/r"
	expect_exit 0 "$FSTAP" prepare -q "$T/t.trace" "$T/r"
	expect_exit 0 "$FSTAP" replay --pace=$p --json="$T/think-$p.json" "$T/t.trace" "$T/r"
done
think() { json_get "$1" "j['runs'][0]['think_ns']"; }
[ "$(think "$T/think-orig.json")" -gt 0 ] || fail "orig asked for no think time: $(cat "$T/think-orig.json")"
[ "$(think "$T/native.json")" -lt "$(think "$T/think-orig.json")" ] ||
	fail "native asked for $(think "$T/native.json") ns of think, orig $(think "$T/think-orig.json")"
[ "$(json_get "$T/think-10%.json" "abs(j['runs'][0]['think_ns'] - $(think "$T/think-orig.json") // 10) <= 100")" = True ] ||
	fail "10% asked for $(think "$T/think-10%.json") ns of think, orig $(think "$T/think-orig.json")"

# a trace without the calibration: the recorded gaps, and one line that says so
expect_exit 0 "$FSTAP" export -o "$T/t.jsonl" "$T/t.trace"
python3 - "$T/t.jsonl" "$T/old.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
h = json.loads(lines[0])
del h["metadata"]["recorder"]["calibration"]
open(sys.argv[2], "w").write("\n".join([json.dumps(h)] + lines[1:]))
PY
expect_exit 0 "$FSTAP" import -o "$T/old.trace" "$T/old.jsonl"
replay_native "$T/old.trace" old False
[ "$(wc -l <"$T/old.err")" = 1 ] || fail "expected one line about the missing calibration: $(cat "$T/old.err")"
expect_grep "$T/old.txt" 'pace orig'
expect_grep "$T/old.err" 'no round-trip calibration (recorder.calibration): --pace=native keeps the recorded gaps'
# said once, not once per run or per clone
rm -rf "$T/r" && mkdir "$T/r"
expect_exit 0 "$FSTAP" prepare -q "$T/old.trace" "$T/r"
expect_exit 0 "$FSTAP" replay --no-progress --pace=native --runs=3 "$T/old.trace" "$T/r"
[ "$(grep -c 'no round-trip calibration' "$T/err")" = 1 ] ||
	fail "--runs=3: the note is not said once: $(cat "$T/err")"
rm -rf "$T/r" && mkdir "$T/r"
expect_exit 0 "$FSTAP" prepare -q --clone=2 "$T/old.trace" "$T/r"
expect_exit 0 "$FSTAP" replay --no-progress --pace=native --clone=2 "$T/old.trace" "$T/r"
[ "$(grep -c 'no round-trip calibration' "$T/err")" = 1 ] ||
	fail "--clone=2: the note is not said once: $(cat "$T/err")"

# a fork and join: thread 7 makes d, thread 8 (started then) makes 40
# directories in it 9 ms apart, thread 7 makes e after the last one (a
# 360 ms wait); the round trips are 4 ms, so natively thread 8 takes about
# 200 ms, and the run with it
python3 - "$T/fj.jsonl" <<'PY'
import json, sys
ms = 1000000
cal = {"requests": 200, "meta_round_trip_ns": 4 * ms, "data_round_trip_ns": 4 * ms}
lines = [{"fstap": "trace", "version": "1.1",
	  "metadata": {"recorder": {"cache": "calls", "calibration": cal}}},
	 {"op": "process", "pid": 7, "ppid": 1, "comm": "forker", "t": 0}]
def mkdir(t, tid, obj, name, child):
	lines.append({"op": "mkdir", "t": t, "dur": 20000, "tid": tid, "pid": 7, "obj": obj,
		      "name": name, "mode": 0o755, "child": child})
mkdir(1 * ms, 7, 1, "d", 2)
t = 2 * ms
for k in range(40):
	mkdir(t, 8, 2, "x%d" % k, 10 + k)
	t += 9 * ms
mkdir(t + ms, 7, 1, "e", 99)
lines.append({"op": "footer", "t": t + 2 * ms, "records": 42})
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
PY
expect_exit 0 "$FSTAP" import -o "$T/fj.trace" "$T/fj.jsonl"
# The run's time is a schedule: a loaded machine can make one run late, so
# up to 3 runs are made and one must be on time (with the joining
# thread's wait kept, every run takes at least 360 ms).
fj_native_on_time() {
	replay_native "$T/fj.trace" fj True
	elapsed=$(json_get "$T/fj.json" "j['runs'][0]['elapsed_ns'] // 1000000")
	# the joining operation is due at the joined thread's end, not late by
	# all of it (a loaded machine may make any op late by some ms)
	lag=$(json_get "$T/fj.json" "j['runs'][0]['lag_ns']['max'] // 1000000")
	[ "$elapsed" -lt 300 ] && [ "$lag" -lt 100 ]
}
if fj_native_on_time || fj_native_on_time || fj_native_on_time; then
	:
elif [ "$elapsed" -ge 300 ]; then
	fail "--pace=native of a fork and join kept the joining thread's wait: $elapsed ms (expected about 200)"
else
	fail "--pace=native of a fork and join: a schedule lag of $lag ms"
fi
# --pace=native orders the threads by resource, not as the recorder ran
# them; the joining thread still waits for the joined one's end
[ "$(json_get "$T/fj.json" "j['order']")" = resource ] ||
	fail "--pace=native did not replay with --order=resource: $(json_get "$T/fj.json" "j['order']")"
python3 -c 'import os, sys
e, x = os.stat(sys.argv[1] + "/e").st_ctime_ns, os.stat(sys.argv[1] + "/d/x39").st_ctime_ns
sys.exit(0 if e >= x else "the joining thread made e %.1f ms before the joined one made d/x39" % ((x - e) / 1e6))' "$T/r" ||
	fail "--pace=native did not wait for the joined thread"
rm -rf "$T/r" && mkdir "$T/r"
expect_exit 0 "$FSTAP" prepare -q "$T/fj.trace" "$T/r"
expect_exit 0 "$FSTAP" replay --no-progress --pace=orig --json="$T/fj-orig.json" "$T/fj.trace" "$T/r"
elapsed=$(json_get "$T/fj-orig.json" "j['runs'][0]['elapsed_ns'] // 1000000")
[ "$elapsed" -ge 330 ] ||
	fail "--pace=orig of a fork and join: $elapsed ms, not the joined thread's 360 ms"

# round trips seen in the trace: 60 mkdirs 5 ms apart, each after the
# lookup of its name 20 us before (one system call: that gap is a round
# trip), with a calibration of 4 ms; natively each gap is about 4.9 ms
# (the calibration's 4 ms only until 16 round trips are seen), not 0
python3 - "$T/seen.jsonl" <<'PY'
import json, sys
ms = 1000000
cal = {"requests": 200, "meta_round_trip_ns": 4 * ms, "data_round_trip_ns": 4 * ms}
lines = [{"fstap": "trace", "version": "1.1",
	  "metadata": {"recorder": {"cache": "calls", "calibration": cal}}},
	 {"op": "process", "pid": 7, "ppid": 1, "comm": "maker", "t": 0}]
t = ms
for k in range(60):
	lines.append({"op": "lookup", "t": t, "dur": 10000, "tid": 7, "pid": 7, "res": -2,
		      "obj": 1, "name": "x%d" % k})
	lines.append({"op": "mkdir", "t": t + 30000, "dur": 20000, "tid": 7, "pid": 7, "obj": 1,
		      "name": "x%d" % k, "mode": 0o755, "child": 10 + k})
	t += 5 * ms
lines.append({"op": "footer", "t": t, "records": 120})
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
PY
expect_exit 0 "$FSTAP" import -o "$T/seen.trace" "$T/seen.jsonl"
replay_native "$T/seen.trace" seen True
elapsed=$(json_get "$T/seen.json" "j['runs'][0]['elapsed_ns'] // 1000000")
[ "$elapsed" -ge 150 ] ||
	fail "--pace=native took the calibration's round trips, not the trace's: $elapsed ms (expected about 215)"

# usage: native is a pace of replay's
expect_exit 0 "$FSTAP" replay --help
expect_grep "$T/out" 'native (the'
expect_exit 2 "$FSTAP" replay --pace=nativ "$T/t.trace" "$T/r"
expect_grep "$T/err" 'afap, orig, native or N%'
finish
