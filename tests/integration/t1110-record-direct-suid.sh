#!/bin/sh
# t1110: a write clears the setuid and setgid bits as on the backing file
# system, in every cache mode and in the direct mode (where the kernel
# leaves it to the file system): written by uid 65534, a 04777 file ends
# 0777, a 02777 file 0777, a 02767 file of another group 0767; written by
# root, all keep their bits. Native runs on the backing file system give
# the expected modes. In the kernel mode the application's write stays in
# the page cache and the kernel's writeback carries no caller: a setgid file
# without group execute keeps its bit there (docs/recording.md, the kernel's
# limits), the rest is as native. Also the direct mode's other limit: a
# shared writable mmap fails with ENODEV there, and works in the others.
. "$(dirname "$0")/lib-record.sh"
need_fuse
command -v setpriv >/dev/null 2>&1 || skip "setpriv is missing (util-linux)"

U=65534
chmod 755 "$T"
mkdir "$T/m" "$T/b" "$T/native"
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }

# make DIR: the files, each written later by WHO (u: uid 65534, r: root)
make_files() {
	for who in u r; do
		for m in 4777 2777 2767 6777 0777; do
			f="$1/$who$m"
			: >"$f"
			chown 0:4242 "$f"
			chmod "$m" "$f"
		done
	done
}

# write_files DIR: writes one byte into each, as its writer
write_files() {
	for m in 4777 2777 2767 6777 0777; do
		as_user sh -c "printf x >>'$1/u$m'" || fail "uid $U cannot write $1/u$m"
		sh -c "printf x >>'$1/r$m'" || fail "root cannot write $1/r$m"
	done
}

# shared_mmap FILE: whether FILE can be mapped shared and writable
shared_mmap() {
	$PY -c 'import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    mmap.mmap(fd, 1, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE).close()
    print("shared mmap: ok")
except OSError as e:
    print("shared mmap:", os.strerror(e.errno))' "$1"
}

modes() {
	for f in "$1"/*; do
		printf '%s %s\n' "$(basename "$f")" "$(stat -c %a "$f")"
	done
}

make_files "$T/native"
write_files "$T/native"
shared_mmap "$T/native/u0777" >"$T/mmap.native"
expect_grep "$T/mmap.native" "shared mmap: ok"
modes "$T/native" >"$T/want"
expect_grep "$T/want" "u4777 777"
expect_grep "$T/want" "u2767 767"
expect_grep "$T/want" "r4777 4777"

for mode in direct calls all kernel; do
	rm -rf "$T/b" && mkdir "$T/b"
	make_files "$T/b"
	rec_start "$T/m" -q --cache=$mode -o "$T/t.trace" "$T/b" "$T/m" || exit 1
	write_files "$T/m"
	modes "$T/m" >"$T/got.mnt"
	shared_mmap "$T/m/u0777" >"$T/mmap.$mode"
	rec_stop "$T/m"
	modes "$T/b" >"$T/got.b"
	want="$T/want"
	if [ $mode = kernel ]; then
		sed 's/^u2767 767$/u2767 2767/' "$T/want" >"$T/want.kernel"
		want="$T/want.kernel"
	fi
	diff -u "$want" "$T/got.mnt" >&2 ||
		fail "--cache=$mode: modes through the mount differ from native"
	diff -u "$want" "$T/got.b" >&2 ||
		fail "--cache=$mode: modes of the backing files differ from native"
	# the kernel's limit (docs/recording.md): no shared mapping with direct I/O
	if [ $mode = direct ]; then
		expect_grep "$T/mmap.$mode" "shared mmap: No such device"
	else
		expect_grep "$T/mmap.$mode" "shared mmap: ok"
	fi
done
finish
