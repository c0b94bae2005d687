/*
 * shared.c: the state of one run shared by the workers (struct rp_shared):
 * its settings, and the recorded handle -> live descriptor table, whose
 * entries are reference counted so that a close never happens under
 * another worker's system call.
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
	if ((ret = rp_foreign_snapshot(sh))) {
		free(sh);
		return ret;
	}
	sh->dserial = 1;	/* 1 is the root */
	pthread_mutex_init(&sh->dmu, NULL);
	pthread_mutex_init(&sh->mu, NULL);
	pthread_mutex_init(&sh->omu, NULL);
	fstap_map_init(&sh->handles);
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

/* Closes h's descriptor and frees its listing: h is no one's any more. */
static void handle_close(struct rp_handle *h)
{
	if (h->fd >= 0)
		close(h->fd);
	if (h->dir)
		pthread_mutex_destroy(&h->mu);
	if (h->names || h->name_off || h->name_buf || h->seen) {	/* a directory listed */
		free(h->names);
		free(h->name_off);
		free(h->name_buf);
		free(h->seen);
	}
}

/*
 * An executor keeps the handles it closed, up to SPARE_MAX, for its next
 * opens: an open and its release then cost no malloc and free (a thread
 * that closes more than it opens frees the rest).
 */
#define SPARE_MAX 64

static void handle_spare(struct rp_exec *x, struct rp_handle *h)
{
	if (x->nspare >= SPARE_MAX) {
		free(h);
		return;
	}
	h->next_free = x->spare;
	x->spare = h;
	x->nspare++;
}

void rp_exec_free_spares(struct rp_exec *x)
{
	while (x->spare) {
		struct rp_handle *h = x->spare;

		x->spare = h->next_free;
		free(h);
	}
	x->nspare = 0;
}

void rp_shared_free(struct rp_shared *sh)
{
	size_t i;

	if (!sh)
		return;
	rp_dircache_clear(sh);
	while (sh->nsq) {
		struct rp_nschange *c = sh->nsq;

		sh->nsq = c->next;
		free(c);
	}
	pthread_mutex_destroy(&sh->dmu);
	for (i = 0; i < sh->handles.cap; i++)
		if (sh->handles.keys[i]) {
			handle_close((struct rp_handle *)(uintptr_t)sh->handles.vals[i]);
			free((void *)(uintptr_t)sh->handles.vals[i]);
		}
	fstap_map_release(&sh->handles);
	fstap_map_release(&sh->order);
	free(sh->foreign);
	pthread_mutex_destroy(&sh->mu);
	pthread_mutex_destroy(&sh->omu);
	free(sh);
}

size_t rp_shared_open_handles(const struct rp_shared *sh)
{
	return sh->handles.n;
}
/* Takes a reference to the live handle of recorded fh, or NULL. */
struct rp_handle *rp_handle_get(struct rp_shared *sh, uint64_t fh)
{
	struct rp_handle *h = NULL;
	uint64_t *v;

	pthread_mutex_lock(&sh->mu);
	v = fstap_map_get(&sh->handles, fh + 1);
	if (v) {
		h = (struct rp_handle *)(uintptr_t)*v;
		atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&sh->mu);
	return h;
}

void rp_handle_put(struct rp_exec *x, struct rp_handle *h)
{
	if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) == 1) {
		handle_close(h);
		handle_spare(x, h);
	}
}

/* Maps recorded fh to fd (taken). A stale mapping of the same fh is dropped. */
int rp_handle_add(struct rp_exec *x, uint64_t fh, int fd, bool dir)
{
	struct rp_shared *sh = x->sh;
	struct rp_handle *h = x->spare, *old = NULL;
	uint64_t *v;
	int ret = 0;

	if (h) {
		x->spare = h->next_free;
		x->nspare--;
	} else {
		h = malloc(sizeof(*h));	/* (not calloc: glibc's skips the thread's cache) */
	}
	if (!h || fh == UINT64_MAX) {
		free(h);
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	*h = (struct rp_handle){ .fd = fd, .dir = dir };
	atomic_init(&h->refs, 1);
	if (dir)
		pthread_mutex_init(&h->mu, NULL);
	pthread_mutex_lock(&sh->mu);
	if ((v = fstap_map_get(&sh->handles, fh + 1))) {
		old = (struct rp_handle *)(uintptr_t)*v;
		*v = (uint64_t)(uintptr_t)h;
	} else {
		ret = fstap_map_put(&sh->handles, fh + 1, (uint64_t)(uintptr_t)h);
	}
	pthread_mutex_unlock(&sh->mu);
	if (old)
		rp_handle_put(x, old);
	if (ret) {
		handle_close(h);
		handle_spare(x, h);
	}
	return ret;
}

/* Forgets recorded fh; the descriptor closes when its last user is done. */
bool rp_handle_remove(struct rp_exec *x, uint64_t fh)
{
	struct rp_shared *sh = x->sh;
	uint64_t v;
	bool found;

	pthread_mutex_lock(&sh->mu);
	found = fstap_map_del(&sh->handles, fh + 1, &v);
	pthread_mutex_unlock(&sh->mu);
	if (found)
		rp_handle_put(x, (struct rp_handle *)(uintptr_t)v);
	return found;
}

/*
 * The live handle of recorded fh for an executor that issues I/O on it
 * (reference taken), or NULL with *res the executor's result: RP_E_UNKNOWN
 * for a handle never opened, RP_E_DEVICE_IO for the open of a device node
 * the replay refused (what is done through it is not issued either).
 */
struct rp_handle *rp_io_handle(struct rp_exec *x, uint64_t fh, int64_t *res)
{
	struct rp_handle *h = rp_handle_get(x->sh, fh);

	if (!h) {
		*res = RP_E_UNKNOWN;
		return NULL;
	}
	if (h->fd < 0) {
		rp_handle_put(x, h);
		*res = RP_E_DEVICE_IO;
		return NULL;
	}
	return h;
}
