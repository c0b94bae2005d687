#!/bin/sh
# t3000: fstap report on hand-written traces with known answers: a reader in
# readdir order and a reader in name order of the same directory get
# opposite correlations; Spearman values match an independent computation;
# the size histograms, the sequential/random split, failed lookups and the
# kernel's requests have exact expected counts; text and JSON agree.
. "$(dirname "$0")/lib.sh"

python3 - "$T/order.jsonl" <<'PY'
import json, sys, random
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_monotonic_ns": 0, "metadata": {"test": "t3000"}})
w({"op": "process", "pid": 100, "comm": "rd-reader", "t": 0})
w({"op": "process", "pid": 200, "comm": "nm-reader", "t": 0})
w({"op": "process", "pid": 300, "comm": "io", "t": 0})
w({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 4, "ino": 2})
t = [1000]
def op(o, **kw):
    t[0] += 1000
    r = {"op": o, "t": t[0], "dur": 500, "tid": kw.pop("tid"), "pid": kw.pop("pid"),
         "uid": 0, "gid": 0}
    r.update(kw)
    w(r)
# Directory "hashed" (obj 2): 12 files listed in a hashed order, inode
# numbers in a third order. Directory "rev" (obj 3): listed in reverse name order.
rnd = random.Random(7)
names = ["art%02d" % i for i in range(12)]
listing = names[:]; rnd.shuffle(listing)
inos = list(range(5000, 5012)); rnd.shuffle(inos)
objs = {}
nxt = 10
for d, dname in ((2, "hashed"), (3, "rev")):
    w({"op": "state_inode", "obj": d, "mode": 0o40755, "nlink": 2, "ino": 100 + d})
    w({"op": "state_dentry", "obj": 1, "name": dname, "child": d})
    for i, n in enumerate(names):
        objs[(d, n)] = nxt
        w({"op": "state_inode", "obj": nxt, "mode": 0o100644, "nlink": 1, "size": 100,
           "ino": inos[i] if d == 2 else 6000 + i, "extents": [[0, 100]]})
        w({"op": "state_dentry", "obj": d, "name": n, "child": nxt})
        nxt += 1
orders = {2: listing, 3: sorted(names, reverse=True)}
fh = [100]
def read_dir(pid, d, key):
    op("opendir", tid=pid, pid=pid, obj=d, fh=fh[0])
    ents = [{"name": n, "type": 8, "obj": objs[(d, n)], "ino": 1} for n in orders[d]]
    op("readdir", tid=pid, pid=pid, obj=d, fh=fh[0], res=len(ents), size=4096, entries=ents)
    op("releasedir", tid=pid, pid=pid, obj=d, fh=fh[0])
    fh[0] += 1
    seq = orders[d] if key == "readdir" else sorted(orders[d])
    for n in seq:
        o = objs[(d, n)]
        op("lookup", tid=pid, pid=pid, obj=d, name=n, child=o)
        op("open", tid=pid, pid=pid, obj=o, fh=fh[0])
        op("read", tid=pid, pid=pid, obj=o, fh=fh[0], size=4096, res=100)
        op("release", tid=0, pid=0, obj=o, fh=fh[0])
        fh[0] += 1
for d in (2, 3):
    read_dir(100, d, "readdir")
    read_dir(200, d, "name")
# I/O with exact expected numbers (process 300, file "big" obj 50).
w({"op": "state_inode", "obj": 50, "mode": 0o100644, "nlink": 1, "size": 1 << 20, "ino": 9})
w({"op": "state_dentry", "obj": 1, "name": "big", "child": 50})
io = dict(tid=300, pid=300)
op("lookup", obj=1, name="big", child=50, **io)
for i in range(9):
    op("lookup", obj=1, name="missing%d" % i, res=-2, **io)
op("open", obj=50, fh=500, flags=2, **io)
op("read", obj=50, fh=500, offset=0, size=4096, res=4096, **io)        # seq, 4K
op("read", obj=50, fh=500, offset=4096, size=4096, res=4096, **io)     # seq, 4K
op("read", obj=50, fh=500, offset=8192, size=8192, res=8192, **io)     # seq, 8K
op("read", obj=50, fh=500, offset=100000, size=4096, res=4096, **io)   # random, 4K
op("read", obj=50, fh=500, offset=104096, size=1000, res=1000, **io)   # seq, 1K
op("read", obj=50, fh=500, offset=0, size=4096, res=-5, **io)          # failed: 4K, neither
op("write", obj=50, fh=500, offset=0, size=512, res=512, **io)         # random (end was 105096), 512
op("write", obj=50, fh=500, offset=512, size=512, res=512, **io)       # seq, 512
op("write", obj=50, fh=500, offset=0, size=65536, res=65536, kernel=True, **io)  # kernel
op("getxattr", obj=50, name="security.capability", size=0, res=-61, kernel=True, **io)
op("release", obj=50, fh=500, tid=0, pid=0)
w({"op": "footer", "t": t[0] + 1000})
json.dump({"listing": listing, "names": names, "inos": inos},
          open(sys.argv[1] + ".key", "w"))
PY

expect_exit 0 "$FSTAP" import -o "$T/order.trace" "$T/order.jsonl"
expect_exit 0 "$FSTAP" report --json --top=100 "$T/order.trace" && mv "$T/out" "$T/r.json"
python3 - "$T/r.json" "$T/order.jsonl.key" <<'PY' || fail "report --json is wrong"
import json, sys
r = json.load(open(sys.argv[1])); key = json.load(open(sys.argv[2]))

def ranks(v):
    s = sorted(range(len(v)), key=lambda i: v[i]); rk = [0.0] * len(v); i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and v[s[j + 1]] == v[s[i]]: j += 1
        for k in range(i, j + 1): rk[s[k]] = (i + j) / 2 + 1
        i = j + 1
    return rk
def spearman(x, y):
    rx, ry = ranks(x), ranks(y); n = len(x); m = (n + 1) / 2
    sxy = sum((a - m) * (b - m) for a, b in zip(rx, ry))
    sxx = sum((a - m) ** 2 for a in rx); syy = sum((b - m) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5

listing, names, inos = key["listing"], key["names"], key["inos"]
ino_of = dict(zip(names, inos))
rows = {(d["path"], d["comm"]): d for d in r["access_order"]["per_directory"]}
assert len(rows) == 4, rows.keys()
def near(a, b): return abs(a - b) < 1e-3
# the readdir-order reader of /hashed
row = rows[("/hashed", "rd-reader")]["rho"]
assert row["readdir"] == 1.0, row
exp_name = spearman(list(range(12)), [sorted(names).index(n) for n in listing])
exp_ino = spearman(list(range(12)), [ino_of[n] for n in listing])
assert near(row["name"], exp_name) and near(row["inode"], exp_ino), (row, exp_name, exp_ino)
# the name-order reader of /hashed: the same correlation, the roles swapped
row = rows[("/hashed", "nm-reader")]["rho"]
assert row["name"] == 1.0 and near(row["readdir"], exp_name), row
assert near(row["inode"], spearman(list(range(12)), [ino_of[n] for n in sorted(names)])), row
# /rev is listed in reverse name order: exactly opposite correlations
assert rows[("/rev", "rd-reader")]["rho"]["readdir"] == 1.0
assert rows[("/rev", "rd-reader")]["rho"]["name"] == -1.0
assert rows[("/rev", "nm-reader")]["rho"]["readdir"] == -1.0
assert rows[("/rev", "nm-reader")]["rho"]["name"] == 1.0
assert rows[("/rev", "nm-reader")]["rho"]["inode"] == 1.0   # inodes 6000.. in name order
ao = r["access_order"]
assert ao["directories"] == 4 and ao["files"] == 48, ao
# I/O: exact counts (application only)
rd, wr = r["io"]["read"], r["io"]["write"]
# (48 one-read files of the order readers: offset 0 of a new handle, sequential)
assert (rd["ops"], rd["sequential"], rd["random"]) == (54, 52, 1), rd
assert rd["sizes"] == {"1024": 1, "4096": 52, "8192": 1}, rd["sizes"]
assert rd["bytes"] == 48 * 100 + 3 * 4096 + 8192 + 1000, rd
assert (wr["ops"], wr["sequential"], wr["random"], wr["bytes"]) == (2, 1, 1, 1024), wr
assert wr["sizes"] == {"512": 2}, wr["sizes"]
assert r["bytes"] == {"read": 26280, "written": 66560, "kernel_read": 0,
                      "kernel_written": 65536}, r["bytes"]
assert r["kernel"] == {"total": 2, "by_op": {"write": 1, "getxattr": 1}}, r["kernel"]
assert r["lookups"]["total"] == 58 and r["lookups"]["failed"] == 9, r["lookups"]
assert abs(r["lookups"]["failed_fraction"] - 9 / 58) < 1e-4
ops = r["operations"]
assert ops["kernel"] == 2 and ops["by_op"]["write"]["count"] == 2, ops
assert ops["by_op"]["lookup"]["errors"] == 9 and ops["by_op"]["read"]["errors"] == 1, ops
procs = {p["comm"]: p for p in r["processes"]}
assert procs["rd-reader"]["ops"] == 2 * (3 + 12 * 3), procs
assert procs["io"]["bytes_read"] == 3 * 4096 + 8192 + 1000, procs
assert r["touched"] == {"files": 25, "directories": 3}, r["touched"]
assert r["directories"][0]["path"] in ("/hashed", "/rev"), r["directories"]
assert r["threads"] == 3, r["threads"]
PY

# The text report says the same, with the verdict line.
expect_exit 0 "$FSTAP" report "$T/order.trace"
expect_grep "$T/out" "read: 54 requests"
expect_grep "$T/out" "sequential 52 (98.1%), random 1 (1.9%)"
expect_grep "$T/out" "<=4K=96.3%(52)"
expect_grep "$T/out" "lookups: 58, failed 9 (15.5%)"
expect_grep "$T/out" "kernel requests (not counted above): 2"
expect_grep "$T/out" "verdict: opens"

# Only the readdir-order reader: the verdict names readdir order.
grep -v '"pid":200' "$T/order.jsonl" | grep -v '"comm":"nm-reader"' >"$T/rd.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/rd.trace" "$T/rd.jsonl"
expect_exit 0 "$FSTAP" report "$T/rd.trace"
expect_grep "$T/out" "verdict: opens follow readdir order (rho 1.00 over 2 directories)"
grep -v '"pid":100' "$T/order.jsonl" >"$T/nm.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/nm.trace" "$T/nm.jsonl"
expect_exit 0 "$FSTAP" report "$T/nm.trace"
expect_grep "$T/out" "verdict: opens follow name order (rho 1.00 over 2 directories)"

# The small example trace; usage errors; a missing trace.
expect_exit 0 "$FSTAP" import -o "$T/small.trace" "$FSTAP_SRCDIR/examples/traces/small.jsonl"
expect_exit 0 "$FSTAP" report "$T/small.trace"
expect_grep "$T/out" "read: 2 requests"
expect_exit 0 "$FSTAP" report --help && expect_grep "$T/out" "usage: fstap report"
expect_exit 2 "$FSTAP" report
expect_exit 2 "$FSTAP" report --top=0 "$T/small.trace"
expect_exit 1 "$FSTAP" report "$T/nonexistent.trace"
[ "$(count_lines "$T/err")" = 1 ] || fail "error is not one line: $(cat "$T/err")"
expect_grep "$T/err" "fstap: error: "
finish
