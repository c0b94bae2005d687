/*
 * reorder_group.c: the reorder plan's grouping of the records, one at a
 * time: which records of a thread form a file's group, which groups form a
 * run, what ends a run, and the handles and listings the grouping follows.
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
 * own belong to no group and stay where they are. A closed run goes to
 * reorder_order.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reorder_i.h"
#include "fstap/list.h"
#include "fstap/name.h"
#include "fstap/ops.h"
#include "fstap/pathmap.h"

FSTAP_LIST_DEFINE(held_list, struct grp, prev, next)

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
	if (!group_op(rec->op))
		return false;
	if (rec->op == FSTAP_OP_LOOKUP) {
		if (rec->result < 0 || !rec->child ||
		    fstap_pathmap_kind(p->pm, rec->child) == FSTAP_KIND_DIR)
			return false;
		*file = rec->child;
		*dir = rec->obj;
		return true;
	}
	if (!rec->obj || fstap_pathmap_kind(p->pm, rec->obj) == FSTAP_KIND_DIR ||
	    !(*dir = fstap_pathmap_parent(p->pm, rec->obj)))
		return false;
	*file = rec->obj;
	return true;
}

void ro_grp_free(struct grp *g)
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
	held_list_unlink(&p->held, g);
	ro_grp_free(g);
}

void ro_grp_done(struct plan *p, struct grp *g)
{
	struct an_obj *f = an_objtab_get(p->files, g->file);

	if (f && f->priv == g)
		an_objtab_del(p->files, g->file);
	if (!g->nhandles) {
		ro_grp_free(g);
		return;
	}
	held_list_push(&p->held, g);
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
	struct fstap_bytes name;
	uint64_t parent;

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
	}
	if (fstap_pathmap_name(p->pm, file, &parent, &name) < 0) {
		name.len = 0;
		if (rec->op == FSTAP_OP_LOOKUP)
			name = rec->name;
	}
	if (name.len && !(g->name = copy_name(name.ptr, name.len))) {
		free(g);
		return NULL;
	}
	g->name_len = name.len;
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

/* Whether file has a group in run r (its latest group is r's). */
static bool in_run(struct plan *p, uint64_t file, const struct prun *r)
{
	struct an_obj *f = an_objtab_get(p->files, file);

	return f && f->priv && ((struct grp *)f->priv)->run == r;
}

/* Whether rec, a change by another thread, touches run r's directory or files. */
static bool crosses(struct plan *p, const struct fstap_rec *rec, const struct prun *r)
{
	uint64_t objs[3] = { rec->obj, rec->newparent, rec->obj2 };
	size_t j;

	if (r->tid == rec->tid && rec->tid != 0)
		return false;
	for (j = 0; j < 3; j++) {
		if (!objs[j])
			continue;
		if (objs[j] == r->dir)
			return true;
		if (in_run(p, objs[j], r))
			return true;
	}
	return false;
}

/* A change by another thread to a run's directory or files ends that run. */
static int cross_barrier(struct plan *p, const struct fstap_rec *rec)
{
	size_t i;
	int ret;

	for (i = 0; i < p->nactive;) {
		if (crosses(p, rec, p->active[i])) {
			if ((ret = ro_close_run(p, p->active[i])))
				return ret;
			continue;	/* active[i] now holds another run */
		}
		i++;
	}
	return 0;
}

int ro_note_listing(struct plan *p, const struct fstap_rec *rec)
{
	struct an_obj *d = an_objtab_add(p->objs, rec->obj);
	uint32_t i;

	if (!d)
		return -ENOMEM;
	if (rec->offset == 0)
		d->reorder.entries = 0;
	for (i = 0; i < rec->nentries; i++) {
		const struct fstap_dirent *ent = &rec->entries[i];
		struct an_obj *e;

		if (!ent->obj || fstap_name_dots(ent->name.ptr, ent->name.len))
			continue;
		e = an_objtab_add(p->objs, ent->obj);
		d = an_objtab_get(p->objs, rec->obj);
		if (!e || !d)
			return -ENOMEM;
		e->reorder.pos = ++d->reorder.entries;
	}
	return 0;
}

void ro_drop_handle(struct plan *p, uint64_t fh)
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
		return ro_resolve_at(p, m, (int64_t)rec->start_ns);
	note(p, m->seq, g, g->run_id);
	if (g->placed)
		return ro_resolve_at(p, m, (int64_t)rec->start_ns + g->delta);
	return add_member(g, rec, m->seq);
}

/*
 * A neutral record of a thread with run r open (or NULL): it ends the run
 * if it changes the file system or works on a directory, else waits in the
 * run's pending records to know whether a group of the run follows it.
 */
static int step_neutral(struct plan *p, struct prun *r, const struct mref *m, bool mutates)
{
	const struct fstap_rec *rec = m->rec;
	int ret;

	if (!r)
		return ro_resolve_at(p, m, (int64_t)rec->start_ns);
	if (mutates || rec->op == FSTAP_OP_OPENDIR || rec->op == FSTAP_OP_READDIR ||
	    rec->op == FSTAP_OP_RELEASEDIR || rec->op == FSTAP_OP_FSYNCDIR ||
	    rec->op == FSTAP_OP_COPY_FILE_RANGE) {
		if ((ret = ro_close_run(p, r)))
			return ret;
		return ro_resolve_at(p, m, (int64_t)rec->start_ns);
	}
	if (FSTAP_GROW(r->pending, r->npend + 1, r->cappend))
		return -ENOMEM;
	r->pending[r->npend++] = *m;
	return 0;
}

/* The run and group a group record of file in dir joins (new ones if need be). */
static int join(struct plan *p, struct prun **rp, struct grp **gp, uint64_t file, uint64_t dir,
		const struct fstap_rec *rec)
{
	struct prun *r = *rp;
	struct grp *g;
	int ret;

	if (r && r->dir != dir) {
		if ((ret = ro_close_run(p, r)))
			return ret;
		r = NULL;
	}
	g = r && r->ng ? r->g[r->ng - 1] : NULL;
	if (g && g->file != file) {
		if (in_run(p, file, r)) {
			/* back to a file of this run: its groups must not swap */
			if ((ret = ro_close_run(p, r)))
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

/*
 * The pending neutral records of r before a group record of file: inside
 * the group *gp they move with it; before a new group (made here, in *gp)
 * they stay between the slots.
 */
static int settle_pending(struct plan *p, struct prun *r, struct grp **gp, uint64_t file,
			  const struct fstap_rec *rec)
{
	struct grp *g = *gp;
	size_t k;
	int ret;

	if (g) {
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
		*gp = g;
	}
	r->npend = 0;
	return 0;
}

/* A successful open by g's thread: its handle's release will join g. */
static int open_handle(struct plan *p, const struct fstap_rec *rec, struct grp *g)
{
	struct an_obj *h;

	ro_drop_handle(p, rec->fh);	/* a handle id used again without its release */
	h = an_objtab_add(p->handles, rec->fh);
	if (!h)
		return -ENOMEM;
	h->priv = g;
	g->nhandles++;
	return 0;
}

int ro_step(struct plan *p, const struct mref *m)
{
	const struct fstap_rec *rec = m->rec;
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	bool mutates = oi && (oi->props & FSTAP_OPP_MUTATES);
	uint64_t file = 0, dir = 0;
	struct an_obj *t;
	struct prun *r;
	struct grp *g;
	int ret;

	if (mutates && (ret = cross_barrier(p, rec)))
		return ret;
	if (rec->tid == 0 || (rec->flags & FSTAP_RF_KERNEL))
		return step_threadless(p, m, oi);
	t = an_objtab_get(p->threads, rec->tid);
	r = t ? t->priv : NULL;
	if (!classify(p, rec, &file, &dir))
		return step_neutral(p, r, m, mutates);
	if ((ret = join(p, &r, &g, file, dir, rec)) || (ret = settle_pending(p, r, &g, file, rec)))
		return ret;
	if ((ret = add_member(g, rec, m->seq)))
		return ret;
	span(g, rec);
	note(p, m->seq, g, r->id);
	if (rec->op == FSTAP_OP_OPEN && rec->result >= 0 && rec->fh)
		return open_handle(p, rec, g);
	return 0;
}
