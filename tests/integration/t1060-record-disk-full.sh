#!/bin/sh
# t1060: the trace's disk fills up: the file system keeps serving (the
# workload succeeds), the loss is reported on stderr and in the exit status,
# and the trace written so far reads back.
. "$(dirname "$0")/lib-record.sh"
need_fuse

mkdir "$T/m" "$T/b" "$T/small"
mount -t tmpfs -o size=256k fstap-test "$T/small" || skip "cannot mount a tmpfs"
test_cleanup_extra() { umount "$T/small" 2>/dev/null || umount -l "$T/small"; }

rec_start "$T/m" -q -o "$T/small/t.trace" --snapshot=none "$T/b" "$T/m" || exit 1
# about 60000 requests: far more than 256 KiB of trace
$PY - "$T/m" <<'PY' || fail "the workload failed while the trace's disk was full"
import os, sys
for i in range(6000):
    p = os.path.join(sys.argv[1], "f%d" % i)
    fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, b"y" * 10)
    os.close(fd)
    os.stat(p)
PY
[ "$(ls "$T/b" | wc -l)" = 6000 ] || fail "not every file reached the backing directory"
fusermount3 -u "$T/m"
set +e
wait "$REC_PID"
rc=$?
set -e
[ "$rc" = 1 ] || fail "fstap record exited $rc after losing records, expected 1"
grep -q "lost" "$T/rec.err" || fail "no loss reported: $(cat "$T/rec.err")"
grep -q "No space left on device" "$T/rec.err" || fail "the cause is not named: $(cat "$T/rec.err")"
set +e
"$FSTAP" export "$T/small/t.trace" >"$T/t.jsonl" 2>"$T/export.err"
set -e
n=$(jq_count '.op == "create"' "$T/t.jsonl")
[ "$n" -gt 0 ] || fail "nothing of the trace reads back: $(cat "$T/export.err")"
finish
