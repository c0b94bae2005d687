#!/usr/bin/env python3
"""replay-syscalls.py: the trace of t2160 and the system calls its replay must issue.

  replay-syscalls.py gen OUT.jsonl     writes the trace (JSON Lines)
  replay-syscalls.py check STRACE.log  checks the replay's worker threads
                                       issued exactly CALLS below, in order,
                                       with the flags, sizes and offsets the
                                       trace holds (strace -f -y output)
  replay-syscalls.py app DIR           the same kinds of calls made for real
                                       in DIR (to be recorded)
  replay-syscalls.py compare APP.log APPDIR REPLAY.log REPLAYDIR
                                       the app's calls beneath APPDIR and the
                                       replay's beneath REPLAYDIR must be the
                                       same, in order (fsync, fdatasync, opens'
                                       flags, fallocate, copy_file_range,
                                       renameat2, xattrs)

One description, so that what is written and what is checked cannot drift.
The flag names are strace's, decoded here from the numbers in the trace by
this file's own tables, not by fstap's.
"""
import json
import os
import re
import sys

O = dict(O_WRONLY=0o1, O_RDWR=0o2, O_CREAT=0o100, O_EXCL=0o200, O_TRUNC=0o1000,
         O_APPEND=0o2000, O_DSYNC=0o10000, O_DIRECT=0o40000, O_DIRECTORY=0o200000,
         O_NOATIME=0o1000000, O_SYNC=0o4010000)
# what an open's flags must say about the recorded call (the access mode and
# the flags that change behaviour); the replay adds O_NOFOLLOW, O_CLOEXEC, ...
BEHAVIOUR = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_CREAT", "O_EXCL", "O_TRUNC", "O_APPEND",
             "O_DSYNC", "O_SYNC", "O_DIRECT", "O_NOATIME"}
FALLOC = {0: "0", 0x01: "FALLOC_FL_KEEP_SIZE", 0x03: "FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE",
          0x10: "FALLOC_FL_ZERO_RANGE"}
RENAME = {0: "0", 1: "RENAME_NOREPLACE", 2: "RENAME_EXCHANGE"}
XATTR = {0: "0", 1: "XATTR_CREATE", 2: "XATTR_REPLACE"}

# The initial tree: name -> (obj, size); obj 1 is the root, "d" a directory.
FILES = {"a": (3, 8192), "b": (4, 8192), "c": (5, 8192), "x": (6, 8192)}
DIR_D = 2

RECORDS = []        # the trace's operations
CALLS = []          # what the replay must issue for them, in order


def flag_names(f):
    """An open's flags as strace names them, those of BEHAVIOUR only."""
    out = {("O_RDONLY", "O_WRONLY", "O_RDWR")[f & 3]}
    for n in ("O_CREAT", "O_EXCL", "O_TRUNC", "O_APPEND", "O_DIRECT", "O_NOATIME"):
        if f & O[n]:
            out.add(n)
    if f & O["O_SYNC"] == O["O_SYNC"]:
        out.add("O_SYNC")
    elif f & O["O_DSYNC"]:
        out.add("O_DSYNC")
    return frozenset(out)


def rec(op, **f):
    RECORDS.append(dict(op=op, **f))


def call(*c):
    CALLS.append(c)


def build():
    fh = iter(range(1, 1000))

    def opened(name, flags):
        h = next(fh)
        rec("open", obj=FILES[name][0], flags=flags, fh=h)
        call("openat", name, flag_names(flags))
        return h

    def write(name, h, size, off):
        rec("write", res=size, obj=FILES[name][0], fh=h, size=size, offset=off)
        call("pwrite64", name, size, off)

    def read(name, h, size, off):
        rec("read", res=size, obj=FILES[name][0], fh=h, size=size, offset=off)
        call("pread64", name, size, off)

    a, b, c, x = (FILES[n][0] for n in "abcx")
    # synchronous and direct opens (no fsync after them: the application made none)
    h = opened("a", O["O_RDWR"] | O["O_SYNC"]); write("a", h, 4096, 0)
    rec("release", obj=a, fh=h)
    h = opened("b", O["O_WRONLY"] | O["O_DSYNC"]); write("b", h, 100, 8192)
    rec("release", obj=b, fh=h)
    h = opened("c", O["O_DIRECT"]); read("c", h, 4096, 4096)
    rec("release", obj=c, fh=h)
    h = opened("x", O["O_NOATIME"]); read("x", h, 512, 0)
    rec("release", obj=x, fh=h)
    h = opened("x", O["O_WRONLY"] | O["O_APPEND"]); write("x", h, 10, 8192)
    rec("release", obj=x, fh=h)
    h = opened("x", O["O_WRONLY"] | O["O_TRUNC"])
    rec("release", obj=x, fh=h)
    # a create with O_EXCL and O_DSYNC
    hn = next(fh)
    flags = O["O_WRONLY"] | O["O_CREAT"] | O["O_EXCL"] | O["O_DSYNC"]
    rec("create", obj=1, name="n", mode=0o100640, umask=0o22, flags=flags, child=7, fh=hn)
    call("openat", "n", flag_names(flags) | {"0640"})
    rec("release", obj=7, fh=hn)
    # the application's own fsync and fdatasync, fallocate modes, copy_file_range
    hx = opened("x", O["O_RDWR"]); write("x", hx, 4096, 0)
    rec("fsync", obj=x, fh=hx)
    call("fsync", "x")
    rec("fdatasync", obj=x, fh=hx)
    call("fdatasync", "x")
    for mode, off, size in ((0, 0, 65536), (0x01, 65536, 4096), (0x03, 0, 4096),
                            (0x10, 4096, 4096)):
        rec("fallocate", obj=x, fh=hx, flags=mode, offset=off, size=size)
        call("fallocate", "x", FALLOC[mode], off, size)
    hc = opened("c", 0)
    rec("copy_file_range", res=4096, obj=c, fh=hc, offset=0, obj2=x, fh2=hx, offset2=8192,
        size=4096, flags=0)
    call("copy_file_range", "c", 0, "x", 8192, 4096)
    rec("release", obj=c, fh=hc)
    rec("release", obj=x, fh=hx)
    # a directory's fsync and fdatasync
    hd = next(fh)
    rec("opendir", obj=DIR_D, flags=O["O_DIRECTORY"], fh=hd)
    call("openat", "d", frozenset({"O_RDONLY"}))
    rec("fsyncdir", obj=DIR_D, fh=hd, flags=0)
    call("fsync", "d")
    rec("fsyncdir", obj=DIR_D, fh=hd, flags=1)
    call("fdatasync", "d")
    rec("releasedir", obj=DIR_D, fh=hd)
    # rename flags
    rec("rename", obj=1, name="a", newparent=1, newname="a2", flags=1)
    call("renameat2", "a", "a2", RENAME[1])
    rec("rename", obj=1, name="b", newparent=1, newname="c", flags=2)
    call("renameat2", "b", "c", RENAME[2])
    # xattrs (of a, now a2)
    rec("setxattr", obj=a, name="user.k", size=5, flags=1)
    call("lsetxattr", "a2", "user.k", 5, XATTR[1])
    rec("getxattr", res=5, obj=a, name="user.k", size=64)
    call("lgetxattr", "a2", "user.k", 64)
    rec("listxattr", res=7, obj=a, size=256)
    call("llistxattr", "a2", 256)
    rec("setxattr", obj=a, name="user.k", size=3, flags=2)
    call("lsetxattr", "a2", "user.k", 3, XATTR[2])
    rec("removexattr", obj=a, name="user.k")
    call("lremovexattr", "a2", "user.k")


def gen(path):
    with open(path, "w") as out:
        w = lambda o: out.write(json.dumps(o) + "\n")
        w({"fstap": "trace", "version": "1.0", "metadata": {"note": "t2160"}})
        w({"op": "process", "pid": 100, "comm": "app", "t": 0})
        w({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 3, "ino": 2})
        w({"op": "state_dentry", "obj": 1, "name": "d", "child": DIR_D})
        w({"op": "state_inode", "obj": DIR_D, "mode": 0o40755, "nlink": 2, "ino": 10})
        for name, (obj, size) in sorted(FILES.items()):
            w({"op": "state_dentry", "obj": 1, "name": name, "child": obj})
            w({"op": "state_inode", "obj": obj, "mode": 0o100644, "nlink": 1, "size": size,
               "ino": 10 + obj, "extents": [[0, size]]})
        t = 1000
        for r in RECORDS:
            t += 1000
            w(dict(t=t, dur=100, tid=100, pid=100, **r))
        w({"op": "footer", "t": t + 1000})


FD = r"\d+<([^>]*)>"
PARSE = {
    "openat": re.compile(r'openat\(' + FD + r', "([^"]*)", ([A-Z_|]+)(?:, (\d+))?\)'),
    "pwrite64": re.compile(r'pwrite64\(' + FD + r', .*, (\d+), (\d+)\)'),
    "pread64": re.compile(r'pread64\(' + FD + r', .*, (\d+), (\d+)\)'),
    "fsync": re.compile(r'fsync\(' + FD + r'\)'),
    "fdatasync": re.compile(r'fdatasync\(' + FD + r'\)'),
    "fallocate": re.compile(r'fallocate\(' + FD + r', ([A-Z_|0-9]+), (\d+), (\d+)\)'),
    "copy_file_range": re.compile(r'copy_file_range\(' + FD + r', \[(\d+)\], ' + FD +
                                  r', \[(\d+)\], (\d+), 0\)'),
    "renameat2": re.compile(r'renameat2\(' + FD + r', "([^"]*)", ' + FD + r', "([^"]*)", ([A-Z_|0-9]+)\)'),
    "lsetxattr": re.compile(r'lsetxattr\("([^"]*)", "([^"]*)", .*, (\d+), ([A-Z_0-9]+)\)'),
    "lgetxattr": re.compile(r'lgetxattr\("([^"]*)", "([^"]*)", .*, (\d+)\)'),
    "llistxattr": re.compile(r'llistxattr\("([^"]*)", .*, (\d+)\)'),
    "lremovexattr": re.compile(r'lremovexattr\("([^"]*)", "([^"]*)"\)'),
}
CALL = re.compile(r"^(\d+) +([a-z0-9_]+)\((.*)$")


def replay_lines(lines):
    """The replay's own calls in a strace -f log (fchdir traced): its
    workers' (every thread but the first, the main one), and the main
    thread's while it runs operations itself: from its O_PATH open of ".",
    where it keeps its working directory, to its fchdir back there."""
    main, cwd_fd = None, None
    for line in lines:
        m = re.match(r"^(\d+) ", line)
        if not m:
            continue
        if main is None:
            main = m.group(1)
        if m.group(1) == main:
            if cwd_fd is None:
                k = re.search(r'"\.", [A-Z_|]*O_PATH[A-Z_|]*\) = (\d+)', line)
                cwd_fd = k.group(1) if k else None
                continue
            if re.search(r"fchdir\(%s<" % cwd_fd, line):
                cwd_fd = None
                continue
        yield line


def issued(log):
    """The replay's calls (replay_lines)."""
    out = []
    for line in replay_lines(open(log, errors="replace")):
        m = CALL.match(line)
        if not m:
            continue
        pid, name = m.group(1), m.group(2)
        if name not in PARSE:
            continue
        body = line[len(pid):].strip()
        p = PARSE[name].match(body)
        if not p:
            out.append(("unparsed", body))
            continue
        g = p.groups()
        base = lambda s: os.path.basename(s)
        if name == "openat":
            flags = set(g[2].split("|"))
            if "O_PATH" in flags:
                continue        # the replay's own path walk
            key = (name, g[1], frozenset(flags & BEHAVIOUR) | ({g[3]} if g[3] else set()))
            if "O_NOFOLLOW" not in flags:
                out.append(("unconfined", body))
        elif name in ("pwrite64", "pread64"):
            key = (name, base(g[0]), int(g[1]), int(g[2]))
        elif name in ("fsync", "fdatasync"):
            key = (name, base(g[0]))
        elif name == "fallocate":
            key = (name, base(g[0]), g[1], int(g[2]), int(g[3]))
        elif name == "copy_file_range":
            key = (name, base(g[0]), int(g[1]), base(g[2]), int(g[3]), int(g[4]))
        elif name == "renameat2":
            key = (name, g[1], g[3], g[4])
        elif name in ("lsetxattr",):
            key = (name, g[0], g[1], int(g[2]), g[3])
        elif name == "lgetxattr":
            key = (name, g[0], g[1], int(g[2]))
        elif name == "llistxattr":
            key = (name, g[0], int(g[1]))
        else:
            key = (name,) + g
        out.append(key)
    return out


def first_difference(a, b, what_a, what_b):
    """Prints where the call lists a and b part; returns 1."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    print("%s: %d calls, %s: %d; the first difference, at %d:" % (what_a, len(a), what_b, len(b), n))
    print("  %s: %s" % (what_a, a[n:n + 3]))
    print("  %s: %s" % (what_b, b[n:n + 3]))
    return 1


def check(log):
    got = issued(log)
    want = [tuple(c) for c in CALLS]
    return 0 if got == want else first_difference(got, want, "the replay", "the trace")


def app(root):
    """Each kind of call of CALLS, made by an application (no synchronous
    write: the kernel's own fsync after one is another matter)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    p = lambda n: os.path.join(root, n)
    off = ctypes.c_long

    def falloc(fd, mode, o, n):
        if libc.fallocate(fd, mode, off(o), off(n)):
            sys.exit("fallocate: %s" % os.strerror(ctypes.get_errno()))

    def rename(a, b, flags):
        if libc.renameat2(-100, p(a).encode(), -100, p(b).encode(), flags):
            sys.exit("renameat2: %s" % os.strerror(ctypes.get_errno()))

    fd = os.open(p("a"), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    os.pwrite(fd, b"x" * 8192, 0)
    os.fsync(fd)
    os.fdatasync(fd)
    falloc(fd, 0, 0, 65536)
    falloc(fd, 0x01, 65536, 4096)
    falloc(fd, 0x03, 0, 4096)
    falloc(fd, 0x10, 4096, 4096)
    fd2 = os.open(p("b"), os.O_WRONLY | os.O_CREAT | os.O_DSYNC, 0o640)
    os.copy_file_range(fd, fd2, 4096, 0, 0)
    os.close(fd2)
    os.close(fd)
    for flags in (os.O_RDONLY | os.O_DIRECT, os.O_RDONLY | os.O_NOATIME,
                  os.O_WRONLY | os.O_APPEND, os.O_WRONLY | os.O_TRUNC, os.O_RDWR | os.O_SYNC):
        os.close(os.open(p("a"), flags))
    d = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(d)
    os.fdatasync(d)
    os.close(d)
    rename("a", "a2", 1)
    rename("a2", "b", 2)
    os.setxattr(p("b"), "user.k", b"hello", os.XATTR_CREATE)
    os.getxattr(p("b"), "user.k")
    os.listxattr(p("b"))
    os.setxattr(p("b"), "user.k", b"abc", os.XATTR_REPLACE)
    os.removexattr(p("b"), "user.k")


XATTR_CALLS = ("setxattr", "getxattr", "listxattr", "removexattr")
ANY_CALL = re.compile(r'^(\d+) +(openat|fsync|fdatasync|fallocate|copy_file_range|renameat2|'
                      r'[lf]?(?:set|get|list|remove)xattr)\((.*)\) += (-?\d+)')
# An argument: an fd with its path (-y), a string, a [number], a word (a
# flag, a number, AT_FDCWD with its path, which the word takes in whole).
ARG = re.compile(r'(\d+)<([^>]*)>|"([^"]*)"|\[(\d+)\]|([A-Z_|0-9]+)(?:<[^>]*>)?')


def normalized(log, root, skip_main):
    """Each call beneath root, the way both an application and the replay
    name it: paths relative to root, fds as the path they are open on, the
    behaviour flags of opens; the xattr calls without their l/f prefix."""
    root = os.path.realpath(root)
    rel = lambda path: os.path.relpath(os.path.join(cwd, path), root)
    out = []
    cwd = root
    lines = open(log, errors="replace")
    for line in replay_lines(lines) if skip_main else lines:
        m = ANY_CALL.match(line)
        if not m:
            continue
        pid, name, args, res = m.groups()
        toks = []
        for a in ARG.finditer(args):
            fd_path, string, ptr, word = a.group(2), a.group(3), a.group(4), a.group(5)
            toks.append(("fd", fd_path) if fd_path is not None else ("s", string)
                        if string is not None else ("n", ptr) if ptr is not None else ("w", word))
        def path_of(i):
            kind, v = toks[i]
            return os.path.relpath(v, root) if kind == "fd" else v
        beneath = lambda r: not r.startswith("..")
        if name == "openat":
            dirp = toks[0][1] if toks[0][0] == "fd" else ""
            full = os.path.normpath(os.path.join(dirp, toks[1][1]))
            r = os.path.relpath(full, root)
            flags = set(toks[2][1].split("|"))
            if not beneath(r) or "O_PATH" in flags:
                continue
            out.append((name, r, tuple(sorted(flags & BEHAVIOUR))))
        elif name in ("fsync", "fdatasync"):
            r = path_of(0)
            if beneath(r):
                out.append((name, r))
        elif name == "fallocate":
            r = path_of(0)
            if beneath(r):
                out.append((name, r) + tuple(t[1] for t in toks[1:4]))
        elif name == "copy_file_range":
            if beneath(path_of(0)):
                out.append((name, path_of(0), toks[1][1], path_of(2), toks[3][1], toks[4][1]))
        elif name == "renameat2":
            a = os.path.relpath(os.path.join(toks[0][1], toks[1][1]), root) \
                if toks[0][0] == "fd" else os.path.relpath(toks[1][1], root)
            b = os.path.relpath(os.path.join(toks[2][1], toks[3][1]), root) \
                if toks[2][0] == "fd" else os.path.relpath(toks[3][1], root)
            if beneath(a):
                out.append((name, a, b, toks[4][1]))
        else:
            base = name[1:] if name[1:] in XATTR_CALLS else name
            kind, target = toks[0]
            if kind == "fd" or os.path.isabs(target):
                if not beneath(os.path.relpath(target, root)):
                    continue
            key = os.path.basename(target)
            # the values are left out (the trace keeps their sizes only)
            if base == "setxattr":
                out.append((base, key, toks[1][1], toks[-2][1], toks[-1][1], res))
            elif base == "getxattr":
                out.append((base, key, toks[1][1], toks[-1][1], res))
            elif base == "listxattr":
                out.append((base, key, toks[-1][1], res))
            else:
                out.append((base, key, toks[1][1], res))
    return out


def compare(app_log, app_root, replay_log, replay_root):
    a = normalized(app_log, app_root, False)
    r = normalized(replay_log, replay_root, True)
    if len(a) < 20:
        print("only %d calls of the application were seen: %s" % (len(a), a))
        return 1
    return 0 if a == r else first_difference(a, r, "the application", "the replay")


build()
if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    elif sys.argv[1] == "app":
        app(sys.argv[2])
    elif sys.argv[1] == "compare":
        sys.exit(compare(*sys.argv[2:6]))
    else:
        sys.exit("usage: replay-syscalls.py gen OUT.jsonl | check STRACE.log")
