# replay.mk: `fstap replay`: the replay engine (libreplay.a), its command,
# its unit tests (one check suite per module) and integration tests.
# Included from Makefile.am after tests/unit/local.mk (it extends UNIT_TESTS).
noinst_LIBRARIES += libreplay.a
libreplay_a_SOURCES = \
	replay/replay.h \
	replay/replay_i.h \
	replay/stats.c \
	replay/divlog.c \
	replay/timing.c \
	replay/races.c \
	replay/task.c \
	replay/exec_i.h \
	replay/shared.c \
	replay/dircache.c \
	replay/context.c \
	replay/paths.c \
	replay/exec-ns.c \
	replay/exec-file.c \
	replay/exec-dir.c \
	replay/exec-xattr.c \
	replay/exec.c \
	replay/classify.c \
	replay/run_i.h \
	replay/options.c \
	replay/stage.c \
	replay/dispatch.c \
	replay/borrowed.c \
	replay/deps.c \
	replay/learn.c \
	replay/worker.c \
	replay/run.c \
	replay/report.c \
	replay/cgroup.c \
	replay/clone.c \
	replay/split.c \
	replay/durable.c
libreplay_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

fstap_SOURCES += src/cli/cmd-replay.c
fstap_LDADD += libreplay.a $(FSTAP_LIBS) -lm

REPLAY_UNIT_LDADD = libreplay.a $(UNIT_LDADD) -lm
REPLAY_UNIT_TESTS = tests/unit/check_stats tests/unit/check_timing \
	tests/unit/check_classify tests/unit/check_task tests/unit/check_sched \
	tests/unit/check_exec tests/unit/check_clone tests/unit/check_split
UNIT_TESTS += $(REPLAY_UNIT_TESTS)
check_PROGRAMS += $(REPLAY_UNIT_TESTS)
TESTS += $(REPLAY_UNIT_TESTS)

tests_unit_check_stats_SOURCES = tests/unit/check_stats.c
tests_unit_check_stats_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_stats_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_stats_LDADD = $(REPLAY_UNIT_LDADD)

tests_unit_check_timing_SOURCES = tests/unit/check_timing.c
tests_unit_check_timing_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_timing_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_timing_LDADD = $(REPLAY_UNIT_LDADD)

tests_unit_check_classify_SOURCES = tests/unit/check_classify.c
tests_unit_check_classify_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_classify_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_classify_LDADD = $(REPLAY_UNIT_LDADD)

tests_unit_check_task_SOURCES = tests/unit/check_task.c
tests_unit_check_task_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_task_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_task_LDADD = $(REPLAY_UNIT_LDADD)

tests_unit_check_sched_SOURCES = tests/unit/check_sched.c
tests_unit_check_sched_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_sched_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_sched_LDADD = $(REPLAY_UNIT_LDADD)

tests_unit_check_exec_SOURCES = tests/unit/check_exec.c
tests_unit_check_exec_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_exec_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_exec_LDADD = $(REPLAY_UNIT_LDADD)

tests_unit_check_clone_SOURCES = tests/unit/check_clone.c
tests_unit_check_clone_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_clone_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_clone_LDADD = $(REPLAY_UNIT_LDADD)

tests_unit_check_split_SOURCES = tests/unit/check_split.c
tests_unit_check_split_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/replay
tests_unit_check_split_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_split_LDADD = $(REPLAY_UNIT_LDADD)

REPLAY_INTEGRATION_TESTS = \
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
	tests/integration/t2180-replay-posix-suite.sh \
	tests/integration/t2190-replay-torn-trace.sh \
	tests/integration/t2195-replay-native-pace.sh \
	tests/integration/t2200-roundtrip.sh \
	tests/integration/t2300-replay-apps.sh \
	tests/integration/t2310-replay-xattr-apps.sh \
	tests/integration/t2400-replay-clone.sh
TESTS += $(REPLAY_INTEGRATION_TESTS)

# t2150's long synthetic trace, written directly (JSON import is too slow)
check_PROGRAMS += tests/tools/gen-stream-trace
tests_tools_gen_stream_trace_SOURCES = tests/tools/gen-stream-trace.c
tests_tools_gen_stream_trace_LDADD = $(FSTAP_LIBS)
EXTRA_DIST += $(REPLAY_INTEGRATION_TESTS) tests/integration/lib-replay.sh docs/replay.md \
	tests/integration/replay-syscalls.py tests/integration/sync-writer.py \
	tests/integration/divergent-trace.jsonl \
	tests/integration/lib-apps.sh tests/integration/multi-trace.py
