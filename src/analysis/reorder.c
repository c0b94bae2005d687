/*
 * reorder.c: `fstap reorder`: a variant of a trace in which each thread
 * visits the files of a directory in another order (readdir, name, inode or
 * a seeded random order): the order-sensitivity experiment of the news
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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/pathmap.h"
#include "fstap/sort.h"

const char *const an_order_names[AN_BY_NR] = { "readdir", "name", "inode", "random" };

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
	size_t *members, nmem, capmem;
	struct grp *all_next;
};

struct between {
	size_t idx;
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
	size_t *pending;		/* the thread's neutral records since its last group record */
	size_t npend, cappend;
	bool active;
};

struct plan {
	const struct fstap_rec *const *recs;
	enum an_order by;
	uint64_t rng;
	struct an_objtab *objs;		/* u[2] listing position + 1, u[3] listing counter (dirs) */
	struct an_objtab *threads;	/* priv: the thread's active run */
	struct an_objtab *handles;	/* priv: the group that opened the handle */
	struct an_objtab *files;	/* priv: the file's latest group */
	struct fstap_pathmap *pm;
	struct prun **active;
	size_t nactive, capactive;
	struct grp *all;
	uint64_t next_gid, next_rid;
	uint64_t *group, *run, *new_t;
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

static void place(struct plan *p, struct grp *g, int64_t delta)
{
	size_t i;

	g->delta = delta;
	g->placed = true;
	for (i = 0; i < g->nmem; i++) {
		int64_t t = (int64_t)p->recs[g->members[i]]->start_ns + delta;

		p->new_t[g->members[i]] = t < 0 ? 0 : (uint64_t)t;
	}
	free(g->members);
	g->members = NULL;
	g->nmem = g->capmem = 0;
}

static int close_run(struct plan *p, struct prun *r)
{
	struct grp **order = NULL;
	size_t k, b = 0, i;
	int64_t shift = 0;

	if (r->ng >= 2) {
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
	}
	for (k = 0; k < r->ng; k++) {
		struct grp *slot = r->g[k], *g = order ? order[k] : slot;

		/* the neutral records before slot k move with the shift so far */
		for (; b < r->nbtw && r->btw[b].slot <= k; b++) {
			int64_t t = (int64_t)p->recs[r->btw[b].idx]->start_ns + shift;

			p->new_t[r->btw[b].idx] = t < 0 ? 0 : (uint64_t)t;
		}
		if (order) {
			p->st.moved += g != slot;
			p->st.records += g->nmem;
		}
		place(p, g, (int64_t)(slot->first_t + (uint64_t)shift) - (int64_t)g->first_t);
		shift += (int64_t)(g->end_t - g->first_t) - (int64_t)(slot->end_t - slot->first_t);
	}
	/* shift is 0 again here: the neutral records after the last slot stay */
	free(order);
	for (i = 0; i < p->nactive; i++) {
		if (p->active[i] == r) {
			p->active[i] = p->active[--p->nactive];
			break;
		}
	}
	{
		struct an_obj *t = an_objtab_get(p->threads, r->tid);

		if (t && t->priv == r)
			t->priv = NULL;
	}
	for (k = 0; k < r->ng; k++)
		r->g[k]->run = NULL;
	free(r->g);
	free(r->btw);
	free(r->pending);
	free(r);
	return 0;
}

static int add_member(struct grp *g, size_t idx)
{
	if (an_grow((void **)&g->members, &g->capmem, g->nmem, sizeof(*g->members)))
		return -ENOMEM;
	g->members[g->nmem++] = idx;
	return 0;
}

static void span(struct grp *g, const struct fstap_rec *rec)
{
	if (rec->start_ns < g->first_t)
		g->first_t = rec->start_ns;
	if (rec->start_ns + rec->dur_ns > g->end_t)
		g->end_t = rec->start_ns + rec->dur_ns;
}

static struct grp *new_group(struct plan *p, struct prun *r, uint64_t file, size_t idx)
{
	const struct fstap_rec *rec = p->recs[idx];
	struct grp *g = calloc(1, sizeof(*g));
	struct an_obj *o = an_objtab_get(p->objs, file), *f;

	if (!g || an_grow((void **)&r->g, &r->capg, r->ng, sizeof(*r->g))) {
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
		g->pos = o->u[2];
		g->ino = o->ino;
		if (o->name) {
			g->name = malloc(o->name_len + 1);
			if (!g->name) {
				free(g);
				return NULL;
			}
			memcpy(g->name, o->name, o->name_len + 1);
			g->name_len = o->name_len;
		}
	} else if (rec->op == FSTAP_OP_LOOKUP) {
		g->name = malloc(rec->name.len + 1);
		if (!g->name) {
			free(g);
			return NULL;
		}
		memcpy(g->name, rec->name.ptr, rec->name.len);
		g->name[rec->name.len] = 0;
		g->name_len = rec->name.len;
	}
	g->all_next = p->all;
	p->all = g;
	r->g[r->ng++] = g;
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

	if (!r || !t || an_grow((void **)&p->active, &p->capactive, p->nactive, sizeof(*p->active))) {
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
		d->u[3] = 0;
	for (i = 0; i < rec->nentries; i++) {
		struct an_obj *e;

		if (!rec->entries[i].obj || an_dot_name(rec->entries[i].name))
			continue;
		e = an_objtab_add(p->objs, rec->entries[i].obj);
		d = an_objtab_get(p->objs, rec->obj);
		if (!e || !d)
			return -ENOMEM;
		e->u[2] = ++d->u[3];
	}
	return 0;
}

static int step(struct plan *p, size_t i)
{
	const struct fstap_rec *rec = p->recs[i];
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	bool mutates = oi && (oi->props & FSTAP_OPP_MUTATES);
	uint64_t file = 0, dir = 0;
	struct an_obj *t, *h, *f;
	struct prun *r;
	struct grp *g;
	int ret;

	if (mutates && (ret = cross_barrier(p, rec)))
		return ret;
	if (rec->tid == 0 || (rec->flags & FSTAP_RF_KERNEL)) {
		/* a release (or other handle op) without a thread joins its opener */
		h = rec->fh && oi && (oi->props & FSTAP_OPP_HANDLE) && !(rec->flags & FSTAP_RF_KERNEL)
		    ? an_objtab_get(p->handles, rec->fh) : NULL;
		g = h ? h->priv : NULL;
		if (g && g->file == rec->obj) {
			p->group[i] = g->id;
			p->run[i] = g->run_id;
			if (g->placed) {
				int64_t nt = (int64_t)rec->start_ns + g->delta;

				p->new_t[i] = nt < 0 ? 0 : (uint64_t)nt;
			} else if ((ret = add_member(g, i))) {
				return ret;
			}
		}
		return 0;
	}
	t = an_objtab_get(p->threads, rec->tid);
	r = t ? t->priv : NULL;
	if (!classify(p, rec, &file, &dir)) {
		if (!r)
			return 0;
		if (mutates || rec->op == FSTAP_OP_OPENDIR || rec->op == FSTAP_OP_READDIR ||
		    rec->op == FSTAP_OP_RELEASEDIR || rec->op == FSTAP_OP_FSYNCDIR ||
		    rec->op == FSTAP_OP_COPY_FILE_RANGE)
			return close_run(p, r);
		if (an_grow((void **)&r->pending, &r->cappend, r->npend, sizeof(*r->pending)))
			return -ENOMEM;
		r->pending[r->npend++] = i;
		return 0;
	}
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
	if (!r) {
		r = new_run(p, rec->tid, dir);
		if (!r)
			return -ENOMEM;
	}
	if (g) {
		/* the neutral records inside a group move with it */
		size_t k;

		for (k = 0; k < r->npend; k++) {
			if ((ret = add_member(g, r->pending[k])))
				return ret;
			p->group[r->pending[k]] = g->id;
			p->run[r->pending[k]] = r->id;
			span(g, p->recs[r->pending[k]]);
		}
	} else {
		size_t k;

		if (r->ng) {
			for (k = 0; k < r->npend; k++) {
				if (an_grow((void **)&r->btw, &r->capbtw, r->nbtw, sizeof(*r->btw)))
					return -ENOMEM;
				r->btw[r->nbtw].idx = r->pending[k];
				r->btw[r->nbtw++].slot = r->ng;
			}
		}
		g = new_group(p, r, file, i);
		if (!g)
			return -ENOMEM;
	}
	r->npend = 0;
	if ((ret = add_member(g, i)))
		return ret;
	span(g, rec);
	p->group[i] = g->id;
	p->run[i] = r->id;
	if (rec->op == FSTAP_OP_OPEN && rec->result >= 0 && rec->fh) {
		h = an_objtab_add(p->handles, rec->fh);
		if (!h)
			return -ENOMEM;
		h->priv = g;
	}
	return 0;
}

int an_reorder_plan(const struct fstap_rec *const *recs, size_t n, struct an_objtab *objs,
		    struct fstap_pathmap *pm, enum an_order by, uint64_t seed, uint64_t *group, uint64_t *run,
		    uint64_t *new_t, struct an_reorder_stats *st)
{
	struct plan p = { .recs = recs, .by = by, .rng = seed, .objs = objs, .pm = pm,
			  .group = group, .run = run, .new_t = new_t };
	struct grp *g, *next;
	size_t i;
	int ret = -ENOMEM;

	for (i = 0; i < n; i++) {
		group[i] = run[i] = 0;
		new_t[i] = recs[i]->start_ns;
	}
	if (an_objtab_new(&p.threads) || an_objtab_new(&p.handles) || an_objtab_new(&p.files))
		goto out;
	for (i = 0; i < n; i++) {
		const struct fstap_rec *rec = recs[i];

		if ((ret = step(&p, i)))
			goto out;
		if (rec->op == FSTAP_OP_READDIR && rec->result >= 0 && (ret = note_listing(&p, rec)))
			goto out;
		if ((ret = an_objtab_apply(objs, p.pm, rec)))
			goto out;
	}
	while (p.nactive)
		if ((ret = close_run(&p, p.active[p.nactive - 1])))
			goto out;
	ret = 0;
out:
	while (p.nactive)
		close_run(&p, p.active[p.nactive - 1]);	/* after an error: frees */
	for (g = p.all; g; g = next) {
		next = g->all_next;
		free(g->members);
		free(g->name);
		free(g);
	}
	free(p.active);
	an_objtab_free(p.threads);
	an_objtab_free(p.handles);
	an_objtab_free(p.files);
	if (st)
		*st = p.st;
	return ret;
}

/* ---- the command: load, plan, write ------------------------------------- */

struct item {
	uint64_t t;
	size_t idx;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int an_reorder(const char *in, const char *out, enum an_order by, uint64_t seed,
	       struct an_reorder_stats *st)
{
	struct fstap_reader *r = NULL;
	struct fstap_sorter *s = NULL;
	struct fstap_writer *w = NULL;
	struct fstap_output *dst = NULL;
	const char *inputs[] = { in, NULL };
	struct fstap_rec rec, **ops = NULL, **meta = NULL;
	size_t nops = 0, capops = 0, nmeta = 0, capmeta = 0, i;
	uint64_t *group = NULL, *run = NULL, *new_t = NULL, end_ns = 0;
	struct an_objtab *objs = NULL;
	struct fstap_pathmap *pm = NULL;
	struct fstap_trace_info info;
	struct item *items = NULL;
	bool has_footer = false;
	struct fstap_cut cut;
	uint64_t out_end = 1;
	char *step = NULL, line[256];
	json_t *j;
	int ret;

	if ((ret = an_open_sorted(in, &r, &s)))
		return ret;
	/* NEEDSWORK: holds the whole trace in memory; a run is bounded, a window would do */
	while ((ret = fstap_sorter_next(s, &rec)) == 1) {
		struct fstap_rec *c;

		if (rec.op == FSTAP_OP_FOOTER) {
			has_footer = true;
			end_ns = rec.time_ns;
			continue;
		}
		c = fstap_rec_clone(&rec);
		if (!c) {
			ret = -ENOMEM;
			break;
		}
		if (rec.op == FSTAP_OP_WATERMARK) {	/* not true of the new order */
			free(c);
			continue;
		}
		if (fstap_op_is_meta(rec.op)) {
			if (an_grow((void **)&meta, &capmeta, nmeta, sizeof(*meta))) {
				free(c);
				ret = -ENOMEM;
				break;
			}
			meta[nmeta++] = c;
		} else {
			if (an_grow((void **)&ops, &capops, nops, sizeof(*ops))) {
				free(c);
				ret = -ENOMEM;
				break;
			}
			ops[nops++] = c;
			if (!has_footer && rec.start_ns + rec.dur_ns > end_ns)
				end_ns = rec.start_ns + rec.dur_ns;
		}
	}
	if (ret < 0) {
		if (ret == -ENOMEM)
			fstap_error(ret, "out of memory");
		else
			fstap_error(ret, "%s", fstap_reader_errmsg(r));
		goto done;
	}
	cut = *fstap_reader_cut(r);
	if (fstap_reader_notice(r, "reordered", line, sizeof(line)))
		fstap_warn("%s; the output has no footer either", line);
	/* the initial state first: names, types and inode numbers before any record */
	ret = -ENOMEM;
	if (an_objtab_new(&objs) || fstap_pathmap_new(&pm))
		goto oom;
	for (i = 0; i < nmeta; i++)
		if (meta[i]->op == FSTAP_OP_STATE_INODE || meta[i]->op == FSTAP_OP_STATE_DENTRY)
			if (an_objtab_apply(objs, pm, meta[i]))
				goto oom;
	group = calloc(nops + 1, sizeof(*group));
	run = calloc(nops + 1, sizeof(*run));
	new_t = calloc(nops + 1, sizeof(*new_t));
	items = calloc(nops + 1, sizeof(*items));
	if (!group || !run || !new_t || !items)
		goto oom;
	if ((ret = an_reorder_plan((const struct fstap_rec *const *)ops, nops, objs, pm, by, seed,
				   group, run, new_t, st)))
		goto oom;
	for (i = 0; i < nops; i++) {
		items[i].t = new_t[i];
		items[i].idx = i;
	}
	if (nops)
		qsort(items, nops, sizeof(*items), cmp_item);

	j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "tool", "fstap reorder",
		      "source", in, "by", an_order_names[by], "seed", (json_int_t)seed,
		      "runs", (json_int_t)(st ? st->runs : 0),
		      "groups", (json_int_t)(st ? st->groups : 0),
		      "moved", (json_int_t)(st ? st->moved : 0),
		      "records", (json_int_t)(st ? st->records : 0));
	step = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(j);
	info = *fstap_reader_info(r);
	/* the output's only watermark: where the input was cut */
	info.flags &= ~FSTAP_TF_WATERMARKS;
	if (cut.cut)
		info.flags |= FSTAP_TF_WATERMARKS;
	info.metadata_json = step ? an_metadata_with_transform(fstap_reader_info(r), step) : NULL;
	if (!info.metadata_json)
		goto oom;
	ret = an_open_trace_output(out, inputs, &info, &dst, &w);
	free(info.metadata_json);
	if (ret)
		goto done;
	for (i = 0; i < nmeta && !ret; i++)
		ret = fstap_writer_add(w, meta[i]);
	for (i = 0; i < nops && !ret; i++) {
		struct fstap_rec *c = ops[items[i].idx];

		c->start_ns = items[i].t;
		if (c->start_ns + c->dur_ns >= out_end)
			out_end = c->start_ns + c->dur_ns + 1;
		ret = fstap_writer_add(w, c);
	}
	if (!ret && cut.cut)	/* every record of the output is whole */
		ret = fstap_writer_watermark(w, out_end);
	if (!ret)
		ret = fstap_writer_close(w, end_ns, !fstap_reader_complete(r));
	if (ret) {
		fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(w));
	} else {
		ret = fstap_output_commit(dst);
		dst = NULL;
	}
	goto done;
oom:
	ret = fstap_error(-ENOMEM, "out of memory");
done:
	fstap_output_abort(dst);
	fstap_writer_free(w);
	for (i = 0; i < nops; i++)
		free(ops[i]);
	for (i = 0; i < nmeta; i++)
		free(meta[i]);
	free(ops);
	free(meta);
	free(group);
	free(run);
	free(new_t);
	free(items);
	free(step);
	an_objtab_free(objs);
	fstap_pathmap_free(pm);
	fstap_sorter_free(s);
	fstap_reader_close(r);
	return ret;
}
