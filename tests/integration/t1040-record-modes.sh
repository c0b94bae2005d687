#!/bin/sh
# t1040: every --cache mode serves the workload like the backing file system
# and records what it promises; every --snapshot mode records the initial
# state it promises; `-- COMMAND` mounts in place, runs, unmounts and exits
# with the command's status; a background in-place mount keeps the paths.
. "$(dirname "$0")/lib-record.sh"
need_fuse

mkdir "$T/m" "$T/native"
$PY "$TOOLS" workload "$T/native" >"$T/w.native"

# --- cache modes ---
for mode in all calls direct kernel; do
	rm -rf "$T/b"
	mkdir "$T/b"
	rec_start "$T/m" -q --cache=$mode -o "$T/$mode.trace" "$T/b" "$T/m" || exit 1
	$PY "$TOOLS" workload "$T/m" >"$T/w.$mode" &
	wpid=$!
	wait $wpid
	rec_stop "$T/m"
	diff -u "$T/w.native" "$T/w.$mode" >&2 || fail "--cache=$mode: results differ from native"
	rec_export "$T/$mode.trace" "$T/$mode.jsonl"
	[ "$(head -1 "$T/$mode.jsonl" | jq_count ".metadata.recorder.cache == \"$mode\"")" = 1 ] ||
		fail "--cache=$mode is not in the metadata"
	eval "wpid_$mode=$wpid"
done
# direct: the application's read of 64 KiB arrives as one read of 64 KiB
[ "$(jq_count ".op == \"read\" and .pid == $wpid_direct and .size == 65536" "$T/direct.jsonl")" = 1 ] ||
	fail "--cache=direct: the 64 KiB read is not one request of 64 KiB"
# all: failed lookups and the lookups of every path walk are seen
n_all=$(jq_count ".op == \"lookup\" and .pid == $wpid_all" "$T/all.jsonl")
n_calls=$(jq_count ".op == \"lookup\" and .pid == $wpid_calls" "$T/calls.jsonl")
[ "$n_all" -gt "$n_calls" ] || fail "--cache=all sees no more lookups ($n_all) than calls ($n_calls)"
# close(): a descriptor opened for writing is flushed in every mode; one
# opened read-only only in all and kernel (FOPEN_NOFLUSH in calls and
# direct, where its close is the RELEASE alone); the read-only open of
# d/f is released either way
closes() {	# MODE ACCESS: "FLUSHES RELEASES" of the workload's opens with ACCESS
	jq -s -r --argjson pid "$(eval echo \$wpid_$1)" --argjson acc "$2" '
		[.[] | select(.op == "open" and .pid == $pid and .res == 0 and
		     (.flags % 4) == $acc) | .fh] as $fhs |
		"\([.[] | select(.op == "flush" and (.fh as $f | $fhs | index($f)))] | length) " +
		"\([.[] | select(.op == "release" and (.fh as $f | $fhs | index($f)))] | length)"' \
		"$T/$1.jsonl"
}
for mode in all calls direct kernel; do
	ro=$(closes $mode 0) rw=$(closes $mode 2)
	case $mode in calls|direct) want_ro="0 ${ro#* }" ;; *) want_ro="${ro#* } ${ro#* }" ;; esac
	[ "${ro#* }" -ge 1 ] && [ "$ro" = "$want_ro" ] ||
		fail "--cache=$mode: read-only opens: flushes and releases '$ro', expected '$want_ro'"
	[ "${rw%% *}" -ge 1 ] && [ "${rw%% *}" -ge "${rw#* }" ] ||
		fail "--cache=$mode: read-write opens: flushes and releases '$rw'"
	[ "$(head -1 "$T/$mode.jsonl" | jq -r .metadata.recorder.flush_read_only)" = \
		"$(case $mode in calls|direct) echo false ;; *) echo true ;; esac)" ] ||
		fail "--cache=$mode: flush_read_only in the metadata"
done
# kernel: the write arrives from the writeback cache, flagged as the kernel's
[ "$(jq_count '.op == "write" and .kernel == true' "$T/kernel.jsonl")" -ge 1 ] ||
	fail "--cache=kernel: no kernel-flagged writeback write"

# --- snapshot modes ---
rm -rf "$T/b"
mkdir -p "$T/b/dir"
printf 'abc' >"$T/b/dir/file"
ln "$T/b/dir/file" "$T/b/hard"
ln -s dir/file "$T/b/sym"
setfattr -n user.x -v 42 "$T/b/dir/file" 2>/dev/null || true
dd if=/dev/zero of="$T/b/sparse" bs=4096 seek=10 count=1 2>/dev/null
for snap in full touched none; do
	rec_start "$T/m" -q --snapshot=$snap -o "$T/$snap.trace" "$T/b" "$T/m" || exit 1
	cat "$T/m/dir/file" >/dev/null
	rec_stop "$T/m"
	rec_export "$T/$snap.trace" "$T/$snap.jsonl"
done
# full: root, dir, file (one inode, two names), sym, sparse
[ "$(jq_count '.op == "state_inode"' "$T/full.jsonl")" = 5 ] || fail "full: not 5 objects"
[ "$(jq_count '.op == "state_dentry"' "$T/full.jsonl")" = 5 ] || fail "full: not 5 names"
[ "$(jq_count '.op == "state_inode" and .target == "dir/file"' "$T/full.jsonl")" = 1 ] ||
	fail "full: no symlink target"
[ "$(jq_count '.op == "state_inode" and .nlink == 2 and .size == 3' "$T/full.jsonl")" = 1 ] ||
	fail "full: the hard-linked file"
[ "$(jq_count '.op == "state_inode" and .size == 45056 and .extents == [[40960,4096]]' \
	"$T/full.jsonl")" = 1 ] || fail "full: the sparse file's extents"
if getfattr -n user.x "$T/b/dir/file" >/dev/null 2>&1; then
	[ "$(jq_count '.op == "state_inode" and (.xattrs | tostring | test("user.x"))' \
		"$T/full.jsonl")" = 1 ] || fail "full: the xattr"
fi
# the lookup of dir names the object the snapshot gave dir
d=$(jq -c 'select(.op == "state_dentry" and .name == "dir") | .child' "$T/full.jsonl")
[ "$(jq_count ".op == \"lookup\" and .name == \"dir\" and .child == $d" "$T/full.jsonl")" -ge 1 ] ||
	fail "full: lookup and snapshot disagree on the object of dir"
# touched: root, dir, file only
[ "$(jq_count '.op == "state_inode"' "$T/touched.jsonl")" = 3 ] ||
	fail "touched: $(jq_count '.op == "state_inode"' "$T/touched.jsonl") objects, expected 3"
[ "$(jq_count '.op == "state_inode" or .op == "state_dentry"' "$T/none.jsonl")" = 0 ] ||
	fail "none: state records"

# --- -- COMMAND, in place ---
rm -rf "$T/d"
mkdir "$T/d"
echo before >"$T/d/old"
expect_exit 3 "$FSTAP" record -q -o "$T/cmd.trace" "$T/d" -- sh -c \
	"cat '$T/d/old' >'$T/d/new' && grep -q fuse.fstap /proc/self/mounts && exit 3"
[ "$(cat "$T/d/new" 2>/dev/null)" = before ] || fail "the command's file is not in the directory"
is_mounted "$T/d" && fail "the directory is still mounted after the command"
rec_export "$T/cmd.trace" "$T/cmd.jsonl"
[ "$(jq_count '.op == "create" and .name == "new"' "$T/cmd.jsonl")" = 1 ] ||
	fail "the command's create is not recorded"
expect_exit 0 "$FSTAP" record -q --no-trace "$T/d" -- true
expect_exit 137 "$FSTAP" record -q --no-trace "$T/d" -- sh -c 'kill -9 $$'
expect_exit 127 "$FSTAP" record -q --no-trace "$T/d" -- /nonexistent/command
# the command runs with the umask fstap was started with, not the recorder's 0
(umask 027 && "$FSTAP" record -q --no-trace "$T/d" -- sh -c \
	"umask >'$T/umask' && : >'$T/d/masked' && mkdir '$T/d/maskdir'") ||
	fail "the umask command failed"
[ "$(cat "$T/umask")" = 0027 ] || fail "the command's umask is $(cat "$T/umask"), not 0027"
[ "$(stat -c %a "$T/d/masked") $(stat -c %a "$T/d/maskdir")" = "640 750" ] ||
	fail "modes under umask 027: $(stat -c %a "$T/d/masked") $(stat -c %a "$T/d/maskdir"), expected 640 750"
is_mounted "$T/d" && fail "the directory is still mounted"

# --- in place, in the background: the same paths, now recorded ---
rec_start "$T/d" -q -o "$T/inplace.trace" "$T/d" || exit 1
echo during >"$T/d/during"
[ "$(cat "$T/d/old")" = before ] || fail "in place: old content not visible"
rec_stop "$T/d"
[ "$(cat "$T/d/during")" = during ] || fail "in place: the file is not in the directory"
rec_export "$T/inplace.trace" "$T/inplace.jsonl"
[ "$(jq_count '.op == "create" and .name == "during"' "$T/inplace.jsonl")" = 1 ] ||
	fail "in place: the create is not recorded"
finish
