# src/compare/local.mk: `fstap compare`: the candidate lifecycle, the result
# model and its renderers (libcompare.a), the command, the unit tests of the
# pure parts and the integration test on real loop images.
noinst_LIBRARIES += libcompare.a
libcompare_a_SOURCES = \
	src/compare/compare.h \
	src/compare/model.c \
	src/compare/stats.h \
	src/compare/stats.c \
	src/compare/verdict.c \
	src/compare/render.c \
	src/compare/lifecycle.c \
	src/compare/disk.c \
	src/compare/device.c \
	src/compare/summary.c \
	src/compare/preflight.c \
	src/compare/session.c \
	src/compare/variant.c
libcompare_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

fstap_SOURCES += src/cli/cmd-compare.c
fstap_LDADD += libcompare.a $(FSTAP_LIBS) -lm

COMPARE_UNIT_TESTS = tests/unit/check_compare tests/unit/check_compare_stats
check_PROGRAMS += $(COMPARE_UNIT_TESTS)
TESTS += $(COMPARE_UNIT_TESTS)
UNIT_TESTS += $(COMPARE_UNIT_TESTS)
tests_unit_check_compare_SOURCES = tests/unit/check_compare.c
tests_unit_check_compare_CPPFLAGS = $(AM_CPPFLAGS)
tests_unit_check_compare_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_compare_LDADD = libcompare.a $(FSTAP_LIBS) $(CHECK_LIBS) -lm

tests_unit_check_compare_stats_SOURCES = tests/unit/check_compare_stats.c
tests_unit_check_compare_stats_CPPFLAGS = $(AM_CPPFLAGS)
tests_unit_check_compare_stats_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_compare_stats_LDADD = libcompare.a $(FSTAP_LIBS) $(CHECK_LIBS) -lm

COMPARE_TESTS = tests/integration/t3500-compare.sh tests/integration/t3510-compare-verdict.sh \
	tests/integration/t3520-compare-device.sh tests/integration/t3530-compare-clone.sh
TESTS += $(COMPARE_TESTS)
EXTRA_DIST += $(COMPARE_TESTS) docs/compare.md tests/integration/data/unlink-missing.jsonl
