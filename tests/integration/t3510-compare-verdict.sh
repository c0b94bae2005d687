#!/bin/sh
# t3510-compare-verdict.sh: compare's verdicts for real, as root, on small
# ext4 loop images: an A/A comparison (one candidate under two names) on a
# recorded write workload gives best and inconclusive (3 runs cannot
# decide), never slower, with the runs interleaved in the order of --seed;
# results.json carries the verdicts, the ci95 pairs and the conclusion; a
# trace whose replay diverges makes its row diverged and unranked, with the
# count and the divergence log, unless --max-divergence allows it; a
# candidate mounted -o sync is slower with --runs=auto; an incomplete trace
# (cut with head -c) is refused unless --allow-incomplete.
. "$FSTAP_SRCDIR/tests/integration/lib.sh"

need_compare_tools mkfs.ext4 losetup mount findmnt python3 dd

IMG=$T/img
mkdir -p "$IMG" "$T/b" "$T/target"

# --- a write workload, recorded --------------------------------------------------
"$FSTAP" record -q -o "$T/w.trace" "$T/b" -- sh -c "cd '$T/b' &&
	for i in 1 2 3 4 5 6; do dd if=/dev/zero of=f\$i bs=64k count=4 status=none; done" ||
	fail "the recording failed"

# --- A/A: the same candidate under two names ---------------------------------------
expect_exit 0 "$FSTAP" compare --candidate=a:ext4 --candidate=b:ext4 --runs=3 --seed=42 \
	--image-dir="$IMG" --no-progress --out="$T/aa" "$T/w.trace"
cp "$T/out" "$T/aa.table"
expect_grep "$T/aa.table" "runs of all rows interleaved in a shuffled order (--seed=42 repeats it)"
expect_grep "$T/err" "6 runs in a shuffled order, --seed=42"
expect_grep "$T/aa.table" "median CI"
# one best, the other inconclusive: 3 runs against 3 cannot reach p < 0.05
python3 - "$T/aa.table" "$T/aa" <<'PY' || fail "A/A verdicts: $(cat "$T/aa.table")"
import json, sys
table, out = open(sys.argv[1]).read(), sys.argv[2]
res = json.load(open(out + "/results.json"))
v = {r["candidate"]: r["verdict"] for r in res["rows"]}
assert sorted(v.values()) == ["best", "inconclusive"], v
best = [c for c in v if v[c] == "best"][0]
other = [c for c in v if v[c] != "best"][0]
assert "slower" not in table, table
for r in res["rows"]:
    s = r["summary"]
    el = sorted(run["durable_ns"] / 1e9 for run in r["runs"])
    assert len(el) == 3, el
    # 3 runs: the median's interval is min-max, covering 75%
    assert s["elapsed_s"]["ci95"] == [el[0], el[2]] or \
        max(abs(a - b) for a, b in zip(s["elapsed_s"]["ci95"], [el[0], el[2]])) < 1e-9, s
    assert abs(s["elapsed_s"]["ci95_coverage"] - 0.75) < 1e-12, s
    assert len(s["ops_per_s_ci95"]) == 2, s
    vb = s["vs_best"]
    assert len(vb["ci95"]) == 2 and vb["ci95"][0] <= vb["hodges_lehmann"] <= vb["ci95"][1], vb
    if r["verdict"] == "inconclusive":
        assert s["runs_needed"] == 4 and vb["p_holm"] >= 0.1 - 1e-12, s
        for run in r["runs"]:
            assert run["bytes_written"] == 6 * 4 * 65536, run
assert res["seed"] == 42 and res["options"]["seed"] == 42, res["seed"]
assert res["conclusion"].startswith(best + " is fastest; " + other + " is inconclusive"), \
    res["conclusion"]
assert res["conclusion"] in table, res["conclusion"]
line = [l for l in table.split("\n") if l.startswith(other + " ")][0]
assert "inconclusive (p=" in line and "4 runs could tell" in line, line
PY
compare_released "after the A/A compare" "$IMG"

# --- --runs=auto: two rows start with the 4 runs that can decide ---------------------
expect_exit 0 "$FSTAP" compare --candidate=a:ext4 --candidate=b:ext4 --runs=auto --max-runs=5 \
	--time-budget=3600 --seed=7 --image-dir="$IMG" --no-progress --out="$T/auto" "$T/w.trace"
expect_grep "$T/out" "--runs=auto: runs added until every verdict was decided, at most 5 per row \
(--max-runs), within 3600 s (--time-budget)"
expect_grep "$T/err" "8 runs in a shuffled order, --seed=7"
python3 - "$T/auto/results.json" <<'PY' || fail "--runs=auto: $(cat "$T/out")"
import json, sys
res = json.load(open(sys.argv[1]))
assert res["options"]["runs"] == "auto" and res["options"]["max_runs"] == 5, res["options"]
assert res["options"]["time_budget_s"] == 3600 and res["time_budget_stop"] is False, res
v = sorted(r["verdict"] for r in res["rows"])
n = [len(r["runs"]) for r in res["rows"]]
# 4 against 4 can decide (2/70 < 0.05): a fifth round only while inconclusive
assert n == [4, 4] and v[0] == "best" and v[1] in ("same", "slower") or n == [5, 5], (n, v)
assert res["runs_per_row"] == n[0], res["runs_per_row"]
PY
expect_exit 2 "$FSTAP" compare --max-runs=5 "$T/w.trace"
expect_grep "$T/err" "--max-runs only goes with --runs=auto"
expect_exit 2 "$FSTAP" compare --time-budget=60 "$T/w.trace"
expect_grep "$T/err" "--time-budget only goes with --runs=auto"
expect_exit 2 "$FSTAP" compare --runs=auto --time-budget=0 "$T/w.trace"
expect_grep "$T/err" "--time-budget must be a number of seconds above 0, not '0'"
compare_released "after --runs=auto" "$IMG"

# --- a slower candidate: -o sync makes every write synchronous --------------------------
# An fsync-free write workload of 96 writes of 16 KiB, one candidate mounted -o sync:
# 96 synchronous writes against one syncfs at the end, several times slower (3.3x
# with 24 writes: one slow run of the default under load 40 overlapped, and 4 runs
# against 4 decide only without overlap; 96 make the gap many times that noise).
"$FSTAP" record -q -o "$T/w96.trace" "$T/b" -- sh -c "cd '$T/b' &&
	for i in 1 2 3 4 5 6; do dd if=/dev/zero of=s\$i bs=16k count=16 status=none; done" ||
	fail "the recording failed"
expect_exit 0 "$FSTAP" compare --candidate=default:ext4 --candidate=sync:ext4::sync \
	--runs=auto --max-runs=8 --seed=3 --image-dir="$IMG" --no-progress --out="$T/sync" \
	"$T/w96.trace"
python3 - "$T/sync/results.json" <<'PY' || fail "-o sync is not slower: $(cat "$T/out")"
import json, sys
res = json.load(open(sys.argv[1]))
v = {r["candidate"]: r["verdict"] for r in res["rows"]}
assert v == {"default": "best", "sync": "slower"}, v
# auto starts with the 4 runs per row that can decide, and a decided verdict stops it
assert res["runs_per_row"] == 4 and [len(r["runs"]) for r in res["rows"]] == [4, 4], res
s = [r for r in res["rows"] if r["candidate"] == "sync"][0]["summary"]
assert s["vs_best"]["p_holm"] < 0.05 and s["vs_best"]["ci95"][0] > 1, s
assert res["conclusion"].startswith("default is fastest; sync is "), res["conclusion"]
PY
grep -E "^sync +recorded .* slower [0-9.]+-[0-9.]+x\*?$" "$T/out" >/dev/null ||
	fail "no slower row: $(cat "$T/out")"
compare_released "after the sync compare" "$IMG"

# --- an incomplete trace is refused, and compared with --allow-incomplete --------------
"$FSTAP" record -q -o "$T/long.trace" "$T/b" -- sh -c "cd '$T/b' &&
	for i in 1 2 3 4 5 6 7 8; do dd if=/dev/zero of=g\$i bs=64k count=2 status=none;
	sleep 0.3; done" || fail "the recording failed"
# cut with head -c: the largest cut (in steps of 100 bytes) that keeps an operation
size=$(stat -c %s "$T/long.trace")
n=$((size - 100))
while [ $n -gt 0 ]; do
	head -c $n "$T/long.trace" > "$T/cut.trace"
	"$FSTAP" info "$T/cut.trace" > "$T/info" 2>/dev/null || true
	grep -E "^records: +[1-9][0-9]* operations" "$T/info" >/dev/null && break
	n=$((n - 100))
done
[ $n -gt 0 ] || fail "no cut of long.trace keeps an operation"
expect_grep "$T/info" "is incomplete"
expect_exit 1 "$FSTAP" compare --candidate=a:ext4 --runs=1 --image-dir="$IMG" --no-progress \
	"$T/cut.trace"
[ "$(wc -l < "$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
grep -E "^fstap: error: '$T/cut.trace' is incomplete \(no footer: torn or cut\): only the \
first [0-9.]+ s of [0-9.]+ s, [1-9][0-9]* of [0-9]+ records, are known to be complete; give \
--allow-incomplete to compare that part$" "$T/err" >/dev/null || fail "message: $(cat "$T/err")"
[ -z "$(ls "$IMG")" ] || fail "an image was made for a refused trace: $(ls "$IMG")"
expect_exit 0 "$FSTAP" compare --candidate=a:ext4 --runs=1 --image-dir="$IMG" --no-progress \
	--allow-incomplete --out="$T/cut" "$T/cut.trace"
expect_grep "$T/err" "fstap: warning: incomplete trace: compared the first"
python3 - "$T/cut/results.json" "$T/info" <<'PY' || fail "cut results.json"
import json, re, sys
res = json.load(open(sys.argv[1]))
kept = int(re.search(r"^records: +(\d+) operations", open(sys.argv[2]).read(), re.M).group(1))
run = res["rows"][0]["runs"][0]
assert res["rows"][0]["status"] == "ok" and run["incomplete_trace"] is True, run
assert run["op_records"] == kept, (run["op_records"], kept)
PY
compare_released "after the incomplete traces" "$IMG"

# --- a replay that diverges is not ranked ----------------------------------------------
# one unlink of a name that is not there: the replay's result differs
"$FSTAP" import -o "$T/div.trace" "$FSTAP_SRCDIR/tests/integration/data/unlink-missing.jsonl"
expect_exit 0 "$FSTAP" compare --target=d="$T/target" --runs=1 --no-progress \
	--out="$T/div" "$T/div.trace"
expect_grep "$T/out" "d is not ranked: run 1 diverged in 1 of 1 operations, above \
--max-divergence=0.1%; see $T/div/logs/d-recorded-run1.divergences.jsonl"
expect_grep "$T/out" "no candidate could be ranked; d diverged (1 of 1 operations in run 1) and is not ranked"
grep -E "^d +recorded +[0-9.]+ .* diverged: not ranked$" "$T/out" >/dev/null ||
	fail "no diverged row: $(cat "$T/out")"
python3 - "$T/div/results.json" <<'PY' || fail "diverged results.json"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert r["verdict"] == "diverged" and "vs_best" not in r["summary"], r
d = r["summary"]["worst_divergence"]
assert d["run"] == 1 and d["divergences"] == 1 and d["ops"] == 1, d
assert d["log"].endswith("/logs/d-recorded-run1.divergences.jsonl"), d
PY
# allowed: the same row is ranked
expect_exit 0 "$FSTAP" compare --target=d="$T/target" --runs=1 --no-progress \
	--max-divergence=100 "$T/div.trace"
expect_grep "$T/out" "d is fastest"
expect_exit 2 "$FSTAP" compare --max-divergence=x "$T/div.trace"
expect_grep "$T/err" "--max-divergence must be a percentage from 0 to 100, not 'x'"
expect_exit 2 "$FSTAP" compare --seed=-1 "$T/div.trace"
expect_grep "$T/err" "--seed must be a number, not '-1'"
compare_released "at the end" "$IMG"

finish
