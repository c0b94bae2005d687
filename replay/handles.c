/*
 * handles.c: the replay's handles (struct rp_handle), one per recorded
 * open, without a table the executors look up.
 *
 * The dispatcher knows, for every task, which open the task's recorded
 * handle (fh) comes from: the latest open of that fh it dispatched. So it
 * makes the handle object when it dispatches the open and names it in the
 * task (t->h; t->h2 for copy_file_range's second handle), and in every
 * later task that uses that fh, until the release, which takes it out of
 * its table (rp_handles_bind). An executor then finds its descriptor in
 * the task: the open stores it and publishes it (refs from 0 to 1,
 * release order), a user takes a reference while it issues its call (the
 * descriptor is never closed, nor its number reused, under another
 * worker's system call), the release drops the open's reference and the
 * last one closes. No lock, no lookup, no allocation on the way.
 *
 * What a worker finds is what the shared table it replaces gave: a handle
 * whose open has not run, or whose release has, is unknown to a task
 * (RP_E_UNKNOWN); a release of a handle not open is unknown; a second
 * open of a fh not released (its release missing from the trace) drops
 * the first one's (t->h_stale) when it opens.
 *
 * The objects are the dispatcher's: it counts the tasks bound to each
 * (tasks), the executors count them down as they run; one that no new task
 * can name (released, or replaced) is retired, and reused once its count
 * is 0, when no task can reach it any more. Tasks that never run (a failed
 * run skips the rest) keep theirs until the end (rp_handles_release). They
 * come in slabs (a whole trace planned ahead makes one per open before any
 * runs), freed at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_i.h"

#define HANDLE_SLAB 256

struct rp_handle_slab {
	struct rp_handle_slab *next;
	struct rp_handle h[HANDLE_SLAB];
};

/* Closes h's descriptor and frees its listing (its last reference went). */
static void handle_close(struct rp_handle *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	if (h->ls) {
		pthread_mutex_destroy(&h->ls->mu);
		free(h->ls->names);
		free(h->ls->name_off);
		free(h->ls->name_buf);
		free(h->ls->seen);
		free(h->ls);
		h->ls = NULL;
	}
}

/* ---- the executors' side ------------------------------------------------- */

int rp_handle_opened(const struct rp_task *t, int fd, bool dir)
{
	struct rp_handle *h = t->h;

	if (!h) {	/* (a recorded fh of UINT64_MAX: none bound) */
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	if (dir && !(h->ls = calloc(1, sizeof(*h->ls)))) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	if (h->ls)
		pthread_mutex_init(&h->ls->mu, NULL);
	h->fd = fd;
	h->dir = dir;
	atomic_store_explicit(&h->refs, 1, memory_order_release);
	rp_handle_release(t->h_stale);	/* the fh is this open's from now on */
	return 0;
}

struct rp_handle *rp_handle_use(struct rp_handle *h)
{
	int r;

	if (!h)
		return NULL;
	r = atomic_load_explicit(&h->refs, memory_order_acquire);
	do {
		if (r <= 0)
			return NULL;	/* not open yet, or closed */
	} while (!atomic_compare_exchange_weak_explicit(&h->refs, &r, r + 1, memory_order_acquire,
							memory_order_acquire));
	if (atomic_load_explicit(&h->released, memory_order_acquire)) {
		rp_handle_put(h);
		return NULL;
	}
	return h;
}

void rp_handle_put(struct rp_handle *h)
{
	if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) == 1)
		handle_close(h);
}

bool rp_handle_release(struct rp_handle *h)
{
	if (!h || atomic_load_explicit(&h->refs, memory_order_acquire) <= 0 ||
	    atomic_exchange_explicit(&h->released, true, memory_order_acq_rel))
		return false;
	rp_handle_put(h);	/* the open's own reference */
	return true;
}

struct rp_handle *rp_io_handle(struct rp_handle *h, int64_t *res)
{
	if (!(h = rp_handle_use(h))) {
		*res = RP_E_UNKNOWN;
		return NULL;
	}
	if (h->fd < 0) {
		rp_handle_put(h);
		*res = RP_E_DEVICE_IO;
		return NULL;
	}
	return h;
}

void rp_handles_ran(const struct rp_task *t)
{
	if (t->h)
		atomic_fetch_sub_explicit(&t->h->tasks, 1, memory_order_release);
	if (t->h2)
		atomic_fetch_sub_explicit(&t->h2->tasks, 1, memory_order_release);
	if (t->h_stale)
		atomic_fetch_sub_explicit(&t->h_stale->tasks, 1, memory_order_release);
}

/* ---- the dispatcher's side ------------------------------------------------ */

void rp_handles_init(struct rp_handles *hs)
{
	memset(hs, 0, sizeof(*hs));
	fstap_map_init(&hs->live);
}

/* No new task names h: it is reused once the tasks that do have run. */
static void handle_retire(struct rp_handles *hs, struct rp_handle *h)
{
	h->next = NULL;
	if (hs->retired_tail)
		hs->retired_tail->next = h;
	else
		hs->retired = h;
	hs->retired_tail = h;
}

/*
 * Retired handles whose tasks have all run become spares (the oldest
 * first, up to one still named): an open the replay made that no release
 * closed (its release ran before it, out of order) closes now.
 */
static void handles_reclaim(struct rp_handles *hs)
{
	struct rp_handle *h;

	while ((h = hs->retired) &&
	       !atomic_load_explicit(&h->tasks, memory_order_acquire)) {
		hs->retired = h->next;
		if (!hs->retired)
			hs->retired_tail = NULL;
		if (atomic_load_explicit(&h->refs, memory_order_relaxed) > 0)
			handle_close(h);
		h->next = hs->spare;
		hs->spare = h;
	}
}

/* A handle not yet open, for an open's task; NULL on -ENOMEM. */
static struct rp_handle *handle_new(struct rp_handles *hs)
{
	struct rp_handle *h;

	if (!hs->spare)
		handles_reclaim(hs);
	if ((h = hs->spare)) {
		hs->spare = h->next;
	} else {
		if (!hs->slabs || hs->slab_used == HANDLE_SLAB) {
			struct rp_handle_slab *s = malloc(sizeof(*s));

			if (!s)
				return NULL;
			s->next = hs->slabs;
			hs->slabs = s;
			hs->slab_used = 0;
		}
		h = &hs->slabs->h[hs->slab_used++];
	}
	h->next = NULL;
	atomic_init(&h->tasks, 0);
	atomic_init(&h->refs, 0);
	atomic_init(&h->released, false);
	h->dir = false;
	h->fd = -1;
	h->ls = NULL;
	return h;
}

/* h, named by one more task (NULL: none). */
static struct rp_handle *bound(struct rp_handle *h)
{
	if (h)
		atomic_fetch_add_explicit(&h->tasks, 1, memory_order_relaxed);
	return h;
}

int rp_handles_bind(struct rp_handles *hs, struct rp_task *t)
{
	const struct fstap_op_info *oi = fstap_op_info(t->rec.op);
	unsigned op = t->rec.op;
	uint64_t key = t->rec.fh + 1, *v, old;
	struct rp_handle *h;

	t->h = t->h2 = t->h_stale = NULL;
	switch (op) {
	case FSTAP_OP_OPEN:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_OPENDIR:
		if (!key)
			return 0;	/* (the open fails: see rp_handle_opened) */
		if (!(h = handle_new(hs)))
			return -ENOMEM;
		if ((v = fstap_map_get(&hs->live, key))) {
			t->h_stale = bound((struct rp_handle *)(uintptr_t)*v);
			handle_retire(hs, t->h_stale);
			*v = (uint64_t)(uintptr_t)h;
		} else if (fstap_map_put(&hs->live, key, (uint64_t)(uintptr_t)h)) {
			h->next = hs->spare;
			hs->spare = h;
			return -ENOMEM;
		}
		t->h = bound(h);
		return 0;
	case FSTAP_OP_RELEASE:
	case FSTAP_OP_RELEASEDIR:
		if (fstap_map_del(&hs->live, key, &old)) {
			t->h = bound((struct rp_handle *)(uintptr_t)old);
			handle_retire(hs, t->h);
		}
		return 0;
	default:
		break;
	}
	/* a getattr or setattr names a handle when it has one (fstat, ftruncate) */
	if ((oi && (oi->props & FSTAP_OPP_HANDLE)) ||
	    ((op == FSTAP_OP_GETATTR || op == FSTAP_OP_SETATTR) && t->rec.fh)) {
		t->h = bound(fstap_map_get_ptr(&hs->live, key));
		if (op == FSTAP_OP_COPY_FILE_RANGE)
			t->h2 = bound(fstap_map_get_ptr(&hs->live, t->rec.fh2 + 1));
	}
	return 0;
}

size_t rp_handles_open(const struct rp_handles *hs)
{
	size_t pos = 0, n = 0;
	uint64_t v;

	while (fstap_map_next(&hs->live, &pos, NULL, &v)) {
		struct rp_handle *h = (struct rp_handle *)(uintptr_t)v;

		n += atomic_load(&h->refs) > 0 && !atomic_load(&h->released);
	}
	return n;
}

void rp_handles_release(struct rp_handles *hs)
{
	struct rp_handle_slab *s;
	unsigned i, n = hs->slab_used;

	for (s = hs->slabs; s; s = hs->slabs, n = HANDLE_SLAB) {
		for (i = 0; i < n; i++)
			if (atomic_load(&s->h[i].refs) > 0)
				handle_close(&s->h[i]);	/* (no release ran: closed now) */
		hs->slabs = s->next;
		free(s);
	}
	fstap_map_release(&hs->live);
	rp_handles_init(hs);
}
