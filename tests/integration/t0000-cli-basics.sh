#!/bin/sh
# t0000: the command line: help, version, usage errors and their exit codes,
# and the crash handler's symbolized backtrace.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$FSTAP" --version && expect_grep "$T/out" "fstap 0.1.0 (trace format 1.0)"
expect_exit 0 "$FSTAP" --help && expect_grep "$T/out" "usage: fstap"
expect_exit 0 "$FSTAP" help && expect_grep "$T/out" "export"
expect_exit 0 "$FSTAP" help export && expect_grep "$T/out" "usage: fstap export"
for cmd in export import info; do
	expect_exit 0 "$FSTAP" "$cmd" --help && expect_grep "$T/out" "usage: fstap $cmd"
done

# Usage errors: exit 2 with a one-line reason.
expect_exit 2 "$FSTAP" && expect_grep "$T/err" "usage: fstap"
expect_exit 2 "$FSTAP" frobnicate && expect_grep "$T/err" "'frobnicate' is not an fstap command"
expect_exit 2 "$FSTAP" help frobnicate
expect_exit 2 "$FSTAP" --bogus && expect_grep "$T/err" "unknown option '--bogus'"
expect_exit 2 "$FSTAP" export && expect_grep "$T/err" "expected one TRACE argument"
expect_exit 2 "$FSTAP" export --frob x
expect_exit 2 "$FSTAP" import x.jsonl && expect_grep "$T/err" "-o TRACE is required"
expect_exit 2 "$FSTAP" import --chunk-size=1 -o x x.jsonl && expect_grep "$T/err" "--chunk-size"

# Failures: exit 1 with "fstap: error: ...".
expect_exit 1 "$FSTAP" info "$T/missing" && expect_grep "$T/err" "fstap: error: cannot open trace '$T/missing'"
printf 'hello\n' >"$T/notrace"
expect_exit 1 "$FSTAP" export "$T/notrace" && expect_grep "$T/err" "is not an fstap trace"

# Output that cannot be written is a failure, not a silent success.
if [ -w /dev/full ]; then
	set +e; "$FSTAP" --help >/dev/full 2>"$T/err"; rc=$?; set -e
	[ "$rc" = 1 ] || fail "--help to a full disk exited $rc"
	expect_grep "$T/err" "cannot write to standard output"
fi

# The crash handler prints a symbolized backtrace, then dies of the signal.
for how in segv abort; do
	set +e
	FSTAP_TEST_CRASH=$how "$FSTAP" --version >/dev/null 2>"$T/crash"
	rc=$?
	set -e
	case $how in segv) want=139 ;; abort) want=134 ;; esac
	[ "$rc" = "$want" ] || fail "crash ($how) exited $rc, expected $want"
	expect_grep "$T/crash" "fstap: fatal signal"
	expect_grep "$T/crash" "backtrace:"
	expect_grep "$T/crash" "fstap_test_crash"
	expect_grep "$T/crash" " in main+"
done

finish
