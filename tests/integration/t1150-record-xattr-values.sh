#!/bin/sh
# t1150: the recorder keeps xattr values (--xattr-values): the values in the
# trace equal what the application set and read, byte for byte (binary
# values, POSIX ACLs), and what the initial state held; system.* values are
# kept under every setting, user.* values up to the limit (default 4096
# bytes), all of them with =all, none with =none; a value left out keeps
# its size (setxattr's size, getxattr's result, the state's xattr_sizes),
# and prepare gives such an xattr that many bytes. Bad settings are usage
# errors. The backing file system is a small loop-mounted ext4 with ea_inode
# (user xattrs, ACLs, values larger than a block).
. "$(dirname "$0")/lib-record.sh"
need_fuse
command -v setfacl >/dev/null 2>&1 || skip "setfacl is missing (apt-get install acl)"
command -v setfattr >/dev/null 2>&1 || skip "setfattr is missing (apt-get install attr)"
command -v mkfs.ext4 >/dev/null 2>&1 || skip "mkfs.ext4 is missing (e2fsprogs)"
command -v losetup >/dev/null 2>&1 || skip "losetup is missing (util-linux)"

LOOP=""
test_cleanup_extra() {
	rec_cleanup
	if is_mounted "$T/b"; then umount "$T/b" 2>/dev/null || umount -l "$T/b" || true; fi
	if [ -n "$LOOP" ]; then losetup -d "$LOOP" 2>/dev/null || true; fi
}

mkdir "$T/b"
truncate -s 64M "$T/ext4.img"
mkfs.ext4 -q -F -b 4096 -O ea_inode "$T/ext4.img" || skip "mkfs.ext4 failed"
LOOP=$(losetup -f --show "$T/ext4.img" 2>/dev/null) || skip "no loop device"
mount -t ext4 "$LOOP" "$T/b" || skip "cannot mount ext4 on $LOOP"

# A value of N pseudo-random bytes as setfattr's 0x hex form.
hexval() { head -c "$1" /dev/urandom | od -An -v -tx1 | tr -d ' \n'; }
SMALL=0x00ff4100de	# binary, with NUL bytes
BIG=0x$(hexval 6000)	# above the default limit
LARGE=0x$(hexval 5000)
echo "$BIG" > "$T/big.hex"
echo "$LARGE" > "$T/large.hex"

# The application: sets and reads values, some binary, an ACL and a default ACL.
cat > "$T/app.sh" <<EOF
set -e
cd "$T/b"
setfattr -n user.a -v hello f
setfattr -n user.bin -v $SMALL f
setfattr -n user.large -v \$(cat "$T/large.hex") f
setfacl -m u:1000:rwx,g:100:r f
mkdir d
setfacl -d -m u:1000:rx d
getfattr -n user.a f >/dev/null
getfattr -n user.pre f >/dev/null
getfattr -n user.large f >/dev/null
getfattr -n system.posix_acl_access f >/dev/null
EOF

# run SETTING: a fresh tree, the app recorded with --xattr-values=SETTING
# (empty: the default), the trace exported to $T/SETTING.jsonl.
run() {
	rm -rf "$T/b/f" "$T/b/d" "$T/b/pre"
	echo data > "$T/b/f"
	setfattr -n user.pre -v $SMALL "$T/b/f"
	mkdir "$T/b/pre"
	setfattr -n user.big -v "$BIG" "$T/b/pre"
	setfattr -n user.small -v small "$T/b/pre"
	setfacl -m u:1000:rw "$T/b/pre"
	opt=${1:+--xattr-values=$1}
	# shellcheck disable=SC2086
	expect_exit 0 "$FSTAP" record -q $opt -o "$T/${1:-default}.trace" "$T/b" -- sh "$T/app.sh" ||
		return 1
	rec_export "$T/${1:-default}.trace" "$T/${1:-default}.jsonl"
	# what the application left, to compare with the trace
	getfattr --absolute-names -e hex -n system.posix_acl_access "$T/b/f" | sed -n 's/^system.posix_acl_access=0x//p' \
		> "$T/${1:-default}.acl"
	getfattr --absolute-names -e hex -n system.posix_acl_default "$T/b/d" | sed -n 's/^system.posix_acl_default=0x//p' \
		> "$T/${1:-default}.dacl"
	getfattr --absolute-names -e hex -n system.posix_acl_access "$T/b/pre" | sed -n 's/^system.posix_acl_access=0x//p' \
		> "$T/${1:-default}.pacl"
}

# check SETTING USER_LIMIT: the values in the trace against what was set.
check() {
	$PY - "$T" "${1:-default}" "$2" "$SMALL" <<'EOF' || fail "${1:-default}: values in the trace"
import json, sys
T, name, limit, small = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4][2:]
recs = [json.loads(l) for l in open("%s/%s.jsonl" % (T, name))][1:]
def hexof(v):
    if v is None: return None
    if isinstance(v, dict): return v["hex"]
    return v.encode("utf-8").hex()
def rd(f): return open("%s/%s" % (T, f)).read().strip()
big, large = rd("big.hex")[2:], rd("large.hex")[2:]
acl, dacl, pacl = rd(name + ".acl"), rd(name + ".dacl"), rd(name + ".pacl")
bad = []
def expect(what, got, want):
    if got != want:
        bad.append("%s: %s, expected %s" % (what, str(got)[:80], str(want)[:80]))
def kept(v, n):   # what the trace must hold for a user.* value of n bytes
    return v if n <= limit else None
sets = {r["name"] if isinstance(r["name"], str) else r["name"]["hex"]: r
        for r in recs if r["op"] == "setxattr" and r["res"] == 0}
gets = {}
for r in recs:
    if r["op"] == "getxattr" and r["res"] > 0 and r.get("size", 0) > 0:
        gets[r["name"]] = r
for nm, want, n in (("user.a", "hello".encode().hex(), 5), ("user.bin", small, 5),
                    ("user.large", large, 5000)):
    r = sets.get(nm)
    if r is None:
        bad.append("no setxattr of " + nm); continue
    expect("setxattr %s size" % nm, r.get("size"), n)
    expect("setxattr %s value" % nm, hexof(r.get("value")), kept(want, n))
for nm, want in (("system.posix_acl_access", acl),):
    r = sets.get(nm)
    if r is None or not want:
        bad.append("no setxattr of %s (or no ACL left)" % nm); continue
    expect("setxattr %s value" % nm, hexof(r.get("value")), want)
r = sets.get("system.posix_acl_default")
expect("setxattr system.posix_acl_default value", hexof(r and r.get("value")), dacl)
for nm, want, n in (("user.a", "hello".encode().hex(), 5), ("user.pre", small, 5),
                    ("user.large", large, 5000), ("system.posix_acl_access", acl, len(acl) // 2)):
    r = gets.get(nm)
    if r is None:
        bad.append("no getxattr result of " + nm); continue
    expect("getxattr %s result" % nm, r["res"], n)
    expect("getxattr %s value" % nm, hexof(r.get("value")),
           want if nm.startswith("system.") else kept(want, n))
# the initial state of pre/: values under the same rule, sizes of those left out
st = [r for r in recs if r["op"] == "state_inode" and
      any(x["name"] == "user.big" for x in r.get("xattrs", []))]
if len(st) != 1:
    bad.append("%d state_inode records with user.big" % len(st))
else:
    xs, sizes = st[0]["xattrs"], st[0].get("xattr_sizes")
    want = {"user.big": (big, 6000), "user.small": ("small".encode().hex(), 5),
            "system.posix_acl_access": (pacl, len(pacl) // 2)}
    expect("state xattr names", sorted(x["name"] for x in xs), sorted(want))
    left_out = False
    for i, x in enumerate(xs):
        v, n = want.get(x["name"], (None, 0))
        w = v if x["name"].startswith("system.") else kept(v, n)
        expect("state %s value" % x["name"], hexof(x["value"]) or None, w)
        left_out = left_out or w is None
        if sizes is not None:
            expect("state %s size" % x["name"], sizes[i], n)
    expect("state xattr_sizes present", sizes is not None, left_out)
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
}

run && check "" 4096
run none && check none 0
run all && check all 4294967295
run 5 && check 5 5

# The metadata names the setting.
expect_grep "$T/default.jsonl" '"xattr_values":4096'
expect_grep "$T/none.jsonl" '"xattr_values":"none"'
expect_grep "$T/all.jsonl" '"xattr_values":"all"'

# prepare gives a value left out its size, a kept one its bytes.
mkdir "$T/b/p1" "$T/b/p2"
expect_exit 0 "$FSTAP" prepare "$T/default.trace" "$T/b/p1"
expect_exit 0 "$FSTAP" prepare "$T/none.trace" "$T/b/p2"
for p in p1 p2; do
	n=$(getfattr --absolute-names --only-values -n user.big "$T/b/$p/pre" | wc -c)
	[ "$n" = 6000 ] || fail "$p: user.big has $n bytes, expected 6000"
	getfattr --absolute-names -e hex -n system.posix_acl_access "$T/b/$p/pre" | grep -qF "=0x$(cat "$T/default.pacl")" ||
		fail "$p: the ACL of pre is not the recorded one"
done
[ "$(getfattr --absolute-names --only-values -n user.small "$T/b/p1/pre")" = small ] ||
	fail "p1: user.small is not the recorded value"
v=$(getfattr --absolute-names --only-values -n user.small "$T/b/p2/pre" | wc -c)
[ "$v" = 5 ] || fail "p2: user.small has $v bytes, expected 5"

# Bad settings.
for bad in bogus -1 5x 4294967295; do
	expect_exit 2 "$FSTAP" record --xattr-values=$bad "$T/b" &&
		expect_grep "$T/err" "fstap record: bad --xattr-values '$bad'"
done
"$FSTAP" record --help | grep -q -- "--xattr-values=all|SIZE|none" ||
	fail "record --help does not document --xattr-values"
finish
