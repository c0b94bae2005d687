/*
 * strace_calls.c: one function per system call of an strace log, turning
 * the call into the fstap operation records the recorder would have
 * written for it: open/openat/creat (open, create, opendir), read/write
 * and their p- and v- forms, close (flush, release), the stat family and
 * access (getattr, access), getdents64 (readdir with its entries), mkdir,
 * unlink, rmdir, rename (with flags), link, symlink, readlink,
 * chmod/chown/utimensat/truncate (setattr), the xattr calls, fsync,
 * fdatasync, fallocate, copy_file_range, statfs, lseek (SEEK_DATA and
 * SEEK_HOLE only), plus what keeps the state right without a record: dup,
 * fcntl, umask, chdir.
 *
 * Paths: an argument path is made absolute with its directory
 * descriptor's -yy annotation (or the process's working directory, learned
 * from AT_FDCWD<...> and chdir) and normalized lexically; only paths below
 * --root are imported, as paths relative to it. A name the importer does
 * not know yet, met by a call that succeeded, is learned with a LOOKUP
 * record (as the kernel would have looked it up); a call that failed on a
 * missing name becomes a LOOKUP of the first missing component with the
 * call's error, so that a replay meets the same error.
 *
 * NEEDSWORK: openat2, mknod, utimes/utime/futimesat, O_TMPFILE, symlinks
 * in the middle of a path (resolved lexically) and the -ff per-pid files
 * are not imported; they are counted as calls with no fstap operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/imp_i.h"

#define HANDLED 1	/* the call is counted or its records are written */

/* ---- paths --------------------------------------------------------------- */

/* Normalizes an absolute path in place: no "//", ".", ".." or trailing '/'. */
static void normalize(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		char *c;
		size_t n;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		c = in;
		while (*in && *in != '/')
			in++;
		n = (size_t)(in - c);
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, c, n);
		out += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* The path relative to --root ("" for the root), or NULL if outside it. */
static const char *rel_of(struct imp *im, const char *abs)
{
	if (!im->rootlen)
		return abs[1] ? abs + 1 : abs + 1;
	if (strncmp(abs, im->root, im->rootlen))
		return NULL;
	if (abs[im->rootlen] == '\0')
		return abs + im->rootlen;
	if (abs[im->rootlen] != '/')
		return NULL;
	return abs + im->rootlen + 1;
}

static void set_cwd(struct imp_proc *p, const char *dir)
{
	if (p->cwd && !strcmp(p->cwd, dir))
		return;
	free(p->cwd);
	p->cwd = strdup(dir);
}

/*
 * The absolute path of argument patharg, relative to the descriptor of
 * argument dirarg (-1: the working directory) into out. 0, -ENOENT if the
 * directory is not known, -EINVAL if the arguments are not what they should.
 */
static int arg_path(struct imp *im, struct imp_call *c, int dirarg, int patharg, char *out)
{
	char *dir = im->fdpath;
	size_t len, dlen;
	bool cut;
	int fd, ret;

	if (patharg >= c->na)
		return -EINVAL;
	if ((ret = st_arg_str(c->a[patharg], im->sbuf, sizeof(im->sbuf), &len, &cut)) || cut)
		return ret ? ret : -EINVAL;
	dir[0] = '\0';
	if (dirarg >= 0) {
		if (dirarg >= c->na || st_arg_fd(c->a[dirarg], &fd, dir, PATH_MAX))
			return -EINVAL;
		if (fd == AT_FDCWD && dir[0] == '/')
			set_cwd(c->p, dir);
	} else if (c->p->cwd) {
		snprintf(dir, PATH_MAX, "%s", c->p->cwd);
	}
	if (im->sbuf[0] == '/') {
		dir[0] = '\0';
	} else if (dir[0] != '/') {
		return -ENOENT;
	}
	dlen = strlen(dir);
	if (dlen + 1 + len + 1 > PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(out, dir, dlen);
	out[dlen] = '/';
	memcpy(out + dlen + 1, im->sbuf, len + 1);
	normalize(out);
	return 0;
}

/* ---- records ------------------------------------------------------------- */

static int rec_lookup(struct imp *im, struct imp_call *c, uint64_t parent, const char *name,
		      uint64_t child, int64_t res)
{
	struct fstap_rec r;

	imp_rec(im, c, FSTAP_OP_LOOKUP, &r);
	r.obj = parent;
	r.name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)strlen(name) };
	r.child = child;
	r.result = res;
	return imp_emit(im, &r);
}

static void set_name(struct fstap_bytes *b, const char *s)
{
	*b = (struct fstap_bytes){ (const uint8_t *)s, (uint32_t)strlen(s) };
}

/*
 * Walks rel ("a/b/c") from the root: *parent the directory of its last
 * component, leaf that component, *obj its object (0 if not known). With
 * learn, unknown directories on the way are learned with LOOKUP records;
 * without, an unknown one stops the walk: returns 1 with *parent the last
 * known directory and leaf the missing component. 0, 1 or -errno.
 */
static int walk(struct imp *im, struct imp_call *c, const char *rel, bool learn,
		uint64_t *parent, char *leaf, uint64_t *obj)
{
	uint64_t dir = FSTAP_ROOT_OBJ;
	const char *s = rel;
	int ret;

	*parent = 0;
	*obj = FSTAP_ROOT_OBJ;
	leaf[0] = '\0';
	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		uint64_t child;

		memcpy(leaf, s, n);
		leaf[n] = '\0';
		child = ns_get(im, dir, leaf);
		if (!e) {
			*parent = dir;
			*obj = child;
			return 0;
		}
		if (!child) {
			if (!learn) {
				*parent = dir;
				return 1;
			}
			child = ns_new_obj(im, S_IFDIR, dir);
			if (!child || (ret = ns_add(im, dir, leaf, child)))
				return -ENOMEM;
			if ((ret = rec_lookup(im, c, dir, leaf, child, 0)))
				return ret;
		}
		dir = child;
		s = e + 1;
	}
	return 0;
}

/* Learns the unknown object at parent/leaf (a successful call found it). */
static int learn_leaf(struct imp *im, struct imp_call *c, uint64_t parent, const char *leaf,
		      uint32_t type, uint64_t *obj)
{
	int ret;

	if (*obj)
		return 0;
	*obj = ns_new_obj(im, type, parent);
	if (!*obj || (ret = ns_add(im, parent, leaf, *obj)))
		return -ENOMEM;
	return rec_lookup(im, c, parent, leaf, *obj, 0);
}

static bool failed(const struct imp_call *c)
{
	return c->l->has_result && c->l->result < 0;
}

static int64_t res_of(const struct imp_call *c)
{
	return c->l->has_result ? c->l->result : 0;
}

/* Counts the call as outside --root (or on something that is no file). */
static int outside(struct imp *im, struct imp_call *c)
{
	im->st->outside++;
	imp_count(im->outside, &im->noutside, c->l->name);
	return HANDLED;
}

static int unsupported(struct imp *im, struct imp_call *c)
{
	im->st->unsupported++;
	imp_count(im->unsupported, &im->nunsupported, c->l->name);
	return HANDLED;
}

/*
 * The descriptor of a "/proc/self/fd/N" path (also thread-self), by which
 * programs act on an O_PATH descriptor (tar's chmod of a directory), or -1.
 */
static int proc_fd_path(const char *p)
{
	const char *n;
	char *end;
	long fd;

	if (!strncmp(p, "/proc/self/fd/", 14))
		n = p + 14;
	else if (!strncmp(p, "/proc/thread-self/fd/", 21))
		n = p + 21;
	else
		return -1;
	fd = strtol(n, &end, 10);
	return *n && !*end && fd >= 0 && fd < (1 << 20) ? (int)fd : -1;
}

/* Where a call on an existing object acts. */
struct target {
	uint64_t parent, obj, fh;
	struct imp_ofd *o;	/* when made through a descriptor */
	char leaf[NAME_MAX + 1];
	const char *rel;
};

/*
 * The object of a call on a path (dirarg, patharg) or, with patharg < 0 or
 * an empty path, on the descriptor of dirarg. 0: t is set (for a failed
 * call, the caller writes the operation with the error); HANDLED: the call
 * is counted or its LOOKUP error written; -errno.
 */
static int target_of(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		     struct target *t)
{
	int fd, ret;

	memset(t, 0, sizeof(*t));
	if (patharg >= 0 && patharg < c->na && c->a[patharg].len == 2 &&
	    !memcmp(c->a[patharg].p, "\"\"", 2))
		patharg = -1;	/* AT_EMPTY_PATH */
	if (patharg < 0) {
		if (dirarg >= c->na || st_arg_fd(c->a[dirarg], &fd, im->fdpath, PATH_MAX))
			return unsupported(im, c);
		t->o = imp_fd_get(c->p, fd);
		if (!t->o) {
			if (im->fdpath[0] == '/' && rel_of(im, im->fdpath)) {
				im->st->unknown_fd++;
				return HANDLED;
			}
			return outside(im, c);
		}
		t->obj = t->o->obj;
		t->fh = t->o->opath ? 0 : t->o->fh;
		return 0;
	}
	ret = arg_path(im, c, dirarg, patharg, im->path);
	if (ret == -ENOENT)
		return outside(im, c);	/* relative to a directory the log does not name */
	if (ret)
		return unsupported(im, c);
	if ((fd = proc_fd_path(im->path)) >= 0) {
		t->o = imp_fd_get(c->p, fd);
		if (!t->o)
			return outside(im, c);
		t->obj = t->o->obj;
		t->fh = t->o->opath ? 0 : t->o->fh;
		return 0;
	}
	if (!(t->rel = rel_of(im, im->path)))
		return outside(im, c);
	ret = walk(im, c, t->rel, !failed(c), &t->parent, t->leaf, &t->obj);
	if (ret < 0)
		return ret;
	if (failed(c) && (ret == 1 || !t->obj)) {
		ret = rec_lookup(im, c, t->parent, t->leaf, 0, c->l->result);
		return ret ? ret : HANDLED;
	}
	if (!failed(c) && !t->obj && (ret = learn_leaf(im, c, t->parent, t->leaf, 0, &t->obj)))
		return ret;
	return 0;
}

/*
 * Where a call that makes a name acts: parent/leaf of (dirarg, patharg);
 * the root itself (obj 1, no parent) only if root_ok.
 * 0, HANDLED (counted, or the LOOKUP error of a missing directory), -errno.
 */
static int entry_of(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		    char *pathbuf, bool root_ok, struct target *t)
{
	int ret;

	memset(t, 0, sizeof(*t));
	ret = arg_path(im, c, dirarg, patharg, pathbuf);
	if (ret == -ENOENT)
		return outside(im, c);
	if (ret)
		return unsupported(im, c);
	if (!(t->rel = rel_of(im, pathbuf)) || (!t->rel[0] && !root_ok))
		return outside(im, c);
	ret = walk(im, c, t->rel, !failed(c), &t->parent, t->leaf, &t->obj);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		ret = rec_lookup(im, c, t->parent, t->leaf, 0, c->l->result);
		return ret ? ret : HANDLED;
	}
	return 0;
}

/* The open file of descriptor argument i, or NULL when the call is counted. */
static struct imp_ofd *fd_arg(struct imp *im, struct imp_call *c, int i)
{
	struct target t;

	return target_of(im, c, i, -1, &t) ? NULL : t.o;
}

static uint64_t u64_arg(struct imp_call *c, int i)
{
	int64_t v = 0;

	if (i < c->na)
		st_arg_int(c->a[i], &v);
	return (uint64_t)v;
}

static uint64_t flags_arg(struct imp_call *c, int i)
{
	uint64_t v = 0;

	if (i < c->na)
		st_arg_flags(c->a[i], &v);
	return v;
}

/* ---- open and close ------------------------------------------------------ */

static uint64_t new_fh(struct imp *im)
{
	return ++im->next_fh;
}

static int add_fd(struct imp *im, struct imp_call *c, uint64_t obj, uint64_t fh,
		  uint64_t flags, bool dir, bool opath)
{
	struct imp_ofd *o = calloc(1, sizeof(*o));
	int fd = (int)res_of(c), ret;

	if (!o)
		return -ENOMEM;
	o->obj = obj;
	o->fh = fh;
	o->flags = flags;
	o->dir = dir;
	o->opath = opath;
	if (imp_fd_get(c->p, fd) && (ret = imp_fd_close(im, c, c->p, fd))) {
		free(o);
		return ret;
	}
	ret = imp_fd_set(im, c->p, fd, o, flags & O_CLOEXEC);
	if (ret)
		free(o);
	return ret;
}

static int do_open(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		   uint64_t flags, uint64_t mode)
{
	bool dir = flags & O_DIRECTORY;
	struct fstap_rec r;
	struct target t;
	uint64_t fh;
	int ret;

	if ((flags & O_TMPFILE) == O_TMPFILE)
		return unsupported(im, c);
	ret = entry_of(im, c, dirarg, patharg, im->path, true, &t);
	if (ret)
		return ret < 0 ? ret : 0;
	if (failed(c)) {
		if (!t.obj && (!(flags & O_CREAT) || c->l->err == ENOENT)) {
			ret = rec_lookup(im, c, t.parent, t.leaf, 0, c->l->result);
			return ret;
		}
		if (!t.obj || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
			imp_rec(im, c, FSTAP_OP_CREATE, &r);
			r.obj = t.parent;
			set_name(&r.name, t.leaf);
			r.mode = S_IFREG | (mode & 07777);
			r.umask = c->p->umask;
			r.flags_arg = flags;
			return imp_emit(im, &r);
		}
		dir = dir || im->objs[t.obj].type == S_IFDIR;
		imp_rec(im, c, dir ? FSTAP_OP_OPENDIR : FSTAP_OP_OPEN, &r);
		r.obj = t.obj;
		r.flags_arg = flags;
		return imp_emit(im, &r);
	}
	if (flags & O_PATH) {
		if ((ret = learn_leaf(im, c, t.parent, t.leaf, 0, &t.obj)))
			return ret;
		return add_fd(im, c, t.obj, 0, flags, false, true);
	}
	fh = new_fh(im);
	if (!t.obj && (flags & O_CREAT)) {
		t.obj = ns_new_obj(im, S_IFREG, t.parent);
		if (!t.obj || (ret = ns_add(im, t.parent, t.leaf, t.obj)))
			return -ENOMEM;
		imp_rec(im, c, FSTAP_OP_CREATE, &r);
		r.obj = t.parent;
		set_name(&r.name, t.leaf);
		r.mode = S_IFREG | (mode & 07777);
		r.umask = c->p->umask;
		r.flags_arg = flags;
		r.child = t.obj;
		r.fh = fh;
		if ((ret = imp_emit(im, &r)))
			return ret;
		return add_fd(im, c, t.obj, fh, flags, false, false);
	}
	if ((ret = learn_leaf(im, c, t.parent, t.leaf, dir ? S_IFDIR : 0, &t.obj)))
		return ret;
	dir = dir || im->objs[t.obj].type == S_IFDIR;
	imp_rec(im, c, dir ? FSTAP_OP_OPENDIR : FSTAP_OP_OPEN, &r);
	r.obj = t.obj;
	r.flags_arg = flags;
	r.fh = fh;
	if ((ret = imp_emit(im, &r)))
		return ret;
	if (flags & O_TRUNC)
		im->objs[t.obj].size = 0;
	return add_fd(im, c, t.obj, fh, flags, dir, false);
}

static int c_open(struct imp *im, struct imp_call *c)
{
	return do_open(im, c, -1, 0, flags_arg(c, 1), u64_arg(c, 2));
}

static int c_openat(struct imp *im, struct imp_call *c)
{
	return do_open(im, c, 0, 1, flags_arg(c, 2), u64_arg(c, 3));
}

static int c_creat(struct imp *im, struct imp_call *c)
{
	return do_open(im, c, -1, 0, O_CREAT | O_WRONLY | O_TRUNC, u64_arg(c, 1));
}

static int c_close(struct imp *im, struct imp_call *c)
{
	int fd;

	if (c->na < 1 || st_arg_fd(c->a[0], &fd, im->fdpath, PATH_MAX))
		return unsupported(im, c);
	if (!imp_fd_get(c->p, fd))
		return outside(im, c);
	return imp_fd_close(im, c, c->p, fd);
}

static int dup_to(struct imp *im, struct imp_call *c, struct imp_ofd *o, bool cloexec)
{
	int nfd = (int)res_of(c), ret;

	if (failed(c) || !c->l->has_result)
		return 0;
	if (imp_fd_get(c->p, nfd) == o)
		return 0;	/* dup2(fd, fd) */
	if (imp_fd_get(c->p, nfd) && (ret = imp_fd_close(im, c, c->p, nfd)))
		return ret;
	return imp_fd_set(im, c->p, nfd, o, cloexec);
}

static int c_dup(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = fd_arg(im, c, 0);
	bool cloexec = !strcmp(c->l->name, "dup3") && (flags_arg(c, 2) & O_CLOEXEC);

	return o ? dup_to(im, c, o, cloexec) : 0;
}

static int c_fcntl(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = fd_arg(im, c, 0);
	int fd;

	if (!o || c->na < 2)
		return 0;
	if (c->a[1].len >= 7 && !memcmp(c->a[1].p, "F_DUPFD", 7))
		return dup_to(im, c, o, memmem(c->a[1].p, c->a[1].len, "CLOEXEC", 7) != NULL);
	if (c->a[1].len == 7 && !memcmp(c->a[1].p, "F_SETFD", 7) && !failed(c)) {
		st_arg_fd(c->a[0], &fd, im->fdpath, PATH_MAX);
		c->p->fds->v[fd].cloexec = c->na > 2 && memmem(c->a[2].p, c->a[2].len,
							       "FD_CLOEXEC", 10);
	}
	return 0;
}

/* ---- data ---------------------------------------------------------------- */

static int do_io(struct imp *im, struct imp_call *c, bool write, int offarg, bool vec)
{
	struct imp_ofd *o = fd_arg(im, c, 0);
	struct imp_obj *ob;
	struct fstap_rec r;
	int64_t res = res_of(c);

	if (!o)
		return 0;
	if (o->dir || o->opath)
		return unsupported(im, c);
	ob = &im->objs[o->obj];
	imp_rec(im, c, write ? FSTAP_OP_WRITE : FSTAP_OP_READ, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.result = res;
	r.size = vec ? (res > 0 ? (uint64_t)res : 0) : u64_arg(c, 2);
	if (offarg >= 0)
		r.offset = u64_arg(c, offarg);
	else
		r.offset = write && (o->flags & O_APPEND) ? ob->size : o->pos;
	if (res > 0) {
		if (offarg < 0)
			o->pos = r.offset + (uint64_t)res;
		if (write && r.offset + (uint64_t)res > ob->size)
			ob->size = r.offset + (uint64_t)res;
	}
	return imp_emit(im, &r);
}

static int c_read(struct imp *im, struct imp_call *c) { return do_io(im, c, false, -1, false); }
static int c_write(struct imp *im, struct imp_call *c) { return do_io(im, c, true, -1, false); }
static int c_pread(struct imp *im, struct imp_call *c) { return do_io(im, c, false, 3, false); }
static int c_pwrite(struct imp *im, struct imp_call *c) { return do_io(im, c, true, 3, false); }
static int c_readv(struct imp *im, struct imp_call *c) { return do_io(im, c, false, -1, true); }
static int c_writev(struct imp *im, struct imp_call *c) { return do_io(im, c, true, -1, true); }
static int c_preadv(struct imp *im, struct imp_call *c) { return do_io(im, c, false, 3, true); }
static int c_pwritev(struct imp *im, struct imp_call *c) { return do_io(im, c, true, 3, true); }

static int c_lseek(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = fd_arg(im, c, 0);
	uint64_t whence = flags_arg(c, 2);
	struct fstap_rec r;

	if (!o)
		return 0;
	if (!failed(c) && c->l->has_result)
		o->pos = (uint64_t)c->l->result;
	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return 0;
	imp_rec(im, c, FSTAP_OP_LSEEK, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.offset = u64_arg(c, 1);
	r.whence = whence;
	r.result = res_of(c);
	return imp_emit(im, &r);
}

static int do_sync(struct imp *im, struct imp_call *c, bool data)
{
	struct imp_ofd *o = fd_arg(im, c, 0);
	struct fstap_rec r;

	if (!o)
		return 0;
	if (o->opath)
		return unsupported(im, c);
	imp_rec(im, c, o->dir ? FSTAP_OP_FSYNCDIR : data ? FSTAP_OP_FDATASYNC : FSTAP_OP_FSYNC, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	if (o->dir)
		r.flags_arg = data;
	return imp_emit(im, &r);
}

static int c_fsync(struct imp *im, struct imp_call *c) { return do_sync(im, c, false); }
static int c_fdatasync(struct imp *im, struct imp_call *c) { return do_sync(im, c, true); }

static int c_fallocate(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = fd_arg(im, c, 0);
	struct fstap_rec r;

	if (!o)
		return 0;
	imp_rec(im, c, FSTAP_OP_FALLOCATE, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.flags_arg = flags_arg(c, 1);
	r.offset = u64_arg(c, 2);
	r.size = u64_arg(c, 3);
	if (!failed(c) && !(r.flags_arg & 0x01) && r.offset + r.size > im->objs[o->obj].size)
		im->objs[o->obj].size = r.offset + r.size;
	return imp_emit(im, &r);
}

static int c_copy_file_range(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *in = fd_arg(im, c, 0), *out;
	struct fstap_rec r;
	int64_t res = res_of(c);
	bool null_in, null_out;

	if (!in || !(out = fd_arg(im, c, 2)))
		return 0;
	null_in = c->na > 1 && c->a[1].len == 4 && !memcmp(c->a[1].p, "NULL", 4);
	null_out = c->na > 3 && c->a[3].len == 4 && !memcmp(c->a[3].p, "NULL", 4);
	imp_rec(im, c, FSTAP_OP_COPY_FILE_RANGE, &r);
	r.obj = in->obj;
	r.fh = in->fh;
	r.obj2 = out->obj;
	r.fh2 = out->fh;
	r.offset = null_in ? in->pos : u64_arg(c, 1);
	r.offset2 = null_out ? out->pos : u64_arg(c, 3);
	r.size = u64_arg(c, 4);
	r.flags_arg = u64_arg(c, 5);
	r.result = res;
	if (res > 0) {
		if (null_in)
			in->pos += (uint64_t)res;
		if (null_out)
			out->pos += (uint64_t)res;
		if (r.offset2 + (uint64_t)res > im->objs[out->obj].size)
			im->objs[out->obj].size = r.offset2 + (uint64_t)res;
	}
	return imp_emit(im, &r);
}

/* ---- directories --------------------------------------------------------- */

static uint32_t dtype_of(struct st_span v)
{
	static const struct { const char *n; uint32_t t; } names[] = {
		{ "DT_UNKNOWN", 0 }, { "DT_FIFO", 1 }, { "DT_CHR", 2 }, { "DT_DIR", 4 },
		{ "DT_BLK", 6 }, { "DT_REG", 8 }, { "DT_LNK", 10 }, { "DT_SOCK", 12 },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].n) == v.len && !memcmp(names[i].n, v.p, v.len))
			return names[i].t;
	return 0;
}

/* The value of key in a "{k=v, k=v}" span, or an empty span. */
static struct st_span field(struct st_span obj, const char *key)
{
	struct st_span f[ST_ARGS_MAX];
	size_t kl = strlen(key);
	int n, i;

	if (obj.len < 2 || obj.p[0] != '{')
		return (struct st_span){ NULL, 0 };
	n = st_split_args((struct st_span){ obj.p + 1, obj.len - 2 }, f, ST_ARGS_MAX);
	for (i = 0; i < n; i++)
		if (f[i].len > kl && !memcmp(f[i].p, key, kl) && f[i].p[kl] == '=')
			return (struct st_span){ f[i].p + kl + 1, f[i].len - kl - 1 };
	return (struct st_span){ NULL, 0 };
}

/* The names of a getdents64 result, as entries; *names holds their bytes. */
static int parse_dirents(struct imp *im, struct imp_ofd *o, struct st_span list,
			 struct fstap_dirent **out, uint32_t *n, char **names)
{
	struct st_span items[1];
	size_t cap = 0, used = 0, i = 1, start;
	struct fstap_dirent *v = NULL;
	char *buf;
	uint32_t cnt = 0;
	int ret;

	*out = NULL;
	*n = 0;
	*names = NULL;
	if (list.len < 2 || list.p[0] != '[' || list.p[list.len - 1] != ']')
		return -EINVAL;
	buf = malloc(list.len + 1);
	if (!buf)
		return -ENOMEM;
	/* the items are "{...}" at depth 1 */
	while (i < list.len - 1) {
		struct st_span e;
		int depth = 0;
		bool q = false;

		while (i < list.len - 1 && list.p[i] != '{')
			i++;
		if (i >= list.len - 1)
			break;
		start = i;
		for (; i < list.len - 1; i++) {
			char ch = list.p[i];

			if (q) {
				if (ch == '\\')
					i++;
				else if (ch == '"')
					q = false;
				continue;
			}
			if (ch == '"')
				q = true;
			else if (ch == '{')
				depth++;
			else if (ch == '}' && --depth == 0)
				break;
		}
		items[0] = (struct st_span){ list.p + start, i - start + 1 };
		i++;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 64;
			void *nv = realloc(v, nc * sizeof(*v));

			if (!nv) {
				free(v);
				free(buf);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		{
			size_t len;
			bool cut;
			int64_t ino = 0, off = 0;
			struct fstap_dirent *d = &v[cnt];
			uint64_t obj;

			e = field(items[0], "d_name");
			if (st_arg_str(e, buf + used, list.len + 1 - used, &len, &cut) || cut) {
				free(v);
				free(buf);
				return -EINVAL;
			}
			st_arg_int(field(items[0], "d_ino"), &ino);
			st_arg_int(field(items[0], "d_off"), &off);
			d->name = (struct fstap_bytes){ (const uint8_t *)buf + used, (uint32_t)len };
			d->ino = (uint64_t)ino;
			d->type = dtype_of(field(items[0], "d_type"));
			if (!strcmp(buf + used, "."))
				obj = o->obj;
			else if (!strcmp(buf + used, ".."))
				obj = o->obj == FSTAP_ROOT_OBJ ? 0 : im->objs[o->obj].parent;
			else if (!(obj = ns_get(im, o->obj, buf + used))) {
				obj = ns_new_obj(im, d->type == 4 ? S_IFDIR : 0, o->obj);
				if (!obj || (ret = ns_add(im, o->obj, buf + used, obj))) {
					free(v);
					free(buf);
					return -ENOMEM;
				}
			}
			d->obj = obj;
			o->dir_cookie = (uint64_t)off;
			used += len + 1;
			cnt++;
		}
	}
	*out = v;
	*n = cnt;
	*names = buf;
	return 0;
}

static int c_getdents(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = fd_arg(im, c, 0);
	struct fstap_rec r;
	struct fstap_dirent *ents = NULL;
	char *names = NULL;
	uint64_t cookie;
	int ret = 0;

	if (!o)
		return 0;
	if (!o->dir)
		return unsupported(im, c);
	cookie = o->dir_cookie;
	imp_rec(im, c, FSTAP_OP_READDIR, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.offset = cookie;
	r.size = u64_arg(c, 2);
	if (!failed(c) && res_of(c) > 0) {
		if (c->na < 2 || (ret = parse_dirents(im, o, c->a[1], &ents, &r.nentries, &names)))
			return ret == -ENOMEM ? ret : unsupported(im, c);
		r.entries = ents;
		r.result = r.nentries;
	}
	ret = imp_emit(im, &r);
	free(ents);
	free(names);
	return ret;
}

static int c_mkdir_common(struct imp *im, struct imp_call *c, int dirarg, int patharg,
			  uint64_t mode)
{
	struct fstap_rec r;
	struct target t;
	int ret = entry_of(im, c, dirarg, patharg, im->path, false, &t);

	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_MKDIR, &r);
	r.obj = t.parent;
	set_name(&r.name, t.leaf);
	r.mode = S_IFDIR | (mode & 07777);
	r.umask = c->p->umask;
	if (!failed(c)) {
		r.child = ns_new_obj(im, S_IFDIR, t.parent);
		if (!r.child || ns_add(im, t.parent, t.leaf, r.child))
			return -ENOMEM;
	}
	return imp_emit(im, &r);
}

static int c_mkdir(struct imp *im, struct imp_call *c)
{
	return c_mkdir_common(im, c, -1, 0, u64_arg(c, 1));
}

static int c_mkdirat(struct imp *im, struct imp_call *c)
{
	return c_mkdir_common(im, c, 0, 1, u64_arg(c, 2));
}

static int remove_common(struct imp *im, struct imp_call *c, int dirarg, int patharg, bool dir)
{
	struct fstap_rec r;
	struct target t;
	int ret = entry_of(im, c, dirarg, patharg, im->path, false, &t);

	if (ret)
		return ret < 0 ? ret : 0;
	if (failed(c) && !t.obj && c->l->err == ENOENT)
		return rec_lookup(im, c, t.parent, t.leaf, 0, c->l->result);
	imp_rec(im, c, dir ? FSTAP_OP_RMDIR : FSTAP_OP_UNLINK, &r);
	r.obj = t.parent;
	set_name(&r.name, t.leaf);
	if ((ret = imp_emit(im, &r)))
		return ret;
	if (!failed(c))
		ns_remove(im, t.parent, t.leaf);
	return 0;
}

static int c_unlink(struct imp *im, struct imp_call *c) { return remove_common(im, c, -1, 0, false); }
static int c_rmdir(struct imp *im, struct imp_call *c) { return remove_common(im, c, -1, 0, true); }

static int c_unlinkat(struct imp *im, struct imp_call *c)
{
	return remove_common(im, c, 0, 1, flags_arg(c, 2) & AT_REMOVEDIR);
}

static int rename_common(struct imp *im, struct imp_call *c, int od, int op, int nd, int np,
			 uint64_t flags)
{
	struct fstap_rec r;
	struct target s, d;
	char sleaf[NAME_MAX + 1];
	int ret = entry_of(im, c, od, op, im->path, false, &s);

	if (ret)
		return ret < 0 ? ret : 0;
	if (!s.obj && !failed(c) && (ret = learn_leaf(im, c, s.parent, s.leaf, 0, &s.obj)))
		return ret;
	if (failed(c) && !s.obj && c->l->err == ENOENT)
		return rec_lookup(im, c, s.parent, s.leaf, 0, c->l->result);
	memcpy(sleaf, s.leaf, sizeof(sleaf));
	ret = entry_of(im, c, nd, np, im->path2, false, &d);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_RENAME, &r);
	r.obj = s.parent;
	set_name(&r.name, sleaf);
	r.newparent = d.parent;
	set_name(&r.newname, d.leaf);
	r.flags_arg = flags;
	if ((ret = imp_emit(im, &r)) || failed(c))
		return ret;
	if (s.parent == d.parent && !strcmp(sleaf, d.leaf))
		return 0;
	if (flags & 2) {	/* RENAME_EXCHANGE */
		if ((ret = ns_add(im, s.parent, sleaf, d.obj)))
			return ret;
		return ns_add(im, d.parent, d.leaf, s.obj);
	}
	ns_remove(im, s.parent, sleaf);
	return ns_add(im, d.parent, d.leaf, s.obj);
}

static int c_rename(struct imp *im, struct imp_call *c)
{
	return rename_common(im, c, -1, 0, -1, 1, 0);
}

static int c_renameat(struct imp *im, struct imp_call *c)
{
	return rename_common(im, c, 0, 1, 2, 3, 0);
}

static int c_renameat2(struct imp *im, struct imp_call *c)
{
	return rename_common(im, c, 0, 1, 2, 3, flags_arg(c, 4));
}

static int link_common(struct imp *im, struct imp_call *c, int od, int op, int nd, int np)
{
	struct fstap_rec r;
	struct target s, d;
	int ret = target_of(im, c, od, op, &s);

	if (ret)
		return ret < 0 ? ret : 0;
	ret = entry_of(im, c, nd, np, im->path2, false, &d);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_LINK, &r);
	r.obj = s.obj;
	r.newparent = d.parent;
	set_name(&r.newname, d.leaf);
	if ((ret = imp_emit(im, &r)) || failed(c))
		return ret;
	return ns_add(im, d.parent, d.leaf, s.obj);
}

static int c_link(struct imp *im, struct imp_call *c) { return link_common(im, c, -1, 0, -1, 1); }
static int c_linkat(struct imp *im, struct imp_call *c) { return link_common(im, c, 0, 1, 2, 3); }

static int symlink_common(struct imp *im, struct imp_call *c, int dirarg, int patharg)
{
	char target[PATH_MAX];
	struct fstap_rec r;
	struct target t;
	size_t len;
	bool cut;
	int ret;

	if (st_arg_str(c->a[0], target, sizeof(target), &len, &cut) || cut)
		return unsupported(im, c);
	ret = entry_of(im, c, dirarg, patharg, im->path, false, &t);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_SYMLINK, &r);
	r.obj = t.parent;
	set_name(&r.name, t.leaf);
	r.target = (struct fstap_bytes){ (const uint8_t *)target, (uint32_t)len };
	if (!failed(c)) {
		r.child = ns_new_obj(im, S_IFLNK, t.parent);
		if (!r.child || ns_add(im, t.parent, t.leaf, r.child))
			return -ENOMEM;
		im->objs[r.child].target = strdup(target);
	}
	return imp_emit(im, &r);
}

static int c_symlink(struct imp *im, struct imp_call *c) { return symlink_common(im, c, -1, 1); }
static int c_symlinkat(struct imp *im, struct imp_call *c) { return symlink_common(im, c, 1, 2); }

static int readlink_common(struct imp *im, struct imp_call *c, int dirarg, int patharg)
{
	char target[PATH_MAX];
	struct fstap_rec r;
	struct target t;
	size_t len = 0;
	bool cut = false;
	int ret = target_of(im, c, dirarg, patharg, &t);

	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_READLINK, &r);
	r.obj = t.obj;
	if (!failed(c)) {
		const char *known = im->objs[t.obj].target;

		if (patharg + 1 < c->na)
			st_arg_str(c->a[patharg + 1], target, sizeof(target), &len, &cut);
		if ((cut || !len) && known) {
			len = strlen(known);
			memcpy(target, known, len + 1);
		}
		r.target = (struct fstap_bytes){ (const uint8_t *)target, (uint32_t)len };
	}
	return imp_emit(im, &r);
}

static int c_readlink(struct imp *im, struct imp_call *c) { return readlink_common(im, c, -1, 0); }
static int c_readlinkat(struct imp *im, struct imp_call *c) { return readlink_common(im, c, 0, 1); }

/* ---- attributes ---------------------------------------------------------- */

static int attr_op(struct imp *im, struct imp_call *c, int dirarg, int patharg, unsigned op,
		   uint64_t mode)
{
	struct fstap_rec r;
	struct target t;
	int ret = target_of(im, c, dirarg, patharg, &t);

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

static int c_stat(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, -1, 0, FSTAP_OP_GETATTR, 0);
}

static int c_fstat(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, 0, -1, FSTAP_OP_GETATTR, 0);
}

static int c_newfstatat(struct imp *im, struct imp_call *c)	/* also statx */
{
	return attr_op(im, c, 0, 1, FSTAP_OP_GETATTR, 0);
}

static int c_access(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, -1, 0, FSTAP_OP_ACCESS, flags_arg(c, 1));
}

static int c_faccessat(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, 0, 1, FSTAP_OP_ACCESS, flags_arg(c, 2));
}

static int c_statfs(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, -1, 0, FSTAP_OP_STATFS, 0);
}

static int c_fstatfs(struct imp *im, struct imp_call *c)
{
	return attr_op(im, c, 0, -1, FSTAP_OP_STATFS, 0);
}

/* A SETATTR of the object of (dirarg, patharg); r's attribute fields are set by the caller. */
static int setattr(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		   struct fstap_rec *a)
{
	struct target t;
	int ret = target_of(im, c, dirarg, patharg, &t);
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
	if (!failed(c) && (a->valid & FSTAP_SET_SIZE))
		im->objs[t.obj].size = a->size;
	return imp_emit(im, &r);
}

static int chmod_common(struct imp *im, struct imp_call *c, int dirarg, int patharg, int modearg)
{
	struct fstap_rec a = { .valid = FSTAP_SET_MODE };

	a.mode = u64_arg(c, modearg);
	return setattr(im, c, dirarg, patharg, &a);
}

static int c_chmod(struct imp *im, struct imp_call *c) { return chmod_common(im, c, -1, 0, 1); }
static int c_fchmod(struct imp *im, struct imp_call *c) { return chmod_common(im, c, 0, -1, 1); }
static int c_fchmodat(struct imp *im, struct imp_call *c) { return chmod_common(im, c, 0, 1, 2); }

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

static int c_chown(struct imp *im, struct imp_call *c) { return chown_common(im, c, -1, 0, 1); }
static int c_fchown(struct imp *im, struct imp_call *c) { return chown_common(im, c, 0, -1, 1); }
static int c_fchownat(struct imp *im, struct imp_call *c) { return chown_common(im, c, 0, 1, 2); }

static int truncate_common(struct imp *im, struct imp_call *c, int dirarg, int patharg)
{
	struct fstap_rec a = { .valid = FSTAP_SET_SIZE };

	a.size = u64_arg(c, 1);
	return setattr(im, c, dirarg, patharg, &a);
}

static int c_truncate(struct imp *im, struct imp_call *c) { return truncate_common(im, c, -1, 0); }
static int c_ftruncate(struct imp *im, struct imp_call *c) { return truncate_common(im, c, 0, -1); }

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
	st_arg_int(field(v, "tv_sec"), &sec);
	st_arg_int(field(v, "tv_nsec"), &nsec);
	*ns = sec * 1000000000ll + nsec;
}

static int c_utimensat(struct imp *im, struct imp_call *c)
{
	struct fstap_rec a = { 0 };
	struct st_span ts[2];
	bool set = false, now = false;
	int patharg = 1;

	if (c->na < 3)
		return unsupported(im, c);
	if (c->a[1].len == 4 && !memcmp(c->a[1].p, "NULL", 4))
		patharg = -1;
	if (c->a[2].len == 4 && !memcmp(c->a[2].p, "NULL", 4)) {
		a.valid = FSTAP_SET_ATIME | FSTAP_SET_ATIME_NOW | FSTAP_SET_MTIME |
			  FSTAP_SET_MTIME_NOW;
	} else {
		if (c->a[2].len < 2 ||
		    st_split_args((struct st_span){ c->a[2].p + 1, c->a[2].len - 2 }, ts, 2) != 2)
			return unsupported(im, c);
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

	ret = fd ? target_of(im, c, 0, -1, &t) : target_of(im, c, -1, 0, &t);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, op, &r);
	r.obj = t.obj;
	if (op != FSTAP_OP_LISTXATTR) {
		if (c->na < 2 || st_arg_str(c->a[1], name, sizeof(name), &nlen, &cut) || cut)
			return unsupported(im, c);
		r.name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)nlen };
	}
	switch (op) {
	case FSTAP_OP_SETXATTR:
		r.size = u64_arg(c, 3);
		r.flags_arg = flags_arg(c, 4);
		value = im->sbuf;
		if (c->na > 2 && !st_arg_str(c->a[2], value, sizeof(im->sbuf), &vlen, &vcut) &&
		    !vcut && vlen == r.size)
			r.value = (struct fstap_bytes){ (const uint8_t *)value, (uint32_t)vlen };
		break;
	case FSTAP_OP_GETXATTR:
		r.size = u64_arg(c, 3);
		r.result = res_of(c);
		value = im->sbuf;
		if (r.size && r.result > 0 && c->na > 2 &&
		    !st_arg_str(c->a[2], value, sizeof(im->sbuf), &vlen, &vcut) && !vcut &&
		    (int64_t)vlen == r.result)
			r.value = (struct fstap_bytes){ (const uint8_t *)value, (uint32_t)vlen };
		break;
	case FSTAP_OP_LISTXATTR:
		r.size = u64_arg(c, 2);
		r.result = res_of(c);
		break;
	default:
		break;
	}
	return imp_emit(im, &r);
}

static int c_setxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_SETXATTR, false);
}

static int c_fsetxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_SETXATTR, true);
}

static int c_getxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_GETXATTR, false);
}

static int c_fgetxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_GETXATTR, true);
}

static int c_listxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_LISTXATTR, false);
}

static int c_flistxattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_LISTXATTR, true);
}

static int c_removexattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_REMOVEXATTR, false);
}

static int c_fremovexattr(struct imp *im, struct imp_call *c)
{
	return xattr_common(im, c, FSTAP_OP_REMOVEXATTR, true);
}

/* ---- process state ------------------------------------------------------- */

static int c_umask(struct imp *im, struct imp_call *c)
{
	(void)im;
	c->p->umask = (uint32_t)u64_arg(c, 0) & 0777;
	return 0;
}

static int c_chdir(struct imp *im, struct imp_call *c)
{
	if (failed(c) || arg_path(im, c, -1, 0, im->path))
		return 0;
	set_cwd(c->p, im->path);
	return 0;
}

static int c_fchdir(struct imp *im, struct imp_call *c)
{
	int fd;

	if (!failed(c) && c->na > 0 && !st_arg_fd(c->a[0], &fd, im->fdpath, PATH_MAX) &&
	    im->fdpath[0] == '/')
		set_cwd(c->p, im->fdpath);
	return 0;
}

/* ---- the table ----------------------------------------------------------- */

struct call_entry {
	const char *name;
	int (*fn)(struct imp *im, struct imp_call *c);
};

/* Sorted by name (bsearch). */
static const struct call_entry calls[] = {
	{ "access", c_access },
	{ "chdir", c_chdir },
	{ "chmod", c_chmod },
	{ "chown", c_chown },
	{ "close", c_close },
	{ "copy_file_range", c_copy_file_range },
	{ "creat", c_creat },
	{ "dup", c_dup },
	{ "dup2", c_dup },
	{ "dup3", c_dup },
	{ "faccessat", c_faccessat },
	{ "faccessat2", c_faccessat },
	{ "fallocate", c_fallocate },
	{ "fchdir", c_fchdir },
	{ "fchmod", c_fchmod },
	{ "fchmodat", c_fchmodat },
	{ "fchown", c_fchown },
	{ "fchownat", c_fchownat },
	{ "fcntl", c_fcntl },
	{ "fdatasync", c_fdatasync },
	{ "fgetxattr", c_fgetxattr },
	{ "flistxattr", c_flistxattr },
	{ "fremovexattr", c_fremovexattr },
	{ "fsetxattr", c_fsetxattr },
	{ "fstat", c_fstat },
	{ "fstatfs", c_fstatfs },
	{ "fsync", c_fsync },
	{ "ftruncate", c_ftruncate },
	{ "getdents64", c_getdents },
	{ "getxattr", c_getxattr },
	{ "lchown", c_chown },
	{ "lgetxattr", c_getxattr },
	{ "link", c_link },
	{ "linkat", c_linkat },
	{ "listxattr", c_listxattr },
	{ "llistxattr", c_listxattr },
	{ "lremovexattr", c_removexattr },
	{ "lseek", c_lseek },
	{ "lsetxattr", c_setxattr },
	{ "lstat", c_stat },
	{ "mkdir", c_mkdir },
	{ "mkdirat", c_mkdirat },
	{ "newfstatat", c_newfstatat },
	{ "open", c_open },
	{ "openat", c_openat },
	{ "pread64", c_pread },
	{ "preadv", c_preadv },
	{ "pwrite64", c_pwrite },
	{ "pwritev", c_pwritev },
	{ "read", c_read },
	{ "readlink", c_readlink },
	{ "readlinkat", c_readlinkat },
	{ "readv", c_readv },
	{ "removexattr", c_removexattr },
	{ "rename", c_rename },
	{ "renameat", c_renameat },
	{ "renameat2", c_renameat2 },
	{ "rmdir", c_rmdir },
	{ "setxattr", c_setxattr },
	{ "stat", c_stat },
	{ "statfs", c_statfs },
	{ "statx", c_newfstatat },
	{ "symlink", c_symlink },
	{ "symlinkat", c_symlinkat },
	{ "truncate", c_truncate },
	{ "umask", c_umask },
	{ "unlink", c_unlink },
	{ "unlinkat", c_unlinkat },
	{ "utimensat", c_utimensat },
	{ "write", c_write },
	{ "writev", c_writev },
};

static int cmp_call(const void *key, const void *e)
{
	return strcmp(key, ((const struct call_entry *)e)->name);
}

int calls_import(struct imp *im, struct imp_call *c)
{
	const struct call_entry *e = bsearch(c->l->name, calls, sizeof(calls) / sizeof(calls[0]),
					     sizeof(calls[0]), cmp_call);
	int ret;

	if (!e)
		return unsupported(im, c) < 0 ? -EINVAL : 0;
	ret = e->fn(im, c);
	return ret < 0 ? ret : 0;
}
