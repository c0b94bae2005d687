#!/bin/sh
# t3500-compare.sh: `fstap compare` for real, as root: a tiny hand-written
# trace on small ext4, xfs and btrfs loop images, a --target directory and a
# candidate that cannot be made; results.json, results.csv and chart.svg
# agree with the table; a block device (a loop device standing in), the
# variants, Ctrl-C (SIGTERM) half-way; and afterwards no loop device and no
# mount of the test is left. Plus the usage and set-up errors.
. "$FSTAP_SRCDIR/tests/integration/lib.sh"

need_compare_tools mkfs.ext4 mkfs.xfs mkfs.btrfs losetup mount findmnt blkid python3

IMG=$T/img
mkdir -p "$IMG" "$T/target" "$T/small"
DEV=
test_cleanup() {
	if [ -n "$DEV" ]; then losetup -d "$DEV" 2>/dev/null || true; fi
	umount "$T/small" 2>/dev/null || true
}

"$FSTAP" import -o "$T/small.trace" "$FSTAP_SRCDIR/examples/traces/small.jsonl"
TR=$T/small.trace

# --- usage errors: exit 2 ---------------------------------------------------
expect_exit 2 "$FSTAP" compare
expect_exit 2 "$FSTAP" compare "$TR" "$TR"
expect_exit 2 "$FSTAP" compare --runs=0 "$TR"
expect_exit 2 "$FSTAP" compare --runs=x "$TR"
expect_exit 2 "$FSTAP" compare --candidate=nocolon "$TR" && expect_grep "$T/err" "NAME:FSTYPE"
expect_exit 2 "$FSTAP" compare --candidate='a b:ext4' "$TR"
expect_exit 2 "$FSTAP" compare --fs=ext4 --candidate=ext4:xfs "$TR" &&
	expect_grep "$T/err" "two candidates are called 'ext4'"
expect_exit 2 "$FSTAP" compare --target=nodir "$TR"
expect_exit 2 "$FSTAP" compare --variant=recorded,bogus "$TR"
expect_exit 2 "$FSTAP" compare --variant=name,name "$TR"
expect_exit 2 "$FSTAP" compare --order=bogus "$TR"
expect_exit 2 "$FSTAP" compare --pace=fast "$TR"
expect_exit 2 "$FSTAP" compare --image-size=12q "$TR"
expect_exit 2 "$FSTAP" compare --force "$TR"
expect_exit 2 "$FSTAP" compare --no-such-option "$TR"
# one message, compare's own, naming the option
[ "$(cat "$T/err")" = "fstap compare: unknown option '--no-such-option'
Try 'fstap compare --help'." ] || fail "--no-such-option: $(cat "$T/err")"
expect_exit 2 "$FSTAP" compare -x "$TR" && expect_grep "$T/err" "unknown option '-x'"
expect_exit 2 "$FSTAP" compare "$TR" --runs && expect_grep "$T/err" "option '--runs' needs a value"
for l in ext4,,xfs ,ext4 ext4,; do
	expect_exit 2 "$FSTAP" compare --fs=$l "$TR" && expect_grep "$T/err" "--fs: an empty item in '$l'"
done
expect_exit 0 "$FSTAP" compare --help && expect_grep "$T/out" "--candidate=NAME:FSTYPE"

# --- set-up errors: exit 1 before anything is made ----------------------------
expect_exit 1 "$FSTAP" compare --image-dir="$IMG" "$T/missing.trace"
expect_exit 1 "$FSTAP" compare --fs=zzfs --image-dir="$IMG" "$TR" &&
	expect_grep "$T/err" "unknown file system type 'zzfs': mkfs.zzfs not found"
expect_exit 1 "$FSTAP" compare --fs=ext5 --image-dir="$IMG" "$TR" &&
	expect_grep "$T/err" "unknown file system type 'ext5': mkfs.ext5 not found"
printf '%s\n' '{"fstap":"trace","version":"1.0"}' '{"op":"state_inode","obj":1,"mode":16877}' \
	'{"op":"footer","t":1,"records":0}' >"$T/empty.jsonl"
"$FSTAP" import -o "$T/empty.trace" "$T/empty.jsonl"
expect_exit 1 "$FSTAP" compare --image-dir="$IMG" "$T/empty.trace" &&
	expect_grep "$T/err" "fstap: error: '$T/empty.trace' holds no operation: nothing to compare"
expect_exit 1 "$FSTAP" compare --target=x="$T/nonexistent" "$TR" &&
	expect_grep "$T/err" "is not a directory"
mount -t tmpfs -o size=1m tmpfs "$T/small"
expect_exit 1 "$FSTAP" compare --fs=ext4 --image-dir="$T/small" "$TR" &&
	expect_grep "$T/err" "image dir '$T/small' has"
umount "$T/small"
if command -v setpriv >/dev/null 2>&1 &&
   setpriv --reuid=65534 --regid=65534 --clear-groups "$FSTAP" --version >/dev/null 2>&1; then
	expect_exit 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$FSTAP" compare "$TR" &&
		expect_grep "$T/err" "must run as root"
fi

# --- the three file systems, a directory and a failing candidate ---------------
expect_exit 1 "$FSTAP" compare --fs=ext4,xfs,btrfs --target=dir="$T/target" \
	--candidate='bad:ext4:-O no_such_feature' --runs=2 --image-dir="$IMG" \
	--out="$T/res" "$TR"
cp "$T/out" "$T/table"
cp "$T/err" "$T/table.err"
expect_grep "$T/table" "lower is better"
expect_grep "$T/table" "2 runs per row, each on a fresh file system (a fresh directory for a --target)"
expect_grep "$T/table" "FAILED: mkfs.ext4 failed (exit 1)"
expect_grep "$T/table.err" "candidate 'bad' (recorded) failed"
compare_released "after the main run" "$IMG"
[ -z "$(ls "$T/target")" ] || fail "the target directory was not cleaned: $(ls "$T/target")"
for f in results.json results.csv chart.svg logs/ext4-recorded.log logs/bad-recorded.log; do
	[ -s "$T/res/$f" ] || fail "no $f in --out"
done
# every run keeps its divergence log, empty here
expect_grep "$T/table" "divergences: none (every run replayed the recorded results)"
for f in ext4-recorded-run1 ext4-recorded-run2 btrfs-recorded-run2 dir-recorded-run1; do
	[ -f "$T/res/logs/$f.divergences.jsonl" ] && [ ! -s "$T/res/logs/$f.divergences.jsonl" ] ||
		fail "no empty logs/$f.divergences.jsonl in --out"
done

# --- a run that diverges: the table names its log, which holds it -----------
# one unlink of a name that is not there: the replay's result differs
"$FSTAP" import -o "$T/div.trace" "$FSTAP_SRCDIR/tests/integration/data/unlink-missing.jsonl"
mkdir "$T/target4"
expect_exit 0 "$FSTAP" compare --target=d="$T/target4" --runs=1 --no-progress \
	--out="$T/res4" "$T/div.trace"
expect_grep "$T/out" "divergences (results that differ from the recorded ones), per run:
  d          recorded  run 1: 1  $T/res4/logs/d-recorded-run1.divergences.jsonl"
echo '{"run":1,"record":2,"t":100,"tid":7,"pid":7,"comm":"rm","op":"unlink","path":"/not-there","kind":"errno","errno":"ENOENT","recorded":0,"replayed":-2,"replayed_errno":"ENOENT"}' >"$T/div.want"
diff -u "$T/div.want" "$T/res4/logs/d-recorded-run1.divergences.jsonl" >&2 ||
	fail "the run's divergence log is not the expected one"

python3 - "$T/table" "$T/res" <<'EOF' || fail "results files disagree with the table"
import csv, json, sys, xml.etree.ElementTree as ET

table, out = sys.argv[1], sys.argv[2]
res = json.load(open(out + "/results.json"))
rows = {(r["candidate"], r["variant"]): r for r in res["rows"]}
assert [c["name"] for c in res["candidates"]] == ["ext4", "xfs", "btrfs", "dir", "bad"], \
    res["candidates"]
assert res["options"]["runs"] == 2 and res["runs_per_row"] == 2
assert res["machine"]["cpus"] >= 1

lines = open(table).read().split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("candidate") and "median" in l)
seen = set()
for l in lines[head + 1:]:
    if not l.strip():
        break
    f = l.split()
    key = (f[0], f[1])
    seen.add(key)
    r = rows[key]
    if f[2] == "FAILED:":
        assert r["status"] == "failed" and r["reason"] in l, (l, r)
        continue
    assert r["status"] == "ok", r
    s = r["summary"]
    dec = len(f[2].split(".")[1])
    for i, k in ((2, "median"), (3, "min"), (4, "max")):
        assert abs(float(f[i]) - s["elapsed_s"][k]) <= 0.51 * 10 ** -dec, (l, s)
    # the time until durable, then the median until the last call
    assert abs(float(f[5]) - s["last_call_s"]["median"]) <= 0.51 * 10 ** -dec, (l, s)
    assert abs(float(f[6]) - s["ops_per_s"]) <= 0.51, (l, s)
    assert abs(float(f[7].rstrip("x")) - s["ratio_to_best"]) <= 0.0051, (l, s)
    el = sorted(run["durable_ns"] / 1e9 for run in r["runs"])
    assert len(el) == 2 and abs(s["elapsed_s"]["min"] - el[0]) < 1e-9
    assert abs(s["elapsed_s"]["median"] - (el[0] + el[1]) / 2) < 1e-9
    for run in r["runs"]:
        assert run["ops"] == 9 and run["bytes_read"] == 15192, run
        assert run["divergences"] == 0, run
        assert "read" in run["by_op"], run
assert seen == set(rows), (seen, set(rows))
assert min(r["summary"]["ratio_to_best"] for r in res["rows"] if r["status"] == "ok") == 1.0

with open(out + "/results.csv") as fh:
    data = list(csv.DictReader(fh))
ok = [d for d in data if d["status"] == "ok"]
assert len(ok) == 8, data
assert sorted((d["candidate"], d["run"]) for d in ok) == sorted(
    (c, str(n)) for c in ("ext4", "xfs", "btrfs", "dir") for n in (1, 2)), ok
bad = [d for d in data if d["status"] == "failed"]
assert len(bad) == 1 and bad[0]["candidate"] == "bad" and "no_such_feature" in bad[0]["reason"]
for d in ok:
    r = rows[(d["candidate"], d["variant"])]
    assert abs(float(d["elapsed_s"]) - r["runs"][int(d["run"]) - 1]["durable_ns"] / 1e9) < 1e-6

svg = ET.parse(out + "/chart.svg").getroot()
assert svg.tag == "{http://www.w3.org/2000/svg}svg", svg.tag
bars = [e for e in svg.iter("{http://www.w3.org/2000/svg}rect") if e.get("class") == "bar"]
assert len(bars) == 4, len(bars)
failed = [e for e in svg.iter("{http://www.w3.org/2000/svg}text") if e.get("class") == "failed"]
assert len(failed) == 1
EOF

# --- all candidates ran: exit 0; mkfs and mount options reach the tools ---------
expect_exit 0 "$FSTAP" compare --candidate='e128:ext4:-I 128:noatime' --runs=1 \
	--order=strict --image-dir="$IMG" --no-progress --out="$T/res2" "$TR"
expect_grep "$T/out" "mkfs.ext4 -I 128, mount -o noatime"
expect_grep "$T/res2/logs/e128-recorded.log" "mkfs.ext4 -F -q -I 128 /dev/loop"
expect_grep "$T/res2/logs/e128-recorded.log" "mount -t ext4 -o noatime /dev/loop"
expect_grep "$T/res2/logs/e128-recorded.log" "--order=strict"
compare_released "after the option run" "$IMG"

# --- a block device: used when blank, refused when it holds a file system -------
truncate -s 320M "$T/dev.img"
DEV=$(losetup --find --show "$T/dev.img")
expect_exit 0 "$FSTAP" compare --device="$DEV" --fs=xfs --runs=1 --image-dir="$IMG" "$TR"
expect_grep "$T/out" "on the device"
expect_exit 1 "$FSTAP" compare --device="$DEV" --fs=ext4 --runs=1 --image-dir="$IMG" "$TR" &&
	expect_grep "$T/err" "holds a file system"
expect_exit 0 "$FSTAP" compare --device="$DEV" --force --fs=ext4 --runs=1 --image-dir="$IMG" "$TR"
mkdir -p "$T/devmnt"
mount "$DEV" "$T/devmnt"
expect_exit 1 "$FSTAP" compare --device="$DEV" --force --fs=ext4 --runs=1 --image-dir="$IMG" \
	"$TR" && expect_grep "$T/err" "is mounted"
umount "$T/devmnt"
losetup -d "$DEV"
DEV=
compare_released "after the device runs" "$IMG"

# --- variants: the order-sensitivity matrix ---------------------------------------
expect_exit 0 "$FSTAP" compare --fs=ext4 --target=dir="$T/target" \
	--variant=recorded,name,inode --runs=1 --image-dir="$IMG" --out="$T/res3" "$TR"
for c in ext4 dir; do
	for v in recorded name inode; do
		grep -E "^$c +$v +[0-9]" "$T/out" >/dev/null || fail "no row $c $v: $(cat "$T/out")"
	done
done
[ "$(grep -c ',ok,' "$T/res3/results.csv")" = 6 ] || fail "variant CSV: $(cat "$T/res3/results.csv")"
compare_released "after the variants" "$IMG"

# --- interrupted half-way: everything is undone -------------------------------------
"$FSTAP" compare --fs=ext4,xfs --runs=500 --image-dir="$IMG" --no-progress "$TR" \
	>"$T/int.out" 2>"$T/int.err" &
pid=$!
i=0
while ! findmnt -rn -o TARGET | grep -F "$IMG/" >/dev/null && [ $i -lt 400 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ $i -lt 400 ] || fail "compare never mounted anything"
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 1 ] || fail "interrupted compare exited $rc, expected 1"
expect_grep "$T/int.err" "interrupted"
expect_grep "$T/int.out" "FAILED: "
compare_released "after the interruption" "$IMG"

finish
