#!/bin/sh
# t0200-trace-second-reader.sh: proves docs/trace-format.md by reading traces
# with a second, independent reader (trace_reader.py, written from the spec)
# and checking that it prints byte for byte what `fstap export --no-paths`
# prints. The trace is imported from JSON Lines generated here, covering every
# record type and every field (non-UTF-8 names, readdir entries, binary xattr
# values, extents, the kernel flag, negative results, u64 values above 2^63-1),
# in many 4 KiB chunks and in one large chunk that overflows the per-chunk
# name (4096) and thread (256) tables. Then: a flipped byte makes both readers
# fail with exit 1; a torn tail makes both end with exit 0 and a warning; a
# hand-made chunk with unknown record types, trailing bytes and a record that
# ends early is read the same way by both.
#
# Environment: FSTAP (the binary), FSTAP_SRCDIR (the source tree), as lib.sh.
. "$(dirname "$0")/lib.sh"
READER="$FSTAP_SRCDIR/tests/integration/trace_reader.py"

command -v python3 >/dev/null 2>&1 || skip "python3 not found"

tmp=$T
cd "$tmp"

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# ---- the JSON Lines input ------------------------------------------------
cat > gen.py <<'EOF'
import json, sys

BIG = "18446744073709551615"          # 2^64-1, above 2^63-1: a string
BIG2 = "9223372036854775808"          # 2^63
lines = []
def out(o):
    lines.append(json.dumps(o, separators=(",", ":"), ensure_ascii=False))

out({"fstap": "trace", "version": "1.1", "flags": 0,
     "start_realtime_ns": 1700000000123456789, "start_monotonic_ns": 987654321,
     "metadata": {"host": "h\u00e9\U0001F600", "kernel": "6.1.0 #1 SMP",
                  "fstype": "ext4", "options": {"cache": "none", "r": 0.1, "n": None,
                                                "b": [True, False, 1e300]},
                  "cmdline": ["fstap", "record", "--", "sh", "-c", "tab\there\"q\\\u0001"]}})

t = 1000
def op(op_name, tid=100, pid=100, uid=1000, gid=1000, res=0, obj=1, kernel=False, dt=1000,
       **fields):
    global t
    t += dt
    o = {"op": op_name, "t": t, "dur": 500 + t % 7, "tid": tid, "pid": pid, "uid": uid,
         "gid": gid, "res": res}
    if kernel:
        o["kernel"] = True
    o["obj"] = obj
    o.update(fields)
    out(o)

hexname = {"hex": "e9ff00c3"}          # not UTF-8, with a NUL
weird = "a\"b\\c\nd\te\rf\u0001\u007f\u00e9\u4e2d\U0001F600"

# Process and initial state first.
out({"op": "process", "pid": 4294967295, "ppid": 1, "comm": "nnrpd",
     "cmdline": {"hex": "6e6e72706400 2d440078".replace(" ", "")}, "t": 5})
out({"op": "process", "pid": 100, "ppid": 4294967295, "comm": weird, "t": BIG})
out({"op": "state_inode", "obj": 1, "mode": 0o40755, "owner_uid": 0, "size": 4096,
     "atime": -1, "mtime": -9223372036854775807, "ctime": 9223372036854775807,
     "ino": 2, "nlink": 3})
out({"op": "state_inode", "obj": 2, "mode": 0o100644, "owner_uid": 4294967295,
     "owner_gid": BIG, "size": BIG, "atime": 1699999999000000001, "mtime": -5,
     "ctime": 7, "ino": BIG, "nlink": BIG2, "rdev": 2049, "target": weird,
     "xattrs": [{"name": "user.DOSATTRIB", "value": {"hex": "0011ff80fe00"}},
                {"name": "user.empty", "value": ""},
                {"name": {"hex": "757365722eff"}, "value": "text \u00e9"},
                {"name": "user.DOSATTRIB", "value": "again"},
                {"name": "user.left-out", "value": ""}],
     "extents": [[0, 4096], [8192, 1], [BIG2, 10], ["18446744073709551000", 600]],
     "xattr_sizes": [6, 0, 7, 5, BIG], "flags": 0x80020, "projid": BIG})
out({"op": "state_inode", "obj": 3, "mode": 0o120777, "target": {"hex": "2f746d70ff"}})
out({"op": "state_inode", "obj": 4, "mode": 0o100600, "size": 20000,
     "xattrs": [{"name": "user.big", "value": {"hex": "ab" * 6000}}],   # larger than a 4k chunk
     "extents": [[4096, 4096]]})
out({"op": "state_dentry", "obj": 1, "name": "spool", "child": 2})
out({"op": "state_dentry", "obj": 1, "name": hexname, "child": 3})
out({"op": "state_dentry", "obj": BIG, "name": weird, "child": BIG})

# Every operation, every field nonzero at least once.
op("lookup", name="spool", child=2)
op("lookup", name=hexname, child=3, res=-2)
op("getattr", fh=BIG)
op("setattr", fh=7, valid=0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20, mode=0o100640,
   owner_uid=4294967295, owner_gid=5, size=BIG, atime=-1000000000, mtime=1700000000000000000)
op("setattr", valid=0x400 | 0x80 | 0x100, kernel=True, tid=0, pid=0, uid=0, gid=0)
op("readlink", obj=3, target=weird, res=len(weird.encode()))
op("mknod", name="fifo", mode=0o10644, rdev=BIG, umask=0o22, child=10)
op("mkdir", name=weird, mode=0o40755, umask=0o77, child=11)
op("unlink", name="fifo")
op("rmdir", name=weird, res=-39)
op("symlink", name="ln", target={"hex": "00ff"}, child=12)
op("rename", name="ln", newparent=11, newname=hexname, flags=1 | 2 | 4)
op("link", obj=2, newparent=11, newname="hard")
op("open", obj=2, flags=0o1101102, fh=8)
op("create", name="new", mode=0o100600, umask=0o22, flags=0o100301, child=13, fh=9)
op("read", obj=2, fh=8, offset=BIG2, size=131072, res=131072)
op("read", obj=2, fh=8, offset=0, size=4096, res=-5)
op("write", obj=13, fh=9, offset=BIG, size=65536, res=65536)
op("flush", obj=13, fh=9)
op("release", obj=13, fh=9, flags=0o100002, kernel=True)
op("fsync", obj=2, fh=8, res=-28)
op("fdatasync", obj=2, fh=8)
op("opendir", obj=11, flags=0o200000, fh=14)
op("readdir", obj=11, fh=14, offset=BIG, size=4096, flags=1, res=5,
   entries=[{"name": ".", "type": 4, "obj": 11, "ino": 500},
            {"name": "..", "type": 4, "obj": 0, "ino": 2},
            {"name": "hard", "type": 8, "obj": 2, "ino": BIG},
            {"name": hexname, "type": 10, "obj": BIG, "ino": 3},
            {"name": "hard", "type": 4294967295, "obj": 0, "ino": 0}])
op("readdir", obj=11, fh=14, offset=5, size=4096, res=0)
op("releasedir", obj=11, fh=14)
op("fsyncdir", obj=11, fh=14, flags=1)
op("statfs", obj=1)
op("access", obj=2, mode=7, res=-13)
op("setxattr", obj=2, name="user.DOSATTRIB", size=BIG, flags=1)
op("setxattr", obj=2, name="system.posix_acl_access", size=4, value={"hex": "0200ff00"})
op("getxattr", obj=2, name="security.capability", size=255, res=-61, kernel=True)
op("getxattr", obj=2, name="user.DOSATTRIB", size=255, res=5, value="again")
op("listxattr", obj=2, size=65536, res=27)
op("removexattr", obj=2, name=hexname)
op("fallocate", obj=2, fh=8, flags=0x01 | 0x02, offset=BIG2, size=BIG)
op("copy_file_range", obj=2, fh=8, offset=BIG, obj2=13, fh2=9, offset2=BIG2, size=BIG,
   flags=1, res=1048576)
op("lseek", obj=2, fh=8, offset=BIG, whence=4, res=9223372036854775807)
op("forget", obj=BIG, size=BIG, kernel=True, tid=0, pid=0, uid=0, gid=0)
op("ioctl", obj=2, fh=8, cmd=0x401c5820, flags=0x10, projid=42, extsize=BIG, cowextsize=BIG2)
op("ioctl", obj=2, fh=8, cmd=0x80086601, res=-25)
op("getattr", res=-9223372036854775807, dt=-5000)        # time goes backwards
op("getattr", res=9223372036854775807, uid=4294967295, gid=4294967295,
   tid=4294967295, pid=4294967295)
out({"op": "loss", "t": 123456, "lost": 17})
out({"op": "loss", "t": BIG, "lost": BIG})
out({"op": "watermark", "t": 123457})
out({"op": "watermark", "t": BIG})
op("getattr", dt=0)

# A long stream: many chunks of 4 KiB; in one big chunk, more than 4096
# distinct names and 256 distinct threads, then references to early names.
ops = ["lookup", "getattr", "read", "write", "readdir", "create", "unlink", "setxattr"]
for i in range(6000):
    tid = 1000 + (i * 7) % 300
    kind = ops[i % len(ops)]
    name = "f%05d" % i if i < 4500 else "f%05d" % (i % 97)
    if i % 501 == 0:
        name = {"hex": "ff%04x00" % i}
    kw = dict(tid=tid, pid=1000 + (i * 7) % 300 // 4, uid=1000 + i % 3, gid=100,
              obj=1 + i % 50, dt=1 + (i * 13) % 5000)
    if i % 11 == 0:
        kw["res"] = -2
    if i % 37 == 0:
        kw["kernel"] = True
    if kind == "lookup":
        op(kind, name=name, child=100 + i, **kw)
    elif kind == "getattr":
        op(kind, **kw)
    elif kind in ("read", "write"):
        kw.setdefault("res", 4096)
        op(kind, fh=i % 20, offset=4096 * i, size=4096, **kw)
    elif kind == "readdir":
        ents = [{"name": "e%d.%d" % (i, j) if i < 5000 else "e%d" % (j % 9), "type": 8,
                 "obj": 100 + j, "ino": 5000 - j * 3} for j in range(i % 10)]
        kw.setdefault("res", len(ents))
        op(kind, fh=3, offset=i, size=4096, entries=ents, **kw)
    elif kind == "create":
        op(kind, name=name, mode=0o100644, umask=0o22, flags=0o101, child=100 + i, fh=i,
           **kw)
    elif kind == "unlink":
        op(kind, name=name, **kw)
    else:
        op(kind, name="user.x%d" % i, size=i, flags=i % 3, **kw)
    if i % 1000 == 999:
        out({"op": "process", "pid": 2000 + i, "ppid": 1, "comm": "w%d" % i,
             "cmdline": {"hex": "6100620063"}, "t": t})

out({"op": "footer", "t": t + 1000, "records": 0, "lost": 17})
sys.stdout.write("\n".join(lines) + "\n")
EOF
python3 gen.py > in.jsonl || { echo "FAIL: cannot generate the input"; exit 1; }

# Reads $1 with both readers; compares exit status and stdout.
# $2: the exit status both must have.
compare() {
	c_rc=0
	"$FSTAP" export --no-paths --file-order "$1" > "$1.c.out" 2> "$1.c.err" || c_rc=$?
	py_rc=0
	python3 "$READER" "$1" > "$1.py.out" 2> "$1.py.err" || py_rc=$?
	if [ "$c_rc" != "$2" ]; then
		fail "$1: fstap export exited $c_rc, expected $2"
		sed 's/^/  /' "$1.c.err"
	fi
	if [ "$py_rc" != "$2" ]; then
		fail "$1: trace_reader.py exited $py_rc, expected $2"
		sed 's/^/  /' "$1.py.err"
	fi
	if ! cmp -s "$1.c.out" "$1.py.out"; then
		fail "$1: the two readers print different JSON Lines"
		diff "$1.c.out" "$1.py.out" | head -20
	fi
}

for cs in 4k 1M; do
	t="t$cs.trace"
	if ! "$FSTAP" import --chunk-size=$cs -o "$t" in.jsonl; then
		fail "fstap import --chunk-size=$cs"
		continue
	fi
	compare "$t" 0
	if [ -s "$t.py.err" ] || [ -s "$t.c.err" ]; then
		fail "$t: unexpected messages for a complete trace"
		cat "$t.c.err" "$t.py.err"
	fi
done

# The input covers every record type and every field, in both readers' output,
# and the 4k trace has many chunks.
python3 - "$READER" t4k.trace.py.out t1M.trace.py.out <<'EOF' || fail "coverage"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("trace_reader", sys.argv[1])
tr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tr)
bad = 0
for path in sys.argv[2:]:
    seen = set()
    ops = set()
    kernel = neg = bigstr = hexname = 0
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            o = json.loads(line)
            ops.add(o["op"])
            seen.update((o["op"], k) for k, v in o.items())
            kernel += o.get("kernel", False)
            neg += isinstance(o.get("res"), int) and o["res"] < 0
            bigstr += '"18446744073709551615"' in line
            hexname += '"name":{"hex"' in line
    for op, (name, fields) in tr.OPS.items():
        if name not in ops:
            print("  %s: no %s record" % (path, name)); bad = 1
        for key, enc in fields:
            if (name, key) not in seen:
                print("  %s: %s never has %s" % (path, name, key)); bad = 1
    if not (kernel and neg and bigstr and hexname):
        print("  %s: missing kernel/negative/big/hex cases" % path); bad = 1
sys.exit(bad)
EOF
nchunks=$(python3 - t4k.trace <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 64 + struct.unpack_from("<I", d, 20)[0]
n = 0
while off < len(d):
    n += 1
    off += 32 + struct.unpack_from("<I", d, off + 8)[0]
print(n)
EOF
)
[ "$nchunks" -gt 30 ] || fail "t4k.trace has only $nchunks chunks"
# ... and t1M.trace fills the per-chunk name and thread tables.
python3 - "$READER" t1M.trace <<'EOF' || fail "t1M.trace does not fill the name and thread tables"
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("trace_reader", sys.argv[1])
tr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tr)
d = open(sys.argv[2], "rb").read()
off = 64 + struct.unpack_from("<I", d, 20)[0]
full = False
while off < len(d):
    plen, nrec, base = struct.unpack_from("<IIQ", d, off + 8)
    dec = tr.ChunkDecoder(d[off + 32:off + 32 + plen], base)
    while dec.next():
        pass
    full |= len(dec.names) == tr.NAMES_MAX and len(dec.threads) == tr.THREADS_MAX
    off += 32 + plen
sys.exit(0 if full else 1)
EOF

# Round trip: export -> import -> export gives the same JSON Lines.
if "$FSTAP" export --no-paths t4k.trace > rt1.jsonl &&
   "$FSTAP" import --chunk-size=4k -o rt.trace rt1.jsonl &&
   python3 "$READER" rt.trace > rt2.jsonl; then
	cmp -s rt1.jsonl rt2.jsonl || fail "export/import round trip differs"
else
	fail "export/import round trip"
fi

# One flipped byte: both readers fail with exit 1, naming the offset.
size=$(wc -c < t4k.trace)
for pos in $((size / 2)) $((size / 3 + 17)) 100 $((size - 40)); do
	cp t4k.trace flip.trace
	python3 - flip.trace $pos <<'EOF'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    b = f.read(1)
    f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 0x10]))
EOF
	compare flip.trace 1
	if [ "$pos" -gt 1000 ] && ! grep -q "corrupt at byte offset [0-9]" flip.trace.py.err; then
		fail "flip at $pos: trace_reader.py does not name the offset"
		cat flip.trace.py.err
	fi
	# Both name the same chunk.
	c_off=$(sed -n 's/.*corrupt at byte offset \([0-9]*\).*/\1/p' flip.trace.c.err)
	py_off=$(sed -n 's/.*corrupt at byte offset \([0-9]*\).*/\1/p' flip.trace.py.err)
	[ "$c_off" = "$py_off" ] || fail "flip at $pos: offsets differ: fstap '$c_off', reader '$py_off'"
done

# A torn tail (cut inside the footer chunk, and inside a chunk header):
# both readers deliver the same records, exit 0 and warn.
for cut in 10 $((size / 2)); do
	head -c $((size - cut)) t4k.trace > torn.trace
	compare torn.trace 0
	grep -q "incomplete" torn.trace.c.err || fail "torn (-$cut): fstap export does not warn"
	grep -q "incomplete" torn.trace.py.err || fail "torn (-$cut): trace_reader.py does not warn"
done

# A hand-made chunk appended to a trace without footer: unknown record types
# (an operation id and a metadata id) skipped by length, a process record with
# trailing bytes, a state_dentry that ends before its last field.
grep -v '"op":"footer"' in.jsonl | head -200 > nofooter.jsonl
"$FSTAP" import --chunk-size=4k -o extra.trace nofooter.jsonl
python3 - extra.trace "$READER" <<'EOF'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("trace_reader", sys.argv[2])
tr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tr)
def varint(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7f | 0x80); v >>= 7
    b.append(v)
    return bytes(b)
def rec(op, body):
    return bytes([op]) + varint(len(body)) + body
# op 77: an operation header (thread and credentials literal, obj 1), then
# a body this version does not know.
payload = (rec(77, b"\x03" + varint(0) + varint(0) + varint(0) + varint(5) + varint(5) +
               varint(0) + varint(0) + varint(1) + b"\x01" * 20) +
           rec(200, b"anything at all") +
           rec(128, varint(31337) + varint(1) + varint(3) + b"abc" + varint(0) + varint(9) +
               b"\xff\xfe\x00 trailing") +
           rec(130, varint(1) + varint(4 << 1) + b"name") +
           rec(0, b""))
hdr = struct.pack("<IIIIQI", 0x4B4E4843, 0, len(payload), 5, 0, tr.crc32c(payload))
hdr += struct.pack("<I", tr.crc32c(hdr))
with open(sys.argv[1], "ab") as f:
    f.write(hdr + payload)
EOF
compare extra.trace 0
grep -q '"op":"state_dentry","obj":1,"name":"name"}' extra.trace.py.out ||
	fail "extra.trace: the short state_dentry is not read"
grep -q '"op":"process","pid":31337,"ppid":1,"comm":"abc","t":9}' extra.trace.py.out ||
	fail "extra.trace: the process record with trailing bytes is not read"
grep -q "3 records" extra.trace.py.err || fail "extra.trace: skipped records not reported"

# The extremes of the JSON number rules (docs/trace-format.md 14.1, 14.2):
# signed fields at -2^63 are plain JSON integers; header times above 2^63-1
# are decimal strings. Both readers agree, and export -> import works.
cat > edge.jsonl <<'EOF'
{"fstap":"trace","version":"1.1","flags":0,"start_realtime_ns":"18446744073709551615","start_monotonic_ns":"9223372036854775808","metadata":{}}
{"op":"state_inode","obj":5,"atime":-9223372036854775808,"mtime":9223372036854775807}
{"op":"getattr","t":1,"dur":0,"tid":1,"pid":1,"uid":0,"gid":0,"res":-9223372036854775808,"obj":5}
{"op":"footer","t":2,"records":1}
EOF
if "$FSTAP" import -o edge.trace edge.jsonl; then
	compare edge.trace 0
	cmp -s edge.jsonl edge.trace.py.out || {
		fail "edge.trace: trace_reader.py does not give the input back"
		diff edge.jsonl edge.trace.py.out
	}
	"$FSTAP" import -o edge2.trace edge.trace.c.out 2> edge2.err ||
		fail "edge.trace: fstap cannot import its own export: $(cat edge2.err)"
else
	fail "fstap import edge.jsonl"
fi

if [ "$failures" -ne 0 ]; then
	echo "t0200-trace-second-reader: $failures failure(s)"
	exit 1
fi
echo "t0200-trace-second-reader: ok"
exit 0
