#!/bin/sh
# t2120: ordering and pacing. Thread A creates and writes 200 files; thread B
# opens and reads each one after A made it (a cross-thread happens-before).
# B's records come first in the file, as a recorder's per-thread chunks may:
# the reorder window puts them back in time order. Every --order except
# none must keep the happens-before (zero divergences); --pace=orig keeps
# the recorded timing (at least the recorded span), N% scales it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

python3 - "$T/t.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
w = lambda o: out.write(json.dumps(o) + "\n")
w({"fstap": "trace", "version": "1.0", "metadata": {"recorder": {"flush_interval_ns": 100000000}}})
a, b = [], []
N = 200
for i in range(N):
    t = 1000000 + i * 1000000          # A: one file per ms
    f, fh = 100 + i, 1000 + 2 * i
    c = dict(tid=1, pid=1)
    a.append(dict(op="create", t=t, dur=20000, obj=1, name="f%03d" % i, mode=0o100644,
                  umask=0o22, flags=0o301, child=f, fh=fh, **c))
    a.append(dict(op="write", t=t + 30000, dur=20000, res=4096, obj=f, fh=fh, size=4096, **c))
    a.append(dict(op="release", t=t + 60000, dur=5000, obj=f, fh=fh, **c))
    c = dict(tid=2, pid=1)               # B: 100 us after A's release ended
    tb = t + 165000
    b.append(dict(op="lookup", t=tb, dur=5000, obj=1, name="f%03d" % i, child=f, **c))
    b.append(dict(op="open", t=tb + 10000, dur=10000, obj=f, fh=fh + 1, **c))
    b.append(dict(op="read", t=tb + 30000, dur=10000, res=4096, obj=f, fh=fh + 1, size=65536, **c))
    b.append(dict(op="release", t=tb + 50000, dur=5000, obj=f, fh=fh + 1, **c))
for r in b + a:
    w(r)
w({"op": "footer", "t": 1000000 + N * 1000000})
PY
expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$T/t.jsonl"

for order in strict thread resource; do
	rm -rf "$T/d" && mkdir "$T/d"
	expect_exit 0 "$FSTAP" replay --order=$order --json="$T/r.json" "$T/t.trace" "$T/d" || continue
	[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
		fail "--order=$order: $(json_get "$T/r.json" 'j["runs"][0]["divergence"]')"
	[ "$(json_get "$T/r.json" 'j["runs"][0]["by_op"]["read"]["bytes"]')" = $((200 * 4096)) ] ||
		fail "--order=$order: read bytes"
	[ "$(json_get "$T/r.json" 'j["runs"][0]["workers"]')" = "$([ $order = strict ] && echo 1 || echo 2)" ] ||
		fail "--order=$order: workers"
	[ "$(ls "$T/d" | wc -l)" = 200 ] || fail "--order=$order: not 200 files"
done

# none keeps only per-thread order: it runs, and reports what it reordered.
rm -rf "$T/d" && mkdir "$T/d"
expect_exit 0 "$FSTAP" replay --order=none --json="$T/r.json" "$T/t.trace" "$T/d"
expect_grep "$T/out" "out of recorded order (same resource):"
[ "$(json_get "$T/r.json" 'j["runs"][0]["by_op"]["create"]["count"]')" = 200 ] || fail "--order=none: creates"

# ...and counts each op that ran after a later-recorded op on its resource:
# exactly one here, whatever the scheduling. Thread A opens a FIFO for
# reading (the open blocks until a writer comes), then opens "r"; thread B,
# recorded later, opens "r", then the FIFO for writing, which lets A go on.
# So A's open of "r" always runs after B's, recorded after it. The FIFO has
# two names, which the trace knows as two objects, so that the two opens of
# it share no resource and may run in either order without being counted;
# no handle of "r" is released (two releases of it would race).
cat >"$T/fifo.jsonl" <<'J'
{"fstap":"trace","version":"1.0","metadata":{"note":"t2120 out of order"}}
{"op":"state_inode","obj":1,"mode":16877,"nlink":2,"ino":2}
{"op":"state_dentry","obj":1,"name":"fifo","child":2}
{"op":"state_inode","obj":2,"mode":4516,"nlink":2,"ino":10}
{"op":"state_dentry","obj":1,"name":"fifo-w","child":4}
{"op":"state_inode","obj":4,"mode":4516,"nlink":2,"ino":12}
{"op":"state_dentry","obj":1,"name":"r","child":3}
{"op":"state_inode","obj":3,"mode":33188,"nlink":1,"size":0,"ino":11}
{"op":"open","t":1000,"dur":100,"tid":1,"pid":1,"obj":2,"flags":0,"fh":1}
{"op":"open","t":1500,"dur":100,"tid":1,"pid":1,"obj":3,"flags":0,"fh":2}
{"op":"open","t":2000,"dur":100,"tid":2,"pid":1,"obj":3,"flags":0,"fh":3}
{"op":"open","t":3000,"dur":100,"tid":2,"pid":1,"obj":4,"flags":1,"fh":4}
{"op":"release","t":4000,"dur":100,"tid":2,"pid":1,"obj":4,"fh":4}
{"op":"release","t":4300,"dur":100,"tid":1,"pid":1,"obj":2,"fh":1}
{"op":"footer","t":5000}
J
expect_exit 0 "$FSTAP" import -o "$T/fifo.trace" "$T/fifo.jsonl"
rm -rf "$T/d" && mkdir "$T/d" && mkfifo -m 644 "$T/d/fifo" && ln "$T/d/fifo" "$T/d/fifo-w" &&
	: >"$T/d/r"
expect_exit 0 timeout 60 "$FSTAP" replay --order=none --json="$T/r.json" "$T/fifo.trace" "$T/d"
[ "$(json_get "$T/r.json" 'j["runs"][0]["out_of_order"]')" = 1 ] ||
	fail "--order=none counted $(json_get "$T/r.json" 'j["runs"][0]["out_of_order"]') ops out of order, expected 1"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "--order=none: $(json_get "$T/r.json" 'j["runs"][0]["divergence"]')"

# Without the reorder window, B's records would be replayed before A's.
rm -rf "$T/d" && mkdir "$T/d"
expect_exit 0 "$FSTAP" replay --order=strict --window=1 --json="$T/r.json" "$T/t.trace" "$T/d"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"] > 100')" = True ] ||
	fail "a 1 ns window did not break the order: the test proves nothing"

# Pacing: the trace spans 200 ms. Only lower bounds (no timing flakiness).
rm -rf "$T/d" && mkdir "$T/d"
expect_exit 0 "$FSTAP" replay --pace=orig --json="$T/r.json" "$T/t.trace" "$T/d"
[ "$(json_get "$T/r.json" 'j["runs"][0]["elapsed_ns"] >= 190000000')" = True ] ||
	fail "--pace=orig took $(json_get "$T/r.json" 'j["runs"][0]["elapsed_ns"]') ns for a 200 ms trace"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] || fail "--pace=orig: divergences"
[ "$(json_get "$T/r.json" 'j["runs"][0]["lag_ns"]["n"]')" = 1200 ] || fail "--pace=orig: no lag histogram"
expect_grep "$T/out" "schedule lag (us): p50"
rm -rf "$T/d" && mkdir "$T/d"
expect_exit 0 "$FSTAP" replay --pace=300% --json="$T/r.json" "$T/t.trace" "$T/d"
[ "$(json_get "$T/r.json" 'j["runs"][0]["elapsed_ns"] >= 570000000')" = True ] ||
	fail "--pace=300% took $(json_get "$T/r.json" 'j["runs"][0]["elapsed_ns"]') ns for 3 x 200 ms"

finish
