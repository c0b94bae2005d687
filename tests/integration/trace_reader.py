#!/usr/bin/env python3
"""trace_reader.py: a second, independent reader of fstap traces.

Written from docs/trace-format.md alone (standard library only), it decodes a
binary trace and prints the JSON Lines that `fstap export --no-paths` prints:
the header line, then one object per record, same keys, same order, same
omission of zero values, same byte-string rules. The integration test
t0200-trace-second-reader.sh compares the two, which proves that the
specification is enough to read a trace.

usage: trace_reader.py [-q] TRACE

Exit status: 0 when the trace was read to its end, complete or incomplete
(a torn tail or a missing footer: a message on stderr); 1 when it is corrupt
(the message names the byte offset) or not a trace; 2 on a usage error.
"""
import json
import struct
import sys

PROG = "trace_reader.py"

# ---- primitives (spec section 2) -------------------------------------------

def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table

CRC_TABLE = _crc_table()


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    t = CRC_TABLE
    for b in data:
        crc = (crc >> 8) ^ t[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283

U64_MASK = (1 << 64) - 1
U32_MAX = (1 << 32) - 1
I64_MAX = (1 << 63) - 1


class Corrupt(Exception):
    """Bytes that are all present but wrong."""


def unzigzag(u):
    v = (u >> 1) ^ -(u & 1)
    return v


def to_s64(v):
    v &= U64_MASK
    return v - (1 << 64) if v > I64_MAX else v


class Cursor:
    """A bounded read cursor over one record body."""

    __slots__ = ("buf", "pos", "end")

    def __init__(self, buf, pos, end):
        self.buf, self.pos, self.end = buf, pos, end

    def at_end(self):
        return self.pos >= self.end

    def left(self):
        return self.end - self.pos

    def byte(self, what):
        if self.pos >= self.end:
            raise Corrupt(what)
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self, what):
        v = 0
        shift = 0
        for i in range(10):
            if self.pos >= self.end:
                raise Corrupt(what)
            b = self.buf[self.pos]
            self.pos += 1
            if i == 9 and b > 1:
                raise Corrupt(what)
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7
        raise Corrupt(what)

    def take(self, n, what):
        if n > self.end - self.pos:
            raise Corrupt(what)
        p = self.pos
        self.pos += n
        return self.buf[p:p + n]


# ---- the record-type table (spec section 8) ---------------------------------

U64, S64, NAME, BYTES, ENTRIES, XATTRS, EXTENTS, U32, U64_LIST = range(9)

OPS = {
    1: ("lookup", [("name", NAME), ("child", U64)]),
    2: ("getattr", [("fh", U64)]),
    3: ("setattr", [("fh", U64), ("valid", U64), ("mode", U64), ("owner_uid", U64),
                    ("owner_gid", U64), ("size", U64), ("atime", S64), ("mtime", S64)]),
    4: ("readlink", [("target", BYTES)]),
    5: ("mknod", [("name", NAME), ("mode", U64), ("rdev", U64), ("umask", U64),
                  ("child", U64)]),
    6: ("mkdir", [("name", NAME), ("mode", U64), ("umask", U64), ("child", U64)]),
    7: ("unlink", [("name", NAME)]),
    8: ("rmdir", [("name", NAME)]),
    9: ("symlink", [("name", NAME), ("target", BYTES), ("child", U64)]),
    10: ("rename", [("name", NAME), ("newparent", U64), ("newname", NAME), ("flags", U64)]),
    11: ("link", [("newparent", U64), ("newname", NAME)]),
    12: ("open", [("flags", U64), ("fh", U64)]),
    13: ("create", [("name", NAME), ("mode", U64), ("umask", U64), ("flags", U64),
                    ("child", U64), ("fh", U64)]),
    14: ("read", [("fh", U64), ("offset", U64), ("size", U64)]),
    15: ("write", [("fh", U64), ("offset", U64), ("size", U64)]),
    16: ("flush", [("fh", U64)]),
    17: ("release", [("fh", U64), ("flags", U64)]),
    18: ("fsync", [("fh", U64)]),
    19: ("fdatasync", [("fh", U64)]),
    20: ("opendir", [("flags", U64), ("fh", U64)]),
    21: ("readdir", [("fh", U64), ("offset", U64), ("size", U64), ("flags", U64),
                     ("entries", ENTRIES)]),
    22: ("releasedir", [("fh", U64)]),
    23: ("fsyncdir", [("fh", U64), ("flags", U64)]),
    24: ("statfs", []),
    25: ("access", [("mode", U64)]),
    26: ("setxattr", [("name", NAME), ("size", U64), ("flags", U64), ("value", BYTES)]),
    27: ("getxattr", [("name", NAME), ("size", U64), ("value", BYTES)]),
    28: ("listxattr", [("size", U64)]),
    29: ("removexattr", [("name", NAME)]),
    30: ("fallocate", [("fh", U64), ("flags", U64), ("offset", U64), ("size", U64)]),
    31: ("copy_file_range", [("fh", U64), ("offset", U64), ("obj2", U64), ("fh2", U64),
                             ("offset2", U64), ("size", U64), ("flags", U64)]),
    32: ("lseek", [("fh", U64), ("offset", U64), ("whence", U64)]),
    33: ("forget", [("size", U64)]),
    34: ("ioctl", [("fh", U64), ("cmd", U64), ("flags", U64), ("projid", U64),
                   ("extsize", U64), ("cowextsize", U64)]),
    128: ("process", [("pid", U32), ("ppid", U64), ("comm", BYTES), ("cmdline", BYTES),
                      ("t", U64)]),
    129: ("state_inode", [("obj", U64), ("mode", U64), ("owner_uid", U64),
                          ("owner_gid", U64), ("size", U64), ("atime", S64), ("mtime", S64),
                          ("ctime", S64), ("ino", U64), ("nlink", U64), ("rdev", U64),
                          ("target", BYTES), ("xattrs", XATTRS), ("extents", EXTENTS),
                          ("xattr_sizes", U64_LIST), ("flags", U64), ("projid", U64)]),
    130: ("state_dentry", [("obj", U64), ("name", NAME), ("child", U64)]),
    131: ("loss", [("t", U64), ("lost", U64)]),
    132: ("footer", [("t", U64), ("records", U64), ("lost", U64), ("bytes_read", U64),
                     ("bytes_written", U64)]),
    133: ("watermark", [("t", U64)]),
}
META_FIRST = 128
FOOTER = 132

HAS_THREAD, HAS_CRED, HAS_RESULT, KERNEL = 0x01, 0x02, 0x04, 0x08
NAMES_MAX, THREADS_MAX = 4096, 256
CHUNK_MAGIC, CHUNK_FOOTER = 0x4B4E4843, 1
CHUNK_MAX_PAYLOAD, META_MAX = 16 << 20, 1 << 20

# ---- JSON rendering (spec section 14) -----------------------------------------

def j_u64(v):
    return '"%d"' % v if v > I64_MAX else "%d" % v


def j_s64(v):
    return "%d" % v


_ESC = {0x22: '\\"', 0x5C: "\\\\", 0x0A: "\\n", 0x09: "\\t"}


def j_bytes(b):
    """A byte string: a JSON string if valid UTF-8 without NUL, else {"hex":...}."""
    if 0 not in b:
        try:
            s = b.decode("utf-8", "strict")
        except UnicodeDecodeError:
            s = None
        if s is not None:
            out = ['"']
            for ch in s:
                c = ord(ch)
                if c in _ESC:
                    out.append(_ESC[c])
                elif c < 0x20:
                    out.append("\\u%04x" % c)
                else:
                    out.append(ch)
            out.append('"')
            return "".join(out)
    return '{"hex":"%s"}' % b.hex()


def _dump_string_ascii(s):
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif c < 0x20:
            out.append("\\u%04X" % c)
        elif c < 0x80:
            out.append(ch)
        elif c < 0x10000:
            out.append("\\u%04X" % c)
        else:
            c -= 0x10000
            out.append("\\u%04X\\u%04X" % (0xD800 | (c >> 10), 0xDC00 | (c & 0x3FF)))
    out.append('"')
    return "".join(out)


def _dump_real(x):
    s = "%.17g" % x
    if "." not in s and "e" not in s:
        s += ".0"
    i = s.find("e")
    if i >= 0:
        mant, exp = s[:i], s[i + 1:]
        sign = "-" if exp.startswith("-") else ""
        exp = exp.lstrip("+-").lstrip("0") or "0"
        s = mant + "e" + sign + exp
    return s


def dump_header_value(v):
    """Compact JSON, non-ASCII escaped, reals as %.17g (spec 14.1)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return "%d" % v
    if isinstance(v, float):
        return _dump_real(v)
    if isinstance(v, str):
        return _dump_string_ascii(v)
    if isinstance(v, list):
        return "[" + ",".join(dump_header_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(_dump_string_ascii(k) + ":" + dump_header_value(x)
                              for k, x in v.items()) + "}"
    raise TypeError(type(v))


def header_line(major, minor, flags, realtime, monotonic, metadata):
    return ('{"fstap":"trace","version":"%d.%d","flags":%d,"start_realtime_ns":%s,'
            '"start_monotonic_ns":%s,"metadata":%s}'
            % (major, minor, flags, j_u64(realtime), j_u64(monotonic),
               dump_header_value(metadata)))


# ---- chunk decoding (spec sections 6 and 7) -----------------------------------

class ChunkDecoder:
    def __init__(self, payload, base_ns):
        self.buf = payload
        self.pos = 0
        self.prev_ns = base_ns
        self.thread = None      # (tid, pid) of the previous operation record
        self.cred = None        # (uid, gid)
        self.names = []
        self.threads = []
        self.nrec = 0
        self.skipped = 0

    def name(self, c):
        v = c.varint("truncated name")
        if v & 1:
            i = v >> 1
            if i >= len(self.names):
                raise Corrupt("name reference to an unknown name")
            return self.names[i]
        b = c.take(v >> 1, "name longer than its record")
        if len(self.names) < NAMES_MAX:
            self.names.append(b)
        return b

    @staticmethod
    def blob(c):
        n = c.varint("field runs past the end of its record")
        return c.take(n, "byte string longer than its record")

    @staticmethod
    def count(c, min_bytes):
        n = c.varint("item count larger than its record")
        if n > c.left() // min_bytes:
            raise Corrupt("item count larger than its record")
        return n

    def op_header(self, c):
        what = "operation header runs past the end of its record"
        bits = c.byte(what)
        if bits & ~0x0F:
            raise Corrupt("unknown record header bits")
        start = (self.prev_ns + unzigzag(c.varint(what))) & U64_MASK
        self.prev_ns = start
        dur = c.varint(what)
        if bits & HAS_THREAD:
            v = c.varint(what)
            if v & 1:
                if v >> 1 >= len(self.threads):
                    raise Corrupt("thread reference to an unknown thread")
                self.thread = self.threads[v >> 1]
            elif v == 0:
                tid, pid = c.varint(what), c.varint(what)
                if tid > U32_MAX or pid > U32_MAX:
                    raise Corrupt("thread id out of range")
                self.thread = (tid, pid)
                if len(self.threads) < THREADS_MAX:
                    self.threads.append(self.thread)
            else:
                raise Corrupt("malformed thread reference")
        elif self.thread is None:
            raise Corrupt("first operation of a chunk without its thread")
        if bits & HAS_CRED:
            uid, gid = c.varint(what), c.varint(what)
            if uid > U32_MAX or gid > U32_MAX:
                raise Corrupt("uid or gid out of range")
            self.cred = (uid, gid)
        elif self.cred is None:
            raise Corrupt("first operation of a chunk without its credentials")
        res = to_s64(unzigzag(c.varint(what))) if bits & HAS_RESULT else 0
        obj = c.varint(what)
        parts = ['"t":', j_u64(start), ',"dur":', j_u64(dur),
                 ',"tid":', j_u64(self.thread[0]), ',"pid":', j_u64(self.thread[1]),
                 ',"uid":', j_u64(self.cred[0]), ',"gid":', j_u64(self.cred[1]),
                 ',"res":', j_s64(res)]
        if bits & KERNEL:
            parts.append(',"kernel":true')
        parts += [',"obj":', j_u64(obj)]
        return "".join(parts)

    def fields(self, c, fields):
        out = []
        past = "field runs past the end of its record"
        for key, enc in fields:
            if c.at_end():              # a body may end early: the rest is zero
                break
            if enc in (U64, U32):
                v = c.varint(past)
                if enc == U32 and v > U32_MAX:
                    raise Corrupt("32-bit field out of range")
                if v:
                    out.append(',"%s":%s' % (key, j_u64(v)))
            elif enc == S64:
                v = to_s64(unzigzag(c.varint(past)))
                if v:
                    out.append(',"%s":%s' % (key, j_s64(v)))
            elif enc in (NAME, BYTES):
                b = self.name(c) if enc == NAME else self.blob(c)
                if b:
                    out.append(',"%s":%s' % (key, j_bytes(b)))
            elif enc == ENTRIES:
                n = self.count(c, 4)
                items = []
                ino = 0
                for _ in range(n):
                    nm = self.name(c)
                    typ = c.varint(past)
                    if typ > U32_MAX:
                        raise Corrupt("entry type out of range")
                    obj = c.varint(past)
                    ino = (ino + unzigzag(c.varint(past))) & U64_MASK
                    items.append('{"name":%s,"type":%s,"obj":%s,"ino":%s}'
                                 % (j_bytes(nm), j_u64(typ), j_u64(obj), j_u64(ino)))
                if items:
                    out.append(',"%s":[%s]' % (key, ",".join(items)))
            elif enc == XATTRS:
                n = self.count(c, 2)
                items = []
                for _ in range(n):
                    nm = self.name(c)
                    val = self.blob(c)
                    items.append('{"name":%s,"value":%s}' % (j_bytes(nm), j_bytes(val)))
                if items:
                    out.append(',"%s":[%s]' % (key, ",".join(items)))
            elif enc == EXTENTS:
                n = self.count(c, 2)
                items = []
                end = 0
                for _ in range(n):
                    off = (end + c.varint(past)) & U64_MASK
                    length = c.varint(past)
                    end = (off + length) & U64_MASK
                    items.append("[%s,%s]" % (j_u64(off), j_u64(length)))
                if items:
                    out.append(',"%s":[%s]' % (key, ",".join(items)))
            elif enc == U64_LIST:
                n = self.count(c, 1)
                items = [j_u64(c.varint(past)) for _ in range(n)]
                if items:
                    out.append(',"%s":[%s]' % (key, ",".join(items)))
        return "".join(out)

    def next(self):
        """The next record as (op, JSON line), or None at the end of the payload."""
        while True:
            if self.pos >= len(self.buf):
                return None
            outer = Cursor(self.buf, self.pos, len(self.buf))
            op = outer.byte("record longer than its chunk")
            length = outer.varint("record longer than its chunk")
            if length > outer.left():
                raise Corrupt("record longer than its chunk")
            c = Cursor(self.buf, outer.pos, outer.pos + length)
            self.pos = outer.pos + length
            self.nrec += 1
            info = OPS.get(op)
            if info is None:
                # An unknown operation id still carries the operation header,
                # which feeds the chunk's running state (spec section 13).
                if 0 < op < META_FIRST:
                    self.op_header(c)
                self.skipped += 1
                continue
            name, fields = info
            line = '{"op":"%s"' % name
            if op < META_FIRST:
                line += "," + self.op_header(c)
            line += self.fields(c, fields) + "}"
            return op, line


# ---- the file (spec sections 3, 5, 12) -------------------------------------------

class TraceError(Exception):
    pass


def read_trace(path, out, err):
    """Writes the JSON Lines of trace path to out; returns the exit status."""
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as e:
        err.write("%s: error: cannot open trace '%s': %s\n" % (PROG, path, e.strerror))
        return 1
    with f:
        hdr = f.read(64)
        if len(hdr) >= 8 and hdr[:8] != b"FSTAPTRC":
            raise TraceError("'%s' is not an fstap trace (bad magic)" % path)
        if len(hdr) < 64:
            raise TraceError("'%s' is not an fstap trace (%d bytes, shorter than a header)"
                             % (path, len(hdr)))
        major, minor, hsize, flags, meta_len, realtime, monotonic = \
            struct.unpack_from("<HHIIIQQ", hdr, 8)
        if major != 1:
            raise TraceError("trace '%s' has format version %d.%d; this reader reads 1.x"
                             % (path, major, minor))
        if hsize != 64 or meta_len > META_MAX:
            raise TraceError("trace '%s' has a corrupt header (sizes %d, %d)"
                             % (path, hsize, meta_len))
        meta = f.read(meta_len)
        if len(meta) != meta_len:
            raise TraceError("trace '%s' ends inside its metadata block" % path)
        if crc32c(meta, crc32c(hdr[:60])) != struct.unpack_from("<I", hdr, 60)[0]:
            raise TraceError("trace '%s' has a corrupt header (checksum mismatch)" % path)
        try:
            metadata = json.loads(meta.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            metadata = None
        if not isinstance(metadata, dict):
            raise TraceError("trace '%s' has a metadata block that is not a JSON object" % path)
        out.write(header_line(major, minor, flags, realtime, monotonic, metadata) + "\n")

        offset = 64 + meta_len
        complete = False
        skipped = 0
        while True:
            if complete:
                if f.read(1):
                    raise Corrupt_at(offset, "data after the footer")
                break
            ch = f.read(32)
            if not ch:
                err.write("%s: warning: trace '%s' is incomplete: it ends at byte offset %d "
                          "without a footer\n" % (PROG, path, offset))
                break
            if len(ch) < 32:
                err.write("%s: warning: trace '%s' is incomplete: torn chunk header at byte "
                          "offset %d (%d of 32 bytes)\n" % (PROG, path, offset, len(ch)))
                break
            magic, cflags, plen, nrec, base_ns, pcrc, hcrc = struct.unpack("<IIIIQII", ch)
            if magic != CHUNK_MAGIC:
                raise Corrupt_at(offset, "bad chunk magic")
            if crc32c(ch[:28]) != hcrc:
                raise Corrupt_at(offset, "chunk header checksum mismatch")
            if plen > CHUNK_MAX_PAYLOAD:
                raise Corrupt_at(offset, "chunk of %d bytes exceeds the limit" % plen)
            payload = f.read(plen)
            if len(payload) < plen:
                err.write("%s: warning: trace '%s' is incomplete: torn chunk at byte offset "
                          "%d (%d of %d bytes)\n" % (PROG, path, offset, len(payload), plen))
                break
            if crc32c(payload) != pcrc:
                raise Corrupt_at(offset, "chunk checksum mismatch")
            dec = ChunkDecoder(payload, base_ns)
            while True:
                try:
                    r = dec.next()
                except Corrupt as e:
                    raise Corrupt_at(offset, str(e))
                if r is None:
                    break
                op, line = r
                if op == FOOTER:
                    if not cflags & CHUNK_FOOTER:
                        raise Corrupt_at(offset, "footer record outside the footer chunk")
                    complete = True
                out.write(line + "\n")
            skipped += dec.skipped
            if dec.nrec != nrec:
                raise Corrupt_at(offset, "chunk holds %d records, its header says %d"
                                 % (dec.nrec, nrec))
            if cflags & CHUNK_FOOTER and not complete:
                raise Corrupt_at(offset, "footer chunk without a footer")
            offset += 32 + plen
        if skipped:
            err.write("%s: warning: %d records of unknown types were skipped\n"
                      % (PROG, skipped))
    return 0


class Corrupt_at(TraceError):
    def __init__(self, offset, what):
        TraceError.__init__(self, "corrupt at byte offset %d: %s" % (offset, what))
        self.offset = offset


def main(argv):
    args = argv[1:]
    quiet = False
    if args and args[0] == "-q":
        quiet = True
        args = args[1:]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        sys.stderr.write("usage: %s [-q] TRACE\n" % PROG)
        return 2
    path = args[0]

    class Sink:
        def __init__(self):
            self.parts = []

        def write(self, s):
            self.parts.append(s)
            if len(self.parts) >= 4096:
                self.flush()

        def flush(self):
            sys.stdout.buffer.write("".join(self.parts).encode("utf-8"))
            self.parts = []

    out = Sink()
    err = open("/dev/null", "w") if quiet else sys.stderr
    status = 1
    try:
        status = read_trace(path, out, err)
    except Corrupt_at as e:
        sys.stderr.write("%s: error: trace '%s' is %s\n" % (PROG, path, e))
    except TraceError as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, e))
    except OSError as e:
        sys.stderr.write("%s: error: cannot read trace '%s': %s\n" % (PROG, path, e))
    finally:
        out.flush()
        sys.stdout.buffer.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
