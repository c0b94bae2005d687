#!/bin/sh
# t4000-disk.sh: `fstap disk` for real, as root: with --model=none, hdd and
# raid5 (of hdd members: ext4's small writes are read-modify-writes), a
# 256 MiB image served through FUSE, a loop device with direct I/O on the
# served file, ext4 made and mounted on it, files written and read back,
# then everything undone (stopped by unmount for none and raid5, by SIGTERM
# for hdd): the data is in IMAGE (fsck clean, the files there when IMAGE
# itself is mounted), the statistics JSON counts the requests (a direct dd
# of 16 MiB reads at least 16 MiB), hdd seeks and is busy, none is never
# busy, raid5 reads-modify-writes. Plus the refusals: usage errors, a
# missing image, an image on a loop device or served twice, a --json that
# is the image.
. "$FSTAP_SRCDIR/tests/integration/lib.sh"

[ "$(id -u)" = 0 ] || skip "fstap disk's test needs root (losetup, mkfs, mount)"
for t in mkfs.ext4 e2fsck losetup mount findmnt python3; do
	command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
[ -e /dev/fuse ] || skip "no /dev/fuse"
[ -e /dev/loop-control ] || skip "no loop devices"

IMGF=$T/disk.img
MNT=$T/mnt
FS=$T/fs
mkdir -p "$MNT" "$FS" "$T/direct"
DPID=
DLOOP=
test_cleanup() {
	umount "$FS" 2>/dev/null || true
	umount "$T/direct" 2>/dev/null || true
	if [ -n "$DLOOP" ]; then losetup -d "$DLOOP" 2>/dev/null || true; fi
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null || true
		wait "$DPID" 2>/dev/null || true
	fi
	umount "$MNT" 2>/dev/null || true
}

# json FILE EXPR: a value of the statistics (python expression on j).
json() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# start_disk MODEL: serves $IMGF at $MNT in the background (DPID).
start_disk() {
	"$FSTAP" disk --model="$1" --json="$T/$1.json" "$IMGF" "$MNT" 2>"$T/$1.err" &
	DPID=$!
	wait_until "served file" test -f "$MNT/disk.img"
}

# attach: a loop device with direct I/O on the served file (DLOOP).
attach() {
	DLOOP=$(losetup --direct-io=on -f --show "$MNT/disk.img")
	dio=$(cat "/sys/block/${DLOOP#/dev/}/loop/dio")
	[ "$dio" = 1 ] || fail "$DLOOP does not do direct I/O (dio=$dio)"
}

detach() {
	losetup -d "$DLOOP"
	DLOOP=
}

# ---- usage and refusals ------------------------------------------------

expect_exit 2 "$FSTAP" disk "$IMGF"
expect_grep "$T/err" "expected IMAGE and MOUNTPOINT"
expect_exit 2 "$FSTAP" disk --model=tape "$IMGF" "$MNT"
expect_grep "$T/err" "--model='tape': unknown model 'tape' (none, hdd, ssd, raid5)"
expect_exit 2 "$FSTAP" disk --model=hdd,bogus=1 "$IMGF" "$MNT"
expect_grep "$T/err" "model 'hdd' has no parameter 'bogus'"
expect_exit 1 "$FSTAP" disk "$IMGF" "$MNT"
expect_grep "$T/err" "fstap: error: image '$IMGF' does not exist"
truncate -s 256M "$IMGF"
expect_exit 1 "$FSTAP" disk --json="$IMGF" "$IMGF" "$MNT"
expect_grep "$T/err" "fstap: error: the output '$IMGF' is the input"
expect_exit 1 "$FSTAP" disk "$IMGF" "$T/nowhere"
expect_grep "$T/err" "fstap: error: mount point '$T/nowhere' does not exist"
DLOOP=$(losetup -f --show "$IMGF")
expect_exit 1 "$FSTAP" disk "$IMGF" "$MNT"
expect_grep "$T/err" "fstap: error: image '$IMGF' is in use: it is attached to $DLOOP"
detach
mountpoint -q "$MNT" && fail "a refused image was mounted"

head -c 8388608 /dev/urandom >"$T/data"
head -c 1048576 /dev/urandom >"$T/small"

# ---- a file system on each model ----------------------------------------

for model in none hdd raid5; do
	start_disk $model
	expect_exit 1 "$FSTAP" disk "$IMGF" "$T/direct"
	expect_grep "$T/err" "image '$IMGF' is in use: another fstap disk serves it"
	attach
	mkfs.ext4 -q -F "$DLOOP" >/dev/null
	mount -t ext4 "$DLOOP" "$FS"
	cp "$T/data" "$FS/data"
	mkdir "$FS/d"
	for i in 1 2 3 4 5 6 7 8; do cp "$T/small" "$FS/d/f$i"; done
	sync
	umount "$FS"
	mount -t ext4 "$DLOOP" "$FS"
	cmp "$T/data" "$FS/data" || fail "$model: data read back differs"
	cmp "$T/small" "$FS/d/f8" || fail "$model: d/f8 read back differs"
	umount "$FS"
	json "$MNT/.stats.json" 'j["requests"]["read"]' >"$T/before"
	dd if="$DLOOP" of=/dev/null bs=1M count=16 iflag=direct 2>"$T/dd.err" ||
		fail "$model: dd of $DLOOP failed: $(cat "$T/dd.err")"
	# the statistics so far, while serving: the dd's 16 MiB are in them
	[ "$(json "$MNT/.stats.json" 'j["bytes"]["read"] >= 16 << 20 and j["model"]')" = $model ] ||
		fail "$model: .stats.json: $(cat "$MNT/.stats.json")"
	[ "$(json "$MNT/.stats.json" 'j["requests"]["read"]')" -gt "$(cat "$T/before")" ] ||
		fail "$model: .stats.json does not count the dd's reads: $(cat "$T/before") before, now $(cat "$MNT/.stats.json"); dd: $(cat "$T/dd.err")"
	echo x >"$MNT/.stats.json" 2>/dev/null && fail "$model: .stats.json is writable"
	detach
	if [ $model != hdd ]; then
		umount "$MNT"
	else
		kill -TERM "$DPID"
	fi
	wait_rc "$DPID"
	DPID=
	[ "$WAIT_RC" = 0 ] || fail "$model: fstap disk exited $WAIT_RC: $(cat "$T/$model.err")"
	mountpoint -q "$MNT" && fail "$model: $MNT still mounted"
	expect_grep "$T/$model.err" "fstap: disk '$IMGF' ($model): "
	expect_grep "$T/$model.err" "fstap: queue depth: 1: "

	# the data is in IMAGE
	e2fsck -fn "$IMGF" >"$T/fsck" 2>&1 || fail "$model: fsck of the image: $(cat "$T/fsck")"
	mount -t ext4 -o ro,loop "$IMGF" "$T/direct"
	cmp "$T/data" "$T/direct/data" || fail "$model: the image's data differs"
	umount "$T/direct"

	# what the model counted
	rb=$(json "$T/$model.json" 'j["bytes"]["read"]')
	wb=$(json "$T/$model.json" 'j["bytes"]["write"]')
	reads=$(json "$T/$model.json" 'j["requests"]["read"]')
	flushes=$(json "$T/$model.json" 'j["requests"]["flush"]')
	busy=$(json "$T/$model.json" 'j["busy_ns"]')
	seeks=$(json "$T/$model.json" 'j["seeks"]')
	depths=$(json "$T/$model.json" 'sum(j["queue_depth"].values())')
	total=$(json "$T/$model.json" 'sum(j["requests"].values())')
	[ "$rb" -ge $((16 * 1048576)) ] || fail "$model: $rb bytes read, fewer than dd's 16 MiB"
	[ "$wb" -ge $((16 * 1048576)) ] || fail "$model: $wb bytes written, fewer than 16 MiB of files"
	[ "$reads" -ge 16 ] || fail "$model: $reads read requests"
	[ "$flushes" -ge 1 ] || fail "$model: no flush counted (ext4 journal commits flush)"
	[ "$depths" = "$total" ] || fail "$model: $depths depths for $total requests"
	if [ $model = raid5 ]; then
		rmw=$(json "$T/$model.json" 'j["raid5"]["rmw_stripes"]')
		mr=$(json "$T/$model.json" 'j["raid5"]["member_reads"]')
		[ "$rmw" -gt 0 ] || fail "raid5: no read-modify-write (ext4's 4 KiB writes)"
		[ "$mr" -ge "$reads" ] || fail "raid5: $mr member reads for $reads reads"
		expect_grep "$T/$model.err" "fstap: raid5: "
	fi
	if [ $model = none ]; then
		[ "$busy" = 0 ] || fail "none: busy $busy ns"
	else
		[ "$busy" -gt 0 ] || fail "hdd: never busy"
		[ "$seeks" -gt 0 ] || fail "hdd: no seek"
	fi
done

if losetup -a | grep -F "$T/" >/dev/null; then
	fail "loop devices left: $(losetup -a | grep -F "$T/")"
fi
if findmnt -rn -o TARGET | grep -F "$T/" >/dev/null; then
	fail "mounts left: $(findmnt -rn -o TARGET | grep -F "$T/")"
fi
finish
