#!/bin/sh
# t3050: fstap reorder streams: its memory grows with the open runs, the
# open handles and the records they span, not with the length of the trace.
# gen-stream-trace writes 200 000 and 2 000 000 records (4 threads, each a
# getattr, open, read, release on the next of 100 files in the root, at
# 100 000 operations/s: runs of up to 100 groups); both are reordered by
# name. A reorder that holds the whole trace needs some 300 bytes a record
# (the records, their plan, their sort): about 600 MiB for the long trace
# and 60 MiB for the short one. The bounds leave a wide margin above what
# the streaming reorder needs (the sorter's window of 0.2 s, 20 000
# records, and one run per thread, about 20 MiB at either length): the
# long trace's peak RSS is under 64 MiB and no more than 16 MiB over the
# short one's. The output keeps every record. The long trace reordered by
# target-readdir (its directory's listing read from a directory of the same
# 100 names) stays under the same bounds.
. "$(dirname "$0")/lib.sh"
: "${FSTAP_BUILDDIR:?}"
GEN="$FSTAP_BUILDDIR/tests/tools/gen-stream-trace"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
BOUND_KB=65536		# 64 MiB
GROWTH_KB=16384		# 16 MiB

"$GEN" "$T/small.trace" 200000 || fail "cannot write the 200k-record trace"
"$GEN" "$T/big.trace" 2000000 || fail "cannot write the 2M-record trace"

# reorder_peak TRACE OUT [OPTION...]: runs the reorder (by name unless an
# option says otherwise), prints the child's peak RSS in KiB
reorder_peak() {
	$PY - "$FSTAP" "$T/err" "$@" <<'PY'
import resource, subprocess, sys
fstap, err, trace, out = sys.argv[1:5]
by = sys.argv[5:] or ["--by=name"]
with open(err, "w") as f:
    rc = subprocess.run([fstap, "reorder"] + by + [trace, "-o", out],
                        stderr=f).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "exit %d" % rc)
PY
}

small=$(reorder_peak "$T/small.trace" "$T/small.out")
mkdir "$T/target"
(cd "$T/target" && i=0 && while [ $i -lt 100 ]; do : >f$i; i=$((i + 1)); done)
tgt=$(reorder_peak "$T/big.trace" "$T/tgt.out" --by=target-readdir --target="$T/target")
grep -q "groups moved" "$T/err" || fail "reorder said nothing of its groups: $(cat "$T/err")"
big=$(reorder_peak "$T/big.trace" "$T/big.out")
echo "reorder peak RSS (KiB): 200k records $small, 2M records $big, 2M by target-readdir $tgt" >&2
case $small$big$tgt in
*exit*) fail "a reorder failed: $(tail -n 3 "$T/err")" ;;
esac
grep -q "groups moved" "$T/err" || fail "reorder said nothing of its groups: $(cat "$T/err")"
"$FSTAP" info "$T/big.out" >"$T/info" 2>&1 || fail "fstap info of the output failed: $(cat "$T/info")"
grep -qE "^records: +2000000 operations" "$T/info" ||
	fail "the output lost records: $(grep records "$T/info")"
[ "$big" -le "$BOUND_KB" ] || fail "2M records: peak RSS $big KiB over the bound $BOUND_KB KiB"
[ "$big" -le $((small + GROWTH_KB)) ] ||
	fail "peak RSS grows with the trace: $small KiB for 200k records, $big KiB for 2M"
[ "$tgt" -le "$BOUND_KB" ] && [ "$tgt" -le $((small + GROWTH_KB)) ] ||
	fail "2M records by target-readdir: peak RSS $tgt KiB ($small KiB for 200k by name)"
finish
