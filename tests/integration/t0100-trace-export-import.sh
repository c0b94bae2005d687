#!/bin/sh
# t0100: the trace as JSON Lines: import -> export -> import -> export is
# lossless (same JSON Lines, same binary), paths are resolved, and a torn,
# corrupt or hostile trace gets a clear message and the right exit code.
. "$(dirname "$0")/lib.sh"

# A trace of a few thousand records over many chunks, with a tree.
python3 - "$T/in.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_realtime_ns": 1764460800000000000,
   "start_monotonic_ns": 1000, "metadata": {"host": "test", "fs": "ext4"}})
w({"op": "process", "pid": 7, "comm": "app", "t": 1})
w({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 2, "ino": 2})
t = 10
nxt = 2
for d in range(10):
    w({"op": "mkdir", "t": t, "dur": 3, "tid": 7, "pid": 7, "uid": 1000, "gid": 1000,
       "obj": 1, "name": "dir%d" % d, "mode": 0o755, "umask": 0o22, "child": nxt})
    dobj = nxt; nxt += 1; t += 5
    for f in range(300):
        name = "f%04d" % f
        w({"op": "create", "t": t, "dur": 9, "tid": 7 + f % 3, "pid": 7, "uid": 1000,
           "gid": 1000, "obj": dobj, "name": name, "mode": 0o100644, "flags": 0o101,
           "child": nxt, "fh": nxt})
        w({"op": "write", "t": t + 10, "dur": 4, "tid": 7 + f % 3, "pid": 7, "uid": 1000,
           "gid": 1000, "res": 4096, "obj": nxt, "fh": nxt, "size": 4096})
        w({"op": "release", "t": t + 20, "dur": 1, "tid": 7 + f % 3, "pid": 7, "uid": 1000,
           "gid": 1000, "obj": nxt, "fh": nxt})
        nxt += 1; t += 30
w({"op": "rename", "t": t, "dur": 5, "tid": 7, "pid": 7, "uid": 1000, "gid": 1000,
   "obj": 1, "name": "dir0", "newparent": 303, "newname": "moved"})
w({"op": "getattr", "t": t + 1, "dur": 1, "tid": 7, "pid": 7, "uid": 1000, "gid": 1000,
   "obj": 4, "kernel": True})
w({"op": "lookup", "t": t + 2, "dur": 1, "tid": 7, "pid": 7, "uid": 1000, "gid": 1000,
   "res": -2, "obj": 1, "name": {"hex": "6e6f74ff757466"}})
w({"op": "footer", "t": t + 10, "records": 0})
PY

expect_exit 0 "$FSTAP" import -o "$T/a.trace" --chunk-size=4k "$T/in.jsonl"
expect_exit 0 "$FSTAP" export "$T/a.trace" && mv "$T/out" "$T/a.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/b.trace" --chunk-size=4k "$T/a.jsonl"
expect_exit 0 "$FSTAP" export "$T/b.trace" && mv "$T/out" "$T/b.jsonl"
cmp -s "$T/a.jsonl" "$T/b.jsonl" || fail "JSON Lines differ after a round trip"
cmp -s "$T/a.trace" "$T/b.trace" || fail "binary traces differ after a round trip"
# Reading from standard input and writing to standard output work too.
"$FSTAP" export - <"$T/a.trace" | "$FSTAP" import --chunk-size=4k -o - - >"$T/c.trace" || fail "pipe round trip"
cmp -s "$T/a.trace" "$T/c.trace" || fail "piped round trip differs"

[ "$(count_lines "$T/a.jsonl")" = 9017 ] || fail "expected 9017 lines, got $(count_lines "$T/a.jsonl")"
# Paths: resolved, and following the rename of dir0 into dir1.
expect_grep "$T/a.jsonl" '"child":302,"fh":302,"path":"/dir0/f0299"}'
expect_grep "$T/a.jsonl" '"path":"/dir0","newpath":"/dir1/moved"}'
expect_grep "$T/a.jsonl" '"kernel":true,"obj":4,"path":"/dir1/moved/f0001"}'
expect_grep "$T/a.jsonl" '"res":-2,"obj":1,"name":{"hex":"6e6f74ff757466"}'
expect_grep "$T/a.jsonl" '{"op":"footer","t":90070,"records":9013,"bytes_written":12288000}'
# --no-paths leaves them out.
"$FSTAP" export --no-paths "$T/a.trace" >"$T/np.jsonl"
if grep -q '"path"' "$T/np.jsonl"; then fail "--no-paths printed paths"; fi

# info: text and JSON agree with the trace.
expect_exit 0 "$FSTAP" info --json "$T/a.trace"
python3 - "$T/out" <<'PY' || fail "info --json is wrong"
import json, sys
i = json.load(open(sys.argv[1]))
assert i["status"] == "complete", i["status"]
assert i["records"] == 9013 and i["by_op"]["create"] == 3000, i
assert i["footer"]["bytes_written"] == 3000 * 4096, i["footer"]
assert i["metadata"] == {"host": "test", "fs": "ext4"}
PY
expect_exit 0 "$FSTAP" info "$T/a.trace" && expect_grep "$T/out" "status:    complete"

# A torn tail (a crash mid-write): everything before it, and a warning.
size=$(stat -c %s "$T/a.trace")
head -c $((size / 2)) "$T/a.trace" >"$T/torn.trace"
expect_exit 0 "$FSTAP" export "$T/torn.trace" && expect_grep "$T/err" "is incomplete: torn chunk at byte offset"
n=$(count_lines "$T/out")
[ "$n" -gt 1000 ] && [ "$n" -lt 9017 ] || fail "torn trace exported $n lines"
expect_exit 0 "$FSTAP" info "$T/torn.trace" && expect_grep "$T/out" "status:    trace '$T/torn.trace' is incomplete"

# A flipped byte in the middle: corrupt, with the chunk's offset; exit 1.
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 0x40
open(sys.argv[2], 'wb').write(b)" "$T/a.trace" "$T/bad.trace"
expect_exit 1 "$FSTAP" export "$T/bad.trace" && expect_grep "$T/err" "is corrupt at byte offset"
expect_exit 1 "$FSTAP" info "$T/bad.trace" && expect_grep "$T/err" "checksum mismatch"

# Hostile or mistaken JSON Lines: one line naming the problem, exit 1, no output file.
printf '{"fstap":"trace"}\n{"op":"read","t":1,"size":"lots"}\n' >"$T/bad.jsonl"
expect_exit 1 "$FSTAP" import -o "$T/x.trace" "$T/bad.jsonl"
expect_grep "$T/err" "fstap: error: $T/bad.jsonl:2: 'size' must be a non-negative integer"
[ "$(count_lines "$T/err")" = 1 ] || fail "import error is not one line"
[ ! -e "$T/x.trace" ] || fail "failed import left a trace behind"
expect_exit 1 "$FSTAP" import -o "$T/x.trace" "$T/nonexistent.jsonl"
expect_grep "$T/err" "cannot open '$T/nonexistent.jsonl'"
expect_exit 1 "$FSTAP" import -o /nonexistent/dir/x.trace "$T/in.jsonl"
expect_grep "$T/err" "cannot create '/nonexistent/dir/x.trace'"
# A full disk while writing is an error, never a silently short file.
if [ -w /dev/full ]; then
	expect_exit 1 "$FSTAP" import -o /dev/full "$T/in.jsonl"
	expect_grep "$T/err" "No space left on device"
	expect_exit 1 "$FSTAP" export -o /dev/full "$T/a.trace"
fi

finish
