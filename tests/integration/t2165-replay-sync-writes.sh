#!/bin/sh
# t2165: synchronous writes. A program writes through O_SYNC and O_DSYNC
# handles (sync-writer.py); the kernel follows each such write with an FSYNC
# (FDATASYNC) request of the writing thread, which the recorder flags as the
# kernel's. The replay, run under strace, opens with O_SYNC (O_DSYNC) again
# and issues exactly the fsyncs and fdatasyncs the application made (5 and
# 3), not one per write. A trace of a recorder that did not flag them (the
# flags and the metadata key taken out) replays the same.
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-replay.sh"

need_fuse
command -v strace >/dev/null 2>&1 || skip "strace is missing (apt-get install strace)"
WRITER="$FSTAP_SRCDIR/tests/integration/sync-writer.py"

mkdir "$T/app" "$T/native"
expect_exit 0 "$FSTAP" record -q -o "$T/t.trace" "$T/app" -- $PY "$WRITER" "$T/app" || exit 1
rec_export "$T/t.trace" "$T/t.jsonl"

# The recording: a sync per synchronous write, flagged; the application's own not.
python3 - "$T/t.jsonl" <<'PY' || fail "the recorder did not flag the kernel's syncs as expected"
import collections, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])][1:]
paths = {}
got = collections.Counter()
for r in recs:
    if r["op"] in ("fsync", "fdatasync"):
        got[(r["op"], r["path"], bool(r.get("kernel")))] += 1
want = {
    ("fsync", "/log-sync", True): 20,
    ("fdatasync", "/log-dsync", True): 40,
    ("fsync", "/log-sync-fsync", True): 5,
    ("fsync", "/log-sync-fsync", False): 5,
    ("fdatasync", "/plain-fdatasync", False): 3,
}
assert got == want, "got %s" % sorted(got.items())
meta = recs and json.loads(open(sys.argv[1]).readline())["metadata"]
assert meta["recorder"]["sync_writes_flagged"] is True, meta["recorder"]
PY

# replay_strace TRACE TAG: replays TRACE into a fresh directory under strace;
# checks the syncs and the opens' flags, and the final tree.
replay_strace() {
	mkdir "$T/$2"
	expect_exit 0 traced -f -qq -o "$T/$2.strace" -e trace=fsync,fdatasync,openat \
		"$FSTAP" replay "$1" "$T/$2" || return 1
	cp "$T/out" "$T/$2.out"
	n=$(grep -c ' fsync(' "$T/$2.strace" || true)
	[ "$n" = 5 ] || fail "$2: the replay made $n fsyncs, the application 5"
	n=$(grep -c ' fdatasync(' "$T/$2.strace" || true)
	[ "$n" = 3 ] || fail "$2: the replay made $n fdatasyncs, the application 3"
	grep -q 'openat(.*"log-sync", .*O_SYNC' "$T/$2.strace" ||
		fail "$2: log-sync is not opened with O_SYNC: $(grep log-sync "$T/$2.strace" | head -2)"
	grep -q 'openat(.*"log-dsync", .*O_DSYNC' "$T/$2.strace" ||
		fail "$2: log-dsync is not opened with O_DSYNC"
	if grep 'openat(.*"log-dsync",' "$T/$2.strace" | grep -q 'O_SYNC'; then
		fail "$2: log-dsync is opened with O_SYNC"
	fi
	expect_grep "$T/$2.out" "divergences:  0"
	tree_state "$T/$2" >"$T/$2.tree"
	tree_state "$T/app" >"$T/app.tree"
	diff -u "$T/app.tree" "$T/$2.tree" >&2 || fail "$2: the replayed tree differs from the application's"
}

replay_strace "$T/t.trace" new
if grep -q '^syncs:' "$T/new.out"; then
	fail "a flagged trace has syncs found by the replay: $(grep '^syncs:' "$T/new.out")"
fi

# The same trace as an older recorder wrote it: no flags, no metadata key.
python3 - "$T/t.jsonl" "$T/old.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
out = open(sys.argv[2], "w")
head = json.loads(lines[0])
del head["metadata"]["recorder"]["sync_writes_flagged"]
out.write(json.dumps(head) + "\n")
for l in lines[1:]:
    r = json.loads(l)
    if r["op"] in ("fsync", "fdatasync"):
        r.pop("kernel", None)
    out.write(json.dumps(r) + "\n")
PY
expect_exit 0 "$FSTAP" import -o "$T/old.trace" "$T/old.jsonl"
replay_strace "$T/old.trace" old
expect_grep "$T/old.out" "syncs:        65 fsync/fdatasync after O_SYNC/O_DSYNC writes left to the kernel"

finish
