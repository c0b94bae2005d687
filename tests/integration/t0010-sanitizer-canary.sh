#!/bin/sh
# t0010: a sanitizer report fails a test. lib.sh's expect_exit fails on a
# sanitizer's exit status (99, 66) whatever code was expected, and on a
# report in stderr even when the status is the expected one; run-test.sh
# (make check's wrapper of every test, unit programs too) fails a test whose
# output holds a report. Checked with fakes in every build, and in a build
# with -fsanitize=address or undefined with the real thing: the canary
# (tests/tools/sanitizer-canary) reads past a heap block or overflows an int,
# alone and inside a check suite. This test passes when each of those is
# caught, and fails when one gets through.
. "$(dirname "$0")/lib.sh"

CANARY="$FSTAP_BUILDDIR/tests/tools/sanitizer-canary"
RUN_TEST="$FSTAP_SRCDIR/tests/tools/run-test.sh"
[ -x "$CANARY" ] || { echo "FAIL: '$CANARY' is not built" >&2; exit 1; }

# caught DESC CODE CMD...: `expect_exit CODE CMD` must fail, naming a sanitizer.
# Its message (which quotes the report) goes to $T/why, not to this test's
# output, where run-test.sh would rightly take it for a report of this test.
caught() {
	desc=$1
	shift
	if (test_failed=0; expect_exit "$@"; [ "$test_failed" = 1 ]) 2>"$T/why"; then
		grep -q "sanitizer" "$T/why" || fail "$desc: expect_exit failed without naming the sanitizer: $(cat "$T/why")"
	else
		fail "$desc: expect_exit $* passed"
	fi
}

# wrapper_rc CMD...: run-test.sh's exit status for CMD (its output to $T/wrapped).
wrapper_rc() {
	set +e
	sh "$RUN_TEST" "$@" >"$T/wrapped" 2>&1
	rc=$?
	set -e
	echo "$rc"
}

# ---- with fakes: every build -----------------------------------------------
cat >"$T/fake" <<'F'
#!/bin/sh
# fake MESSAGE CODE: MESSAGE on stderr, then exit CODE
printf '%s\n' "$1" >&2
exit "$2"
F
chmod +x "$T/fake"
ASAN_LINE="==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018"
UBSAN_LINE="src/lib/x.c:12:9: runtime error: signed integer overflow: 2147483647 + 2 cannot be represented in type 'int'"
TSAN_LINE="WARNING: ThreadSanitizer: data race (pid=4242)"

caught "an ASan report with the expected status" 1 "$T/fake" "$ASAN_LINE" 1
caught "a UBSan report with status 0" 0 "$T/fake" "$UBSAN_LINE" 0
caught "a TSan report with status 0" 0 "$T/fake" "$TSAN_LINE" 0
caught "ASan's exit status when 1 was expected" 1 "$T/fake" "fstap: error: x" 99
caught "TSan's exit status when 1 was expected" 1 "$T/fake" "fstap: error: x" 66
# ...and the helper still passes what is right.
(test_failed=0; expect_exit 1 "$T/fake" "fstap: error: 'x' is not a trace" 1 && [ "$test_failed" = 0 ]) ||
	fail "expect_exit 1 rejects a clean exit 1"
(test_failed=0; expect_exit 0 "$T/fake" "warning: runtime errors: 0" 0 && [ "$test_failed" = 0 ]) ||
	fail "expect_exit 0 rejects a clean message that mentions runtime errors"

[ "$(wrapper_rc "$T/fake" "$ASAN_LINE" 0)" = 1 ] || fail "run-test.sh passes a test whose output holds an ASan report"
[ "$(wrapper_rc "$T/fake" "$UBSAN_LINE" 77)" = 1 ] || fail "run-test.sh lets a skip with a UBSan report pass"
[ "$(wrapper_rc "$T/fake" "fine" 0)" = 0 ] || fail "run-test.sh fails a clean test"
[ "$(wrapper_rc "$T/fake" "SKIP: no" 77)" = 77 ] || fail "run-test.sh does not keep a skip's 77"
[ "$(wrapper_rc "$T/fake" "FAIL: x" 1)" = 1 ] || fail "run-test.sh does not keep a failure's 1"

# ---- the real sanitizers, in a build made with them ---------------------------
expect_exit 0 "$CANARY" ok
case ",${FSTAP_SANITIZERS:-}," in
*,address,*)
	caught "the canary's heap overflow" 0 "$CANARY" heap
	set +e
	"$CANARY" heap >/dev/null 2>"$T/err"
	rc=$?
	set -e
	[ "$rc" = "$SANITIZER_EXIT" ] || fail "the canary's ASan report exited $rc, not $SANITIZER_EXIT"
	grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" "$T/err" || fail "no ASan report: $(head -c 300 "$T/err")"
	caught "the canary's heap overflow with ASan's exit status set to 1" 1 \
		env ASAN_OPTIONS=exitcode=1 "$CANARY" heap
	[ "$(wrapper_rc "$CANARY" check-heap)" = 1 ] || fail "run-test.sh passes a check suite with an ASan report"
	grep -q "heap-buffer-overflow" "$T/wrapped" || fail "the check suite's output lacks the ASan report: $(head -c 300 "$T/wrapped")"
	[ "$(wrapper_rc env ASAN_OPTIONS=exitcode=0 "$CANARY" check-heap)" = 1 ] ||
		fail "run-test.sh passes a check suite with an ASan report that exits 0"
	echo "AddressSanitizer: the canary's report was caught"
	;;
*) echo "this build has no AddressSanitizer: only the fakes were checked" ;;
esac
case ",${FSTAP_SANITIZERS:-}," in
*,undefined,*)
	caught "the canary's int overflow" 0 "$CANARY" int
	[ "$(wrapper_rc "$CANARY" check-int)" = 1 ] || fail "run-test.sh passes a check suite with a UBSan report"
	grep -q "runtime error: signed integer overflow" "$T/wrapped" ||
		fail "the check suite's output lacks the UBSan report: $(head -c 300 "$T/wrapped")"
	[ "$(wrapper_rc env UBSAN_OPTIONS=exitcode=0 "$CANARY" check-int)" = 1 ] ||
		fail "run-test.sh passes a check suite with a UBSan report that exits 0"
	echo "UndefinedBehaviorSanitizer: the canary's report was caught"
	;;
*) echo "this build has no UndefinedBehaviorSanitizer: only the fakes were checked" ;;
esac

finish
