/*
 * rec_entries.c: the recorder's handlers of names and attributes: lookup,
 * forget, getattr, setattr, readlink, mknod, mkdir, symlink, link, unlink,
 * rmdir, rename (the shape of a handler: rec_ops.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/util.h"
#include "record/rec_ops_i.h"

void rec_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct rec_session *s = session_of(req);
	struct rinode *pr = inode_of(s, parent);
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LOOKUP, pr);
	int ret = pt_lookup(&s->fs, pr, name, &e);

	rq_end(&q, ret);
	if (on && !ret) {
		/* before the reply: after it, the kernel may forget e.ri at once */
		q.r.child = e.ri->obj;
		if (e.newobj && s->snapshot == REC_SNAP_TOUCHED)
			rec_snap_touched(s, pr, name, &e.st, e.ri->obj);
	}
	if (!ret) {
		rec_reply_entry(req, s, &e);
	} else if (ret == -ENOENT && s->neg_timeout > 0) {
		struct fuse_entry_param fe;

		memset(&fe, 0, sizeof(fe));
		fe.entry_timeout = s->neg_timeout;
		fuse_reply_entry(req, &fe);
	} else {
		fuse_reply_err(req, -ret);
	}
	if (!on)
		return;
	q.r.name = bytes_of(name);
	rq_emit(&q);
}

static void forget_one(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FORGET, ri);

	if (on) {
		q.r.size = nlookup;
		q.r.flags |= FSTAP_RF_KERNEL;
	}
	pt_forget(&s->fs, ri, nlookup);	/* ri may be freed now */
	rq_end(&q, 0);
	if (on)
		rq_emit(&q);
}

void rec_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(req, ino, nlookup);
	fuse_reply_none(req);
}

void rec_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *f)
{
	size_t i;

	for (i = 0; i < count; i++)
		forget_one(req, f[i].ino, f[i].nlookup);
	fuse_reply_none(req);
}

void rec_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct stat st;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_GETATTR, ri);
	bool byfh = fi && ri->type == S_IFREG;
	int ret = byfh ? pt_fgetattr(fi->fh, &st) : pt_getattr(&s->fs, ri, &st);

	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, attr_tmo(s, st.st_mode));
	if (!on)
		return;
	if (byfh)
		q.r.fh = PT_FH_ID(fi->fh);
	rq_emit(&q);
}

void rec_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		 struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct stat st;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_SETATTR, ri);
	bool byfh = fi && ri->type == S_IFREG;
	int ret = pt_setattr(&s->fs, ri, byfh ? PT_FH_FD(fi->fh) : -1, attr, valid, &st);

	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, attr_tmo(s, st.st_mode));
	if (!on)
		return;
	if (byfh)
		q.r.fh = PT_FH_ID(fi->fh);
	q.r.valid = (uint64_t)valid;
	if (valid & FUSE_SET_ATTR_MODE)
		q.r.mode = attr->st_mode;
	if (valid & FUSE_SET_ATTR_UID)
		q.r.owner_uid = attr->st_uid;
	if (valid & FUSE_SET_ATTR_GID)
		q.r.owner_gid = attr->st_gid;
	if (valid & FUSE_SET_ATTR_SIZE)
		q.r.size = (uint64_t)attr->st_size;
	if ((valid & FUSE_SET_ATTR_ATIME) && !(valid & FUSE_SET_ATTR_ATIME_NOW))
		q.r.atime = fstap_timespec_ns(&attr->st_atim);
	if ((valid & FUSE_SET_ATTR_MTIME) && !(valid & FUSE_SET_ATTR_MTIME_NOW))
		q.r.mtime = fstap_timespec_ns(&attr->st_mtim);
	if (valid & FUSE_SET_ATTR_CTIME)
		q.r.flags |= FSTAP_RF_KERNEL;
	rq_emit(&q);
}

void rec_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct scratch *sc = rec_scratch_get(0);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_READLINK, ri);
	int ret = sc ? pt_readlink(&s->fs, ri, sc->link, sizeof(sc->link)) : -ENOMEM;

	if (ret == (int)sizeof(sc->link))
		ret = -ENAMETOOLONG;
	rq_end(&q, ret);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
	} else {
		sc->link[ret] = '\0';
		fuse_reply_readlink(req, sc->link);
	}
	if (!on)
		return;
	if (ret >= 0)
		q.r.target = bytes_of(sc->link);
	rq_emit(&q);
}

/* mknod, mkdir, symlink: an entry made by the caller. */
static void finish_make(fuse_req_t req, struct rq *q, bool on, int ret, struct pt_entry *e)
{
	struct rec_session *s = session_of(req);

	rq_end(q, ret);
	if (on && !ret)
		q->r.child = e->ri->obj;
	if (ret)
		fuse_reply_err(req, -ret);
	else
		rec_reply_entry(req, s, e);
	if (on)
		rq_emit(q);
}

void rec_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       dev_t rdev)
{
	struct rec_session *s = session_of(req);
	struct rinode *pr = inode_of(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_MKNOD, pr);
	int ret;

	rec_cred_of(req, &c);
	ret = pt_mknod(&s->fs, &c, pr, name, mode, rdev, &e);
	if (on) {
		q.r.name = bytes_of(name);
		q.r.mode = mode;
		q.r.rdev = rdev;
		q.r.umask = c.umask;
	}
	finish_make(req, &q, on, ret, &e);
}

void rec_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct rec_session *s = session_of(req);
	struct rinode *pr = inode_of(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_MKDIR, pr);
	int ret;

	rec_cred_of(req, &c);
	ret = pt_mkdir(&s->fs, &c, pr, name, mode, &e);
	if (on) {
		q.r.name = bytes_of(name);
		q.r.mode = mode;
		q.r.umask = c.umask;
	}
	finish_make(req, &q, on, ret, &e);
}

void rec_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	struct rec_session *s = session_of(req);
	struct rinode *pr = inode_of(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_SYMLINK, pr);
	int ret;

	rec_cred_of(req, &c);
	ret = pt_symlink(&s->fs, &c, link, pr, name, &e);
	if (on) {
		q.r.name = bytes_of(name);
		q.r.target = bytes_of(link);
	}
	finish_make(req, &q, on, ret, &e);
}

void rec_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino), *np = inode_of(s, newparent);
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LINK, ri);
	int ret = pt_link(&s->fs, ri, np, newname, &e);

	if (on) {
		q.r.newparent = np->obj;
		q.r.newname = bytes_of(newname);
	}
	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		rec_reply_entry(req, s, &e);
	if (on)
		rq_emit(&q);
}

/* unlink, rmdir: a name removed from its directory. */
static void remove_name(fuse_req_t req, fuse_ino_t parent, const char *name, unsigned op,
			int (*remove)(struct pt_fs *, struct rinode *, const char *))
{
	struct rec_session *s = session_of(req);
	struct rinode *pr = inode_of(s, parent);
	struct rq q;
	bool on = rq_begin(&q, req, op, pr);
	int ret = remove(&s->fs, pr, name);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = bytes_of(name);
	rq_emit(&q);
}

void rec_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, FSTAP_OP_UNLINK, pt_unlink);
}

void rec_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, FSTAP_OP_RMDIR, pt_rmdir);
}

void rec_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct rec_session *s = session_of(req);
	struct rinode *pr = inode_of(s, parent), *np = inode_of(s, newparent);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_RENAME, pr);
	int ret = pt_rename(&s->fs, pr, name, np, newname, flags);

	rq_end(&q, ret);
	/* after the reply the new parent may be removed and forgotten */
	q.r.newparent = np->obj;
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = bytes_of(name);
	q.r.newname = bytes_of(newname);
	q.r.flags_arg = flags;
	rq_emit(&q);
}
