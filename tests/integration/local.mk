# tests/integration/local.mk: the integration tests, shell scripts that run
# the real binary (the recorder's and the replay's mount for real: they
# skip with 77 without /dev/fuse or root, and fail instead under CI=true),
# each sourcing tests/integration/lib.sh; by part, then the programs some
# of them run.
INTEGRATION_TESTS = \
	tests/integration/t0000-cli-basics.sh \
	tests/integration/t0010-sanitizer-canary.sh \
	tests/integration/t0100-trace-export-import.sh \
	tests/integration/t0110-trace-old-version.sh \
	tests/integration/t0120-trace-golden.sh \
	tests/integration/t0200-trace-second-reader.sh \
	tests/integration/t0300-outputs-safe.sh \
	tests/integration/t9000-examples-native.sh
RECORD_TESTS = \
	tests/integration/t1000-record-basics.sh \
	tests/integration/t1010-record-nonroot.sh \
	tests/integration/t1020-record-load.sh \
	tests/integration/t1030-record-crash.sh \
	tests/integration/t1031-record-crash-hook.sh \
	tests/integration/t1040-record-modes.sh \
	tests/integration/t1050-record-many-files.sh \
	tests/integration/t1060-record-disk-full.sh \
	tests/integration/t1070-record-posix-edges.sh \
	tests/integration/t1080-record-pid-reuse.sh \
	tests/integration/t1090-record-submount.sh \
	tests/integration/t1095-record-seen.sh \
	tests/integration/t1100-record-ioctl.sh \
	tests/integration/t1110-record-direct-suid.sh \
	tests/integration/t1120-record-kill-random.sh \
	tests/integration/t1130-record-stop.sh \
	tests/integration/t1150-record-xattr-values.sh
PREPARE_TESTS = \
	tests/integration/t2000-prepare-tree.sh \
	tests/integration/t2001-prepare-hostile.sh \
	tests/integration/t2002-prepare-order.sh \
	tests/integration/t2003-prepare-full.sh
REPLAY_TESTS = \
	tests/integration/t2100-replay-basic.sh \
	tests/integration/t2110-replay-divergence.sh \
	tests/integration/t2115-replay-divergence-log.sh \
	tests/integration/t2120-replay-order.sh \
	tests/integration/t2130-replay-hostile.sh \
	tests/integration/t2140-replay-cache-limit.sh \
	tests/integration/t2150-replay-bounded-memory.sh \
	tests/integration/t2160-replay-syscalls.sh \
	tests/integration/t2165-replay-sync-writes.sh \
	tests/integration/t2170-replay-devices.sh \
	tests/integration/t2175-replay-unlinked-open.sh \
	tests/integration/t2176-replay-one-cpu.sh \
	tests/integration/t2177-replay-prepare.sh \
	tests/integration/t2178-replay-plan.sh \
	tests/integration/t2180-replay-posix-suite.sh \
	tests/integration/t2190-replay-torn-trace.sh \
	tests/integration/t2195-replay-native-pace.sh \
	tests/integration/t2200-roundtrip.sh \
	tests/integration/t2300-replay-apps.sh \
	tests/integration/t2310-replay-xattr-apps.sh \
	tests/integration/t2400-replay-clone.sh \
	tests/integration/t2410-replay-mpi-clone.sh \
	tests/integration/t2420-replay-mpi-kill.sh \
	tests/integration/t2430-replay-mpi-split.sh \
	tests/integration/t2435-replay-mpi-inherited-fd.sh
ANALYSIS_TESTS = \
	tests/integration/t3000-report-order.sh \
	tests/integration/t3010-filter.sh \
	tests/integration/t3020-reorder.sh \
	tests/integration/t3030-report-order-recorded.sh \
	tests/integration/t3040-report-order-xproc.sh \
	tests/integration/t3050-reorder-bounded-memory.sh \
	tests/integration/t3060-reorder-target.sh \
	tests/integration/t3070-analysis-forgotten-objects.sh \
	tests/integration/t3100-import-strace.sh \
	tests/integration/t3200-anonymize.sh \
	tests/integration/t3210-anonymize-order.sh
COMPARE_TESTS = \
	tests/integration/t3500-compare.sh \
	tests/integration/t3510-compare-verdict.sh \
	tests/integration/t3520-compare-device.sh \
	tests/integration/t3530-compare-clone.sh \
	tests/integration/t4000-disk.sh \
	tests/integration/t4010-compare-disk.sh \
	tests/integration/t4020-seed-spool.sh
ALL_INTEGRATION_TESTS = $(INTEGRATION_TESTS) $(RECORD_TESTS) $(PREPARE_TESTS) \
	$(REPLAY_TESTS) $(ANALYSIS_TESTS) $(COMPARE_TESTS)
TESTS += $(ALL_INTEGRATION_TESTS)
EXTRA_DIST += $(ALL_INTEGRATION_TESTS) \
	tests/integration/lib.sh tests/integration/lib-record.sh \
	tests/integration/lib-replay.sh tests/integration/lib-apps.sh \
	tests/integration/lib-mpi.sh tests/integration/data \
	tests/integration/trace_reader.py tests/integration/record-tools.py \
	tests/integration/prepare-tree.py tests/integration/replay-syscalls.py \
	tests/integration/sync-writer.py tests/integration/multi-trace.py \
	tests/integration/spool.py tests/integration/divergent-trace.jsonl \
	tests/tools/run-test.sh tests/tools/sanitizer-report.sh \
	tests/tools/lsan-openmpi.supp tests/README.md

# t0010: a sanitizer report fails a test (the canary makes one on purpose).
check_PROGRAMS += tests/tools/sanitizer-canary
tests_tools_sanitizer_canary_LDADD = $(CHECK_LIBS)
# t1095: what the recorder stored against what the application saw (dirlist
# prints what each getdents64 call returned).
check_PROGRAMS += tests/tools/dirlist
# t2150's long synthetic trace, written directly (JSON import is too slow).
check_PROGRAMS += tests/tools/gen-stream-trace
tests_tools_gen_stream_trace_LDADD = $(FSTAP_LIBS)
# t3100's program of the calls common tools do not make (openat2, mknod, utimes...).
check_PROGRAMS += tests/tools/fs-calls
