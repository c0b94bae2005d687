#!/bin/sh
# t4010-compare-disk.sh: `fstap compare --disk=MODEL` for real, as root: each
# run's loop image served by `fstap disk`, the loop device attached to the
# served file (the run's log shows both), results.json's runs carry the
# model's figures for the replay and for the whole run, the table its
# section; a candidate whose mkfs fails and an interruption half-way leave
# no FUSE mount, loop device or image behind. Plus the refusals: --disk
# with --device or --target, a bad model.
. "$FSTAP_SRCDIR/tests/integration/lib.sh"

need_compare_tools mkfs.ext4 losetup mount findmnt python3
[ -e /dev/fuse ] || skip "no /dev/fuse"

IMG=$T/img
mkdir -p "$IMG" "$T/target"
"$FSTAP" import -o "$T/small.trace" "$FSTAP_SRCDIR/examples/traces/small.jsonl"
TR=$T/small.trace

# --- refusals: exit 2, before anything is made ------------------------------------
expect_exit 2 "$FSTAP" compare --disk=hdd --device=/dev/null --fs=ext4 "$TR" &&
	expect_grep "$T/err" "--disk puts the loop images on a modeled device; it does not go with --device"
expect_exit 2 "$FSTAP" compare --disk=hdd --target=d="$T/target" "$TR" &&
	expect_grep "$T/err" "it does not go with --target ('d' is a mounted directory)"
expect_exit 2 "$FSTAP" compare --disk=tape "$TR" &&
	expect_grep "$T/err" "--disk: unknown model 'tape' (none, hdd, ssd, raid5)"
expect_exit 2 "$FSTAP" compare --disk=hdd,rpm=x "$TR"
[ -z "$(ls "$IMG")" ] || fail "a refusal made something: $(ls "$IMG")"

# --- two candidates on the modeled hdd, one of which cannot be made ---------------
expect_exit 1 "$FSTAP" compare --fs=ext4 --candidate='bad:ext4:-O no_such_feature' \
	--disk=hdd,rpm=10000 --runs=2 --image-dir="$IMG" --no-progress --out="$T/res" "$TR"
cp "$T/out" "$T/table"
expect_grep "$T/table" "FAILED: mkfs.ext4 failed (exit 1)"
expect_grep "$T/table" "the modeled disk (hdd,rpm=10000) during the replay of the median run"
grep -E "^ext4 +recorded +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9.]+$" \
	"$T/table" >/dev/null || fail "no disk figures for ext4: $(cat "$T/table")"
expect_grep "$T/res/logs/ext4-recorded.log" "disk -q --model=hdd,rpm=10000 --json="
expect_grep "$T/res/logs/ext4-recorded.log" "losetup --find --show $IMG/fstap-compare."
grep -E "^\\$ losetup .*--direct-io=on" "$T/res/logs/ext4-recorded.log" | grep -E "/disk/ext4\\.img( |$)" >/dev/null ||
	fail "the loop device is not on the served file: $(grep losetup "$T/res/logs/ext4-recorded.log")"
compare_released "after the runs" "$IMG"

python3 - "$T/res/results.json" <<'EOF' || fail "results.json lacks the model's figures"
import json, sys

res = json.load(open(sys.argv[1]))
assert res["options"]["disk"] == "hdd,rpm=10000", res["options"]
rows = {r["candidate"]: r for r in res["rows"]}
assert rows["bad"]["status"] == "failed"
runs = rows["ext4"]["runs"]
assert len(runs) == 2, runs
for run in runs:
    d = run["disk"]
    assert d["model"] == "hdd,rpm=10000", d
    rp, whole = d["replay"], d["run"]
    assert rp["model"] == "hdd" and whole["model_spec"] == "hdd,rpm=10000", d
    # the replay reads the one 15 KiB file at least; mkfs and prepare wrote before
    assert rp["requests"]["read"] >= 1 and rp["bytes"]["read"] >= 15192, rp
    for k in ("read", "write", "flush"):
        assert whole["requests"][k] >= rp["requests"][k], (k, d)
    assert whole["requests"]["write"] > rp["requests"]["write"], d
    assert whole["busy_ns"] > rp["busy_ns"] > 0, d
    assert 0 < rp["elapsed_ns"] < whole["elapsed_ns"], d
    assert sum(rp["queue_depth"].values()) == sum(rp["requests"].values()), rp
EOF

# --- @log: an xfs with its log on a second modeled device -------------------------
if command -v mkfs.xfs >/dev/null 2>&1 && command -v xfs_info >/dev/null 2>&1; then
	expect_exit 0 "$FSTAP" compare --candidate='xfs-extlog:xfs:-l logdev=@log,size=64m:logdev=@log' \
		--disk=hdd --log-disk=ssd --runs=1 --image-dir="$IMG" --no-progress \
		--out="$T/reslog" "$TR"
	L=$T/reslog/logs/xfs-extlog-recorded.log
	grep -E '^\$ mkfs\.xfs -f -q -l logdev=/dev/loop[0-9]+,size=64m /dev/loop[0-9]+$' "$L" \
		>/dev/null || fail "mkfs.xfs without the log device: $(grep mkfs "$L")"
	grep -E '^\$ mount -t xfs -o logdev=/dev/loop[0-9]+ /dev/loop' "$L" >/dev/null ||
		fail "mount without the log device: $(grep mount "$L")"
	# the log really is on the second device: xfs_info says so
	logdev=$(sed -n 's/^log *=\(\/dev\/loop[0-9]*\) .*/\1/p' "$L")
	datadev=$(sed -n 's/^meta-data=\(\/dev\/loop[0-9]*\) .*/\1/p' "$L")
	[ -n "$logdev" ] && [ -n "$datadev" ] && [ "$logdev" != "$datadev" ] ||
		fail "xfs_info shows no external log: $(grep -A10 xfs_info "$L")"
	grep -E "^\\$ losetup --direct-io=on --find --show .*/log_disk/xfs-extlog-log\.img$" "$L" \
		>/dev/null || fail "the log's loop device is not on its served file"
	python3 - "$T/reslog/results.json" <<'EOF2' || fail "results.json lacks the log device's figures"
import json, sys
res = json.load(open(sys.argv[1]))
assert res["options"]["log_disk"] == "ssd", res["options"]
run = res["rows"][0]["runs"][0]
assert run["disk"]["model"] == "hdd" and run["log_disk"]["model"] == "ssd", run
# mkfs and mount write the log
assert run["log_disk"]["run"]["requests"]["write"] > 0, run["log_disk"]
EOF2
	compare_released "after the @log run" "$IMG"
fi

# --- interrupted half-way: everything is undone ----------------------------------
"$FSTAP" compare --fs=ext4 --disk=hdd --runs=500 --image-dir="$IMG" --no-progress "$TR" \
	>"$T/int.out" 2>"$T/int.err" &
pid=$!
i=0
while ! findmnt -rn -t ext4 -o TARGET | grep -F "$IMG/" >/dev/null && [ $i -lt 400 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ $i -lt 400 ] || fail "compare never mounted anything"
findmnt -rn -t fuse.fstap-disk -o TARGET | grep -F "$IMG/" >/dev/null ||
	fail "no fstap disk under the mounted file system"
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 1 ] || fail "interrupted compare exited $rc, expected 1"
expect_grep "$T/int.err" "interrupted"
compare_released "after the interruption" "$IMG"

finish
