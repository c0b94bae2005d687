#!/bin/sh
# t2310: programs that copy trees with their POSIX ACLs and user xattrs,
# recorded with `fstap record DIR -- CMD`, prepared and replayed at the root
# of fresh ext4, xfs and btrfs images (lib-apps.sh): zero divergences and
# the application's final tree, xattr names and values (the ACLs' included)
# and modes, on each.
#
# The source tree (the initial state the snapshot records): directories
# 0755 and 0750 with a default ACL, files 0644, 0600 and 0755 with access
# ACLs (named users and groups, a mask), user xattrs (text, binary with NUL
# bytes, 700 bytes: under the default --xattr-values limit, and small enough
# for the one 1 KiB block a small ext4 gives xattrs), a symlink and
# a hard link.
#
#  - cp-a: `cp -a src copy` (copies each ACL with fsetxattr of
#    system.posix_acl_access / _default, which also sets the mode);
#  - tar: `tar --xattrs --xattrs-include='*' --acls` into an archive in the
#    tree, then extracted into out/.
#
# Without recorded values the ACL setxattrs replay as pseudo-random bytes
# (EOPNOTSUPP) and the copies end with other modes and no ACLs.
# FSTAP_T2310_APPS limits the applications ("cp-a tar"), APP_FS the file
# systems, for debugging.
. "$(dirname "$0")/lib-apps.sh"

need_apps
for c in setfacl getfacl setfattr tar cp; do
	command -v $c >/dev/null 2>&1 || skip "$c is missing (apt-get install acl attr tar coreutils)"
done
APPS=${FSTAP_T2310_APPS:-cp-a tar}

want_app() {
	case " $APPS " in *" $1 "*) return 0 ;; esac
	return 1
}

# make_src DIR: the source tree below DIR/src, natively.
make_src() {
	s=$1/src
	mkdir -p "$s/docs/sub" "$s/private" "$s/bin"
	printf 'readme\n' >"$s/README"
	printf 'secret\n' >"$s/private/key"
	printf '#!/bin/sh\necho hi\n' >"$s/bin/run"
	head -c 10000 /dev/zero >"$s/docs/sub/data"
	printf 'notes\n' >"$s/docs/notes"
	ln -s ../README "$s/docs/readme-link"
	ln "$s/docs/notes" "$s/docs/notes-hardlink"
	chmod 0644 "$s/README" "$s/docs/notes" "$s/docs/sub/data"
	chmod 0600 "$s/private/key"
	chmod 0755 "$s/bin/run" "$s/docs" "$s/docs/sub" "$s/bin"
	chmod 0750 "$s/private"
	setfacl -m u:1000:rw-,g:100:r--,m::rw- "$s/README"
	setfacl -m u:1001:r-- "$s/private/key"
	setfacl -m g:100:r-x "$s/bin/run"
	setfacl -m u:1000:rwx "$s/private"
	setfacl -d -m u:1000:rwx,g:100:r-x "$s/docs"
	setfacl -d -m o::--- "$s/private"
	setfattr -n user.origin -v "https://example.org/readme" "$s/README"
	setfattr -n user.bin -v 0x00ff0041ff00 "$s/docs/notes"
	setfattr -n user.checksum -v "0x$(head -c 700 /dev/urandom | od -An -v -tx1 | tr -d ' \n')" \
		"$s/docs/sub/data"
	setfattr -n user.dir -v tagged "$s/docs/sub"
}

# check_acls NAME: the application's tree has the ACLs it copied (so the
# comparison below covers them).
check_acls() {
	grep -q "system.posix_acl_access=" "$T/$1.want" ||
		fail "$1: the application's tree has no access ACL: $(head -c 600 "$T/$1.want")"
	grep -q "system.posix_acl_default=" "$T/$1.want" ||
		fail "$1: the application's tree has no default ACL"
}

# --- cp -a: modes, owners, ACLs and xattrs copied ---
if want_app cp-a; then
	mkdir "$T/cp"
	make_src "$T/cp"
	app_record cp-a "$T/cp" 'cp -a src copy && getfacl -R copy >/dev/null'
	check_acls cp-a
	getfacl -n "$T/cp/copy/README" | grep -q "^user:1000:rw-" || fail "cp -a did not copy the ACL"
	# the ACL setxattrs carry their values in the trace
	rec_export "$T/cp-a.trace" "$T/cp-a.jsonl"
	[ "$(jq_count '.op == "setxattr" and (.name | tostring | startswith("system.posix_acl")) and
		.res == 0 and .value == null' "$T/cp-a.jsonl")" = 0 ] ||
		fail "cp-a: ACL setxattrs without their value in the trace"
	[ "$(jq_count '.op == "setxattr" and (.name | tostring | startswith("system.posix_acl"))' \
		"$T/cp-a.jsonl")" -ge 5 ] || fail "cp-a: fewer than 5 ACL setxattrs recorded"
	app_check cp-a
fi

# --- tar --xattrs --acls: archived, then extracted ---
if want_app tar; then
	mkdir "$T/tar"
	make_src "$T/tar"
	app_record tar "$T/tar" \
		"tar --xattrs --xattrs-include='*' --acls -cf src.tar src && mkdir out &&
		 tar --xattrs --xattrs-include='*' --acls -xf src.tar -C out"
	check_acls tar
	grep -q "^out/src/docs/notes .*user.bin=b'\\\\x00\\\\xff\\\\x00A\\\\xff\\\\x00'" "$T/tar.want" ||
		fail "tar: the binary user.bin is not in the extracted tree: $(grep 'out/src/docs/notes ' "$T/tar.want")"
	app_check tar
fi
finish
