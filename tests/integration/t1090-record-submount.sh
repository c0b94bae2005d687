#!/bin/sh
# t1090: a file system mounted below the backing directory (a tmpfs on
# b/sub) is served through the mount, described by the snapshot, and named
# consistently: the object a lookup finds is the one the snapshot described
# and the one a listing of its directory names. With --snapshot=full (the
# walk) and --snapshot=touched (objects described when first met). The
# backing tree's inode numbers and the tmpfs's overlap; objects must not.
. "$(dirname "$0")/lib-record.sh"
need_fuse

SUBMOUNTED=0
test_cleanup_extra() {
	if [ "$SUBMOUNTED" = 1 ]; then umount "$T/b/sub" 2>/dev/null || umount -l "$T/b/sub"; fi
}
mkdir -p "$T/b/sub" "$T/b/top" "$T/m"
echo upper >"$T/b/top/f"
mount -t tmpfs -o size=4m tmpfs "$T/b/sub" || skip "cannot mount a tmpfs on $T/b/sub"
SUBMOUNTED=1
mkdir "$T/b/sub/d"
echo lower-file >"$T/b/sub/d/f"
echo other >"$T/b/sub/d/g"

for snap in full touched; do
	rec_start "$T/m" -q --snapshot=$snap -o "$T/$snap.trace" "$T/b" "$T/m" || exit 1
	got=$(cat "$T/m/sub/d/f") || fail "$snap: cannot read sub/d/f through the mount"
	[ "$got" = lower-file ] || fail "$snap: sub/d/f reads '$got'"
	ls "$T/m/sub/d" >"$T/ls" || fail "$snap: cannot list sub/d"
	[ "$(tr '\n' ' ' <"$T/ls")" = "f g " ] || fail "$snap: sub/d lists $(tr '\n' ' ' <"$T/ls")"
	cat "$T/m/top/f" >/dev/null || fail "$snap: cannot read top/f"
	rec_stop "$T/m" || exit 1
	rec_export "$T/$snap.trace" "$T/$snap.jsonl" || exit 1
	j="$T/$snap.jsonl"

	# what the lookups found
	fobj=$(jq -c 'select(.op == "lookup" and .name == "f" and .res == 0) | .child' "$j" | sort -u)
	dobj=$(jq -c 'select(.op == "lookup" and .name == "d" and .res == 0) | .child' "$j" | sort -u)
	[ "$(echo "$fobj" | wc -l)" = 2 ] ||
		fail "$snap: lookups of the two f (top/f, sub/d/f) found objects '$(echo $fobj)'"
	subf=$(jq -c "select(.op == \"lookup\" and .name == \"f\" and .res == 0 and .obj == $dobj) | .child" "$j" | sort -u)
	[ -n "$subf" ] || fail "$snap: no lookup of f in d (object $dobj)"
	# the snapshot describes sub/d/f as that object, with its size
	[ "$(jq_count ".op == \"state_dentry\" and .obj == $dobj and .name == \"f\" and .child == $subf" "$j")" = 1 ] ||
		fail "$snap: the snapshot has no entry f -> $subf in d ($dobj): $(jq -c 'select(.op == "state_dentry")' "$j" | tr '\n' ' ')"
	[ "$(jq_count ".op == \"state_inode\" and .obj == $subf and .size == 11" "$j")" = 1 ] ||
		fail "$snap: the snapshot does not describe $subf with its 11 bytes"
	# the listing of d names f and g as the objects the snapshot gave them
	ents=$(jq -c 'select(.op == "readdir" and (.entries // [] | length) > 0) | .entries | map(select(.name == "f" or .name == "g")) | map([.name, .obj]) | sort' "$j" | head -n 1)
	gobj=$(jq -c "select(.op == \"state_dentry\" and .obj == $dobj and .name == \"g\") | .child" "$j")
	[ "$ents" = "[[\"f\",$subf],[\"g\",$gobj]]" ] ||
		fail "$snap: the listing of d names $ents, the snapshot f -> $subf, g -> $gobj"
done
finish
