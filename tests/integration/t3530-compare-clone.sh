#!/bin/sh
# t3530-compare-clone.sh: `fstap compare --clone=N` for real, as root: a
# recorded workload (creates, writes, reads, a rename, an unlink, a listing)
# on small ext4 and btrfs loop images and a --target directory, once as one
# client and once as 2: each row of the 2-client compare has exactly twice
# the one-client row's operations (in total and per operation), 0
# divergences, and its runs carry the 2 clones (each the one-client count);
# results.json records clone; the target-readdir variant is made from the
# first clone; on a --device (a loop device standing in) 3 clients give 3
# times the operations; nothing is left mounted or attached. Plus the usage
# errors.
. "$FSTAP_SRCDIR/tests/integration/lib.sh"

need_compare_tools mkfs.ext4 mkfs.btrfs losetup mount findmnt python3 dd

IMG=$T/img
mkdir -p "$IMG" "$T/b" "$T/target"
DEV=
test_cleanup() {
	if [ -n "$DEV" ]; then losetup -d "$DEV" 2>/dev/null || true; fi
}

# --- usage errors: exit 2, one line naming the value ---------------------------------
for v in 0 x '' -1 2x 1025; do
	expect_exit 2 "$FSTAP" compare --clone="$v" --fs=ext4 "$T/none.trace" &&
		expect_grep "$T/err" "fstap compare: --clone must be a number from 1 to 1024, not '$v'"
done
expect_exit 0 "$FSTAP" compare --help && expect_grep "$T/out" "--clone=N            N clients per run"

# --- a small workload, recorded ----------------------------------------------------------
"$FSTAP" record -q -o "$T/w.trace" "$T/b" -- sh -c "cd '$T/b' && mkdir d &&
	for i in 1 2 3 4; do dd if=/dev/zero of=d/f\$i bs=16k count=2 status=none; done &&
	cat d/f1 d/f2 >/dev/null && mv d/f3 d/g3 && rm d/f4 && ls -l d >/dev/null" ||
	fail "the recording failed"

# --- one client, then two --------------------------------------------------------------
expect_exit 0 "$FSTAP" compare --fs=ext4,btrfs --target=dir="$T/target" --runs=1 \
	--image-dir="$IMG" --no-progress --out="$T/one" "$T/w.trace"
compare_released "after the one-client compare" "$IMG"
expect_exit 0 "$FSTAP" compare --fs=ext4,btrfs --target=dir="$T/target" --runs=1 --clone=2 \
	--variant=recorded,target-readdir --image-dir="$IMG" --no-progress --out="$T/two" \
	"$T/w.trace"
cp "$T/out" "$T/two.table"
compare_released "after the two-client compare" "$IMG"
[ -z "$(ls "$T/target")" ] || fail "the target directory was not cleaned: $(ls "$T/target")"
expect_grep "$T/two.table" "--clone=2: each run is 2 clients at once"
expect_grep "$T/two.table" "divergences: none (every run replayed the recorded results)"
expect_grep "$T/two/logs/ext4-recorded.log" "prepare -q --clone=2 $T/w.trace"
for c in ext4 dir; do
	grep -E -- "reorder --by=target-readdir --target=[^ ]+/clone-0 " \
		"$T/two/logs/$c-target-readdir.log" >/dev/null ||
		fail "$c: target-readdir not made from the first clone: $(grep reorder \
			"$T/two/logs/$c-target-readdir.log")"
done
grep -F -- "--no-progress --clone=2 $T/w.trace" "$T/two/logs/btrfs-recorded.log" >/dev/null ||
	fail "the replay was not given --clone=2: $(grep replay "$T/two/logs/btrfs-recorded.log")"

python3 - "$T/one/results.json" "$T/two/results.json" <<'PY' || fail "--clone=2: $(cat "$T/two.table")"
import json, sys
one = json.load(open(sys.argv[1]))
two = json.load(open(sys.argv[2]))
assert one["clone"] == 1 and one["options"]["clone"] == 1, (one["clone"], one["options"])
assert two["clone"] == 2 and two["options"]["clone"] == 2, (two["clone"], two["options"])
ref = {r["candidate"]: r["runs"][0] for r in one["rows"]}
for r in one["rows"]:
    assert r["status"] == "ok" and "clones" not in r["runs"][0], r
    assert r["runs"][0]["ops"] > 20 and r["runs"][0]["divergences"] == 0, r["runs"][0]
assert sorted((r["candidate"], r["variant"]) for r in two["rows"]) == sorted(
    (c, v) for c in ("ext4", "btrfs", "dir") for v in ("recorded", "target-readdir"))
for r in two["rows"]:
    assert r["status"] == "ok", r
    run, base = r["runs"][0], ref[r["candidate"]]
    key = (r["candidate"], r["variant"])
    assert run["ops"] == 2 * base["ops"], (key, run["ops"], base["ops"])
    assert run["divergences"] == 0, (key, run["divergences"])
    assert run["bytes_written"] == 2 * base["bytes_written"] == 2 * 4 * 32768, key
    counts = {op: e["count"] for op, e in run["by_op"].items()}
    assert counts == {op: 2 * e["count"] for op, e in base["by_op"].items()}, (key, counts)
    assert [c["clone"] for c in run["clones"]] == [0, 1], key
    for c in run["clones"]:
        assert c["ops"] == base["ops"] and c["divergences"] == 0, (key, c["ops"])
    s = run["clones_summary"]
    assert s["n"] == 2 and s["elapsed_ns"]["max"] == run["elapsed_ns"], (key, s)
    # the row's ops/s: all the clients' operations over the time until durable
    want = run["ops"] / (run["durable_ns"] / 1e9)
    assert abs(r["summary"]["ops_per_s"] - want) < 1e-6 * want, (key, r["summary"], want)
    assert run["durable_ns"] == run["elapsed_ns"] + run["sync_ns"], key
PY

# --- a block device (a loop device standing in): the copies go onto its file system ------
truncate -s 64M "$T/dev.img"
DEV=$(losetup --find --show "$T/dev.img") || skip "cannot attach a loop device"
expect_exit 0 "$FSTAP" compare --device="$DEV" --fs=ext4 --runs=1 --clone=3 --no-progress \
	--image-dir="$IMG" --out="$T/dev" "$T/w.trace"
python3 - "$T/one/results.json" "$T/dev/results.json" <<'PY' || fail "--device --clone=3: $(cat "$T/out")"
import json, sys
one = {r["candidate"]: r["runs"][0] for r in json.load(open(sys.argv[1]))["rows"]}
res = json.load(open(sys.argv[2]))
run = res["rows"][0]["runs"][0]
assert res["clone"] == 3 and res["candidates"][0]["kind"] == "device", res["candidates"]
assert run["ops"] == 3 * one["ext4"]["ops"] and run["divergences"] == 0, run["ops"]
assert run["clones_summary"]["n"] == 3, run["clones_summary"]
PY
findmnt -rn -S "$DEV" >/dev/null && fail "$DEV is still mounted after compare"
losetup -d "$DEV"
DEV=
compare_released "after the --device compare" "$IMG"

finish
