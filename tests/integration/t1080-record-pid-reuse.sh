#!/bin/sh
# t1080: process ids are reused (pid_max is 32768 on a small machine). A new
# process that gets the pid of one that has exited must be recorded as
# itself: its own process record (name, command line), its operations under
# it. The pid is forced with /proc/sys/kernel/ns_last_pid.
. "$(dirname "$0")/lib-record.sh"
need_fuse
[ -w /proc/sys/kernel/ns_last_pid ] || skip "cannot choose the next pid (/proc/sys/kernel/ns_last_pid)"

mkdir "$T/m" "$T/b"
: >"$T/b/x"
for i in $(seq 0 19); do : >"$T/b/y$i"; done
# two programs with names of their own
cp "$(command -v stat)" "$T/first-proc"
cp "$(command -v stat)" "$T/second-proc"
rec_start "$T/m" -q -o "$T/t.trace" "$T/b" "$T/m" || exit 1
$PY - "$T" >"$T/pids" <<'PY' || fail "no process got the pid again: $(cat "$T/pids")"
import os, subprocess, sys, time
t = sys.argv[1]
for attempt in range(20):
    p = subprocess.Popen([t + "/first-proc", "-c", "%n", t + "/m/x"], stdout=subprocess.DEVNULL)
    p.wait()
    # longer than the recorder's flush interval (1 s): it notices the exit
    time.sleep(2.5)
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write("%d" % (p.pid - 1))
    q = subprocess.Popen([t + "/second-proc", t + "/m/y%d" % attempt], stdout=subprocess.DEVNULL)
    q.wait()
    if q.pid == p.pid:
        print(p.pid, attempt)
        sys.exit(0)
    print("attempt %d: %d then %d" % (attempt, p.pid, q.pid))
sys.exit(1)
PY
rec_stop "$T/m"
[ "$REC_RC" = 0 ] || fail "fstap record exited $REC_RC"
read -r pid attempt <<EOF2
$(tail -n 1 "$T/pids")
EOF2
rec_export "$T/t.trace" "$T/t.jsonl"

# two process records for the pid, in order, each with its own name
jq -r "select(.op == \"process\" and .pid == $pid) | .comm" "$T/t.jsonl" >"$T/comms"
printf 'first-proc\nsecond-proc\n' >"$T/want"
cmp -s "$T/comms" "$T/want" ||
	fail "process records for pid $pid: $(tr '\n' ' ' <"$T/comms"), expected first-proc second-proc ($(tr '\n' ';' <"$T/pids")); $(grep '"process"' "$T/t.jsonl" | tr '\n' ' ')"
# the second process's lookup of its file comes with its pid
t2=$(jq "select(.op == \"process\" and .pid == $pid and .comm == \"second-proc\") | .t" "$T/t.jsonl")
ty=$(jq "select(.op == \"lookup\" and .name == \"y$attempt\" and .res == 0) | .t" "$T/t.jsonl")
py=$(jq "select(.op == \"lookup\" and .name == \"y$attempt\" and .res == 0) | .pid" "$T/t.jsonl")
[ "$py" = "$pid" ] || fail "the lookup of y$attempt is recorded for pid '$py', not $pid"
# ...and its process record falls between the first process's lookup of x
# and its own lookup: a reader crediting each op to the last PROCESS record
# of its pid before it credits each to the right program (order, not time).
tx=$(jq "select(.op == \"lookup\" and .name == \"x\" and .res == 0 and .pid == $pid) | .t" "$T/t.jsonl" | tail -n 1)
[ -n "$t2" ] && [ -n "$ty" ] && [ -n "$tx" ] && [ "$tx" -lt "$t2" ] && [ "$t2" -le "$ty" ] ||
	fail "the second process's record (t=$t2) is not between the first's lookup of x (t=$tx) and its own lookup of y$attempt (t=$ty)"
finish
