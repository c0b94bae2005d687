# bench/: benchmarks whose figures go to docs/PERFORMANCE.md. Built with
# `make` (not installed); run with bench/run-trace-bench.sh (bench/README.md).
noinst_PROGRAMS += trace-bench
trace_bench_SOURCES = bench/trace-bench.c
trace_bench_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
trace_bench_LDADD = $(FSTAP_LIBS)
EXTRA_DIST += bench/README.md bench/run-trace-bench.sh docs/PERFORMANCE.md
