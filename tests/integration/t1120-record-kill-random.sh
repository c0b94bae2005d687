#!/bin/sh
# t1120: SIGKILL of the recorder at 20 random moments (seeded by
# FSTAP_T1120_SEED, default 1120, and printed) under a multi-threaded load,
# in each cache mode in turn. Every
# time: the trace reads back up to its last chunk, reported as incomplete
# and not corrupt (`fstap info` and `fstap export` exit 0); the backing tree
# holds, byte for byte, every file whose write and fsync the application
# saw succeed before the kill; `fusermount3 -u` clears the dead mount and a
# new `fstap record` mounts there again (the next round, and a last one).
. "$(dirname "$0")/lib-record.sh"
need_fuse

SEED=${FSTAP_T1120_SEED:-1120}
ROUNDS=${FSTAP_T1120_ROUNDS:-20}
echo "t1120: seed $SEED ($ROUNDS rounds; FSTAP_T1120_SEED=$SEED repeats them)"
mkdir "$T/m" "$T/b"

# the load, in a directory of its round: 4 threads each write files (a few
# KiB of a pattern of their name), fsync them, then log "name size" to LOG
# (not on the mount); a fifth lists, stats and removes its own scratch
# files. All run until the mount fails under them.
cat >"$T/load.py" <<'PY'
import os, sys, threading
mnt, log, tag = sys.argv[1], sys.argv[2], sys.argv[3]
logfd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

def content(name, size):
    pat = (name + "\n").encode()
    return (pat * (size // len(pat) + 1))[:size]

def writer(k):
    n = 0
    try:
        while True:
            name = "%s-w%d-%d" % (tag, k, n)
            size = 512 + (n * 1237 + k * 331) % 12000
            fd = os.open(os.path.join(mnt, name), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
            data = content(name, size)
            off = 0
            while off < size:
                off += os.write(fd, data[off:off + 4096])
            os.fsync(fd)
            os.close(fd)
            os.write(logfd, ("%s %d\n" % (name, size)).encode())
            n += 1
    except OSError:
        pass

def churner():
    n = 0
    try:
        while True:
            p = os.path.join(mnt, "%s-scratch-%d" % (tag, n % 8))
            with open(p, "w") as f:
                f.write("x" * (n % 100))
            os.listdir(mnt)
            os.stat(p)
            if n % 3 == 0:
                os.unlink(p)
            n += 1
    except OSError:
        pass

ts = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
ts.append(threading.Thread(target=churner))
for t in ts:
    t.start()
for t in ts:
    t.join()
PY

# check_synced LOG: every logged file is in the backing tree, whole and intact
cat >"$T/check.py" <<'PY'
import os, sys
b, log = sys.argv[1], sys.argv[2]
bad = 0
n = 0
for line in open(log):
    name, size = line.split()
    size = int(size)
    n += 1
    pat = (name + "\n").encode()
    want = (pat * (size // len(pat) + 1))[:size]
    try:
        got = open(os.path.join(b, name), "rb").read()
    except OSError as e:
        print("%s: synced, missing from the backing tree: %s" % (name, e.strerror))
        bad += 1
        continue
    if got != want:
        print("%s: synced %d bytes, the backing file has %d, %s" %
              (name, size, len(got), "a prefix" if want.startswith(got) else "other bytes"))
        bad += 1
print("%d synced files checked" % n, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# the kill moments: 0.05 to 0.8 s after the load starts
$PY -c 'import random, sys
r = random.Random(int(sys.argv[1]))
for i in range(int(sys.argv[2])):
    print("%.3f" % r.uniform(0.05, 0.8))' "$SEED" "$ROUNDS" >"$T/moments"

round=0
synced_total=0
for delay in $(cat "$T/moments"); do
	round=$((round + 1))
	case $((round % 4)) in
	0) mode=calls ;; 1) mode=direct ;; 2) mode=kernel ;; 3) mode=all ;;
	esac
	what="round $round (--cache=$mode, kill after ${delay}s)"
	mkdir "$T/b/r$round"
	rec_start "$T/m" -q --cache=$mode -o "$T/t$round.trace" "$T/b" "$T/m" ||
		{ fail "$what: no mount"; break; }
	$PY "$T/load.py" "$T/m/r$round" "$T/log$round" "r$round" &
	lpid=$!
	sleep "$delay"
	kill -9 "$REC_PID"
	wait "$REC_PID" 2>/dev/null || true
	wait "$lpid" 2>/dev/null || true

	expect_exit 0 "$FSTAP" info "$T/t$round.trace" && expect_grep "$T/out" "incomplete" ||
		fail "$what: the trace does not read back as incomplete"
	expect_exit 0 "$FSTAP" export -o "$T/t$round.jsonl" "$T/t$round.trace" ||
		fail "$what: the trace does not export"
	touch "$T/log$round"
	$PY "$T/check.py" "$T/b/r$round" "$T/log$round" >"$T/check.out" 2>"$T/check.err" ||
		fail "$what: synced writes lost: $(head -5 "$T/check.out")"
	synced_total=$((synced_total + $(count_lines "$T/log$round")))
	fusermount3 -u "$T/m" || { fail "$what: fusermount3 -u does not clear the dead mount"; break; }
done

[ "$round" = "$ROUNDS" ] || fail "$round rounds of $ROUNDS ran"
[ "$synced_total" -gt 0 ] || fail "no write was synced before any kill: the check checked nothing"
echo "t1120: $synced_total synced files checked over $round rounds"
# the last kill, too, left a mount point a new recorder can use
rec_start "$T/m" -q --no-trace "$T/b" "$T/m" || exit 1
[ -n "$(ls "$T/m")" ] || fail "the new mount does not show the files"
rec_stop "$T/m"
finish
