#!/bin/sh
# disk-model.sh: fio on a loop device (direct I/O) over `fstap disk`, against
# what the model itself predicts (bench/disk-expect) and, for --model=none,
# against plain loop devices on the same image (with direct I/O, and
# buffered: through the image's page cache, as the daemon reads it): 4 KiB
# random reads at
# queue depth 1 (IOPS) and 1 MiB sequential reads (MB/s). As root, from the
# build directory: sh ../bench/disk-model.sh [MODEL [SECONDS]]. Figures in
# docs/PERFORMANCE.md ("fstap disk"). Undoes every mount, loop device and
# daemon it made, also on failure.
set -eu
MODEL=${1:-hdd}
SECS=${2:-20}
FSTAP=${FSTAP:-./fstap}
EXPECT=${EXPECT:-./disk-expect}
SIZE=$((256 * 1048576))
W=$(mktemp -d /tmp/fstap-disk-bench.XXXXXX)
DPID=
LOOP=
cleanup() {
	if [ -n "$LOOP" ]; then losetup -d "$LOOP" 2>/dev/null || true; fi
	if [ -n "$DPID" ]; then kill -TERM "$DPID" 2>/dev/null || true; wait "$DPID" 2>/dev/null || true; fi
	umount "$W/mnt" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
[ "$(id -u)" = 0 ] || { echo "disk-model.sh: error: needs root (losetup)" >&2; exit 1; }
command -v fio >/dev/null || { echo "disk-model.sh: error: fio is needed" >&2; exit 1; }
mkdir -p "$W/mnt"
truncate -s $SIZE "$W/disk.img"
# fill it, so that reads are of real data
dd if=/dev/urandom of="$W/disk.img" bs=1M count=256 conv=notrunc status=none

# fio_job RW BS DEV: IOPS and MB/s of one job
fio_job() {
	fio --name=j --filename="$3" --direct=1 --ioengine=psync --rw="$1" --bs="$2" \
		--iodepth=1 --runtime="$SECS" --time_based --output-format=json >"$W/fio.json"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["jobs"][0]["read"]; print("%.1f %.1f" % (r["iops"], r["bw_bytes"]/1e6))' "$W/fio.json"
}

# on_device WHAT DEV: both jobs, one line
on_device() {
	set -- "$1" "$2" "$(fio_job randread 4k "$2")" "$(fio_job read 1M "$2")"
	echo "$1 ${3% *} ${4#* }"
}

serve() {
	"$FSTAP" disk -q --model="$1" "$W/disk.img" "$W/mnt" &
	DPID=$!
	i=0
	until [ -f "$W/mnt/disk.img" ]; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done
	LOOP=$(losetup --direct-io=on -f --show "$W/mnt/disk.img")
}

unserve() {
	losetup -d "$LOOP"; LOOP=
	kill -TERM "$DPID"; wait "$DPID" || true; DPID=
}

echo "# device randread_4k_iops seqread_1M_MBps   ($SECS s per job, 256 MiB image, load $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$MODEL" != none ]; then
	set -- $("$EXPECT" "$MODEL" $SIZE)
	echo "model-$MODEL-expected $2 $4"
	serve "$MODEL"
	on_device "fstap-disk-$MODEL" "$LOOP"
	unserve
fi
serve none
on_device fstap-disk-none "$LOOP"
unserve
LOOP=$(losetup --direct-io=on -f --show "$W/disk.img")
on_device plain-loop "$LOOP"
losetup -d "$LOOP"; LOOP=
# the daemon reads the image through its page cache: so does this one
LOOP=$(losetup -f --show "$W/disk.img")
on_device plain-loop-buffered "$LOOP"
losetup -d "$LOOP"; LOOP=
