#!/bin/sh
# t4020-seed-spool.sh: the news spool case on the modeled spinning disk, at
# a test's size (bench/seed-spool.sh runs the full one, 20 000 files, and
# times it). A spool of 1 200 files of 4 KiB in 4 directories, each one's
# files created in name order on a fresh ext4, read in readdir order by a
# Python reader under `fstap record`: report says the opens follow readdir order; then
# `fstap compare --fs=ext4 --disk=hdd,segments=1 --variant=recorded,name`
# (a drive cache of one 2 MiB segment, smaller than the spool) replays it
# as recorded and in name order: both rows replay without divergence, and
# the modeled disk is at least 3 times busier, and seeks more, for the
# recorded (readdir) order than for name order, whose reads follow the
# files' layout. The figures are the model's, not the machine's times, so
# the test does not depend on the load. Nothing is left behind.
. "$FSTAP_SRCDIR/tests/integration/lib-record.sh"
need_fuse
need_compare_tools mkfs.ext4 losetup mount findmnt python3

SPOOL=$T/spool
IMG=$T/img
mkdir -p "$IMG"
# the spool on a fresh ext4: its inode numbers follow the creation (name)
# order, and prepare recreates the files in that order
loop_mount ext4 64M "$SPOOL" || finish
# the images on a tmpfs: the cache drops before each replay do not send
# the daemon's reads to this machine's disk
mount -t tmpfs -o size=1g tmpfs "$IMG"
test_cleanup() {
	umount "$IMG" 2>/dev/null || true
}

python3 "$FSTAP_SRCDIR/tests/integration/spool.py" make "$SPOOL" 4 1200 4096
expect_exit 0 "$FSTAP" record -q -o "$T/spool.trace" "$SPOOL" -- \
	python3 "$FSTAP_SRCDIR/tests/integration/spool.py" read "$SPOOL"
[ "$(cat "$T/out")" = 4915200 ] || fail "the reader read $(cat "$T/out") bytes"
expect_exit 0 "$FSTAP" report "$T/spool.trace"
expect_grep "$T/out" "opens follow readdir order"
umount "$SPOOL"
losetup -d "$LOOP_DEV"

expect_exit 0 "$FSTAP" compare --fs=ext4 --disk=hdd,segments=1 --variant=recorded,name \
	--runs=1 --image-dir="$IMG" --no-progress --out="$T/res" "$T/spool.trace"
cp "$T/out" "$T/table"
expect_grep "$T/table" "divergences: none"
expect_grep "$T/table" "the modeled disk (hdd,segments=1) during the replay of the median run"
python3 - "$T/res/results.json" <<'EOF' || fail "the modeled disk does not show the order effect: $(cat "$T/table")"
import json, sys
res = json.load(open(sys.argv[1]))
rows = {r["variant"]: r for r in res["rows"]}
for v in ("recorded", "name"):
    assert rows[v]["status"] == "ok", rows[v]
    assert rows[v]["runs"][0]["divergences"] == 0, rows[v]["runs"][0]
rec, name = (rows[v]["runs"][0]["disk"]["replay"] for v in ("recorded", "name"))
# the same files are read in both orders
assert rec["bytes"]["read"] >= 1200 * 4096 and name["bytes"]["read"] >= 1200 * 4096, (rec, name)
ratio = rec["busy_ns"] / name["busy_ns"]
print("modeled busy time: recorded %.3f s, name %.3f s (%.1fx); seeks %d and %d"
      % (rec["busy_ns"] / 1e9, name["busy_ns"] / 1e9, ratio, rec["seeks"], name["seeks"]))
assert ratio >= 3, ratio
assert rec["seeks"] > name["seeks"], (rec["seeks"], name["seeks"])
EOF
compare_released "after the compare" "$IMG"

finish
