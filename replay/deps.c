/*
 * deps.c: which worker runs a task, and what it must wait for under the
 * chosen --order (every dependency points to an op dispatched earlier, so
 * the lowest pending op can always run: no deadlock):
 *  - strict: one worker, global start order.
 *  - thread: a worker per recorded tid; op X waits, for every other worker
 *    w, for w's last op whose recorded end is <= X's recorded start (w runs
 *    its ops in order, so all earlier ones are done too). A worker skips
 *    constraints it already waited for (known[]).
 *  - resource: a worker per tid; X waits, on each of its resources
 *    (objects, their names, handles: rp_resources), for the last op
 *    dispatched before it that changes the resource, and if X changes it,
 *    for the ops since that only read it (RES_READERS of them kept; one
 *    more waits for those and stands for them). Reads of one file by two
 *    threads overlap.
 *  - none: a worker per tid, per-thread order only; ops that run after a
 *    later-recorded op on the same resource are counted (exec.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/pathmap.h"
#include "run_i.h"

/* A new worker for c's thread: with --split, a stand-in if another rank replays it. */
static struct rp_worker *new_worker(struct run *r, const struct fstap_rec *c)
{
	int rank;

	if (!r->o->share)
		return rp_worker_new(r, false);
	if (rp_share_owner(r->o->share, c, &rank))
		return NULL;
	return rp_worker_new(r, !rp_share_mine(r->o->share, rank));
}

static struct rp_worker *worker_for(struct run *r, struct tstate *ts, const struct fstap_rec *c)
{
	if (ts->w)
		return ts->w;
	if (r->o->order == RP_ORDER_STRICT) {
		ts->w = r->nw ? r->w[0] : new_worker(r, c);
	} else if (r->nw >= MAX_WORKERS) {
		/* NEEDSWORK: beyond MAX_WORKERS threads, tids share workers. */
		ts->w = r->w[c->tid % r->nw];
	} else {
		ts->w = new_worker(r, c);
	}
	return ts->w;
}

/*
 * The kernel closes a file (release) on its own when the application's
 * last reference goes, from no thread of the application (the record has
 * tid 0, or the kernel flag): that close goes to the worker that opened the
 * handle, after its other uses. Without this, --order=none would run such
 * closes on a worker of their own, before the reads they follow.
 */
struct rp_worker *rp_worker_for_task(struct run *r, struct tstate *ts, struct rp_task *t)
{
	unsigned op = t->rec.op;
	uint64_t key = t->rec.fh + 1;

	if (op == FSTAP_OP_OPEN || op == FSTAP_OP_CREATE || op == FSTAP_OP_OPENDIR) {
		struct rp_worker *w = worker_for(r, ts, &t->rec);

		if (w && key && fstap_map_put(&r->fh_owner, key, w->idx))
			return NULL;
		return w;
	}
	if (op == FSTAP_OP_RELEASE || op == FSTAP_OP_RELEASEDIR) {
		uint64_t idx;

		/* the recorder leaves a release without a thread (tid 0) unflagged:
		 * it stands for the application's close, from no thread */
		if (key && fstap_map_del(&r->fh_owner, key, &idx) &&
		    ((t->rec.flags & FSTAP_RF_KERNEL) || t->rec.tid == 0))
			return r->w[idx];
	}
	return worker_for(r, ts, &t->rec);
}

/*
 * Records that op wseq of a worker ends at end. The ring answers, for a
 * start time S that only grows, the last op of the worker ended by S
 * (deps_thread pops it from the head). A worker's ends are not in order:
 * a release the kernel sent on its own, routed to the worker that opened
 * the handle, can end after the worker's next ops do. An op that ends no
 * later than one dispatched before it makes that one useless (waiting for
 * the later op waits for both), so it replaces it: the ring keeps ends
 * increasing, and popping stops at no long op with shorter ones behind.
 */
int rp_ends_push(struct ends_ring *e, uint64_t wseq, uint64_t end)
{
	while (e->len && e->v[(e->head + e->len - 1) % e->cap].end >= end)
		e->len--;
	if (e->len == e->cap) {
		size_t c = fstap_grow_size(e->cap, e->len + 1, 16), i;
		__typeof__(e->v) p = c ? malloc(c * sizeof(*p)) : NULL;

		if (!p)
			return -ENOMEM;
		for (i = 0; i < e->len; i++)
			p[i] = e->v[(e->head + i) % e->cap];
		free(e->v);
		e->v = p;
		e->head = 0;
		e->cap = c;
	}
	e->v[(e->head + e->len++) % e->cap].wseq = wseq;
	e->v[(e->head + e->len - 1) % e->cap].end = end;
	return 0;
}

static uint64_t *known_slot(struct rp_worker *me, unsigned idx)
{
	if (idx >= me->nknown) {
		size_t n = idx + 16;
		uint64_t *p = realloc(me->known, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + me->nknown, 0, (n - me->nknown) * sizeof(*p));
		me->known = p;
		me->nknown = n;
	}
	return &me->known[idx];
}

int rp_deps_add(struct rp_task *t, struct rp_worker *me, struct rp_worker *w, uint64_t wseq)
{
	uint64_t *k;

	if (w == me || !wseq)
		return 0;
	k = known_slot(me, w->idx);
	if (!k)
		return -ENOMEM;
	if (*k >= wseq)
		return 0;
	*k = wseq;
	return rp_task_add_dep(t, w, wseq);
}

/* --order=thread: wait for every other worker's ops that ended before t started. */
int rp_deps_thread(struct run *r, struct rp_task *t, struct rp_worker *me)
{
	size_t i;
	int ret;

	for (i = 0; i < r->nw; i++) {
		struct rp_worker *w = r->w[i];
		struct ends_ring *e = &w->ends;

		while (e->len && e->v[e->head].end <= t->rec.start_ns) {
			w->ended = e->v[e->head].wseq;
			e->head = (e->head + 1) % e->cap;
			e->len--;
		}
		if ((ret = rp_deps_add(t, me, w, w->ended)))
			return ret;
	}
	return 0;
}

/*
 * The resources of --order=resource and none, as keys of r->res_last:
 *  - OBJ: an object's content and attributes (a directory's: its entries);
 *  - ENT: which paths reach an object that is not a directory: changed by
 *    a rename, unlink or create of one of its names, read by every call
 *    that reaches it by a path. A call through a handle does not, so a
 *    rename over a file, or its unlink, does not wait for the reads of the
 *    threads that have it open (the pattern of an update by rename: the
 *    readers go on reading the old version). A directory's names are its
 *    OBJ, so that a call by a path beneath it waits for its rename;
 *  - FH: an open handle.
 * 0 is no resource (no object, no handle).
 */
#define RES_OBJ(o) ((o) ? ((uint64_t)(o) << 2) + 4 : 0)
#define RES_ENT(o) ((o) ? ((uint64_t)(o) << 2) + 5 : 0)
#define RES_FH(f) ((f) ? ((uint64_t)(f) << 2) + 6 : 0)
#define RES_IS_FH(k) (((k) & 3) == 2)

/* t touches resource key, and changes it if change. */
static void add_res(struct rp_task *t, uint64_t key, bool change)
{
	uint32_t i;

	if (!key)
		return;
	for (i = 0; i < t->nres && t->res[i] != key; i++)
		;
	if (i == t->nres) {
		if (t->nres == RP_TASK_MAX_RES)
			return;
		t->res[t->nres++] = key;
	}
	if (change)
		t->res_changes |= (uint8_t)(1u << i);
}

/*
 * Whether c changes the object it acts on (obj: for an entry's operation,
 * the directory). An open (unless it truncates), a close, a sync, a seek
 * and a listing leave the object as it was: two threads that open, read
 * and close one file overlap, as do two listings of one directory.
 */
static bool changes_obj(const struct fstap_rec *c)
{
	switch (c->op) {
	case FSTAP_OP_GETATTR:
	case FSTAP_OP_READ:
	case FSTAP_OP_READLINK:
	case FSTAP_OP_GETXATTR:
	case FSTAP_OP_LISTXATTR:
	case FSTAP_OP_ACCESS:
	case FSTAP_OP_STATFS:
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_OPENDIR:
	case FSTAP_OP_READDIR:
	case FSTAP_OP_RELEASE:
	case FSTAP_OP_RELEASEDIR:
	case FSTAP_OP_FLUSH:
	case FSTAP_OP_FSYNC:
	case FSTAP_OP_FDATASYNC:
	case FSTAP_OP_FSYNCDIR:
	case FSTAP_OP_LSEEK:
		return false;
	case FSTAP_OP_OPEN:
		return c->flags_arg & O_TRUNC;
	default:
		return true;
	}
}

/* Whether op changes the handle it uses: opens and closes it, or moves a listing on. */
static bool changes_fh(unsigned op)
{
	return op == FSTAP_OP_OPEN || op == FSTAP_OP_CREATE || op == FSTAP_OP_OPENDIR ||
	       op == FSTAP_OP_RELEASE || op == FSTAP_OP_RELEASEDIR || op == FSTAP_OP_READDIR;
}

/*
 * t adds, removes or moves a name of obj: its ENT when obj is known not to
 * be a directory, else (a directory, or not known) its OBJ.
 */
static void changes_names_of(struct run *r, struct rp_task *t, uint64_t obj)
{
	enum fstap_kind k = obj ? fstap_pathmap_kind(r->pm, obj) : FSTAP_KIND_UNKNOWN;

	if (k == FSTAP_KIND_UNKNOWN || k == FSTAP_KIND_DIR)
		add_res(t, RES_OBJ(obj), true);
	else
		add_res(t, RES_ENT(obj), true);
}

/* The resources an op touches, and which it changes (before the pathmap learns from it). */
void rp_resources(struct run *r, struct rp_task *t)
{
	const struct fstap_rec *c = &t->rec;
	const struct fstap_op_info *oi = fstap_op_info(c->op);
	bool dirent = oi && (oi->props & FSTAP_OPP_DIRENT), by_handle;

	by_handle = (oi && (oi->props & FSTAP_OPP_HANDLE)) ||
		    ((c->op == FSTAP_OP_GETATTR || c->op == FSTAP_OP_SETATTR) && c->fh);
	add_res(t, RES_OBJ(c->obj), changes_obj(c));
	if (by_handle || c->op == FSTAP_OP_OPEN || c->op == FSTAP_OP_OPENDIR ||
	    c->op == FSTAP_OP_CREATE)
		add_res(t, RES_FH(c->fh), changes_fh(c->op));
	if (!by_handle && !dirent && c->obj &&
	    fstap_pathmap_kind(r->pm, c->obj) != FSTAP_KIND_DIR)
		add_res(t, RES_ENT(c->obj), false);	/* a path reaches it */
	switch (c->op) {
	case FSTAP_OP_RENAME:
		add_res(t, RES_OBJ(c->newparent), true);
		changes_names_of(r, t, fstap_pathmap_lookup(r->pm, c->obj, c->name));
		changes_names_of(r, t, fstap_pathmap_lookup(r->pm, c->newparent, c->newname));
		return;
	case FSTAP_OP_LINK:
		add_res(t, RES_OBJ(c->newparent), true);
		break;
	case FSTAP_OP_COPY_FILE_RANGE:
		add_res(t, RES_FH(c->fh2), false);
		add_res(t, RES_OBJ(c->obj2), true);
		break;
	default:
		break;
	}
	if (dirent) {
		uint64_t child = c->child ? c->child : fstap_pathmap_lookup(r->pm, c->obj, c->name);

		if (oi->props & FSTAP_OPP_MUTATES)
			changes_names_of(r, t, child);
		else
			add_res(t, RES_OBJ(child), false);
	}
}

/*
 * --order=resource: a resource's state in r->res_last: the mark (wseq << 20
 * | worker idx) of its latest writer, or, once it has readers since, a
 * pointer to a res_readers tagged with RES_TAG.
 */
#define RES_TAG (1ull << 63)
#define RES_READERS 3
#define MARK_IDX(m) ((m) & 0xfffff)
#define MARK_WSEQ(m) ((m) >> 20)

struct res_readers {
	uint64_t writer;		/* 0: none */
	uint64_t reader[RES_READERS];	/* one per worker */
	unsigned n;
};

static int wait_mark(struct run *r, struct rp_task *t, struct rp_worker *me, uint64_t m)
{
	return m ? rp_deps_add(t, me, r->w[MARK_IDX(m)], MARK_WSEQ(m)) : 0;
}

/* The readers of a resource whose state v is tagged. */
static struct res_readers *readers_of(uint64_t v)
{
	return (struct res_readers *)(uintptr_t)(v & ~RES_TAG);
}

/* t, of mark mine, reads the resource whose state is *v. */
static int add_reader(struct run *r, struct rp_task *t, struct rp_worker *me, uint64_t *v,
		      uint64_t mine)
{
	struct res_readers *s;
	unsigned i;
	int ret;

	if ((ret = wait_mark(r, t, me, *v & RES_TAG ? readers_of(*v)->writer : *v)))
		return ret;
	if (!(*v & RES_TAG)) {
		if (!*v || MARK_IDX(*v) == me->idx) {
			/* its worker's own or none before: a later reader waits for
			 * it as for a writer (one worker: no state kept) */
			*v = mine;
			return 0;
		}
		if (!(s = calloc(1, sizeof(*s))))
			return -ENOMEM;
		s->writer = *v;
		*v = (uint64_t)(uintptr_t)s | RES_TAG;
	}
	s = readers_of(*v);
	for (i = 0; i < s->n; i++)
		if (MARK_IDX(s->reader[i]) == me->idx) {
			s->reader[i] = mine;	/* its worker runs it after the earlier one */
			return 0;
		}
	if (s->n == RES_READERS) {
		/* t waits for them: whoever waits for t waits for them too */
		for (i = 0; i < s->n; i++)
			if ((ret = wait_mark(r, t, me, s->reader[i])))
				return ret;
		s->n = 0;
	}
	s->reader[s->n++] = mine;
	return 0;
}

/* t, of mark mine, changes the resource whose state is *v. */
static int add_writer(struct run *r, struct rp_task *t, struct rp_worker *me, uint64_t *v,
		      uint64_t mine)
{
	unsigned i;
	int ret;

	if (*v & RES_TAG) {
		struct res_readers *s = readers_of(*v);

		ret = wait_mark(r, t, me, s->writer);
		for (i = 0; i < s->n && !ret; i++)
			ret = wait_mark(r, t, me, s->reader[i]);
		if (ret)
			return ret;
		free(s);
	} else if ((ret = wait_mark(r, t, me, *v))) {
		return ret;
	}
	*v = mine;
	return 0;
}

void rp_deps_release(struct run *r)
{
	size_t pos = 0;
	uint64_t key, v;

	while (fstap_map_next(&r->res_last, &pos, &key, &v))
		if (v & RES_TAG)
			free(readers_of(v));
	fstap_map_release(&r->res_last);
}

/* --order=resource: what t waits for on each of its resources (above). */
int rp_deps_resource(struct run *r, struct rp_task *t, struct rp_worker *me)
{
	uint64_t mine = (me->wseq + 1) << 20 | me->idx;
	uint32_t i;
	int ret;

	for (i = 0; i < t->nres; i++) {
		uint64_t *v = fstap_map_get(&r->res_last, t->res[i]);

		if (!v) {
			if ((ret = fstap_map_put(&r->res_last, t->res[i], 0)))
				return ret;
			v = fstap_map_get(&r->res_last, t->res[i]);
		}
		ret = t->res_changes & (1u << i) ? add_writer(r, t, me, v, mine)
						 : add_reader(r, t, me, v, mine);
		if (ret)
			return ret;
		if ((t->rec.op == FSTAP_OP_RELEASE || t->rec.op == FSTAP_OP_RELEASEDIR) &&
		    RES_IS_FH(t->res[i]))
			fstap_map_del(&r->res_last, t->res[i], NULL);	/* a handle ends */
	}
	return 0;
}
