/*
 * shared.c: the state of one run shared by the workers (struct rp_shared):
 * its settings, and what it holds for them (the directory cache,
 * dircache.c; the root's entries before the replay). The handles are not
 * here: each task names its own (handles.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "exec_i.h"
int rp_shared_new(int root_fd, struct rp_shared **out)
{
	struct rp_shared *sh = calloc(1, sizeof(*sh));
	int ret;

	if (!sh)
		return -ENOMEM;
	sh->root_fd = root_fd;
	if (rp_grow_buf(&sh->rnd, &(size_t){ 0 }, RND_SIZE, true)) {
		free(sh);
		return -ENOMEM;
	}
	if ((ret = rp_foreign_snapshot(sh))) {
		free(sh->rnd);
		free(sh);
		return ret;
	}
	sh->dserial = 1;	/* 1 is the root */
	pthread_mutex_init(&sh->dmu, NULL);
	pthread_mutex_init(&sh->omu, NULL);
	fstap_map_init(&sh->order);
	*out = sh;
	return 0;
}

void rp_shared_allow_devices(struct rp_shared *sh, bool on)
{
	sh->devices = on;
}

void rp_shared_set_divlog(struct rp_shared *sh, struct rp_divlog *log)
{
	sh->divlog = log;
}

void rp_shared_track_order(struct rp_shared *sh, bool on)
{
	sh->track_order = on;
}

void rp_shared_free(struct rp_shared *sh)
{
	if (!sh)
		return;
	rp_dircache_clear(sh);
	while (sh->nsq) {
		struct rp_nschange *c = sh->nsq;

		sh->nsq = c->next;
		free(c);
	}
	pthread_mutex_destroy(&sh->dmu);
	fstap_map_release(&sh->order);
	free(sh->foreign);
	free(sh->rnd);
	pthread_mutex_destroy(&sh->omu);
	free(sh);
}
