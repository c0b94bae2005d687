/*
 * classify.c: what each recorded request stands for, from its thread's
 * neighbours in recorded order: which LOOKUPs and GETATTRs the replay's own
 * system calls reproduce (the target kernel's path walk and permission
 * checks), which GETATTR with a handle stands for a read at the end of a
 * file, and which WRITEs are the parts of one write() the kernel split;
 * from that, what the replay issues (rp_fate, inline in replay_i.h with
 * rp_classified and rp_op_next/prev). The rules are docs/replay.md's
 * "Semantics"; stage.c keeps each thread's records in order and calls
 * rp_classify_arrived as a record joins its thread's list, rp_classify as
 * it leaves it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "replay_i.h"

/* ---- lookups ------------------------------------------------------------ */

static bool same_name(struct fstap_bytes a, struct fstap_bytes b)
{
	return a.len == b.len && (!a.len || !memcmp(a.ptr, b.ptr, a.len));
}

/*
 * The kernel turns one path-based system call into LOOKUPs of each
 * component followed by the operation itself; the target kernel does the
 * same walk when the replay issues that operation. So a lookup is absorbed
 * when the same thread's next request continues that walk: it creates or
 * removes the looked-up entry, acts on the object found, or is an entry
 * operation (or lookup) inside the object found (a longer path).
 */
bool rp_lookup_absorbed(const struct fstap_rec *l, const struct fstap_rec *n)
{
	bool entry = n->obj == l->obj && same_name(n->name, l->name);
	bool child = l->child && l->result >= 0;

	switch (n->op) {
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
	case FSTAP_OP_UNLINK:
	case FSTAP_OP_RMDIR:
		return entry || (child && n->obj == l->child);
	case FSTAP_OP_LOOKUP:
		/* Only a lookup inside the object found continues the walk. A
		 * second lookup of the same entry is another call's walk: the
		 * application's stat() of an absent name, then its
		 * open(O_CREAT) or rename() to it (which looks it up again:
		 * negative entries are not cached), as samba-xattr's "check it
		 * is absent, then create" does. */
		return child && n->obj == l->child;
	case FSTAP_OP_RENAME:
		return entry || (n->newparent == l->obj && same_name(n->newname, l->name)) ||
		       (child && (n->obj == l->child || n->newparent == l->child));
	case FSTAP_OP_LINK:
		return (n->newparent == l->obj && same_name(n->newname, l->name)) ||
		       (child && (n->obj == l->child || n->newparent == l->child));
	case FSTAP_OP_OPEN:
	case FSTAP_OP_OPENDIR:
	case FSTAP_OP_GETATTR:
	case FSTAP_OP_SETATTR:
	case FSTAP_OP_GETXATTR:
	case FSTAP_OP_LISTXATTR:
	case FSTAP_OP_SETXATTR:
	case FSTAP_OP_REMOVEXATTR:
	case FSTAP_OP_READLINK:
	case FSTAP_OP_ACCESS:
	case FSTAP_OP_STATFS:
		return child && n->obj == l->child;
	default:
		return false;
	}
}

/*
 * GETATTRs the application did not ask for. When the recording did not
 * cache attributes (attr_timeout 0, the default cache mode), the kernel
 * refreshes them before every permission check: open(), an xattr call on a
 * file, or the walk through a directory that changed (its lookup, create,
 * unlink, rename...) reach FUSE as a GETATTR of the object followed by the
 * call itself. That GETATTR is absorbed when the same thread's next request
 * is such a call on the same object: the target kernel makes its own check.
 * The first write() to a file just created is preceded by a GETATTR of it
 * too. The application's stat() before such a call is the GETATTR before
 * that one, and stays. (A GETATTR with a handle never is a stat(): fstat()
 * passes no file to FUSE; those are dealt with in feed().)
 */
bool rp_getattr_absorbed(const struct fstap_rec *g, const struct fstap_rec *n)
{
	switch (n->op) {
	case FSTAP_OP_OPEN:
	case FSTAP_OP_OPENDIR:
	case FSTAP_OP_GETXATTR:
	case FSTAP_OP_SETXATTR:
	case FSTAP_OP_REMOVEXATTR:
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
	case FSTAP_OP_UNLINK:
	case FSTAP_OP_RMDIR:
	case FSTAP_OP_WRITE:	/* the first write to a file just created */
		return n->obj == g->obj;
	case FSTAP_OP_RENAME:
		return n->obj == g->obj || n->newparent == g->obj;
	case FSTAP_OP_LINK:
		return n->newparent == g->obj;
	default:
		return false;
	}
}

/*
 * open(O_CREAT) that creates the file reaches FUSE as CREATE and then, when
 * attributes are not cached, a GETATTR of the new file: the attributes the
 * CREATE returned are stale at once, and the open's own permission check
 * after the create (may_open() in do_open(), fs/namei.c; fuse_permission()
 * refreshes stale attributes under default_permissions) asks for them
 * again. So the GETATTR of the created file right after a successful
 * CREATE in the same thread is part of that open(), which the replay
 * issues; the application's stat() or fstat() of the new file would be a
 * second GETATTR after it.
 */
bool rp_getattr_after_create(const struct fstap_rec *prev, const struct fstap_rec *g)
{
	return prev->op == FSTAP_OP_CREATE && prev->result >= 0 && prev->child &&
	       prev->child == g->obj && !g->fh;
}

/*
 * A path walk checks search permission on every directory it passes, and
 * when a directory's attributes are not cached (in the default cache mode,
 * after the directory changed through the mount: an entry created, removed
 * or renamed in it) that check is a GETATTR of the directory. When the
 * entries on the way are cached, nothing else of the walk reaches FUSE: a
 * stat("d/e/f") of a cached f in a changed d is GETATTR(d), GETATTR(f). So
 * a GETATTR of directory g->obj is the walk's check when the same thread's
 * next request acts, by path, on an object below it (fstap_pathmap_below: on
 * the path the replay will use, as the records dispatched so far tell):
 * a getattr, open, xattr call... of that object, or an entry operation or
 * lookup in a directory below it. As with entry operations in
 * the directory itself (rp_getattr_absorbed), an application's stat() of
 * the directory right before such a call is indistinguishable, and is
 * absorbed too.
 */
bool rp_getattr_walk(const struct fstap_rec *g, const struct fstap_rec *n,
		     const struct fstap_pathmap *pm)
{
	switch (n->op) {
	case FSTAP_OP_GETATTR:
	case FSTAP_OP_SETATTR:
		if (n->fh)
			return false;	/* on a handle: no walk */
		/* fall through */
	case FSTAP_OP_OPEN:
	case FSTAP_OP_OPENDIR:
	case FSTAP_OP_GETXATTR:
	case FSTAP_OP_LISTXATTR:
	case FSTAP_OP_SETXATTR:
	case FSTAP_OP_REMOVEXATTR:
	case FSTAP_OP_READLINK:
	case FSTAP_OP_ACCESS:
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
	case FSTAP_OP_UNLINK:
	case FSTAP_OP_RMDIR:
		return fstap_pathmap_below(pm, n->obj, g->obj);
	case FSTAP_OP_RENAME:
	case FSTAP_OP_LINK:
		return fstap_pathmap_below(pm, n->obj, g->obj) ||
		       fstap_pathmap_below(pm, n->newparent, g->obj);
	default:
		return false;
	}
}

/*
 * Whether n, the request after getattr g in its thread, is an entry
 * operation or lookup in directory g->obj, or a path call below it: what
 * makes g the permission check of a walk through a directory.
 */
static bool dir_walk_next(const struct fstap_rec *g, const struct fstap_rec *n,
			  const struct fstap_pathmap *pm)
{
	switch (n->op) {
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
	case FSTAP_OP_UNLINK:
	case FSTAP_OP_RMDIR:
		if (n->obj == g->obj)
			return true;
		break;
	case FSTAP_OP_RENAME:
		if (n->obj == g->obj || n->newparent == g->obj)
			return true;
		break;
	case FSTAP_OP_LINK:
		if (n->newparent == g->obj)
			return true;
		break;
	default:
		break;
	}
	return rp_getattr_walk(g, n, pm);
}

/*
 * Two GETATTRs of a directory back to back, then a walk through it: both
 * are the kernel's (with every timeout 0, --cache=all, each walk through a
 * directory asks twice; in the default mode another thread's change can
 * make the kernel ask again). An application's stat() of the directory is
 * never right before the walk's own check: with attributes not cached the
 * walk to the directory comes between (GETATTR of its parent, LOOKUP of
 * it), and with directory attributes cached the stat() leaves them valid.
 * (A file's stat() then open() is GETATTR, GETATTR, OPEN: the first is the
 * stat(), and stays; this rule is for directories only.)
 */
bool rp_getattr_dir_twice(const struct fstap_rec *g, const struct fstap_rec *n,
			  const struct fstap_rec *nn, const struct fstap_pathmap *pm)
{
	return n->op == FSTAP_OP_GETATTR && !n->fh && !g->fh && n->obj == g->obj && nn &&
	       dir_walk_next(g, nn, pm);
}

/*
 * glibc's opendir() is an open with O_NDELAY (O_NONBLOCK) and an fstat() of
 * the new descriptor; the fstat reaches FUSE, when the directory's
 * attributes are not cached, as a GETATTR of it right after the OPENDIR.
 * The opendir executor issues that fstat for every OPENDIR with O_NONBLOCK
 * (exec.c), so the GETATTR is absorbed, whatever the cache mode.
 */
bool rp_getattr_after_opendir(const struct fstap_rec *prev, const struct fstap_rec *g)
{
	return prev->op == FSTAP_OP_OPENDIR && prev->result >= 0 && (prev->flags_arg & O_NONBLOCK) &&
	       prev->obj == g->obj && !g->fh;
}

/*
 * Writes the kernel splits. FUSE's buffered write path (fuse_perform_write
 * -> fuse_fill_write_pages/folios, fs/fuse/file.c) ends a WRITE request
 * after a page it fills only partly and that is not up to date, and at
 * max_write: one write() starting inside such a page and going past its
 * end reaches FUSE as [off, next page boundary) and the rest. Before each
 * write() system call, and only once per call, the kernel asks for
 * security.capability (file_remove_privs(), flagged as the kernel's by the
 * recorder): that GETXATTR is the call boundary the WRITE records lack.
 * A thread's write that starts at a page boundary exactly where its
 * previous, complete write on the same handle ended, with no marker in
 * between, while that previous write had its marker (or continues one
 * that had), is the rest of that write(): the replay issues one pwrite of
 * the whole range. Without markers (a backing fs whose xattr calls fail
 * with ENOSYS, direct I/O, a hand-made trace) nothing is merged: a writer
 * of 512-byte records produces the same shape from separate calls. Every
 * Linux page size is a multiple of 4096, so a page boundary of the
 * recording machine is a multiple of 4096.
 */
#define SPLIT_ALIGN 4096

bool rp_write_marker(const struct fstap_rec *r)
{
	static const char cap[] = "security.capability";

	return r->op == FSTAP_OP_GETXATTR && (r->flags & FSTAP_RF_KERNEL) &&
	       r->result != -ENOSYS &&
	       same_name(r->name, (struct fstap_bytes){ (const uint8_t *)cap, sizeof(cap) - 1 });
}

bool rp_write_continues(const struct fstap_rec *p, const struct fstap_rec *w)
{
	return p->op == FSTAP_OP_WRITE && w->op == FSTAP_OP_WRITE &&
	       !((p->flags | w->flags) & FSTAP_RF_KERNEL) && p->fh == w->fh && p->obj == w->obj &&
	       p->size && p->result >= 0 && (uint64_t)p->result == p->size && w->result >= 0 &&
	       p->offset + p->size == w->offset && w->offset % SPLIT_ALIGN == 0;
}

unsigned rp_merge_split_write(struct rp_task *t)
{
	struct rp_task *q;
	unsigned n = 0;

	if (t->rec.op != FSTAP_OP_WRITE || t->merged)
		return 0;
	for (q = t->tnext; q && q->rec.op == FSTAP_OP_WRITE && q->absorbed && !q->merged;
	     q = q->tnext) {
		/* q->absorbed was found against q->tprev, the part before it */
		if (t->rec.size + q->rec.size > RP_IO_MAX)
			break;
		q->merged = true;
		t->rec.size += q->rec.size;
		t->rec.result += q->rec.result;
		n++;
	}
	return n;
}

/*
 * What a thread's lookups and getattrs stand for depends on the thread's
 * next request (and, for a getattr with a handle, on its earlier ones), in
 * recorded order. Records reach the replay in file order, which is not
 * quite time order (a thread's requests are served by several FUSE workers,
 * each writing its own chunks), so they are classified after the reorder
 * window, in start order: each thread keeps a list of its records from the
 * window's output to their dispatch, and a record is dispatched once the
 * records it depends on have joined its list (classified()), or, when its
 * thread pauses, once a window's worth of later records has. A record
 * leaves its list when it is dispatched.
 *
 * GETATTRs with a handle are the kernel refreshing the size before a read
 * that may pass the cached end of file (or an O_APPEND write, an lseek to
 * the end); fstat() never passes a file to FUSE, so none is a stat() of the
 * application, and they are not issued. With one exception: the
 * application's read() at end of file, which returns 0 without reaching
 * FUSE, leaves only that GETATTR behind. A GETATTR on a handle whose last
 * request in the thread was a short read (it reached the end of file), and
 * that no read on the handle follows at once, is replayed as that read: the
 * size of the short read, at its end (it returns 0 on the target too).
 */
/* The latest request on fh in h (newest first), or NULL. */
static const struct rp_fh_seen *latest_on(const struct rp_fh_hist *h, uint64_t fh)
{
	unsigned i, k;

	for (i = 0; i < h->n; i++) {
		k = (h->next + RP_EOF_SCAN - 1 - i) % RP_EOF_SCAN;
		if (h->e[k].fh == fh)
			return &h->e[k];
	}
	return NULL;
}

/* t joins h, the thread's latest requests. */
static void seen(struct rp_fh_hist *h, const struct fstap_rec *c)
{
	struct rp_fh_seen *e = &h->e[h->next];

	e->fh = c->fh;
	e->short_read = c->op == FSTAP_OP_READ && c->result >= 0 && (uint64_t)c->result < c->size;
	e->end = c->offset + (uint64_t)(c->result > 0 ? c->result : 0);
	e->size = c->size;
	h->next = (h->next + 1) % RP_EOF_SCAN;
	if (h->n < RP_EOF_SCAN)
		h->n++;
}

/*
 * The records before t that its rules look at: the one right before it, in
 * its thread's list when t joins it (what is not dispatched yet: a write
 * waits for the part after it, a create or opendir for its end), and, for
 * a getattr with a handle, the thread's latest requests (h: they may have
 * been dispatched already).
 */
void rp_classify_arrived(struct rp_task *t, struct rp_fh_hist *h)
{
	struct fstap_rec *c = &t->rec;
	const struct rp_fh_seen *e;
	const struct rp_task *p;

	switch (c->op) {
	case FSTAP_OP_WRITE:
		/* the part before a split's continuation is always right before
		 * it: the kernel sends the parts back to back */
		p = t->tprev;
		if (!p || (c->flags & FSTAP_RF_KERNEL))
			break;
		t->marked = p->marker && p->rec.obj == c->obj;
		t->absorbed = !p->marker && (p->marked || p->absorbed) &&
			      rp_write_continues(&p->rec, c);
		break;
	case FSTAP_OP_GETATTR:
		if (!c->fh) {
			if ((p = rp_op_prev(t))) {
				t->after_create = rp_getattr_after_create(&p->rec, c);
				t->after_opendir = rp_getattr_after_opendir(&p->rec, c);
			}
			break;
		}
		t->absorbed = true;
		if ((e = latest_on(h, c->fh)) && e->short_read) {
			t->absorbed = false;
			t->eof_read = true;
			c->offset = e->end;
			c->size = e->size;
		}
		break;
	default:
		break;
	}
	if (!t->marker)
		seen(h, c);
}

/* When t is dispatched, the records after it it depends on have come (rp_classified). */
void rp_classify(bool attr_stale, const struct fstap_pathmap *pm, struct rp_task *t)
{
	struct fstap_rec *c = &t->rec;
	const struct rp_task *n = rp_op_next(t), *nn;

	switch (c->op) {
	case FSTAP_OP_LOOKUP:
		t->absorbed = n && rp_lookup_absorbed(c, &n->rec);
		break;
	case FSTAP_OP_GETATTR:
		if (c->fh) {
			/* the kernel's refresh before the read that follows */
			if (n && n->rec.op == FSTAP_OP_READ && n->rec.fh == c->fh) {
				t->absorbed = true;
				t->eof_read = false;
			}
			break;
		}
		nn = n ? rp_op_next(n) : NULL;
		t->absorbed = t->after_opendir ||
			      (attr_stale && (t->after_create ||
					      (n && (rp_getattr_absorbed(c, &n->rec) ||
						     rp_getattr_walk(c, &n->rec, pm) ||
						     rp_getattr_dir_twice(c, &n->rec,
									  nn ? &nn->rec : NULL, pm)))));
		break;
	default:
		break;
	}
}
