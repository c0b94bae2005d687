#!/bin/sh
# t2000: fstap prepare recreates a trace's initial tree exactly: nested
# directories, files with holes, a sparse file, symlinks (never followed),
# hard links, a FIFO, a socket, a device node, modes (set-uid, set-gid), owners,
# times to the ns, binary xattrs on files and directories, a non-UTF-8 name
# (the tree is in prepare-tree.py). Also: contents (random or zero), the
# target checks (missing, not empty, lost+found allowed), options, --help.
. "$(dirname "$0")/lib.sh"

PY="$FSTAP_SRCDIR/tests/integration/prepare-tree.py"
[ "$(id -u)" = 0 ] || skip "prepare-tree needs root (owners, a device node)"
command -v python3 >/dev/null || skip "python3 is needed"

python3 "$PY" gen "$T/tree.jsonl"
expect_exit 0 "$FSTAP" import -o "$T/tree.trace" "$T/tree.jsonl"
passwd_before=$(stat -c '%s %Y %Z %i' /etc/passwd)

# The whole tree, default options (creation order, random data), and the
# device node (--devices).
mkdir "$T/dir"
if expect_exit 0 "$FSTAP" prepare --devices "$T/tree.trace" "$T/dir"; then
	expect_grep "$T/out" "prepared '$T/dir': 17 objects (3 directories, 8 files, 3 symlinks, 3 special), 1 hard links, 24494 bytes of data in"
	expect_grep "$T/out" "; 0 skipped"
	[ "$(count_lines "$T/out")" = 1 ] || fail "summary is not one line: $(cat "$T/out")"
	[ -s "$T/err" ] && fail "unexpected stderr: $(cat "$T/err")"
	python3 "$PY" check "$T/dir" || fail "the prepared tree differs (above)"
fi
# The symlinks were created, not followed.
[ "$(stat -c '%s %Y %Z %i' /etc/passwd)" = "$passwd_before" ] || fail "/etc/passwd changed"

# Contents: incompressible random data by default, zeros with --data=zero.
mkdir "$T/zero"
expect_exit 0 "$FSTAP" prepare -q --devices --data=zero "$T/tree.trace" "$T/zero"
[ -s "$T/out" ] && fail "-q printed: $(cat "$T/out")"
# (before reading the files: reads change atimes)
python3 "$PY" check "$T/zero" || fail "the --data=zero tree differs (above)"
python3 - "$T/dir" "$T/zero" <<'PY' || fail "file contents are wrong"
import sys, zlib
d, z = sys.argv[1], sys.argv[2]
leaf = open(d + "/d1/sub/deep/leaf", "rb").read()
f = open(d + "/d1/f", "rb").read()
assert len(leaf) == 5000 and len(f) == 10000
assert f[4096:] == bytes(10000 - 4096), "the hole of d1/f reads as data"
assert len(zlib.compress(leaf, 9)) > 4900, "random data compresses"
assert leaf[:4096] != f[:4096], "two files start alike"
assert open(z + "/d1/sub/deep/leaf", "rb").read() == bytes(5000)
with open(d + "/sparse", "rb") as s:
    s.seek(1 << 29)
    blk = s.read(8192)
    assert len(zlib.compress(blk)) > 8000 and blk != bytes(8192)
PY

# The same tree in name order and in random order.
for order in name random; do
	mkdir "$T/o-$order"
	expect_exit 0 "$FSTAP" prepare --devices --order=$order --seed=42 "$T/tree.trace" "$T/o-$order" &&
		{ python3 "$PY" check "$T/o-$order" || fail "--order=$order tree differs (above)"; }
done

# The target: must exist, be a directory, be empty (lost+found allowed).
expect_exit 1 "$FSTAP" prepare "$T/tree.trace" "$T/dir" &&
	expect_grep "$T/err" "fstap: error: target directory '$T/dir' is not empty"
[ "$(count_lines "$T/err")" = 1 ] || fail "not one error line: $(cat "$T/err")"
expect_exit 1 "$FSTAP" prepare "$T/tree.trace" "$T/missing" &&
	expect_grep "$T/err" "fstap: error: target directory '$T/missing' does not exist"
[ -e "$T/missing" ] && fail "prepare created a missing target"
: >"$T/afile"
expect_exit 1 "$FSTAP" prepare "$T/tree.trace" "$T/afile" &&
	expect_grep "$T/err" "is not a directory"
mkdir -p "$T/lf/lost+found"
expect_exit 0 "$FSTAP" prepare -q "$T/tree.trace" "$T/lf"
[ -d "$T/lf/lost+found" ] && [ -d "$T/lf/d1/sub/deep" ] || fail "lost+found target not prepared"
mkdir -p "$T/hidden" && : >"$T/hidden/.x"
expect_exit 1 "$FSTAP" prepare "$T/tree.trace" "$T/hidden" && expect_grep "$T/err" "is not empty"

# A trace that is not a trace; options.
mkdir "$T/e1"
echo "not a trace" >"$T/bad.trace"
expect_exit 1 "$FSTAP" prepare "$T/bad.trace" "$T/e1"
[ -z "$(ls -A "$T/e1")" ] || fail "a bad trace created something"
expect_exit 2 "$FSTAP" prepare --order=sideways "$T/tree.trace" "$T/e1" &&
	expect_grep "$T/err" "--order must be creation, name or random"
expect_exit 2 "$FSTAP" prepare --data=ones "$T/tree.trace" "$T/e1"
expect_exit 2 "$FSTAP" prepare --seed=x "$T/tree.trace" "$T/e1"
expect_exit 2 "$FSTAP" prepare --bogus "$T/tree.trace" "$T/e1"
expect_exit 2 "$FSTAP" prepare "$T/tree.trace"
expect_exit 0 "$FSTAP" prepare --help && expect_grep "$T/out" "usage: fstap prepare"
expect_exit 0 "$FSTAP" help prepare && expect_grep "$T/out" "--order=creation|name|random"

# Device nodes: by default with the recorded type, mode and owner but a
# device number that reaches no device (a device node in DIR reaches the
# device outside it); the tree's 'null' is 1:3, which is also the
# placeholder of character nodes, so a copy of it with 1:7 tells them
# apart. --devices keeps the recorded numbers. Nothing is skipped.
python3 - "$T/tree.jsonl" "$T/tree7.jsonl" <<'PY'
import json, os, sys
out = open(sys.argv[2], "w")
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("rdev") == os.makedev(1, 3):
        r["rdev"] = os.makedev(1, 7)
    out.write(json.dumps(r) + "\n")
PY
expect_exit 0 "$FSTAP" import -o "$T/tree7.trace" "$T/tree7.jsonl"
mkdir "$T/nodev" "$T/nodev2" "$T/strict" "$T/dev"
expect_exit 0 "$FSTAP" prepare "$T/tree7.trace" "$T/nodev" &&
	expect_grep "$T/out" "device nodes: 1 with a device number that reaches no device (--devices keeps the recorded ones)" &&
	expect_grep "$T/out" "; 0 skipped"
[ "$(stat -c '%F %a %t:%T' "$T/nodev/null")" = "character special file 666 1:3" ] ||
	fail "prepare did not make the placeholder: $(stat -c '%F %a %t:%T' "$T/nodev/null")"
expect_exit 0 "$FSTAP" prepare --no-devices "$T/tree7.trace" "$T/nodev2"
[ "$(stat -c '%t:%T' "$T/nodev2/null")" = "1:3" ] || fail "--no-devices kept the recorded number"
expect_exit 0 "$FSTAP" prepare --strict "$T/tree7.trace" "$T/strict" ||
	fail "--strict: a device node is no skip"
expect_exit 0 "$FSTAP" prepare --devices "$T/tree7.trace" "$T/dev"
[ "$(stat -c '%F %a %t:%T' "$T/dev/null")" = "character special file 666 1:7" ] ||
	fail "--devices did not keep the recorded number: $(stat -c '%F %a %t:%T' "$T/dev/null")"

finish
