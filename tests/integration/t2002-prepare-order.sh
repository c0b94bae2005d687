#!/bin/sh
# t2002: fstap prepare's creation orders on a real ext4 (a loop image made
# here): with --order=creation the inode numbers ext4 hands out follow the
# recorded ones, with --order=name they follow the names, and a seeded
# --order=random is the same for the same seed and differs from both. The
# root of a fresh ext4 holds lost+found, which prepare accepts and keeps.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to mount a loop image"
for c in mkfs.ext4 losetup mount umount python3; do
	command -v $c >/dev/null || skip "$c is needed"
done

dev=
test_cleanup() {
	if mountpoint -q "$T/mnt" 2>/dev/null; then umount "$T/mnt" || umount -l "$T/mnt"; fi
	if [ -n "$dev" ]; then losetup -d "$dev"; fi
}

# 60 files in the root and 40 in a directory; recorded inode numbers are a
# fixed shuffle of the names' order.
python3 - "$T/order.jsonl" <<'PY'
import json, random, sys
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o, separators=(",", ":")) + "\n")
w({"fstap": "trace", "version": "1.0", "start_realtime_ns": 1, "start_monotonic_ns": 0})
w({"op": "state_inode", "obj": 1, "mode": 0o40755, "ino": 2})
rng = random.Random(7)
inos = list(range(1000, 1100)); rng.shuffle(inos)
w({"op": "state_inode", "obj": 2, "mode": 0o40755, "ino": 500})
w({"op": "state_dentry", "obj": 1, "name": "sub", "child": 2})
for i in range(100):
    obj = 10 + i
    w({"op": "state_inode", "obj": obj, "mode": 0o100644, "ino": inos[i], "size": 100,
       "extents": [[0, 100]]})
    w({"op": "state_dentry", "obj": 1 if i < 60 else 2, "name": "f%03d" % i, "child": obj})
w({"op": "footer", "t": 1})
PY
expect_exit 0 "$FSTAP" import -o "$T/order.trace" "$T/order.jsonl"

truncate -s 64M "$T/img"
mkdir "$T/mnt"
dev=$(losetup -f --show "$T/img" 2>/dev/null) || skip "cannot set up a loop device"

# prepare_on ORDER [SEED]: fresh ext4, prepare, then "dir name ino" lines.
prepare_on() {
	mkfs.ext4 -q -F "$dev" || return 1
	mount "$dev" "$T/mnt" || return 1
	set -- "--order=$1" ${2:+"--seed=$2"}
	expect_exit 0 "$FSTAP" prepare -q "$@" "$T/order.trace" "$T/mnt" || true
	[ -d "$T/mnt/lost+found" ] || fail "lost+found is gone"
	(cd "$T/mnt" && stat -c '%n %i' f* sub/f*) >"$T/inos"
	umount "$T/mnt"
}

# check_order FILE KIND: within each directory, inode order = KIND order.
check_order() {
	python3 - "$1" "$2" "$T/order.jsonl" <<'PY'
import json, sys
got = [l.split() for l in open(sys.argv[1])]
kind = sys.argv[2]
rec = {}
objs = {}
for l in open(sys.argv[3]):
    r = json.loads(l)
    if r.get("op") == "state_inode":
        objs[r["obj"]] = r["ino"]
    elif r.get("op") == "state_dentry" and r["name"].startswith("f"):
        rec[r["name"]] = objs[r["child"]]
ok = True
for prefix in ("f", "sub/f"):
    files = [(n, int(i)) for n, i in got if n.startswith(prefix)]
    by_ino = [n for n, i in sorted(files, key=lambda x: x[1])]
    base = lambda n: n.rsplit("/", 1)[-1]
    if kind == "creation":
        want = sorted(by_ino, key=lambda n: rec[base(n)])
    else:
        want = sorted(by_ino)
    if by_ino != want:
        print("%s order, %s*: inode order %s, want %s" % (kind, prefix, by_ino[:8], want[:8]),
              file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY
}

prepare_on creation && cp "$T/inos" "$T/inos.creation"
check_order "$T/inos.creation" creation || fail "--order=creation does not follow the recorded inode numbers"
check_order "$T/inos.creation" name 2>/dev/null && fail "--order=creation follows the names (test is void)"

prepare_on name && cp "$T/inos" "$T/inos.name"
check_order "$T/inos.name" name || fail "--order=name does not follow the names"

prepare_on random 5 && cp "$T/inos" "$T/inos.r5"
prepare_on random 5 && cp "$T/inos" "$T/inos.r5b"
prepare_on random 6 && cp "$T/inos" "$T/inos.r6"
cmp -s "$T/inos.r5" "$T/inos.r5b" || fail "--order=random --seed=5 twice gave different layouts"
cmp -s "$T/inos.r5" "$T/inos.r6" && fail "--seed=5 and --seed=6 gave the same layout"
check_order "$T/inos.r5" creation 2>/dev/null && fail "--order=random followed the recorded order"
check_order "$T/inos.r5" name 2>/dev/null && fail "--order=random followed the names"

finish
