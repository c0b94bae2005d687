# bench/: benchmarks whose figures go to docs/PERFORMANCE.md. Built with
# `make` (not installed); run with bench/run-trace-bench.sh (bench/README.md).
noinst_PROGRAMS += trace-bench
trace_bench_SOURCES = bench/trace-bench.c
trace_bench_LDADD = $(FSTAP_LIBS)
EXTRA_DIST += bench/README.md bench/run-trace-bench.sh docs/PERFORMANCE.md
# bench/record-bench.sh: the recording overhead (docs/PERFORMANCE.md);
# bench/record-fidelity.sh: requests per application call (docs/recording.md)
noinst_PROGRAMS += mdphase
mdphase_SOURCES = bench/mdphase.c
EXTRA_DIST += bench/record-bench.sh bench/record-bench-summary.py bench/record-ab.sh bench/record-many-files.sh \
	bench/record-instr.sh bench/record-perreq.sh bench/lib-daemon.sh \
	bench/record-fidelity.sh bench/record-fidelity-count.py bench/record-mdbench.py
# bench/replay-fidelity.sh: system calls per class, application against
# replay (docs/replay.md, "Fidelity: system calls per class")
EXTRA_DIST += bench/replay-fidelity.sh bench/replay-fidelity-count.py
# bench/replay-overhead.sh: replay (afap, tmpfs) against replay-direct, the
# same system calls issued directly; bench/replay-timing.sh: --pace=orig
# whole-run timing error on loop-mounted ext4 (docs/PERFORMANCE.md)
noinst_PROGRAMS += replay-direct
replay_direct_SOURCES = bench/replay-direct.c
replay_direct_LDADD = -lpthread
EXTRA_DIST += bench/replay-overhead.sh bench/replay-timing.sh
# bench/disk-model.sh: fio on fstap disk against the model's own figures
# (disk-expect) and the plain loop device (docs/PERFORMANCE.md)
noinst_PROGRAMS += disk-expect
disk_expect_SOURCES = bench/disk-expect.c
disk_expect_LDADD = libdisk.a -lm
EXTRA_DIST += bench/disk-model.sh bench/seed-spool.sh
# bench/compare-calibration.sh: false alarms of compare's verdicts (A/A) and
# the share of a known slowdown (-o sync, or a slower modeled disk) found
# (docs/PERFORMANCE.md)
EXTRA_DIST += bench/compare-calibration.sh
# bench/scale.sh: peak RSS and records/s of every command on traces of 1, 10
# and 100 M records from trace-bench --rounds (docs/PERFORMANCE.md)
EXTRA_DIST += bench/scale.sh
