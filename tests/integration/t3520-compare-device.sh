#!/bin/sh
# t3520-compare-device.sh: what compare records about the device under each
# run, as root, on small ext4 loop images: the loop device attached with
# direct I/O where the image dir's file system allows it (and buffered,
# with the note in the table and results.json, on ramfs, which refuses
# O_DIRECT), its rotational flag and I/O scheduler as a loop device has
# them, the mount options in force (mountinfo), the mkfs version, and the
# device's I/O counters over the replay, whose writes are made durable at
# its end (replay --sync-at-end): both times in the table and results.json.
. "$FSTAP_SRCDIR/tests/integration/lib.sh"

need_compare_tools mkfs.ext4 losetup mount findmnt python3 dd

IMG=$T/img
RAMFS=$T/ramfs
mkdir -p "$IMG" "$RAMFS" "$T/b"

test_cleanup() {
	if findmnt -rn "$RAMFS" >/dev/null 2>&1; then umount "$RAMFS"; fi
}

# What a loop device of this kernel says about its queue, and mkfs.ext4's version.
truncate -s 1M "$T/probe.img"
dev=$(losetup --find --show "$T/probe.img")
sysd=/sys/block/${dev#/dev/}
rotational=$(cat "$sysd/queue/rotational")
scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' "$sysd/queue/scheduler")
losetup -d "$dev"
mkfs_version=$(mkfs.ext4 -V 2>&1 | head -n 1)

# --- a write workload, recorded: 6 files of 256 KiB, no fsync ---------------------
"$FSTAP" record -q -o "$T/w.trace" "$T/b" -- sh -c "cd '$T/b' &&
	for i in 1 2 3 4 5 6; do dd if=/dev/zero of=f\$i bs=64k count=4 status=none; done" ||
	fail "the recording failed"

expect_exit 0 "$FSTAP" compare --candidate=na:ext4::noatime --runs=2 --seed=1 \
	--image-dir="$IMG" --no-progress --out="$T/res" "$T/w.trace"
grep -E "^  na +mkfs.ext4, mount -o noatime, loop image, direct I/O$" "$T/out" >/dev/null ||
	fail "no direct I/O in the candidates section: $(cat "$T/out")"
python3 - "$T/res/results.json" "$rotational" "$scheduler" "$mkfs_version" <<'PY' || \
	fail "results.json's device: $(cat "$T/res/results.json")"
import json, sys
res = json.load(open(sys.argv[1]))
rot, sched, version = sys.argv[2] == "1", sys.argv[3], sys.argv[4]
runs = res["rows"][0]["runs"]
assert len(runs) == 2, runs
for run in runs:
    d = run["device"]
    assert d["device"].startswith("/dev/loop"), d
    assert d["direct_io"] is True, d
    assert d["rotational"] is rot and d["scheduler"] == sched, (d, rot, sched)
    assert d["mount_options"].split(",")[:2] == ["rw", "noatime"], d
    assert d["fs_options"].split(",")[0] == "rw", d
    assert d["mkfs_version"] == version, (d, version)
    assert "direct_io_note" not in d, d
    st = d["stat"]
    assert sorted(st) == sorted(["reads", "read_merges", "read_sectors", "read_ms", "writes",
                                 "write_merges", "write_sectors", "write_ms", "io_ms",
                                 "queue_ms", "flushes", "flush_ms"]), st
    assert all(isinstance(v, int) and v >= 0 for v in st.values()), st
PY
compare_released "after the direct-I/O compare" "$IMG"

# --- an image dir on ramfs: no O_DIRECT, so a buffered loop device, said ---------
mount -t ramfs ramfs "$RAMFS" || skip "cannot mount ramfs"
expect_exit 0 "$FSTAP" compare --candidate=r:ext4 --runs=1 --image-dir="$RAMFS" \
	--no-progress --out="$T/ram" "$T/w.trace"
grep -E "^  r +mkfs.ext4, loop image; the loop device does buffered I/O \(losetup \
--direct-io=on failed: losetup failed \(exit 1\): losetup: $RAMFS/fstap-compare.[^/]*/r.img: \
failed to set up loop device: Invalid argument\)$" "$T/out" >/dev/null ||
	fail "no buffered-I/O note: $(cat "$T/out")"
python3 - "$T/ram/results.json" <<'PY' || fail "ramfs results.json: $(cat "$T/ram/results.json")"
import json, sys
d = json.load(open(sys.argv[1]))["rows"][0]["runs"][0]["device"]
assert d["direct_io"] is False, d
assert d["direct_io_note"].startswith("the loop device does buffered I/O (losetup "
                                      "--direct-io=on failed: "), d
PY
compare_released "after the ramfs compare" "$RAMFS"

finish
