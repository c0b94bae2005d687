/*
 * task.c: the tasks the dispatcher hands to the workers (a deep copy of one
 * operation record, see struct rp_task), and the arena they are allocated
 * from.
 *
 * A replay allocates and frees a task, and its resolved paths, for each of
 * millions of records, and they come and go nearly in order: read, held in
 * the reorder window, dispatched, executed, freed. malloc and free cost as
 * much as the rest of the dispatcher's work on a record, so the arena hands
 * out memory from blocks of ARENA_BLOCK bytes by bumping a pointer, counts
 * what is live in each block, and reuses or frees a block once its count
 * falls to zero. A block is aligned to its size, so a pointer finds its
 * block by masking. Allocations are cache-line aligned: the dispatcher
 * writes the next task while a worker on another CPU reads this one, and
 * sharing a line would move it back and forth between their caches.
 *
 * Larger allocations than a block holds (the task of a huge readdir) get a
 * block of their own. The arena is used by one thread (the dispatcher);
 * workers only read what it hands them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "replay_i.h"

#define ARENA_BLOCK ((size_t)2 << 20)	/* a huge page */
/*
 * Empty blocks are kept for reuse: a block from the system is 2 MiB of page
 * faults and clearing (with 4 spares, a quarter of the
 * dispatcher's time), and the spares never outnumber the blocks that were
 * in use at once, so they add nothing to the peak memory.
 */
#define ARENA_SPARES 512
#define LINE 64

struct arena_block {
	struct rp_arena *arena;
	struct arena_block *next;	/* spares */
	size_t live;		/* allocations not yet released */
	bool own;		/* a block of its own for one large allocation */
	_Alignas(LINE) unsigned char data[];
};

#define BLOCK_DATA (ARENA_BLOCK - offsetof(struct arena_block, data))

struct rp_arena {
	struct arena_block *cur;	/* where the next allocation goes */
	size_t used;			/* bytes of cur->data handed out */
	struct arena_block *spare;	/* empty blocks kept for reuse */
	size_t nspare;
	size_t blocks;			/* blocks in use now (not the spares) */
};

int rp_arena_new(struct rp_arena **out)
{
	struct rp_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	*out = a;
	return 0;
}

/* Frees the arena; every allocation must have been released. */
void rp_arena_free(struct rp_arena *a)
{
	if (!a)
		return;
	free(a->cur);
	while (a->spare) {
		struct arena_block *b = a->spare;

		a->spare = b->next;
		free(b);
	}
	free(a);
}

static struct arena_block *block_of(const void *p)
{
	return (struct arena_block *)((uintptr_t)p & ~(uintptr_t)(ARENA_BLOCK - 1));
}

/*
 * A block of size bytes (a multiple of ARENA_BLOCK), aligned to
 * ARENA_BLOCK, in huge pages where the system has them to give: a worker
 * reads tasks from all over the window, and with 4 KiB pages nearly every
 * task would be a TLB miss, which in a virtual machine is a two-level walk.
 */
static struct arena_block *new_block(size_t size)
{
	struct arena_block *b = aligned_alloc(ARENA_BLOCK, size);

	if (b)
		madvise(b, size, MADV_HUGEPAGE);	/* a hint: failing is fine */
	return b;
}

static void block_retire(struct rp_arena *a, struct arena_block *b)
{
	a->blocks--;
	if (!b->own && a->nspare < ARENA_SPARES) {
		b->next = a->spare;
		a->spare = b;
		a->nspare++;
	} else {
		free(b);
	}
}

void *rp_arena_alloc(struct rp_arena *a, size_t size)
{
	struct arena_block *b;

	size = (size + LINE - 1) & ~(size_t)(LINE - 1);
	if (size > BLOCK_DATA) {
		size_t total = (offsetof(struct arena_block, data) + size + ARENA_BLOCK - 1) &
			       ~(ARENA_BLOCK - 1);

		b = new_block(total);
		if (!b)
			return NULL;
		*b = (struct arena_block){ .arena = a, .live = 1, .own = true };
		a->blocks++;
		return b->data;
	}
	if (!a->cur || a->used + size > BLOCK_DATA) {
		if (a->spare) {
			b = a->spare;
			a->spare = b->next;
			a->nspare--;
		} else if (!(b = new_block(ARENA_BLOCK))) {
			return NULL;
		}
		*b = (struct arena_block){ .arena = a };
		a->blocks++;
		if (a->cur && !a->cur->live)
			block_retire(a, a->cur);
		a->cur = b;
		a->used = 0;
	}
	b = a->cur;
	b->live++;
	a->used += size;
	return b->data + a->used - size;
}

void rp_arena_release(void *p)
{
	struct arena_block *b;

	if (!p)
		return;
	b = block_of(p);
	if (--b->live)
		return;
	if (b == b->arena->cur)
		b->arena->used = 0;	/* empty: start it again */
	else
		block_retire(b->arena, b);
}

size_t rp_arena_blocks(const struct rp_arena *a)
{
	return a->blocks;
}

/* ---- tasks ---------------------------------------------------------------- */

struct rp_task *rp_task_new(struct rp_arena *a, const struct fstap_rec *rec)
{
	struct rp_task *t;

	/* Only what an executor uses; process and state fields are dropped. */
	t = rp_arena_alloc(a, sizeof(*t) + fstap_rec_clone_size(rec, FSTAP_CLONE_OP));
	if (!t)
		return NULL;
	memset(t, 0, offsetof(struct rp_task, rec));
	t->deps = t->dep_inline;
	t->capdeps = RP_TASK_MAX_RES;
	t->win.key = rec->start_ns;
	fstap_rec_clone_into(&t->rec, t + 1, rec, FSTAP_CLONE_OP);
	return t;
}

void rp_task_free(struct rp_task *t)
{
	if (!t)
		return;
	if (t->deps != t->dep_inline)
		free(t->deps);
	rp_arena_release(t->paths);
	rp_arena_release(t);
}

struct rp_task *rp_task_dup(struct rp_arena *a, const struct rp_task *t)
{
	size_t n1 = t->path ? strlen(t->path) + 1 : 0, n2 = t->path2 ? strlen(t->path2) + 1 : 0;
	struct rp_task *c = rp_task_new(a, &t->rec);
	uint32_t i;

	if (!c)
		return NULL;
	/* what a job carries (struct rp_task): the numbers, gap, flags, path split */
	memcpy((unsigned char *)c + RP_TASK_CARRIED_OFF, (const unsigned char *)t + RP_TASK_CARRIED_OFF,
	       RP_TASK_CARRIED_SIZE);
	c->h = t->h;
	c->h2 = t->h2;
	c->h_stale = t->h_stale;
	c->nres = t->nres;
	memcpy(c->res, t->res, sizeof(c->res));
	c->res_changes = t->res_changes;
	for (i = 0; i < t->ndeps; i++)
		if (rp_task_add_dep(c, t->deps[i].w, t->deps[i].wseq))
			goto fail;
	if ((n1 || n2) && !(c->paths = rp_arena_alloc(a, n1 + n2)))
		goto fail;
	if (n1)
		c->path = memcpy(c->paths, t->path, n1);
	if (n2)
		c->path2 = memcpy(c->paths + n1, t->path2, n2);
	return c;
fail:
	rp_task_free(c);
	return NULL;
}

int rp_task_add_dep(struct rp_task *t, struct rp_worker *w, uint64_t wseq)
{
	if (t->ndeps == t->capdeps) {
		uint32_t c = 2 * t->capdeps;
		struct rp_dep *p = malloc(c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memcpy(p, t->deps, t->ndeps * sizeof(*p));
		if (t->deps != t->dep_inline)
			free(t->deps);
		t->deps = p;
		t->capdeps = c;
	}
	t->deps[t->ndeps++] = (struct rp_dep){ w, wseq };
	return 0;
}
