/*
 * rec_attrs.c: the recorder's handlers of statfs, access and the xattrs
 * (the shape of a handler: rec_ops.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/xattr.h"
#include "record/rec_ops_i.h"

void rec_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct statvfs sv;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_STATFS, ri);
	int ret = pt_statfs(&s->fs, ri, &sv);

	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_statfs(req, &sv);
	if (on)
		rq_emit(&q);
}

void rec_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct pt_cred c;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_ACCESS, ri);
	int ret;

	rec_cred_of(req, &c);
	ret = pt_access(&s->fs, &c, ri, mask);
	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.mode = (uint64_t)mask;
	rq_emit(&q);
}

static bool kernel_xattr(const char *name)
{
	return !strcmp(name, "security.capability");
}

void rec_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
		  size_t size, int flags)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_SETXATTR, ri);
	int ret = pt_setxattr(&s->fs, ri, name, value, size, flags);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = bytes_of(name);
	q.r.size = size;
	q.r.flags_arg = (uint64_t)(unsigned)flags;
	if (size && fstap_xattr_value_kept(name, size, s->xattr_value_max))
		q.r.value = (struct fstap_bytes){ (const uint8_t *)value, (uint32_t)size };
	rq_emit(&q);
}

void rec_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct scratch *sc = rec_scratch_get(size);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_GETXATTR, ri);
	ssize_t ret = sc ? pt_getxattr(&s->fs, ri, name, size ? sc->io : NULL, size) : -ENOMEM;

	rq_end(&q, ret);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)ret);
	else
		fuse_reply_buf(req, sc->io, (size_t)ret);
	if (!on)
		return;
	q.r.name = bytes_of(name);
	q.r.size = size;
	if (size && ret > 0 && fstap_xattr_value_kept(name, (size_t)ret, s->xattr_value_max))
		q.r.value = (struct fstap_bytes){ sc->io, (uint32_t)ret };
	if (kernel_xattr(name))
		q.r.flags |= FSTAP_RF_KERNEL;
	rq_emit(&q);
}

void rec_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct scratch *sc = rec_scratch_get(size);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LISTXATTR, ri);
	struct pt_cred c;
	ssize_t ret;

	rec_cred_of(req, &c);
	ret = sc ? pt_listxattr(&s->fs, &c, ri, size ? sc->io : NULL, size) : -ENOMEM;

	rq_end(&q, ret);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)ret);
	else
		fuse_reply_buf(req, sc->io, (size_t)ret);
	if (!on)
		return;
	q.r.size = size;
	rq_emit(&q);
}

void rec_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_REMOVEXATTR, ri);
	int ret = pt_removexattr(&s->fs, ri, name);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = bytes_of(name);
	rq_emit(&q);
}
