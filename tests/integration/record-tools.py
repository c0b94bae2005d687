#!/usr/bin/env python3
"""record-tools.py: helpers for the recorder's integration tests.

  workload DIR [FORBIDDEN_DIR]  run the scripted workload in DIR, print one
                                line per step: "step result" (ok, a value, or
                                the errno name); with FORBIDDEN_DIR also try
                                what a non-owner may not do there
  tree DIR [--replayed]         print the tree below DIR: path, type, mode,
                                owner, link count, size, content hash, xattrs
                                (names and values; not xfs's own copies of
                                the ACLs, trusted.SGI_ACL_*), link target; --replayed:
                                what a replay reproduces, without the content
                                hashes (replay writes other bytes) and the
                                link counts of directories (each file system
                                counts its own)
  ops JSONL PID [OPS...]        print "op name res" for the operation records
                                of process PID that are not kernel-flagged, in
                                time order (only OPS if given)
  count JSONL OP                print how many records have op OP
  threads DIR N M               N threads each create/write/close M files:
                                N*M creates exactly
  churn DIR N SECS SEED         N threads for SECS seconds, each in its own
                                directory: create, write, close, rename,
                                unlink, stat and read files other threads
                                published, append to a log kept open for
                                many iterations; seeded, no readdir
"""
import ctypes
import errno
import hashlib
import json
import os
import random
import stat
import sys
import threading
import time


def step(name, fn):
    try:
        r = fn()
        print(name, "ok" if r is None else r, flush=True)
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, str(e.errno)), flush=True)


def workload(root, forbidden=None):
    p = lambda *a: os.path.join(root, *a)
    libc = ctypes.CDLL(None, use_errno=True)

    def fallocate(path, mode, off, length):
        fd = os.open(path, os.O_RDWR)
        try:
            if libc.fallocate(fd, mode, ctypes.c_long(off), ctypes.c_long(length)) != 0:
                e = ctypes.get_errno()
                raise OSError(e, os.strerror(e))
        finally:
            os.close(fd)

    def create_write():
        fd = os.open(p("d", "f"), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
        os.write(fd, b"hello world\n" * 100)
        os.fsync(fd)
        os.close(fd)

    def read_back():
        fd = os.open(p("d", "f"), os.O_RDONLY)
        data = os.read(fd, 65536)
        os.close(fd)
        return len(data)

    def fsync_dir():
        fd = os.open(p("d"), os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(fd)
        os.close(fd)

    step("mkdir", lambda: os.mkdir(p("d"), 0o755))
    step("mkdir_again", lambda: os.mkdir(p("d"), 0o755))
    step("create_write", create_write)
    step("read", read_back)
    step("stat_missing", lambda: os.stat(p("d", "missing")))
    step("rename", lambda: os.rename(p("d", "f"), p("d", "g")))
    step("link", lambda: os.link(p("d", "g"), p("d", "h")))
    step("symlink", lambda: os.symlink("g", p("d", "s")))
    step("readlink", lambda: os.readlink(p("d", "s")))
    step("chmod", lambda: os.chmod(p("d", "g"), 0o600))
    step("truncate", lambda: os.truncate(p("d", "g"), 5000))
    step("utime", lambda: os.utime(p("d", "g"), ns=(1000000000123456789, 1000000000987654321)))
    step("setxattr", lambda: os.setxattr(p("d", "g"), "user.k", b"v1", os.XATTR_CREATE))
    step("setxattr_again", lambda: os.setxattr(p("d", "g"), "user.k", b"v2", os.XATTR_CREATE))
    step("setxattr_dir", lambda: os.setxattr(p("d"), "user.dir", b"yes"))
    step("getxattr", lambda: os.getxattr(p("d", "g"), "user.k").decode())
    step("getxattr_missing", lambda: os.getxattr(p("d", "g"), "user.none"))
    step("listxattr", lambda: ",".join(sorted(os.listxattr(p("d", "g")))))
    step("removexattr", lambda: os.removexattr(p("d", "g"), "user.k"))
    step("removexattr_again", lambda: os.removexattr(p("d", "g"), "user.k"))
    step("fallocate", lambda: fallocate(p("d", "g"), 0, 0, 16384))
    step("punch_hole", lambda: fallocate(p("d", "g"), 3, 4096, 4096))
    step("fsyncdir", fsync_dir)
    step("listdir", lambda: ",".join(sorted(os.listdir(p("d")))))
    step("rmdir_notempty", lambda: os.rmdir(p("d")))
    step("unlink_h", lambda: os.unlink(p("d", "h")))
    step("unlink_s", lambda: os.unlink(p("d", "s")))
    step("keep", lambda: os.rename(p("d", "g"), p("kept")))
    step("rmdir", lambda: os.rmdir(p("d")))
    if forbidden:
        f = lambda *a: os.path.join(forbidden, *a)
        step("forbidden_create", lambda: os.close(os.open(f("new"), os.O_CREAT | os.O_WRONLY, 0o644)))
        step("forbidden_mkdir", lambda: os.mkdir(f("newdir")))
        step("forbidden_chmod", lambda: os.chmod(f("rootfile"), 0o666))
        step("forbidden_chown", lambda: os.chown(f("rootfile"), os.getuid(), -1))
        step("forbidden_write", lambda: os.close(os.open(f("rootfile"), os.O_WRONLY)))
        step("forbidden_unlink", lambda: os.unlink(f("rootfile")))
        step("forbidden_utime", lambda: os.utime(f("rootfile"), (1, 1)))
        step("owner_check", lambda: "%d:%d" % (os.stat(p("kept")).st_uid, os.stat(p("kept")).st_gid))


# xfs's own copies of a file's ACLs (include/fstap/xattr.h): the file
# system's, made with system.posix_acl_*, not the application's.
FS_OWN_XATTRS = ("trusted.SGI_ACL_FILE", "trusted.SGI_ACL_DEFAULT")


def tree(root, replayed=False):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            line = [rel, oct(st.st_mode), "%d:%d" % (st.st_uid, st.st_gid)]
            if not (replayed and stat.S_ISDIR(st.st_mode)):
                line.append("nlink=%d" % st.st_nlink)
            if stat.S_ISREG(st.st_mode) and replayed:
                line.append(str(st.st_size))
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as fh:
                    line += [str(st.st_size), hashlib.sha1(fh.read()).hexdigest()]
            elif stat.S_ISLNK(st.st_mode):
                line.append("-> " + os.readlink(path))
            if not stat.S_ISLNK(st.st_mode):
                xs = sorted(x for x in os.listxattr(path) if x not in FS_OWN_XATTRS)
                line += ["%s=%r" % (x, os.getxattr(path, x)) for x in xs]
            print(" ".join(line))


def records(jsonl):
    with open(jsonl) as fh:
        next(fh)  # the header
        for line in fh:
            yield json.loads(line)


def ops(jsonl, pid, only):
    """The application's own requests: process PID, not kernel-flagged."""
    recs = [r for r in records(jsonl)
            if r.get("pid") == pid and "dur" in r and not r.get("kernel")]
    recs.sort(key=lambda r: r["t"])
    for r in recs:
        if only and r["op"] not in only:
            continue
        print(r["op"], r.get("name", r.get("newname", "-")), r.get("res", 0))


def count(jsonl, op):
    print(sum(1 for r in records(jsonl) if r.get("op") == op))


def run_threads(worker, n):
    """Runs worker(0) .. worker(n - 1) in n threads, until all are done."""
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def threads(root, n, m):
    def worker(k):
        for j in range(m):
            fd = os.open(os.path.join(root, "t%d-%d" % (k, j)), os.O_CREAT | os.O_WRONLY, 0o644)
            os.write(fd, b"x" * 100)
            os.close(fd)
    run_threads(worker, n)


def churn(root, n, secs, seed):
    published = []
    lock = threading.Lock()
    end = time.monotonic() + secs

    def worker(k):
        rnd = random.Random(seed * 1000 + k)
        d = os.path.join(root, "d%d" % k)
        os.mkdir(d)
        log, j = None, 0
        while time.monotonic() < end:
            p = os.path.join(d, "f%d" % j)
            j += 1
            fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            os.write(fd, b"x" * rnd.randint(1, 8192))
            os.close(fd)
            r = rnd.random()
            if r < 0.3:
                os.rename(p, p + ".r")
                p += ".r"
            elif r > 0.8:
                os.unlink(p)
                p = None
            with lock:
                if p and rnd.random() < 0.5:
                    published.append(p)
                other = rnd.choice(published) if published else None
            if other:
                os.stat(other)
                with open(other, "rb") as f:
                    f.read()
            if log is None:
                log = os.open(os.path.join(d, "log"), os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
            os.write(log, b"line %d\n" % j)
            if rnd.random() < 0.05:
                os.close(log)
                log = None
            time.sleep(0.001)
        if log is not None:
            os.close(log)
    run_threads(worker, n)


def main():
    cmd = sys.argv[1]
    if cmd == "workload":
        workload(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "tree":
        tree(sys.argv[2], sys.argv[3:] == ["--replayed"])
    elif cmd == "ops":
        ops(sys.argv[2], int(sys.argv[3]), set(sys.argv[4:]))
    elif cmd == "count":
        count(sys.argv[2], sys.argv[3])
    elif cmd == "threads":
        threads(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "churn":
        churn(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
