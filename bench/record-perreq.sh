#!/bin/bash
# record-perreq.sh: what one file of mdphase's create, stat, open+read and
# unlink phases costs the FUSE daemon, in measures that the noise of a shared
# machine does not move: context switches of the daemon's threads (sum of
# voluntary and involuntary, /proc/PID/task/*/status), its system calls
# (strace -c -f -p, with --strace) and its instructions (with --instr: the
# daemon runs under callgrind, whose counters are zeroed before and dumped
# after each phase; valgrind runs one thread at a time, so only the
# instruction counts of that run are used; WORK/callgrind.PHASE is the
# profile of each phase, for callgrind_annotate). Daemon CPU time (utime+stime)
# is printed too but is as noisy as the machine.
#
# The phases, on a fresh mount, FILES files in DIRS directories: create
# (open O_CREAT|O_EXCL, write 4 KiB, close), stat, open+read 4 KiB+close,
# unlink, each preceded by sync and, for open+read, by drop_caches (as
# mdphase -S with a cold read). The driver is a small Python loop, pinned with the
# daemon to one vCPU (taskset -c 0) unless --unpinned. Figures are per FILE
# (divide by the requests per file that the trace shows for the mode).
#
# usage: bench/record-perreq.sh [--files N] [--dirs N] [--work DIR]
#                               [--instr] [--strace] [--unpinned]
#                               FSTAP ARGS... | pll-always | pll-never
#   (TRACE in ARGS stands for WORK/perreq.trace)
set -u
FILES=5000 DIRS=50 WORK=/var/tmp/fstap-record-perreq INSTR= STRACE= PIN=1
while [ $# -gt 0 ]; do
	case $1 in
	--files) FILES=$2; shift ;;
	--dirs) DIRS=$2; shift ;;
	--work) WORK=$2; shift ;;
	--instr) INSTR=1 ;;
	--strace) STRACE=1 ;;
	--unpinned) PIN= ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "record-perreq.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || { echo "record-perreq.sh: no FSTAP" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "record-perreq.sh: needs root" >&2; exit 1; }
B=$WORK/back M=$WORK/mnt
mkdir -p "$WORK" "$B" "$M" || exit 1
TS=()
[ -n "$PIN" ] && TS=(taskset -c 0)
VG=()
[ -n "$INSTR" ] && VG=(valgrind --tool=callgrind --dump-instr=no --collect-atstart=yes
	--callgrind-out-file="$WORK/cg.%p")
case $1 in
pll-always|pll-never)
	EX=/usr/share/doc/libfuse3-dev/examples
	[ -x "$WORK/passthrough_ll" ] ||
		gcc -O2 -w -I$EX -o "$WORK/passthrough_ll" $EX/passthrough_ll.c \
			$(pkg-config --cflags --libs fuse3) || exit 1
	o=cache=never
	[ "$1" = pll-always ] && o=cache=always,writeback
	CMD=("$WORK/passthrough_ll" -f -o "allow_other,source=$B,$o" "$M")
	;;
*)
	CMD=("$(readlink -f "$1")" record -q --snapshot=none)
	shift
	for a in "$@"; do [ "$a" = TRACE ] && a=$WORK/perreq.trace; CMD+=("$a"); done
	CMD+=("$B" "$M")
	;;
esac

DPID= SPID=
. "$(dirname "$0")/lib-daemon.sh"
cleanup() {
	[ -n "$SPID" ] && { kill -INT "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; SPID=; }
	daemon_stop "$M" "$DPID" 300
	DPID=
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

rm -rf "$B"/* "$WORK/perreq.trace" "$WORK"/cg.*
for d in $(seq "$DIRS"); do mkdir "$B/d$d"; done
"${TS[@]}" "${VG[@]}" "${CMD[@]}" 2>"$WORK/daemon.log" &
DPID=$!
for i in $(seq 600); do mountpoint -q "$M" && break; sleep 0.1; done
mountpoint -q "$M" || { echo "record-perreq.sh: mount failed" >&2; cat "$WORK/daemon.log" >&2; exit 1; }
# the daemon's pid (valgrind execs in place; the fstap pid is $DPID)
PID=$DPID

# context switches of all of the daemon's threads
csw() { cat /proc/$PID/task/*/status 2>/dev/null |
	awk '/^(non)?voluntary_ctxt_switches/ {n += $2} END {print n + 0}'; }
cpu() { awk '{print $14 + $15}' /proc/$PID/stat; }

driver() {	# $1 = phase
	"${TS[@]}" python3 - "$M" "$FILES" "$DIRS" "$1" <<'PY'
import os, sys
m, n, nd, ph = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
names = ["%s/d%d/f%d" % (m, i % nd + 1, i) for i in range(n)]
buf = b"x" * 4096
if ph == "create":
    for p in names:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, buf)
        os.close(fd)
elif ph == "stat":
    for p in names:
        os.stat(p)
elif ph == "unlink":
    for p in names:
        os.unlink(p)
else:
    for p in names:
        fd = os.open(p, os.O_RDONLY)
        os.read(fd, 4096)
        os.close(fd)
PY
}

printf "%-9s %8s %12s %10s %10s\n" phase files csw/file cpu_us/file instr/file
for ph in create stat openread unlink; do
	sync
	[ $ph = openread ] && echo 3 >/proc/sys/vm/drop_caches
	if [ -n "$STRACE" ]; then
		strace -c -f -p "$PID" -o "$WORK/strace.$ph" &
		SPID=$!
		sleep 1
	fi
	[ -n "$INSTR" ] && callgrind_control -z "$PID" >/dev/null 2>&1
	c0=$(csw) u0=$(cpu)
	driver $ph || exit 1
	c1=$(csw) u1=$(cpu)
	ir=-
	if [ -n "$INSTR" ]; then
		rm -f "$WORK"/cg.*
		callgrind_control -d "$PID" >/dev/null 2>&1
		sleep 0.5
		cat "$WORK"/cg.* >"$WORK/callgrind.$ph" 2>/dev/null
		ir=$(awk '/^summary:/ {s += $2} /^totals:/ {t += $2} END {print (s ? s : t)}' "$WORK/callgrind.$ph")
		ir=$(awk -v a="$ir" -v n="$FILES" 'BEGIN {printf "%.0f", a / n}')
	fi
	if [ -n "$SPID" ]; then
		kill -INT "$SPID"; wait "$SPID" 2>/dev/null; SPID=
	fi
	awk -v ph=$ph -v n=$FILES -v c=$((c1 - c0)) -v u=$((u1 - u0)) -v ir="$ir" -v hz="$(getconf CLK_TCK)" \
		'BEGIN {printf "%-9s %8d %12.2f %10.1f %10s\n", ph, n, c / n, u * 1e6 / hz / n, ir}'
	if [ -n "$STRACE" ]; then
		awk -v n=$FILES 'NR > 2 && $NF != "total" && $1 !~ /^-/ {
			c = ($4 ~ /^[0-9]+$/) ? $4 : $5; printf "    %-20s %8.2f/file\n", $NF, $4 / n }' \
			"$WORK/strace.$ph"
	fi
done
