#!/bin/sh
# t3020: fstap reorder keeps every record (the same multiset apart from
# start times), keeps each file's group intact and contiguous in its thread,
# puts the groups of each run in the requested order, moves nothing outside
# the runs, and re-reporting the result gives rho = 1 for the chosen order.
. "$(dirname "$0")/lib.sh"

# gen.py FILE [nobarrier]: one reader lists /spool (20 files, hashed order)
# and reads every file; a create in /spool after 12 files ends the first run
# (left out with nobarrier); a second process does statfs calls throughout.
cat >"$T/gen.py" <<'PY'
import json, sys, random
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_monotonic_ns": 0, "metadata": {"host": "t3020"}})
w({"op": "process", "pid": 10, "comm": "reader", "t": 0})
w({"op": "process", "pid": 20, "comm": "bystander", "t": 0})
w({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 3, "ino": 2})
w({"op": "state_inode", "obj": 2, "mode": 0o40755, "nlink": 2, "ino": 3})
w({"op": "state_dentry", "obj": 1, "name": "spool", "child": 2})
rnd = random.Random(3)
names = ["%d" % i for i in range(1, 21)]      # "1" < "10" < ... by strcmp
inos = list(range(700, 720)); rnd.shuffle(inos)
obj = {n: 10 + i for i, n in enumerate(names)}
for i, n in enumerate(names):
    w({"op": "state_inode", "obj": obj[n], "mode": 0o100644, "nlink": 1, "size": 5000,
       "ino": inos[i], "extents": [[0, 5000]]})
    w({"op": "state_dentry", "obj": 2, "name": n, "child": obj[n]})
listing = names[:]; rnd.shuffle(listing)
t = [1000]
def op(o, tid, pid, dur=400, **kw):
    t[0] += 1000
    r = {"op": o, "t": t[0], "dur": dur + rnd.randrange(300), "tid": tid, "pid": pid,
         "uid": 0, "gid": 0}
    r.update(kw); w(r)
op("opendir", 10, 10, obj=2, fh=1)
op("readdir", 10, 10, obj=2, fh=1, res=20, size=4096,
   entries=[{"name": n, "type": 8, "obj": obj[n], "ino": inos[names.index(n)]} for n in listing])
op("releasedir", 10, 10, obj=2, fh=1)
fh = 100
for k, n in enumerate(listing):
    if k == 12 and len(sys.argv) < 3:   # a new file in the directory: the end of the first run
        op("create", 10, 10, obj=2, name="new", mode=0o100644, flags=0o101, child=99, fh=99)
        op("release", 0, 0, obj=99, fh=99)
    op("getattr", 10, 10, obj=2)                 # neutral: stays between slots
    op("lookup", 10, 10, obj=2, name=n, child=obj[n])
    op("open", 10, 10, obj=obj[n], fh=fh)
    op("read", 10, 10, dur=3000 if k % 3 else 500, obj=obj[n], fh=fh, offset=0, size=65536, res=5000)
    op("getattr", 10, 10, obj=1)                 # neutral inside the group: moves with it
    op("read", 10, 10, obj=obj[n], fh=fh, offset=5000, size=65536, res=0)
    op("flush", 10, 10, obj=obj[n], fh=fh)
    op("release", 0, 0, obj=obj[n], fh=fh)
    op("statfs", 20, 20, obj=1)                  # another process: never moves
    fh += 1
w({"op": "footer", "t": t[0] + 5000})
PY
python3 "$T/gen.py" "$T/in.jsonl"
python3 "$T/gen.py" "$T/one.jsonl" nobarrier
expect_exit 0 "$FSTAP" import -o "$T/in.trace" "$T/in.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/one.trace" "$T/one.jsonl"
"$FSTAP" export --no-paths "$T/in.trace" >"$T/in.x"

check() {	# check BY OUT.trace
	"$FSTAP" export --no-paths "$2" >"$T/out.x" || return 1
	python3 - "$1" "$T/in.x" "$T/out.x" <<'PY'
import json, sys
by, a, b = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])], [json.loads(l) for l in open(sys.argv[3])]
ops = lambda recs: [r for r in recs if "tid" in r]
A, B = ops(a), ops(b)
# 1. the same records apart from start times; metadata records copied
strip = lambda r: json.dumps({k: v for k, v in r.items() if k != "t"}, sort_keys=True)
assert sorted(map(strip, A)) == sorted(map(strip, B)), "records differ"
meta = lambda recs: [json.dumps(r, sort_keys=True) for r in recs[1:] if "tid" not in r and r["op"] != "footer"]
assert meta(a) == meta(b), "metadata records differ"
assert b[0]["metadata"]["transform"][0]["by"] == by, b[0]["metadata"]
# 2. time order in the file; durations kept (in the multiset above)
ts = [r["t"] for r in B]
assert ts == sorted(ts), "output is not in time order"
# 3. records of other processes do not move
assert [r["t"] for r in A if r["pid"] == 20] == [r["t"] for r in B if r["pid"] == 20]
# 4. per thread 10: groups contiguous and in the requested order within each run
seq = [r for r in B if r["tid"] == 10]
cut = next(i for i, r in enumerate(seq) if r["op"] == "create")
state = {json.loads(l)["obj"]: json.loads(l) for l in open(sys.argv[2]) if '"state_inode"' in l}
names = {json.loads(l)["child"]: json.loads(l)["name"] for l in open(sys.argv[2]) if '"state_dentry"' in l}
listing = [e["name"] for e in next(r for r in A if r["op"] == "readdir")["entries"]]
def files(part):
    fs, last = [], None
    for r in part:
        f = r["child"] if r["op"] == "lookup" else r["obj"] if r["obj"] >= 10 else None
        if f is None: continue
        if f != last:
            assert f not in fs, "group of %d is split" % f
            fs.append(f); last = f
    return fs
key = {"name": lambda f: names[f].encode(), "inode": lambda f: state[f]["ino"],
       "readdir": lambda f: listing.index(names[f])}
orig = [files([r for r in A if r["tid"] == 10][:cut]), files([r for r in A if r["tid"] == 10][cut + 1:])]
for part, o in ((seq[:cut], orig[0]), (seq[cut + 1:], orig[1])):
    fs = files(part)
    assert sorted(fs) == sorted(o), "a run changed its files"
    if by in key:
        assert fs == sorted(fs, key=key[by]), (by, [names[f] for f in fs])
    else:
        assert fs != o, "random order left the run as it was"
# 5. a group keeps its records' order and their offsets from its first record
def groups(recs):
    g = {}
    for r in recs:
        if r["tid"] != 10 and r["op"] != "release": continue
        f = r["child"] if r["op"] == "lookup" else r["obj"]
        if f in names and f >= 10 and r["op"] != "create": g.setdefault(f, []).append(r)
    return g
ga, gb = groups(A), groups(B)
for f in ga:
    x, y = ga[f], gb[f]
    assert [strip(r) for r in x] == [strip(r) for r in y], "group %d changed" % f
    assert [r["t"] - x[0]["t"] for r in x] == [r["t"] - y[0]["t"] for r in y], "group %d stretched" % f
PY
}

for by in name inode readdir random; do
	expect_exit 0 "$FSTAP" reorder --by=$by "$T/in.trace" -o "$T/$by.trace" || continue
	check $by "$T/$by.trace" || fail "reorder --by=$by is wrong"
	expect_exit 0 "$FSTAP" info "$T/$by.trace" && expect_grep "$T/out" "status:    complete"
	expect_grep "$T/out" "records:   $(grep -c '"tid"' "$T/in.jsonl") operations"
done
# One run (no create in between): the report sees the chosen order exactly.
for by in name inode; do
	expect_exit 0 "$FSTAP" reorder --by=$by "$T/one.trace" -o "$T/one-$by.trace"
done
expect_exit 0 "$FSTAP" report --json "$T/one-name.trace"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["access_order"]
assert r["mean_rho"]["name"] == 1.0, r
assert "opens follow name order" in r["verdict"], r' "$T/out" || fail "name order not reported"
expect_exit 0 "$FSTAP" report --json "$T/one-inode.trace"
python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["access_order"]["mean_rho"]["inode"] == 1.0' "$T/out" || fail "inode order not reported"

# The same seed gives the same trace; another seed another one.
expect_exit 0 "$FSTAP" reorder --by=random --seed=7 "$T/in.trace" -o "$T/r7a.trace"
expect_exit 0 "$FSTAP" reorder --by=random --seed=7 "$T/in.trace" -o "$T/r7b.trace"
expect_exit 0 "$FSTAP" reorder --by=random --seed=8 "$T/in.trace" -o "$T/r8.trace"
cmp -s "$T/r7a.trace" "$T/r7b.trace" || fail "the same seed gave different traces"
cmp -s "$T/r7a.trace" "$T/r8.trace" && fail "two seeds gave the same trace"

# Reordering the readdir order of a readdir-order trace changes nothing but metadata.
expect_exit 0 "$FSTAP" reorder --by=readdir "$T/in.trace" -o "$T/same.trace"
"$FSTAP" export --no-paths "$T/same.trace" | tail -n +2 >"$T/same.x"
tail -n +2 "$T/in.x" | cmp -s - "$T/same.x" || fail "--by=readdir of a readdir-order trace moved records"

expect_exit 2 "$FSTAP" reorder "$T/in.trace" -o "$T/x.trace"
expect_exit 2 "$FSTAP" reorder --by=size "$T/in.trace" -o "$T/x.trace"
expect_exit 2 "$FSTAP" reorder --by=name "$T/in.trace"
expect_exit 1 "$FSTAP" reorder --by=name "$T/missing.trace" -o "$T/x.trace"
[ "$(count_lines "$T/err")" = 1 ] || fail "error is not one line: $(cat "$T/err")"
expect_exit 0 "$FSTAP" reorder --help && expect_grep "$T/out" "usage: fstap reorder"
finish
