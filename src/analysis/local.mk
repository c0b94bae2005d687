# libanalysis: fstap report, reorder and filter (src/analysis/analysis.h):
# rank statistics, the object table, the report model and its renderers,
# the reorder plan, the filter and the anonymizer, and their commands.
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
libanalysis_a_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)

fstap_SOURCES += src/cli/cmd-report.c src/cli/cmd-filter.c src/cli/cmd-reorder.c \
	src/cli/cmd-anonymize.c
fstap_LDADD += libanalysis.a $(FSTAP_LIBS) $(CRYPTO_LIBS) -lm

