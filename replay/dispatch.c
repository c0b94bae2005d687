/*
 * dispatch.c: one record out of the stage, in global start order: what it
 * stands for (classify.c) decides whether it is issued; its paths are
 * resolved from the pathmap as it is before the record, which then learns
 * from it (learn.c); an issued task gets its worker, its dependencies
 * (deps.c) and its recorded think time, and goes to the worker's queue.
 */
#include <errno.h>
#include <string.h>

#include "fstap/name.h"
#include "fstap/pathmap.h"
#include "run_i.h"

/* Resolves t's paths from the pathmap as it is before t, and checks them. */
static int resolve(struct run *r, struct rp_task *t)
{
	const struct fstap_rec *c = &t->rec;
	const struct fstap_op_info *oi = fstap_op_info(c->op);
	int n1, n2 = -1;
	bool two = c->op == FSTAP_OP_RENAME || c->op == FSTAP_OP_LINK;

	(void)oi;
	n1 = fstap_pathmap_path(r->pm, c->obj, r->p1, sizeof(r->p1));
	if (two)
		n2 = fstap_pathmap_path(r->pm, c->newparent, r->p2, sizeof(r->p2));
	/* An unknown object comes out as "<obj:N>": no leading '/'. */
	if (n1 < 0 || r->p1[0] != '/' || strlen(r->p1) != (size_t)n1)
		n1 = -1;
	if (two && (n2 < 0 || r->p2[0] != '/' || strlen(r->p2) != (size_t)n2))
		n2 = -1;
	t->paths = rp_arena_alloc(r->arena, (n1 >= 0 ? (size_t)n1 + 1 : 0) +
					       (n2 >= 0 ? (size_t)n2 + 1 : 0) + 1);
	if (!t->paths)
		return -ENOMEM;
	if (n1 >= 0) {
		memcpy(t->paths, r->p1, (size_t)n1 + 1);
		t->path = t->paths;
		if (fstap_path_valid(t->path)) {
			t->valid_paths |= RP_PATH_VALID;
			t->path_len = (uint16_t)n1;
			t->path_name = rp_path_name_at(t->path, (size_t)n1);
		}
	}
	if (n2 >= 0) {
		char *p = t->paths + (n1 >= 0 ? n1 + 1 : 0);

		memcpy(p, r->p2, (size_t)n2 + 1);
		t->path2 = p;
		t->valid_paths |= fstap_path_valid(t->path2) ? RP_PATH2_VALID : 0;
	}
	return 0;
}

/* Counts what t stands for in res (rp_fate); whether it is issued. */
static bool count_fate(struct rp_result *res, const struct rp_task *t)
{
	bool lookup = t->rec.op == FSTAP_OP_LOOKUP;

	switch (rp_fate(t)) {
	case RP_FATE_NOT_REPLAYED:
		res->not_replayed++;
		return false;
	case RP_FATE_KERNEL:
		res->kernel_skipped++;
		return false;
	case RP_FATE_MERGED:
		res->writes_merged++;	/* issued with the first part of its write() */
		return false;
	case RP_FATE_ABSORBED:
		if (lookup)
			res->lookups_absorbed++;
		else
			res->getattrs_absorbed++;
		return false;
	case RP_FATE_ISSUED:
		break;
	}
	if (lookup)
		res->lookups_issued++;
	else if (t->rec.op == FSTAP_OP_GETATTR && t->eof_read)
		res->getattrs_eof_reads++;
	else if (t->rec.op == FSTAP_OP_GETATTR)
		res->getattrs_issued++;
	return true;
}

/*
 * --split: where the counters of t go: this replay's result if t's process
 * (thread) is this rank's, else a result no report shows (every rank
 * counts its own records: their sum is the trace's).
 */
static int counted_in(struct run *r, const struct rp_task *t, struct rp_result **out)
{
	int rank, ret;

	*out = r->res;
	if (!r->o->share)
		return 0;
	if ((ret = rp_share_owner(r->o->share, &t->rec, &rank)))
		return ret;
	if (!rp_share_mine(r->o->share, rank))
		*out = &r->others;
	return 0;
}

/* --split: counts t's dependencies on the ops of other ranks (t is this rank's). */
static void count_rank_deps(struct run *r, const struct rp_task *t, const struct rp_worker *w)
{
	uint32_t i;

	if (!r->prog || w->remote)
		return;
	for (i = 0; i < t->ndeps; i++)
		if (t->deps[i].w->remote)
			r->res->rank_deps++;
}

/*
 * t's recorded gap on w: from w's previous end (the run's start for its
 * first op), or, paced, from the end of a worker started in the gap that
 * t's thread waited for (rp_pace_joined); then t->joined, and t waits for
 * that worker's latest op (with --order=thread it does anyway) and its gap
 * counts from when the replay finished it.
 */
static int recorded_gap(struct run *r, struct rp_task *t, struct rp_worker *w)
{
	uint64_t from = w->prev_end, start = t->rec.start_ns;
	struct rp_worker *joined = NULL;
	size_t i;

	if (r->o->pace_pct && w->wseq)
		for (i = 0; i < r->nw; i++) {
			struct rp_worker *o = r->w[i];
			uint64_t f;

			if (o == w || !o->wseq)
				continue;
			f = rp_pace_joined(from, w->prev_end, start, o->first_start, o->prev_end);
			if (f != from) {
				from = f;
				joined = o;
			}
		}
	t->joined = joined != NULL;
	t->gap_ns = start > from ? start - from : 0;
	if (joined && r->o->order != RP_ORDER_THREAD)
		return rp_deps_add(t, w, joined, joined->wseq);
	return 0;
}

/*
 * Hands t to w: its number, its dependencies (--order), its recorded think
 * time, its worker's order; ns_gen is the namespace generation its paths
 * are from.
 */
static int hand_to(struct run *r, struct rp_task *t, struct rp_worker *w, uint32_t ns_gen)
{
	struct tstate *ts = t->ts;
	uint64_t end;
	int ret = 0;

	t->seq = ++r->seq;
	t->ns_gen = ns_gen;
	if (r->o->order == RP_ORDER_THREAD)
		ret = rp_deps_thread(r, t, w);
	else if (r->o->order == RP_ORDER_RESOURCE)
		ret = rp_deps_resource(r, t, w);
	if (ret)
		return ret;
	count_rank_deps(r, t, w);
	end = fstap_sat_add(t->rec.start_ns, t->rec.dur_ns);
	if (!w->prev_end)
		w->prev_end = r->origin;
	if (!w->wseq)
		w->first_start = t->rec.start_ns;
	if ((ret = recorded_gap(r, t, w)))
		return ret;
	if (r->native)
		t->gap_ns = rp_native_gap(&ts->native, t->gap_ns);
	if (r->o->pace_pct && !w->remote && w->wseq) {	/* (not the thread's start) */
		const struct rp_pace pace = { .pct = r->o->pace_pct };

		r->res->think_ns = fstap_sat_add(r->res->think_ns, rp_pace_scale(&pace, t->gap_ns));
	}
	if (end > w->prev_end)
		w->prev_end = end;
	w->wseq++;
	if (r->o->order == RP_ORDER_THREAD && (ret = rp_ends_push(&w->ends, w->wseq, end)))
		return ret;
	/* (another rank's ops do not run here: their handles are not this rank's) */
	if (!w->remote && (ret = rp_handles_bind(&r->handles, t)))
		return ret;
	return rp_queue_put(w, t);
}

int rp_dispatch(struct run *r, struct rp_task *t)
{
	struct tstate *ts = t->ts;
	struct rp_result *res = r->res, *cnt;
	struct rp_worker *w;
	bool bump, issue;
	int ret;

	if (!ts)
		return -ENOMEM;
	if (!r->started) {
		/*
		 * The run starts with its first operation, not when the first
		 * window of the trace has been read; paced gaps count from the
		 * first operation's recorded start, not from the recorder's.
		 */
		r->started = true;
		r->origin = t->rec.start_ns;
		/* with a plan, the run starts when it is full or the trace read */
		if (!r->plan && (ret = rp_run_go(r, false)))
			return ret;
	}
	if ((ret = counted_in(r, t, &cnt)))
		return ret;
	if (r->native)
		rp_native_step(&r->gaps, &ts->native, &t->rec, t->marked);
	r->res = cnt;	/* the syncs it finds are counted there */
	ret = r->sync_unflagged ? rp_sync_after_write(r, ts, t) : 0;
	r->res = res;
	if (ret)
		return ret;
	rp_getattr_by_handle(r, t);
	/* a third of a trace's records are not issued (absorbed, the
	 * kernel's): no paths for them unless the directory cache needs them */
	issue = count_fate(cnt, t);
	bump = rp_changes_dirs(r, &t->rec);
	if ((issue || bump) && (ret = resolve(r, t)))
		return ret;
	if (issue && r->o->order != RP_ORDER_STRICT && r->o->order != RP_ORDER_THREAD)
		rp_resources(r, t);
	if ((ret = rp_learn_dispatched(r, &t->rec)))
		return ret;
	if (bump) {
		r->ns_gen++;	/* what a directory path names may have changed */
		rp_ns_changes(r, t);
	}
	if (!issue) {
		rp_task_free(t);
		return 0;
	}
	rp_race_check(&r->races, t);
	t->device = t->rec.op == FSTAP_OP_OPEN && rp_is_device(r, t->rec.obj);
	if (r->res->divlog)
		t->comm = rp_comm_of(r, t->rec.pid);
	w = rp_worker_for_task(r, ts, t);
	if (!w)
		return -ENOMEM;
	if (r->o->share && (ret = rp_borrow(r, t, w)))
		return ret;
	return hand_to(r, t, w, r->ns_gen - bump);
}

/*
 * --split: a task of this rank's made by the replay (borrowed.c: the open
 * of a handle another rank's process opened, the close of this rank's copy)
 * for worker w, before the task being dispatched: paths from the pathmap
 * as it is now, dependencies as a record of its start. Not counted.
 */
int rp_dispatch_made(struct run *r, struct rp_task *t, struct rp_worker *w)
{
	int ret;

	t->made = true;
	if (t->rec.op != FSTAP_OP_RELEASE && t->rec.op != FSTAP_OP_RELEASEDIR &&
	    (ret = resolve(r, t)))
		return ret;
	if (r->o->order != RP_ORDER_STRICT && r->o->order != RP_ORDER_THREAD)
		rp_resources(r, t);
	return hand_to(r, t, w, r->ns_gen);
}
