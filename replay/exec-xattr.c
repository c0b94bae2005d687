/*
 * exec-xattr.c: the executors of extended attributes, issued as l*xattr
 * calls on the object's name from its directory (the worker's own working
 * directory), so that no path is walked twice and a symlink is not
 * followed.
 */
#include <errno.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fstap/xattr.h"
#include "exec_i.h"
/* Enters the object's directory; x->name is then the object's name there. */
static int xattr_at(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	return rp_enter_dir(x, dfd);
}

int64_t rp_exec_setxattr(struct rp_exec *x, const struct rp_task *t)
{
	int ret = rp_name_cstr(t->rec.name, x->name2);

	if (ret || (ret = xattr_at(x, t)))
		return ret;
	if (t->rec.size > 65536)
		return -E2BIG;
	if (t->rec.value.len == t->rec.size)	/* the recorded value, or none (size 0) */
		return SYSRET(lsetxattr(x->name, x->name2, t->rec.value.ptr, t->rec.size,
					(int)(t->rec.flags_arg & 3)));
	/* left out by the recorder (or an older trace): pseudo-random bytes of its size */
	return SYSRET(lsetxattr(x->name, x->name2, x->sh->rnd, t->rec.size,
				(int)(t->rec.flags_arg & 3)));
}

int64_t rp_exec_getxattr(struct rp_exec *x, const struct rp_task *t)
{
	int ret = rp_name_cstr(t->rec.name, x->name2);

	if (ret || (ret = xattr_at(x, t)))
		return ret;
	if ((ret = rp_grow_buf(&x->buf, &x->bufcap, t->rec.size, false)))
		return ret;
	return SYSVAL(lgetxattr(x->name, x->name2, t->rec.size ? x->buf : NULL, t->rec.size));
}

/* What a listxattr of len bytes into the recorded buffer size returns. */
static int64_t list_result(const struct rp_task *t, size_t len)
{
	return t->rec.size && len > t->rec.size ? -ERANGE : (int64_t)len;
}

/*
 * The call as recorded. Only when its result differs from the recording
 * does the target's list get a second look, whole (a second call when the
 * first had no room for it): a target that lists names of its own (xfs's
 * copies of the ACLs, fstap/xattr.h) is not a divergence when the list
 * without them gives the recorded result for the recorded size.
 */
int64_t rp_exec_listxattr(struct rp_exec *x, const struct rp_task *t)
{
	size_t need = t->rec.size > XATTR_LIST_MAX ? t->rec.size : XATTR_LIST_MAX;
	int ret = xattr_at(x, t);
	int64_t n, whole, mine;

	if (ret)
		return ret;
	if ((ret = rp_grow_buf(&x->buf, &x->bufcap, need, false)))
		return ret;
	n = SYSVAL(llistxattr(x->name, t->rec.size ? (char *)x->buf : NULL, t->rec.size));
	if (n == t->rec.result || (n < 0 && n != -ERANGE))
		return n;
	whole = n >= 0 && t->rec.size ? n
		: SYSVAL(llistxattr(x->name, (char *)x->buf, XATTR_LIST_MAX));
	if (whole < 0)
		return n;
	mine = list_result(t, fstap_xattr_list_len_without_fs_own((char *)x->buf, (size_t)whole));
	return mine == t->rec.result ? mine : n;
}

int64_t rp_exec_removexattr(struct rp_exec *x, const struct rp_task *t)
{
	int ret = rp_name_cstr(t->rec.name, x->name2);

	if (ret || (ret = xattr_at(x, t)))
		return ret;
	return SYSRET(lremovexattr(x->name, x->name2));
}
