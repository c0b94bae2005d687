#!/bin/sh
# t2100: replay of a hand-written trace on a tree made by hand: the final tree
# is exactly the one the trace describes (names, types, sizes, modes, link
# counts, xattrs), with zero divergences; lookups that the next call's path
# walk reproduces are absorbed, kernel requests are left to the kernel; the
# text, JSON and CSV reports; usage errors and failures have their exit codes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

D="$T/dir"
mkdir -p "$D/spool"
head -c 8192 /dev/urandom >"$D/spool/1001"
head -c 7000 /dev/urandom >"$D/spool/1002"
head -c 100 /dev/urandom >"$D/old"
chmod 755 "$D/spool"
chmod 644 "$D/spool/1001" "$D/spool/1002" "$D/old"
user_xattrs_supported "$D" || skip "no user xattrs on $D"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.DOSATTRIB", b"\0\0\4\0\4\0\0\0")' "$D/spool/1002"

# One thread: list the spool, read an article, look at an xattr, then make a
# directory with a file (write, fsync, xattr, chmod, symlink, hard link),
# move it, remove things, truncate, and the kernel's own requests.
cat >"$T/t.jsonl" <<'J'
{"fstap":"trace","version":"1.0","start_realtime_ns":1764460800000000000,"start_monotonic_ns":0,"metadata":{"note":"t2100"}}
{"op":"process","pid":100,"comm":"app","t":0}
{"op":"state_inode","obj":1,"mode":16877,"nlink":4,"ino":2}
{"op":"state_dentry","obj":1,"name":"spool","child":2}
{"op":"state_inode","obj":2,"mode":16877,"nlink":2,"ino":10}
{"op":"state_dentry","obj":2,"name":"1001","child":3}
{"op":"state_inode","obj":3,"mode":33188,"nlink":1,"size":8192,"ino":11,"extents":[[0,8192]]}
{"op":"state_dentry","obj":2,"name":"1002","child":4}
{"op":"state_inode","obj":4,"mode":33188,"nlink":1,"size":7000,"ino":12,"extents":[[0,7000]],"xattrs":[{"name":"user.DOSATTRIB","value":{"hex":"0000040004000000"}}]}
{"op":"state_dentry","obj":1,"name":"old","child":10}
{"op":"state_inode","obj":10,"mode":33188,"nlink":1,"size":100,"ino":13,"extents":[[0,100]]}
{"op":"lookup","t":1000,"dur":100,"tid":100,"pid":100,"obj":1,"name":"spool","child":2}
{"op":"opendir","t":1200,"dur":100,"tid":100,"pid":100,"obj":2,"flags":67584,"fh":1}
{"op":"readdir","t":1400,"dur":100,"tid":100,"pid":100,"res":4,"obj":2,"fh":1,"size":4096,"entries":[{"name":".","type":4,"obj":2},{"name":"..","type":4,"obj":1},{"name":"1002","type":8,"obj":4},{"name":"1001","type":8,"obj":3}]}
{"op":"readdir","t":1600,"dur":100,"tid":100,"pid":100,"res":0,"obj":2,"fh":1,"offset":4,"size":4096}
{"op":"releasedir","t":1800,"dur":100,"tid":100,"pid":100,"obj":2,"fh":1}
{"op":"lookup","t":2000,"dur":100,"tid":100,"pid":100,"obj":2,"name":"1001","child":3}
{"op":"open","t":2200,"dur":100,"tid":100,"pid":100,"obj":3,"fh":2}
{"op":"read","t":2400,"dur":100,"tid":100,"pid":100,"res":8192,"obj":3,"fh":2,"size":131072}
{"op":"getattr","t":2500,"dur":10,"tid":0,"pid":0,"kernel":true,"obj":3}
{"op":"flush","t":2600,"dur":100,"tid":100,"pid":100,"obj":3,"fh":2}
{"op":"release","t":2700,"dur":100,"tid":0,"pid":0,"kernel":true,"obj":3,"fh":2}
{"op":"lookup","t":3000,"dur":100,"tid":100,"pid":100,"obj":2,"name":"1002","child":4}
{"op":"getxattr","t":3200,"dur":100,"tid":100,"pid":100,"res":8,"obj":4,"name":"user.DOSATTRIB"}
{"op":"getxattr","t":3400,"dur":100,"tid":100,"pid":100,"res":8,"obj":4,"name":"user.DOSATTRIB","size":64}
{"op":"lookup","t":4000,"dur":100,"tid":100,"pid":100,"res":-2,"obj":1,"name":"new"}
{"op":"mkdir","t":4200,"dur":100,"tid":100,"pid":100,"obj":1,"name":"new","mode":511,"umask":18,"child":20}
{"op":"lookup","t":4400,"dur":100,"tid":100,"pid":100,"res":-2,"obj":20,"name":"a"}
{"op":"create","t":4600,"dur":100,"tid":100,"pid":100,"obj":20,"name":"a","mode":33188,"umask":18,"flags":193,"child":21,"fh":3}
{"op":"write","t":4800,"dur":100,"tid":100,"pid":100,"res":4096,"obj":21,"fh":3,"size":4096}
{"op":"write","t":5000,"dur":100,"tid":100,"pid":100,"res":1000,"obj":21,"fh":3,"offset":4096,"size":1000}
{"op":"fsync","t":5200,"dur":100,"tid":100,"pid":100,"obj":21,"fh":3}
{"op":"setxattr","t":5400,"dur":100,"tid":100,"pid":100,"obj":21,"name":"user.tag","size":5}
{"op":"release","t":5600,"dur":100,"tid":100,"pid":100,"obj":21,"fh":3}
{"op":"setattr","t":5800,"dur":100,"tid":100,"pid":100,"obj":21,"valid":1,"mode":384}
{"op":"symlink","t":6000,"dur":100,"tid":100,"pid":100,"obj":20,"name":"ln","target":"a","child":22}
{"op":"link","t":6200,"dur":100,"tid":100,"pid":100,"obj":21,"newparent":20,"newname":"hard"}
{"op":"rename","t":6400,"dur":100,"tid":100,"pid":100,"obj":20,"name":"a","newparent":1,"newname":"moved"}
{"op":"unlink","t":6600,"dur":100,"tid":100,"pid":100,"obj":1,"name":"old"}
{"op":"lookup","t":6800,"dur":100,"tid":100,"pid":100,"obj":2,"name":"1001","child":3}
{"op":"statfs","t":7000,"dur":100,"tid":100,"pid":100,"obj":1}
{"op":"setattr","t":7200,"dur":100,"tid":100,"pid":100,"obj":4,"valid":8,"size":100}
{"op":"access","t":7400,"dur":100,"tid":100,"pid":100,"obj":3,"mode":4}
{"op":"mkdir","t":7600,"dur":100,"tid":100,"pid":100,"obj":1,"name":"gone","mode":493,"child":30}
{"op":"rmdir","t":7800,"dur":100,"tid":100,"pid":100,"obj":1,"name":"gone"}
{"op":"readlink","t":8000,"dur":100,"tid":100,"pid":100,"obj":22,"target":"a"}
{"op":"forget","t":8200,"dur":10,"tid":0,"pid":0,"kernel":true,"obj":3,"size":1}
{"op":"footer","t":9000}
J
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"

cat >"$T/want" <<'W'
moved f 600 size=5096 nlink=2 user.tag:5
new d 755
new/hard f 600 size=5096 nlink=2 user.tag:5
new/ln l 777 -> a
spool d 755
spool/1001 f 644 size=8192 nlink=1
spool/1002 f 644 size=100 nlink=1 user.DOSATTRIB:8
W

for order in strict thread resource none; do
	rm -rf "$T/run" && cp -a "$D" "$T/run"
	expect_exit 0 "$FSTAP" replay --order=$order --json="$T/r.json" --csv="$T/r.csv" "$T/t.trace" "$T/run" || continue
	tree_state "$T/run" >"$T/got"
	diff -u "$T/want" "$T/got" >&2 || fail "--order=$order: the final tree differs"
	[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
		fail "--order=$order: divergences: $(json_get "$T/r.json" 'j["runs"][0]["divergence"]')"
	[ "$(json_get "$T/r.json" 'j["runs"][0]["lookups"]')" = "{'absorbed': 5, 'issued': 1}" ] ||
		fail "--order=$order: lookups $(json_get "$T/r.json" 'j["runs"][0]["lookups"]')"
	# 47 records: 36 operations; 2 kernel getattr/forget skipped, flush not replayed
	# (the kernel's release is the application's close: replayed), 5 lookups absorbed.
	[ "$(json_get "$T/r.json" 'j["runs"][0]["ops"]')" = 28 ] ||
		fail "--order=$order: $(json_get "$T/r.json" 'j["runs"][0]["ops"]') ops replayed, expected 28"
	[ "$(json_get "$T/r.json" 'j["runs"][0]["by_op"]["read"]["bytes"]')" = 8192 ] || fail "read bytes"
	[ "$(json_get "$T/r.json" 'j["runs"][0]["bytes_written"]')" = 5096 ] || fail "written bytes"
	[ "$(json_get "$T/r.json" 'j["runs"][0]["handles_left_open"]')" = 0 ] || fail "handles left open"
done

# The text table and the CSV.
expect_grep "$T/out" "divergences:  0"
expect_grep "$T/out" "lookups:      5 absorbed by the next call's path walk, 1 issued"
for op in readdir read write getxattr setxattr rename link symlink; do
	grep -q "^$op " "$T/out" || fail "no '$op' row in the table"
done
expect_grep "$T/r.csv" "run,op,count,errors,bytes,divergences,mean_us,p50_us,p90_us,p99_us,p99_9_us,max_us,elapsed_s"
expect_grep "$T/r.csv" "1,write,2,0,5096,0,"

# Several runs, JSON on stdout (no table).
rm -rf "$T/run" && cp -a "$D" "$T/run"
expect_exit 0 "$FSTAP" replay --runs=2 --json=- "$T/t.trace" "$T/run"
[ "$(json_get "$T/out" 'len(j["runs"])')" = 2 ] || fail "--runs=2 gave another number of runs"
# The second run starts from the first's tree: its mkdir finds "new" there.
[ "$(json_get "$T/out" 'j["runs"][1]["divergences"] > 0')" = True ] || fail "second run has no divergences"

# With prepare, from the trace's own initial state.
mkdir "$T/prep"
expect_exit 0 "$FSTAP" prepare "$T/t.trace" "$T/prep"
expect_exit 0 "$FSTAP" replay --json="$T/p.json" "$T/t.trace" "$T/prep"
tree_state "$T/prep" >"$T/got"
diff -u "$T/want" "$T/got" >&2 || fail "after prepare: the final tree differs"
[ "$(json_get "$T/p.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "after prepare: $(json_get "$T/p.json" 'j["runs"][0]["divergence"]')"

# A report's relative path is the caller's: the replay's l*xattr calls, which
# it issues from the object's directory, leave the working directory as it was.
rm -rf "$T/run" && cp -a "$D" "$T/run" && mkdir "$T/cwd"
(cd "$T/cwd" && "$FSTAP" replay --json=rel.json "$T/t.trace" "$T/run" >/dev/null 2>&1)
[ -s "$T/cwd/rel.json" ] || fail "--json=rel.json was not written in the working directory"

# Usage errors (2) and failures (1).
expect_exit 2 "$FSTAP" replay "$T/t.trace" && expect_grep "$T/err" "expected TRACE and DIR"
expect_exit 2 "$FSTAP" replay --order=random "$T/t.trace" "$T/run" && expect_grep "$T/err" "--order"
expect_exit 2 "$FSTAP" replay --pace=fast "$T/t.trace" "$T/run" && expect_grep "$T/err" "--pace"
expect_exit 2 "$FSTAP" replay --runs=0 "$T/t.trace" "$T/run"
expect_exit 2 "$FSTAP" replay --cache-limit=lots "$T/t.trace" "$T/run"
expect_exit 0 "$FSTAP" replay --help && expect_grep "$T/out" "usage: fstap replay"
expect_exit 1 "$FSTAP" replay "$T/missing.trace" "$T/run" && expect_grep "$T/err" "fstap: error:"
expect_exit 1 "$FSTAP" replay "$T/t.trace" "$T/missing" && expect_grep "$T/err" "cannot open directory '$T/missing'"
expect_exit 1 "$FSTAP" replay "$T/t.trace" "$T/t.jsonl" && expect_grep "$T/err" "is not a directory"
expect_exit 1 "$FSTAP" replay "$T/t.jsonl" "$T/run" && expect_grep "$T/err" "not an fstap trace"

finish
