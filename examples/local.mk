# examples/: runnable workloads that imitate the field's classic cases (see
# examples/README.md). Built with `make` (not installed): C programs using
# only libc and pthreads, sharing examples/common.{h,c}.
EXAMPLES_COMMON = examples/common.h examples/common.c examples/common_sys.c
noinst_PROGRAMS += \
	examples/news-spool \
	examples/index-update \
	examples/samba-xattr \
	examples/mdtest \
	examples/mixed
examples_news_spool_SOURCES = examples/news-spool.c $(EXAMPLES_COMMON)
examples_index_update_SOURCES = examples/index-update.c $(EXAMPLES_COMMON)
examples_samba_xattr_SOURCES = examples/samba-xattr.c $(EXAMPLES_COMMON)
examples_mdtest_SOURCES = examples/mdtest.c $(EXAMPLES_COMMON)
examples_mixed_SOURCES = examples/mixed.c $(EXAMPLES_COMMON)
EXTRA_DIST += examples/README.md examples/demo.sh examples/demo-disk.sh examples/traces/small.jsonl
