#!/bin/sh
# run-test.sh CMD...: make check's LOG_COMPILER for every test (unit programs
# and integration scripts): runs CMD with its output passed through, and
# fails it (exit 1) when that output holds a sanitizer report, whatever CMD's
# exit status was; else exits with CMD's status (77 stays a skip).
set -u
. "$(dirname "$0")/sanitizer-report.sh"

out=$(mktemp "${TMPDIR:-/tmp}/fstap-run-test.XXXXXX") || exit 99
rcfile="$out.rc"
{
	"$@" 2>&1
	echo $? >"$rcfile"
} | tee "$out"
rc=$(cat "$rcfile" 2>/dev/null || echo 99)
if sanitizer_report "$out"; then
	echo "FAIL: a sanitizer report in the output above (exit status $rc)" >&2
	rc=1
fi
rm -f "$out" "$rcfile"
exit "$rc"
