#!/bin/sh
# t1070: POSIX edge cases behave through the mount exactly as on the backing
# file system, results and errno included, for root and for a non-root user:
# rename flags (NOREPLACE, EXCHANGE, WHITEOUT), copy_file_range, SEEK_DATA/
# SEEK_HOLE, every fallocate mode, O_DIRECT, O_APPEND, O_TRUNC, O_EXCL,
# UTIME_NOW/UTIME_OMIT, ctime/mtime updates, xattrs in every namespace on
# files, directories, symlinks and FIFOs, a file unlinked while open (after
# its cached descriptor was evicted), hard links across directories, paths
# near PATH_MAX and 255-byte names. One probe script runs natively and
# through the mount; the outputs must be identical. The backing file system
# is a small loop-mounted ext4 (it supports COLLAPSE_RANGE and INSERT_RANGE).
# FSTAP_T1070_CACHE: the --cache modes to try (default: calls all direct;
# --cache=kernel differs by design: cached st_blocks, truncate to the same size).
. "$(dirname "$0")/lib-record.sh"
need_fuse
command -v setpriv >/dev/null 2>&1 || skip "setpriv is missing (util-linux)"
command -v mkfs.ext4 >/dev/null 2>&1 || skip "mkfs.ext4 is missing (e2fsprogs)"
command -v losetup >/dev/null 2>&1 || skip "losetup is missing (util-linux)"

U=65534
G=65534
LOOP=""
chmod 755 "$T"
mkdir "$T/b" "$T/m"

test_cleanup_extra() {
	rec_cleanup
	if is_mounted "$T/b"; then umount "$T/b" 2>/dev/null || umount -l "$T/b" || true; fi
	if [ -n "$LOOP" ]; then losetup -d "$LOOP" 2>/dev/null || true; fi
}

truncate -s 256M "$T/ext4.img"
mkfs.ext4 -q -F -N 40000 -b 4096 "$T/ext4.img" || skip "mkfs.ext4 failed"
LOOP=$(losetup -f --show "$T/ext4.img" 2>/dev/null) || skip "no loop device"
mount -t ext4 "$LOOP" "$T/b" || skip "cannot mount ext4 on $LOOP"
chmod 755 "$T/b"

as_user() { setpriv --reuid=$U --regid=$G --clear-groups "$@"; }

# shared/: objects owned by root that the user probes (what it may not do)
setup_shared() {
	d=$1/u/shared
	mkdir -p "$1/r" "$1/u"
	chown $U:$G "$1/u"
	mkdir "$d" "$d/rootdir" "$d/userdir"
	echo data >"$d/rootfile"
	chmod 666 "$d/rootfile"
	echo ro >"$d/rofile"
	ln -s rootfile "$d/rootlink"
	echo w >"$d/userdir/wf"
	chown -R $U:$G "$d/userdir"
	for o in rootfile rootdir; do
		for a in user.r trusted.r security.r; do
			setfattr -n $a -v root "$d/$o"
		done
	done
	setfattr -h -n trusted.r -v root "$d/rootlink"
}

PROBE="$T/probe.py"
cat >"$PROBE" <<'PY'
#!/usr/bin/python3
# probe.py DIR MODE: POSIX edge checks in DIR (created, must not exist),
# one canonical line per check; MODE is root or user. Nothing printed may
# depend on inode numbers, devices or absolute paths.
import ctypes, errno, hashlib, mmap, os, stat, sys, time

base, mode = sys.argv[1], sys.argv[2]
root = mode == "root"
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
AT_FDCWD = -100
RENAME_NOREPLACE, RENAME_EXCHANGE, RENAME_WHITEOUT = 1, 2, 4
FL = {"KEEP_SIZE": 1, "PUNCH_HOLE": 2, "COLLAPSE_RANGE": 8, "ZERO_RANGE": 16, "INSERT_RANGE": 32}

def out(name, *vals):
    print(name, *vals, flush=True)

def en(e):
    return errno.errorcode.get(e.errno, str(e.errno))

def run(name, fn, *a, **kw):
    try:
        r = fn(*a, **kw)
        return "ok" if r is None else r
    except OSError as e:
        return en(e)

def check(name, fn, *a, **kw):
    out(name, run(name, fn, *a, **kw))

def cerr(r):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r

def renameat2(a, b, flags):
    cerr(libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), flags))

def fallocate(fd, m, off, ln):
    cerr(libc.fallocate(fd, m, off, ln))

def put(p, data, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC):
    fd = os.open(p, flags, 0o644)
    os.write(fd, data)
    os.close(fd)

def get(p):
    with open(p, "rb") as f:
        return f.read()

def h(b):
    return hashlib.sha1(b).hexdigest()[:12]

def desc(p):
    try:
        s = os.lstat(p)
    except OSError as e:
        return en(e)
    r = "mode=%o nlink=%d size=%d" % (s.st_mode, s.st_nlink, s.st_size)
    if stat.S_ISCHR(s.st_mode):
        r += " rdev=%d,%d" % (os.major(s.st_rdev), os.minor(s.st_rdev))
    if stat.S_ISREG(s.st_mode):
        r += " data=" + h(get(p))
    return r

def tick():
    time.sleep(0.02)

os.mkdir(base)
os.chdir(base)
pat = bytes(range(256)) * 256   # 64 KiB

# ---- rename flags
put("ra", b"A"); put("rb", b"B")
check("rename.noreplace.exists", renameat2, "ra", "rb", RENAME_NOREPLACE)
check("rename.noreplace.new", renameat2, "ra", "rc", RENAME_NOREPLACE)
out("rename.noreplace.after", desc("ra"), "|", desc("rc"))
check("rename.exchange", renameat2, "rb", "rc", RENAME_EXCHANGE)
out("rename.exchange.after", desc("rb"), "|", desc("rc"))
check("rename.exchange.missing", renameat2, "rb", "nothere", RENAME_EXCHANGE)
check("rename.exchange+noreplace", renameat2, "rb", "rc", RENAME_EXCHANGE | RENAME_NOREPLACE)
os.mkdir("rd1"); os.mkdir("rd2"); put("rd2/x", b"x")
check("rename.exchange.dirs", renameat2, "rd1", "rd2", RENAME_EXCHANGE)
out("rename.exchange.dirs.after", sorted(os.listdir("rd1")), sorted(os.listdir("rd2")))
put("rw", b"W")
check("rename.whiteout", renameat2, "rw", "rw2", RENAME_WHITEOUT)
out("rename.whiteout.after", desc("rw"), "|", desc("rw2"))
check("rename.whiteout+exchange", renameat2, "rw2", "rb", RENAME_WHITEOUT | RENAME_EXCHANGE)
check("rename.badflag", renameat2, "rb", "rc", 64)

# ---- copy_file_range
put("cs", pat * 2)
put("cd", b"")
fi, fo = os.open("cs", os.O_RDONLY), os.open("cd", os.O_RDWR)
check("cfr.copy", os.copy_file_range, fi, fo, 50000, 1000, 3000)
check("cfr.eof", os.copy_file_range, fi, fo, 100, len(pat) * 2 + 10, 0)
libc.copy_file_range.restype = ctypes.c_ssize_t
check("cfr.badflags", lambda: cerr(libc.copy_file_range(fi, None, fo, None, ctypes.c_size_t(10), ctypes.c_uint(1))))
fr = os.open("cs", os.O_RDONLY)
check("cfr.to_rdonly", os.copy_file_range, fi, fr, 10, 0, 0)
os.close(fr)
os.close(fi); os.close(fo)
out("cfr.result", desc("cd"), (get("cd")[3000:53000] == (pat * 2)[1000:51000]))

# ---- SEEK_DATA / SEEK_HOLE
fd = os.open("sp", os.O_RDWR | os.O_CREAT, 0o644)
os.pwrite(fd, b"d" * 4096, 1 << 20)
os.pwrite(fd, b"e" * 8192, 3 << 20)
os.ftruncate(fd, 8 << 20)
os.fsync(fd)
for name, off, wh in [("data0", 0, os.SEEK_DATA), ("hole0", 0, os.SEEK_HOLE),
                      ("data1m", 1 << 20, os.SEEK_DATA), ("hole1m", 1 << 20, os.SEEK_HOLE),
                      ("data2m", 2 << 20, os.SEEK_DATA), ("hole3m", 3 << 20, os.SEEK_HOLE),
                      ("data5m", 5 << 20, os.SEEK_DATA), ("hole5m", 5 << 20, os.SEEK_HOLE),
                      ("data_eof", 8 << 20, os.SEEK_DATA), ("hole_eof", 8 << 20, os.SEEK_HOLE),
                      ("data_past", 9 << 20, os.SEEK_DATA), ("end", -10, os.SEEK_END),
                      ("neg", -1, os.SEEK_SET)]:
    check("lseek." + name, os.lseek, fd, off, wh)
os.close(fd)

# ---- fallocate modes (block-aligned, 4 KiB blocks)
B = 4096
def falloc_case(name, m, off, ln, size=16 * B):
    p = "fa_" + name
    fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, (pat * 2)[:size])
    os.fsync(fd)
    r = run(name, fallocate, fd, m, off, ln)
    os.fsync(fd)
    s = os.fstat(fd)
    data = os.pread(fd, s.st_size + 10, 0)
    holes = os.lseek(fd, 0, os.SEEK_HOLE)
    os.close(fd)
    out("fallocate." + name, r, "size=%d blocks=%d data=%s firsthole=%d" % (s.st_size, s.st_blocks, h(data), holes))
falloc_case("default", 0, 16 * B, 4 * B)
falloc_case("keep_size", FL["KEEP_SIZE"], 16 * B, 4 * B)
falloc_case("punch", FL["PUNCH_HOLE"] | FL["KEEP_SIZE"], 4 * B, 2 * B)
falloc_case("punch_nokeep", FL["PUNCH_HOLE"], 4 * B, 2 * B)
falloc_case("zero", FL["ZERO_RANGE"], 2 * B, 3 * B)
falloc_case("zero_keep", FL["ZERO_RANGE"] | FL["KEEP_SIZE"], 14 * B, 4 * B)
falloc_case("collapse", FL["COLLAPSE_RANGE"], 4 * B, 4 * B)
falloc_case("collapse_unaligned", FL["COLLAPSE_RANGE"], 100, 4 * B)
falloc_case("insert", FL["INSERT_RANGE"], 4 * B, 4 * B)
falloc_case("insert_unaligned", FL["INSERT_RANGE"], 4 * B, 100)
falloc_case("bogus", 0x400, 0, B)
fd = os.open("fa_default", os.O_RDONLY)
check("fallocate.rdonly", fallocate, fd, 0, 0, B)
os.close(fd)

# ---- O_DIRECT
buf = mmap.mmap(-1, 8192)
buf.write(pat[:8192])
def odirect():
    fd = os.open("od", os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o644)
    try:
        w = os.pwritev(fd, [memoryview(buf)], 0)
        rb = mmap.mmap(-1, 8192)
        r = os.preadv(fd, [rb], 0)
        ok = rb[:] == pat[:8192]
        u = run("", os.pwrite, fd, b"x" * 100, 100)
        return "w=%d r=%d same=%s unaligned=%s" % (w, r, ok, u)
    finally:
        os.close(fd)
check("odirect", odirect)
out("odirect.file", desc("od"))

# ---- O_APPEND, O_TRUNC, O_EXCL
put("ap", b"abc")
fd = os.open("ap", os.O_WRONLY | os.O_APPEND)
os.write(fd, b"def")
os.pwrite(fd, b"ghi", 0)   # Linux: appends anyway
out("oappend.pos", os.lseek(fd, 0, os.SEEK_CUR))
os.close(fd)
out("oappend", get("ap"))
os.utime("ap", (1000000, 1000000))
fd = os.open("ap", os.O_WRONLY | os.O_TRUNC)
s = os.fstat(fd)
os.close(fd)
out("otrunc", s.st_size, "mtime_changed=%s" % (s.st_mtime != 1000000))
check("oexcl.exists", os.open, "ap", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
check("oexcl.dir", os.open, "rd1", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
check("oexcl.symlink", lambda: (os.symlink("nowhere", "sl_excl"), os.close(os.open("sl_excl", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)))[0])
out("oexcl.symlink.after", desc("nowhere"))
fd = run("oexcl.new", os.open, "ex", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
out("oexcl.new", "ok" if isinstance(fd, int) else fd, desc("ex"))
check("otrunc.rdonly", os.open, "ex", os.O_RDONLY | os.O_TRUNC)
out("otrunc.rdonly.after", desc("ex"))

# ---- utimensat
put("ut", b"t")
os.utime("ut", ns=(1111111111222333444, 1222222222333444555))
s = os.stat("ut")
out("utime.set", s.st_atime_ns, s.st_mtime_ns)
t0 = time.time_ns() - 10**9
libc.utimensat.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]
class TS(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]
UTIME_NOW, UTIME_OMIT = (1 << 30) - 1, (1 << 30) - 2
def utimens(p, a, m):
    ts = (TS * 2)(TS(0, a), TS(0, m))
    cerr(libc.utimensat(AT_FDCWD, p.encode(), ctypes.addressof(ts), 0))
def utimes_state(p):
    s = os.stat(p)
    return "atime=%s mtime=%s" % (
        s.st_atime_ns if s.st_atime_ns < t0 else "now", s.st_mtime_ns if s.st_mtime_ns < t0 else "now")
check("utime.omit_now", utimens, "ut", UTIME_OMIT, UTIME_NOW)
out("utime.omit_now.after", utimes_state("ut"))
os.utime("ut", ns=(1111111111222333444, 1222222222333444555))
check("utime.now_omit", utimens, "ut", UTIME_NOW, UTIME_OMIT)
out("utime.now_omit.after", utimes_state("ut"))
os.utime("ut", ns=(1111111111222333444, 1222222222333444555))
check("utime.omit_omit", utimens, "ut", UTIME_OMIT, UTIME_OMIT)
out("utime.omit_omit.after", utimes_state("ut"))
check("utime.null", os.utime, "ut")
out("utime.null.after", utimes_state("ut"))
os.symlink("ut", "ut_link")
os.utime("ut_link", ns=(5, 6), follow_symlinks=False)
s = os.lstat("ut_link")
out("utime.symlink", s.st_atime_ns, s.st_mtime_ns, utimes_state("ut"))

# ---- ctime on chmod/chown, mtime/ctime on truncate
def times(p):
    s = os.lstat(p)
    return s.st_mtime_ns, s.st_ctime_ns
def changed(before, after):
    return "mtime=%s ctime=%s" % ("changed" if after[0] != before[0] else "same",
                                   "changed" if after[1] != before[1] else "same")
put("tm", b"0123456789")
for name, fn in [("chmod", lambda: os.chmod("tm", 0o640)),
                 ("chmod.same", lambda: os.chmod("tm", 0o640)),
                 ("chown.same", lambda: os.chown("tm", os.getuid(), os.getgid())),
                 ("chown.noop", lambda: os.chown("tm", -1, -1)),
                 ("truncate.shrink", lambda: os.truncate("tm", 5)),
                 ("truncate.same", lambda: os.truncate("tm", 5)),
                 ("truncate.grow", lambda: os.truncate("tm", 50)),
                 ("ftruncate.shrink", lambda: (lambda fd: (os.ftruncate(fd, 3), os.close(fd)))(os.open("tm", os.O_WRONLY))),
                 ("ftruncate.same", lambda: (lambda fd: (os.ftruncate(fd, 3), os.close(fd)))(os.open("tm", os.O_WRONLY))),
                 ("write", lambda: put("tm", b"xy", os.O_WRONLY)),
                 ("link", lambda: os.link("tm", "tm_l")),
                 ("setxattr", lambda: os.setxattr("tm", "user.t", b"1"))]:
    b = times("tm")
    tick()
    r = run(name, fn)
    out("times." + name, "ok" if not isinstance(r, str) or r == "ok" else r, changed(b, times("tm")))
if root:
    b = times("tm"); tick()
    os.chown("tm", 1234, 5678)
    out("times.chown.other", changed(b, times("tm")), desc("tm"))
    os.chmod("tm", 0o6755); os.chown("tm", 1234, -1)
    out("chown.clears_suid", "%o" % os.stat("tm").st_mode)
    os.chmod("tm", 0o6755)
    put("tm", b"w", os.O_WRONLY)
    out("write.clears_suid", "%o" % os.stat("tm").st_mode)

# ---- xattrs
put("xf", b"x"); os.mkdir("xd"); os.symlink("xf", "xl")
os.mknod("xfifo", 0o644 | stat.S_IFIFO)
ns = ["user", "trusted", "security"]
for obj in ["xf", "xd", "xl", "xfifo"]:
    for n in ns:
        a = "%s.probe_%s" % (n, obj)
        out("xattr.set", obj, n, run("", os.setxattr, obj, a, b"v-" + obj.encode(), follow_symlinks=False))
        out("xattr.set.create_exists", obj, n, run("", os.setxattr, obj, a, b"w", os.XATTR_CREATE, follow_symlinks=False))
        out("xattr.set.replace_missing", obj, n, run("", os.setxattr, obj, a + "_none", b"w", os.XATTR_REPLACE, follow_symlinks=False))
        out("xattr.get", obj, n, run("", os.getxattr, obj, a, follow_symlinks=False))
        out("xattr.get.missing", obj, n, run("", os.getxattr, obj, a + "_none", follow_symlinks=False))
    out("xattr.list", obj, run("", lambda: sorted(x for x in os.listxattr(obj, follow_symlinks=False) if "probe" in x)))
    for n in ns:
        a = "%s.probe_%s" % (n, obj)
        out("xattr.remove", obj, n, run("", os.removexattr, obj, a, follow_symlinks=False))
        out("xattr.remove.again", obj, n, run("", os.removexattr, obj, a, follow_symlinks=False))
    out("xattr.list.after", obj, run("", lambda: sorted(x for x in os.listxattr(obj, follow_symlinks=False) if "probe" in x)))
out("xattr.follow", run("", os.setxattr, "xl", "user.via_link", b"1"), run("", os.getxattr, "xf", "user.via_link"))
def xsize():
    os.setxattr("xf", "user.big", b"z" * 3000)
    return "%d %s" % (len(os.getxattr("xf", "user.big")), run("", libc_getxattr_small))
def libc_getxattr_small():
    b = ctypes.create_string_buffer(10)
    return cerr(libc.getxattr(b"xf", b"user.big", b, ctypes.c_size_t(10)))
libc.getxattr.restype = ctypes.c_ssize_t
def xsizeq():
    return cerr(libc.getxattr(b"xf", b"user.big", None, ctypes.c_size_t(0)))
out("xattr.size", xsize(), run("", xsizeq))
out("xattr.name_long", run("", os.setxattr, "xf", "user." + "n" * 251, b"1"), run("", os.setxattr, "xf", "user." + "n" * 260, b"1"))
out("xattr.badns", run("", os.setxattr, "xf", "bogus.x", b"1"))
if os.path.exists("../shared"):
    for obj in ["shared/rootfile", "shared/rootdir", "shared/rootlink"]:
        out("xattr.shared.list", obj, run("", lambda: sorted(os.listxattr("../" + obj, follow_symlinks=False))))
        for a in ["user.r", "trusted.r", "security.r"]:
            out("xattr.shared.get", obj, a, run("", os.getxattr, "../" + obj, a, follow_symlinks=False))
            out("xattr.shared.set", obj, a, run("", os.setxattr, "../" + obj, a, b"u", follow_symlinks=False))
            out("xattr.shared.remove", obj, a, run("", os.removexattr, "../" + obj, a, follow_symlinks=False))
    out("shared.chmod", run("", os.chmod, "../shared/rootfile", 0o666))
    out("shared.chown", run("", os.chown, "../shared/rootfile", os.getuid(), -1))
    out("shared.utime.now", run("", os.utime, "../shared/rootfile"))
    out("shared.utime.set", run("", os.utime, "../shared/rootfile", (1, 1)))
    out("shared.utime.omit_now", run("", utimens, "../shared/rootfile", UTIME_OMIT, UTIME_NOW))
    out("shared.utime.omit_omit", run("", utimens, "../shared/rootfile", UTIME_OMIT, UTIME_OMIT))
    out("shared.truncate", run("", os.truncate, "../shared/rootfile", 0))
    out("shared.ro.open_w", run("", lambda: os.close(os.open("../shared/rofile", os.O_WRONLY))))
    out("shared.ro.unlink", run("", os.unlink, "../shared/rofile"))
    out("shared.rename_whiteout", run("", renameat2, "../shared/userdir/wf", "../shared/userdir/wf2", RENAME_WHITEOUT))

# ---- unlinked while open, after the descriptor cache was churned
put("ul", b"hello world")
fdul = os.open("ul", os.O_RDWR)
os.unlink("ul")
os.mkdir("churn")
for i in range(6500):
    os.close(os.open("churn/f%05d" % i, os.O_WRONLY | os.O_CREAT, 0o644))
for i in range(6500):
    os.stat("churn/f%05d" % i)
s = os.fstat(fdul)
out("unlinked.fstat", "nlink=%d size=%d" % (s.st_nlink, s.st_size))
out("unlinked.read", run("", os.pread, fdul, 100, 0))
out("unlinked.write", run("", os.pwrite, fdul, b"WORLD", 6))
out("unlinked.ftruncate", run("", os.ftruncate, fdul, 8))
out("unlinked.fchmod", run("", os.fchmod, fdul, 0o600))
out("unlinked.futimens", run("", os.utime, fdul, (7, 8)))
out("unlinked.fsetxattr", run("", os.setxattr, fdul, "user.u", b"1"))
out("unlinked.fgetxattr", run("", os.getxattr, fdul, "user.u"))
out("unlinked.fallocate", run("", fallocate, fdul, 0, 0, 8192))
s = os.fstat(fdul)
out("unlinked.fstat2", "nlink=%d size=%d mode=%o atime=%d mtime8=%s" % (s.st_nlink, s.st_size, s.st_mode, s.st_atime, s.st_mtime == 8))
out("unlinked.read2", run("", os.pread, fdul, 100, 0))
os.close(fdul)
for i in range(6500):
    os.unlink("churn/f%05d" % i)

# ---- hard links across directories
os.mkdir("hl1"); os.mkdir("hl2")
put("hl1/a", b"linked")
check("link.cross", os.link, "hl1/a", "hl2/b")
out("link.cross.after", desc("hl1/a"), "|", desc("hl2/b"))
put("hl2/b", b"changed", os.O_WRONLY | os.O_TRUNC)
out("link.cross.shared", get("hl1/a"))
check("link.exists", os.link, "hl1/a", "hl2/b")
check("link.dir", os.link, "hl1", "hl2/d")
os.unlink("hl1/a")
out("link.cross.unlinked", desc("hl2/b"))
os.symlink("hl2/b", "hsl")
check("link.symlink", os.link, "hsl", "hl1/sl", follow_symlinks=False)
out("link.symlink.after", desc("hl1/sl"))

# ---- long paths and names
n255 = "N" * 255
check("name.255.create", put, n255, b"255")
out("name.255.stat", desc(n255))
check("name.255.mkdir", os.mkdir, "D" * 255)
check("name.256.create", put, "N" * 256, b"256")
check("name.256.stat", os.stat, "N" * 256)
check("name.255.rename", os.rename, n255, "M" * 255)
check("name.255.symlink", os.symlink, "M" * 255, "S" * 255)
out("name.255.readlink", run("", lambda: len(os.readlink("S" * 255))))
out("name.list", sorted((x[0], len(x)) for x in os.listdir(".") if len(x) > 200))
comp = "p" * 200
path = ""
depth = 0
while len(path) + len(comp) + 1 < 3840:
    path = comp if not path else path + "/" + comp
    depth += 1
path += "/" + "q" * (4095 - len(path) - 1 - 255 - 1)
out("path.mkdirs", run("", os.makedirs, path), depth, len(path))
fp = path + "/" + "f" * 255
out("path.len", len(fp))
check("path.create", put, fp, b"deep")
out("path.stat", desc(fp))
check("path.toolong", put, path + "/" + "g" * 255 + "/x", b"x")
check("path.toolong.dir", os.mkdir, path + "/" + "h" * 255)
check("path.toolong.stat", os.stat, path + "/" + "g" * 200)
def walk_deep():
    n = 0
    for d, ds, fs in os.walk("."):
        n += len(fs)
    return n
out("path.walk", walk_deep())
def deep_chdir():
    cwd = os.open(".", os.O_RDONLY)
    try:
        for c in path.split("/"):
            os.chdir(c)
        for i in range(30):
            os.mkdir(comp); os.chdir(comp)
        put("very_deep", b"v")
        return desc("very_deep")
    finally:
        os.fchdir(cwd); os.close(cwd)
out("path.beyond_path_max", run("", deep_chdir))
out("done")
PY
chmod 644 "$PROBE"

# What the FUSE kernel module itself refuses, before any request reaches the
# recorder: fallocate COLLAPSE_RANGE and INSERT_RANGE (fuse_file_fallocate
# accepts only KEEP_SIZE, PUNCH_HOLE and ZERO_RANGE; EOPNOTSUPP). Such a line
# through the mount is replaced by the native one, with a note, as long as the
# file was left untouched; every other line must match exactly.
kernel_limits() {
	awk 'NR == FNR { if ($1 ~ /^fallocate\.(collapse|insert)/) nat[$1] = $0; next }
	     $1 in nat && $2 == "ENOTSUP" && $0 ~ /size=65536 blocks=128 data=f04977267a39/ {
		print "note: " $1 " refused by the FUSE kernel module (EOPNOTSUPP)" > "/dev/stderr"
		print nat[$1]; next }
	     { print }' "$1" "$2"
}

setup_shared "$T/b/native"
$PY "$PROBE" "$T/b/native/r/p" root >"$T/root.native" 2>"$T/err" ||
	fail "native root probe: $(tail -5 "$T/err")"
as_user $PY "$PROBE" "$T/b/native/u/p" user >"$T/user.native" 2>"$T/err" ||
	fail "native user probe: $(tail -5 "$T/err")"
expect_grep "$T/root.native" "rename.whiteout ok"
expect_grep "$T/root.native" "fallocate.insert ok"
expect_grep "$T/root.native" "xattr.set xl trusted ok"
expect_grep "$T/user.native" "done"

# The recorder's descriptor cache holds about half the descriptor limit: a
# lower limit makes the probe's 6500 other files evict the cached descriptor
# of the file it unlinked while open.
ulimit -Hn 4096 2>/dev/null || ulimit -n 4096
for mode in ${FSTAP_T1070_CACHE:-calls all direct}; do
	rm -rf "$T/b/mnt"
	setup_shared "$T/b/mnt"
	rec_start "$T/m" -q --cache=$mode --snapshot=none -o "$T/t.trace" "$T/b" "$T/m" || exit 1
	$PY "$PROBE" "$T/m/mnt/r/p" root >"$T/root.$mode" 2>"$T/err" ||
		fail "root probe through the mount (--cache=$mode): $(tail -5 "$T/err")"
	as_user $PY "$PROBE" "$T/m/mnt/u/p" user >"$T/user.$mode" 2>"$T/err" ||
		fail "user probe through the mount (--cache=$mode): $(tail -5 "$T/err")"
	fds=$(ls /proc/$REC_PID/fd | wc -l)
	rec_stop "$T/m" || true
	for who in root user; do
		kernel_limits "$T/$who.native" "$T/$who.$mode" >"$T/$who.$mode.cmp"
		diff -u "$T/$who.native" "$T/$who.$mode.cmp" >&2 ||
			fail "$who: results through the mount (--cache=$mode) differ from native"
	done
	[ "$fds" -lt 6000 ] || fail "the recorder held $fds descriptors"
done
finish
