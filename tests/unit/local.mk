# tests/unit/local.mk: the unit tests, one check suite per module, each
# program tests/unit/check_NAME built from check_NAME.c (and the fixtures
# where it says so) and linked against the libraries of the module it
# tests; the flags are every part's (AM_CFLAGS). CK_FORK=no runs a suite
# in-process (for gdb or valgrind).
UNIT_FIXTURES = tests/unit/fixtures.c tests/unit/fixtures.h
EXTRA_DIST += tests/unit/require.h

# libfstap: the trace format, its reader and writer, JSON Lines, the path
# map, the sorter, the shared pieces.
LIB_UNIT_TESTS = tests/unit/check_trace_format tests/unit/check_trace_rw \
	tests/unit/check_jsonl tests/unit/check_pathmap tests/unit/check_sort \
	tests/unit/check_output tests/unit/check_devnode \
	tests/unit/check_fileattr tests/unit/check_xattr tests/unit/check_util \
	tests/unit/check_name
LIB_UNIT_LDADD = $(FSTAP_LIBS) $(CHECK_LIBS)
tests_unit_check_trace_format_SOURCES = tests/unit/check_trace_format.c $(UNIT_FIXTURES)
tests_unit_check_trace_format_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_trace_rw_SOURCES = tests/unit/check_trace_rw.c $(UNIT_FIXTURES)
tests_unit_check_trace_rw_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_jsonl_SOURCES = tests/unit/check_jsonl.c $(UNIT_FIXTURES)
tests_unit_check_jsonl_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_pathmap_SOURCES = tests/unit/check_pathmap.c $(UNIT_FIXTURES)
tests_unit_check_pathmap_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_sort_SOURCES = tests/unit/check_sort.c $(UNIT_FIXTURES)
tests_unit_check_sort_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_fileattr_SOURCES = tests/unit/check_fileattr.c $(UNIT_FIXTURES)
tests_unit_check_fileattr_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_output_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_devnode_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_xattr_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_util_LDADD = $(LIB_UNIT_LDADD)
tests_unit_check_name_LDADD = $(LIB_UNIT_LDADD)

# The strace importer: its line parser and small logs imported whole.
IMPORT_UNIT_TESTS = tests/unit/check_strace_import
tests_unit_check_strace_import_LDADD = $(IMPORT_LIBS) $(CHECK_LIBS)

# The recorder: the passthrough operations on a temporary directory, and
# the synchronous-write tracking.
RECORD_UNIT_TESTS = tests/unit/check_passthrough tests/unit/check_syncw
RECORD_UNIT_LDADD = librecord.a $(FSTAP_LIBS) $(FUSE_LIBS) $(CHECK_LIBS)
tests_unit_check_passthrough_LDADD = $(RECORD_UNIT_LDADD)
tests_unit_check_syncw_LDADD = $(RECORD_UNIT_LDADD)

# The analysis commands.
ANALYSIS_UNIT_TESTS = tests/unit/check_rank tests/unit/check_reorder tests/unit/check_order \
	tests/unit/check_anonymize tests/unit/check_objtab tests/unit/check_report
ANALYSIS_UNIT_LDADD = libanalysis.a $(FSTAP_LIBS) $(CRYPTO_LIBS) $(CHECK_LIBS) -lm
tests_unit_check_rank_LDADD = $(ANALYSIS_UNIT_LDADD)
tests_unit_check_reorder_LDADD = $(ANALYSIS_UNIT_LDADD)
tests_unit_check_order_LDADD = $(ANALYSIS_UNIT_LDADD)
tests_unit_check_anonymize_LDADD = $(ANALYSIS_UNIT_LDADD)
tests_unit_check_objtab_LDADD = $(ANALYSIS_UNIT_LDADD)
tests_unit_check_report_SOURCES = tests/unit/check_report.c $(UNIT_FIXTURES)
tests_unit_check_report_LDADD = $(ANALYSIS_UNIT_LDADD)

# prepare's plan, and the replay's modules.
PREPARE_UNIT_TESTS = tests/unit/check_prepare
tests_unit_check_prepare_LDADD = libprepare.a $(FSTAP_LIBS) $(CHECK_LIBS)
REPLAY_UNIT_TESTS = tests/unit/check_stats tests/unit/check_timing \
	tests/unit/check_classify tests/unit/check_task tests/unit/check_sched \
	tests/unit/check_exec tests/unit/check_clone tests/unit/check_split \
	tests/unit/check_plan tests/unit/check_deps tests/unit/check_handles
REPLAY_UNIT_LDADD = libreplay.a $(FSTAP_LIBS) $(CHECK_LIBS) -lm
tests_unit_check_stats_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_timing_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_classify_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_task_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_sched_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_exec_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_clone_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_split_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_plan_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_deps_LDADD = $(REPLAY_UNIT_LDADD)
tests_unit_check_handles_LDADD = $(REPLAY_UNIT_LDADD)

# compare's pure parts and the disk models.
COMPARE_UNIT_TESTS = tests/unit/check_compare tests/unit/check_compare_stats
tests_unit_check_compare_LDADD = libcompare.a $(FSTAP_LIBS) $(CHECK_LIBS) -lm
tests_unit_check_compare_stats_LDADD = libcompare.a $(FSTAP_LIBS) $(CHECK_LIBS) -lm
DISK_UNIT_TESTS = tests/unit/check_disk_model
tests_unit_check_disk_model_LDADD = libdisk.a $(CHECK_LIBS) -lm

ALL_UNIT_TESTS = $(LIB_UNIT_TESTS) $(IMPORT_UNIT_TESTS) $(RECORD_UNIT_TESTS) \
	$(ANALYSIS_UNIT_TESTS) $(PREPARE_UNIT_TESTS) $(REPLAY_UNIT_TESTS) \
	$(COMPARE_UNIT_TESTS) $(DISK_UNIT_TESTS)
UNIT_TESTS += $(ALL_UNIT_TESTS)
check_PROGRAMS += $(ALL_UNIT_TESTS)
TESTS += $(ALL_UNIT_TESTS)
