#!/bin/sh
# t1031: a crash of the recorder itself (a fault in one of its threads). The
# crash handler prints a symbolized backtrace and, before the process dies,
# has the writer put the queued and partial chunks on disk: the trace reads
# back (incomplete) and holds every create the workload finished, not only
# those of the chunks written before the last once-a-second flush. A stack
# overflow in a thread other than main reports itself too (each thread has
# its own alternate signal stack).
. "$(dirname "$0")/lib-record.sh"
need_fuse

mkdir "$T/m" "$T/b"
# The crash comes after the first periodic flush (1.2 s) and after 1000
# requests, however slow the machine: a create of the workload costs about 6
# requests (1000 requests were 172 creates), so more than 100 are finished.
export FSTAP_TEST_RECORD_CRASH_MS=1200 FSTAP_TEST_RECORD_CRASH_REQS=1000
rec_start "$T/m" -q -o "$T/t.trace" "$T/b" "$T/m" || exit 1
unset FSTAP_TEST_RECORD_CRASH_MS FSTAP_TEST_RECORD_CRASH_REQS
# one file after the other until the file system disappears; the count of
# finished creates is written after each one
$PY - "$T/m" "$T/done" <<'PY' &
import os, sys
i = 0
try:
    while True:
        fd = os.open(os.path.join(sys.argv[1], "f%d" % i), os.O_CREAT | os.O_WRONLY, 0o644)
        os.close(fd)
        i += 1
except OSError:
    pass
open(sys.argv[2], "w").write("%d\n" % i)
PY
wpid=$!
rc=0
wait "$REC_PID" || rc=$?
wait "$wpid" 2>/dev/null || true

[ "$rc" = 139 ] || fail "the recorder exited with $rc, not 139 (SIGSEGV)"
expect_grep "$T/rec.err" "fatal signal 11 (SIGSEGV)"
expect_grep "$T/rec.err" "backtrace:"
expect_grep "$T/rec.err" "test_crash_main"

expect_exit 0 "$FSTAP" info "$T/t.trace" && expect_grep "$T/out" "incomplete"
rec_export "$T/t.trace" "$T/t.jsonl"
done=$(cat "$T/done" 2>/dev/null || echo 0)
n=$(jq_count '.op == "create" and .res == 0' "$T/t.jsonl")
echo "creates: $n recorded, $done finished, $(ls "$T/b" | wc -l) files" >&2
[ "$done" -gt 100 ] || fail "the workload finished only $done creates before the crash (1000 requests)"
# a create whose reply left but whose record was not yet added may be missing
[ "$n" -ge $((done - 2)) ] ||
	fail "$n creates recorded of $done finished before the crash: partial chunks were lost"
[ "$n" -le "$(ls "$T/b" | wc -l)" ] || fail "$n creates recorded for $(ls "$T/b" | wc -l) files"

fusermount3 -u "$T/m" || fail "fusermount3 -u does not clear the dead mount"

# --- a stack overflow in a thread ---
export FSTAP_TEST_RECORD_CRASH_MS=200:overflow
rec_start "$T/m" -q -o "$T/o.trace" "$T/b" "$T/m" || exit 1
unset FSTAP_TEST_RECORD_CRASH_MS
rc=0
wait "$REC_PID" || rc=$?
[ "$rc" = 139 ] || fail "stack overflow: the recorder exited with $rc, not 139 (SIGSEGV)"
expect_grep "$T/rec.err" "fatal signal 11 (SIGSEGV)"
expect_grep "$T/rec.err" "in test_overflow"
fusermount3 -u "$T/m" || fail "fusermount3 -u does not clear the dead mount"
finish
