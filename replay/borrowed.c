/*
 * borrowed.c: `--mpi --split`: handles used on a rank whose processes did
 * not open them. A process works on descriptors it inherited (a shell's
 * `exec 3>log`, then its children write to fd 3): the open is replayed on
 * the opener's rank, the child's writes on another. Every rank reads the
 * whole trace, so each knows every open: before the first use of a handle
 * on a rank that has no copy, the object is opened there too (the recorded
 * flags less O_CREAT, O_EXCL and O_TRUNC: the open made it what it is);
 * at the handle's release, every rank that holds a copy closes it. These
 * opens and closes are the replay's own: they are not counted as
 * operations (handles_reopened counts the opens).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "run_i.h"

struct borrowed_open {
	uint64_t obj;
	uint32_t flags;
	unsigned op;		/* FSTAP_OP_OPEN or FSTAP_OP_OPENDIR */
};

static bool opens_handle(unsigned op)
{
	return op == FSTAP_OP_OPEN || op == FSTAP_OP_CREATE || op == FSTAP_OP_OPENDIR;
}

static bool releases_handle(unsigned op)
{
	return op == FSTAP_OP_RELEASE || op == FSTAP_OP_RELEASEDIR;
}

/* A handle opened on another rank: what its opening was. */
static int note_remote_open(struct run *r, const struct fstap_rec *c)
{
	struct borrowed_open *b = fstap_map_get_ptr(&r->fh_remote, c->fh + 1);

	if (!b) {
		b = malloc(sizeof(*b));
		if (!b)
			return -ENOMEM;
		if (fstap_map_put_ptr(&r->fh_remote, c->fh + 1, b)) {
			free(b);
			return -ENOMEM;
		}
	}
	b->obj = c->op == FSTAP_OP_CREATE ? c->child : c->obj;
	b->flags = (uint32_t)c->flags_arg & ~(uint32_t)(O_CREAT | O_EXCL | O_TRUNC);
	b->op = c->op == FSTAP_OP_OPENDIR ? FSTAP_OP_OPENDIR : FSTAP_OP_OPEN;
	return 0;
}

static void forget_remote_open(struct run *r, uint64_t fh)
{
	uint64_t v;

	if (fstap_map_del(&r->fh_remote, fh + 1, &v))
		free((struct borrowed_open *)(uintptr_t)v);
}

/* A task of the replay's own for w: op on the handle fh, as t's thread, at t's start. */
static int made_task(struct run *r, const struct rp_task *t, struct rp_worker *w, unsigned op,
		     uint64_t obj, uint64_t fh, uint32_t flags)
{
	struct fstap_rec rec = { .op = op, .tid = t->rec.tid, .pid = t->rec.pid,
				 .uid = t->rec.uid, .gid = t->rec.gid,
				 .start_ns = t->rec.start_ns, .obj = obj, .fh = fh,
				 .flags_arg = flags };
	struct rp_task *m = rp_task_new(r->arena, &rec);

	if (!m)
		return -ENOMEM;
	m->ts = t->ts;
	return rp_dispatch_made(r, m, w);
}

/* Opens fh on w (this rank's) if this rank has no copy and another rank opened it. */
static int borrow(struct run *r, const struct rp_task *t, struct rp_worker *w, uint64_t fh)
{
	const struct borrowed_open *b;
	int ret;

	if (!fh || fstap_map_get(&r->fh_local, fh + 1) ||
	    !(b = fstap_map_get_ptr(&r->fh_remote, fh + 1)))
		return 0;
	if ((ret = made_task(r, t, w, b->op, b->obj, fh, b->flags)))
		return ret;
	r->res->handles_reopened++;
	return fstap_map_put(&r->fh_local, fh + 1, (uint64_t)w->idx + 1);
}

int rp_borrow(struct run *r, struct rp_task *t, struct rp_worker *w)
{
	const struct fstap_op_info *oi = fstap_op_info(t->rec.op);
	unsigned op = t->rec.op;
	uint64_t idx;
	int ret;

	if (opens_handle(op)) {
		if (!t->rec.fh || t->rec.result < 0)
			return 0;
		if (w->remote)
			return note_remote_open(r, &t->rec);
		forget_remote_open(r, t->rec.fh);
		return fstap_map_put(&r->fh_local, t->rec.fh + 1, (uint64_t)w->idx + 1);
	}
	if (!oi || !(oi->props & FSTAP_OPP_HANDLE))
		return 0;
	if (!w->remote && ((ret = borrow(r, t, w, t->rec.fh)) ||
			   (op == FSTAP_OP_COPY_FILE_RANGE && (ret = borrow(r, t, w, t->rec.fh2)))))
		return ret;
	if (!releases_handle(op))
		return 0;
	forget_remote_open(r, t->rec.fh);
	if (!fstap_map_del(&r->fh_local, t->rec.fh + 1, &idx) || !w->remote)
		return 0;	/* no copy here, or t closes it */
	return made_task(r, t, r->w[idx - 1], op, t->rec.obj, t->rec.fh, 0);
}

void rp_borrowed_release(struct run *r)
{
	size_t pos = 0;
	uint64_t v;

	while (fstap_map_next(&r->fh_remote, &pos, NULL, &v))
		free((struct borrowed_open *)(uintptr_t)v);
	fstap_map_release(&r->fh_remote);
	fstap_map_release(&r->fh_local);
}
