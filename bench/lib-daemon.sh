# lib-daemon.sh: sourced (bash) by the bench scripts that run a FUSE daemon
# (fstap record, passthrough_ll, LoggedFS) on a mount point.
#
# daemon_stop MOUNTPOINT PID [TENTHS]: unmounts MOUNTPOINT, gives the daemon
# PID (a child of this shell, or empty) up to TENTHS tenths of a second to
# finish (fstap writes its trace's footer then), else stops it by its pid.
daemon_stop() {
	local m=$1 pid=$2 n=${3:-300} i
	mountpoint -q "$m" 2>/dev/null && { fusermount3 -u "$m" 2>/dev/null || umount -l "$m"; }
	[ -n "$pid" ] || return 0
	for i in $(seq "$n"); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && kill "$pid"
	wait "$pid" 2>/dev/null
	return 0
}

# fs_settle SECONDS: sync, then wait SECONDS (0: no wait). After a mass
# deletion on ext4 without a journal, which the root file system of the VM
# of docs/PERFORMANCE.md is, creating files is 10 to 60 times slower for
# about 35 s: ext4 does not reuse an inode deleted less than
# dirty_expire_centisecs/100 (30) seconds ago (5 more while its inode table
# block is dirty), and finding a free inode reads past every one of them
# (recently_deleted, find_inode_bit and the block lookups they make: three
# quarters of the samples of a 20 000-file create 8 s after a 20 000-file
# unlink, at 4 700 files/s instead of 48 000-52 000). A create phase that follows another run's unlink phase within
# that window is timed at random. fs_image_up avoids it altogether.
fs_settle() {
	[ "${1:-0}" != 0 ] || return 0
	sync
	sleep "$1"
}

# fs_image_up DIR SIZE_MIB: makes an ext4 file system (mkfs.ext4's defaults,
# with a journal, no discard) in DIR/fs.img, attaches it to a loop device
# with direct I/O (no second page cache in the host file system), and mounts
# it on DIR/fs. Sets FS_IMAGE_DEV and FS_IMAGE_MNT. fs_image_down undoes it
# (safe to call twice, and when fs_image_up failed half-way).
FS_IMAGE_DEV= FS_IMAGE_MNT=
fs_image_up() {
	local img=$1/fs.img
	rm -f "$img"
	truncate -s "${2}M" "$img" && mkfs.ext4 -q -F "$img" || return 1
	FS_IMAGE_DEV=$(losetup --direct-io=on -f --show "$img") || return 1
	mkdir -p "$1/fs"
	mount "$FS_IMAGE_DEV" "$1/fs" || { fs_image_down; return 1; }
	FS_IMAGE_MNT=$1/fs
}
fs_image_down() {
	if [ -n "$FS_IMAGE_MNT" ] && mountpoint -q "$FS_IMAGE_MNT"; then
		umount "$FS_IMAGE_MNT" || umount -l "$FS_IMAGE_MNT"
	fi
	[ -n "$FS_IMAGE_DEV" ] && losetup -d "$FS_IMAGE_DEV" 2>/dev/null
	FS_IMAGE_DEV= FS_IMAGE_MNT=
}

# fs_base NAME WORK IMAGE_MIB SETTLE: where a bench script's runs happen.
# With IMAGE_MIB 0, WORK itself; else an ext4 image made by fs_image_up
# (fs_image_down in the caller's exit trap). Sets BASE, and SETTLE to its
# default when empty: 36 s on WORK's own file system (see fs_settle), 0 on
# the image. Exits with a message naming NAME if the image cannot be made.
fs_base() {
	BASE=$2
	if [ "$3" != 0 ]; then
		fs_image_up "$2" "$3" || { echo "$1: cannot make the ext4 image" >&2; exit 1; }
		BASE=$FS_IMAGE_MNT
	fi
	SETTLE=$4
	[ -n "$SETTLE" ] || { [ "$3" = 0 ] && SETTLE=36 || SETTLE=0; }
}

# pll_options VARIANT: passthrough_ll's -o options for a pll-* variant of
# record-bench.sh (pll-never, pll-always, pll-auto0, each also as -dp).
pll_options() {
	local o=cache=never
	case $1 in pll-always*) o=cache=always,writeback ;; pll-auto0*) o=cache=auto,timeout=0 ;; esac
	case $1 in *-dp) o=$o,default_permissions ;; esac
	echo "$o"
}
