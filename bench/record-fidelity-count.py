#!/usr/bin/env python3
# record-fidelity-count.py: the counting half of bench/record-fidelity.sh.
#   count MNT TRACE.jsonl STRACE-FILES...  -> JSON counts on stdout
#   table [--per-workload] RESDIR MODES WORKLOADS -> markdown tables
import json, os, re, sys
from collections import Counter

# category: (system calls, FUSE requests)
CATS = [
    ("stat", "stat lstat fstat newfstatat statx fstatat64", "getattr"),
    ("open", "open openat openat2 creat", "open create opendir"),
    ("close", "close", "flush release releasedir"),
    ("read", "read pread64 readv preadv preadv2", "read"),
    ("write", "write pwrite64 writev pwritev pwritev2", "write"),
    ("getdents", "getdents getdents64", "readdir readdirplus"),
    ("xattr", "getxattr lgetxattr fgetxattr setxattr lsetxattr fsetxattr listxattr "
     "llistxattr flistxattr removexattr lremovexattr fremovexattr", "getxattr setxattr listxattr removexattr"),
    ("namespace", "mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat "
     "symlink symlinkat mknod mknodat readlink readlinkat", "mkdir rmdir unlink rename link symlink mknod readlink"),
    ("setattr", "chmod fchmod fchmodat chown fchown lchown fchownat truncate ftruncate utimensat "
     "futimesat utimes utime", "setattr"),
    ("sync", "fsync fdatasync sync_file_range syncfs", "fsync fdatasync fsyncdir"),
    ("lookup", "", "lookup"),
]
SYS2CAT = {s: c for c, ss, _ in CATS for s in ss.split()}
OP2CAT = {o: c for c, _, oo in CATS for o in oo.split()}
NAMES = [c for c, _, _ in CATS] + ["other"]


def count(mnt, jsonl, stfiles):
    app = Counter()
    req, kern = Counter(), Counter()
    pat = re.compile(r'(?:"|<)' + re.escape(mnt) + r'(?:/|"|>)')
    for f in stfiles:
        for line in open(f, errors="replace"):
            m = re.match(r"([a-z0-9_]+)\(", line)
            if not m or not pat.search(line):
                continue
            app[SYS2CAT.get(m.group(1), "other")] += 1
    with open(jsonl) as fp:
        fp.readline()
        for line in fp:
            r = json.loads(line)
            op = r.get("op")
            if op in (None, "forget", "forget_multi", "process", "loss") or op.startswith("state"):
                continue
            c = OP2CAT.get(op, "other")
            if r.get("kernel"):
                kern[c] += 1
            else:
                req[c] += 1
    json.dump({"app": app, "req": req, "kernel": kern}, sys.stdout)


def table(resdir, modes, wls, perwl):
    def load(mode, wl):
        return json.load(open(os.path.join(resdir, "%s.%s.json" % (mode, wl))))

    def show(title, ds):
        app, req, kern = Counter(), Counter(), Counter()
        for d in ds:
            app.update(d["app"]); req.update(d["req"]); kern.update(d["kernel"])
        print("\n%s\n" % title)
        print("| calls | application calls | requests | requests / call | kernel-flagged |")
        print("|---|---:|---:|---:|---:|")
        for c in NAMES:
            a, r, k = app[c], req[c], kern[c]
            if not (a or r or k):
                continue
            print("| %s | %d | %d | %s | %d |" % (c, a, r, "%.2f" % (r / a) if a else "-", k))
        ta, tr, tk = sum(app.values()), sum(req.values()), sum(kern.values())
        print("| **all** | %d | %d | %.2f | %d |" % (ta, tr, tr / ta if ta else 0, tk))

    for mode in modes.split(","):
        show("#### `--cache=%s` (%s)" % (mode, ", ".join(wls.split(","))),
             [load(mode, wl) for wl in wls.split(",")])
        if perwl:
            for wl in wls.split(","):
                show("##### `--cache=%s`, %s" % (mode, wl), [load(mode, wl)])


if sys.argv[1] == "count":
    count(sys.argv[2], sys.argv[3], sys.argv[4:])
else:
    args = sys.argv[2:]
    perwl = "--per-workload" in args
    args = [a for a in args if a != "--per-workload"]
    table(args[0], args[1], args[2], perwl)
