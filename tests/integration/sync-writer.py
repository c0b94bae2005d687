# sync-writer.py DIR: an application that writes synchronously, as databases
# write their logs: 20 writes through O_SYNC, 40 through O_DSYNC (no fsync of
# its own), 5 O_SYNC writes each followed by its own fsync, and 3 plain
# writes each followed by its own fdatasync. It makes 5 fsyncs and 3
# fdatasyncs; the kernel makes one more per synchronous write.
import os
import sys

d = sys.argv[1]


def writer(name, flags, n, sync=None):
    fd = os.open(os.path.join(d, name), os.O_WRONLY | os.O_CREAT | flags, 0o644)
    for _ in range(n):
        os.write(fd, b"r" * 100)
        if sync:
            sync(fd)
    os.close(fd)


writer("log-sync", os.O_SYNC, 20)
writer("log-dsync", os.O_DSYNC, 40)
writer("log-sync-fsync", os.O_SYNC, 5, os.fsync)
writer("plain-fdatasync", 0, 3, os.fdatasync)
