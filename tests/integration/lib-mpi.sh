# lib-mpi.sh: helpers for the tests of `fstap replay --mpi` (sourced after
# lib.sh). They need a build with MPI (configure found Open MPI) and mpirun
# (Debian's openmpi-bin): without either they skip, which fails under CI.

if ! command -v mpirun >/dev/null 2>&1; then
	skip "mpirun is needed (apt-get install openmpi-bin)"
fi
if [ -n "${FSTAP_BUILDDIR:-}" ] && ! grep -q '^#define HAVE_MPI 1' "$FSTAP_BUILDDIR/config.h"; then
	skip "fstap is built without MPI (apt-get install libopenmpi-dev, configure --with-mpi)"
fi

# In a build with LeakSanitizer, Open MPI's own allocations kept until exit
# are not fstap's leaks (the ranks inherit the environment). Open MPI has no
# frame pointers: only the slow unwinder at each malloc gives stacks that
# name its libraries, as the suppressions need.
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$FSTAP_SRCDIR/tests/tools/lsan-openmpi.supp:fast_unwind_on_malloc=0"
export LSAN_OPTIONS

# mpirun's options for ranks on this host: as root, more ranks than cores.
MPIRUN_OPTS="--allow-run-as-root --oversubscribe --bind-to none"

# mpi_run NP ARGS...: mpirun of NP ranks on this host, each running ARGS.
mpi_run() {
	_np=$1
	shift
	# shellcheck disable=SC2086
	mpirun $MPIRUN_OPTS -np "$_np" "$@"
}
