# Unit tests: one check suite per module, linked against the libraries the
# binary uses. CK_FORK=no runs them in-process (for gdb or valgrind).
UNIT_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
UNIT_LDADD = $(FSTAP_LIBS) $(CHECK_LIBS)
UNIT_FIXTURES = tests/unit/fixtures.c tests/unit/fixtures.h

LIB_UNIT_TESTS = tests/unit/check_trace_format tests/unit/check_trace_rw \
	tests/unit/check_jsonl tests/unit/check_pathmap tests/unit/check_sort \
	tests/unit/check_output tests/unit/check_devnode \
	tests/unit/check_fileattr tests/unit/check_xattr tests/unit/check_util \
	tests/unit/check_name
check_PROGRAMS += $(LIB_UNIT_TESTS)
TESTS += $(LIB_UNIT_TESTS)
UNIT_TESTS += $(LIB_UNIT_TESTS)

tests_unit_check_trace_format_SOURCES = tests/unit/check_trace_format.c $(UNIT_FIXTURES)
tests_unit_check_trace_format_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_trace_format_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_trace_format_LDADD = $(UNIT_LDADD)

tests_unit_check_trace_rw_SOURCES = tests/unit/check_trace_rw.c $(UNIT_FIXTURES)
tests_unit_check_trace_rw_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_trace_rw_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_trace_rw_LDADD = $(UNIT_LDADD)

tests_unit_check_jsonl_SOURCES = tests/unit/check_jsonl.c $(UNIT_FIXTURES)
tests_unit_check_jsonl_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_jsonl_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_jsonl_LDADD = $(UNIT_LDADD)

tests_unit_check_pathmap_SOURCES = tests/unit/check_pathmap.c $(UNIT_FIXTURES)
tests_unit_check_pathmap_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_pathmap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_pathmap_LDADD = $(UNIT_LDADD)

tests_unit_check_fileattr_SOURCES = tests/unit/check_fileattr.c $(UNIT_FIXTURES)
tests_unit_check_fileattr_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_fileattr_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_fileattr_LDADD = $(UNIT_LDADD)

tests_unit_check_util_SOURCES = tests/unit/check_util.c
tests_unit_check_util_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_util_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_util_LDADD = $(UNIT_LDADD)

tests_unit_check_name_SOURCES = tests/unit/check_name.c
tests_unit_check_name_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_name_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_name_LDADD = $(UNIT_LDADD)

tests_unit_check_xattr_SOURCES = tests/unit/check_xattr.c
tests_unit_check_xattr_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_xattr_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_xattr_LDADD = $(UNIT_LDADD)

tests_unit_check_sort_SOURCES = tests/unit/check_sort.c $(UNIT_FIXTURES)
tests_unit_check_sort_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_sort_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_sort_LDADD = $(UNIT_LDADD)

tests_unit_check_output_SOURCES = tests/unit/check_output.c
tests_unit_check_output_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_output_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_output_LDADD = $(UNIT_LDADD)

tests_unit_check_devnode_SOURCES = tests/unit/check_devnode.c
tests_unit_check_devnode_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_devnode_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_devnode_LDADD = $(UNIT_LDADD)
EXTRA_DIST += tests/unit/require.h
