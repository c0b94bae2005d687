#!/bin/bash
# compare-calibration.sh: how often compare's verdicts are wrong, measured.
#   1. false alarms: N A/A compares (ext4 under two names, the same mkfs and
#      mount options) of one recorded write workload; the share whose
#      second-best row is called 'slower' (target: at most 5%);
#   2. power: N compares of a candidate with a known slowdown against the
#      same without it, on the same fsync-free write workload; the share
#      where the slowed row is 'slower' (target: at least 80%). The slowdown
#      (-p):
#      sync      ext4 mounted -o sync (every write waits for the device: far
#                more than 20% on a loop image);
#      disk      two ext4 file systems, each on its own modeled device
#                (`fstap disk --model=ssd,write_bw=MBPS`, docs/disk.md; -w,
#                default 50 MB/s: the device's time is most of a run's, so
#                the CPU's share of the noise is small; 520 is the ssd
#                model's data-sheet rate), attached with direct I/O
#                and given as --target; the 'slow' device's write_bw set to
#                -b BPS bytes/s, by default tuned so that a run takes 1.2
#                times as long: the bytes B the device writes per replay
#                (the model's own count) and the median time T of a run on
#                the unslowed device, measured first, give
#                BPS = B / (B / MBPS + 0.2 x T), i.e. 0.2 x T more device
#                time per run. (A blkio write throttle cannot make this
#                slowdown: it lets BPS x its 100 ms slice through at once
#                and holds the rest to a slice's end, so the 17 MB written
#                at the syncfs are not slowed or slowed by 100 ms steps.)
# Each compare uses --runs=RUNS (default auto, capped by --max-runs=10) and
# its own --seed. Prints the counts and shares (and for each try the ratio
# of the medians and each row's range); every results.json is kept in OUT
# (docs/PERFORMANCE.md, "Compare calibration"). -a skips the A/A compares.
#
# usage: bench/compare-calibration.sh [-n N] [-r RUNS] [-p sync|disk] [-w MBPS]
#                                     [-b BPS] [-a] [-o OUT] [FSTAP]
# As root (compare makes loop images and mounts them), from the build
# directory or with FSTAP the fstap binary.
set -euo pipefail

N=20 RUNS=auto OUT= POWER=sync BPS= FAST_BW=50 AA=1
usage() {
	echo "usage: $0 [-n N] [-r RUNS] [-p sync|disk] [-w MBPS] [-b BPS] [-a] [-o OUT] [FSTAP]" >&2
	exit 2
}
while getopts n:r:o:p:w:b:a opt; do
	case $opt in
	n) N=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	p) POWER=$OPTARG ;;
	w) FAST_BW=$OPTARG ;;
	b) BPS=$OPTARG ;;
	a) AA=0 ;;
	*) usage ;;
	esac
done
case $POWER in sync | disk) ;; *) usage ;; esac
shift $((OPTIND - 1))
FSTAP=$(realpath "${1:-./fstap}")
[ -x "$FSTAP" ] || { echo "compare-calibration: no fstap binary at '$FSTAP'" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "compare-calibration: must run as root" >&2; exit 1; }
OUT=${OUT:-$(mktemp -d /var/tmp/compare-calibration.XXXXXX)}
mkdir -p "$OUT/img" "$OUT/app"
MAXRUNS=()
[ "$RUNS" = auto ] && MAXRUNS=(--max-runs=10)

# The workload: 16 files of 1 MiB written in 64 KiB blocks, no fsync.
"$FSTAP" record -q -o "$OUT/w.trace" "$OUT/app" -- sh -c "cd '$OUT/app' &&
	for i in \$(seq 16); do dd if=/dev/zero of=f\$i bs=64k count=16 status=none; done"

# verdict OF ROW NAME in results.json FILE
verdict() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print({x["candidate"]: x["verdict"] for x in r["rows"]}[sys.argv[2]])' "$1" "$2"
}

# median elapsed seconds of row NAME in results.json FILE
median() {
	python3 -c 'import json, sys
r = {x["candidate"]: x for x in json.load(open(sys.argv[1]))["rows"]}
print(r[sys.argv[2]]["summary"]["elapsed_s"]["median"])' "$1" "$2"
}

# the ratio of the medians of row NAME to row BASE in results.json FILE, the
# runs per row and each row's range
medians() {
	python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))
r = {x["candidate"]: x["summary"]["elapsed_s"] for x in f["rows"]}
s, b = r[sys.argv[2]], r[sys.argv[3]]
print("medians %.2fx, %d runs per row (%s %.3f-%.3f s, %s %.3f-%.3f s)" % (s["median"] / b["median"],
      f["runs_per_row"], sys.argv[3], b["min"], b["max"], sys.argv[2], s["min"], s["max"]))' "$1" "$2" "$3"
}

# --- the modeled devices: ext4 on two `fstap disk` devices, one slower -------
declare -A DPID=() DEV=()
# disk_up NAME MODEL: OUT/t-NAME.img served by fstap disk with MODEL, a loop
# device with direct I/O on the served file, ext4 on it mounted on OUT/t-NAME
disk_up() {
	local img=$OUT/t-$1.img srv=$OUT/srv-$1 i=0
	truncate -s 512M "$img"
	mkdir -p "$srv" "$OUT/t-$1"
	"$FSTAP" disk -q --model="$2" "$img" "$srv" &
	DPID[$1]=$!
	until [ -f "$srv/t-$1.img" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "compare-calibration: fstap disk does not serve $img" >&2; exit 1; }
		sleep 0.1
	done
	DEV[$1]=$(losetup --find --show --direct-io=on "$srv/t-$1.img")
	mkfs.ext4 -q -F "${DEV[$1]}"
	mount "${DEV[$1]}" "$OUT/t-$1"
}
# disk_down NAME: undoes disk_up (also a half-done one)
disk_down() {
	if mountpoint -q "$OUT/t-$1"; then umount "$OUT/t-$1"; fi
	if [ -n "${DEV[$1]:-}" ]; then losetup -d "${DEV[$1]}" || true; fi
	if [ -n "${DPID[$1]:-}" ]; then
		kill -TERM "${DPID[$1]}" 2>/dev/null || true
		wait "${DPID[$1]}" || true
	fi
	DEV[$1]= DPID[$1]=
	rm -f "$OUT/t-$1.img"
}
# written NAME: the bytes device NAME's model has written so far
written() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes"]["write"])' \
		"$OUT/srv-$1/.stats.json"
}
# slow_bps B T: the write rate (bytes/s) at which B bytes take 0.2 x T
# seconds longer than at FAST_BW MB/s
slow_bps() {
	python3 -c 'import sys
b, t, r = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]) * 1e6
print(int(b / (b / r + 0.2 * t)))' "$1" "$2" "$FAST_BW"
}
cleanup() {
	disk_down fast
	disk_down slow
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
if [ "$POWER" = disk ]; then
	disk_up fast "ssd,write_bw=$FAST_BW"
	if [ -z "$BPS" ]; then
		"$FSTAP" compare --target=fast="$OUT/t-fast" --runs=5 --no-progress \
			--out="$OUT/tune" "$OUT/w.trace" >"$OUT/tune.txt" 2>&1
		# the bytes one replay writes (its trace starts from an empty directory)
		mkdir "$OUT/t-fast/tune"
		w0=$(written fast)
		"$FSTAP" replay --sync-at-end --no-progress "$OUT/w.trace" "$OUT/t-fast/tune" \
			>/dev/null
		w1=$(written fast)
		rm -rf "$OUT/t-fast/tune"
		t=$(median "$OUT/tune/results.json" fast)
		BPS=$(slow_bps $((w1 - w0)) "$t")
		echo "tuned: $((w1 - w0)) bytes written per run, median $t s at $FAST_BW MB/s:" \
			"BPS=$BPS"
	fi
	disk_up slow "ssd,write_bw=$(python3 -c 'import sys; print(int(sys.argv[1]) / 1e6)' "$BPS")"
fi

alarms=0 found=0
for i in $(seq "$N"); do
	if [ "$AA" = 1 ]; then
		"$FSTAP" compare --candidate=a:ext4 --candidate=b:ext4 --runs="$RUNS" \
			"${MAXRUNS[@]}" --seed="$i" --image-dir="$OUT/img" --no-progress \
			--out="$OUT/aa$i" "$OUT/w.trace" >"$OUT/aa$i.txt" 2>&1
		va=$(verdict "$OUT/aa$i/results.json" a) vb=$(verdict "$OUT/aa$i/results.json" b)
		[ "$va" = slower ] || [ "$vb" = slower ] && alarms=$((alarms + 1))
		echo "A/A $i: a $va, b $vb"
	fi
	if [ "$POWER" = sync ]; then
		base=default slow=sync
		set -- --candidate=default:ext4 --candidate=sync:ext4::sync
	else
		base=fast slow=slow
		set -- --target=fast="$OUT/t-fast" --target=slow="$OUT/t-slow"
	fi
	"$FSTAP" compare "$@" --runs="$RUNS" "${MAXRUNS[@]}" --seed="$i" \
		--image-dir="$OUT/img" --no-progress --out="$OUT/$POWER$i" "$OUT/w.trace" \
		>"$OUT/$POWER$i.txt" 2>&1
	vs=$(verdict "$OUT/$POWER$i/results.json" $slow)
	[ "$vs" = slower ] && found=$((found + 1))
	echo "$POWER $i: $vs, $(medians "$OUT/$POWER$i/results.json" $slow $base)"
done
if [ "$AA" = 1 ]; then
	echo "false alarms (A/A called slower): $alarms of $N ($((100 * alarms / N))%)"
fi
echo "$POWER slowdown found slower: $found of $N ($((100 * found / N))%)"
echo "results in $OUT"
