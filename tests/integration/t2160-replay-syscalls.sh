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
# the trace and the calls), and zero divergences. Then the same kinds of
# calls made by a real program are recorded through the mount (strace on the
# program too), prepared and replayed under strace: the replay's calls equal
# the program's, in order, once normalized (paths relative to the root, the
# behaviour flags of opens, xattr values left out: the trace keeps sizes).
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-replay.sh"

need_fuse
for c in strace python3; do
	command -v $c >/dev/null 2>&1 || skip "$c is needed"
done
SYSCALLS="$FSTAP_SRCDIR/tests/integration/replay-syscalls.py"

loop_mount ext4 64M "$T/mnt" || finish

python3 "$SYSCALLS" gen "$T/t.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"
mkdir "$T/mnt/w"
expect_exit 0 "$FSTAP" prepare "$T/t.trace" "$T/mnt/w"
TRACED="openat,openat2,open,creat,pwrite64,pread64,write,read,fsync,fdatasync,fallocate,copy_file_range,rename,renameat,renameat2,fchdir,/xattr$"
expect_exit 0 traced -f -y -qq -e trace="$TRACED" -o "$T/strace.log" \
	"$FSTAP" replay --json="$T/r.json" "$T/t.trace" "$T/mnt/w"
python3 "$SYSCALLS" check "$T/strace.log" >"$T/check" ||
	fail "the replay's system calls differ from the trace: $(cat "$T/check")"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "divergences: $(json_get "$T/r.json" 'j["runs"][0]["divergence"]')"

# --- recorded: a program's calls, through the mount, replayed ---
mkdir "$T/mnt/b" "$T/m" "$T/mnt/w2"
rec_start "$T/m" -q -o "$T/app.trace" "$T/mnt/b" "$T/m" || finish
expect_exit 0 traced -f -y -qq -e trace="$TRACED" -o "$T/app.log" "$PY" "$SYSCALLS" app "$T/m"
rec_stop "$T/m"
expect_exit 0 "$FSTAP" prepare -q "$T/app.trace" "$T/mnt/w2"
expect_exit 0 traced -f -y -qq -e trace="$TRACED" -o "$T/replay.log" \
	"$FSTAP" replay --json="$T/r2.json" "$T/app.trace" "$T/mnt/w2"
$PY "$SYSCALLS" compare "$T/app.log" "$T/m" "$T/replay.log" "$T/mnt/w2" >"$T/check" ||
	fail "recorded: the replay's system calls differ from the program's: $(cat "$T/check")"
[ "$(json_get "$T/r2.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "recorded: divergences: $(json_get "$T/r2.json" 'j["runs"][0]["divergence"]')"

# The test sees a call that is missing: the same check on a log without the
# first fdatasync fails (no check that passes whatever the replay does).
awk '/fdatasync\(/ && !done { done = 1; next } { print }' "$T/strace.log" >"$T/strace.cut"
python3 "$SYSCALLS" check "$T/strace.cut" >/dev/null && fail "the check passes a log without an fdatasync"

finish
