#!/bin/sh
# t2110: results that differ from the recorded ones are counted per op and
# errno, never fatal: an unlink recorded as a success of a name that is not
# there, a mkdir recorded as failed that succeeds, a read recorded longer
# than the file, a readdir whose entries differ (one record names an entry
# the directory does not have, the end of the listing leaves one out), a
# handle that was never opened, an object the trace never named, a rename
# and a getxattr of names that are not there (divergent-trace.jsonl). The
# replay still exits 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

D="$T/dir"
mkdir -p "$D/d"
head -c 100 /dev/urandom >"$D/small"
touch "$D/d/x" "$D/d/y"

expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$FSTAP_SRCDIR/tests/integration/divergent-trace.jsonl"
expect_exit 0 "$FSTAP" replay --json="$T/r.json" "$T/t.trace" "$D"
python3 - "$T/r.json" <<'PY' || fail "divergences are not the expected ones"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
got = sorted((d["op"], d["kind"], d.get("errno", "")) for d in r["divergence"] for _ in range(d["count"]))
want = sorted([
    ("unlink", "errno", "ENOENT"),
    ("mkdir", "succeeded", "EEXIST"),
    ("read", "short", ""),
    ("readdir", "entries", ""),
    ("readdir", "entries", ""),
    ("write", "unknown", ""),
    ("getattr", "unknown", ""),
    ("lookup", "succeeded", "ENOENT"),
    ("rename", "errno", "ENOENT"),
    ("getxattr", "errno", "ENODATA"),
    ("unlink", "errno", "ENOENT"),
])
assert got == want, "got %s" % got
assert r["divergences"] == 11, r["divergences"]
assert r["by_op"]["unlink"]["divergences"] == 2
assert r["by_op"]["unlink"]["errors"] == 2
assert r["by_op"]["read"]["bytes"] == 100
PY
expect_grep "$T/out" "divergences:  11"
expect_grep "$T/out" "succeeded (recorded EEXIST)"
grep -q "^  unlink  *ENOENT  *2$" "$T/out" || fail "no 'unlink ENOENT 2' line in the text report"
[ -d "$D/fresh" ] || fail "the mkdir was not replayed"

finish
