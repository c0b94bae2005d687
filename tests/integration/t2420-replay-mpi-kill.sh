#!/bin/sh
# t2420: one rank of `mpirun -np 2 fstap replay --mpi` killed midway (SIGKILL
# to rank 1, replaying a 60 s paced trace): mpirun stops rank 0 and exits
# non-zero with a line naming rank 1 and its signal, long before the trace's
# end; no rank is left running.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-mpi.sh"

test_cleanup() { mpi_kill_cleanup; }

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

mpi_kill_rank1 "$T/slow.trace" "$FSTAP" replay --mpi --pace=orig "$T/slow.trace" "$T/d"
finish
