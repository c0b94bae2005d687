#!/bin/sh
# t3520-compare-device.sh: what compare records about the device under each
# run, as root, on small ext4 loop images: the loop device attached with
# direct I/O where the image dir's file system allows it (and buffered,
# with the note in the table and results.json, on ramfs, which refuses
# O_DIRECT), its rotational flag and I/O scheduler as a loop device has
# them, the mount options in force (mountinfo), the mkfs version, and the
# device's I/O counters over the replay, whose writes are made durable at
# its end (replay --sync-at-end, one syncfs): both times in the table and
# results.json, the verdicts on the time until durable.
. "$FSTAP_SRCDIR/tests/integration/lib.sh"

need_compare_tools mkfs.ext4 losetup mount findmnt python3 dd strace

IMG=$T/img
RAMFS=$T/ramfs
mkdir -p "$IMG" "$RAMFS" "$T/b"

test_cleanup() {
	if findmnt -rn "$RAMFS" >/dev/null 2>&1; then umount "$RAMFS"; fi
}

# What a loop device of this kernel says about its queue, and mkfs.ext4's version.
truncate -s 1M "$T/probe.img"
dev=$(losetup --find --show "$T/probe.img")
sysd=/sys/block/${dev#/dev/}
rotational=$(cat "$sysd/queue/rotational")
scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' "$sysd/queue/scheduler")
losetup -d "$dev"
mkfs_version=$(mkfs.ext4 -V 2>&1 | head -n 1)

# --- a write workload, recorded: 6 files of 256 KiB, no fsync ---------------------
"$FSTAP" record -q -o "$T/w.trace" "$T/b" -- sh -c "cd '$T/b' &&
	for i in 1 2 3 4 5 6; do dd if=/dev/zero of=f\$i bs=64k count=4 status=none; done" ||
	fail "the recording failed"

expect_exit 0 "$FSTAP" compare --candidate=na:ext4::noatime --runs=2 --seed=1 \
	--image-dir="$IMG" --no-progress --out="$T/res" "$T/w.trace"
grep -E "^  na +mkfs.ext4, mount -o noatime, loop image, direct I/O$" "$T/out" >/dev/null ||
	fail "no direct I/O in the candidates section: $(cat "$T/out")"
python3 - "$T/res/results.json" "$rotational" "$scheduler" "$mkfs_version" <<'PY' || \
	fail "results.json's device: $(cat "$T/res/results.json")"
import json, sys
res = json.load(open(sys.argv[1]))
rot, sched, version = sys.argv[2] == "1", sys.argv[3], sys.argv[4]
runs = res["rows"][0]["runs"]
assert len(runs) == 2, runs
for run in runs:
    d = run["device"]
    assert d["device"].startswith("/dev/loop"), d
    assert d["direct_io"] is True, d
    assert d["rotational"] is rot and d["scheduler"] == sched, (d, rot, sched)
    assert d["mount_options"].split(",")[:2] == ["rw", "noatime"], d
    assert d["fs_options"].split(",")[0] == "rw", d
    assert d["mkfs_version"] == version, (d, version)
    assert "direct_io_note" not in d, d
    st = d["stat"]
    assert sorted(st) == sorted(["reads", "read_merges", "read_sectors", "read_ms", "writes",
                                 "write_merges", "write_sectors", "write_ms", "io_ms",
                                 "queue_ms", "flushes", "flush_ms"]), st
    assert all(isinstance(v, int) and v >= 0 for v in st.values()), st
    # syncfs at the end of the replay wrote the 1.5 MiB of data to the device
    assert st["write_sectors"] * 512 >= 6 * 4 * 65536, st
    # the measured time is until durable: the last call, then the syncfs
    assert run["durable_ns"] == run["elapsed_ns"] + run["sync_ns"], run
s = res["rows"][0]["summary"]
el = sorted(r["durable_ns"] / 1e9 for r in runs)
lc = sorted(r["elapsed_ns"] / 1e9 for r in runs)
sy = sorted(r["sync_ns"] / 1e9 for r in runs)
close = lambda a, b: abs(a - b) < 1e-9
assert close(s["elapsed_s"]["min"], el[0]) and close(s["elapsed_s"]["max"], el[1]), (s, el)
assert close(s["last_call_s"]["min"], lc[0]) and close(s["last_call_s"]["max"], lc[1]), (s, lc)
assert close(s["sync_s"]["median"], (sy[0] + sy[1]) / 2), (s, sy)
PY
# summary.md: its sections in order, the command line as given, the table as printed
python3 - "$T/res" "$T/out" "$T/w.trace" "$IMG" <<'PY' || fail "summary.md: $(cat "$T/res/summary.md")"
import json, sys
out, table, trace, img = sys.argv[1:]
md = open(out + "/summary.md").read()
res = json.load(open(out + "/results.json"))
heads = [l for l in md.split("\n") if l.startswith("#")]
assert heads == ["# fstap compare: " + trace, "## Environment", "## Command line",
                 "## Results", "## Conclusion"], heads
sec = {}
for part in md.split("\n## ")[1:]:
    name, _, body = part.partition("\n\n")
    sec[name] = body
m = res["machine"]
env = sec["Environment"].split("\n")
assert env[0].startswith("- host: %s, Linux %s (%s), %d CPUs (" % (m["hostname"], m["kernel"],
                         m["arch"], m["cpus"])), env
assert env[1] == "- load average at the start: %.2f, %.2f, %.2f (1, 5, 15 min)" % tuple(m["loadavg"]), env
assert env[2] == "- fstap %s, %s" % (m["fstap_version"], m["date"]), env
d = res["rows"][0]["runs"][0]["device"]
assert env[3] == ("- na: mkfs.ext4 (%s) on %s, loop device with direct I/O, %s, scheduler %s; "
                  "mounted %s (%s)" % (d["mkfs_version"], d["device"],
                  "rotational" if d["rotational"] else "non-rotational", d["scheduler"],
                  d["mount_options"], d["fs_options"])), env
assert sec["Command line"] == ("```\nfstap compare --candidate=na:ext4::noatime --runs=2 --seed=1 "
                               "--image-dir=%s --no-progress --out=%s %s\n```\n" % (img, out, trace)), \
    sec["Command line"]
assert sec["Results"] == "```\n" + open(table).read() + "```\n", sec["Results"]
assert sec["Conclusion"] == res["conclusion"] + "\n", sec["Conclusion"]
PY
grep -E "^candidate +variant +median +min +max +last call +ops/s" "$T/out" >/dev/null ||
	fail "no last-call column: $(cat "$T/out")"
expect_grep "$T/out" "elapsed seconds until the writes were durable (the replay, then syncfs; lower is better)"
compare_released "after the direct-I/O compare" "$IMG"

# --- an image dir on ramfs: no O_DIRECT, so a buffered loop device, said ---------
mount -t ramfs ramfs "$RAMFS" || skip "cannot mount ramfs"
expect_exit 0 "$FSTAP" compare --candidate=r:ext4 --runs=1 --image-dir="$RAMFS" \
	--no-progress --out="$T/ram" "$T/w.trace"
grep -E "^  r +mkfs.ext4, loop image; the loop device does buffered I/O \(losetup \
--direct-io=on failed: losetup failed \(exit 1\): losetup: $RAMFS/fstap-compare.[^/]*/r.img: \
failed to set up loop device: Invalid argument\)$" "$T/out" >/dev/null ||
	fail "no buffered-I/O note: $(cat "$T/out")"
python3 - "$T/ram/results.json" <<'PY' || fail "ramfs results.json: $(cat "$T/ram/results.json")"
import json, sys
d = json.load(open(sys.argv[1]))["rows"][0]["runs"][0]["device"]
assert d["direct_io"] is False, d
assert d["direct_io_note"].startswith("the loop device does buffered I/O (losetup "
                                      "--direct-io=on failed: "), d
PY
compare_released "after the ramfs compare" "$RAMFS"

# --- fstap replay --sync-at-end on its own --------------------------------------------
loop_mount ext4 64M "$T/mnt"
expect_exit 0 "$FSTAP" prepare -q "$T/w.trace" "$T/mnt"
traced -f -e trace=syncfs -o "$T/strace" "$FSTAP" replay --sync-at-end --no-progress \
	--json="$T/replay.json" "$T/w.trace" "$T/mnt" > "$T/replay.txt" ||
	fail "replay --sync-at-end failed"
[ "$(grep -c 'syncfs(' "$T/strace")" = 1 ] || fail "not one syncfs: $(cat "$T/strace")"
grep -E "^sync at end:  [0-9]+\.[0-9]{3} s \(syncfs of the target\); durable after [0-9]+\.[0-9]{3} s$" \
	"$T/replay.txt" >/dev/null || fail "no sync line: $(cat "$T/replay.txt")"
python3 - "$T/replay.json" <<'PY' || fail "replay --sync-at-end JSON: $(cat "$T/replay.json")"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert run["durable_ns"] == run["elapsed_ns"] + run["sync_ns"] and run["sync_ns"] > 0, run
PY
expect_exit 0 "$FSTAP" replay --no-progress --json="$T/plain.json" "$T/w.trace" "$T/mnt"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["runs"][0]; assert "sync_ns" not in r and "durable_ns" not in r, r' \
	"$T/plain.json" || fail "sync_ns without --sync-at-end"

finish
