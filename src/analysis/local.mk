# libanalysis: fstap report, reorder and filter (src/analysis/analysis.h):
# rank statistics, the object table, the report model and its renderers,
# the reorder plan and the filter, their commands and their tests.
noinst_LIBRARIES += libanalysis.a
libanalysis_a_SOURCES = \
	src/analysis/analysis.h \
	src/analysis/rank.c \
	src/analysis/objtab.c \
	src/analysis/util.c \
	src/analysis/order.c \
	src/analysis/report_i.h \
	src/analysis/report.c \
	src/analysis/report_json.c \
	src/analysis/report_order.c \
	src/analysis/report_text.c \
	src/analysis/filter.c \
	src/analysis/reorder_i.h \
	src/analysis/reorder_group.c \
	src/analysis/reorder_order.c \
	src/analysis/reorder_plan.c \
	src/analysis/reorder.c \
	src/analysis/listing.c \
	src/analysis/anonymize.h \
	src/analysis/anon_token.c \
	src/analysis/anon_sorted.c \
	src/analysis/anonymize.c
libanalysis_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(CRYPTO_CFLAGS)

fstap_SOURCES += src/cli/cmd-report.c src/cli/cmd-filter.c src/cli/cmd-reorder.c \
	src/cli/cmd-anonymize.c
fstap_LDADD += libanalysis.a $(FSTAP_LIBS) $(CRYPTO_LIBS) -lm

ANALYSIS_UNIT_TESTS = tests/unit/check_rank tests/unit/check_reorder tests/unit/check_order \
	tests/unit/check_anonymize tests/unit/check_objtab tests/unit/check_report
check_PROGRAMS += $(ANALYSIS_UNIT_TESTS)
TESTS += $(ANALYSIS_UNIT_TESTS)
UNIT_TESTS += $(ANALYSIS_UNIT_TESTS)
ANALYSIS_UNIT_LDADD = libanalysis.a $(FSTAP_LIBS) $(CRYPTO_LIBS) $(CHECK_LIBS) -lm

tests_unit_check_rank_SOURCES = tests/unit/check_rank.c
tests_unit_check_rank_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_check_rank_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_rank_LDADD = $(ANALYSIS_UNIT_LDADD)

tests_unit_check_reorder_SOURCES = tests/unit/check_reorder.c
tests_unit_check_reorder_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_check_reorder_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_reorder_LDADD = $(ANALYSIS_UNIT_LDADD)

tests_unit_check_order_SOURCES = tests/unit/check_order.c
tests_unit_check_order_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_check_order_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_order_LDADD = $(ANALYSIS_UNIT_LDADD)

tests_unit_check_objtab_SOURCES = tests/unit/check_objtab.c
tests_unit_check_objtab_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_check_objtab_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_objtab_LDADD = $(ANALYSIS_UNIT_LDADD)

tests_unit_check_report_SOURCES = tests/unit/check_report.c $(UNIT_FIXTURES)
tests_unit_check_report_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_check_report_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_report_LDADD = $(ANALYSIS_UNIT_LDADD)

tests_unit_check_anonymize_SOURCES = tests/unit/check_anonymize.c
tests_unit_check_anonymize_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_unit_check_anonymize_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_check_anonymize_LDADD = $(ANALYSIS_UNIT_LDADD)

ANALYSIS_TESTS = \
	tests/integration/t3000-report-order.sh \
	tests/integration/t3010-filter.sh \
	tests/integration/t3020-reorder.sh \
	tests/integration/t3030-report-order-recorded.sh \
	tests/integration/t3040-report-order-xproc.sh \
	tests/integration/t3050-reorder-bounded-memory.sh \
	tests/integration/t3060-reorder-target.sh \
	tests/integration/t3070-analysis-forgotten-objects.sh \
	tests/integration/t3200-anonymize.sh \
	tests/integration/t3210-anonymize-order.sh
TESTS += $(ANALYSIS_TESTS)
EXTRA_DIST += $(ANALYSIS_TESTS) docs/analysis.md
