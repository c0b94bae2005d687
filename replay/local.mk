# replay/local.mk: `fstap prepare` (recreating a trace's initial state in an
# empty directory: the plan, pure, and its execution beneath the target)
# and `fstap replay` (the replay engine, libreplay.a), with `--mpi`:
# replay/mpi.c with Open MPI (configure found it: HAVE_MPI), else
# replay/mpi-none.c, which refuses --mpi. Their tests are listed in
# tests/unit/local.mk and tests/integration/local.mk.
noinst_LIBRARIES += libprepare.a
libprepare_a_SOURCES = \
	replay/prepare.h \
	replay/prepare-dir.c \
	replay/prepare-plan.c \
	replay/prepare.c
fstap_SOURCES += src/cli/cmd-prepare.c
fstap_LDADD += libprepare.a $(FSTAP_LIBS)

noinst_LIBRARIES += libreplay.a
libreplay_a_SOURCES = \
	replay/replay.h \
	replay/replay_i.h \
	replay/stats.c \
	replay/divlog.c \
	replay/timing.c \
	replay/races.c \
	replay/task.c \
	replay/plan.c \
	replay/exec_i.h \
	replay/shared.c \
	replay/handles.c \
	replay/dircache.c \
	replay/context.c \
	replay/paths.c \
	replay/exec-ns.c \
	replay/exec-file.c \
	replay/exec-dir.c \
	replay/exec-xattr.c \
	replay/exec.c \
	replay/classify.c \
	replay/run_i.h \
	replay/options.c \
	replay/stage.c \
	replay/dispatch.c \
	replay/borrowed.c \
	replay/deps.c \
	replay/learn.c \
	replay/worker.c \
	replay/run.c \
	replay/report.c \
	replay/cgroup.c \
	replay/clone.c \
	replay/split.c \
	replay/durable.c
fstap_SOURCES += src/cli/cmd-replay.c
fstap_LDADD += libreplay.a $(FSTAP_LIBS) -lm

noinst_LIBRARIES += libreplay_mpi.a
if HAVE_MPI
libreplay_mpi_a_SOURCES = replay/mpi.c replay/mpi-xfer.c
libreplay_mpi_a_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
fstap_LDADD += libreplay_mpi.a libreplay.a $(MPI_LIBS)
else
libreplay_mpi_a_SOURCES = replay/mpi-none.c
fstap_LDADD += libreplay_mpi.a libreplay.a
endif
