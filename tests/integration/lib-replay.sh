# lib-replay.sh: helpers for the replay tests (sourced after lib.sh).

# tree_state DIR: one line per object beneath DIR, sorted, symlinks not
# followed: path, type, permission bits, size (files), link target, link
# count (files), and the user.* xattrs with the size of their values.
# Times are left out (a replay makes its own).
tree_state() {
	python3 - "$1" <<'PY'
import os, stat, sys
root = sys.argv[1]
out = []
for d, dirs, files in os.walk(root):
    for n in dirs + files:
        p = os.path.join(d, n)
        st = os.lstat(p)
        rel = os.path.relpath(p, root)
        m = st.st_mode
        kind = "d" if stat.S_ISDIR(m) else "l" if stat.S_ISLNK(m) else "f" if stat.S_ISREG(m) else "o"
        line = "%s %s %o" % (rel, kind, stat.S_IMODE(m))
        if kind == "f":
            line += " size=%d nlink=%d" % (st.st_size, st.st_nlink)
        if kind == "l":
            line += " -> " + os.readlink(p)
        else:
            try:
                xs = sorted(x for x in os.listxattr(p, follow_symlinks=False) if x.startswith("user."))
            except OSError:
                xs = []
            for x in xs:
                line += " %s:%d" % (x, len(os.getxattr(p, x, follow_symlinks=False)))
        out.append(line)
print("\n".join(sorted(out)))
PY
}

# json_get FILE EXPR: evaluates a Python expression over the JSON in FILE (as j).
json_get() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# user_xattrs_supported DIR: whether DIR's file system takes user.* xattrs.
user_xattrs_supported() {
	python3 - "$1" <<'PY'
import os, sys
p = os.path.join(sys.argv[1], ".xattr-probe")
open(p, "w").close()
try:
    os.setxattr(p, "user.probe", b"1")
    ok = True
except OSError:
    ok = False
os.unlink(p)
sys.exit(0 if ok else 1)
PY
}
