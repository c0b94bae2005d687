#!/bin/sh
# t2420: one rank of `mpirun -np 2 fstap replay --mpi` killed midway (SIGKILL
# to rank 1, replaying a 60 s paced trace): mpirun stops rank 0 and exits
# non-zero with a line naming rank 1 and its signal, long before the trace's
# end; no rank is left running.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-mpi.sh"

MPIRUN_PID=""
R0=""
R1=""
test_cleanup() {
	for p in $R0 $R1 $MPIRUN_PID; do kill -9 "$p" 2>/dev/null || true; done
	[ -z "$MPIRUN_PID" ] || wait "$MPIRUN_PID" 2>/dev/null || true
}

# One thread, 120 statfs 0.5 s apart: 60 s at --pace=orig.
python3 - >"$T/slow.jsonl" <<'PY'
import json
print(json.dumps({"fstap": "trace", "version": "1.0", "start_realtime_ns": 1764460800000000000,
                  "start_monotonic_ns": 0, "metadata": {"note": "t2420"}}))
print(json.dumps({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 2, "ino": 2}))
for i in range(120):
    print(json.dumps({"op": "statfs", "t": 1000 + i * 500000000, "dur": 100, "tid": 100,
                      "pid": 100, "obj": 1}))
print(json.dumps({"op": "footer", "t": 1000 + 120 * 500000000}))
PY
expect_exit 0 "$FSTAP" import -o "$T/slow.trace" "$T/slow.jsonl"
mkdir "$T/d"
expect_exit 0 "$FSTAP" prepare -q --clone=2 "$T/slow.trace" "$T/d"

# shellcheck disable=SC2086
mpirun $MPIRUN_OPTS -np 2 "$FSTAP" replay --mpi --pace=orig "$T/slow.trace" "$T/d" \
	>"$T/mpi.out" 2>"$T/mpi.err" &
MPIRUN_PID=$!

# rank_pid K: the pid of rank K (a child of mpirun with OMPI_COMM_WORLD_RANK=K).
rank_pid() {
	for p in $(pgrep -P "$MPIRUN_PID"); do
		if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
ranks_up() { R0=$(rank_pid 0) && R1=$(rank_pid 1) && [ -n "$R0" ] && [ -n "$R1" ]; }
wait_until "both ranks" ranks_up || exit 1
# Both are replaying once each has its trace open (their replay has begun).
replaying() { ls -l "/proc/$R0/fd" "/proc/$R1/fd" 2>/dev/null | grep -c 'slow.trace' | grep -qx 2; }
wait_until "both ranks replaying" replaying || exit 1
sleep 1
kill -9 "$R1"

# mpirun must end on its own well before the trace's 60 s: 40 s is a wide
# margin for its SIGTERM to rank 0 on a loaded machine or under sanitizers.
i=0
while kill -0 "$MPIRUN_PID" 2>/dev/null && [ $i -lt 400 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -0 "$MPIRUN_PID" 2>/dev/null && fail "mpirun still runs 40 s after rank 1 was killed"
wait_rc "$MPIRUN_PID"
MPIRUN_PID=""
[ "$WAIT_RC" != 0 ] || fail "mpirun exited 0 after a rank was killed"
expect_grep "$T/mpi.err" "process rank 1"
expect_grep "$T/mpi.err" "exited on signal 9 (Killed)"
# mpirun has told rank 0 to stop; it is gone within seconds.
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
wait_until "end of rank 0 (pid $R0)" gone "$R0"
wait_until "end of rank 1 (pid $R1)" gone "$R1"
[ ! -s "$T/mpi.out" ] || fail "a report after a rank died: $(cat "$T/mpi.out")"
finish
