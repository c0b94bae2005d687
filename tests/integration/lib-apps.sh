# lib-apps.sh: real applications recorded with `fstap record DIR -- CMD`,
# then prepared and replayed on fresh loop-mounted ext4, xfs and btrfs
# images, each replay checked against what the application did: zero
# divergences and a final tree equal to the application's. Sourced by a
# test (it sources lib-record.sh, hence lib.sh, and lib-replay.sh itself):
#
#   . "$(dirname "$0")/lib-apps.sh"
#   need_apps                   skip (77; a failure under CI=true) without
#                               root, FUSE, losetup, mkfs.ext4/xfs/btrfs
#   app_record NAME DIR SCRIPT  runs `fstap record -o $T/NAME.trace DIR --
#                               sh -c SCRIPT` with SCRIPT starting in DIR
#                               (after the mount), its output in
#                               $T/NAME.out; fails unless the command and the
#                               recorder exit 0 and no record is lost. The
#                               tree SCRIPT left is $T/NAME.want. Set DIR up
#                               natively first: that is the initial state.
#   app_replay NAME FS [ARGS]   on a fresh FS image (ext4, xfs or btrfs):
#                               `fstap prepare` and `fstap replay ARGS
#                               --json=$T/NAME.FS.json` at its root (as
#                               compare does); the tree it left is
#                               $T/NAME.FS.got, the divergences
#                               $APP_DIVERGENCES; the image is gone after.
#                               If the test defines app_after_prepare, it
#                               runs between the two, with the mount point
#   app_check NAME [FS...]      app_replay on each FS ($APP_FS: ext4 xfs
#                               btrfs): fails unless 0 divergences and
#                               got == want
#   app_tree DIR                the tree below DIR as compared: path, type
#                               and mode, owner, link count (not of
#                               directories), size, xattr names and values,
#                               symlink target (record-tools.py tree
#                               --replayed); not times, contents (replay
#                               writes other bytes) or inode numbers
#
# APP_KEEP=DIR keeps the traces, trees, outputs and reports there (debugging).
# The images are $APP_IMAGE_SIZE (default 300M, xfs's minimum) sparse files
# in $T. Every mount and loop device is undone on exit, whatever happened;
# a test that needs its own cleanup defines apps_cleanup_extra (not
# test_cleanup_extra, which this file defines).

. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-replay.sh"

APP_FS=${APP_FS:-ext4 xfs btrfs}
APP_IMAGE_SIZE=${APP_IMAGE_SIZE:-300M}
APP_DIVERGENCES=""
APP_MNT=""
APP_DEV=""

test_cleanup_extra() {
	if command -v apps_cleanup_extra >/dev/null 2>&1; then apps_cleanup_extra || true; fi
	app_image_release
	if [ -n "${APP_KEEP:-}" ]; then
		mkdir -p "$APP_KEEP" && cp "$T"/*.trace "$T"/*.want "$T"/*.got "$T"/*.json \
			"$T"/*.out "$APP_KEEP"/ 2>/dev/null
	fi
	return 0
}

need_apps() {
	need_fuse
	for c in losetup mount umount mkfs.ext4 mkfs.xfs mkfs.btrfs; do
		command -v $c >/dev/null 2>&1 || skip "$c is needed"
	done
}

app_tree() {
	$PY "$TOOLS" tree "$1" --replayed
}

app_record() {
	name=$1 dir=$2 script=$3
	"$FSTAP" record -o "$T/$name.trace" "$dir" -- sh -c 'cd "$1" && eval "$2"' app "$dir" "$script" \
		>"$T/$name.out" 2>"$T/$name.rec.err" || {
		fail "$name: fstap record -- sh -c '$script' failed: $(head -c 800 "$T/$name.rec.err")"
		return 1
	}
	is_mounted "$dir" && { fail "$name: '$dir' still mounted after fstap record"; return 1; }
	"$FSTAP" info --json "$T/$name.trace" >"$T/$name.info.json" || {
		fail "$name: fstap info failed on the trace"
		return 1
	}
	lost=$(json_get "$T/$name.info.json" 'j["footer"]["lost"]')
	[ "$lost" = 0 ] || { fail "$name: $lost records lost"; return 1; }
	app_tree "$dir" >"$T/$name.want"
}

# app_image FS: a fresh FS file system on a loop device, mounted at $APP_MNT.
app_image() {
	fs=$1
	case $fs in
	ext4) mkfs="mkfs.ext4 -q -F" ;;
	xfs) mkfs="mkfs.xfs -q -f" ;;
	btrfs) mkfs="mkfs.btrfs -q -f" ;;
	*) fail "no such file system '$fs'"; return 1 ;;
	esac
	rm -f "$T/app.img"
	truncate -s "$APP_IMAGE_SIZE" "$T/app.img"
	APP_DEV=$(losetup -f --show "$T/app.img" 2>/dev/null) || skip "cannot set up a loop device"
	$mkfs "$APP_DEV" >"$T/mkfs.out" 2>&1 || { fail "mkfs $fs: $(cat "$T/mkfs.out")"; return 1; }
	APP_MNT="$T/mnt-$fs"
	mkdir -p "$APP_MNT"
	mount "$APP_DEV" "$APP_MNT" || skip "cannot mount $fs"
}

app_image_release() {
	if [ -n "$APP_MNT" ] && mountpoint -q "$APP_MNT" 2>/dev/null; then
		umount "$APP_MNT" 2>/dev/null || umount -l "$APP_MNT"
	fi
	[ -n "$APP_DEV" ] && losetup -d "$APP_DEV" 2>/dev/null
	APP_MNT="" APP_DEV=""
	rm -f "$T/app.img"
}

app_replay() {
	name=$1 fs=$2
	shift 2
	APP_DIVERGENCES=""
	app_image "$fs" || { app_image_release; return 1; }
	j="$T/$name.$fs.json"
	if ! "$FSTAP" prepare -q "$T/$name.trace" "$APP_MNT" >"$T/out" 2>"$T/err"; then
		fail "$name on $fs: prepare failed: $(head -c 600 "$T/err")"
	elif command -v app_after_prepare >/dev/null 2>&1 && ! app_after_prepare "$APP_MNT"; then
		fail "$name on $fs: app_after_prepare failed"
	elif ! "$FSTAP" replay "$@" --json="$j" "$T/$name.trace" "$APP_MNT" \
		>"$T/$name.$fs.out" 2>"$T/err"; then
		fail "$name on $fs: replay failed: $(head -c 600 "$T/err")"
	else
		APP_DIVERGENCES=$(json_get "$j" 'j["runs"][0]["divergences"]')
		# a fresh ext4's own lost+found is not the application's
		app_tree "$APP_MNT" >"$T/$name.$fs.got"
		if ! grep -q '^lost+found ' "$T/$name.want"; then
			grep -v '^lost+found\( \|/\)' "$T/$name.$fs.got" >"$T/got" || true
			mv "$T/got" "$T/$name.$fs.got"
		fi
	fi
	app_image_release
	[ -n "$APP_DIVERGENCES" ]
}

app_check() {
	name=$1
	shift
	[ $# -gt 0 ] || set -- $APP_FS
	for fs in "$@"; do
		app_replay "$name" "$fs" || continue
		[ "$APP_DIVERGENCES" = 0 ] ||
			fail "$name on $fs: $APP_DIVERGENCES divergences: $(json_get "$T/$name.$fs.json" \
				'j["runs"][0]["divergence"]' | head -c 1500)"
		diff -u "$T/$name.want" "$T/$name.$fs.got" >"$T/diff" ||
			fail "$name on $fs: the final tree differs from the application's: $(head -c 2000 "$T/diff")"
	done
}
