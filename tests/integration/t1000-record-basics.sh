#!/bin/sh
# t1000: fstap record: the command line (help, usage errors, clear errors),
# and a scripted workload through a mount: the same results as natively,
# the same final tree, and exactly the expected sequence of records with
# their arguments, failures included (ENOENT, EEXIST, ENOTEMPTY, ENODATA).
. "$(dirname "$0")/lib-record.sh"

# --- the command line (no mount needed) ---
expect_exit 0 "$FSTAP" record --help && expect_grep "$T/out" "usage: fstap record"
expect_grep "$T/out" "--cache=MODE"
expect_exit 0 "$FSTAP" help record && expect_grep "$T/out" "usage: fstap record"
expect_exit 2 "$FSTAP" record
expect_exit 2 "$FSTAP" record --cache=bogus "$T" && expect_grep "$T/err" "unknown cache mode 'bogus'"
expect_exit 2 "$FSTAP" record --snapshot=bogus "$T"
expect_exit 2 "$FSTAP" record "$T" --
expect_exit 2 "$FSTAP" record -o x --no-trace "$T"
expect_exit 2 "$FSTAP" record a b c

need_fuse

mkdir "$T/m" "$T/b" "$T/native"
expect_exit 1 "$FSTAP" record -o "$T/x.trace" "$T/nonexistent" "$T/m" &&
	expect_grep "$T/err" "fstap: error: backing directory '$T/nonexistent' does not exist"
expect_exit 1 "$FSTAP" record -o "$T/x.trace" "$T/b" "$T/nonexistent" &&
	expect_grep "$T/err" "mount point '$T/nonexistent' does not exist"
expect_exit 1 "$FSTAP" record -o "$T/no/such/dir/x.trace" "$T/b" "$T/m" &&
	expect_grep "$T/err" "cannot write trace"
[ "$(count_lines "$T/err")" = 1 ] || fail "more than one line of error: $(cat "$T/err")"

# --- the workload, through the mount and natively ---
rec_start "$T/m" -o "$T/t.trace" "$T/b" "$T/m" || exit 1
$PY "$TOOLS" workload "$T/m" >"$T/w.mnt" &
wpid=$!
wait $wpid
rec_stop "$T/m"
$PY "$TOOLS" workload "$T/native" >"$T/w.native"
diff -u "$T/w.native" "$T/w.mnt" >&2 || fail "results through the mount differ from native"
$PY "$TOOLS" tree "$T/native" >"$T/tree.native"
$PY "$TOOLS" tree "$T/b" >"$T/tree.b"
diff -u "$T/tree.native" "$T/tree.b" >&2 || fail "the backing tree differs from the native run"

# --- the trace ---
"$FSTAP" info "$T/t.trace" >"$T/info" || fail "fstap info fails on the trace"
expect_grep "$T/info" "status:    complete"
expect_grep "$T/info" "lost:      0 records"
rec_export "$T/t.trace" "$T/t.jsonl"
# Every metadata field on its own, against what the machine says.
head -1 "$T/t.jsonl" >"$T/header.json"
$PY - "$T/header.json" "$("$FSTAP" --version)" "$(hostname)" "$(uname -s)" "$(uname -r)" \
	"$(uname -v)" "$(uname -m)" "$(cd "$T/b" && pwd -P)" "$(cd "$T/m" && pwd -P)" \
	"$(stat -f -c %t "$T/b")" "$(stat -f -c %s "$T/b")" "$T/t.trace" "$T/b" "$T/m" \
	>"$T/md.bad" <<'PY' || fail "metadata: $(cat "$T/md.bad"); header: $(head -c 1500 "$T/header.json")"
import json, sys
(hdr, version, host, sysname, release, kversion, machine, backing, mnt, fstype_hex, bsize,
 trace, b_arg, m_arg) = sys.argv[1:]
md = json.load(open(hdr))["metadata"]
names = {"ef53": "ext4", "58465342": "xfs", "9123683e": "btrfs", "1021994": "tmpfs",
         "794c7630": "overlay"}
want = {
    "tool": "fstap record",
    "fstap_version": version.split()[1],
    "host": host,
    "kernel": {"sysname": sysname, "release": release, "version": kversion, "machine": machine},
    "backing": backing,
    "mountpoint": mnt,
    "in_place": False,
    "backing_fs": names.get(fstype_hex, "0x" + fstype_hex),
    "backing_fs_bsize": int(bsize),
    "command_line": ["record", "-o", trace, b_arg, m_arg],
}
bad = ["%s is %r, expected %r" % (k, md.get(k), v) for k, v in want.items() if md.get(k) != v]
opts = md.get("mount_options", "")
for o in ("allow_other", "default_permissions", "fsname=" + b_arg, "subtype=fstap"):
    if o not in opts.split(","):
        bad.append("mount_options %r lacks %s" % (opts, o))
rec = md.get("recorder", {})
rwant = {"cache": "calls", "snapshot": "full", "direct_io": False, "keep_cache": False,
         "writeback_cache": False, "flush_interval_ns": 1000000000}
bad += ["recorder.%s is %r, expected %r" % (k, rec.get(k), v) for k, v in rwant.items()
        if rec.get(k) != v]
for k in ("entry_timeout", "attr_timeout", "dir_attr_timeout", "negative_timeout"):
    if not isinstance(rec.get(k), (int, float)) or rec[k] < 0:
        bad.append("recorder.%s is %r, not a time in seconds" % (k, rec.get(k)))
for k in ("threads", "chunk_size"):
    if not isinstance(rec.get(k), int) or rec[k] < 1:
        bad.append("recorder.%s is %r, not a count" % (k, rec.get(k)))
if "command" in md:
    bad.append("command %r, but no command was given" % md["command"])
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
[ "$(jq_count '.op == "process" and .pid == '$wpid' and .comm == "python3"' "$T/t.jsonl")" = 1 ] ||
	fail "no process record for the workload (pid $wpid)"
# the application's requests, less the GETATTRs, FLUSHes and successful
# LOOKUPs the kernel adds for its own path walks and closes
$PY "$TOOLS" ops "$T/t.jsonl" $wpid | grep -v '^getattr \|^flush ' |
	awk '$1 != "lookup" || $3 != 0' >"$T/seq"
cat >"$T/seq.expected" <<'SEQ'
lookup d -2
mkdir d 0
lookup f -2
create f 0
write - 1200
fsync - 0
open - 0
read - 1200
lookup missing -2
lookup g -2
rename f 0
lookup h -2
link h 0
lookup s -2
symlink s 0
readlink - 1
setattr - 0
setattr - 0
setattr - 0
setxattr user.k 0
setxattr user.k -17
setxattr user.dir 0
getxattr user.k 2
getxattr user.none -61
listxattr - 7
removexattr user.k 0
removexattr user.k -61
open - 0
fallocate - 0
open - 0
fallocate - 0
opendir - 0
fsyncdir - 0
opendir - 0
readdir - 5
readdir - 0
rmdir d -39
unlink h 0
unlink s 0
lookup kept -2
rename g 0
rmdir d 0
SEQ
diff -u "$T/seq.expected" "$T/seq" >&2 || fail "the sequence of records differs"

# arguments of some records
q() { jq -c "select(.pid == $wpid and $1)" "$T/t.jsonl"; }
[ "$(q '.op == "mkdir" and .mode == 493 and .umask >= 0' | wc -l)" = 1 ] || fail "mkdir mode"
[ "$(q '.op == "write" and .size == 1200 and .res == 1200' | wc -l)" = 1 ] || fail "write size"
[ "$(q '.op == "rename" and .name == "f" and .newname == "g"' | wc -l)" = 1 ] || fail "rename names"
[ "$(q '.op == "symlink" and .target == "g"' | wc -l)" = 1 ] || fail "symlink target"
[ "$(q '.op == "setattr" and .mode == 33152' | wc -l)" = 1 ] || fail "chmod 0600"
[ "$(q '.op == "setattr" and .size == 5000' | wc -l)" = 1 ] || fail "truncate 5000"
[ "$(q '.op == "setattr" and .mtime == 1000000000987654321' | wc -l)" = 1 ] || fail "utime mtime"
[ "$(q '.op == "fallocate" and .flags == 3 and .offset == 4096 and .size == 4096' | wc -l)" = 1 ] ||
	fail "fallocate punch hole arguments"
[ "$(q '.op == "readdir" and ((.entries // []) | map(.name) | sort) == [".","..","g","h","s"]' | wc -l)" = 1 ] ||
	fail "readdir entries"
# the kernel's own GETXATTR of security.capability before writes is flagged
[ "$(jq -c 'select(.op == "getxattr" and .name == "security.capability" and (.kernel | not))' \
	"$T/t.jsonl" | wc -l)" = 0 ] || fail "security.capability not flagged as the kernel's"
# object ids are stable: the created file keeps its id through the renames
c=$(q '.op == "create"' | jq .child)
[ "$(q ".op == \"write\"" | jq .obj)" = "$c" ] || fail "write is not on the created object"
[ "$(q ".op == \"fallocate\"" | jq .obj | sort -u)" = "$c" ] || fail "fallocate object"
finish
