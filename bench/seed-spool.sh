#!/bin/sh
# seed-spool.sh: the news spool case on a modeled spinning disk. A spool of
# FILES small files (SIZE bytes each) in DIRS directories, each directory's
# files created in name order, is read by a reader that lists each
# directory and reads its files in readdir order, under `fstap record`;
# then `fstap compare --fs=ext4 --variant=recorded,name` replays the trace
# as recorded and in name order, on the modeled hdd (--disk=hdd) and on
# plain loop images, RUNS runs per row each. The tables and verdicts go to
# stdout; docs/PERFORMANCE.md ("The news spool on a modeled disk") has them.
# As root, from the build directory:
#   sh ../bench/seed-spool.sh [FILES [DIRS [SIZE [RUNS]]]]   (20000 10 8192 4)
# The images go on a tmpfs made for the run (the page cache drops before
# each replay would otherwise send the daemon's reads to the real disk);
# everything is undone on exit.
set -eu
FILES=${1:-20000}
DIRS=${2:-10}
SIZE=${3:-8192}
RUNS=${4:-4}
FSTAP=${FSTAP:-./fstap}
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/fstap-seed-spool.XXXXXX)
cleanup() {
	umount "$W/spool" "$W/img" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
[ "$(id -u)" = 0 ] || { echo "seed-spool.sh: error: needs root" >&2; exit 1; }
mkdir -p "$W/spool" "$W/img"
mount -t tmpfs -o size=4g tmpfs "$W/img"
truncate -s 2G "$W/spool.img"
mkfs.ext4 -q -F "$W/spool.img"
mount -o loop "$W/spool.img" "$W/spool"
python3 "$SRC/tests/integration/spool.py" make "$W/spool" "$DIRS" "$FILES" "$SIZE"
"$FSTAP" record -q -o "$W/spool.trace" "$W/spool" -- \
	python3 "$SRC/tests/integration/spool.py" read "$W/spool" >/dev/null
umount "$W/spool"
"$FSTAP" report "$W/spool.trace" | sed -n '/^access order/,/^$/p'
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for disk in --disk=hdd ""; do
	echo "\$ fstap compare --fs=ext4 $disk --variant=recorded,name --runs=$RUNS spool.trace"
	"$FSTAP" compare --fs=ext4 $disk --variant=recorded,name --runs="$RUNS" \
		--image-dir="$W/img" --no-progress "$W/spool.trace" || true
	echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
