#!/bin/sh
# t2110: results that differ from the recorded ones are counted per op and
# errno, never fatal: an unlink recorded as a success of a name that is not
# there, a mkdir recorded as failed that succeeds, a read recorded longer
# than the file, a readdir whose entries differ, a handle that was never
# opened, an object the trace never named. The replay still exits 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

D="$T/dir"
mkdir -p "$D/d"
head -c 100 /dev/urandom >"$D/small"
touch "$D/d/x" "$D/d/y"

cat >"$T/t.jsonl" <<'J'
{"fstap":"trace","version":"1.0"}
{"op":"state_dentry","obj":1,"name":"small","child":2}
{"op":"state_dentry","obj":1,"name":"d","child":3}
{"op":"unlink","t":100,"dur":10,"tid":7,"pid":7,"obj":1,"name":"not-there"}
{"op":"mkdir","t":200,"dur":10,"tid":7,"pid":7,"res":-17,"obj":1,"name":"fresh","mode":493,"child":9}
{"op":"open","t":300,"dur":10,"tid":7,"pid":7,"obj":2,"fh":1}
{"op":"read","t":400,"dur":10,"tid":7,"pid":7,"res":8192,"obj":2,"fh":1,"size":8192}
{"op":"release","t":500,"dur":10,"tid":7,"pid":7,"obj":2,"fh":1}
{"op":"opendir","t":600,"dur":10,"tid":7,"pid":7,"obj":3,"fh":2}
{"op":"readdir","t":700,"dur":10,"tid":7,"pid":7,"res":2,"obj":3,"fh":2,"size":4096,"entries":[{"name":"x","type":8},{"name":"z","type":8}]}
{"op":"readdir","t":800,"dur":10,"tid":7,"pid":7,"obj":3,"fh":2,"offset":2,"size":4096}
{"op":"releasedir","t":900,"dur":10,"tid":7,"pid":7,"obj":3,"fh":2}
{"op":"write","t":1000,"dur":10,"tid":7,"pid":7,"res":10,"obj":2,"fh":77,"size":10}
{"op":"getattr","t":1100,"dur":10,"tid":7,"pid":7,"obj":4242}
{"op":"lookup","t":1200,"dur":10,"tid":7,"pid":7,"res":-2,"obj":3,"name":"x"}
{"op":"statfs","t":1300,"dur":10,"tid":7,"pid":7,"obj":1}
J
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"
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
    ("write", "unknown", ""),
    ("getattr", "unknown", ""),
    ("lookup", "succeeded", "ENOENT"),
])
assert got == want, "got %s" % got
assert r["divergences"] == 7, r["divergences"]
assert r["by_op"]["unlink"]["divergences"] == 1
assert r["by_op"]["unlink"]["errors"] == 1
assert r["by_op"]["read"]["bytes"] == 100
PY
expect_grep "$T/out" "divergences:  7"
expect_grep "$T/out" "succeeded (recorded EEXIST)"
grep -q "^  unlink  *ENOENT  *1$" "$T/out" || fail "no 'unlink ENOENT 1' line in the text report"
[ -d "$D/fresh" ] || fail "the mkdir was not replayed"

finish
