#!/bin/bash
# replay-fidelity.sh: system calls per class, the application's against
# those of `fstap replay` of its trace (docs/replay.md, "Fidelity: system
# calls per class"; the target: within 10% per class).
#
# For each example workload (its setup phase natively, then its run phase;
# mdtest: all four phases in the run, from an empty directory):
#   1. the run phase under `fstap record -o T DIR -- CMD` (default cache mode
#      unless --cache), on a tree made by the setup phase;
#   2. the same run phase natively on a copy of that tree, under
#      `strace -f -ff -y`: the application's calls are those on a path or a
#      descriptor beneath its directory (the loader's files, stdout and the
#      like are left out);
#   3. `fstap prepare T DIR2`, then `fstap replay T DIR2` under
#      `strace -f -ff -y`: the replay's calls are those of its worker threads
#      and those of its main thread (which reads the trace, and runs the
#      operations itself when the whole trace is planned) on a path or a
#      descriptor beneath DIR2.
# It prints a table per workload and one summed over them: calls per class,
# application and replay, and the ratio replay / application.
#
# usage: bench/replay-fidelity.sh [options]
#   --workloads LIST   comma-separated (default news-spool,mdtest,samba-xattr,index-update,mixed)
#   --args "ARGS"      extra arguments for every workload (default: none, --size=small)
#   --cache MODE       the recorder's --cache (default: its default)
#   --order MODE       the replay's --order (default: its default)
#   --fstap PATH       default ./fstap
#   --examples DIR     default ./examples
#   --work DIR         scratch (default /var/tmp/fstap-replay-fidelity; emptied)
#
# Needs root (the recorder mounts with allow_other), fuse3 and strace.
set -u
WLS=news-spool,mdtest,samba-xattr,index-update,mixed
ARGS= FSTAP=./fstap EXAMPLES=./examples WORK=/var/tmp/fstap-replay-fidelity CACHE= ORDER=
while [ $# -gt 0 ]; do
	case $1 in
	--workloads) WLS=$2; shift ;;
	--args) ARGS=$2; shift ;;
	--cache) CACHE=--cache=$2; shift ;;
	--order) ORDER=--order=$2; shift ;;
	--fstap) FSTAP=$2; shift ;;
	--examples) EXAMPLES=$2; shift ;;
	--work) WORK=$2; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "replay-fidelity.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
FSTAP=$(readlink -f "$FSTAP") EXAMPLES=$(readlink -f "$EXAMPLES")
HERE=$(dirname "$(readlink -f "$0")")
[ -x "$FSTAP" ] || { echo "replay-fidelity.sh: no fstap at $FSTAP" >&2; exit 1; }
command -v strace >/dev/null || { echo "replay-fidelity.sh: needs strace" >&2; exit 1; }
rm -rf "$WORK"
mkdir -p "$WORK/res" || exit 1
cleanup() {
	mountpoint -q "$WORK/rec" 2>/dev/null && { fusermount3 -u "$WORK/rec" 2>/dev/null || umount -l "$WORK/rec"; }
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

cd "$WORK" || exit 1
for wl in ${WLS//,/ }; do
	rm -rf rec nat rp st-app st-rp
	mkdir -p rec st-app st-rp rp
	setup=setup run=run
	[ "$wl" = mdtest ] && setup= run=
	# shellcheck disable=SC2086
	[ -n "$setup" ] && { "$EXAMPLES/$wl" -d "$WORK/rec" $ARGS setup >/dev/null || exit 1; }
	cp -a rec nat
	# shellcheck disable=SC2086
	"$FSTAP" record -q $CACHE -o "$WORK/$wl.trace" "$WORK/rec" -- \
		"$EXAMPLES/$wl" -d "$WORK/rec" $ARGS $run >"$WORK/res/$wl.rec.out" ||
		{ echo "replay-fidelity.sh: $wl failed under fstap record" >&2; exit 1; }
	# shellcheck disable=SC2086
	strace -f -ff -qq -y -o "$WORK/st-app/raw" "$EXAMPLES/$wl" -d "$WORK/nat" $ARGS $run \
		>"$WORK/res/$wl.app.out" || { echo "replay-fidelity.sh: $wl failed" >&2; exit 1; }
	"$FSTAP" prepare -q "$WORK/$wl.trace" "$WORK/rp" || exit 1
	# shellcheck disable=SC2086
	strace -f -ff -qq -y -o "$WORK/st-rp/raw" "$FSTAP" replay --no-progress $ORDER \
		--json="$WORK/res/$wl.replay.json" "$WORK/$wl.trace" "$WORK/rp" >"$WORK/res/$wl.replay.out" ||
		{ echo "replay-fidelity.sh: replay of $wl failed" >&2; exit 1; }
	python3 "$HERE/replay-fidelity-count.py" count "$WORK/nat" "$WORK/st-app" "$WORK/rp" "$WORK/st-rp" \
		"$WORK/res/$wl.replay.json" >"$WORK/res/$wl.json" || exit 1
done
python3 "$HERE/replay-fidelity-count.py" table "$WORK/res" "$WLS"
