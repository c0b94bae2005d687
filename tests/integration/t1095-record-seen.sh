#!/bin/sh
# t1095: what the recorder stored equals what the application saw.
# Readdir: a directory of 2000 entries is listed through the mount by
# tests/tools/dirlist (getdents64 by hand: from the start, after a rewind,
# after a seek to the middle), with a buffer that takes a few hundred entries
# per call and with one that takes a few dozen: each getdents64 call is one
# READDIR record of the same process and handle, at the position the call
# started from, holding exactly the names the call returned, in their order.
# (With the small buffer the kernel asks for more than the call takes and
# drops the rest: the record begins with the call's names, and the next
# record starts where the call ended.)
# Read and write: in --cache=direct mode every pread and pwrite of the
# application is recorded with its offset, size and result (a call the
# kernel splits is a run of records covering exactly its range).
. "$(dirname "$0")/lib-record.sh"
need_fuse

DIRLIST="$FSTAP_BUILDDIR/tests/tools/dirlist"
[ -x "$DIRLIST" ] || { echo "FAIL: '$DIRLIST' is not built" >&2; exit 1; }

mkdir "$T/m" "$T/b" "$T/b/big"
$PY - "$T/b/big" <<'PY'
import os, sys
for i in range(2000):
    open(os.path.join(sys.argv[1], "file%04d-%s" % (i, "x" * (i % 37))), "w").close()
PY

# --- readdir, in the default mode ---
rec_start "$T/m" -q -o "$T/t.trace" "$T/b" "$T/m" || exit 1
"$DIRLIST" "$T/m/big" 32768 700 >"$T/app.big" & p_big=$!
wait $p_big || fail "dirlist (32 KiB buffer) failed"
"$DIRLIST" "$T/m/big" 1024 1500 >"$T/app.small" & p_small=$!
wait $p_small || fail "dirlist (1 KiB buffer) failed"
rec_stop "$T/m"
rec_export "$T/t.trace" "$T/t.jsonl"

# check_listing APP.OUT PID exact|prefix: the READDIR records of PID against
# dirlist's output; prefix: a record may hold more than its call returned.
check_listing() {
	$PY - "$1" "$2" "$T/t.jsonl" "$3" <<'PY'
import json, sys
app_out, pid, jsonl, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
calls = []                              # (listing, pos, [names])
for line in open(app_out):
    f = line.split()
    if f[0] == "call":
        calls.append((int(f[1]), int(f[2]), []))
    else:
        calls[-1][2].append(f[2])
recs = []
for line in open(jsonl):
    r = json.loads(line)
    if r.get("op") == "readdir" and r.get("pid") == pid:
        recs.append(r)
bad = []
per_listing = {}
for l, _, names in calls:
    per_listing[l] = per_listing.get(l, 0) + 1
if min(per_listing.values()) < 3 or len(per_listing) != 3:
    bad.append("the application made %s getdents64 calls per listing: too few to test" % per_listing)
if len(recs) != len(calls):
    bad.append("%d READDIR records for %d getdents64 calls" % (len(recs), len(calls)))
fhs = {r.get("fh") for r in recs}
if len(fhs) != 1:
    bad.append("READDIR records on handles %s, not one" % sorted(fhs))
for i, ((l, pos, names), r) in enumerate(zip(calls, recs)):
    got = [e["name"] for e in r.get("entries", [])]
    if mode == "prefix":
        got = got[:len(names)]
    where = "listing %d, call %d" % (l, i)
    if int(r.get("offset", 0)) != pos:
        bad.append("%s: the record is at offset %s, the call started at %d" % (where, r.get("offset", 0), pos))
    if got != names:
        k = next((j for j in range(min(len(got), len(names))) if got[j] != names[j]),
                 min(len(got), len(names)))
        bad.append("%s: entry %d is %r in the trace, %r for the application (%d and %d entries)"
                   % (where, k, got[k:k + 2], names[k:k + 2], len(got), len(names)))
    if r.get("res", 0) != len(r.get("entries", [])) or (mode == "exact" and r.get("res", 0) != len(names)):
        bad.append("%s: res %s for %d entries" % (where, r.get("res"), len(names)))
print("; ".join(bad[:5]))
sys.exit(1 if bad else 0)
PY
}
check_listing "$T/app.big" $p_big exact >"$T/bad" || fail "readdir (32 KiB buffer): $(cat "$T/bad")"
check_listing "$T/app.small" $p_small prefix >"$T/bad" || fail "readdir (1 KiB buffer): $(cat "$T/bad")"

# --- reads and writes, in --cache=direct ---
rec_start "$T/m" -q --cache=direct -o "$T/d.trace" "$T/b" "$T/m" || exit 1
$PY - "$T/m/rw" >"$T/app.rw" <<'PY' & p_rw=$!
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
calls = [("write", 0, 1), ("write", 1, 4095), ("write", 4096, 4097), ("write", 12345, 65536),
         ("write", 200000, 131072), ("write", 400000, 1048576), ("write", 7, 3),
         ("read", 0, 1), ("read", 3, 4096), ("read", 100000, 131072), ("read", 5, 1048576),
         ("read", 1400000, 100000), ("read", 9000000, 10)]
for k, off, size in calls:
    if k == "write":
        n = os.pwrite(fd, bytes([off % 251]) * size, off)
    else:
        n = len(os.pread(fd, size, off))
    print(k, off, size, n)
os.close(fd)
PY
wait $p_rw || fail "the read/write workload failed"
rec_stop "$T/m"
rec_export "$T/d.trace" "$T/d.jsonl"
$PY - "$T/app.rw" $p_rw "$T/d.jsonl" >"$T/bad" <<'PY' || fail "reads and writes in direct mode: $(cat "$T/bad")"
import json, sys
app = [l.split() for l in open(sys.argv[1])]
pid = int(sys.argv[2])
recs = [json.loads(l) for l in open(sys.argv[3])]
recs = [(r["op"], int(r.get("offset", 0)), int(r.get("size", 0)), r.get("res", 0))
        for r in recs if r.get("op") in ("read", "write") and r.get("pid") == pid]
bad, i = [], 0
for op, off, size, n in ((a[0], int(a[1]), int(a[2]), int(a[3])) for a in app):
    # one record, or a run of them that covers exactly the call's range
    at, done, got = off, 0, 0
    while i < len(recs) and recs[i][0] == op and recs[i][1] == at and done < size:
        at += recs[i][2]
        done += recs[i][2]
        got += recs[i][3]
        i += 1
        if recs[i - 1][3] < recs[i - 1][2]:
            break                       # a short read ends the call
    if done != size or got != n:
        bad.append("the application's %s of %d bytes at %d (result %d): the trace covers "
                   "%d bytes, result %d" % (op, size, off, n, done, got))
        break
if not bad and i != len(recs):
    bad.append("%d records more than the application's calls: %s" % (len(recs) - i, recs[i:i + 3]))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY

finish
