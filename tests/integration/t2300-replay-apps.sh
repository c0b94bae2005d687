#!/bin/sh
# t2300: real programs recorded with `fstap record DIR -- CMD`, prepared and
# replayed at the root of fresh ext4, xfs and btrfs images (lib-apps.sh):
# zero divergences and the application's final tree (names, types, modes,
# owners, link counts, sizes, xattrs, symlink targets) on each.
#
#  - link-unlink: `echo data > part && ln part final && rm part && stat final
#    && cat final && chmod 600 final`. After the unlink, every operation on
#    the object goes to /final (export and filter --path=/final show it),
#    and final ends 0600.
#  - open-unlinked: a file opened, unlinked, then stat()ed through
#    /dev/fd and read: the kernel's GETATTR of an object with no name left
#    is replayed on its open handle.
#  - root listing: a trace that lists its root, replayed at the root of a
#    fresh ext4 (which has a lost+found the trace never saw): no readdir
#    divergence. An entry the trace knew before the listing (it looked the
#    name up) still counts when the target has it and the recording's
#    listing had not.
#  - maildir: safecat delivers 40 messages (write in tmp/, link into new/,
#    unlink from tmp/), then a reader lists new/, moves each message to cur/
#    with its flags, and reads them.
#  - git: init, add and commit of FSTAP_T2300_GIT_FILES files (default
#    2000, in 20 directories), a branch, changes committed on it, checkout
#    back, gc (loose objects linked into place and pruned, packs written).
#
# FSTAP_T2300_APPS limits the applications (e.g. "maildir git") and APP_FS
# the file systems, for debugging.
. "$(dirname "$0")/lib-apps.sh"

need_apps
APPS=${FSTAP_T2300_APPS:-link-unlink open-unlinked root-listing maildir git}
GIT_FILES=${FSTAP_T2300_GIT_FILES:-2000}

want_app() {
	case " $APPS " in *" $1 "*) return 0 ;; esac
	return 1
}

# --- link-unlink: a second name, then the first one removed ---
if want_app link-unlink; then
	mkdir "$T/link"
	app_record link "$T/link" \
		'echo data > part && ln part final && rm part && stat final >/dev/null && cat final &&
		 chmod 600 final'
	expect_grep "$T/link.out" "data"
	expect_grep "$T/link.want" "final 0o100600 0:0 nlink=1 5"
	# the operations after the unlink name the surviving name
	rec_export "$T/link.trace" "$T/link.jsonl"
	jq -c 'select(.op != "process" and .op != "footer" and .path != null)' "$T/link.jsonl" |
		awk '/"op":"unlink"/ { after = 1; next } after' >"$T/after"
	[ "$(jq_count '.path == "/part"' "$T/after")" = 0 ] ||
		fail "export names the removed /part after the unlink: $(grep '"/part"' "$T/after" | head -c 600)"
	for op in getattr open read setattr; do
		[ "$(jq_count ".op == \"$op\" and .path == \"/final\"" "$T/after")" -ge 1 ] ||
			fail "export: no $op on /final after the unlink"
	done
	# filter (through the analysis' object table) resolves them the same way
	expect_exit 0 "$FSTAP" filter --path=/final -o "$T/final.trace" "$T/link.trace"
	rec_export "$T/final.trace" "$T/final.jsonl"
	for op in open read setattr; do
		[ "$(jq_count ".op == \"$op\"" "$T/final.jsonl")" = 1 ] ||
			fail "filter --path=/final: no $op kept: $(cat "$T/err")"
	done
	app_check link
fi

# --- open-unlinked: stat and read of a file whose last name is gone ---
if want_app open-unlinked; then
	mkdir "$T/unl"
	app_record unlinked "$T/unl" \
		'echo data > f && echo kept > g && exec 3<f && rm f && stat -L /dev/fd/3 >/dev/null &&
		 cat <&3 && chmod 600 g'
	expect_grep "$T/unlinked.out" "data"
	app_check unlinked
fi

# --- root listing: the target's own lost+found is not a divergence ---
if want_app root-listing; then
	mkdir "$T/root"
	echo x >"$T/root/a"
	app_record root "$T/root" 'cat extra 2>/dev/null; ls -a >/dev/null && mkdir d && ls >/dev/null'
	app_check root ext4
	# the trace looked "extra" up (and failed) before it listed the root:
	# when the target has it, both listings differ; "other", which the
	# trace never named, does not
	app_after_prepare() {
		: >"$1/extra" && : >"$1/other"
	}
	if app_replay root ext4; then
		entries=$(json_get "$T/root.ext4.json" \
			'sum(d["count"] for d in j["runs"][0]["divergence"] if d["op"] == "readdir")')
		[ "$entries" = 2 ] ||
			fail "root listing with a known extra name: $entries readdir divergences, not 2 (one per listing): $(json_get "$T/root.ext4.json" 'j["runs"][0]["divergence"]')"
	fi
	unset -f app_after_prepare
fi

# --- maildir: safecat delivers (tmp/, link into new/, unlink), a reader files ---
if want_app maildir; then
	command -v safecat >/dev/null 2>&1 || skip "safecat is needed (apt-get install safecat)"
	mkdir -p "$T/mail/Maildir/tmp" "$T/mail/Maildir/new" "$T/mail/Maildir/cur"
	app_record maildir "$T/mail" '
		i=0
		while [ $i -lt 40 ]; do
			printf "From: a@example.org\nSubject: %d\n\n%0*d\n" $i $((i * 50)) 0 |
				safecat Maildir/tmp Maildir/new >/dev/null || exit 1
			i=$((i + 1))
		done
		for m in Maildir/new/*; do mv "$m" "Maildir/cur/${m##*/}:2,S"; done
		ls -l Maildir/cur >/dev/null && cat Maildir/cur/* >/dev/null'
	[ "$(grep -c '^Maildir/cur/' "$T/maildir.want")" = 40 ] ||
		fail "maildir: $(grep -c '^Maildir/cur/' "$T/maildir.want") messages in cur/, not 40"
	rec_export "$T/maildir.trace" "$T/maildir.jsonl"
	[ "$(jq_count '.op == "link"' "$T/maildir.jsonl")" = 40 ] ||
		fail "maildir: $(jq_count '.op == "link"' "$T/maildir.jsonl") links recorded, not 40"
	app_check maildir
fi

# --- git: the loose objects, the index lock, branches, gc ---
if want_app git; then
	command -v git >/dev/null 2>&1 || skip "git is needed (apt-get install git)"
	mkdir -p "$T/git/src" "$T/home"
	python3 - "$T/git/src" "$GIT_FILES" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(2300)
for i in range(n):
    d = os.path.join(root, "d%02d" % (i % 20))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%04d.txt" % i), "w") as f:
        f.write("".join("line %d of file %d %x\n" % (k, i, rnd.getrandbits(64))
                        for k in range(rnd.randint(1, 40))))
PY
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
	app_record git "$T/git" '
		git init -q -b main . &&
		git config gc.auto 0 && git config maintenance.auto false &&
		git add . && git commit -q -m one &&
		git branch topic && git checkout -q topic &&
		for f in src/d0*/f00[0-4]*.txt; do echo changed >>"$f"; done &&
		git rm -q src/d19/f0019.txt && git commit -q -a -m two &&
		git checkout -q main && git gc -q && git log --oneline >/dev/null'
	[ "$(grep -c '^\.git/objects/pack/pack-.*\.pack ' "$T/git.want")" = 1 ] ||
		fail "git: gc left no pack: $(grep 'objects/pack' "$T/git.want" | head -c 600)"
	app_check git
fi

finish
