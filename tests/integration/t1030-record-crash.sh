#!/bin/sh
# t1030: kill -9 of the recorder mid-run: the trace reads back up to its last
# written chunk (reported as incomplete); the dead mount gets a clear error
# from `fstap record` that says how to clear it; `fusermount3 -u` clears it
# and `fstap record` mounts there again.
. "$(dirname "$0")/lib-record.sh"
need_fuse

mkdir "$T/m" "$T/b"
rec_start "$T/m" -q -o "$T/t.trace" "$T/b" "$T/m" || exit 1
# a workload that keeps going until the file system disappears
$PY - "$T/m" <<'PY' &
import os, sys, time
i = 0
try:
    while True:
        fd = os.open(os.path.join(sys.argv[1], "f%d" % i), os.O_CREAT | os.O_WRONLY, 0o644)
        os.write(fd, b"x" * 512)
        os.close(fd)
        i += 1
except OSError:
    pass
PY
wpid=$!
sleep 2.5
kill -9 "$REC_PID"
wait "$REC_PID" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true

# the trace: incomplete but readable up to the last chunk
expect_exit 0 "$FSTAP" info "$T/t.trace" && expect_grep "$T/out" "incomplete"
rec_export "$T/t.trace" "$T/t.jsonl"
n=$(jq_count '.op == "create" and .res == 0' "$T/t.jsonl")
[ "$n" -gt 0 ] || fail "no create record survived the crash"
files=$(ls "$T/b" | wc -l)
[ "$n" -le "$files" ] || fail "$n creates recorded for $files files"

# the stale mount: a clear error, then cleared and mounted again
expect_exit 1 "$FSTAP" record --no-trace "$T/b" "$T/m" &&
	expect_grep "$T/err" "Transport endpoint is not connected" &&
	expect_grep "$T/err" "fusermount3 -u $T/m"
expect_exit 1 "$FSTAP" record --no-trace "$T/m" &&
	expect_grep "$T/err" "stale FUSE mount"
fusermount3 -u "$T/m" || fail "fusermount3 -u does not clear the dead mount"
rec_start "$T/m" -q --no-trace "$T/b" "$T/m" || exit 1
[ "$(ls "$T/m" | wc -l)" = "$files" ] || fail "the new mount does not show the files"
rec_stop "$T/m"
finish
