# lib.sh: shared helpers for the integration tests (sourced, POSIX sh).
#
# Contract: the harness exports FSTAP (the binary), FSTAP_SRCDIR and
# FSTAP_BUILDDIR. A test exits 0 to pass, 1 to fail, 77 to skip; under
# CI=true a skip is a failure, because CI can mount, unless the test is named
# in FSTAP_CI_ALLOWED_SKIPS (.ci/run's commented list). Each test works in its
# own $T directory, removed on exit by the trap, which also runs the test's
# own cleanup function (test_cleanup) if it defines one. A sanitizer's exit
# status or report fails expect_exit whatever code was expected
# (tests/tools/sanitizer-report.sh).

set -eu

: "${FSTAP:?FSTAP must name the fstap binary}"
: "${FSTAP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$FSTAP_SRCDIR/tests/tools/sanitizer-report.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/fstap-test.XXXXXX")
test_failed=0

_cleanup() {
	rc=$?
	if command -v test_cleanup >/dev/null 2>&1; then test_cleanup || true; fi
	rm -rf "$T"
	exit $rc
}
trap _cleanup EXIT
trap 'exit 1' INT TERM

# Skip (exit 77) with a reason; a failure under CI=true unless this test is
# on the list CI allows to skip.
skip() {
	if [ "${CI:-}" = true ] && ! ci_may_skip "$(basename "$0")"; then
		echo "FAIL: cannot run under CI: $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# ci_may_skip NAME: whether NAME (a test's file name) is in FSTAP_CI_ALLOWED_SKIPS.
ci_may_skip() {
	case " ${FSTAP_CI_ALLOWED_SKIPS:-} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

fail() {
	echo "FAIL: $*" >&2
	test_failed=1
}

# expect_exit CODE CMD...: runs CMD, stdout to $T/out, stderr to $T/err.
# Fails on another exit status, and on a sanitizer report in $T/err even
# when the status is CODE.
expect_exit() {
	want=$1
	shift
	set +e
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	set -e
	if sanitizer_report "$T/err"; then
		fail "'$*' exited $got with a sanitizer report: $(head -c 2000 "$T/err")"
		return 1
	fi
	if [ "$got" = "$SANITIZER_EXIT" ] || [ "$got" = "$SANITIZER_EXIT_TSAN" ]; then
		fail "'$*' exited $got, a sanitizer's exit status (expected $want); stderr: $(head -c 600 "$T/err")"
		return 1
	fi
	if [ "$got" != "$want" ]; then
		fail "'$*' exited $got, expected $want; stderr: $(head -c 600 "$T/err")"
		return 1
	fi
	return 0
}

# expect_grep FILE PATTERN: FILE must contain the fixed string PATTERN.
expect_grep() {
	if ! grep -qF -- "$2" "$1"; then
		fail "'$1' lacks '$2'; it holds: $(head -c 600 "$1")"
		return 1
	fi
	return 0
}

# Lines a file has, for exact-count assertions.
count_lines() {
	wc -l <"$1" | tr -d ' '
}

finish() {
	if [ "$test_failed" != 0 ]; then
		exit 1
	fi
	echo "ok"
	exit 0
}
