#!/bin/sh
# t2003: fstap prepare and space: a trace whose data cannot fit fails early
# (statvfs) with a clear error and creates nothing; a disk that fills up
# during prepare (directories take blocks the early check does not count)
# fails with an error that names the file, exit 1.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to mount"
for c in mkfs.ext4 losetup mount umount python3; do
	command -v $c >/dev/null || skip "$c is needed"
done

dev=
test_cleanup() {
	for m in "$T/small" "$T/mnt"; do
		if mountpoint -q "$m" 2>/dev/null; then umount "$m" || umount -l "$m"; fi
	done
	if [ -n "$dev" ]; then losetup -d "$dev"; fi
}

# gen OUT NDIRS BIGBYTES: NDIRS directories, then one file of BIGBYTES.
gen() {
	python3 - "$@" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
ndirs, big = int(sys.argv[2]), int(sys.argv[3])
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_realtime_ns": 1, "start_monotonic_ns": 0})
w({"op": "state_inode", "obj": 1, "mode": 0o40755, "ino": 2})
for i in range(ndirs):
    w({"op": "state_inode", "obj": 10 + i, "mode": 0o40755, "ino": 100 + i})
    w({"op": "state_dentry", "obj": 1, "name": "d%04d" % i, "child": 10 + i})
    # An entry each, so that every directory needs a block on ext4.
    w({"op": "state_inode", "obj": 100000 + i, "mode": 0o100644, "ino": 50000 + i})
    w({"op": "state_dentry", "obj": 10 + i, "name": "e", "child": 100000 + i})
w({"op": "state_inode", "obj": 5, "mode": 0o100644, "ino": 99999, "size": big,
   "extents": [[0, big]]})
w({"op": "state_dentry", "obj": 1, "name": "big", "child": 5})
w({"op": "footer", "t": 1})
PY
}

# 1. Early: 4 MiB of data on a 1 MiB tmpfs.
mkdir "$T/small"
mount -t tmpfs -o size=1M tmpfs "$T/small" || skip "cannot mount tmpfs"
gen "$T/early.jsonl" 3 $((4 << 20))
expect_exit 0 "$FSTAP" import -o "$T/early.trace" "$T/early.jsonl"
expect_exit 1 "$FSTAP" prepare "$T/early.trace" "$T/small" &&
	expect_grep "$T/err" "fstap: error: not enough space in '$T/small': the trace's files hold 4.0 MiB of data, 1.0 MiB are free"
[ -z "$(ls -A "$T/small")" ] || fail "the early failure created something: $(ls -A "$T/small")"
umount "$T/small"

# 2. During: data that fits what statvfs says, less 2 MiB, and 3000
# directories of one block each.
truncate -s 64M "$T/img"
mkdir "$T/mnt"
dev=$(losetup -f --show "$T/img" 2>/dev/null) || skip "cannot set up a loop device"
mkfs.ext4 -q -F -m 0 -b 4096 "$dev"
mount "$dev" "$T/mnt"
avail=$(df -B1 --output=avail "$T/mnt" | tail -1 | tr -d ' ')
gen "$T/full.jsonl" 3000 $((avail - (2 << 20)))
expect_exit 0 "$FSTAP" import -o "$T/full.trace" "$T/full.jsonl"
expect_exit 1 "$FSTAP" prepare "$T/full.trace" "$T/mnt" &&
	expect_grep "$T/err" "fstap: error: cannot create '$T/mnt/big': No space left on device"
[ "$(count_lines "$T/err")" = 1 ] || fail "more than the error line: $(cat "$T/err")"

finish
