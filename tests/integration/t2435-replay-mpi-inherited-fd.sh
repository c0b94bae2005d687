#!/bin/sh
# t2435: mpirun -np 2 fstap replay --mpi --split=process of a trace whose
# processes use descriptors another process opened (a shell's redirections
# inherited by its children: `exec 3>log`, then children write to fd 3 and
# read from fd 4). The rank of a child has not replayed the shell's open:
# it opens the object itself for the handle's first use there, and every
# rank closes its copy at the handle's release. Same operation totals, the
# same final tree and no more divergences than the single replay; the
# reopened handles are counted.
. "$(dirname "$0")/lib-apps.sh"
. "$(dirname "$0")/lib-mpi.sh"
. "$(dirname "$0")/lib-replay.sh"
need_fuse

apps_cleanup_extra() { mpi_kill_cleanup; }

mkdir "$T/src"
printf '0123456789abcdefghij\n' >"$T/src/in.txt"
app_record fds "$T/src" '
	exec 3>out.log 4<in.txt
	for p in 1 2 3 4 5 6; do
		sh -c "echo child $p >&3; head -c 3 <&4 >/dev/null"
	done
	exec 5>>out.log
	sh -c "echo appended >&5"
	exec 3>&- 4<&- 5>&-
	cat out.log >/dev/null
' || exit 1

mkdir "$T/one"
expect_exit 0 "$FSTAP" prepare -q "$T/fds.trace" "$T/one"
expect_exit 0 "$FSTAP" replay --json="$T/one.json" "$T/fds.trace" "$T/one"
tree_state "$T/one" >"$T/one.tree"

mkdir "$T/two"
expect_exit 0 "$FSTAP" prepare -q "$T/fds.trace" "$T/two"
expect_exit 0 timeout -k 5 120 mpirun $MPIRUN_OPTS -np 2 "$FSTAP" replay --mpi \
	--split=process --json="$T/two.json" "$T/fds.trace" "$T/two"
tree_state "$T/two" >"$T/tree"
cmp -s "$T/tree" "$T/one.tree" || fail "the tree differs: $(diff "$T/one.tree" "$T/tree")"
[ "$(stat -c %s "$T/two/out.log")" = "$(stat -c %s "$T/src/out.log")" ] ||
	fail "out.log has $(stat -c %s "$T/two/out.log") bytes, the application's $(stat -c %s "$T/src/out.log")"
python3 - "$T/one.json" "$T/two.json" <<'PY' || fail "results: $(cat "$T/two.json" | head -c 1500)"
import json, sys
one = json.load(open(sys.argv[1]))["runs"][0]
r = json.load(open(sys.argv[2]))["runs"][0]
assert one["divergences"] == 0, one["divergence"]
assert r["divergences"] == 0, r["divergence"]
assert r["ops"] == one["ops"], (r["ops"], one["ops"])
assert r["handles_left_open"] == 0, r["handles_left_open"]
assert sorted(r["by_op"]) == sorted(one["by_op"])
for op, e in r["by_op"].items():
    assert e["count"] == one["by_op"][op]["count"], op
# the children on rank 1 wrote and read through the shell's handles
assert r["handles_reopened"] >= 2, r.get("handles_reopened")
assert one["handles_reopened"] == 0
PY
finish
