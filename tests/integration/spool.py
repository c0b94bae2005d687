"""spool.py: the news spool of the order-effect tests and benchmarks.

  spool.py make ROOT DIRS FILES SIZE   DIRS directories g00, g01, ... under
                                       ROOT holding FILES files of SIZE bytes
                                       in all, each directory's files created
                                       in name order (000000, 000001, ...)
  spool.py read ROOT                   a reader: lists each directory (in name
                                       order) and reads its files in the order
                                       readdir returns them; prints the bytes
"""
import os
import sys


def make(root, ndirs, nfiles, size):
    data = os.urandom(size)
    for d in range(ndirs):
        path = os.path.join(root, "g%02d" % d)
        os.makedirs(path)
        for i in range(nfiles // ndirs):
            with open(os.path.join(path, "%06d" % i), "wb") as f:
                f.write(data)


def read(root):
    n = 0
    for d in sorted(os.listdir(root)):
        path = os.path.join(root, d)
        for name in os.listdir(path):  # readdir order
            with open(os.path.join(path, name), "rb") as f:
                n += len(f.read())
    print(n)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        read(sys.argv[2])
