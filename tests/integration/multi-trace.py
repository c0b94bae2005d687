# multi-trace.py: writes (stdout, JSON Lines for fstap import) a trace of two
# processes, one thread each: each makes its own directory of 8 files (create,
# write 4096 bytes, close), renames one, removes one, truncates one; then the
# second opens and reads a file the first made, and the first stats the
# prepared file 'old'. 60 replayed operations, 30 by each process, the read
# of the second depending on the first's create and write.
import json

recs = []
t = 1000


def rec(p, **kw):
    global t
    d = {"t": t, "dur": 100, "tid": 100 * p, "pid": 100 * p}
    d.update(kw)
    t += 200
    recs.append(d)


fh = 1
for p in (1, 2):
    dobj = 1000 * p
    rec(p, op="mkdir", obj=1, name="p%d" % p, mode=0o755, umask=0o22, child=dobj)
    for i in range(8):
        o = dobj + i + 1
        rec(p, op="create", obj=dobj, name="f%d" % i, mode=0o100644, umask=0o22, flags=193,
            child=o, fh=fh)
        rec(p, op="write", res=4096, obj=o, fh=fh, size=4096)
        rec(p, op="release", obj=o, fh=fh)
        fh += 1
    rec(p, op="rename", obj=dobj, name="f0", newparent=dobj, newname="g0")
    rec(p, op="unlink", obj=dobj, name="f1")
    rec(p, op="setattr", obj=dobj + 3, valid=8, size=100)
rec(2, op="open", obj=1004, fh=fh)
rec(2, op="read", res=4096, obj=1004, fh=fh, size=8192)
rec(2, op="release", obj=1004, fh=fh)
rec(1, op="getattr", obj=2)

head = [
    {"fstap": "trace", "version": "1.0", "start_realtime_ns": 1764460800000000000,
     "start_monotonic_ns": 0, "metadata": {"note": "multi-trace.py"}},
    {"op": "process", "pid": 100, "comm": "app1", "t": 0},
    {"op": "process", "pid": 200, "comm": "app2", "t": 0},
    {"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 2, "ino": 2},
    {"op": "state_dentry", "obj": 1, "name": "old", "child": 2},
    {"op": "state_inode", "obj": 2, "mode": 0o100644, "nlink": 1, "size": 4096, "ino": 3,
     "extents": [[0, 4096]]},
]
for r in head + recs + [{"op": "footer", "t": t + 1000}]:
    print(json.dumps(r))
