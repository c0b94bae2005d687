#!/bin/sh
# t2160: what the replay issues, per system call. A trace (JSON Lines,
# imported) holds the application's fsync, fdatasync and fsyncdir (both
# kinds), opens with O_SYNC, O_DSYNC, O_DIRECT, O_NOATIME, O_APPEND, O_TRUNC
# and O_CREAT|O_EXCL, renames with RENAME_NOREPLACE and RENAME_EXCHANGE,
# fallocate in four modes, copy_file_range, and each xattr call with its
# flags. It is replayed under strace on a loop-mounted ext4 (O_DIRECT and
# user xattrs work there) after `fstap prepare`, and the replay's worker
# threads must have issued exactly those calls, in order, with the trace's
# flags, sizes and offsets (tests/integration/replay-syscalls.py holds both
# the trace and the calls), and zero divergences.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

[ "$(id -u)" = 0 ] || skip "needs root to mount a loop image"
for c in strace mkfs.ext4 losetup python3; do
	command -v $c >/dev/null 2>&1 || skip "$c is needed"
done
SYSCALLS="$FSTAP_SRCDIR/tests/integration/replay-syscalls.py"

DEV=
test_cleanup() {
	if [ -n "$DEV" ]; then
		umount "$T/mnt" 2>/dev/null || umount -l "$T/mnt" 2>/dev/null || true
		losetup -d "$DEV" 2>/dev/null || true
	fi
}
truncate -s 64M "$T/img"
mkfs.ext4 -q -F "$T/img" || fail "mkfs.ext4 failed"
DEV=$(losetup -f --show "$T/img" 2>/dev/null) || skip "cannot set up a loop device"
mkdir "$T/mnt"
mount -t ext4 "$DEV" "$T/mnt" || { fail "cannot mount ext4 on $DEV"; finish; }

python3 "$SYSCALLS" gen "$T/t.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"
mkdir "$T/mnt/w"
expect_exit 0 "$FSTAP" prepare "$T/t.trace" "$T/mnt/w"
TRACED="openat,openat2,open,creat,pwrite64,pread64,write,read,fsync,fdatasync,fallocate,copy_file_range,rename,renameat,renameat2,/xattr$"
expect_exit 0 strace -f -y -qq -e trace="$TRACED" -o "$T/strace.log" \
	"$FSTAP" replay --json="$T/r.json" "$T/t.trace" "$T/mnt/w"
python3 "$SYSCALLS" check "$T/strace.log" >"$T/check" ||
	fail "the replay's system calls differ from the trace: $(cat "$T/check")"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "divergences: $(json_get "$T/r.json" 'j["runs"][0]["divergence"]')"

# The test sees a call that is missing: the same check on a log without the
# first fdatasync fails (no check that passes whatever the replay does).
awk '/fdatasync\(/ && !done { done = 1; next } { print }' "$T/strace.log" >"$T/strace.cut"
python3 "$SYSCALLS" check "$T/strace.cut" >/dev/null && fail "the check passes a log without an fdatasync"

finish
