#!/bin/sh
# t2177: fstap replay --prepare prepares the empty DIR from the trace, then
# replays: the same tree and the same results as fstap prepare followed by
# fstap replay, and nothing but the report on stdout (--json=- is JSON);
# with --clone=N it prepares the N clones. A DIR that is not empty, or is
# missing, is refused with one line naming it, and nothing in it changes;
# --prepare with --runs is a usage error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

python3 "$FSTAP_SRCDIR/tests/integration/multi-trace.py" >"$T/m.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/m.trace" "$T/m.jsonl"

mkdir "$T/two-steps" "$T/one-step"
expect_exit 0 "$FSTAP" prepare -q "$T/m.trace" "$T/two-steps"
expect_exit 0 "$FSTAP" replay --json="$T/two.json" "$T/m.trace" "$T/two-steps"
expect_exit 0 "$FSTAP" replay --prepare --json=- "$T/m.trace" "$T/one-step"
cp "$T/out" "$T/one.json"
json_get "$T/one.json" 'j["runs"][0]["ops"]' >/dev/null ||
	fail "stdout of --prepare --json=- is not the JSON report: $(head -c 300 "$T/one.json")"
tree_state "$T/two-steps" >"$T/two.tree"
tree_state "$T/one-step" >"$T/one.tree"
cmp -s "$T/two.tree" "$T/one.tree" ||
	fail "the trees differ: $(diff "$T/two.tree" "$T/one.tree")"
for k in ops divergences bytes_read bytes_written; do
	[ "$(json_get "$T/one.json" "j['runs'][0]['$k']")" = \
		"$(json_get "$T/two.json" "j['runs'][0]['$k']")" ] ||
		fail "$k: $(json_get "$T/one.json" "j['runs'][0]['$k']") with --prepare," \
			"$(json_get "$T/two.json" "j['runs'][0]['$k']") without"
done
[ "$(json_get "$T/one.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "--prepare: $(json_get "$T/one.json" 'j["runs"][0]["divergence"]')"

# --clone=2: both clones prepared, then replayed
mkdir "$T/clones"
expect_exit 0 "$FSTAP" replay --prepare --clone=2 --json="$T/c.json" "$T/m.trace" "$T/clones"
for k in 0 1; do
	tree_state "$T/clones/clone-$k" >"$T/tree"
	cmp -s "$T/tree" "$T/two.tree" || fail "clone $k's tree differs: $(diff "$T/two.tree" "$T/tree")"
done
[ "$(json_get "$T/c.json" 'j["runs"][0]["ops"]')" = \
	"$(( 2 * $(json_get "$T/two.json" 'j["runs"][0]["ops"]') ))" ] || fail "--clone=2: ops"

# Not empty: refused, nothing changed (the replay's tree is still there).
expect_exit 1 "$FSTAP" replay --prepare "$T/m.trace" "$T/one-step"
expect_grep "$T/err" "fstap: error: target directory '$T/one-step' is not empty"
[ "$(count_lines "$T/err")" = 1 ] || fail "not one error line: $(cat "$T/err")"
tree_state "$T/one-step" >"$T/tree"
cmp -s "$T/tree" "$T/one.tree" || fail "the refused --prepare changed DIR: $(diff "$T/one.tree" "$T/tree")"
expect_exit 1 "$FSTAP" replay --prepare "$T/m.trace" "$T/missing"
expect_grep "$T/err" "fstap: error: target directory '$T/missing' does not exist"
[ ! -e "$T/missing" ] || fail "--prepare made the missing DIR"

mkdir "$T/runs"
expect_exit 2 "$FSTAP" replay --prepare --runs=2 "$T/m.trace" "$T/runs"
expect_grep "$T/err" "--prepare prepares DIR once: not with --runs"
[ -z "$(ls "$T/runs")" ] || fail "a usage error prepared DIR"

finish
