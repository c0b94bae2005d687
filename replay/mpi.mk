# replay/mpi.mk: `fstap replay --mpi`: replay/mpi.c with Open MPI (configure
# found it: HAVE_MPI), or replay/mpi-none.c, which refuses --mpi, without;
# and the MPI integration tests. Included from Makefile.am after replay.mk.
noinst_LIBRARIES += libreplay_mpi.a
if HAVE_MPI
libreplay_mpi_a_SOURCES = replay/mpi.c replay/mpi-xfer.c
libreplay_mpi_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(MPI_CFLAGS)
fstap_LDADD += libreplay_mpi.a libreplay.a $(MPI_LIBS)
else
libreplay_mpi_a_SOURCES = replay/mpi-none.c
libreplay_mpi_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
fstap_LDADD += libreplay_mpi.a libreplay.a
endif

MPI_INTEGRATION_TESTS = tests/integration/t2410-replay-mpi-clone.sh \
	tests/integration/t2420-replay-mpi-kill.sh \
	tests/integration/t2430-replay-mpi-split.sh \
	tests/integration/t2435-replay-mpi-inherited-fd.sh
TESTS += $(MPI_INTEGRATION_TESTS)
EXTRA_DIST += $(MPI_INTEGRATION_TESTS) tests/integration/lib-mpi.sh tests/tools/lsan-openmpi.supp
