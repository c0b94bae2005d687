#!/usr/bin/env python3
"""replay-fidelity-count.py: the counting half of bench/replay-fidelity.sh.

  count APPDIR APP-STRACE-DIR REPLAYDIR REPLAY-STRACE-DIR REPLAY.json -> JSON counts
  table RESDIR WORKLOADS                                    -> markdown tables

The application's calls: every line of its strace files (one per thread,
strace -ff -y) that names a path or a descriptor beneath APPDIR. The
replay's: every line of the files of its worker threads, and the lines of
its main thread (the one that ran execve) that name a path or a
descriptor beneath REPLAYDIR, or a relative path (the replay issues the
xattr calls on a name from the object's directory, its working directory
then): the main thread reads the trace, and runs the operations itself
when the whole trace is planned (docs/replay.md, "The plan").
"""
import json, os, re, sys
from collections import Counter

CLASSES = [
    ("stat", "stat lstat fstat newfstatat statx fstatat64"),
    ("open", "open openat openat2 creat"),
    ("read", "read pread64 readv preadv preadv2"),
    ("write", "write pwrite64 writev pwritev pwritev2"),
    ("getdents", "getdents getdents64"),
    ("xattr", "getxattr lgetxattr fgetxattr setxattr lsetxattr fsetxattr listxattr "
     "llistxattr flistxattr removexattr lremovexattr fremovexattr"),
    ("namespace", "mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat "
     "symlink symlinkat mknod mknodat"),
    ("close", "close"),
    ("sync", "fsync fdatasync sync_file_range syncfs"),
    ("setattr", "chmod fchmod fchmodat chown fchown lchown fchownat truncate ftruncate "
     "utimensat futimesat utimes utime"),
    ("other fs", "access faccessat faccessat2 readlink readlinkat fallocate lseek "
     "copy_file_range statfs fstatfs"),
]
TARGET = ("stat", "open", "read", "write", "getdents", "xattr", "namespace")
SYS2CLASS = {s: c for c, ss in CLASSES for s in ss.split()}
CALL = re.compile(r"([a-z0-9_]+)\(")
RELATIVE = re.compile(r'[a-z0-9_]+\("[^/]')


def lines(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = CALL.match(line)
            if m and m.group(1) in SYS2CLASS:
                yield m.group(1), line


def beneath(d):
    return re.compile(r'(?:"|<)' + re.escape(d) + r'(?:/|"|>)')


def count(appdir, appst, rpdir, rpst, rpjson):
    app, rp = Counter(), Counter()
    in_app, in_rp = beneath(appdir), beneath(rpdir)
    for f in os.listdir(appst):
        for name, line in lines(os.path.join(appst, f)):
            if in_app.search(line):
                app[SYS2CLASS[name]] += 1
    for f in os.listdir(rpst):
        p = os.path.join(rpst, f)
        with open(p, errors="replace") as fh:
            main = any(l.startswith("execve(") for l in fh)
        for name, line in lines(p):
            if not main or in_rp.search(line) or RELATIVE.match(line):
                rp[SYS2CLASS[name]] += 1
    run = json.load(open(rpjson))["runs"][0]
    json.dump({"app": app, "replay": rp, "divergences": run["divergences"],
               "lookups": run.get("lookups"), "getattrs": run.get("getattrs"),
               "writes_merged": run.get("writes_merged", 0)}, sys.stdout)


def table(resdir, wls):
    def show(title, ds):
        app, rp = Counter(), Counter()
        div = merged = 0
        for d in ds:
            app.update(d["app"])
            rp.update(d["replay"])
            div += d["divergences"]
            merged += d.get("writes_merged") or 0
        print("\n%s (replay divergences: %d; split writes merged: %d)\n" % (title, div, merged))
        print("| class | application | replay | replay / app |")
        print("|---|---:|---:|---:|")
        for c, _ in CLASSES:
            a, r = app[c], rp[c]
            if not (a or r):
                continue
            ratio = "%.2f" % (r / a) if a else "-"
            if c in TARGET and a and abs(r / a - 1) > 0.10:
                ratio += " (!)"
            print("| %s%s | %d | %d | %s |" % (c, "" if c in TARGET else " *", a, r, ratio))

    ds = {wl: json.load(open(os.path.join(resdir, wl + ".json"))) for wl in wls.split(",")}
    for wl, d in ds.items():
        show("#### %s" % wl, [d])
    show("#### all (%s)" % ", ".join(ds), list(ds.values()))
    print("\n(!): off by more than 10%; *: not a target class")


if sys.argv[1] == "count":
    count(*sys.argv[2:7])
else:
    table(sys.argv[2], sys.argv[3])
