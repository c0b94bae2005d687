#!/bin/bash
# replay-timing.sh: the whole-run timing error of `fstap replay --pace=orig`
# and `--pace=native` after recording an example workload on a loop-mounted
# ext4 and replaying it on the same file system from the same initial state:
# for orig |T_replay - T_recorded| / T_recorded (target at most 5%), for
# native |T_replay - T_native| / T_native against the program's own run
# without the recorder (target at most 25%), and the p99 schedule lag
# (docs/PERFORMANCE.md, "Replay timing fidelity").
#
# One ext4 image on a loop device (detached at the end, the mount undone).
# For each example workload (examples/, built in the build directory):
#   1. mkfs.ext4 (lazy init off, so no ext4lazyinit writes during a run),
#      mount, the workload's setup phase natively in MNT/w (mdtest: none,
#      all four phases are recorded), sync and drop caches, then the run
#      phase under `fstap record -o T MNT/w -- PROG -d MNT/w ARGS run`
#      (default cache mode); T_recorded is the trace's duration, its first
#      operation's start to its last operation's end (`fstap report --json`:
#      duration_ns);
#   2. ROUNDS times, for each of the paces orig, native and afap
#      (--order=resource; --paces picks): mkfs.ext4 the
#      same image again, mount, `fstap prepare T MNT/w`, sync and drop
#      caches, `fstap replay --pace=PACE --json=... T MNT/w`; T_replay is the
#      replay's elapsed_ns.
# T_native is the program's own time natively (fresh mkfs, setup, drop
# caches, run; no recorder): the median of --native-rounds runs, made
# before the recordings (a single run of a workload this short moves by
# 20-40% from run to run on a small machine).
# It prints per workload, pace and round T_recorded, T_replay, the schedule
# lag (p99, max) and the divergences, then a table per workload and pace:
# the error against the pace's reference (orig: T_recorded, native:
# T_native) and its target; as a diagnosis, the replay as fast as possible
# against T_native (afap: the least a paced replay can take; with the
# order native pace uses, --order=resource), and how much longer the
# replay's operations took than the recorded ones: the sum over the
# operation types of count x (replay's mean latency - recorded mean
# duration), over all threads, as a share of T_recorded (for a trace of one
# thread, the orig error that the file system's service times alone make:
# pacing keeps the think times, not the service times). Raw results in
# OUT: the traces, the replays' JSON, results.tsv, native.tsv.
#
# usage: bench/replay-timing.sh [options]   (from the build directory, as root)
#   --rounds N        replays per workload (default 3)
#   --native-rounds N native runs per workload (default 5): T_native is their median
#   --record-rounds N recordings per workload (default 1): the first is
#                     replayed, all give the spread of T_recorded (the
#                     machine's own run-to-run variation, the noise floor)
#   --workloads LIST  comma-separated (default news-spool,mixed,mdtest,samba-xattr,index-update)
#   --paces LIST      comma-separated, of orig, native, afap (default all three)
#   --args WL=ARGS    extra arguments for workload WL (repeatable), e.g.
#                     --args 'news-spool=-n 8000'
#   --image PATH      the ext4 image file (default /var/tmp/fstap-replay-timing.img;
#                     removed at the end)
#   --image-size SIZE default 4G (sparse)
#   --fstap PATH      default ./fstap
#   --examples DIR    default ./examples
#   --out DIR         results (default /var/tmp/fstap-replay-timing; emptied)
#
# Needs root (losetup, mount, drop_caches), fuse3, e2fsprogs, python3.
set -eu
ROUNDS=3 REC_ROUNDS=1 NAT_ROUNDS=5 WLS=news-spool,mixed,mdtest,samba-xattr,index-update PACES=orig,native,afap
IMG=/var/tmp/fstap-replay-timing.img IMG_SIZE=4G
FSTAP=./fstap EXAMPLES=./examples OUT=/var/tmp/fstap-replay-timing
declare -A WARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift ;;
	--record-rounds) REC_ROUNDS=$2; shift ;;
	--native-rounds) NAT_ROUNDS=$2; shift ;;
	--workloads) WLS=$2; shift ;;
	--paces) PACES=$2; shift ;;
	--args) WARGS[${2%%=*}]=${2#*=}; shift ;;
	--image) IMG=$2; shift ;;
	--image-size) IMG_SIZE=$2; shift ;;
	--fstap) FSTAP=$2; shift ;;
	--examples) EXAMPLES=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "replay-timing.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
FSTAP=$(readlink -f "$FSTAP") EXAMPLES=$(readlink -f "$EXAMPLES")
[ -x "$FSTAP" ] || { echo "replay-timing.sh: no fstap at $FSTAP" >&2; exit 1; }
for wl in ${WLS//,/ }; do
	[ -x "$EXAMPLES/$wl" ] || { echo "replay-timing.sh: no $EXAMPLES/$wl" >&2; exit 1; }
done
[ -e "$IMG" ] && { echo "replay-timing.sh: $IMG exists; remove it or pick another --image" >&2; exit 1; }

MNT=$(mktemp -d /tmp/fstap-replay-timing.XXXXXX)
LOOP=
cleanup() {
	if mountpoint -q "$MNT/w" 2>/dev/null; then
		fusermount3 -u "$MNT/w" 2>/dev/null || umount -l "$MNT/w" || true
	fi
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" || true
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
	rm -f "$IMG"
	rmdir "$MNT" 2>/dev/null || true
}
trap 'exit 130' INT TERM
trap cleanup EXIT

rm -rf "$OUT"
mkdir -p "$OUT"
: >"$OUT/native.tsv"
truncate -s "$IMG_SIZE" "$IMG"
LOOP=$(losetup -f --show "$IMG")

fresh_fs() {
	mountpoint -q "$MNT" && umount "$MNT"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP"
	mount "$LOOP" "$MNT"
	mkdir "$MNT/w"
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

printf 'workload\tpace\tround\tt_recorded_s\tfirst_ns\tt_replay_s\tlag_p99_us\tlag_max_us\tdivergences\tservice_delta_s\n' \
	>"$OUT/results.tsv"
for wl in ${WLS//,/ }; do
	args=${WARGS[$wl]:-}
	setup=setup run=run
	[ "$wl" = mdtest ] && setup='' run=''
	T=$OUT/$wl.trace
	# the same run natively, for reference (the program's own time line)
	tnats=
	for k in $(seq 1 "$NAT_ROUNDS"); do
		fresh_fs
		# shellcheck disable=SC2086
		[ -n "$setup" ] && "$EXAMPLES/$wl" -d "$MNT/w" $args $setup >/dev/null
		drop_caches
		# shellcheck disable=SC2086
		"$EXAMPLES/$wl" -d "$MNT/w" $args $run >"$OUT/$wl.native$k.out"
		tnats=$tnats${tnats:+,}$(awk '$2 == "time" { print $3 }' "$OUT/$wl.native$k.out")
	done
	tnat=$(echo "$tnats" | tr , '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	# the recording (the first is replayed; more, with --record-rounds, for
	# the spread of T_recorded itself)
	trecs=
	for k in $(seq 1 "$REC_ROUNDS"); do
		Tk=$T
		[ "$k" = 1 ] || Tk=$OUT/$wl.rec$k.trace
		fresh_fs
		# shellcheck disable=SC2086
		[ -n "$setup" ] && "$EXAMPLES/$wl" -d "$MNT/w" $args $setup >"$OUT/$wl.setup.out"
		drop_caches
		# shellcheck disable=SC2086
		"$FSTAP" record -q -o "$Tk" "$MNT/w" -- "$EXAMPLES/$wl" -d "$MNT/w" $args $run \
			>"$OUT/$wl.record$k.out"
		"$FSTAP" report --json "$Tk" >"$OUT/$wl.report$k.json"
		read -r trk fk < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print("%.6f %d" % (j["duration_ns"] / 1e9, j["first_ns"]))' "$OUT/$wl.report$k.json")
		[ "$k" = 1 ] && { trec=$trk; first=$fk; }
		trecs=$trecs${trecs:+,}$trk
	done
	echo "# $wl $args: recorded $trec s (first operation at $((first / 1000000)) ms; all recordings: $trecs s); natively: $tnat s (median of $tnats s)"
	echo "$wl	$tnat	$trecs	$tnats" >>"$OUT/native.tsv"
	for r in $(seq 1 "$ROUNDS"); do
		for pace in ${PACES//,/ }; do
			fresh_fs
			"$FSTAP" prepare -q "$T" "$MNT/w"
			drop_caches
			J=$OUT/$wl-$pace-$r.json
			order=
			[ "$pace" = afap ] && order=--order=resource
			# shellcheck disable=SC2086
			"$FSTAP" replay --no-progress --pace=$pace $order --json="$J" "$T" "$MNT/w" \
				>"$OUT/$wl-$pace-$r.out"
			python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; l=r.get("lag_ns", {})
rec = json.load(open(sys.argv[2]))["operations"]["by_op"]
svc = sum(v["count"] * (v["lat_ns"]["mean"] - rec[op]["mean_ns"])
          for op, v in r["by_op"].items() if op in rec and v["count"])
print("\t".join(sys.argv[3:8] + ["%.6f" % (r["elapsed_ns"] / 1e9),
      "%.1f" % (l.get("p99", 0) / 1e3), "%.1f" % (l.get("max", 0) / 1e3), str(r["divergences"]),
      "%.6f" % (svc / 1e9)]))' \
				"$J" "$OUT/$wl.report1.json" "$wl" "$pace" "$r" "$trec" "$first" |
				tee -a "$OUT/results.tsv" | sed 's/^/#   /'
		done
	done
done
umount "$MNT"

python3 - "$OUT/results.tsv" "$OUT/native.tsv" <<'EOF'
import statistics, sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().split('\n')[1:] if l]
nat = {l.split('\t')[0]: l.split('\t')[1:] for l in open(sys.argv[2]).read().split('\n') if l}
target = {"orig": 5, "native": 25, "afap": None}
print("| workload | pace | reference | reference, s | T_replay, s (median, min-max) "
      "| error, median (max) | target | met | service time, replay - recorded, share of T_recorded, median (min-max) "
      "| lag p99, ms (max over rounds) | lag max, ms | divergences | T_recorded of every recording, s "
      "| T_native of every native run, s |")
print("|---|---|---|---:|---|---:|---:|---|---:|---:|---:|---:|---|---|")
allerr = {p: [] for p in target}
for wl in dict.fromkeys(r[0] for r in rows):
    for pace in target:
        rs = [r for r in rows if r[0] == wl and r[1] == pace]
        if not rs:
            continue
        trec = float(rs[0][3])
        tn = float(nat[wl][0] or "nan")
        ref = trec if pace == "orig" else tn
        trep = sorted(float(r[5]) for r in rs)
        err = [abs(t - ref) / ref * 100 for t in trep]
        svc = sorted(float(r[9]) / trec * 100 for r in rs)
        allerr[pace] += err
        print("| %s | %s | %s | %.3f | %.3f (%.3f-%.3f) | %.1f%% (%.1f%%) | %s | %s | %s | %.2f | %.2f | %s | %s | %s |" % (
            wl, pace, "T_recorded" if pace == "orig" else "T_native", ref,
            statistics.median(trep), trep[0], trep[-1], statistics.median(err), max(err),
            "%d%%" % target[pace] if target[pace] else "-",
            "-" if target[pace] is None else "yes" if max(err) <= target[pace] else "no",
            "%+.1f%% (%+.1f%% to %+.1f%%)" % (statistics.median(svc), svc[0], svc[-1]),
            max(float(r[6]) for r in rs) / 1e3, max(float(r[7]) for r in rs) / 1e3,
            ",".join(r[8] for r in rs), ", ".join("%.3f" % float(x) for x in nat[wl][1].split(",")),
            ", ".join("%.3f" % float(x) for x in nat[wl][2].split(","))))
for pace, e in allerr.items():
    if e:
        print("all rounds, %s: error median %.1f%%, max %.1f%%%s" % (
            pace, statistics.median(e), max(e),
            " (target <= %d%%)" % target[pace] if target[pace] else " (no target: the floor)"))
EOF
