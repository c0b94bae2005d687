# libimport: fstap import --from=strace: the strace line parser, the
# namespace and initial state of an import (libfstap's state records), and
# the system calls turned into operations.
noinst_LIBRARIES += libimport.a
libimport_a_SOURCES = \
	src/import/strace_i.h \
	src/import/strace_import.h \
	src/import/imp_i.h \
	src/import/strace_parse.c \
	src/import/strace_ns.c \
	src/import/strace_calls_i.h \
	src/import/strace_calls.c \
	src/import/strace_calls_io.c \
	src/import/strace_calls_dir.c \
	src/import/strace_calls_attr.c \
	src/import/strace_proc.c \
	src/import/strace_lines.c \
	src/import/strace_summary.c \
	src/import/strace_import.c
libimport_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
IMPORT_LIBS = libimport.a $(FSTAP_LIBS)

fstap_LDADD += libimport.a

# Unit test of the strace line parser and of small logs imported whole.
check_PROGRAMS += tests/unit/check_strace_import
TESTS += tests/unit/check_strace_import
UNIT_TESTS += tests/unit/check_strace_import
tests_unit_check_strace_import_SOURCES = tests/unit/check_strace_import.c
tests_unit_check_strace_import_CPPFLAGS = $(AM_CPPFLAGS)
tests_unit_check_strace_import_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_strace_import_LDADD = $(IMPORT_LIBS) $(CHECK_LIBS)

# t3100's program of the calls common tools do not make (openat2, mknod, utimes...).
check_PROGRAMS += tests/tools/fs-calls
tests_tools_fs_calls_SOURCES = tests/tools/fs-calls.c

IMPORT_TESTS = tests/integration/t3100-import-strace.sh
TESTS += $(IMPORT_TESTS)
EXTRA_DIST += $(IMPORT_TESTS) docs/sharing.md
