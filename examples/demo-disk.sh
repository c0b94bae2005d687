#!/bin/sh
# demo-disk.sh: the second demo (./quickstart.sh demo-disk runs it from the
# build directory as `sh ../examples/demo-disk.sh ./fstap`): the order
# effect of a news spool on a spinning disk, on any machine. A spool of
# small files in 6 directories, each one's files created in name order on a
# fresh ext4 image, is read by a reader that lists each directory and reads
# its files in readdir order, under `fstap record`; then `fstap compare`
# replays the trace on ext4 on a modeled 7 200 rpm disk (`--disk=hdd`, with
# a drive cache of 4 segments, 8 MiB, smaller than the spool), as recorded
# and in name order, 4 runs each, and prints the table and the verdict. A
# few minutes on 2 cores; needs root (FUSE, mkfs, mount).
#
#   sh examples/demo-disk.sh [FSTAP]   FSTAP: the fstap binary (default: fstap)
#
# Environment: DEMO_DIR (default ${TMPDIR:-/tmp}/fstap-demo-disk) holds the
# trace and the results; DEMO_FILES (default 3000) and DEMO_SIZE (default
# 8192 bytes) size the spool. The spool image and the candidates' images
# (on a tmpfs made for the demo) are removed at the end.
set -eu
FSTAP=${1:-fstap}
case $FSTAP in
*/*) FSTAP=$(cd "$(dirname "$FSTAP")" && pwd)/$(basename "$FSTAP") ;;
*) FSTAP=$(command -v "$FSTAP") || { echo "demo-disk.sh: no fstap binary" >&2; exit 1; } ;;
esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
DEMO_DIR=${DEMO_DIR:-${TMPDIR:-/tmp}/fstap-demo-disk}
FILES=${DEMO_FILES:-3000}
SIZE=${DEMO_SIZE:-8192}

if [ "$(id -u)" != 0 ]; then
	echo "demo-disk.sh: run as root: recording mounts FUSE, compare makes and mounts file systems" >&2
	exit 1
fi
PATH=$PATH:/usr/sbin:/sbin
trace=$DEMO_DIR/news-spool.trace
out=$DEMO_DIR/results
mkdir -p "$DEMO_DIR"
rm -rf "$out" "$trace"
W=$(mktemp -d "$DEMO_DIR/work.XXXXXX")
cleanup() {
	umount "$W/spool" "$W/img" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

say() { printf '\n== %s\n' "$*"; }

say "1. a spool of $FILES files of $SIZE bytes in 6 directories, created in name order on a fresh ext4"
mkdir -p "$W/spool" "$W/img"
truncate -s 1G "$W/spool.img"
mkfs.ext4 -q -F "$W/spool.img"
mount -o loop "$W/spool.img" "$W/spool"
python3 "$SRC/tests/integration/spool.py" make "$W/spool" 6 "$FILES" "$SIZE"

say "2. record the reader (readdir order): fstap record -o $trace SPOOL -- python3 spool.py read SPOOL"
"$FSTAP" record -q -o "$trace" "$W/spool" -- python3 "$SRC/tests/integration/spool.py" read "$W/spool" >/dev/null
umount "$W/spool"
"$FSTAP" report "$trace" | grep 'verdict: opens follow'

say "3. replay it on ext4 on a modeled spinning disk, as recorded and in name order, 4 runs each"
echo "fstap compare --fs=ext4 --disk=hdd,segments=4 --variant=recorded,name --runs=4 --out=$out $trace"
echo
# the images on a tmpfs: the page cache drops before each replay do not
# send the modeled disk's own reads to this machine's disk
mount -t tmpfs -o size=2g tmpfs "$W/img"
set +e
"$FSTAP" compare --fs=ext4 --disk=hdd,segments=4 --variant=recorded,name --runs=4 \
	--image-dir="$W/img" --out="$out" "$trace"
rc=$?
set -e

say "4. the verdict"
python3 - "$out/results.json" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))
print(res["conclusion"])
busy = {}
for r in res["rows"]:
    if r["status"] == "ok":
        run = r["runs"][r["summary"]["median_run"] - 1]
        busy[r["variant"]] = run["disk"]["replay"]["busy_ns"] / 1e9
if len(busy) == 2 and busy["name"] > 0:
    print("the modeled disk was busy %.2f s for the recorded (readdir) order, %.2f s for"
          " name order: %.1fx" % (busy["recorded"], busy["name"], busy["recorded"] / busy["name"]))
EOF
echo "The 'recorded' row reads the files in the order readdir returned them; the"
echo "'name' row reads the same files sorted by name, which is the order they lie"
echo "on the disk. The elapsed times also hold this machine's own cost per request"
echo "(FUSE, the loop device), which a loaded machine inflates for both rows alike;"
echo "the modeled disk's busy time is the device's part alone. docs/disk.md"
echo "describes the model, docs/compare.md the table."
exit $rc
