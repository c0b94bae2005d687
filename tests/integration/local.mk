# Integration tests: shell scripts that run the real binary (and, for the
# recorder and replayer, mount for real). Each sources tests/integration/lib.sh.
INTEGRATION_TESTS = \
	tests/integration/t0000-cli-basics.sh \
	tests/integration/t0100-trace-export-import.sh \
	tests/integration/t0200-trace-second-reader.sh \
	tests/integration/t0300-outputs-safe.sh
INTEGRATION_TESTS += tests/integration/t9000-examples-native.sh
TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS) tests/integration/lib.sh tests/integration/trace_reader.py
