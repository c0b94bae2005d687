/*
 * strace_calls_io.c: the calls on open files of an strace import: open,
 * openat, creat (open, create, opendir), close (flush, release), dup and
 * fcntl (descriptors only), read and write with their p- and v- forms,
 * lseek (SEEK_DATA, SEEK_HOLE), fsync, fdatasync, fallocate and
 * copy_file_range.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/strace_calls_i.h"

/* ---- open and close ------------------------------------------------------ */

static uint64_t new_fh(struct imp *im)
{
	return ++im->next_fh;
}

static int add_fd(struct imp *im, struct imp_call *c, uint64_t obj, uint64_t fh,
		  uint64_t flags, bool dir, bool opath)
{
	struct imp_ofd *o = calloc(1, sizeof(*o));
	int fd = (int)sc_res_of(c), ret;

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
		return sc_unsupported_as(im, c, "(O_TMPFILE)");
	ret = sc_entry_of(im, c, dirarg, patharg, im->path, true, &t);
	if (ret)
		return ret < 0 ? ret : 0;
	if (sc_failed(c)) {
		if (!t.obj && (!(flags & O_CREAT) || c->l->err == ENOENT)) {
			ret = sc_rec_lookup(im, c, t.parent, t.leaf, 0, c->l->result);
			return ret;
		}
		if (!t.obj || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
			imp_rec(im, c, FSTAP_OP_CREATE, &r);
			r.obj = t.parent;
			sc_set_name(&r.name, t.leaf);
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
		if ((ret = sc_learn_leaf(im, c, t.parent, t.leaf, 0, &t.obj)))
			return ret;
		return add_fd(im, c, t.obj, 0, flags, false, true);
	}
	fh = new_fh(im);
	if (!t.obj && (flags & O_CREAT)) {
		t.obj = ns_new_obj(im, S_IFREG);
		if (!t.obj)
			return -ENOMEM;
		imp_rec(im, c, FSTAP_OP_CREATE, &r);
		r.obj = t.parent;
		sc_set_name(&r.name, t.leaf);
		r.mode = S_IFREG | (mode & 07777);
		r.umask = c->p->umask;
		r.flags_arg = flags;
		r.child = t.obj;
		r.fh = fh;
		if ((ret = imp_emit(im, &r)))
			return ret;
		return add_fd(im, c, t.obj, fh, flags, false, false);
	}
	if ((ret = sc_learn_leaf(im, c, t.parent, t.leaf, dir ? S_IFDIR : 0, &t.obj)))
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

int c_open(struct imp *im, struct imp_call *c)
{
	return do_open(im, c, -1, 0, sc_flags_arg(c, 1), sc_u64_arg(c, 2));
}

int c_openat(struct imp *im, struct imp_call *c)
{
	return do_open(im, c, 0, 1, sc_flags_arg(c, 2), sc_u64_arg(c, 3));
}

/* openat2(dirfd, path, {flags=..., mode=..., resolve=...}, size) */
int c_openat2(struct imp *im, struct imp_call *c)
{
	uint64_t flags = 0;
	int64_t mode = 0;

	if (c->na < 3 || st_arg_flags(st_field(c->a[2], "flags"), &flags))
		return sc_unsupported(im, c);
	st_arg_int(st_field(c->a[2], "mode"), &mode);
	return do_open(im, c, 0, 1, flags, (uint64_t)mode);
}

int c_creat(struct imp *im, struct imp_call *c)
{
	return do_open(im, c, -1, 0, O_CREAT | O_WRONLY | O_TRUNC, sc_u64_arg(c, 1));
}

int c_close(struct imp *im, struct imp_call *c)
{
	int fd;

	if (c->na < 1 || st_arg_fd(c->a[0], &fd, im->fdpath, PATH_MAX))
		return sc_unsupported(im, c);
	if (!imp_fd_get(c->p, fd))
		return sc_outside(im, c);
	return imp_fd_close(im, c, c->p, fd);
}

static int dup_to(struct imp *im, struct imp_call *c, struct imp_ofd *o, bool cloexec)
{
	int nfd = (int)sc_res_of(c), ret;

	if (sc_failed(c) || !c->l->has_result)
		return 0;
	if (imp_fd_get(c->p, nfd) == o)
		return 0;	/* dup2(fd, fd) */
	if (imp_fd_get(c->p, nfd) && (ret = imp_fd_close(im, c, c->p, nfd)))
		return ret;
	return imp_fd_set(im, c->p, nfd, o, cloexec);
}

int c_dup(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = sc_fd_arg(im, c, 0);
	bool cloexec = !strcmp(c->l->name, "dup3") && (sc_flags_arg(c, 2) & O_CLOEXEC);

	return o ? dup_to(im, c, o, cloexec) : 0;
}

int c_fcntl(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = sc_fd_arg(im, c, 0);
	int fd;

	if (!o || c->na < 2)
		return 0;
	if (c->a[1].len >= 7 && !memcmp(c->a[1].p, "F_DUPFD", 7))
		return dup_to(im, c, o, memmem(c->a[1].p, c->a[1].len, "CLOEXEC", 7) != NULL);
	if (c->a[1].len == 7 && !memcmp(c->a[1].p, "F_SETFD", 7) && !sc_failed(c)) {
		st_arg_fd(c->a[0], &fd, im->fdpath, PATH_MAX);
		c->p->fds->v[fd].cloexec = c->na > 2 && memmem(c->a[2].p, c->a[2].len,
							       "FD_CLOEXEC", 10);
	}
	return 0;
}

/* ---- data ---------------------------------------------------------------- */

static int do_io(struct imp *im, struct imp_call *c, bool write, int offarg, bool vec)
{
	struct imp_ofd *o = sc_fd_arg(im, c, 0);
	struct imp_obj *ob;
	struct fstap_rec r;
	int64_t res = sc_res_of(c);

	if (!o)
		return 0;
	if (o->dir || o->opath)
		return sc_unsupported(im, c);
	ob = &im->objs[o->obj];
	imp_rec(im, c, write ? FSTAP_OP_WRITE : FSTAP_OP_READ, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.result = res;
	r.size = vec ? (res > 0 ? (uint64_t)res : 0) : sc_u64_arg(c, 2);
	if (offarg >= 0)
		r.offset = sc_u64_arg(c, offarg);
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

int c_read(struct imp *im, struct imp_call *c) { return do_io(im, c, false, -1, false); }
int c_write(struct imp *im, struct imp_call *c) { return do_io(im, c, true, -1, false); }
int c_pread(struct imp *im, struct imp_call *c) { return do_io(im, c, false, 3, false); }
int c_pwrite(struct imp *im, struct imp_call *c) { return do_io(im, c, true, 3, false); }
int c_readv(struct imp *im, struct imp_call *c) { return do_io(im, c, false, -1, true); }
int c_writev(struct imp *im, struct imp_call *c) { return do_io(im, c, true, -1, true); }
int c_preadv(struct imp *im, struct imp_call *c) { return do_io(im, c, false, 3, true); }
int c_pwritev(struct imp *im, struct imp_call *c) { return do_io(im, c, true, 3, true); }

int c_lseek(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = sc_fd_arg(im, c, 0);
	uint64_t whence = sc_flags_arg(c, 2);
	struct fstap_rec r;

	if (!o)
		return 0;
	if (!sc_failed(c) && c->l->has_result)
		o->pos = (uint64_t)c->l->result;
	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return 0;
	imp_rec(im, c, FSTAP_OP_LSEEK, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.offset = sc_u64_arg(c, 1);
	r.whence = whence;
	r.result = sc_res_of(c);
	return imp_emit(im, &r);
}

static int do_sync(struct imp *im, struct imp_call *c, bool data)
{
	struct imp_ofd *o = sc_fd_arg(im, c, 0);
	struct fstap_rec r;

	if (!o)
		return 0;
	if (o->opath)
		return sc_unsupported(im, c);
	imp_rec(im, c, o->dir ? FSTAP_OP_FSYNCDIR : data ? FSTAP_OP_FDATASYNC : FSTAP_OP_FSYNC, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	if (o->dir)
		r.flags_arg = data;
	return imp_emit(im, &r);
}

int c_fsync(struct imp *im, struct imp_call *c) { return do_sync(im, c, false); }
int c_fdatasync(struct imp *im, struct imp_call *c) { return do_sync(im, c, true); }

int c_fallocate(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = sc_fd_arg(im, c, 0);
	struct fstap_rec r;

	if (!o)
		return 0;
	imp_rec(im, c, FSTAP_OP_FALLOCATE, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.flags_arg = sc_flags_arg(c, 1);
	r.offset = sc_u64_arg(c, 2);
	r.size = sc_u64_arg(c, 3);
	if (!sc_failed(c) && !(r.flags_arg & 0x01) && r.offset + r.size > im->objs[o->obj].size)
		im->objs[o->obj].size = r.offset + r.size;
	return imp_emit(im, &r);
}

int c_copy_file_range(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *in = sc_fd_arg(im, c, 0), *out;
	struct fstap_rec r;
	int64_t res = sc_res_of(c);
	bool null_in, null_out;

	if (!in || !(out = sc_fd_arg(im, c, 2)))
		return 0;
	null_in = c->na > 1 && c->a[1].len == 4 && !memcmp(c->a[1].p, "NULL", 4);
	null_out = c->na > 3 && c->a[3].len == 4 && !memcmp(c->a[3].p, "NULL", 4);
	imp_rec(im, c, FSTAP_OP_COPY_FILE_RANGE, &r);
	r.obj = in->obj;
	r.fh = in->fh;
	r.obj2 = out->obj;
	r.fh2 = out->fh;
	r.offset = null_in ? in->pos : sc_u64_arg(c, 1);
	r.offset2 = null_out ? out->pos : sc_u64_arg(c, 3);
	r.size = sc_u64_arg(c, 4);
	r.flags_arg = sc_u64_arg(c, 5);
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
