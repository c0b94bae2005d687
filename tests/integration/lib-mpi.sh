# lib-mpi.sh: helpers for the tests of `fstap replay --mpi` (sourced after
# lib.sh). They need a build with MPI (configure found Open MPI) and mpirun
# (Debian's openmpi-bin): without either they skip, which fails under CI.

if ! command -v mpirun >/dev/null 2>&1; then
	skip "mpirun is needed (apt-get install openmpi-bin)"
fi
if [ -n "${FSTAP_BUILDDIR:-}" ] && ! grep -q '^#define HAVE_MPI 1' "$FSTAP_BUILDDIR/config.h"; then
	skip "fstap is built without MPI (apt-get install libopenmpi-dev, configure --with-mpi)"
fi

# mpi_run NP ARGS...: mpirun of NP ranks on this host (as root, more ranks
# than cores allowed), each running ARGS.
mpi_run() {
	_np=$1
	shift
	mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$_np" "$@"
}
