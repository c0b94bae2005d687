#!/bin/sh
# t2170: device nodes, one rule for prepare and replay. By default a node is
# made with the recorded type, mode and owner but a device number that
# reaches no device (1:3, the null device, for character nodes; 0:0 for
# block nodes), so that stat, chmod, chown, link, rename and unlink on it
# replay as recorded; only its open is refused, counted as a "device"
# divergence, and the I/O through that open is not issued. --devices keeps
# the recorded numbers (1:5, the zero device, here: harmless to open).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "mknod of device nodes needs root"

# Character 1:5 is 261 and block 7:250 is 2042 in the kernel's old encoding.
cat >"$T/t.jsonl" <<'J'
{"fstap":"trace","version":"1.0"}
{"op":"state_inode","obj":1,"mode":16877}
{"op":"state_inode","obj":2,"mode":8612,"rdev":261}
{"op":"state_dentry","obj":1,"name":"pc","child":2}
{"op":"mknod","t":100,"dur":10,"tid":7,"pid":7,"obj":1,"name":"c","mode":8612,"rdev":261,"child":5}
{"op":"mknod","t":200,"dur":10,"tid":7,"pid":7,"obj":1,"name":"b","mode":25008,"rdev":2042,"child":6}
{"op":"getattr","t":300,"dur":10,"tid":7,"pid":7,"obj":5}
{"op":"setattr","t":400,"dur":10,"tid":7,"pid":7,"obj":5,"valid":1,"mode":8608}
{"op":"setattr","t":500,"dur":10,"tid":7,"pid":7,"obj":5,"valid":6,"owner_uid":65534,"owner_gid":65533}
{"op":"link","t":600,"dur":10,"tid":7,"pid":7,"obj":5,"newparent":1,"newname":"c2"}
{"op":"rename","t":700,"dur":10,"tid":7,"pid":7,"obj":1,"name":"b","newparent":1,"newname":"b2"}
{"op":"open","t":800,"dur":10,"tid":7,"pid":7,"obj":5,"fh":1}
{"op":"read","t":900,"dur":10,"tid":7,"pid":7,"res":10,"obj":5,"fh":1,"size":10}
{"op":"release","t":1000,"dur":10,"tid":7,"pid":7,"obj":5,"fh":1}
{"op":"unlink","t":1100,"dur":10,"tid":7,"pid":7,"obj":1,"name":"c"}
{"op":"getattr","t":1200,"dur":10,"tid":7,"pid":7,"obj":6}
J
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"

# nodes DIR: one line per entry: name, type, mode, owner, device number.
nodes() {
	python3 - "$1" <<'PY'
import os, stat, sys
for n in sorted(os.listdir(sys.argv[1])):
    st = os.lstat(os.path.join(sys.argv[1], n))
    t = "c" if stat.S_ISCHR(st.st_mode) else "b" if stat.S_ISBLK(st.st_mode) else "?"
    print("%s %s %o %d:%d %d:%d" % (n, t, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid,
                                    os.major(st.st_rdev), os.minor(st.st_rdev)))
PY
}

# --- the defaults: placeholders ---
mkdir "$T/d"
expect_exit 0 "$FSTAP" prepare "$T/t.trace" "$T/d"
expect_grep "$T/out" "device nodes: 1 with a device number that reaches no device (--devices keeps the recorded ones)"
expect_exit 0 "$FSTAP" replay --json="$T/r.json" "$T/t.trace" "$T/d"
expect_grep "$T/out" "device nodes: 2 with a device number that reaches no device (--devices keeps the recorded ones); 1 operations through refused opens of them not issued"
expect_grep "$T/out" "divergences:  1"
grep -q "^  open  *device (open refused)  *1$" "$T/out" || fail "no 'open device 1' line: $(cat "$T/out")"
python3 - "$T/r.json" <<'PY' || fail "the JSON report is not the expected one"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["divergence"] == [{"op": "open", "kind": "device", "count": 1}], r["divergence"]
assert r["devnodes_placeholder"] == 2 and r["device_io_skipped"] == 1, r
assert "read" not in r["by_op"], r["by_op"]
assert r["by_op"]["release"]["count"] == 1 and r["by_op"]["release"]["divergences"] == 0
PY
cat >"$T/want" <<'W'
b2 b 660 0:0 0:0
c2 c 640 65534:65533 1:3
pc c 644 0:0 1:3
W
nodes "$T/d" >"$T/got"
diff -u "$T/want" "$T/got" >&2 || fail "the default nodes are not the placeholders"

# --- --devices: the recorded numbers, the open replayed ---
mkdir "$T/e"
expect_exit 0 "$FSTAP" prepare --devices "$T/t.trace" "$T/e"
if grep -q "device nodes" "$T/out"; then fail "prepare --devices made placeholders"; fi
expect_exit 0 "$FSTAP" replay --devices "$T/t.trace" "$T/e"
expect_grep "$T/out" "divergences:  0"
if grep -q "^device nodes" "$T/out"; then fail "replay --devices made placeholders"; fi
cat >"$T/want" <<'W'
b2 b 660 0:0 0:0
c2 c 640 65534:65533 1:5
pc c 644 0:0 1:5
W
sed -i 's/^b2 b 660 0:0 0:0$/b2 b 660 0:0 7:250/' "$T/want"
nodes "$T/e" >"$T/got"
diff -u "$T/want" "$T/got" >&2 || fail "--devices did not keep the recorded numbers"

finish
