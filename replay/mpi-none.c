/*
 * mpi-none.c: `fstap replay --mpi` in a build without MPI (configure found
 * no Open MPI, or --with-mpi=no): every call says so in one error line.
 * replay/mpi.c replaces this file in a build with MPI.
 */
#include <errno.h>

#include "fstap/log.h"
#include "replay_i.h"

static int no_mpi(void)
{
	return fstap_error(-ENOTSUP, "--mpi: this fstap was built without MPI "
			   "(install libopenmpi-dev and configure --with-mpi)");
}

int rp_mpi_init(int *rank, int *size)
{
	*rank = 0;
	*size = 1;
	return no_mpi();
}

int rp_mpi_run(const struct rp_options *o, enum rp_split split, const char *map,
	       struct rp_result **out)
{
	(void)o;
	(void)split;
	(void)map;
	(void)out;
	return no_mpi();
}

int rp_mpi_agree(int ret, const char *what)
{
	(void)ret;
	(void)what;
	return no_mpi();
}

void rp_mpi_finalize(void)
{
}
