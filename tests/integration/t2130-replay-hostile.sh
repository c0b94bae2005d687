#!/bin/sh
# t2130: a hostile trace cannot make replay touch anything outside its
# target: names "..", "a/../../x" and absolute ones, symlinks in the tree
# that lead out (to / and to a sentinel directory next to the target),
# symlinks the trace itself creates, names with '/' in the initial state,
# unknown handles and objects, a block device node (it would reach the
# disk: it is made with a number that reaches no device). Each attempt is
# refused or fails and is counted as a divergence; the sentinel directory
# is unchanged. With --devices, mknod keeps the recorded device numbers.
# A name over NAME_MAX is refused by prepare and replay alike.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

B="$T/box"
S="$B/sentinel" D="$B/dir"
mkdir -p "$S/sub" "$D/ok"
echo precious >"$S/keep"
chmod 750 "$S"
ln -s / "$D/escape"
ln -s ../sentinel "$D/up"
ln -s ../sentinel/keep "$D/fl"
pwned=fstap-t2130-pwned
for p in "/tmp/$pwned" "/$pwned" "$T/$pwned"; do
	[ ! -e "$p" ] || skip "'$p' exists from an earlier run"
done
# Everything in the box but the target: names, types, modes, sizes, times, links.
listing() {
	find "$B" -path "$D" -prune -o -printf '%p %y %m %s %T@ %C@ %l\n' | sort
}
listing >"$T/before"

cat >"$T/t.jsonl" <<J
{"fstap":"trace","version":"1.0"}
{"op":"state_dentry","obj":1,"name":"escape","child":2}
{"op":"state_dentry","obj":1,"name":"up","child":3}
{"op":"state_dentry","obj":1,"name":"fl","child":4}
{"op":"state_dentry","obj":1,"name":"ok","child":5}
{"op":"state_dentry","obj":1,"name":"a/../../sentinel","child":9}
{"op":"state_dentry","obj":1,"name":"..","child":10}
{"op":"mkdir","t":10,"dur":1,"tid":5,"pid":5,"obj":1,"name":"..","mode":493,"child":20}
{"op":"mkdir","t":20,"dur":1,"tid":5,"pid":5,"obj":1,"name":"a/../../$pwned","mode":493,"child":21}
{"op":"create","t":30,"dur":1,"tid":5,"pid":5,"obj":1,"name":"/tmp/$pwned","mode":33188,"flags":193,"child":22,"fh":1}
{"op":"lookup","t":40,"dur":1,"tid":5,"pid":5,"obj":2,"name":"tmp","child":6}
{"op":"create","t":50,"dur":1,"tid":5,"pid":5,"obj":6,"name":"$pwned","mode":33188,"flags":193,"child":23,"fh":2}
{"op":"mkdir","t":60,"dur":1,"tid":5,"pid":5,"obj":2,"name":"$pwned","mode":493,"child":24}
{"op":"unlink","t":70,"dur":1,"tid":5,"pid":5,"obj":3,"name":"keep"}
{"op":"rmdir","t":80,"dur":1,"tid":5,"pid":5,"obj":3,"name":"sub"}
{"op":"setattr","t":90,"dur":1,"tid":5,"pid":5,"obj":3,"valid":1,"mode":511}
{"op":"setattr","t":100,"dur":1,"tid":5,"pid":5,"obj":4,"valid":8,"size":0}
{"op":"open","t":110,"dur":1,"tid":5,"pid":5,"obj":4,"flags":513,"fh":3}
{"op":"write","t":120,"dur":1,"tid":5,"pid":5,"res":5,"obj":4,"fh":3,"size":5}
{"op":"setxattr","t":130,"dur":1,"tid":5,"pid":5,"obj":3,"name":"user.pwn","size":4}
{"op":"rename","t":140,"dur":1,"tid":5,"pid":5,"obj":1,"name":"ok","newparent":3,"newname":"moved"}
{"op":"link","t":150,"dur":1,"tid":5,"pid":5,"obj":5,"newparent":3,"newname":"l"}
{"op":"symlink","t":160,"dur":1,"tid":5,"pid":5,"obj":1,"name":"s2","target":"/","child":8}
{"op":"mkdir","t":170,"dur":1,"tid":5,"pid":5,"obj":8,"name":"$pwned","mode":493,"child":25}
{"op":"create","t":180,"dur":1,"tid":5,"pid":5,"obj":8,"name":"$pwned","mode":33188,"flags":193,"child":26,"fh":4}
{"op":"unlink","t":190,"dur":1,"tid":5,"pid":5,"obj":9,"name":"keep"}
{"op":"rmdir","t":200,"dur":1,"tid":5,"pid":5,"obj":10,"name":"sentinel"}
{"op":"rename","t":210,"dur":1,"tid":5,"pid":5,"obj":1,"name":"ok","newparent":1,"newname":"../ok-out"}
{"op":"getattr","t":220,"dur":1,"tid":5,"pid":5,"obj":99999}
{"op":"readlink","t":230,"dur":1,"tid":5,"pid":5,"obj":2,"target":"/"}
{"op":"opendir","t":240,"dur":1,"tid":5,"pid":5,"obj":2,"fh":5}
{"op":"readdir","t":250,"dur":1,"tid":5,"pid":5,"res":1,"obj":2,"fh":5,"entries":[{"name":"etc"}]}
{"op":"copy_file_range","t":260,"dur":1,"tid":5,"pid":5,"res":5,"obj":4,"fh":3,"obj2":5,"fh2":77,"size":5}
{"op":"setattr","t":270,"dur":1,"tid":5,"pid":5,"obj":9,"valid":1,"mode":511}
{"op":"removexattr","t":280,"dur":1,"tid":5,"pid":5,"obj":10,"name":"user.x"}
{"op":"mknod","t":290,"dur":1,"tid":5,"pid":5,"obj":3,"name":"fifo","mode":4516}
{"op":"mknod","t":300,"dur":1,"tid":5,"pid":5,"obj":1,"name":"disk","mode":24960,"rdev":2048}
J
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"
for order in strict thread none; do
	expect_exit 0 "$FSTAP" replay --order=$order --json="$T/r.json" "$T/t.trace" "$D"
	python3 - "$T/r.json" <<'PY' || fail "--order=$order: not the expected divergences"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
n = {}
for d in r["divergence"]:
    n[d["kind"]] = n.get(d["kind"], 0) + d["count"]
# 17 refused: the bad names (3), resolutions through escape, up and s2 (10),
# the initial-state names with '/' or ".." (4); 4 unknown handles/objects.
assert n.get("refused") == 17, n
assert n.get("unknown") == 4, n
assert r["divergences"] >= 24, r["divergences"]
PY
done
listing >"$T/after"
diff -u "$T/before" "$T/after" >&2 || fail "something outside the target changed"
for p in "/tmp/$pwned" "/$pwned" "$T/$pwned"; do
	[ ! -e "$p" ] || { fail "'$p' was created"; rm -rf "$p"; }
done
[ "$(cat "$S/keep")" = precious ] || fail "the sentinel file changed"
[ -d "$D/ok" ] || fail "'ok' moved"
[ "$(readlink "$D/s2")" = / ] || fail "the trace's own symlink is missing"
# the recorded 8:0 (the first SCSI disk) became 0:0, a number no driver serves
[ "$(stat -c '%F %t:%T' "$D/disk" 2>&1)" = "block special file 0:0" ] ||
	fail "the block device node is not the placeholder: $(stat -c '%F %t:%T' "$D/disk" 2>&1)"

# A character device (1:5, /dev/zero's): 1:3 without --devices, as recorded with it
mkdir "$T/devdir" "$T/devdir2"
cat >"$T/dev.jsonl" <<J
{"fstap":"trace","version":"1.0"}
{"op":"state_inode","obj":1,"mode":16877,"ino":2,"nlink":2}
{"op":"mknod","t":10,"dur":1,"tid":5,"pid":5,"obj":1,"name":"zero","mode":8630,"rdev":261,"child":2}
J
expect_exit 0 "$FSTAP" import -o "$T/dev.trace" "$T/dev.jsonl"
expect_exit 0 "$FSTAP" replay "$T/dev.trace" "$T/devdir" &&
	expect_grep "$T/out" "divergences:  0"
[ "$(stat -c '%F %t:%T' "$T/devdir/zero")" = "character special file 1:3" ] ||
	fail "without --devices the character device is not the null device's number"
expect_exit 0 "$FSTAP" replay --devices "$T/dev.trace" "$T/devdir2" &&
	expect_grep "$T/out" "divergences:  0"
[ "$(stat -c '%F %t:%T' "$T/devdir2/zero")" = "character special file 1:5" ] ||
	fail "--devices: the character device is not the recorded one"

# A name over NAME_MAX (300 bytes), in the initial state and in a mkdir:
# prepare skips it as an invalid name and the replay refuses it before any
# system call (the mkdir, and the getattr of the object it names); a name
# of NAME_MAX bytes is made by both.
long=$(printf '%0300d' 0 | tr 0 x)
max=$(printf '%0255d' 0 | tr 0 y)
mkdir "$T/longdir"
cat >"$T/long.jsonl" <<J
{"fstap":"trace","version":"1.0"}
{"op":"state_inode","obj":1,"mode":16877,"ino":2,"nlink":3}
{"op":"state_dentry","obj":1,"name":"$long","child":2}
{"op":"state_inode","obj":2,"mode":33188,"ino":3,"nlink":1}
{"op":"state_dentry","obj":1,"name":"$max","child":3}
{"op":"state_inode","obj":3,"mode":16877,"ino":4,"nlink":2}
{"op":"mkdir","t":10,"dur":1,"tid":5,"pid":5,"obj":3,"name":"$long","mode":493,"child":21}
{"op":"getattr","t":20,"dur":1,"tid":5,"pid":5,"obj":2}
{"op":"mkdir","t":30,"dur":1,"tid":5,"pid":5,"obj":3,"name":"$max","mode":493,"child":22}
J
expect_exit 0 "$FSTAP" import -o "$T/long.trace" "$T/long.jsonl"
expect_exit 0 "$FSTAP" prepare "$T/long.trace" "$T/longdir"
grep -qxF "fstap: warning: skipped '$long': invalid name" "$T/err" ||
	fail "prepare: no 'invalid name' warning for the 300-byte name: $(head -c 600 "$T/err")"
[ "$(ls "$T/longdir")" = "$max" ] || fail "prepare: not just the NAME_MAX name: $(ls "$T/longdir")"
expect_exit 0 "$FSTAP" replay --divergences="$T/long.div" "$T/long.trace" "$T/longdir"
python3 - "$T/long.div" <<'PY' || fail "replay: the 300-byte name is not refused"
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
assert [(x["record"], x["op"], x["kind"], x["replayed"]) for x in d] == \
    [(5, "mkdir", "refused", None), (6, "getattr", "refused", None)], d
PY
[ -d "$T/longdir/$max/$max" ] || fail "replay: the NAME_MAX mkdir was not made"
[ "$(ls "$T/longdir/$max")" = "$max" ] || fail "replay: more than the NAME_MAX mkdir was made"

finish
