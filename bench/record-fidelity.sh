#!/bin/bash
# record-fidelity.sh: FUSE requests per application call, per --cache mode
# (docs/recording.md, "Requests per application call").
#
# For each mode, each example workload (examples/news-spool, mdtest,
# samba-xattr, index-update, mixed; --size=small, all phases) runs on a fresh
# `fstap record --cache=MODE` mount under `strace -f -ff -y`. The
# application's calls are the system calls strace shows on a path or a
# descriptor under the mount point (the loader's and libc's own files are
# left out); the requests are the trace's records, split into those not
# flagged as the kernel's and those flagged (FSTAP_RF_KERNEL). Both come
# from the same run. It prints one table per mode, summed over the
# workloads, and with --per-workload one per workload too.
#
# usage: bench/record-fidelity.sh [options]
#   --modes LIST       comma-separated (default all,calls,direct,kernel)
#   --workloads LIST   comma-separated (default news-spool,mdtest,samba-xattr,index-update,mixed)
#   --args "ARGS"      extra arguments for every workload (default none)
#   --fstap PATH       default ./fstap
#   --examples DIR     default ./examples
#   --work DIR         scratch (default /var/tmp/fstap-record-fidelity; emptied)
#   --per-workload     a table per workload as well
#
# Needs root (allow_other) and strace.
set -u
MODES=all,calls,direct,kernel
WLS=news-spool,mdtest,samba-xattr,index-update,mixed
ARGS= FSTAP=./fstap EXAMPLES=./examples WORK=/var/tmp/fstap-record-fidelity PERWL=
while [ $# -gt 0 ]; do
	case $1 in
	--modes) MODES=$2; shift ;;
	--workloads) WLS=$2; shift ;;
	--args) ARGS=$2; shift ;;
	--fstap) FSTAP=$2; shift ;;
	--examples) EXAMPLES=$2; shift ;;
	--work) WORK=$2; shift ;;
	--per-workload) PERWL=--per-workload ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "record-fidelity.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
FSTAP=$(readlink -f "$FSTAP") EXAMPLES=$(readlink -f "$EXAMPLES")
[ -x "$FSTAP" ] || { echo "record-fidelity.sh: no fstap at $FSTAP" >&2; exit 1; }
command -v strace >/dev/null || { echo "record-fidelity.sh: needs strace" >&2; exit 1; }
B=$WORK/back M=$WORK/mnt
rm -rf "$WORK"
mkdir -p "$WORK/res" || exit 1

DPID=
cleanup() {
	mountpoint -q "$M" 2>/dev/null && { fusermount3 -u "$M" 2>/dev/null || umount -l "$M"; }
	if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then kill "$DPID"; wait "$DPID"; fi
	DPID=
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

cd "$WORK" || exit 1	# a working directory outside the mount
for mode in ${MODES//,/ }; do
	for wl in ${WLS//,/ }; do
		rm -rf "$B" "$WORK/st"
		mkdir -p "$B" "$M" "$WORK/st"
		"$FSTAP" record -q --snapshot=none --cache="$mode" -o "$WORK/t.trace" "$B" "$M" &
		DPID=$!
		for i in $(seq 100); do mountpoint -q "$M" && break; sleep 0.1; done
		mountpoint -q "$M" || { echo "record-fidelity.sh: no mount" >&2; exit 1; }
		# shellcheck disable=SC2086
		strace -f -ff -qq -y -o "$WORK/st/raw" "$EXAMPLES/$wl" -d "$M" $ARGS >"$WORK/res/$mode.$wl.out" ||
			echo "record-fidelity.sh: $wl failed under --cache=$mode" >&2
		fusermount3 -u "$M"
		wait "$DPID"
		DPID=
		"$FSTAP" export --no-paths --file-order -o "$WORK/t.jsonl" "$WORK/t.trace" || exit 1
		python3 "$(dirname "$(readlink -f "$0")")/record-fidelity-count.py" count "$M" "$WORK/t.jsonl" \
			"$WORK"/st/raw.* >"$WORK/res/$mode.$wl.json" || exit 1
	done
done
python3 "$(dirname "$(readlink -f "$0")")/record-fidelity-count.py" table $PERWL "$WORK/res" "$MODES" "$WLS"
