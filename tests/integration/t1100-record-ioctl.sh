#!/bin/sh
# t1100: the file attribute ioctls through the mount, on ext4 and xfs
# images: lsattr, chattr (append-only, immutable, nodump, noatime, project
# inheritance) and project ids (chattr -p, xfs_io chproj and lsproj) give,
# as root and as uid 65534, the same output, errors and resulting flags as
# on the backing file system directly; chattr +a makes a later O_TRUNC open
# fail with EPERM and a non-owner's chattr fails with EPERM, as natively;
# another ioctl (FS_IOC_GETVERSION) fails with ENOTTY as FUSE refuses it;
# FS_IOC_FIEMAP and RWF_DONTCACHE fail with EOPNOTSUPP (the kernel's limits,
# docs/recording.md) where ext4 serves them natively.
# The trace holds each ioctl with its command and values (and the refused
# one with its number), and a replay on a fresh directory of the same file
# system (prepare recreates the flags and project ids the tree had before:
# nodump, immutable, a directory's project id) reproduces the flags and
# project ids. (Project ids are set on xfs:
# ext4's project feature needs quota support, which this kernel lacks, so
# there chattr -p fails alike natively and through the mount.)
. "$(dirname "$0")/lib-record.sh"
need_fuse
for c in losetup mkfs.ext4 mkfs.xfs lsattr chattr xfs_io setpriv jq; do
	command -v $c >/dev/null 2>&1 || skip "$c is needed"
done

U=65534
chmod 755 "$T"
IMG_MNT="$T/img"
LOOP=""
test_cleanup_extra() {
	rec_cleanup
	img_release
}
img_release() {
	if mountpoint -q "$IMG_MNT" 2>/dev/null; then
		umount "$IMG_MNT" 2>/dev/null || umount -l "$IMG_MNT"
	fi
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	LOOP=""
}
mkdir "$T/m" "$IMG_MNT"

as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }

# run DIR: the workload on DIR; prints what each step printed, DIR as D
run() {
	D=$1
	{
		set +e	# a step's failure is part of its output
		echo "# root"
		lsattr "$D/rootf" "$D/userf"
		lsattr -d "$D/dir"
		chattr +a "$D/rootf" && echo "chattr +a: 0"
		$PY -c 'import os, sys
try:
    os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
    print("O_TRUNC: opened")
except OSError as e:
    print("O_TRUNC:", os.strerror(e.errno))
try:
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND); os.write(fd, b"more\n"); os.close(fd)
    print("O_APPEND: written")
except OSError as e:
    print("O_APPEND:", os.strerror(e.errno))' "$D/rootf"
		sh -c "echo more >>'$D/frozen'" 2>/dev/null || echo "append to immutable: refused"
		chattr +i "$D/dir" && echo "chattr +i: 0"
		touch "$D/dir/new" 2>&1 || echo "touch in immutable dir: refused"
		chattr -i "$D/dir" && chattr +dP "$D/dir" && echo "chattr -i +dP: 0"
		chattr -p 42 "$D/rootf" && echo "chattr -p 42: 0"
		xfs_io -r -c lsproj "$D/rootf"
		xfs_io -c 'chproj 43' "$D/keep" && xfs_io -c lsproj "$D/keep"
		# what differs from native: refused by the recorder, or by FUSE itself
		$PY -c 'import fcntl, os, struct, sys
def probe(what, f):
    try:
        f()
        print(what + ": ok")
    except OSError as e:
        print(what + ":", os.strerror(e.errno))
fd = os.open(sys.argv[1], os.O_RDONLY)
wfd = os.open(sys.argv[2], os.O_RDWR)
probe("FS_IOC_GETVERSION", lambda: fcntl.ioctl(fd, 0x80087601, bytearray(8)))
fiemap = bytearray(struct.pack("QQIIII", 0, 1 << 30, 0, 0, 8, 0) + bytes(8 * 56))
probe("FS_IOC_FIEMAP", lambda: fcntl.ioctl(fd, 0xc020660b, fiemap))
probe("preadv2 RWF_DONTCACHE", lambda: os.preadv(fd, [bytearray(4)], 0, 0x80))
probe("pwritev2 RWF_DONTCACHE", lambda: os.pwritev(wfd, [b"data"], 0, 0x80))' \
			"$D/rootf" "$D/keep" >"$T/limits.$2"
		echo "# uid $U"
		as_user lsattr "$D/userf" "$D/rootf"
		as_user chattr +a "$D/userf" || echo "user chattr +a: refused"
		as_user chattr +d "$D/userf" && echo "user chattr +d: 0"
		as_user chattr +d "$D/rootf" || echo "user chattr +d on root's: refused"
		as_user chattr -p 7 "$D/userf" && echo "user chattr -p 7: 0"
		as_user chattr +A "$D/udir" && echo "user chattr +A dir: 0"
		as_user xfs_io -r -c lsproj "$D/userf"
		echo "# final"
		lsattr -p "$D/rootf" "$D/userf" "$D/keep" "$D/frozen"
		lsattr -pd "$D/dir" "$D/udir"
	} 2>&1 | sed "s|$D|D|g"
}

# flags_of DIR: the flags and project ids of the workload's files, DIR as D
flags_of() {
	lsattr -p "$1/rootf" "$1/userf" "$1/keep" "$1/frozen" | sed "s|$1|D|"
	lsattr -pd "$1/dir" "$1/udir" | sed "s|$1|D|"
}

GETFLAGS=2148034049 SETFLAGS=1074292226 FSGETX=2149341215 FSSETX=1075599392
# has_ioctl WHAT FILTER: the trace ($T/t.jsonl) has one ioctl record FILTER selects
has_ioctl() {
	n=$(jq -c "def bit(v; b): (((v // 0) / b) | floor) % 2 == 1; select(.op == \"ioctl\" and $2)" \
		"$T/t.jsonl" | wc -l)
	[ "$n" -ge 1 ] || fail "$fs: the trace has no ioctl record of $1"
}

# one_fs FS: makes an image of FS, records the workload on it and replays it
one_fs() {
	fs=$1
	case $fs in
	ext4) size=64M; mkfs="mkfs.ext4 -q -F" ;;
	xfs) size=300M; mkfs="mkfs.xfs -q -f" ;;
	esac
	rm -f "$T/$fs.img"
	truncate -s $size "$T/$fs.img"
	LOOP=$(losetup -f --show "$T/$fs.img" 2>/dev/null) || skip "cannot set up a loop device"
	$mkfs "$LOOP" >"$T/mkfs.out" 2>&1 || { fail "mkfs $fs: $(cat "$T/mkfs.out")"; return 1; }
	mount "$LOOP" "$IMG_MNT" || skip "cannot mount the $fs image"
	chmod 755 "$IMG_MNT"
	for d in native b; do
		mkdir "$IMG_MNT/$d" "$IMG_MNT/$d/dir" "$IMG_MNT/$d/udir"
		echo data >"$IMG_MNT/$d/rootf"
		echo data >"$IMG_MNT/$d/userf"
		echo data >"$IMG_MNT/$d/keep"
		echo data >"$IMG_MNT/$d/frozen"
		chown $U:$U "$IMG_MNT/$d/userf" "$IMG_MNT/$d/udir"
		# flags and a project id from before the recording: the snapshot's
		chattr +d "$IMG_MNT/$d/keep"
		chattr +i "$IMG_MNT/$d/frozen"
		[ $fs = ext4 ] || chattr -p 5 "$IMG_MNT/$d/udir"
	done

	run "$IMG_MNT/native" native >"$T/want"
	rec_start "$T/m" -q -o "$T/t.trace" "$IMG_MNT/b" "$T/m" || exit 1
	run "$T/m" mnt >"$T/got"
	rec_stop "$T/m"

	diff -u "$T/want" "$T/got" >&2 || fail "$fs: the ioctls through the mount differ from native"
	# what the workload must have seen natively (the comparison is not vacuous)
	expect_grep "$T/want" "O_TRUNC: Operation not permitted"
	expect_grep "$T/want" "O_APPEND: written"
	expect_grep "$T/want" "user chattr +a: refused"
	expect_grep "$T/want" "user chattr +d on root's: refused"
	expect_grep "$T/want" "append to immutable: refused"
	expect_grep "$T/limits.mnt" "FS_IOC_GETVERSION: Inappropriate ioctl for device"
	expect_grep "$T/limits.mnt" "FS_IOC_FIEMAP: Operation not supported"
	expect_grep "$T/limits.mnt" "preadv2 RWF_DONTCACHE: Operation not supported"
	expect_grep "$T/limits.mnt" "pwritev2 RWF_DONTCACHE: Operation not supported"
	flags_of "$IMG_MNT/b" >"$T/flags.b"
	flags_of "$IMG_MNT/native" >"$T/flags.native"
	diff -u "$T/flags.native" "$T/flags.b" >&2 || fail "$fs: the backing files' flags differ from native"

	# the trace: every ioctl with its command and values
	rec_export "$T/t.trace" "$T/t.jsonl"
	has_ioctl "chattr +a (FS_IOC_SETFLAGS with FS_APPEND_FL)" \
		".cmd == $SETFLAGS and .path == \"/rootf\" and .res == 0 and bit(.flags; 32)"
	has_ioctl "uid $U's chattr +d (FS_IOC_SETFLAGS with FS_NODUMP_FL)" \
		".cmd == $SETFLAGS and .uid == $U and .path == \"/userf\" and .res == 0 and bit(.flags; 64)"
	has_ioctl "chattr +dP of a directory" \
		".cmd == $SETFLAGS and .path == \"/dir\" and .res == 0 and bit(.flags; 536870912)"
	has_ioctl "FS_IOC_GETFLAGS of uid $U" ".cmd == $GETFLAGS and .uid == $U and .res == 0"
	has_ioctl "the refused FS_IOC_GETVERSION, with its number and ENOTTY" \
		".cmd == 2148038145 and .path == \"/rootf\" and .res == -25"
	case $fs in
	ext4)
		expect_grep "$T/want" "-----a--------e------- D/rootf"
		expect_grep "$T/limits.native" "FS_IOC_GETVERSION: ok"
		expect_grep "$T/limits.native" "FS_IOC_FIEMAP: ok"
		expect_grep "$T/limits.native" "preadv2 RWF_DONTCACHE: ok"
		expect_grep "$T/limits.native" "pwritev2 RWF_DONTCACHE: ok"
		has_ioctl "chattr -p 42, refused by ext4 without quotas" \
			".cmd == $FSSETX and .path == \"/rootf\" and .res == -95 and .projid == 42" ;;
	xfs)
		expect_grep "$T/want" "   42 -----a---------------- D/rootf"
		expect_grep "$T/want" "projid = 43"
		expect_grep "$T/want" "    5 -------A-------------- D/udir"
		has_ioctl "chattr -p 42 (FS_IOC_FSSETXATTR, projid 42)" \
			".cmd == $FSSETX and .path == \"/rootf\" and .res == 0 and .projid == 42"
		has_ioctl "xfs_io chproj 43" \
			".cmd == $FSSETX and .path == \"/keep\" and .res == 0 and .projid == 43"
		has_ioctl "FS_IOC_FSGETXATTR of rootf with projid 42 and FS_XFLAG_APPEND" \
			".cmd == $FSGETX and .path == \"/rootf\" and .res == 0 and .projid == 42 and bit(.flags; 16)" ;;
	esac

	# a replay on a fresh directory of the same file system reproduces flags and project ids
	mkdir "$IMG_MNT/target"
	expect_exit 0 "$FSTAP" prepare -q "$T/t.trace" "$IMG_MNT/target" || exit 1
	expect_exit 0 "$FSTAP" replay --no-progress --json="$T/replay.json" "$T/t.trace" "$IMG_MNT/target" ||
		exit 1
	flags_of "$IMG_MNT/target" >"$T/flags.target"
	diff -u "$T/flags.b" "$T/flags.target" >&2 || fail "$fs: the replay does not reproduce the flags"
	img_release
}

for fs in ext4 xfs; do
	one_fs $fs
done
finish
