/*
 * reorder.c: `fstap reorder`: a variant of a trace in which each thread
 * visits the files of a directory in another order (readdir, name, inode, a
 * seeded random order, or the order in which a prepared target's own
 * readdir returns the directory's entries): the order-sensitivity
 * experiment of the news
 * spool case. Only the order and the times of records change; the records
 * themselves, the initial state and the process records are copied.
 *
 * Groups and runs. A thread's records on one file (its lookup in the
 * directory, getattr, open, reads and writes, ioctl, flush, fsync, xattr
 * calls, and the release of the handles it opened, which arrives without a
 * thread) form that file's group. Consecutive groups of one thread on files
 * of the same directory form a run. Records of the thread between two
 * groups that are part of no group (a getattr of a parent directory, a
 * failed lookup) are neutral: they stay in place between the slots. Inside
 * a group they move with it. A run ends at: a group in another directory,
 * a second visit to a file already in the run (so a file's groups never
 * swap), any record of the thread that changes the file system outside a
 * group or that lists a directory, and any change by another thread to the
 * run's directory or to one of its files. Requests the kernel made on its
 * own belong to no group and stay where they are.
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
 * Streaming. The plan is fed the records one at a time and tells (resolve)
 * each record's new time as soon as it is known: at once for a record in
 * no group, when its run ends for the others. A placed group never starts
 * before its run's first slot, so no record still to be resolved can get a
 * time below the earliest first slot of the open runs, nor below the
 * current input time plus the most negative shift of a moved group whose
 * handles are still open (their releases follow the group). The command
 * holds the resolved records in a heap and writes those below that bound:
 * its memory is that of the open runs, the open handles and the records
 * they span, not of the trace. A run ends with its groups freed; a handle
 * ends with its release. The target-readdir order reads, when a run of two
 * groups or more closes, the listing of the run's directory under the
 * target, and keeps only the latest directory's listing (listing.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/pathmap.h"
#include "fstap/sort.h"

const char *const an_order_names[AN_BY_NR] = { "readdir", "name", "inode", "random",
						"target-readdir" };

/* A record the plan holds until its new time is known. */
struct mref {
	const struct fstap_rec *rec;
	uint64_t seq;
};

struct grp {
	uint64_t id, file;
	struct prun *run;		/* NULL once the run is closed */
	uint64_t run_id;
	uint64_t first_t, end_t;	/* of the thread's records */
	int64_t delta;			/* new time - old time, once placed */
	bool placed;
	uint64_t pos;			/* listing position + 1, 0 unknown */
	uint64_t ino;
	uint8_t *name;
	uint32_t name_len;
	struct mref *members;
	size_t nmem, capmem;
	unsigned nhandles;		/* open handles whose release joins it */
	struct grp *prev, *next;	/* placed with open handles: the plan's held list */
};

struct between {
	struct mref m;
	size_t slot;			/* comes before group slot (index) */
};

struct prun {
	uint64_t id;
	uint32_t tid;
	uint64_t dir;
	struct grp **g;
	size_t ng, capg;
	struct between *btw;
	size_t nbtw, capbtw;
	struct mref *pending;		/* the thread's neutral records since its last group record */
	size_t npend, cappend;
	bool active;
};

/* Tells the new time of one record; 0 or -ENOMEM. */
typedef int (*resolve_fn)(void *arg, const struct mref *m, uint64_t new_t);

struct plan {
	enum an_order by;
	uint64_t rng;
	struct an_objtab *objs;		/* .reorder */
	struct an_objtab *threads;	/* priv: the thread's active run */
	struct an_objtab *handles;	/* priv: the group that opened the handle */
	struct an_objtab *files;	/* priv: the file's latest group, while its run is open */
	struct fstap_pathmap *pm;
	const char *target;		/* AN_BY_TARGET: the prepared directory */
	char *lpath;			/* the directory of listing, under target */
	struct an_listing *listing;	/* its entries in the target's readdir order */
	struct prun **active;
	size_t nactive, capactive;
	struct grp *held;		/* placed groups that open handles still reach */
	uint64_t next_gid, next_rid;
	uint64_t *group, *run;		/* per record (an_reorder_plan), or NULL */
	resolve_fn resolve;
	void *arg;
	struct an_reorder_stats st;
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Whether op may be part of a file's group (with obj the file). */
static bool group_op(unsigned op)
{
	switch (op) {
	case FSTAP_OP_LOOKUP: case FSTAP_OP_GETATTR: case FSTAP_OP_SETATTR:
	case FSTAP_OP_READLINK: case FSTAP_OP_OPEN: case FSTAP_OP_READ:
	case FSTAP_OP_WRITE: case FSTAP_OP_FLUSH: case FSTAP_OP_RELEASE:
	case FSTAP_OP_FSYNC: case FSTAP_OP_FDATASYNC: case FSTAP_OP_ACCESS:
	case FSTAP_OP_SETXATTR: case FSTAP_OP_GETXATTR: case FSTAP_OP_LISTXATTR:
	case FSTAP_OP_REMOVEXATTR: case FSTAP_OP_FALLOCATE: case FSTAP_OP_LSEEK:
	case FSTAP_OP_IOCTL:	/* on the file's handle: isatty() after open(), say */
		return true;
	default:
		return false;
	}
}

/* The file and directory of a group record of its thread; false if neutral. */
static bool classify(struct plan *p, const struct fstap_rec *rec, uint64_t *file, uint64_t *dir)
{
	const struct an_obj *o;

	if (!group_op(rec->op))
		return false;
	if (rec->op == FSTAP_OP_LOOKUP) {
		if (rec->result < 0 || !rec->child)
			return false;
		o = an_objtab_get(p->objs, rec->child);
		if (o && o->type == AN_OT_DIR)
			return false;
		*file = rec->child;
		*dir = rec->obj;
		return true;
	}
	o = an_objtab_get(p->objs, rec->obj);
	if (!o || o->type == AN_OT_DIR || !o->parent)
		return false;
	*file = rec->obj;
	*dir = o->parent;
	return true;
}

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

static int resolve_at(struct plan *p, const struct mref *m, int64_t t)
{
	return p->resolve(p->arg, m, t < 0 ? 0 : (uint64_t)t);
}

static void grp_free(struct grp *g)
{
	free(g->members);
	free(g->name);
	free(g);
}

/* One handle of g less: a placed group nothing reaches any more is freed. */
static void grp_unref(struct plan *p, struct grp *g)
{
	if (--g->nhandles || !g->placed)
		return;
	if (g->prev)
		g->prev->next = g->next;
	else
		p->held = g->next;
	if (g->next)
		g->next->prev = g->prev;
	grp_free(g);
}

/* Once its run is closed: freed, or kept on the held list for its handles. */
static void grp_done(struct plan *p, struct grp *g)
{
	struct an_obj *f = an_objtab_get(p->files, g->file);

	if (f && f->priv == g)
		an_objtab_del(p->files, g->file);
	if (!g->nhandles) {
		grp_free(g);
		return;
	}
	g->prev = NULL;
	g->next = p->held;
	if (p->held)
		p->held->prev = g;
	p->held = g;
}

static int place(struct plan *p, struct grp *g, int64_t delta)
{
	size_t i;
	int ret;

	g->delta = delta;
	g->placed = true;
	for (i = 0; i < g->nmem; i++)
		if ((ret = resolve_at(p, &g->members[i], (int64_t)g->members[i].rec->start_ns + delta)))
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
			size_t j = (size_t)(splitmix(&p->rng) % (k + 1));
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

/* Places the run's groups and resolves its records; frees the run. */
static int close_run(struct plan *p, struct prun *r)
{
	struct grp **order = NULL;
	size_t k, b = 0, i;
	int64_t shift = 0;
	int ret = shuffle_run(p, r, &order);

	for (k = 0; k < r->ng && !ret; k++) {
		struct grp *slot = r->g[k], *g = order ? order[k] : slot;

		/* the neutral records before slot k move with the shift so far */
		for (; b < r->nbtw && r->btw[b].slot <= k && !ret; b++)
			ret = resolve_at(p, &r->btw[b].m, (int64_t)r->btw[b].m.rec->start_ns + shift);
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
		ret = resolve_at(p, &r->pending[i], (int64_t)r->pending[i].rec->start_ns);
	free(order);
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
		grp_done(p, r->g[k]);
	}
	free(r->g);
	free(r->btw);
	free(r->pending);
	free(r);
	return ret;
}

static int add_member(struct grp *g, const struct fstap_rec *rec, uint64_t seq)
{
	if (FSTAP_GROW(g->members, g->nmem + 1, g->capmem))
		return -ENOMEM;
	g->members[g->nmem++] = (struct mref){ rec, seq };
	return 0;
}

static void span(struct grp *g, const struct fstap_rec *rec)
{
	if (rec->start_ns < g->first_t)
		g->first_t = rec->start_ns;
	if (rec->start_ns + rec->dur_ns > g->end_t)
		g->end_t = rec->start_ns + rec->dur_ns;
}

static uint8_t *copy_name(const uint8_t *name, uint32_t len)
{
	uint8_t *c = malloc(len + 1);

	if (c) {
		memcpy(c, name, len);
		c[len] = 0;
	}
	return c;
}

static struct grp *new_group(struct plan *p, struct prun *r, uint64_t file, const struct fstap_rec *rec)
{
	struct grp *g = calloc(1, sizeof(*g));
	struct an_obj *o = an_objtab_get(p->objs, file), *f;

	if (!g || FSTAP_GROW(r->g, r->ng + 1, r->capg)) {
		free(g);
		return NULL;
	}
	g->id = ++p->next_gid;
	g->file = file;
	g->run = r;
	g->run_id = r->id;
	g->first_t = rec->start_ns;
	g->end_t = rec->start_ns;
	if (o) {
		g->pos = o->reorder.pos;
		g->ino = o->ino;
		if (o->name && !(g->name = copy_name(o->name, o->name_len))) {
			free(g);
			return NULL;
		}
		g->name_len = o->name ? o->name_len : 0;
	} else if (rec->op == FSTAP_OP_LOOKUP) {
		if (!(g->name = copy_name(rec->name.ptr, rec->name.len))) {
			free(g);
			return NULL;
		}
		g->name_len = rec->name.len;
	}
	r->g[r->ng++] = g;	/* the run owns it from here */
	f = an_objtab_add(p->files, file);
	if (!f)
		return NULL;
	f->priv = g;
	return g;
}

static struct prun *new_run(struct plan *p, uint32_t tid, uint64_t dir)
{
	struct prun *r = calloc(1, sizeof(*r));
	struct an_obj *t = an_objtab_add(p->threads, tid);

	if (!r || !t || FSTAP_GROW(p->active, p->nactive + 1, p->capactive)) {
		free(r);
		return NULL;
	}
	r->id = ++p->next_rid;
	r->tid = tid;
	r->dir = dir;
	r->active = true;
	p->active[p->nactive++] = r;
	t->priv = r;
	return r;
}
/* A change by another thread to a run's directory or files ends that run. */
static int cross_barrier(struct plan *p, const struct fstap_rec *rec)
{
	uint64_t objs[3] = { rec->obj, rec->newparent, rec->obj2 };
	size_t i, j;
	int ret;

	for (i = 0; i < p->nactive;) {
		struct prun *r = p->active[i];
		bool hit = false;

		if (r->tid != rec->tid || rec->tid == 0) {
			for (j = 0; j < 3 && !hit; j++) {
				struct an_obj *f;

				if (!objs[j])
					continue;
				if (objs[j] == r->dir) {
					hit = true;
					break;
				}
				f = an_objtab_get(p->files, objs[j]);
				hit = f && f->priv && ((struct grp *)f->priv)->run == r;
			}
		}
		if (hit) {
			if ((ret = close_run(p, r)))
				return ret;
			continue;	/* active[i] now holds another run */
		}
		i++;
	}
	return 0;
}

/* Listing positions: the latest readdir of a directory numbers its entries. */
static int note_listing(struct plan *p, const struct fstap_rec *rec)
{
	struct an_obj *d = an_objtab_add(p->objs, rec->obj);
	uint32_t i;

	if (!d)
		return -ENOMEM;
	if (rec->offset == 0)
		d->reorder.entries = 0;
	for (i = 0; i < rec->nentries; i++) {
		struct an_obj *e;

		if (!rec->entries[i].obj || an_dot_name(rec->entries[i].name))
			continue;
		e = an_objtab_add(p->objs, rec->entries[i].obj);
		d = an_objtab_get(p->objs, rec->obj);
		if (!e || !d)
			return -ENOMEM;
		e->reorder.pos = ++d->reorder.entries;
	}
	return 0;
}

/* A handle ends with its release: the group it joined no longer waits for it. */
static void drop_handle(struct plan *p, uint64_t fh)
{
	struct an_obj *h = an_objtab_get(p->handles, fh);
	struct grp *g = h ? h->priv : NULL;

	if (!h)
		return;
	an_objtab_del(p->handles, fh);
	if (g)
		grp_unref(p, g);
}

static void note(struct plan *p, uint64_t seq, const struct grp *g, uint64_t run_id)
{
	if (p->group) {
		p->group[seq] = g->id;
		p->run[seq] = run_id;
	}
}

/* A record without a thread (a release): joins the group that opened its handle. */
static int step_threadless(struct plan *p, const struct mref *m, const struct fstap_op_info *oi)
{
	const struct fstap_rec *rec = m->rec;
	struct an_obj *h = rec->fh && oi && (oi->props & FSTAP_OPP_HANDLE) && !(rec->flags & FSTAP_RF_KERNEL)
			   ? an_objtab_get(p->handles, rec->fh) : NULL;
	struct grp *g = h ? h->priv : NULL;

	if (!g || g->file != rec->obj)
		return resolve_at(p, m, (int64_t)rec->start_ns);
	note(p, m->seq, g, g->run_id);
	if (g->placed)
		return resolve_at(p, m, (int64_t)rec->start_ns + g->delta);
	return add_member(g, rec, m->seq);
}

/* The run and group a group record of file in dir joins (new ones if need be). */
static int join(struct plan *p, struct prun **rp, struct grp **gp, uint64_t file, uint64_t dir,
		const struct fstap_rec *rec)
{
	struct prun *r = *rp;
	struct grp *g;
	struct an_obj *f;
	int ret;

	if (r && r->dir != dir) {
		if ((ret = close_run(p, r)))
			return ret;
		r = NULL;
	}
	g = r && r->ng ? r->g[r->ng - 1] : NULL;
	if (g && g->file != file) {
		f = an_objtab_get(p->files, file);
		if (f && f->priv && ((struct grp *)f->priv)->run == r) {
			/* back to a file of this run: its groups must not swap */
			if ((ret = close_run(p, r)))
				return ret;
			r = NULL;
		}
		g = NULL;
	}
	if (!r && !(r = new_run(p, rec->tid, dir)))
		return -ENOMEM;
	*rp = r;
	*gp = g;
	return 0;
}

static int step(struct plan *p, const struct mref *m)
{
	const struct fstap_rec *rec = m->rec;
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	bool mutates = oi && (oi->props & FSTAP_OPP_MUTATES);
	uint64_t file = 0, dir = 0;
	struct an_obj *t, *h;
	struct prun *r;
	struct grp *g;
	size_t k;
	int ret;

	if (mutates && (ret = cross_barrier(p, rec)))
		return ret;
	if (rec->tid == 0 || (rec->flags & FSTAP_RF_KERNEL))
		return step_threadless(p, m, oi);
	t = an_objtab_get(p->threads, rec->tid);
	r = t ? t->priv : NULL;
	if (!classify(p, rec, &file, &dir)) {
		if (!r)
			return resolve_at(p, m, (int64_t)rec->start_ns);
		if (mutates || rec->op == FSTAP_OP_OPENDIR || rec->op == FSTAP_OP_READDIR ||
		    rec->op == FSTAP_OP_RELEASEDIR || rec->op == FSTAP_OP_FSYNCDIR ||
		    rec->op == FSTAP_OP_COPY_FILE_RANGE) {
			if ((ret = close_run(p, r)))
				return ret;
			return resolve_at(p, m, (int64_t)rec->start_ns);
		}
		if (FSTAP_GROW(r->pending, r->npend + 1, r->cappend))
			return -ENOMEM;
		r->pending[r->npend++] = *m;
		return 0;
	}
	if ((ret = join(p, &r, &g, file, dir, rec)))
		return ret;
	if (g) {
		/* the neutral records inside a group move with it */
		for (k = 0; k < r->npend; k++) {
			if ((ret = add_member(g, r->pending[k].rec, r->pending[k].seq)))
				return ret;
			note(p, r->pending[k].seq, g, r->id);
			span(g, r->pending[k].rec);
		}
	} else {
		for (k = 0; k < r->npend && r->ng; k++) {
			if (FSTAP_GROW(r->btw, r->nbtw + 1, r->capbtw))
				return -ENOMEM;
			r->btw[r->nbtw].m = r->pending[k];
			r->btw[r->nbtw++].slot = r->ng;
		}
		g = new_group(p, r, file, rec);
		if (!g)
			return -ENOMEM;
	}
	r->npend = 0;
	if ((ret = add_member(g, rec, m->seq)))
		return ret;
	span(g, rec);
	note(p, m->seq, g, r->id);
	if (rec->op == FSTAP_OP_OPEN && rec->result >= 0 && rec->fh) {
		drop_handle(p, rec->fh);	/* a handle id used again without its release */
		h = an_objtab_add(p->handles, rec->fh);
		if (!h)
			return -ENOMEM;
		h->priv = g;
		g->nhandles++;
	}
	return 0;
}

static int plan_init(struct plan *p, struct an_objtab *objs, struct fstap_pathmap *pm,
		     enum an_order by, uint64_t seed, const char *target, resolve_fn resolve,
		     void *arg)
{
	*p = (struct plan){ .by = by, .rng = seed, .objs = objs, .pm = pm, .target = target,
			    .resolve = resolve, .arg = arg };
	if (an_objtab_new(&p->threads) || an_objtab_new(&p->handles) || an_objtab_new(&p->files))
		return -ENOMEM;
	return 0;
}

/* Feeds one operation record (seq counts them from 0); rec stays valid until resolved. */
static int plan_feed(struct plan *p, const struct fstap_rec *rec, uint64_t seq)
{
	struct mref m = { rec, seq };
	int ret;

	if ((ret = step(p, &m)))
		return ret;
	if (rec->op == FSTAP_OP_RELEASE && rec->fh)
		drop_handle(p, rec->fh);
	if (rec->op == FSTAP_OP_READDIR && rec->result >= 0 && (ret = note_listing(p, rec)))
		return ret;
	return an_objtab_apply(p->objs, p->pm, rec);
}

/*
 * No record still to be resolved gets a time below this, now being the
 * start of the latest record fed (module comment).
 */
static uint64_t plan_low(const struct plan *p, uint64_t now)
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

/* Ends the plan: resolves the records of the open runs (err 0), frees everything. */
static int plan_end(struct plan *p, int err)
{
	int ret;

	while (p->nactive)
		if ((ret = close_run(p, p->active[p->nactive - 1])) && !err)
			err = ret;
	while (p->held) {
		struct grp *g = p->held;

		p->held = g->next;
		grp_free(g);
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
	ret = plan_init(&p, objs, pm, by, seed, NULL, set_new_t, new_t);
	p.group = group;
	p.run = run;
	for (i = 0; i < n && !ret; i++)
		ret = plan_feed(&p, recs[i], i);
	ret = plan_end(&p, ret);
	if (st)
		*st = p.st;
	return ret;
}

/* ---- the command: read, plan, write in time order ------------------------ */

/* A resolved record waiting for its place in the output. */
struct ready {
	uint64_t t, seq;
	struct fstap_rec *rec;
};

struct outq {
	struct ready *heap;
	size_t n, cap;
	uint64_t seq;		/* of the next record read (operations and metadata) */
	uint64_t last_start;	/* of the latest operation read: where metadata sorts */
	struct fstap_writer *w;
	uint64_t out_end;	/* past the end of every operation written */
};

static bool ready_before(const struct ready *a, const struct ready *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int outq_push(void *arg, const struct mref *m, uint64_t new_t)
{
	struct outq *q = arg;
	size_t i;

	if (FSTAP_GROW(q->heap, q->n + 1, q->cap))
		return -ENOMEM;
	i = q->n++;
	q->heap[i] = (struct ready){ new_t, m->seq, (struct fstap_rec *)m->rec };
	while (i && ready_before(&q->heap[i], &q->heap[(i - 1) / 2])) {
		struct ready t = q->heap[i];

		q->heap[i] = q->heap[(i - 1) / 2];
		q->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static struct ready outq_pop(struct outq *q)
{
	struct ready top = q->heap[0];
	size_t i = 0;

	q->heap[0] = q->heap[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct ready t;

		if (l < q->n && ready_before(&q->heap[l], &q->heap[m]))
			m = l;
		if (r < q->n && ready_before(&q->heap[r], &q->heap[m]))
			m = r;
		if (m == i)
			return top;
		t = q->heap[i];
		q->heap[i] = q->heap[m];
		q->heap[m] = t;
		i = m;
	}
}

/* Writes (w set) or frees the resolved records below low, in time order. */
static int outq_write(struct outq *q, uint64_t low)
{
	int ret = 0;

	while (q->n && q->heap[0].t < low) {
		struct ready r = outq_pop(q);

		if (!ret && q->w) {
			if (!fstap_op_is_meta(r.rec->op)) {
				r.rec->start_ns = r.t;
				if (r.t + r.rec->dur_ns >= q->out_end)
					q->out_end = r.t + r.rec->dur_ns + 1;
			}
			ret = fstap_writer_add(q->w, r.rec);
		}
		free(r.rec);
	}
	return ret;
}

/* One record from the sorter into the plan (operations) or the queue (metadata). */
static int reorder_one(struct plan *p, struct outq *q, const struct fstap_rec *rec)
{
	struct fstap_rec *c = fstap_rec_clone(rec);
	int ret;

	if (!c)
		return -ENOMEM;
	if (!fstap_op_is_meta(c->op)) {
		q->last_start = c->start_ns;
		/* the plan resolves c into q, after an error too (plan_end) */
		return plan_feed(p, c, q->seq++);
	}
	/* the initial state: names, types and inode numbers before any record */
	if ((c->op == FSTAP_OP_STATE_INODE || c->op == FSTAP_OP_STATE_DENTRY) &&
	    (ret = an_objtab_apply(p->objs, p->pm, c))) {
		free(c);
		return ret;
	}
	ret = outq_push(q, &(struct mref){ c, q->seq++ }, q->last_start);
	if (ret)
		free(c);
	return ret;
}

static char *reorder_metadata(struct fstap_reader *r, const char *in, enum an_order by,
			      uint64_t seed, const char *target)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:I}", "tool", "fstap reorder", "source", in,
			      "by", an_order_names[by], "seed", (json_int_t)seed);
	char *step, *meta;

	if (j && target && json_object_set_new(j, "target", json_string(target))) {
		json_decref(j);
		j = NULL;
	}
	step = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	meta = step ? an_metadata_with_transform(fstap_reader_info(r), step) : NULL;

	json_decref(j);
	free(step);
	return meta;
}

/*
 * Reads in through the plan, writes what is resolved as the bound allows.
 * Errors of reading and of memory are printed (*said set), of writing not.
 */
static int reorder_stream(struct fstap_reader *r, struct fstap_sorter *s, struct plan *p,
			  struct outq *q, uint64_t *end_ns, bool *said)
{
	struct fstap_rec rec;
	bool has_footer = false;
	uint64_t n = 0;
	int ret;

	while ((ret = fstap_sorter_next(s, &rec)) == 1) {
		if (rec.op == FSTAP_OP_FOOTER) {
			has_footer = true;
			*end_ns = rec.time_ns;
			continue;
		}
		if (rec.op == FSTAP_OP_WATERMARK)	/* not true of the new order */
			continue;
		if (!fstap_op_is_meta(rec.op) && !has_footer && rec.start_ns + rec.dur_ns > *end_ns)
			*end_ns = rec.start_ns + rec.dur_ns;
		if ((ret = reorder_one(p, q, &rec))) {
			*said = true;
			return fstap_error(ret, "out of memory");
		}
		/* the bound costs a pass over the open runs: not on every record */
		if (++n % 256 == 0 && (ret = outq_write(q, plan_low(p, q->last_start))))
			return ret;
	}
	if (ret < 0) {
		*said = true;
		fstap_error(ret, "%s", fstap_reader_errmsg(r));
	}
	return ret;
}

int an_reorder(const char *in, const char *out, enum an_order by, uint64_t seed,
	       const char *target, struct an_reorder_stats *st)
{
	struct fstap_reader *r = NULL;
	struct fstap_sorter *s = NULL;
	struct fstap_output *dst = NULL;
	const char *inputs[] = { in, NULL };
	struct an_objtab *objs = NULL;
	struct fstap_pathmap *pm = NULL;
	struct fstap_trace_info info;
	struct outq q = { .out_end = 1 };
	struct plan p = { 0 };
	uint64_t end_ns = 0;
	bool said = false;
	char line[256];
	int ret;

	if ((ret = an_open_sorted(in, &r, &s)))
		return ret;
	/* flags as the input's: a cut input's output gets one watermark, at the end */
	info = *fstap_reader_info(r);
	info.metadata_json = reorder_metadata(r, in, by, seed, target);
	if (!info.metadata_json || an_objtab_new(&objs) || fstap_pathmap_new(&pm) ||
	    plan_init(&p, objs, pm, by, seed, target, outq_push, &q)) {
		ret = fstap_error(-ENOMEM, "out of memory");
		goto done;
	}
	/* a dead object is in no open run: its runs ended with its unlink */
	an_objtab_forget_dead(objs, NULL, NULL);
	ret = an_open_trace_output(out, inputs, &info, &dst, &q.w);
	if (ret)
		goto done;
	ret = reorder_stream(r, s, &p, &q, &end_ns, &said);
	if ((ret = plan_end(&p, ret)) == -ENOMEM && !said) {
		said = true;
		fstap_error(ret, "out of memory");
	}
	if (!ret)
		ret = outq_write(&q, UINT64_MAX);
	if (!ret && fstap_reader_notice(r, "reordered", line, sizeof(line)))
		fstap_warn("%s; the output has no footer either", line);
	if (!ret && fstap_reader_cut(r)->cut)	/* every record of the output is whole */
		ret = fstap_writer_watermark(q.w, q.out_end);
	if (!ret)
		ret = fstap_writer_close(q.w, end_ns, !fstap_reader_complete(r));
	if (ret && !said) {
		fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(q.w));
	} else if (!ret) {
		ret = fstap_output_commit(dst);
		dst = NULL;
	}
done:
	if (p.threads)
		plan_end(&p, ret);
	{
		struct fstap_writer *w = q.w;

		q.w = NULL;
		outq_write(&q, UINT64_MAX);	/* after an error: frees */
		fstap_writer_free(w);
	}
	free(q.heap);
	if (st)
		*st = p.st;
	free(info.metadata_json);
	fstap_output_abort(dst);
	an_objtab_free(objs);
	fstap_pathmap_free(pm);
	fstap_sorter_free(s);
	fstap_reader_close(r);
	return ret;
}
