/*
 * context.c: the per-worker execution context (struct rp_exec,
 * thread-local): the I/O buffers (reads, listings and xattr values; the
 * pseudo-random data writes send: shared, made before the run's clock
 * starts, a buffer of its own for a longer write), and a per-thread
 * working directory (unshare(CLONE_FS)) so that the path-based xattr calls
 * can be issued on single names.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_i.h"

int rp_grow_buf(uint8_t **buf, size_t *cap, size_t need, bool random)
{
	size_t c;
	void *p;

	if (need <= *cap)
		return 0;	/* (every read and write but the first few: first) */
	c = fstap_grow_size(*cap, need, 65536);
	if (need > RP_IO_MAX)
		return -EINVAL;
	if (posix_memalign(&p, 4096, c))
		return -ENOMEM;
	if (random) {
		uint64_t s = 0x9e3779b97f4a7c15ULL ^ (uint64_t)c;

		fstap_fill_random(p, c / 8, &s);
	}
	free(*buf);
	*buf = p;
	*cap = c;
	return 0;
}

int rp_write_data(struct rp_exec *x, size_t size, const uint8_t **data)
{
	int ret;

	if (size <= RND_SIZE) {
		*data = x->sh->rnd;
		return 0;
	}
	if ((ret = rp_grow_buf(&x->rnd, &x->rndcap, size, true)))
		return ret;
	*data = x->rnd;
	return 0;
}

int rp_exec_new(struct rp_shared *sh, struct rp_stats *st, struct rp_exec **out)
{
	struct rp_exec *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->sh = sh;
	x->st = st;
	if (rp_grow_buf(&x->buf, &x->bufcap, DENTS_BUF, false)) {
		rp_exec_free(x);
		return -ENOMEM;
	}
	/* A working directory of this thread's own, for the l*xattr calls. */
	x->own_fs = unshare(CLONE_FS) == 0;
	*out = x;
	return 0;
}

void rp_exec_free(struct rp_exec *x)
{
	if (!x)
		return;
	rp_exec_drop_dirs(x);
	free(x->buf);
	free(x->rnd);
	free(x);
}
