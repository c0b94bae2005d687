# bench/: benchmarks whose figures go to docs/PERFORMANCE.md. Built with
# `make` (not installed); run with bench/run-trace-bench.sh (bench/README.md).
noinst_PROGRAMS += trace-bench
trace_bench_SOURCES = bench/trace-bench.c
trace_bench_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
trace_bench_LDADD = $(FSTAP_LIBS)
EXTRA_DIST += bench/README.md bench/run-trace-bench.sh docs/PERFORMANCE.md
# bench/replay-fidelity.sh: system calls per class, application against
# replay (docs/replay.md, "Fidelity: system calls per class")
EXTRA_DIST += bench/replay-fidelity.sh bench/replay-fidelity-count.py
