#!/bin/sh
# t3070: objects a trace removed for good (last name gone, no handle open)
# are forgotten by export, report and filter two seconds of trace time
# after their death, and what was learned of them stays: a 25 s trace makes
# a directory a second (5 files listed, opened in reverse and removed, then
# the directory): the report names every directory, the busiest ones and the
# access order rows, with its path; filter by the path of a removed
# directory keeps its records; export gives a forget record 1 s after a
# file's death its path, and one 6 s after "<obj:N>".
. "$(dirname "$0")/lib.sh"

python3 - "$T/gone.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.1", "start_monotonic_ns": 0, "metadata": {"test": "t3070"}})
w({"op": "process", "pid": 200, "comm": "churn", "t": 0})
t = [0]
fh = [1]
def op(o, **kw):
    t[0] += 1000
    r = {"op": o, "t": t[0], "dur": 500, "tid": 200, "pid": 200, "uid": 0, "gid": 0,
         "res": kw.pop("res", 0)}
    r.update(kw)
    w(r)
nxt = 2
for d in range(20):
    t[0] = d * 1000000000
    D = nxt; nxt += 1
    op("mkdir", obj=1, name="d%d" % d, mode=0o40755, umask=0o22, child=D)
    files = []
    for i in range(5):
        files.append(nxt)
        op("create", obj=D, name="f%d" % i, mode=0o100644, umask=0o22, flags=0o1101,
           child=nxt, fh=fh[0])
        op("release", obj=nxt, fh=fh[0], flags=0o1101)
        nxt += 1; fh[0] += 1
    op("opendir", obj=D, flags=0, fh=fh[0])
    op("readdir", obj=D, fh=fh[0], offset=0, size=4096, flags=0, res=5,
       entries=[{"name": "f%d" % i, "type": 8, "obj": files[i], "ino": 5000 + i}
                for i in (3, 1, 4, 0, 2)])
    op("releasedir", obj=D, fh=fh[0])
    fh[0] += 1
    for f in reversed(files):
        op("open", obj=f, flags=0, fh=fh[0])
        op("read", obj=f, fh=fh[0], offset=0, size=4096, res=100)
        op("release", obj=f, fh=fh[0], flags=0)
        fh[0] += 1
    for i in range(5):
        op("unlink", obj=D, name="f%d" % i)
    op("rmdir", obj=1, name="d%d" % d)
# the kernel forgets d19's f0 (object 117) 1 s and 6 s after its death
t[0] = 20000000000
op("forget", obj=117, size=1, kernel=True)
t[0] = 24000000000
op("getattr", obj=1)	# a record's paths are taken before the pathmap learns its time
t[0] = 25000000000
op("forget", obj=117, size=1, kernel=True)
PY

expect_exit 0 "$FSTAP" import -o "$T/gone.trace" "$T/gone.jsonl"
expect_exit 0 "$FSTAP" report --json --top=30 "$T/gone.trace" && mv "$T/out" "$T/r.json"
python3 - "$T/r.json" <<'PY' || fail "report: $(cat "$T/r.json" | head -c 3000)"
import json, sys
r = json.load(open(sys.argv[1]))
dirs = ["/d%d" % d for d in range(20)]
assert r["touched"] == {"files": 100, "directories": 21}, r["touched"]
got = [(x["path"], x["ops"]) for x in r["directories"]]
assert got == [("/", 41)] + [(d, 33) for d in dirs], got
rows = r["access_order"]["per_directory"]
assert sorted(x["path"] for x in rows) == sorted(dirs), rows
assert all(x["files"] == 5 and x["listed"] == 5 for x in rows), rows
PY

expect_exit 0 "$FSTAP" filter --path=/d3 -o "$T/d3.trace" "$T/gone.trace"
expect_exit 0 "$FSTAP" export "$T/d3.trace"
# the process record, mkdir, 5 x (create, release), opendir, readdir,
# releasedir, 5 x (open, read, release), 5 unlinks, and the rmdir of /d3
n=$(grep -c '"op":' "$T/out" || true)
[ "$n" = 36 ] || fail "filter --path=/d3 kept $n records, expected 36: $(head -c 2000 "$T/out")"
expect_grep "$T/out" '"op":"rmdir","t":3000035000'

expect_exit 0 "$FSTAP" export "$T/gone.trace"
grep '"op":"forget"' "$T/out" >"$T/forget"
[ "$(count_lines "$T/forget")" = 2 ] || fail "export: $(cat "$T/forget")"
expect_grep "$T/forget" '"t":20000001000,"dur":500,"tid":200,"pid":200,"uid":0,"gid":0,"res":0,"kernel":true,"obj":117,"size":1,"path":"/d19/f0"'
expect_grep "$T/forget" '"t":25000001000,"dur":500,"tid":200,"pid":200,"uid":0,"gid":0,"res":0,"kernel":true,"obj":117,"size":1,"path":"<obj:117>"'
finish
