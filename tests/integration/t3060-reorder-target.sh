#!/bin/sh
# t3060: the target-readdir variant. A reader of a small spool (3
# directories of 40 files, read in readdir order) is recorded; the trace is
# prepared on a tmpfs, whose readdir order is not the recorded one; `fstap
# reorder --by=target-readdir --target=DIR` must visit each directory's
# files in the order DIR's own readdir returns them (checked against
# os.listdir), keep every record, and refuse a missing --target. Then
# `fstap compare --target --variant=recorded,target-readdir` makes the
# variant in each run after prepare (the row's log shows the reorder) and
# replays both rows without divergence.
. "$(dirname "$0")/lib-record.sh"
need_fuse
[ "$(id -u)" = 0 ] || skip "needs root (tmpfs, compare)"

mkdir -p "$T/spool" "$T/tmp"
mount -t tmpfs -o size=64m tmpfs "$T/tmp"
test_cleanup() {
	umount "$T/tmp" 2>/dev/null || true
}
python3 "$FSTAP_SRCDIR/tests/integration/spool.py" make "$T/spool" 3 120 100
expect_exit 0 "$FSTAP" record -q -o "$T/spool.trace" "$T/spool" -- \
	python3 "$FSTAP_SRCDIR/tests/integration/spool.py" read "$T/spool"

expect_exit 2 "$FSTAP" reorder --by=target-readdir "$T/spool.trace" -o "$T/x.trace" &&
	expect_grep "$T/err" "--by=target-readdir needs --target=DIR"
expect_exit 2 "$FSTAP" reorder --by=name --target="$T/tmp" "$T/spool.trace" -o "$T/x.trace" &&
	expect_grep "$T/err" "--target only goes with --by=target-readdir"

mkdir "$T/tmp/t"
expect_exit 0 "$FSTAP" prepare -q "$T/spool.trace" "$T/tmp/t"
expect_exit 0 "$FSTAP" reorder --by=target-readdir --target="$T/tmp/t" "$T/spool.trace" \
	-o "$T/t.trace"
expect_grep "$T/err" "120 groups in 3 runs reordered by target-readdir"
"$FSTAP" export -o "$T/t.jsonl" "$T/t.trace"
"$FSTAP" export -o "$T/r.jsonl" "$T/spool.trace"
python3 - "$T/t.jsonl" "$T/r.jsonl" "$T/tmp/t" <<'PY' || fail "the variant does not follow the target's readdir order"
import json, os, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r.get("op", "watermark") != "watermark"]
orig = [r for r in map(json.loads, open(sys.argv[2])) if r.get("op", "watermark") != "watermark"]
key = lambda r: json.dumps({k: v for k, v in r.items() if k != "t"}, sort_keys=True)
assert sorted(map(key, recs)) == sorted(map(key, orig)), "records differ"
opens = [r["path"] for r in sorted((r for r in recs if r.get("op") == "open"), key=lambda r: r["t"])]
for d in ("g00", "g01", "g02"):
    got = [p.split("/")[-1] for p in opens if p.startswith("/%s/" % d)]
    want = os.listdir(os.path.join(sys.argv[3], d))
    assert got == want, (d, got[:5], want[:5])
    rec = [r["path"].split("/")[-1] for r in sorted((r for r in orig if r.get("op") == "open"),
                                                      key=lambda r: r["t"]) if r["path"].startswith("/%s/" % d)]
    assert rec != want, "the recorded order is the target's already: the test tells nothing"
PY
rm -rf "$T/tmp/t"

expect_exit 0 "$FSTAP" compare --target=tmpfs="$T/tmp" --variant=recorded,target-readdir --runs=1 \
	--no-progress --out="$T/res" "$T/spool.trace"
expect_grep "$T/out" "divergences: none"
grep -E "^tmpfs +target-readdir +[0-9]" "$T/out" >/dev/null || fail "no target-readdir row: $(cat "$T/out")"
expect_grep "$T/res/logs/tmpfs-target-readdir.log" "reorder --by=target-readdir --target=$T/tmp/fstap-compare."
[ -z "$(ls "$T/tmp")" ] || fail "compare left $(ls "$T/tmp") in the target"

finish
