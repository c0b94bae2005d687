#!/bin/sh
# t2178: the plan (--plan-ahead). By default a trace that fits in the plan
# is dispatched whole before the run's clock starts (JSON: plan.ops equal
# to ops, whole_trace true; the text says so); a plan smaller than the
# trace takes its first part and the rest is dispatched as the workers read
# on (plan.ops below ops, whole_trace false), on two CPUs and on one (where
# the dispatcher runs half the plan, then dispatches again); --plan-ahead=0
# dispatches as the run goes (plan.ops 0). Every way gives the same
# operations, bytes and final tree with no divergence. A worker whose
# thread cannot be made fails the run, which ends. A wrong size is a
# usage error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"
: "${FSTAP_BUILDDIR:?}"
command -v taskset >/dev/null || skip "taskset is not installed"

# 200 000 records of 4 threads (getattr, open, read 4 KiB, release) over 300 files
"$FSTAP_BUILDDIR/tests/tools/gen-stream-trace" "$T/s.trace" 200000 300 ||
	fail "cannot write the trace"

# plan_run NAME CPUS [OPTIONS]: prepares $T/NAME, replays into it on CPUS
# ("all": any), the JSON in $T/NAME.json, the text in $T/NAME.out, the
# final tree in $T/NAME.tree
plan_run() {
	_name=$1 _cpus=$2
	shift 2
	rm -rf "${T:?}/$_name" && mkdir "$T/$_name"
	expect_exit 0 "$FSTAP" prepare -q "$T/s.trace" "$T/$_name" || return
	if [ "$_cpus" = all ]; then
		expect_exit 0 "$FSTAP" replay --json="$T/$_name.json" "$@" "$T/s.trace" "$T/$_name"
	else
		expect_exit 0 taskset -c "$_cpus" "$FSTAP" replay --json="$T/$_name.json" "$@" \
			"$T/s.trace" "$T/$_name"
	fi
	json_get "$T/$_name.json" 'json.dumps(j["runs"][0]["plan"], sort_keys=True)' >"$T/$_name.plan"
	tree_state "$T/$_name" >"$T/$_name.tree"
}

plan_run whole all
plan_run small all --plan-ahead=64k
plan_run small1 0 --plan-ahead=64k
plan_run whole1 0
plan_run none all --plan-ahead=0

ops=$(json_get "$T/whole.json" 'j["runs"][0]["ops"]')
[ "$ops" -ge 150000 ] || fail "the replay issued $ops operations"
for n in whole small small1 whole1 none; do
	for k in ops bytes_read divergences handles_left_open; do
		[ "$(json_get "$T/$n.json" "j['runs'][0]['$k']")" = \
			"$(json_get "$T/whole.json" "j['runs'][0]['$k']")" ] ||
			fail "$k: $n $(json_get "$T/$n.json" "j['runs'][0]['$k']"), whole plan" \
				"$(json_get "$T/whole.json" "j['runs'][0]['$k']")"
	done
	[ "$(json_get "$T/$n.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
		fail "$n: $(json_get "$T/$n.json" 'j["runs"][0]["divergence"]')"
	cmp -s "$T/whole.tree" "$T/$n.tree" || fail "the final trees of whole and $n differ"
done
for n in whole whole1; do
	expect_grep "$T/$n.plan" "\"ops\": $ops, "
	expect_grep "$T/$n.plan" '"whole_trace": true'
done
for n in small small1; do
	planned=$(json_get "$T/$n.json" 'j["runs"][0]["plan"]["ops"]')
	[ "$planned" -gt 0 ] && [ "$planned" -lt $((ops / 4)) ] ||
		fail "a 64 KiB plan took $planned operations of $ops before the start"
	expect_grep "$T/$n.plan" '"whole_trace": false'
	peak=$(json_get "$T/$n.json" 'j["runs"][0]["plan"]["peak_bytes"]')
	[ "$peak" -le $((64 * 1024 + 4 * 128 * 1024)) ] ||
		fail "a 64 KiB plan held $peak bytes"
done
expect_grep "$T/none.plan" '"ops": 0,'

# the text says what was planned
rm -rf "${T:?}/t" && mkdir "$T/t"
expect_exit 0 "$FSTAP" prepare -q "$T/s.trace" "$T/t"
"$FSTAP" replay "$T/s.trace" "$T/t" >"$T/t.out" 2>&1 || fail "the replay failed: $(cat "$T/t.out")"
grep -qE "^plan: +$ops ops \([0-9.]+ MiB\) dispatched in [0-9.]+ s before the start, the whole trace$" \
	"$T/t.out" || fail "no plan line: $(head -c 600 "$T/t.out")"

# A worker's thread that cannot be made (a pids cgroup of 4 tasks: timeout,
# fstap and two of its 4 workers' threads) ends the run with one error line
# and exit 1 once the started workers have stopped, not a hang; so with
# the trace planned whole (--order=resource: the workers run their streams).
if [ -d /sys/fs/cgroup/pids ]; then
	CG=/sys/fs/cgroup/pids/fstap-t2178-$$
else
	CG=/sys/fs/cgroup/fstap-t2178-$$
	grep -qw pids /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
		echo +pids >/sys/fs/cgroup/cgroup.subtree_control || fail "no pids controller"
fi
test_cleanup() { rmdir "$CG" 2>/dev/null || true; }
mkdir "$CG" && echo 4 >"$CG/pids.max" || fail "cannot make the pids cgroup $CG"
for opt in --plan-ahead=64k --order=resource; do
	rm -rf "${T:?}/p" && mkdir "$T/p"
	expect_exit 0 "$FSTAP" prepare -q "$T/s.trace" "$T/p"
	expect_exit 1 sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec timeout 60 "$@"' sh "$CG" \
		"$FSTAP" replay "$opt" "$T/s.trace" "$T/p"
	expect_grep "$T/err" "fstap: error: cannot start a replay worker"
	[ "$(grep -c . "$T/err")" = 1 ] || fail "$opt: not one error line: $(cat "$T/err")"
done

expect_exit 2 "$FSTAP" replay --plan-ahead=lots "$T/s.trace" "$T/t"
expect_grep "$T/err" "--plan-ahead must be a size (e.g. 64M, or 0), not 'lots'"
finish
