# sanitizer-report.sh: sanitizer_report FILE, whether FILE holds a report of
# AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer or
# ThreadSanitizer (sourced by lib.sh and run-test.sh; POSIX sh).
#
# The sanitizers exit with codes of their own under make check (the
# Makefile's test environment): SANITIZER_EXIT 99 for ASan, LSan and UBSan
# (automake's "hard error"), SANITIZER_EXIT_TSAN 66, never an fstap exit code.

SANITIZER_EXIT=99
SANITIZER_EXIT_TSAN=66

sanitizer_report() {
	grep -Eq -e '==[0-9]+==ERROR: [A-Za-z]+Sanitizer' -e 'WARNING: ThreadSanitizer' \
		-e ': runtime error: ' -e 'SUMMARY: [A-Za-z]+Sanitizer' -- "$1" 2>/dev/null
}
