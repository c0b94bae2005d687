/*
 * reorder_order.c: a closed run of the reorder plan: its groups put in the
 * order asked for (readdir, name, inode, a seeded random order, or the
 * order in which the prepared target's own readdir returns the run's
 * directory), and every record of the run given its new time.
 *
 * Times. Slot k of a run is the time span of its k-th group (first start to
 * last end of the thread's records). The group placed in slot k starts where
 * the slot started plus the accumulated shift of the groups placed before;
 * each of its records keeps its offset from the group's first record (and
 * its duration). After slot k the shift grows by the placed group's span
 * minus the slot's span. Over a whole run the spans are a permutation of
 * the same values, so the shift returns to 0 at its end: nothing outside the
 * run moves, and within the thread the new times follow the new order.
 *
 * The target-readdir order reads, when a run of two groups or more closes,
 * the listing of the run's directory under the target, and keeps only the
 * latest directory's listing (listing.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reorder_i.h"
#include "fstap/pathmap.h"
#include "fstap/util.h"

const char *const an_order_names[AN_BY_NR] = { "readdir", "name", "inode", "random",
						"target-readdir" };

/* Stable order of groups: unknown keys last, then by original place. */
static int cmp_grp(const void *a, const void *b, void *arg)
{
	const struct grp *x = *(struct grp *const *)a, *y = *(struct grp *const *)b;
	enum an_order by = *(const enum an_order *)arg;
	int c = 0;

	switch (by) {
	case AN_BY_READDIR:
	case AN_BY_TARGET:
		if (!x->pos != !y->pos)
			return x->pos ? -1 : 1;
		c = (x->pos > y->pos) - (x->pos < y->pos);
		break;
	case AN_BY_NAME:
		if (!x->name != !y->name)
			return x->name ? -1 : 1;
		if (x->name)
			c = an_cmp_names(x->name, x->name_len, y->name, y->name_len);
		break;
	case AN_BY_INODE:
		if (!x->ino != !y->ino)
			return x->ino ? -1 : 1;
		c = (x->ino > y->ino) - (x->ino < y->ino);
		break;
	default:
		break;
	}
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int place(struct plan *p, struct grp *g, int64_t delta)
{
	size_t i;
	int ret;

	g->delta = delta;
	g->placed = true;
	for (i = 0; i < g->nmem; i++)
		if ((ret = ro_resolve_at(p, &g->members[i], (int64_t)g->members[i].rec->start_ns + delta)))
			return ret;
	free(g->members);
	g->members = NULL;
	g->nmem = g->capmem = 0;
	return 0;
}

/*
 * AN_BY_TARGET: each group's position in the readdir order of the run's
 * directory under the target (0, last, for a name that is not there).
 */
static int target_positions(struct plan *p, struct prun *r)
{
	char rel[PATH_MAX], *path;
	size_t k;
	int len = fstap_pathmap_path(p->pm, r->dir, rel, sizeof(rel));

	if (len < 0 || asprintf(&path, "%s%s", p->target, rel) < 0)
		path = NULL;
	if (!path || !p->lpath || strcmp(path, p->lpath)) {
		an_listing_free(p->listing);
		p->listing = NULL;
		free(p->lpath);
		p->lpath = path;
		/* a directory the target lacks: every group unknown, the original order */
		if (path && an_listing_read(path, &p->listing) == -ENOMEM)
			return -ENOMEM;
	} else {
		free(path);
	}
	for (k = 0; k < r->ng; k++)
		r->g[k]->pos = an_listing_pos(p->listing, (const char *)r->g[k]->name);
	return 0;
}

/* The run's groups in the new order (*out, NULL for a run of one group). */
static int shuffle_run(struct plan *p, struct prun *r, struct grp ***out)
{
	struct grp **order;
	size_t k;

	*out = NULL;
	if (r->ng < 2)
		return 0;
	if (p->by == AN_BY_TARGET && p->target && target_positions(p, r))
		return -ENOMEM;
	order = malloc(r->ng * sizeof(*order));
	if (!order)
		return -ENOMEM;
	memcpy(order, r->g, r->ng * sizeof(*order));
	if (p->by == AN_BY_RANDOM) {
		for (k = r->ng - 1; k > 0; k--) {
			size_t j = (size_t)(fstap_splitmix64(&p->rng) % (k + 1));
			struct grp *t = order[k];

			order[k] = order[j];
			order[j] = t;
		}
	} else {
		qsort_r(order, r->ng, sizeof(*order), cmp_grp, &p->by);
	}
	p->st.runs++;
	p->st.groups += r->ng;
	*out = order;
	return 0;
}

/* Takes the closed run r out of the plan and frees it; its groups are done. */
static void run_free(struct plan *p, struct prun *r)
{
	size_t i, k;

	for (i = 0; i < p->nactive; i++) {
		if (p->active[i] == r) {
			p->active[i] = p->active[--p->nactive];
			break;
		}
	}
	an_objtab_del(p->threads, r->tid);
	for (k = 0; k < r->ng; k++) {
		r->g[k]->run = NULL;
		r->g[k]->placed = true;	/* after an error too: freed below or with its handles */
		ro_grp_done(p, r->g[k]);
	}
	free(r->g);
	free(r->btw);
	free(r->pending);
	free(r);
}

int ro_close_run(struct plan *p, struct prun *r)
{
	struct grp **order = NULL;
	size_t k, b = 0, i;
	int64_t shift = 0;
	int ret = shuffle_run(p, r, &order);

	for (k = 0; k < r->ng && !ret; k++) {
		struct grp *slot = r->g[k], *g = order ? order[k] : slot;

		/* the neutral records before slot k move with the shift so far */
		for (; b < r->nbtw && r->btw[b].slot <= k && !ret; b++)
			ret = ro_resolve_at(p, &r->btw[b].m, (int64_t)r->btw[b].m.rec->start_ns + shift);
		if (order) {
			p->st.moved += g != slot;
			p->st.records += g->nmem;
		}
		if (!ret)
			ret = place(p, g, (int64_t)(slot->first_t + (uint64_t)shift) - (int64_t)g->first_t);
		shift += (int64_t)(g->end_t - g->first_t) - (int64_t)(slot->end_t - slot->first_t);
	}
	/* shift is 0 again here: the neutral records after the last slot stay */
	for (i = 0; i < r->npend && !ret; i++)
		ret = ro_resolve_at(p, &r->pending[i], (int64_t)r->pending[i].rec->start_ns);
	free(order);
	run_free(p, r);
	return ret;
}
