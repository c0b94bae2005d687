#!/bin/sh
# t3010: fstap filter keeps exactly the selected operation records (counted
# per op and pid), always the initial state and process records, adds the
# records that name the ancestors of what it keeps, writes a complete trace
# whose footer matches, and records the transform in the metadata.
. "$(dirname "$0")/lib.sh"

python3 - "$T/in.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_monotonic_ns": 0, "metadata": {"host": "t3010"}})
for pid, comm in ((10, "writer"), (20, "reader"), (30, "other")):
    w({"op": "process", "pid": pid, "comm": comm, "t": 0})
w({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 3, "ino": 2})
w({"op": "state_inode", "obj": 2, "mode": 0o40755, "nlink": 2, "ino": 3})
w({"op": "state_dentry", "obj": 1, "name": "data", "child": 2})
t = [0]
def op(o, pid, **kw):
    t[0] += 1000000          # one per ms
    r = {"op": o, "t": t[0], "dur": 1000, "tid": pid, "pid": pid, "uid": 0, "gid": 0}
    r.update(kw); w(r)
# pid 10 makes /data/new (obj 3) and writes 5 files in it (objs 10..14).
op("mkdir", 10, obj=2, name="new", mode=0o40755, child=3)
for i in range(5):
    o = 10 + i
    op("create", 10, obj=3, name="f%d" % i, mode=0o100644, flags=0o101, child=o, fh=o)
    op("write", 10, obj=o, fh=o, offset=0, size=4096, res=4096)
    op("release", 0, obj=o, fh=o)
# pid 20 reads them back (lookup, open, read, release), pid 30 stats /data.
for i in range(5):
    o = 10 + i
    op("lookup", 20, obj=3, name="f%d" % i, child=o)
    op("open", 20, obj=o, fh=100 + i)
    op("read", 20, obj=o, fh=100 + i, offset=0, size=8192, res=4096)
    op("release", 0, obj=o, fh=100 + i)
    op("getattr", 30, obj=2)
op("rename", 10, obj=3, name="f0", newparent=2, newname="moved")
op("getattr", 20, obj=10)
w({"op": "footer", "t": t[0] + 1000000})
PY
expect_exit 0 "$FSTAP" import -o "$T/in.trace" "$T/in.jsonl"

# counts OUT.trace: prints "op pid count" lines, sorted
counts() {
	"$FSTAP" export --no-paths "$1" | python3 -c '
import json, sys, collections
c = collections.Counter()
for line in sys.stdin:
    r = json.loads(line)
    if "op" in r and "tid" in r: c[(r["op"], r["pid"])] += 1
for (o, p), n in sorted(c.items()): print(o, p, n)'
}
meta_count() {
	"$FSTAP" info --json "$1" | python3 -c '
import json, sys; i = json.load(sys.stdin); b = i["by_op"]
print(b.get("process", 0), b.get("state_inode", 0), b.get("state_dentry", 0), i["status"])'
}

# --pid: exactly pid 20's records (all of them name known objects: nothing added).
expect_exit 0 "$FSTAP" filter --pid=20 "$T/in.trace" -o "$T/p20.trace"
counts "$T/p20.trace" >"$T/c"
printf 'getattr 20 1\nlookup 20 5\nmkdir 10 1\nopen 20 5\nread 20 5\nrename 10 1\n' >"$T/want"
# pid 10's mkdir of /data/new is kept: the lookups in it need its name; and
# the rename, which gave obj 10 the name the last getattr uses
diff "$T/want" "$T/c" >/dev/null || fail "--pid=20 kept: $(cat "$T/c")"
[ "$(meta_count "$T/p20.trace")" = "3 2 1 complete" ] || fail "metadata records: $(meta_count "$T/p20.trace")"
expect_exit 0 "$FSTAP" info "$T/p20.trace"
expect_grep "$T/out" "status:    complete"
expect_grep "$T/out" '"tool": "fstap filter"'

# --comm and --op together, repeated options.
expect_exit 0 "$FSTAP" filter --comm=reader --comm=other --op=read,getattr "$T/in.trace" -o "$T/c.trace"
counts "$T/c.trace" >"$T/c"
printf 'getattr 20 1\ngetattr 30 5\nmkdir 10 1\nread 20 5\ncreate 10 5\nrename 10 1\n' | sort >"$T/want"
# reads of files created in the trace need their create (names) and the mkdir
diff "$T/want" "$T/c" >/dev/null || fail "--comm --op kept: $(cat "$T/c")"
# the transform step keeps the command line whole, lists unsplit
expect_exit 0 "$FSTAP" info "$T/c.trace"
expect_grep "$T/out" '"args": "filter --comm=reader --comm=other --op=read,getattr '

# --path: everything on /data/new and below, by any process; the rename's
# source is inside: kept; the last getattr is on /data/moved: not kept.
expect_exit 0 "$FSTAP" filter --path=/data/new/ "$T/in.trace" -o "$T/path.trace"
counts "$T/path.trace" >"$T/c"
printf 'create 10 5\nlookup 20 5\nmkdir 10 1\nopen 20 5\nread 20 5\nrelease 0 10\nrename 10 1\nwrite 10 5\n' >"$T/want"
diff "$T/want" "$T/c" >/dev/null || fail "--path kept: $(cat "$T/c")"

# --from/--to: a window of 10 ms from 2 ms on: records starting in [2ms, 12ms).
expect_exit 0 "$FSTAP" filter --from=2ms --to=0.012s --op=create,write,release "$T/in.trace" -o "$T/win.trace"
counts "$T/win.trace" >"$T/c"
printf 'create 10 4\nmkdir 10 1\nrelease 0 3\nwrite 10 3\n' >"$T/want"
diff "$T/want" "$T/c" >/dev/null || fail "--from/--to kept: $(cat "$T/c")"
expect_exit 0 "$FSTAP" info --json "$T/win.trace"
python3 - "$T/out" <<'PY' || fail "footer or transform is wrong"
import json, sys
i = json.load(open(sys.argv[1]))
assert i["status"] == "complete" and i["footer"]["records"] == 11, i
assert i["footer"]["bytes_written"] == 3 * 4096, i["footer"]
tr = i["metadata"]["transform"]
assert tr[0]["tool"] == "fstap filter" and tr[0]["from_ns"] == 2000000, tr
assert tr[0]["selected"] == 10 and tr[0]["added_for_paths"] == 1, tr
assert i["metadata"]["host"] == "t3010"
PY

# An empty selection is a valid trace with the state only.
expect_exit 0 "$FSTAP" filter --pid=99 "$T/in.trace" -o "$T/none.trace"
expect_exit 0 "$FSTAP" info "$T/none.trace"
expect_grep "$T/out" "records:   0 operations"

# Usage errors (exit 2, one line + hint) and failures (exit 1, one line).
expect_exit 2 "$FSTAP" filter --op=frobnicate "$T/in.trace" -o "$T/x.trace"
expect_grep "$T/err" "'frobnicate' is not an operation"
expect_exit 2 "$FSTAP" filter --from=soon "$T/in.trace" -o "$T/x.trace"
expect_exit 2 "$FSTAP" filter --pid=1,,2 "$T/in.trace" -o "$T/x.trace"
expect_exit 2 "$FSTAP" filter --path=data "$T/in.trace" -o "$T/x.trace"
expect_exit 2 "$FSTAP" filter "$T/in.trace"
expect_exit 2 "$FSTAP" filter --from=2s --to=1s "$T/in.trace" -o "$T/x.trace"
expect_exit 1 "$FSTAP" filter --pid=1 - -o "$T/x.trace" </dev/null
expect_exit 1 "$FSTAP" filter --pid=1 "$T/missing.trace" -o "$T/x.trace"
[ "$(count_lines "$T/err")" = 1 ] || fail "error is not one line: $(cat "$T/err")"
expect_exit 0 "$FSTAP" filter --help && expect_grep "$T/out" "usage: fstap filter"

# The keep bits of older records go to a temporary file (FSTAP_TEST_FILTER_MEM_WORDS:
# 2 words, 128 records, in memory): 300 files created, then read; each read needs its
# create, 900 records back, in the file. The output is that of the bits all in memory
# (no temporary directory: TMPDIR names none).
python3 - "$T/many.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_monotonic_ns": 0, "metadata": {"host": "t3010"}})
w({"op": "process", "pid": 10, "comm": "many", "t": 0})
w({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 2, "ino": 2})
t = [0]
def op(o, **kw):
    t[0] += 1000
    r = {"op": o, "t": t[0], "dur": 500, "tid": 10, "pid": 10, "uid": 0, "gid": 0}
    r.update(kw); w(r)
op("mkdir", obj=1, name="d", mode=0o40755, child=2)
for i in range(300):
    op("create", obj=2, name="f%d" % i, mode=0o100644, flags=0o101, child=10 + i, fh=10 + i)
    op("getattr", obj=10 + i)
    op("release", obj=10 + i, fh=10 + i)
for i in range(300):
    op("open", obj=10 + i, fh=1000 + i)
    op("read", obj=10 + i, fh=1000 + i, offset=0, size=4096, res=0)
    op("release", obj=10 + i, fh=1000 + i)
w({"op": "footer", "t": t[0] + 1000})
PY
expect_exit 0 "$FSTAP" import -o "$T/many.trace" "$T/many.jsonl"
mkdir "$T/spill" "$T/mem"
(cd "$T/spill" && FSTAP_TEST_FILTER_MEM_WORDS=2 "$FSTAP" filter --op=read ../many.trace -o out.trace) ||
	fail "filter with the bits in a temporary file failed"
(cd "$T/mem" && FSTAP_TEST_FILTER_MEM_WORDS=2 TMPDIR=/nonexistent "$FSTAP" filter --op=read \
	../many.trace -o out.trace) || fail "filter with the bits in memory failed"
counts "$T/spill/out.trace" >"$T/c"
printf 'create 10 300\nmkdir 10 1\nread 10 300\n' >"$T/want"
diff "$T/want" "$T/c" >/dev/null || fail "spilled bits kept: $(cat "$T/c")"
cmp -s "$T/spill/out.trace" "$T/mem/out.trace" || fail "spilled bits give another trace"
finish
