/*
 * window.c: the reorder window. The recorder writes per-thread chunks, so
 * each thread's records are in order but threads interleave at chunk
 * granularity, and a thread's chunk is flushed at least every
 * flush_interval_ns (trace metadata; 1 s if absent). The window restores
 * global start order (start time, then position in the file) as a merge of
 * the file's sorted runs; run.c releases a record from it once a record
 * that started more than window + margin later has been read, or at the
 * end.
 */
#include <errno.h>
#include <stdlib.h>

#include "run_i.h"

static inline bool before(const struct heap_ent *a, const struct heap_ent *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return a->idx < b->idx;
}

static bool task_before(const struct rp_task *a, const struct rp_task *b)
{
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns;
	return a->fileidx < b->fileidx;
}

static void sift_down(struct run *r, size_t i, struct heap_ent e)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= r->nheap)
			break;
		if (c + 1 < r->nheap && before(&r->heap[c + 1], &r->heap[c]))
			c++;
		if (!before(&r->heap[c], &e))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = e;
}

/* Adds t to the newest run if it starts no earlier than its tail, else starts a run. */
int rp_window_push(struct run *r, struct rp_task *t)
{
	struct heap_ent e = { t->start_ns, t->fileidx, t };
	size_t i;

	t->next = NULL;
	if (r->run_tail && !task_before(t, r->run_tail)) {
		r->run_tail->next = t;
		r->run_tail->next_start = t->start_ns;
		r->run_tail->next_idx = t->fileidx;
		r->run_tail = t;
		return 0;
	}
	if (r->nheap == r->capheap) {
		size_t c = r->capheap ? 2 * r->capheap : 64;
		struct heap_ent *p = realloc(r->heap, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->heap = p;
		r->capheap = c;
	}
	i = r->nheap++;
	while (i && before(&e, &r->heap[(i - 1) / 2])) {
		r->heap[i] = r->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	r->heap[i] = e;
	r->run_tail = t;
	return 0;
}

/* Takes the earliest record of the window. */
struct rp_task *rp_window_pop(struct run *r)
{
	struct rp_task *top = r->heap[0].t, *next = top->next;

	if (next) {
		/* the key of the next one is in top: next itself may not be in the cache */
		struct heap_ent e = { top->next_start, top->next_idx, next };

		rp_prefetch_task(next);
		sift_down(r, 0, e);
	} else {
		if (r->run_tail == top)
			r->run_tail = NULL;
		if (--r->nheap)
			sift_down(r, 0, r->heap[r->nheap]);
	}
	top->next = NULL;
	return top;
}
