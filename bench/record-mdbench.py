#!/usr/bin/env python3
# record-mdbench.py ROOT N: a small metadata benchmark (create+write 4 KiB,
# stat, open+read, unlink of N files in one directory); prints ops/s per
# phase: a quick look at a mount; the figures in docs/ come from
# record-bench.sh.
import os, sys, time
root, n = sys.argv[1], int(sys.argv[2])
d = os.path.join(root, "bench"); os.mkdir(d)
names = [os.path.join(d, "f%05d" % i) for i in range(n)]
res = {}
t = time.perf_counter()
for p in names:
    fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644); os.write(fd, b"x" * 4096); os.close(fd)
res["create"] = time.perf_counter() - t
t = time.perf_counter()
for p in names: os.stat(p)
res["stat"] = time.perf_counter() - t
t = time.perf_counter()
for p in names:
    fd = os.open(p, os.O_RDONLY); os.read(fd, 4096); os.close(fd)
res["open+read"] = time.perf_counter() - t
t = time.perf_counter()
for p in names: os.unlink(p)
res["unlink"] = time.perf_counter() - t
os.rmdir(d)
print(" ".join("%s=%.0f" % (k, n / v) for k, v in res.items()))
