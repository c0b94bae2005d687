#!/bin/sh
# run-trace-bench.sh: runs the trace benchmark (bench/trace-bench.c) and then
# measures a real `strace -f -tt -T` of the same file operations, so that the
# size of an fstap trace and of strace text are compared in one run.
#
# usage: bench/run-trace-bench.sh [TRACE_BENCH] [trace-bench options...]
#
# TRACE_BENCH is the trace-bench binary (default ./trace-bench, run from the
# build directory after `make`); this script builds nothing. Options such as
# --json, --reps N or --raw-fh are passed to trace-bench. STRACE_FILES
# (default 10000) sets the size of the strace run; without strace installed
# that part is skipped.
set -eu

bench=./trace-bench
if [ $# -gt 0 ]; then
	case $1 in
	-*) ;;
	*) bench=$1; shift ;;
	esac
fi
if [ ! -x "$bench" ]; then
	echo "run-trace-bench.sh: no trace-bench at '$bench' (run 'make' in the build directory)" >&2
	exit 1
fi
json=no
for a in "$@"; do
	[ "$a" = --json ] && json=yes
done

out=$("$bench" "$@")
printf '%s\n' "$out"

if ! command -v strace >/dev/null 2>&1; then
	echo "run-trace-bench.sh: strace not installed: no real strace comparison" >&2
	exit 0
fi

# fstap bytes per file (all records of a file's create/stat/read/unlink).
if [ $json = yes ]; then
	fstap_bpf=$(printf '%s\n' "$out" | sed -n 's/.*"bytes_per_file":\([0-9.]*\).*/\1/p')
else
	fstap_bpf=$(printf '%s\n' "$out" | sed -n 's/^fstap bytes per file ([0-9]* records) *\([0-9.]*\)$/\1/p')
fi

files=${STRACE_FILES:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/trace-bench-strace.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/d"
strace -f -tt -T -qq -o "$work/strace.txt" \
	"$bench" --syscall-workload "$work/d" --files "$files" --dirs 100 --threads 4

# Only the workload's system calls (and their "resumed" halves when threads
# interleave), from the first mkdir of a benchmark directory on.
awk -v files="$files" -v fstap_bpf="$fstap_bpf" -v json=$json '
	/mkdir\("dir\./ { on = 1 }
	!on { next }
	/(openat|write|close|newfstatat|statx|stat|read|unlink|mkdir|rmdir)\(/ ||
	/<\.\.\. (openat|write|close|newfstatat|statx|stat|read|unlink|mkdir|rmdir) resumed>/ {
		bytes += length($0) + 1
		lines++
		if ($0 !~ /resumed>/)
			calls++
	}
	END {
		if (!calls) { print "run-trace-bench.sh: no system calls seen in the strace output" > "/dev/stderr"; exit 1 }
		bpc = bytes / calls; bpf = bytes / files
		if (json == "yes") {
			printf "{\"bench\":\"strace\",\"files\":%d,\"syscalls\":%d,\"lines\":%d,\"bytes\":%d," \
			       "\"bytes_per_syscall\":%.1f,\"bytes_per_file\":%.1f", files, calls, lines, bytes, bpc, bpf
			if (fstap_bpf != "")
				printf ",\"fstap_bytes_per_file\":%s,\"ratio_per_file\":%.4f", fstap_bpf, fstap_bpf / bpf
			printf "}\n"
		} else {
			printf "\nreal strace -f -tt -T of the same operations (%d files, 4 threads):\n", files
			printf "%-44s %14d\n", "system calls", calls
			printf "%-44s %14d\n", "lines (with unfinished/resumed halves)", lines
			printf "%-44s %14.1f\n", "strace bytes/syscall", bpc
			printf "%-44s %14.1f\n", "strace bytes per file", bpf
			if (fstap_bpf != "")
				printf "%-44s %14.4f\n", "fstap / real strace, per file", fstap_bpf / bpf
		}
	}' "$work/strace.txt"
