#!/bin/sh
# t2001: fstap prepare on hostile initial states: names "..", ".", "", with
# '/' or NUL, too long; symlinks to absolute paths and up the tree, with
# entries "under" them; an entry under a file; a loop of directories, an
# orphan loop, a name for the root; a name given twice; entries of objects
# without state; a file too large to create. Nothing outside the target
# changes (a sentinel directory next to it, a marker file's age, /etc),
# every skip is counted and warned about, the rest of the tree is made, and
# the exit status is 0 (1 with --strict), as docs/replay.md says.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed"

python3 - "$T/hostile.jsonl" "$T" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
T = sys.argv[2]
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_realtime_ns": 1, "start_monotonic_ns": 0})
D, F, L = 0o40755, 0o100644, 0o120777
def ino(obj, mode, n, **kw):
    w(dict({"op": "state_inode", "obj": obj, "mode": mode, "ino": n, "mtime": 10**18}, **kw))
def dent(parent, name, child):
    w({"op": "state_dentry", "obj": parent, "name": name, "child": child})
ino(1, D, 2)
# Escapes by name: all rejected.
ino(2, D, 10); dent(1, "..", 2); dent(2, "escaped-dotdot", 3)
ino(3, F, 11, size=10, extents=[[0, 10]])
ino(4, F, 12, size=10, extents=[[0, 10]]); dent(1, "../sentinel/evil", 4)
dent(1, "/tmp/evil-abs", 4); dent(1, ".", 4); dent(1, "", 4)
dent(1, {"hex": "61006200"}, 4); dent(1, "x" * 300, 4)
# Symlinks out of the target: created, never followed, nothing beneath them.
ino(5, L, 13, target=T + "/sentinel"); dent(1, "abs", 5)
ino(6, L, 14, target="../../.."); dent(1, "up", 6)
ino(7, F, 15, size=5, extents=[[0, 5]]); dent(5, "through-abs", 7); dent(6, "through-up", 7)
ino(8, D, 16); dent(1, "abs", 8); dent(8, "in-shadowed-dir", 7)   # "abs" is taken
ino(9, L, 17, target={"hex": "2f6500"}); dent(1, "nul-target", 9)  # NUL in target
# An entry under a regular file.
ino(10, F, 18, size=1, extents=[[0, 1]]); dent(1, "file", 10); dent(10, "under-file", 7)
# A loop reached from the root, an orphan loop, a name of the root.
ino(11, D, 19); ino(12, D, 20); dent(1, "l1", 11); dent(11, "l2", 12); dent(12, "back", 11)
dent(12, "root-again", 1)
ino(13, D, 21); ino(14, D, 22); dent(13, "o", 14); dent(14, "o", 13)
# No state: a name of an unknown object, a name in an unknown directory.
dent(1, "ghost", 99); dent(98, "in-ghost", 10)
# A file the target cannot hold (size 2^62): skipped, not fatal.
ino(15, F, 23, size=1 << 62); dent(1, "huge", 15)
# A valid file with an extent past its size (clipped) and one taken name.
ino(16, F, 24, size=100, extents=[[0, 50], [60, 1 << 40], [1 << 50, 10]])
dent(1, "ok", 16); dent(1, "ok", 10)
w({"op": "footer", "t": 1})
PY
expect_exit 0 "$FSTAP" import -o "$T/hostile.trace" "$T/hostile.jsonl"

snapshot() {
	# Names, types, sizes, modes, owners, mtimes and ctimes of everything.
	find "$1" -printf '%P %y %s %m %U %G %T@ %C@\n' | sort
}
mkdir "$T/dir" "$T/sentinel"
echo keep >"$T/sentinel/file"
snapshot "$T/sentinel" >"$T/sentinel.before"
etc_before=$(ls -la --time-style=full-iso /etc | sha256sum)
touch "$T/marker"
sleep 0.05

expect_exit 0 "$FSTAP" prepare "$T/hostile.trace" "$T/dir"
cp "$T/out" "$T/prep.out"
cp "$T/err" "$T/prep.err"

# Outside the target: nothing changed.
snapshot "$T/sentinel" >"$T/sentinel.after"
cmp -s "$T/sentinel.before" "$T/sentinel.after" || fail "the sentinel changed: $(diff "$T/sentinel.before" "$T/sentinel.after")"
changed=$(find "$T" -mindepth 1 -path "$T/dir" -prune -o \( -newer "$T/marker" -o -cnewer "$T/marker" \) \
	! -name out ! -name err ! -name 'prep.*' ! -name 'sentinel.*' -print)
[ -z "$changed" ] || fail "changed outside the target: $changed"
[ "$(ls -la --time-style=full-iso /etc | sha256sum)" = "$etc_before" ] || fail "/etc changed"
[ -e /tmp/evil-abs ] && fail "/tmp/evil-abs exists"

# Inside: exactly the valid part.
python3 - "$T/dir" "$T" <<'PY' || fail "the prepared tree is wrong"
import os, stat, sys
d, T = sys.argv[1], sys.argv[2]
got = sorted(os.path.relpath(os.path.join(r, n), d)
             for r, ds, fs in os.walk(d) for n in ds + fs)
assert got == ["abs", "file", "l1", "l1/l2", "ok", "up"], got
assert os.readlink(d + "/abs") == T + "/sentinel"
assert os.readlink(d + "/up") == "../../.."
assert stat.S_ISLNK(os.lstat(d + "/abs").st_mode)
st = os.lstat(d + "/ok")
assert st.st_size == 100 and st.st_blocks * 512 <= 8192, st
PY

# Every skip is counted and named.
expect_grep "$T/prep.out" "prepared '$T/dir': 6 objects (2 directories, 2 files, 2 symlinks, 0 special), 0 hard links, 91 bytes of data in"
expect_grep "$T/prep.out" "; 25 skipped"
expect_grep "$T/prep.err" "fstap: warning: skipped '..': invalid name"
expect_grep "$T/prep.err" "fstap: warning: skipped '../sentinel/evil': invalid name"
expect_grep "$T/prep.err" "fstap: warning: skipped 'a\\x00b\\x00': invalid name"
expect_grep "$T/prep.err" "fstap: warning: skipped 'abs/through-abs': parent is not a directory"
expect_grep "$T/prep.err" "fstap: warning: skipped 'abs': name already taken"
expect_grep "$T/prep.err" "fstap: warning: skipped 'l1/l2/back': second name of a directory"
expect_grep "$T/prep.err" "fstap: warning: skipped 'ghost': object without state record"
expect_grep "$T/prep.err" "fstap: warning: skipped object 9 ('nul-target'): object cannot be created"
expect_grep "$T/prep.err" "fstap: warning: skipped object 2 ('..'): not reachable from the root"
expect_grep "$T/prep.err" "fstap: warning: 25 skipped in all: 7 invalid name, 2 object without state record, 3 parent is not a directory, 2 second name of a directory, 2 name already taken, 1 object cannot be created, 7 not reachable from the root, 1 creation failed"

# --strict: the same, exit 1.
mkdir "$T/strict"
expect_exit 1 "$FSTAP" prepare -q --strict "$T/hostile.trace" "$T/strict" &&
	expect_grep "$T/err" "fstap: error: 25 entries of the trace were skipped (--strict)"

finish
