#!/bin/sh
# t2175: an fstat() of a file unlinked while open. FUSE gets a GETATTR
# without a handle for fstat() as for stat(); once the object's last name
# is gone it can only be an fstat(), and the replay issues it on the open
# handle (as pjdfstest does in posix-suite.trace: open, unlink, fstat).
# While the name exists, the GETATTR stays a stat of the path (strace).
. "$(dirname "$0")/lib.sh"

cat >"$T/t.jsonl" <<'J'
{"fstap":"trace","version":"1.0"}
{"op":"state_inode","obj":1,"mode":16877}
{"op":"create","t":100,"dur":10,"tid":7,"pid":7,"obj":1,"name":"f","mode":33188,"flags":32833,"child":2,"fh":1}
{"op":"getattr","t":200,"dur":10,"tid":7,"pid":7,"obj":2}
{"op":"unlink","t":300,"dur":10,"tid":7,"pid":7,"obj":1,"name":"f"}
{"op":"getattr","t":400,"dur":10,"tid":7,"pid":7,"obj":2}
{"op":"release","t":500,"dur":10,"tid":0,"pid":0,"obj":2,"fh":1}
J
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"
mkdir "$T/d"
if command -v strace >/dev/null 2>&1; then
	expect_exit 0 traced -f -qq -o "$T/st" -e trace=newfstatat,fstat "$FSTAP" replay "$T/t.trace" "$T/d"
	grep -q 'newfstatat(.*"f", .*AT_SYMLINK_NOFOLLOW) = 0' "$T/st" ||
		fail "the getattr of a named file is not a stat of its path: $(cat "$T/st")"
else
	expect_exit 0 "$FSTAP" replay "$T/t.trace" "$T/d"
fi
expect_grep "$T/out" "divergences:  0"
[ -z "$(ls "$T/d")" ] || fail "the file is still there: $(ls "$T/d")"

finish
