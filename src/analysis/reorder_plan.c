/*
 * reorder_plan.c: the reorder plan's life: fed the records one at a time,
 * the bound below which no record still held can be placed, and its end;
 * and an_reorder_plan, the plan of records held in memory.
 *
 * Streaming. The plan is fed the records one at a time and tells (resolve)
 * each record's new time as soon as it is known: at once for a record in
 * no group, when its run ends for the others. A placed group never starts
 * before its run's first slot, so no record still to be resolved can get a
 * time below the earliest first slot of the open runs, nor below the
 * current input time plus the most negative shift of a moved group whose
 * handles are still open (their releases follow the group). The command
 * (reorder.c) holds the resolved records in a heap and writes those below
 * that bound: its memory is that of the open runs, the open handles and
 * the records they span, not of the trace. A run ends with its groups
 * freed; a handle ends with its release.
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/reorder_i.h"
#include "fstap/ops.h"

int ro_plan_init(struct plan *p, struct an_objtab *objs, struct fstap_pathmap *pm,
		 enum an_order by, uint64_t seed, const char *target, resolve_fn resolve, void *arg)
{
	*p = (struct plan){ .by = by, .rng = seed, .objs = objs, .pm = pm, .target = target,
			    .resolve = resolve, .arg = arg };
	if (an_objtab_new(&p->threads) || an_objtab_new(&p->handles) || an_objtab_new(&p->files))
		return -ENOMEM;
	return 0;
}

int ro_plan_feed(struct plan *p, const struct fstap_rec *rec, uint64_t seq)
{
	struct mref m = { rec, seq };
	int ret;

	if ((ret = ro_step(p, &m)))
		return ret;
	if (rec->op == FSTAP_OP_RELEASE && rec->fh)
		ro_drop_handle(p, rec->fh);
	if (rec->op == FSTAP_OP_READDIR && rec->result >= 0 && (ret = ro_note_listing(p, rec)))
		return ret;
	return an_objtab_apply(p->objs, p->pm, rec);
}

uint64_t ro_plan_low(const struct plan *p, uint64_t now)
{
	uint64_t low = now;
	const struct grp *g;
	size_t i;

	for (i = 0; i < p->nactive; i++)
		if (p->active[i]->ng && p->active[i]->g[0]->first_t < low)
			low = p->active[i]->g[0]->first_t;
	for (g = p->held; g; g = g->next) {
		uint64_t d = g->delta < 0 ? (uint64_t)-g->delta : 0;

		if (d && (now < d ? 0 : now - d) < low)
			low = now < d ? 0 : now - d;
	}
	return low;
}

int ro_plan_end(struct plan *p, int err)
{
	int ret;

	while (p->nactive)
		if ((ret = ro_close_run(p, p->active[p->nactive - 1])) && !err)
			err = ret;
	while (p->held) {
		struct grp *g = p->held;

		p->held = g->next;
		ro_grp_free(g);
	}
	free(p->active);
	an_listing_free(p->listing);
	free(p->lpath);
	p->listing = NULL;
	p->lpath = NULL;
	an_objtab_free(p->threads);
	an_objtab_free(p->handles);
	an_objtab_free(p->files);
	p->active = NULL;
	p->threads = p->handles = p->files = NULL;
	return err;
}

static int set_new_t(void *arg, const struct mref *m, uint64_t new_t)
{
	((uint64_t *)arg)[m->seq] = new_t;
	return 0;
}

int an_reorder_plan(const struct fstap_rec *const *recs, size_t n, struct an_objtab *objs,
		    struct fstap_pathmap *pm, enum an_order by, uint64_t seed, uint64_t *group, uint64_t *run,
		    uint64_t *new_t, struct an_reorder_stats *st)
{
	struct plan p;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		group[i] = run[i] = 0;
		new_t[i] = recs[i]->start_ns;
	}
	ret = ro_plan_init(&p, objs, pm, by, seed, NULL, set_new_t, new_t);
	p.group = group;
	p.run = run;
	for (i = 0; i < n && !ret; i++)
		ret = ro_plan_feed(&p, recs[i], i);
	ret = ro_plan_end(&p, ret);
	if (st)
		*st = p.st;
	return ret;
}
