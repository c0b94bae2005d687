#!/bin/sh
# t2200: record, prepare, replay, end to end. A scripted workload (every
# kind of operation, on an initial tree it found) and each example workload
# at a small size (its setup phase natively, its run phase under `fstap
# record -- CMD`, so the trace starts from a real initial state) are
# recorded; the tree each application left is listed; then on a tmpfs and
# on loop-mounted ext4, xfs and btrfs images made here, `fstap prepare`
# recreates the initial state and `fstap replay` re-executes the trace:
# zero divergences (in --order=thread, the default, on every target; strict
# and resource too, and none for the single-threaded workloads, on the
# first), and the final tree equals the application's (names,
# types, sizes, modes, owners, user xattrs with their value sizes, link
# counts of non-directories, symlink targets; not times, inode numbers,
# contents or the sizes and link counts of directories, which differ between
# file systems and are not the application's doing; contents are not
# compared because prepare and replay write pseudo-random data).
#
# FSTAP_T2200_TARGETS limits the targets (e.g. "tmpfs ext4"), and
# FSTAP_T2200_WORKLOADS the workloads, for debugging; FSTAP_T2200_KEEP=DIR
# keeps the traces, trees and reports there.
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-replay.sh"

need_fuse
for c in losetup mount umount python3 mkfs.ext4 mkfs.xfs mkfs.btrfs; do
	command -v $c >/dev/null 2>&1 || skip "$c is needed"
done
EX="$FSTAP_BUILDDIR/examples"
[ -x "$EX/mdtest" ] || skip "the example programs are not built in '$EX'"

TARGETS=${FSTAP_T2200_TARGETS:-tmpfs ext4 xfs btrfs}
WORKLOADS=${FSTAP_T2200_WORKLOADS:-scripted news-spool mdtest samba-xattr index-update mixed}

# --- the targets: unmounted and detached on exit, whatever happened ---
LOOPS=""
MNTS=""
test_cleanup_extra() {
	if [ -n "${FSTAP_T2200_KEEP:-}" ]; then
		mkdir -p "$FSTAP_T2200_KEEP" && cp "$T"/*.trace "$T"/*.want "$T"/*.got "$T"/*.json \
			"$T"/*.out "$FSTAP_T2200_KEEP"/ 2>/dev/null
	fi
	for m in $MNTS; do
		if mountpoint -q "$m" 2>/dev/null; then umount "$m" 2>/dev/null || umount -l "$m"; fi
	done
	for d in $LOOPS; do losetup -d "$d" 2>/dev/null || true; done
}

mkdir "$T/mnt"
for fs in $TARGETS; do
	m="$T/mnt/$fs"
	mkdir "$m"
	MNTS="$MNTS $m"
	case $fs in
	tmpfs)
		mount -t tmpfs -o size=256m,mode=755 fstap-t2200 "$m" || skip "cannot mount a tmpfs"
		continue ;;
	xfs) size=300M; mkfs="mkfs.xfs -q -f" ;;
	btrfs) size=256M; mkfs="mkfs.btrfs -q -f" ;;
	ext4) size=256M; mkfs="mkfs.ext4 -q -F" ;;
	esac
	truncate -s $size "$T/$fs.img"
	dev=$(losetup -f --show "$T/$fs.img" 2>/dev/null) || skip "cannot set up a loop device"
	LOOPS="$LOOPS $dev"
	$mkfs "$dev" >"$T/mkfs.out" 2>&1 || { fail "mkfs $fs: $(cat "$T/mkfs.out")"; exit 1; }
	mount "$dev" "$m" || skip "cannot mount $fs"
done

# --- the tree an application left: one sorted line per object ---
cat >"$T/tree.py" <<'PY'
import os, stat, sys
root = sys.argv[1]
out = []
for d, dirs, files in os.walk(root):
    for n in [None] + dirs + files if d == root else dirs + files:
        p = d if n is None else os.path.join(d, n)
        st = os.lstat(p)
        rel = os.path.relpath(p, root)
        m = st.st_mode
        kind = ("d" if stat.S_ISDIR(m) else "l" if stat.S_ISLNK(m) else
                "f" if stat.S_ISREG(m) else "p" if stat.S_ISFIFO(m) else "o")
        line = "%s %s %o %d:%d" % (rel, kind, stat.S_IMODE(m), st.st_uid, st.st_gid)
        if kind != "d":
            line += " size=%d nlink=%d" % (st.st_size, st.st_nlink)
        if kind == "l":
            line += " -> " + os.readlink(p)
        else:
            xs = sorted(x for x in os.listxattr(p, follow_symlinks=False) if x.startswith("user."))
            for x in xs:
                line += " %s:%d" % (x, len(os.getxattr(p, x, follow_symlinks=False)))
        out.append(line)
print("\n".join(sorted(out)))
PY
tree() { python3 "$T/tree.py" "$1"; }

# --- the scripted workload: its initial tree, then every kind of call ---
cat >"$T/scripted.py" <<'PY'
import ctypes, os, sys
root, phase = sys.argv[1], sys.argv[2]
p = lambda *a: os.path.join(root, *a)
if phase == "setup":
    os.makedirs(p("old", "sub"))
    for name, size in (("a", 5000), ("b", 70000), ("c", 10), ("sub/d", 0)):
        with open(p("old", name), "wb") as f:
            f.write(os.urandom(size))
    os.chmod(p("old", "c"), 0o640)
    os.link(p("old", "a"), p("old", "a2"))
    os.symlink("a", p("old", "sa"))
    os.setxattr(p("old", "a"), "user.one", b"1234")
    os.setxattr(p("old", "sub"), "user.dir", b"xy")
    os.mkfifo(p("old", "fifo"), 0o600)
    sys.exit(0)

libc = ctypes.CDLL(None, use_errno=True)
def check(r):
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
def fallocate(fd, mode, off, length):
    check(libc.fallocate(fd, mode, ctypes.c_long(off), ctypes.c_long(length)))
def renameat2(a, b, flags):
    AT_FDCWD = -100
    check(libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), ctypes.c_uint(flags)))

os.mkdir(p("new"), 0o750)
fd = os.open(p("new", "f"), os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644)
os.write(fd, b"x" * 10000)
os.pwrite(fd, b"y" * 100, 20000)
os.fsync(fd)
os.close(fd)
fd = os.open(p("old", "b"), os.O_RDONLY)
while os.read(fd, 16384):
    pass
os.close(fd)
os.stat(p("old", "a"))
os.lstat(p("old", "sa"))
try:
    os.stat(p("new", "missing"))
except FileNotFoundError:
    pass
sorted(os.listdir(p("old")))
with os.scandir(p("old", "sub")) as it:
    [e.name for e in it]
fd = os.open(p("old", "a"), os.O_WRONLY | os.O_APPEND)
os.write(fd, b"z" * 3000)
os.fdatasync(fd)
os.close(fd)
os.rename(p("new", "f"), p("new", "g"))
os.rename(p("old", "c"), p("old", "b"))          # over an existing file
os.link(p("new", "g"), p("new", "h"))
os.symlink("../old/a", p("new", "s"))
os.readlink(p("new", "s"))
os.chmod(p("new", "g"), 0o600)
os.chmod(p("old", "sub"), 0o700)
os.truncate(p("new", "g"), 5000)
os.truncate(p("old", "a"), 100000)               # grows, sparse
os.utime(p("new", "g"), ns=(1000000000123456789, 1000000000987654321))
os.setxattr(p("new", "g"), "user.k", b"v1", os.XATTR_CREATE)
os.setxattr(p("new", "g"), "user.k", b"value2", os.XATTR_REPLACE)
os.setxattr(p("new"), "user.dir", b"yes")
os.getxattr(p("new", "g"), "user.k")
os.listxattr(p("new", "g"))
os.getxattr(p("old", "a"), "user.one")
os.removexattr(p("old", "a"), "user.one")
os.setxattr(p("old", "a"), "user.two", b"22")
try:
    os.getxattr(p("new", "g"), "user.none")
except OSError:
    pass
fd = os.open(p("new", "g"), os.O_RDWR)
fallocate(fd, 0, 0, 16384)
fallocate(fd, 3, 4096, 4096)                     # punch a hole, keep the size
fallocate(fd, 1, 16384, 8192)                    # keep size: no change of size
os.lseek(fd, 0, os.SEEK_DATA)
os.close(fd)
src = os.open(p("old", "b"), os.O_RDONLY)
dst = os.open(p("new", "copy"), os.O_CREAT | os.O_WRONLY, 0o640)
os.copy_file_range(src, dst, 10)
os.close(src)
os.close(dst)
fd = os.open(p("new"), os.O_RDONLY | os.O_DIRECTORY)
os.fsync(fd)
os.close(fd)
os.mkdir(p("new", "tmp"))
open(p("new", "tmp", "x"), "w").close()
try:
    os.rmdir(p("new", "tmp"))
except OSError:
    pass
os.unlink(p("new", "tmp", "x"))
os.rmdir(p("new", "tmp"))
os.unlink(p("old", "a2"))                         # one of two links
os.unlink(p("old", "fifo"))
renameat2(p("new", "h"), p("old", "sa"), 2)      # RENAME_EXCHANGE
try:
    renameat2(p("new", "copy"), p("new", "g"), 1)  # RENAME_NOREPLACE: EEXIST
except OSError:
    pass
os.rename(p("old", "sub"), p("new", "moved"))    # a directory, with its entries
os.mkfifo(p("new", "pipe"), 0o644)
PY

# run_workload NAME DIR: setup natively, then record the run phase.
SMALL_NEWS="-n 300 --groups=4 --article-size=4K"
SMALL_MD="-t 2 -n 150 --bytes=2048"
SMALL_SAMBA="-t 3 -n 150 --files=200 --dirs=2 --max-file-size=16K"
SMALL_INDEX="-t 2 -n 150 --db-size=2M --updates=2"
SMALL_MIXED="-t 2 -n 200 --max-file-size=8K --stream-size=2M --stream-write=256K --records=40"
record_workload() {
	w=$1 d=$2
	case $w in
	scripted)
		python3 "$T/scripted.py" "$d" setup
		set -- python3 "$T/scripted.py" "$d" run ;;
	news-spool)
		"$EX/news-spool" -d "$d" $SMALL_NEWS setup >/dev/null
		set -- "$EX/news-spool" -d "$d" $SMALL_NEWS run ;;
	mdtest)
		# files made before: stat, read, remove them; then make new ones
		mkdir "$d/before" "$d/during"
		"$EX/mdtest" -d "$d/before" $SMALL_MD create >/dev/null
		set -- sh -c "'$EX/mdtest' -d '$d/before' $SMALL_MD stat read remove &&
			'$EX/mdtest' -d '$d/during' $SMALL_MD --shared create stat read" ;;
	samba-xattr)
		"$EX/samba-xattr" -d "$d" $SMALL_SAMBA setup >/dev/null
		set -- "$EX/samba-xattr" -d "$d" $SMALL_SAMBA run ;;
	index-update)
		"$EX/index-update" -d "$d" $SMALL_INDEX setup >/dev/null
		set -- "$EX/index-update" -d "$d" $SMALL_INDEX run ;;
	mixed)
		"$EX/mixed" -d "$d" $SMALL_MIXED setup >/dev/null
		set -- "$EX/mixed" -d "$d" $SMALL_MIXED run ;;
	esac
	REC_MOUNTS="$REC_MOUNTS $d"
	"$FSTAP" record -q -o "$T/$w.trace" "$d" -- "$@" >"$T/$w.app.out" 2>"$T/$w.rec.err" || {
		fail "$w: fstap record -- $* failed: $(head -c 600 "$T/$w.rec.err")"
		return 1
	}
	is_mounted "$d" && { fail "$w: still mounted after fstap record -- CMD"; return 1; }
	"$FSTAP" info "$T/$w.trace" >"$T/$w.info"
	grep -q "lost:      0 records" "$T/$w.info" || { fail "$w: records lost"; return 1; }
	return 0
}

# roundtrip W FS ORDER: prepare W's initial state on FS, replay W's trace
# there in ORDER, compare.
roundtrip() {
	w=$1 fs=$2 order=$3
	dir="$T/mnt/$fs/$w"
	what="$w on $fs (--order=$order)"
	mkdir "$dir"
	"$FSTAP" prepare -q "$T/$w.trace" "$dir" >"$T/out" 2>"$T/err" || {
		fail "$what: prepare failed: $(head -c 600 "$T/err")"
		return 1
	}
	[ -s "$T/err" ] && fail "$what: prepare warned: $(head -c 600 "$T/err")"
	j="$T/$w.$fs.$order.json"
	"$FSTAP" replay --order=$order --json="$j" "$T/$w.trace" "$dir" >"$T/$w.$fs.$order.out" 2>"$T/err" || {
		fail "$what: replay failed: $(head -c 600 "$T/err")"
		return 1
	}
	div=$(json_get "$j" 'j["runs"][0]["divergences"]')
	[ "$div" = 0 ] || fail "$what: $div divergences: $(json_get "$j" 'j["runs"][0]["divergence"]' | head -c 1500)"
	open=$(json_get "$j" 'j["runs"][0]["handles_left_open"]')
	[ "$open" = 0 ] || fail "$what: $open handles left open"
	tree "$dir" >"$T/$w.$fs.$order.got"
	diff -u "$T/$w.want" "$T/$w.$fs.$order.got" >"$T/diff" ||
		fail "$what: the final tree differs from the application's: $(head -c 2000 "$T/diff")"
	rm -rf "$dir"
}

for w in $WORKLOADS; do
	mkdir "$T/app-$w"
	record_workload $w "$T/app-$w" || continue
	tree "$T/app-$w" >"$T/$w.want"
	for fs in $TARGETS; do
		roundtrip $w $fs thread
	done
	# the other orders on the first target; per-thread order alone (none)
	# only where the application had one thread (and the kernel's closes)
	first=${TARGETS%% *}
	roundtrip $w $first strict
	roundtrip $w $first resource
	case $w in scripted|news-spool) roundtrip $w $first none ;; esac
	[ -n "${FSTAP_T2200_VERBOSE:-}" ] && echo "$w: $(grep -c . "$T/$w.want") objects," \
		"$(grep '^ops:' "$T/$w.$first.thread.out")" >&2
	rm -rf "$T/app-$w"
done

finish
