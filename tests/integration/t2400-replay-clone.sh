#!/bin/sh
# t2400: fstap prepare --clone=N makes N copies of the initial state in
# DIR/clone-K; fstap replay --clone=N replays N copies of the workload at
# once: N times the single replay's operations, per op, with 0 divergences;
# every clone's final tree is the single replay's; a line per clone in the
# text and the JSON; a missing clone directory is an error naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

python3 "$FSTAP_SRCDIR/tests/integration/multi-trace.py" >"$T/m.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/m.trace" "$T/m.jsonl"

# The single replay: its per-op counts and final tree are the reference.
mkdir "$T/one"
expect_exit 0 "$FSTAP" prepare -q "$T/m.trace" "$T/one"
expect_exit 0 "$FSTAP" replay --json="$T/one.json" "$T/m.trace" "$T/one"
[ "$(json_get "$T/one.json" 'j["runs"][0]["ops"]')" = 60 ] || fail "single replay: not 60 ops"
[ "$(json_get "$T/one.json" 'j["runs"][0]["divergences"]')" = 0 ] || fail "single replay diverged"
tree_state "$T/one" >"$T/one.tree"
grep -q '^p2/g0 f 644 size=4096' "$T/one.tree" || fail "single replay: no p2/g0: $(cat "$T/one.tree")"

for n in 2 4; do
	D="$T/c$n"
	mkdir "$D"
	expect_exit 0 "$FSTAP" prepare --clone=$n "$T/m.trace" "$D"
	cp "$T/out" "$T/prep$n.out"
	[ "$(count_lines "$T/prep$n.out")" = $n ] || fail "prepare --clone=$n: $(cat "$T/prep$n.out")"
	expect_grep "$T/prep$n.out" "prepared '$D/clone-$((n - 1))': 1 objects"
	[ "$(ls "$D" | tr '\n' ' ')" = "$(seq -f 'clone-%g' 0 $((n - 1)) | tr '\n' ' ')" ] ||
		fail "prepare --clone=$n made: $(ls "$D")"
	expect_exit 0 "$FSTAP" replay --clone=$n --json="$T/c$n.json" "$T/m.trace" "$D"
	cp "$T/out" "$T/c$n.txt"
	python3 - "$T/one.json" "$T/c$n.json" $n <<'PY' || fail "--clone=$n: counts"
import json, sys
one = json.load(open(sys.argv[1]))["runs"][0]
r = json.load(open(sys.argv[2]))["runs"][0]
n = int(sys.argv[3])
assert r["ops"] == n * one["ops"], (r["ops"], one["ops"])
assert r["divergences"] == 0, r["divergences"]
assert r["op_records"] == n * one["op_records"]
for op, e in one["by_op"].items():
    assert r["by_op"][op]["count"] == n * e["count"], op
    assert r["by_op"][op]["lat_ns"]["n"] == n * e["lat_ns"]["n"], op
assert sorted(r["by_op"]) == sorted(one["by_op"])
assert [c["clone"] for c in r["clones"]] == list(range(n))
for c in r["clones"]:
    assert c["ops"] == one["ops"] and c["divergences"] == 0, c
    assert {op: e["count"] for op, e in c["by_op"].items()} == \
        {op: e["count"] for op, e in one["by_op"].items()}
s = r["clones_summary"]
assert s["n"] == n
assert s["elapsed_ns"]["max"] == r["elapsed_ns"]
assert s["elapsed_ns"]["min"] <= s["elapsed_ns"]["mean"] <= s["elapsed_ns"]["max"]
PY
	k=0
	while [ $k -lt $n ]; do
		tree_state "$D/clone-$k" >"$T/tree"
		cmp -s "$T/tree" "$T/one.tree" || fail "clone $k's tree differs: $(diff "$T/one.tree" "$T/tree")"
		grep -Eq "^  clone $k +60 ops in .*, 0 divergences\$" "$T/c$n.txt" ||
			fail "no line for clone $k: $(cat "$T/c$n.txt")"
		k=$((k + 1))
	done
	grep -Eq "^ops: +$((60 * n)) " "$T/c$n.txt" || fail "--clone=$n: ops: $(cat "$T/c$n.txt")"
	grep -Eq "^clones: +$n; elapsed min " "$T/c$n.txt" || fail "--clone=$n: no clones line"
	# each clone planned its whole trace before the common start
	grep -Eq "^plan: +$((60 * n)) ops .* before the start, the whole trace\$" "$T/c$n.txt" ||
		fail "--clone=$n: plan: $(grep plan "$T/c$n.txt")"
done

# Clone 1 lacks 'old': its getattr diverges, and the log says in which clone.
mkdir "$T/dv"
expect_exit 0 "$FSTAP" prepare -q --clone=2 "$T/m.trace" "$T/dv"
rm "$T/dv/clone-1/old"
expect_exit 0 "$FSTAP" replay --clone=2 --divergences="$T/dv.jsonl" "$T/m.trace" "$T/dv"
[ "$(count_lines "$T/dv.jsonl")" = 1 ] || fail "not one divergence: $(cat "$T/dv.jsonl")"
expect_grep "$T/dv.jsonl" '{"run":1,"clone":1,"record":'
expect_grep "$T/dv.jsonl" '"op":"getattr","path":"/old","kind":"errno","errno":"ENOENT"'

# A clone directory that is not there.
mkdir "$T/c1"
expect_exit 0 "$FSTAP" prepare -q --clone=1 "$T/m.trace" "$T/c1"
expect_exit 1 "$FSTAP" replay --clone=2 "$T/m.trace" "$T/c1"
expect_grep "$T/err" "cannot open directory '$T/c1/clone-1'"
expect_exit 2 "$FSTAP" replay --clone=0 "$T/m.trace" "$T/c1"
expect_exit 2 "$FSTAP" prepare --clone=x "$T/m.trace" "$T/c1"
expect_exit 2 "$FSTAP" replay --split=clone "$T/m.trace" "$T/c1"
finish
