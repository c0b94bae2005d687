# replay/prepare.mk: `fstap prepare`, recreating a trace's initial state in
# an empty directory (replay/prepare.h): the plan (pure, unit-tested) and its
# execution beneath the target, the subcommand, and their tests.
noinst_LIBRARIES += libprepare.a
libprepare_a_SOURCES = \
	replay/prepare.h \
	replay/prepare-dir.c \
	replay/prepare-plan.c \
	replay/prepare.c
libprepare_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

fstap_SOURCES += src/cli/cmd-prepare.c
fstap_LDADD += libprepare.a $(FSTAP_LIBS)

check_PROGRAMS += tests/unit/check_prepare
TESTS += tests/unit/check_prepare
UNIT_TESTS += tests/unit/check_prepare
tests_unit_check_prepare_SOURCES = tests/unit/check_prepare.c
tests_unit_check_prepare_CPPFLAGS = $(AM_CPPFLAGS)
tests_unit_check_prepare_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_prepare_LDADD = libprepare.a $(FSTAP_LIBS) $(CHECK_LIBS)

PREPARE_TESTS = \
	tests/integration/t2000-prepare-tree.sh \
	tests/integration/t2001-prepare-hostile.sh \
	tests/integration/t2002-prepare-order.sh \
	tests/integration/t2003-prepare-full.sh
TESTS += $(PREPARE_TESTS)
EXTRA_DIST += $(PREPARE_TESTS) tests/integration/prepare-tree.py
