# Integration tests: shell scripts that run the real binary (and, for the
# recorder and replayer, mount for real). Each sources tests/integration/lib.sh.
INTEGRATION_TESTS = \
	tests/integration/t0000-cli-basics.sh \
	tests/integration/t0100-trace-export-import.sh \
	tests/integration/t0110-trace-old-version.sh \
	tests/integration/t0120-trace-golden.sh \
	tests/integration/t0200-trace-second-reader.sh \
	tests/integration/t0300-outputs-safe.sh
INTEGRATION_TESTS += tests/integration/t9000-examples-native.sh
TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS) tests/integration/lib.sh tests/integration/trace_reader.py \
	tests/integration/data

# t0010: a sanitizer report fails a test (the canary makes one on purpose).
INTEGRATION_TESTS += tests/integration/t0010-sanitizer-canary.sh
check_PROGRAMS += tests/tools/sanitizer-canary
tests_tools_sanitizer_canary_SOURCES = tests/tools/sanitizer-canary.c
tests_tools_sanitizer_canary_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_tools_sanitizer_canary_LDADD = $(CHECK_LIBS)
EXTRA_DIST += tests/tools/run-test.sh tests/tools/sanitizer-report.sh tests/README.md

# t1095: what the recorder stored against what the application saw (dirlist
# prints what each getdents64 call returned).
INTEGRATION_TESTS += tests/integration/t1095-record-seen.sh
check_PROGRAMS += tests/tools/dirlist
tests_tools_dirlist_SOURCES = tests/tools/dirlist.c
