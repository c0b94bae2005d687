#!/bin/sh
# t2410: mpirun -np N fstap replay --mpi --split=clone on one host: rank K
# replays DIR/clone-K from a common start; rank 0 reports N clones' worth of
# operations with 0 divergences, every clone's tree is the single replay's,
# the reduced per-op counts and histograms are the sums of the ranks' (each
# rank's own result in "ranks"), only rank 0 writes the reports; a rank
# whose replay fails is named by rank 0 and every rank exits 1. With
# --prepare each rank prepares its clone in the job; one that cannot is
# named by rank 0, and no rank replays.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"
. "$(dirname "$0")/lib-mpi.sh"

python3 "$FSTAP_SRCDIR/tests/integration/multi-trace.py" >"$T/m.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/m.trace" "$T/m.jsonl"
mkdir "$T/one"
expect_exit 0 "$FSTAP" prepare -q "$T/m.trace" "$T/one"
expect_exit 0 "$FSTAP" replay --json="$T/one.json" "$T/m.trace" "$T/one"
tree_state "$T/one" >"$T/one.tree"

# -np 4 with --prepare: each rank prepares its own clone in the job
for n in 2 4; do
	D="$T/c$n" prep=
	mkdir "$D"
	if [ $n = 4 ]; then
		prep=--prepare
	else
		expect_exit 0 "$FSTAP" prepare -q --clone=$n "$T/m.trace" "$D"
	fi
	expect_exit 0 mpi_run $n "$FSTAP" replay --mpi --split=clone $prep --json="$T/r$n.json" \
		"$T/m.trace" "$D"
	cp "$T/out" "$T/r$n.txt"
	python3 - "$T/one.json" "$T/r$n.json" $n <<'PY' || fail "-np $n: results"
import json, sys
one = json.load(open(sys.argv[1]))["runs"][0]
r = json.load(open(sys.argv[2]))["runs"][0]
n = int(sys.argv[3])
assert r["ops"] == n * one["ops"] == 60 * n, (r["ops"], one["ops"])
assert r["divergences"] == 0
ranks = r["ranks"]
assert [q["rank"] for q in ranks] == list(range(n))
for q in ranks:
    assert q["ops"] == one["ops"] and q["divergences"] == 0, q
assert sorted(r["by_op"]) == sorted(one["by_op"])
for op, e in r["by_op"].items():
    per = [q["by_op"][op] for q in ranks]
    assert e["count"] == n * one["by_op"][op]["count"] == sum(p["count"] for p in per), op
    assert e["bytes"] == sum(p["bytes"] for p in per), op
    h = e["lat_ns"]
    assert h["n"] == sum(p["lat_ns"]["n"] for p in per), op
    assert h["min"] == min(p["lat_ns"]["min"] for p in per), op
    assert h["max"] == max(p["lat_ns"]["max"] for p in per), op
    mean = sum(p["lat_ns"]["mean"] * p["lat_ns"]["n"] for p in per) / h["n"]
    assert abs(h["mean"] - mean) <= 1e-6 * mean + 1e-6, (op, h["mean"], mean)
s = r["ranks_summary"]
assert s["n"] == n and s["elapsed_ns"]["max"] == r["elapsed_ns"]
assert s["elapsed_ns"]["min"] == min(q["elapsed_ns"] for q in ranks)
assert s["start_skew_ns"] >= 0
PY
	k=0
	while [ $k -lt $n ]; do
		tree_state "$D/clone-$k" >"$T/tree"
		cmp -s "$T/tree" "$T/one.tree" || fail "-np $n: clone $k's tree differs: $(diff "$T/one.tree" "$T/tree")"
		grep -Eq "^  rank $k +60 ops in .*, 0 divergences\$" "$T/r$n.txt" ||
			fail "-np $n: no line for rank $k: $(cat "$T/r$n.txt")"
		k=$((k + 1))
	done
	# One report, by rank 0.
	[ "$(grep -c '^elapsed:' "$T/r$n.txt")" = 1 ] || fail "-np $n: not one report: $(cat "$T/r$n.txt")"
	grep -Eq "^ranks: +$n; elapsed min .* start skew " "$T/r$n.txt" || fail "-np $n: no ranks line"
done

# Clone 1 lacks 'old': its getattr diverges, and the log says in which rank.
mkdir "$T/dv"
expect_exit 0 "$FSTAP" prepare -q --clone=2 "$T/m.trace" "$T/dv"
rm "$T/dv/clone-1/old"
expect_exit 0 mpi_run 2 "$FSTAP" replay --mpi --divergences="$T/dv.jsonl" "$T/m.trace" "$T/dv"
[ "$(count_lines "$T/dv.jsonl")" = 1 ] || fail "not one divergence: $(cat "$T/dv.jsonl")"
expect_grep "$T/dv.jsonl" '{"run":1,"rank":1,"record":'
expect_grep "$T/dv.jsonl" '"op":"getattr","path":"/old","kind":"errno","errno":"ENOENT"'

# Rank 1's clone is missing: rank 0 names it, every rank exits 1.
mkdir "$T/c1"
expect_exit 0 "$FSTAP" prepare -q --clone=1 "$T/m.trace" "$T/c1"
expect_exit 1 mpi_run 2 "$FSTAP" replay --mpi "$T/m.trace" "$T/c1"
expect_grep "$T/err" "cannot open directory '$T/c1/clone-1'"
expect_grep "$T/err" "fstap: error: --mpi: the replay failed on rank 1 of 2"
expect_exit 2 "$FSTAP" replay --mpi --clone=2 "$T/m.trace" "$T/c1"

# --prepare where rank 0's clone is there already: rank 0 cannot make it,
# says so, and names itself; no rank replays.
expect_exit 1 mpi_run 2 "$FSTAP" replay --mpi --prepare "$T/m.trace" "$T/c1"
expect_grep "$T/err" "cannot create '$T/c1/clone-0': File exists"
expect_grep "$T/err" "fstap: error: --mpi: --prepare failed on rank 0 of 2"
! grep -q '^elapsed:' "$T/out" || fail "a replay ran although rank 0's --prepare failed: $(cat "$T/out")"
finish
