/*
 * strace_calls_attr.c: the calls on attributes of an strace import: the
 * stat family and access (getattr, access), statfs, chmod, chown,
 * truncate and utimensat (setattr), the xattr calls, and the process
 * state that gives no record (umask, chdir, fchdir).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/strace_calls_i.h"

/* ---- attributes ---------------------------------------------------------- */

static int attr_op(struct imp *im, struct imp_call *c, int dirarg, int patharg, unsigned op,
		   uint64_t mode)
{
	struct fstap_rec r;
	struct target t;
	int ret = sc_target_of(im, c, dirarg, patharg, &t);

	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, op, &r);
	r.obj = t.obj;
	if (op == FSTAP_OP_GETATTR)
		r.fh = t.fh;
	else
		r.mode = mode;
	return imp_emit(im, &r);
}

int c_stat(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, -1, 0, FSTAP_OP_GETATTR, 0);
}

int c_fstat(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, 0, -1, FSTAP_OP_GETATTR, 0);
}

int c_newfstatat(struct imp *im, struct imp_call *c)	/* also statx */
		 {
	return attr_op(im, c, 0, 1, FSTAP_OP_GETATTR, 0);
}

int c_access(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, -1, 0, FSTAP_OP_ACCESS, sc_flags_arg(c, 1));
}

int c_faccessat(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, 0, 1, FSTAP_OP_ACCESS, sc_flags_arg(c, 2));
}

int c_statfs(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, -1, 0, FSTAP_OP_STATFS, 0);
}

int c_fstatfs(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, 0, -1, FSTAP_OP_STATFS, 0);
}

/* A SETATTR of the object of (dirarg, patharg); r's attribute fields are set by the caller. */
static int setattr(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		   struct fstap_rec *a)
{
	struct target t;
	int ret = sc_target_of(im, c, dirarg, patharg, &t);
	struct fstap_rec r;

	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_SETATTR, &r);
	r.obj = t.obj;
	r.fh = t.fh;
	r.valid = a->valid;
	r.mode = (a->mode & 07777) | im->objs[t.obj].type;
	r.owner_uid = a->owner_uid;
	r.owner_gid = a->owner_gid;
	r.size = a->size;
	r.atime = a->atime;
	r.mtime = a->mtime;
	if (!sc_failed(c) && (a->valid & FSTAP_SET_SIZE))
		im->objs[t.obj].size = a->size;
	return imp_emit(im, &r);
}

static int chmod_common(struct imp *im, struct imp_call *c, int dirarg, int patharg, int modearg)
{
	struct fstap_rec a = { .valid = FSTAP_SET_MODE };

	a.mode = sc_u64_arg(c, modearg);
	return setattr(im, c, dirarg, patharg, &a);
}

int c_chmod(struct imp *im, struct imp_call *c) { return chmod_common(im, c, -1, 0, 1); }
int c_fchmod(struct imp *im, struct imp_call *c) { return chmod_common(im, c, 0, -1, 1); }
int c_fchmodat(struct imp *im, struct imp_call *c) { return chmod_common(im, c, 0, 1, 2); }
	       
static int chown_common(struct imp *im, struct imp_call *c, int dirarg, int patharg, int uarg)
{
	struct fstap_rec a = { 0 };
	int64_t u = -1, g = -1;

	if (uarg < c->na)
		st_arg_int(c->a[uarg], &u);
	if (uarg + 1 < c->na)
		st_arg_int(c->a[uarg + 1], &g);
	if (u != -1) {
		a.valid |= FSTAP_SET_UID;
		a.owner_uid = (uint64_t)u;
	}
	if (g != -1) {
		a.valid |= FSTAP_SET_GID;
		a.owner_gid = (uint64_t)g;
	}
	return setattr(im, c, dirarg, patharg, &a);
}

int c_chown(struct imp *im, struct imp_call *c) { return chown_common(im, c, -1, 0, 1); }
int c_fchown(struct imp *im, struct imp_call *c) { return chown_common(im, c, 0, -1, 1); }
int c_fchownat(struct imp *im, struct imp_call *c) { return chown_common(im, c, 0, 1, 2); }
	       
static int truncate_common(struct imp *im, struct imp_call *c, int dirarg, int patharg)
{
	struct fstap_rec a = { .valid = FSTAP_SET_SIZE };

	a.size = sc_u64_arg(c, 1);
	return setattr(im, c, dirarg, patharg, &a);
}

int c_truncate(struct imp *im, struct imp_call *c) { return truncate_common(im, c, -1, 0); }
int c_ftruncate(struct imp *im, struct imp_call *c) { return truncate_common(im, c, 0, -1); }

/* One time of utimensat's array: *set, *now, *ns. */
static void utime_of(struct st_span v, bool *set, bool *now, int64_t *ns)
{
	int64_t sec = 0, nsec = 0;

	*set = *now = false;
	if (v.len >= 10 && !memcmp(v.p, "UTIME_OMIT", 10))
		return;
	*set = true;
	if (v.len >= 9 && !memcmp(v.p, "UTIME_NOW", 9)) {
		*now = true;
		return;
	}
	{
		const char *cm = memmem(v.p, v.len, " /*", 3);

		if (cm)
			v.len = (size_t)(cm - v.p);
	}
	st_arg_int(st_field(v, "tv_sec"), &sec);
	if (st_arg_int(st_field(v, "tv_nsec"), &nsec) == 0)
		*ns = sec * 1000000000ll + nsec;
	else if (st_arg_int(st_field(v, "tv_usec"), &nsec) == 0)	/* a timeval */
		*ns = sec * 1000000000ll + nsec * 1000;
	else
		*ns = sec * 1000000000ll;
}

/* A time of utime's {actime=T, modtime=T} (each maybe with a comment): ns. */
static int64_t utimbuf_time(struct st_span v, const char *key)
{
	struct st_span f = st_field(v, key);
	const char *cm = f.len ? memmem(f.p, f.len, " /*", 3) : NULL;
	int64_t sec = 0;

	if (cm)
		f.len = (size_t)(cm - f.p);
	st_arg_int(f, &sec);
	return sec * 1000000000ll;
}

/*
 * utimes(path, times), futimesat(dirfd, path, times) with times two
 * timevals or NULL, and utime(path, {actime, modtime} or NULL): setattr
 * of both times (now when NULL).
 */
static int utimes_common(struct imp *im, struct imp_call *c, int dirarg, int patharg,
			 bool utimbuf)
{
	struct fstap_rec a = { 0 };
	struct st_span ts[2], v;
	bool set, now;

	if (patharg + 1 >= c->na)
		return sc_unsupported(im, c);
	v = c->a[patharg + 1];
	if (v.len == 4 && !memcmp(v.p, "NULL", 4)) {
		a.valid = FSTAP_SET_ATIME | FSTAP_SET_ATIME_NOW | FSTAP_SET_MTIME |
			  FSTAP_SET_MTIME_NOW;
	} else if (utimbuf) {
		a.valid = FSTAP_SET_ATIME | FSTAP_SET_MTIME;
		a.atime = utimbuf_time(v, "actime");
		a.mtime = utimbuf_time(v, "modtime");
	} else {
		if (v.len < 2 || st_split_args((struct st_span){ v.p + 1, v.len - 2 }, ts, 2) != 2)
			return sc_unsupported(im, c);
		utime_of(ts[0], &set, &now, &a.atime);
		utime_of(ts[1], &set, &now, &a.mtime);
		a.valid = FSTAP_SET_ATIME | FSTAP_SET_MTIME;
	}
	return setattr(im, c, dirarg, patharg, &a);
}

int c_utime(struct imp *im, struct imp_call *c) { return utimes_common(im, c, -1, 0, true); }
int c_utimes(struct imp *im, struct imp_call *c) { return utimes_common(im, c, -1, 0, false); }
int c_futimesat(struct imp *im, struct imp_call *c) { return utimes_common(im, c, 0, 1, false); }

int c_utimensat(struct imp *im, struct imp_call *c)
{
	struct fstap_rec a = { 0 };
	struct st_span ts[2];
	bool set = false, now = false;
	int patharg = 1;

	if (c->na < 3)
		return sc_unsupported(im, c);
	if (c->a[1].len == 4 && !memcmp(c->a[1].p, "NULL", 4))
		patharg = -1;
	if (c->a[2].len == 4 && !memcmp(c->a[2].p, "NULL", 4)) {
		a.valid = FSTAP_SET_ATIME | FSTAP_SET_ATIME_NOW | FSTAP_SET_MTIME |
			  FSTAP_SET_MTIME_NOW;
	} else {
		if (c->a[2].len < 2 ||
		    st_split_args((struct st_span){ c->a[2].p + 1, c->a[2].len - 2 }, ts, 2) != 2)
			return sc_unsupported(im, c);
		utime_of(ts[0], &set, &now, &a.atime);
		if (set)
			a.valid |= now ? FSTAP_SET_ATIME_NOW : FSTAP_SET_ATIME;
		utime_of(ts[1], &set, &now, &a.mtime);
		if (set)
			a.valid |= now ? FSTAP_SET_MTIME_NOW : FSTAP_SET_MTIME;
	}
	return setattr(im, c, 0, patharg, &a);
}

/* ---- xattrs -------------------------------------------------------------- */

/* The xattr call on (dirarg, patharg) or on descriptor argument 0 (fd). */
static int xattr_common(struct imp *im, struct imp_call *c, unsigned op, bool fd)
{
	char name[256], *value = NULL;
	size_t nlen = 0, vlen = 0;
	struct fstap_rec r;
	struct target t;
	bool cut = false, vcut = false;
	int ret;

	ret = fd ? sc_target_of(im, c, 0, -1, &t) : sc_target_of(im, c, -1, 0, &t);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, op, &r);
	r.obj = t.obj;
	if (op != FSTAP_OP_LISTXATTR) {
		if (c->na < 2 || st_arg_str(c->a[1], name, sizeof(name), &nlen, &cut) || cut)
			return sc_unsupported(im, c);
		r.name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)nlen };
	}
	switch (op) {
	case FSTAP_OP_SETXATTR:
		r.size = sc_u64_arg(c, 3);
		r.flags_arg = sc_flags_arg(c, 4);
		value = im->sbuf;
		if (c->na > 2 && !st_arg_str(c->a[2], value, sizeof(im->sbuf), &vlen, &vcut) &&
		    !vcut && vlen == r.size)
			r.value = (struct fstap_bytes){ (const uint8_t *)value, (uint32_t)vlen };
		break;
	case FSTAP_OP_GETXATTR:
		r.size = sc_u64_arg(c, 3);
		r.result = sc_res_of(c);
		value = im->sbuf;
		if (r.size && r.result > 0 && c->na > 2 &&
		    !st_arg_str(c->a[2], value, sizeof(im->sbuf), &vlen, &vcut) && !vcut &&
		    (int64_t)vlen == r.result)
			r.value = (struct fstap_bytes){ (const uint8_t *)value, (uint32_t)vlen };
		break;
	case FSTAP_OP_LISTXATTR:
		r.size = sc_u64_arg(c, 2);
		r.result = sc_res_of(c);
		break;
	default:
		break;
	}
	return imp_emit(im, &r);
}

int c_setxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_SETXATTR, false);
}

int c_fsetxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_SETXATTR, true);
}

int c_getxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_GETXATTR, false);
}

int c_fgetxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_GETXATTR, true);
}

int c_listxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_LISTXATTR, false);
}

int c_flistxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_LISTXATTR, true);
}

int c_removexattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_REMOVEXATTR, false);
}

int c_fremovexattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_REMOVEXATTR, true);
}

/* ---- process state ------------------------------------------------------- */

int c_umask(struct imp *im, struct imp_call *c)
{
	(void)im;
	c->p->umask = (uint32_t)sc_u64_arg(c, 0) & 0777;
	return 0;
}

int c_chdir(struct imp *im, struct imp_call *c)
{
	if (sc_failed(c) || sc_arg_path(im, c, -1, 0, im->path))
		return 0;
	sc_set_cwd(c->p, im->path);
	return 0;
}

int c_fchdir(struct imp *im, struct imp_call *c)
{
	int fd;

	if (!sc_failed(c) && c->na > 0 && !st_arg_fd(c->a[0], &fd, im->fdpath, PATH_MAX) &&
	    im->fdpath[0] == '/')
		sc_set_cwd(c->p, im->fdpath);
	return 0;
}
