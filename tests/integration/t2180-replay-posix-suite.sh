#!/bin/sh
# t2180: a real recording as a regression test: posix-suite.trace (see
# ../shared/traces/README.md: 1.36 M records of a POSIX conformance suite,
# thousands of short processes under several uids, device nodes among the
# objects created, linked, renamed and removed), prepared on a fresh ext4
# image and replayed with the defaults, with --devices and with
# --order=strict. Each replay stays within POSIX_SUITE_MAX (100)
# divergences (0 measured, docs/replay.md), the defaults diverge no more
# than --devices (the device nodes are made with a placeholder number and
# every later operation on them replays), and no mknod diverges.
# About 3 minutes (three replays of 45-60 s on 2 cores).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

XZ="$FSTAP_SRCDIR/../shared/traces/posix-suite.trace.xz"
[ -r "$XZ" ] || skip "no $XZ (the shared traces are next to the repository)"
[ "$(id -u)" = 0 ] || skip "needs root to mount a loop image"
for c in xz mkfs.ext4 losetup mount umount python3; do
	command -v $c >/dev/null 2>&1 || skip "$c is missing"
done
# The bound the project holds this trace to (0 replays diverge here today).
POSIX_SUITE_MAX=${POSIX_SUITE_MAX:-100}

LOOP=""
MNT="$T/mnt"
test_cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" || umount -l "$MNT"; fi
	[ -z "$LOOP" ] || losetup -d "$LOOP"
}

xz -dc "$XZ" >"$T/p.trace" || fail "cannot decompress $XZ"
truncate -s 8G "$T/img"
LOOP=$(losetup -f --show "$T/img" 2>/dev/null) || skip "cannot set up a loop device"
mkdir "$MNT"

# posix_run TAG PREPARE_ARGS REPLAY_ARGS: a fresh ext4, prepare, replay.
posix_run() {
	mkfs.ext4 -q -F "$LOOP" || { fail "mkfs.ext4 failed"; return 1; }
	mount "$LOOP" "$MNT" || { fail "cannot mount $LOOP"; return 1; }
	mkdir "$MNT/t"
	expect_exit 0 "$FSTAP" prepare -q $2 "$T/p.trace" "$MNT/t" &&
		expect_exit 0 "$FSTAP" replay --json="$T/$1.json" $3 "$T/p.trace" "$MNT/t" &&
		cp "$T/out" "$T/$1.out"
	umount "$MNT"
}

posix_run defaults "" ""
posix_run devices "--devices" "--devices"
posix_run strict "" "--order=strict"

python3 - "$T" "$POSIX_SUITE_MAX" <<'PY' || fail "the posix-suite replays diverge more than they should"
import json, sys
t, bound = sys.argv[1], int(sys.argv[2])
runs = {k: json.load(open("%s/%s.json" % (t, k)))["runs"][0] for k in ("defaults", "devices", "strict")}
for k, r in runs.items():
    print("%s: %d divergences of %d replayed operations" % (k, r["divergences"], sum(o["count"] for o in r["by_op"].values())))
    assert r["divergences"] <= bound, (k, r["divergences"], r["divergence"])
    assert not [d for d in r["divergence"] if d["op"] == "mknod"], (k, r["divergence"])
    assert r["by_op"]["mknod"]["count"] >= 1173, (k, r["by_op"]["mknod"])
assert runs["defaults"]["divergences"] <= runs["devices"]["divergences"], \
    (runs["defaults"]["divergence"], runs["devices"]["divergence"])
assert runs["defaults"]["devnodes_placeholder"] == 1173, runs["defaults"]["devnodes_placeholder"]
assert runs["strict"]["devnodes_placeholder"] == 1173
assert runs["devices"]["devnodes_placeholder"] == 0
PY
expect_grep "$T/defaults.out" "device nodes: 1173 with a device number that reaches no device"

finish
