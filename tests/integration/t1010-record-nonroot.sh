#!/bin/sh
# t1010: a non-root user through an allow_other mount: the scripted workload
# gives the same results and ownership as on the backing file system
# directly, what the user may not do fails with the same errors (EACCES,
# EPERM), and a directory writable only through a supplementary group works.
. "$(dirname "$0")/lib-record.sh"
need_fuse
command -v setpriv >/dev/null 2>&1 || skip "setpriv is missing (util-linux)"
[ -r "$TOOLS" ] || skip "cannot read $TOOLS"

U=65534
G=65534
chmod 755 "$T"
mkdir "$T/m" "$T/b" "$T/native"
for d in "$T/b" "$T/native"; do
	mkdir "$d/u" "$d/rootdir" "$d/grp"
	chown $U:$G "$d/u"
	echo secret >"$d/rootdir/rootfile"
	chmod 644 "$d/rootdir/rootfile"
	chgrp 4242 "$d/grp"
	chmod 0770 "$d/grp"
done
as_user() { setpriv --reuid=$U --regid=$G --groups=4242 "$@"; }

rec_start "$T/m" -o "$T/t.trace" "$T/b" "$T/m" || exit 1
as_user $PY "$TOOLS" workload "$T/m/u" "$T/m/rootdir" >"$T/w.mnt" 2>"$T/w.err" ||
	fail "workload through the mount: $(cat "$T/w.err")"
as_user sh -c "echo group >'$T/m/grp/file'" || fail "cannot create through a supplementary group"
rec_stop "$T/m"
as_user $PY "$TOOLS" workload "$T/native/u" "$T/native/rootdir" >"$T/w.native"
as_user sh -c "echo group >'$T/native/grp/file'"

diff -u "$T/w.native" "$T/w.mnt" >&2 || fail "results through the mount differ from native"
expect_grep "$T/w.mnt" "forbidden_create EACCES"
expect_grep "$T/w.mnt" "forbidden_chmod EPERM"
expect_grep "$T/w.mnt" "owner_check $U:$G"
$PY "$TOOLS" tree "$T/native" >"$T/tree.native"
$PY "$TOOLS" tree "$T/b" >"$T/tree.b"
diff -u "$T/tree.native" "$T/tree.b" >&2 || fail "the backing tree differs from the native run"
expect_grep "$T/tree.b" "grp/file 0o100644 $U:$G"

rec_export "$T/t.trace" "$T/t.jsonl"
[ "$(jq_count '.op == "mkdir" and .uid == '$U' and .gid == '$G' and .res == 0' "$T/t.jsonl")" = 1 ] ||
	fail "the mkdir record lacks the caller's uid/gid"
finish
