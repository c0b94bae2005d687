#!/usr/bin/env python3
"""prepare-tree.py: the initial state used by the `fstap prepare` tests.

  prepare-tree.py gen OUT.jsonl   writes a JSON Lines trace whose state
                                  records describe TREE below
  prepare-tree.py check DIR       checks that DIR holds exactly TREE: names,
                                  types, modes, owners, sizes, data extents
                                  (SEEK_DATA/SEEK_HOLE), symlink targets,
                                  hard links, device numbers, xattrs, times

One description, so that what is written and what is checked cannot drift.
"""
import json
import os
import stat
import sys

GiB = 1 << 30
T1 = 1700000000123456789      # ns, exact
T2 = 1600000000987654321

# path (bytes) -> attributes. "links": other names of the same object.
TREE = {
    b".": dict(type="dir", mode=0o750, uid=4321, gid=4321, mtime=T1, atime=T2, ino=2),
    b"d1": dict(type="dir", mode=0o751, mtime=T1 + 1, atime=T2, ino=100,
                xattrs={b"user.dosattrib": b"\x00\xff\x10\x00"}),
    b"d1/sub": dict(type="dir", mode=0o2775, uid=1234, gid=5678, mtime=T1 + 2, atime=T2, ino=101,
                    xattrs={b"trusted.t": b"v", b"user.u": b"\x00"}),
    b"d1/sub/deep": dict(type="dir", mode=0o700, uid=0, gid=0, mtime=T1 + 3, atime=T2, ino=102),
    b"d1/sub/deep/leaf": dict(type="reg", mode=0o644, size=5000, extents=[(0, 5000)],
                              mtime=T1 + 4, atime=T2 + 4, ino=103),
    b"d1/f": dict(type="reg", mode=0o640, uid=1234, gid=5678, size=10000,
                  extents=[(0, 4096)], mtime=T1 + 5, atime=T2 + 5, ino=104,
                  xattrs={b"user.bin": bytes(range(256)), b"user.empty": b""}),
    b"sparse": dict(type="reg", mode=0o600, size=GiB, extents=[(0, 4096), (GiB // 2, 8192)],
                    mtime=T1 + 6, atime=T2 + 6, ino=105),
    b"allhole": dict(type="reg", mode=0o644, size=8192, extents=[], mtime=T1 + 7,
                     atime=T2 + 7, ino=106),
    b"empty": dict(type="reg", mode=0o444, size=0, extents=[], mtime=T1 + 8, atime=T2 + 8,
                   ino=107),
    b"suid": dict(type="reg", mode=0o4755, uid=1234, gid=5678, size=100, extents=[(0, 100)],
                  mtime=T1 + 9, atime=T2 + 9, ino=108),
    b"hl": dict(type="reg", mode=0o644, size=3000, extents=[(0, 3000)], mtime=T1 + 10,
                atime=T2 + 10, ino=109, links=[b"d1/sub/hl2"]),
    b"ln-passwd": dict(type="lnk", target=b"/etc/passwd", uid=1234, gid=5678, mtime=T1 + 11,
                       atime=T2 + 11, ino=110),
    b"d1/sub/deep/up": dict(type="lnk", target=b"../../..", mtime=T1 + 12, atime=T2 + 12,
                            ino=111),
    b"rel": dict(type="lnk", target=b"d1/f", mtime=T1 + 13, atime=T2 + 13, ino=112),
    b"fifo": dict(type="fifo", mode=0o640, uid=1234, gid=5678, mtime=T1 + 14, atime=T2 + 14,
                  ino=113),
    b"sock": dict(type="sock", mode=0o755, mtime=T1 + 15, atime=T2 + 15, ino=114),
    b"null": dict(type="chr", mode=0o666, rdev=os.makedev(1, 3), mtime=T1 + 16,
                  atime=T2 + 16, ino=115),
    b"\xe9\xffa": dict(type="reg", mode=0o644, size=10, extents=[(0, 10)], mtime=T1 + 17,
                       atime=T2 + 17, ino=116, xattrs={b"user.n": b"\xff"}),
}

IFMT = {"dir": stat.S_IFDIR, "reg": stat.S_IFREG, "lnk": stat.S_IFLNK,
        "fifo": stat.S_IFIFO, "sock": stat.S_IFSOCK, "chr": stat.S_IFCHR}


def jbytes(b):
    try:
        s = b.decode("utf-8")
        if s.isprintable():
            return s
    except UnicodeDecodeError:
        pass
    return {"hex": b.hex()}


def gen(out_path):
    out = open(out_path, "w")
    w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
    w({"fstap": "trace", "version": "1.0", "start_realtime_ns": T1, "start_monotonic_ns": 0})
    ids = {b".": 1}
    for p in sorted(TREE, key=lambda p: (p.count(b"/"), p)):
        if p != b".":
            ids[p] = len(ids) + 1
    for p in sorted(TREE, key=lambda p: (p.count(b"/"), p)):
        a = TREE[p]
        mode = IFMT[a["type"]] | a.get("mode", 0o777)
        rec = {"op": "state_inode", "obj": ids[p], "mode": mode,
               "owner_uid": a.get("uid", 0), "owner_gid": a.get("gid", 0),
               "size": a.get("size", len(a.get("target", b""))),
               "atime": a["atime"], "mtime": a["mtime"], "ctime": a["mtime"],
               "ino": a["ino"], "nlink": 1 + len(a.get("links", []))}
        if "rdev" in a:
            rec["rdev"] = a["rdev"]
        if "target" in a:
            rec["target"] = jbytes(a["target"])
        if a.get("xattrs"):
            rec["xattrs"] = [{"name": jbytes(k), "value": {"hex": v.hex()}}
                             for k, v in sorted(a["xattrs"].items())]
        if a.get("extents"):
            rec["extents"] = [list(e) for e in a["extents"]]
        # Zero-valued keys are left out, as fstap export does.
        rec = {k: v for k, v in rec.items() if v not in (0, [], "")}
        w(rec)
        for name in [p] + a.get("links", []):
            if name == b".":
                continue
            parent, _, base = name.rpartition(b"/")
            w({"op": "state_dentry", "obj": ids[parent or b"."], "name": jbytes(base),
               "child": ids[p]})
    w({"op": "lookup", "t": 10, "dur": 1, "tid": 1, "pid": 1, "uid": 0, "gid": 0,
       "obj": 1, "name": "d1", "child": ids[b"d1"]})
    w({"op": "footer", "t": 100})


def data_ranges(path, size):
    """The data ranges of a file, as SEEK_DATA/SEEK_HOLE report them."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    out, off = [], 0
    try:
        while off < size:
            try:
                d = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            h = os.lseek(fd, d, os.SEEK_HOLE)
            out.append((d, h - d))
            off = h
    finally:
        os.close(fd)
    return out


def check(root):
    errors = []
    err = errors.append
    root = os.fsencode(root)
    # lstat everything before listing its directory or reading a symlink:
    # both update atimes. (os.walk follows symlinks to test for directories.)
    found = {b".": os.lstat(root)}
    todo = [b"."]
    while todo:
        rel = todo.pop()
        for n in sorted(os.listdir(os.path.join(root, rel))):
            p = n if rel == b"." else rel + b"/" + n
            found[p] = os.lstat(os.path.join(root, p))
            if stat.S_ISDIR(found[p].st_mode):
                todo.append(p)
    names = {p for p in TREE} | {l for a in TREE.values() for l in a.get("links", [])}
    if set(found) != names:
        err("names differ: missing %r, extra %r" % (sorted(names - set(found)),
                                                    sorted(set(found) - names)))
    for p, a in TREE.items():
        st = found.get(p)
        if st is None:
            continue
        full = os.path.join(root, p)
        want_type = IFMT[a["type"]]
        if stat.S_IFMT(st.st_mode) != want_type:
            err("%r: type %o, want %o" % (p, stat.S_IFMT(st.st_mode), want_type))
            continue
        if a["type"] != "lnk" and stat.S_IMODE(st.st_mode) != a["mode"]:
            err("%r: mode %o, want %o" % (p, stat.S_IMODE(st.st_mode), a["mode"]))
        if (st.st_uid, st.st_gid) != (a.get("uid", 0), a.get("gid", 0)):
            err("%r: owner %d:%d, want %d:%d" % (p, st.st_uid, st.st_gid, a.get("uid", 0),
                                                 a.get("gid", 0)))
        if st.st_mtime_ns != a["mtime"]:
            err("%r: mtime %d, want %d" % (p, st.st_mtime_ns, a["mtime"]))
        if st.st_atime_ns != a["atime"]:
            err("%r: atime %d, want %d" % (p, st.st_atime_ns, a["atime"]))
        if a["type"] == "lnk":
            if os.readlink(full) != a["target"]:
                err("%r: target %r, want %r" % (p, os.readlink(full), a["target"]))
        if a["type"] == "reg":
            if st.st_size != a["size"]:
                err("%r: size %d, want %d" % (p, st.st_size, a["size"]))
            got = data_ranges(full, st.st_size)
            if got != a["extents"]:
                err("%r: data extents %r, want %r" % (p, got, a["extents"]))
            alloc = sum(-(-l // 4096) * 4096 for _, l in a["extents"])
            if st.st_blocks * 512 > alloc + 8192:
                err("%r: %d bytes allocated, want about %d" % (p, st.st_blocks * 512, alloc))
        if a["type"] == "chr" and st.st_rdev != a["rdev"]:
            err("%r: rdev %x, want %x" % (p, st.st_rdev, a["rdev"]))
        want_nlink = 1 + len(a.get("links", []))
        if a["type"] != "dir" and st.st_nlink != want_nlink:
            err("%r: nlink %d, want %d" % (p, st.st_nlink, want_nlink))
        for l in a.get("links", []):
            if l in found and found[l].st_ino != st.st_ino:
                err("%r: not a hard link of %r" % (l, p))
        if a["type"] in ("dir", "reg"):
            xa = {os.fsencode(k): os.getxattr(full, k, follow_symlinks=False)
                  for k in os.listxattr(full, follow_symlinks=False)
                  if k.startswith(("user.", "trusted."))}
            if xa != a.get("xattrs", {}):
                err("%r: xattrs %r, want %r" % (p, xa, a.get("xattrs", {})))
    for e in errors:
        print("prepare-tree: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2]))
