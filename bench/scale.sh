#!/bin/sh
# scale.sh: peak memory (ru_maxrss) and records/s of every fstap command on
# synthetic traces of growing length, to show which commands' memory grows
# with the trace (docs/PERFORMANCE.md, "Trace length").
#
# usage: bench/scale.sh [--big] [--no-replay] [--plan=SIZE] [--sizes=M,M,...] [--commands=C,C,...]
#                       [--rate=N | --dense] [BUILDDIR]
#
# The traces are trace-bench's mdtest-like stream (bench/trace-bench.c,
# --files 90900: 1000200 records a round) repeated in rounds of fresh
# directories: 1, 10 and, with --big, 100 rounds (about 1, 10 and 100 M
# records); --sizes sets the numbers of rounds instead. The stream has
# 100 000 records per second of trace time (trace-bench --rate 100000: a
# round is 10 s): above the most the recorder delivers on this 2-vCPU
# machine (open+read of record-bench's metadata set, --cache=calls: 18 946
# files/s of 5 requests, some 95 000 records/s; docs/recording.md, "What
# each mode costs"). --rate=N sets another rate; --dense writes
# trace-bench's stream without think time (some 555 000 records/s, a
# round is 1.8 s), a stress case: the sort window (2 s of trace time)
# then holds 1.1 M records, more than a 1-round trace. For each trace it
# runs, under /usr/bin/time:
#
#   export     fstap export TRACE > /dev/null
#   import     fstap import -o OUT EXPORT.jsonl (the export, kept for it)
#   filter     fstap filter --op=read,write TRACE -o OUT
#   report     fstap report TRACE > /dev/null
#   reorder    fstap reorder --by=name TRACE -o OUT
#   anonymize  fstap anonymize --key-file=KEY TRACE -o OUT
#   prepare    fstap prepare TRACE DIR (DIR in /dev/shm)
#   replay     fstap replay --plan-ahead=PLAN --json=OUT TRACE DIR (skipped
#              with --no-replay; PLAN 16M by default, --plan=SIZE: less than
#              the shortest trace needs, so that every size fills the plan
#              and the peak shows what grows with the trace besides it)
#
# (--commands: only those, e.g. --commands=export,report) and prints per
# command and size: records, wall seconds, records/s (wall),
# records per CPU second (user + system: less disturbed by other load),
# and the peak RSS in KiB; then per command the peak at the largest size
# against the smallest. The machine's load average is printed first and
# last (figures measured under load say so). Big runs take long and need
# space: about 19 bytes a record for each trace and 200 for the JSONL
# export, in SCALE_DIR (default /tmp/fstap-scale.PID, removed at the end).
# Run it niced on a shared machine: nice -n 10 bench/scale.sh.
set -eu

big=no replay=yes sizes= rate=100000 plan=16M
commands=export,import,filter,report,reorder,anonymize,prepare,replay
build=.
for a in "$@"; do
	case $a in
	--big) big=yes ;;
	--no-replay) replay=no ;;
	--plan=*) plan=${a#--plan=} ;;
	--sizes=*) sizes=${a#--sizes=} ;;
	--commands=*) commands=${a#--commands=} ;;
	--rate=*) rate=${a#--rate=} ;;
	--dense) rate= ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "scale.sh: unknown option '$a'" >&2; exit 2 ;;
	*) build=$a ;;
	esac
done
for c in $(echo "$commands" | tr , ' '); do
	case $c in
	export|import|filter|report|reorder|anonymize|prepare|replay) ;;
	*) echo "scale.sh: unknown command '$c' in --commands" >&2; exit 2 ;;
	esac
done
[ $replay = yes ] || commands=$(echo ",$commands," | sed 's/,replay,/,/')
[ -n "$sizes" ] || { sizes=1,10; [ $big = yes ] && sizes=1,10,100; }
fstap=$build/fstap bench=$build/trace-bench
for p in "$fstap" "$bench"; do
	if [ ! -x "$p" ]; then
		echo "scale.sh: no '$p' (run 'make' in the build directory, or give BUILDDIR)" >&2
		exit 1
	fi
done
[ -x /usr/bin/time ] || { echo "scale.sh: needs GNU time (/usr/bin/time, Debian's package time)" >&2; exit 1; }

work=${SCALE_DIR:-/tmp/fstap-scale.$$}
shm=/dev/shm/fstap-scale.$$
mkdir -p "$work" "$shm"
trap 'rm -rf "$work" "$shm"' EXIT INT TERM
results=$work/results

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo "records per second of trace time: ${rate:-dense (no think time)}"
"$fstap" anonymize --new-key="$work/key" >/dev/null 2>&1

# run NAME RECORDS CMD...: one measured command (if in --commands); its
# output is discarded unless redirected by CMD itself (through sh -c).
run() {
	name=$1 recs=$2
	shift 2
	case ,$commands, in *,$name,*) ;; *) return 0 ;; esac
	if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err"; then
		echo "scale.sh: $name failed:" >&2
		tail -n 5 "$work/err" >&2
		exit 1
	fi
	read -r wall user sys rss <"$work/time"
	awk -v n="$name" -v r="$recs" -v w="$wall" -v u="$user" -v s="$sys" -v k="$rss" 'BEGIN {
		c = u + s; if (w <= 0) w = 0.01; if (c <= 0) c = 0.01
		printf "%-10s %11d %9.2f %12.0f %12.0f %10d\n", n, r, w, r / w, r / c, k
	}' | tee -a "$results"
}

printf '%-10s %11s %9s %12s %12s %10s\n' command records wall_s rec/s rec/cpu_s peak_KiB
for rounds in $(echo "$sizes" | tr , ' '); do
	t=$work/t$rounds.fstap
	recs=$("$bench" --rounds "$rounds" ${rate:+--rate "$rate"} --files 90900 --keep "$t" |
		cut -d' ' -f1)
	run export "$recs" sh -c '"$1" export "$2" > /dev/null' - "$fstap" "$t"
	case ,$commands, in
	*,import,*)
		"$fstap" export "$t" >"$work/t.jsonl"
		run import "$recs" "$fstap" import -o "$work/out.fstap" "$work/t.jsonl"
		rm -f "$work/t.jsonl" "$work/out.fstap" ;;
	esac
	run filter "$recs" "$fstap" filter --op=read,write "$t" -o "$work/out.fstap"
	run report "$recs" "$fstap" report "$t"
	run reorder "$recs" "$fstap" reorder --by=name "$t" -o "$work/out.fstap"
	run anonymize "$recs" "$fstap" anonymize --key-file="$work/key" "$t" -o "$work/out.fstap"
	rm -f "$work/out.fstap"
	rm -rf "$shm/dir"
	mkdir "$shm/dir"
	run prepare "$recs" "$fstap" prepare -q "$t" "$shm/dir"
	run replay "$recs" "$fstap" replay --no-progress --plan-ahead="$plan" --json="$work/replay.json" \
		"$t" "$shm/dir"
	rm -rf "$shm/dir" "$t"
done

echo
echo "peak RSS at the largest size against the smallest:"
awk '{ if (!($1 in lo)) { lo[$1] = $6; order[++n] = $1 } hi[$1] = $6 }
END { for (i = 1; i <= n; i++) { c = order[i]
	printf "%-10s %10d KiB %10d KiB  %+6.1f%%\n", c, lo[c], hi[c], 100 * (hi[c] - lo[c]) / lo[c] } }' "$results"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
