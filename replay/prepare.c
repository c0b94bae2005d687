/*
 * prepare.c: the half of `fstap prepare` that touches the target: runs the
 * plan of replay/prepare-plan.c beneath a directory fd.
 *
 * Confinement (the trace is untrusted): every name was checked to be one
 * path component; a directory is reached only by opening its names one at a
 * time from the target with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS) (or O_NOFOLLOW | O_DIRECTORY on kernels without
 * openat2: with single components that is the same); every creation is an
 * *at() call relative to such a directory fd, files are created O_EXCL |
 * O_NOFOLLOW, owner and times of symlinks are set with AT_SYMLINK_NOFOLLOW,
 * hard links are made without AT_SYMLINK_FOLLOW. No path from the trace is
 * ever handed to the kernel whole, and no symlink is ever followed.
 *
 * Order of attributes on each object: data, owner (chown clears set-id bits
 * and security.capability), xattrs, mode (after the xattrs: as non-root a
 * read-only mode would forbid setting them), times last. Directories get
 * theirs after all creations, children before parents, so that their times
 * stick, a default ACL or a set-gid bit does not leak into the created
 * children, and a restrictive mode does not stop the walk. File attribute
 * flags (append-only, immutable, ...) and project ids come after all of
 * that, since an immutable file or directory takes no other change.
 *
 * Not for replaying operations (replay/), not for reading the trace
 * (prepare-plan.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>	/* FS_IOC_*: file attributes */
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "fstap/devnode.h"
#include "fstap/fileattr.h"
#include "fstap/name.h"
#include "fstap/util.h"
#include "prepare.h"

#define NONE UINT32_MAX
#define DCACHE_SIZE 64		/* open directory fds kept */
#define DATA_BUF (1u << 20)	/* bytes per write */

enum { OBJ_PENDING, OBJ_DONE, OBJ_FAILED };

struct dcache_ent {
	uint32_t obj;
	int fd;			/* -1: slot free */
	uint64_t used;
};

struct run {
	struct prep_model *m;
	const struct prep_opts *o;
	struct prep_stats *st;
	int rootfd;
	int cwdfd;		/* the saved working directory, -1 until needed */
	uint8_t *state;		/* OBJ_* per object */
	struct dcache_ent dc[DCACHE_SIZE];
	uint64_t tick;
	uint32_t *chain;
	size_t chain_cap;
	uint64_t *buf;		/* DATA_BUF bytes */
	uint64_t rng;
	double t0, shown;
	char *errmsg;
};

static double now_s(void)
{
	return (double)fstap_now_ns() / 1e9;
}

/* Errors after which the result is not worth having: stop. */
static bool is_fatal(int err)
{
	switch (err) {
	case ENOSPC: case EDQUOT: case EIO: case EROFS: case ENOMEM:
	case EMFILE: case ENFILE: case ESTALE: case EUCLEAN:
		return true;
	default:
		return false;
	}
}

static int fail(struct run *r, int err, uint32_t obj, const char *what)
{
	char path[1024];

	if (!r->errmsg &&
	    asprintf(&r->errmsg, "cannot %s '%s/%s': %s", what, r->o->dir_name,
		     prep_obj_path(r->m, obj, path, sizeof(path)), strerror(err)) < 0)
		r->errmsg = NULL;
	return -err;
}

static void progress(struct run *r, bool force)
{
	double t;

	if (!r->o->progress)
		return;
	t = now_s();
	if (!force && t - r->shown < 0.2)
		return;
	r->shown = t;
	fprintf(stderr, "\rprepare: %llu/%llu objects, %.1f/%.1f MiB",
		(unsigned long long)r->st->objects, (unsigned long long)r->st->total_objects,
		r->st->bytes / 1048576.0, r->st->total_bytes / 1048576.0);
	fflush(stderr);
}

static void attr_failed(struct run *r, int err)
{
	if (!r->st->attr_failed++)
		r->st->first_attr_err = err;
}

static void xattr_failed(struct run *r, int err)
{
	if (!r->st->xattr_failed++)
		r->st->first_xattr_err = err;
}

static void to_timespec(int64_t ns, struct timespec *ts)
{
	int64_t sec = ns / 1000000000, rem = ns % 1000000000;

	if (rem < 0) {
		rem += 1000000000;
		sec--;
	}
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = (long)rem;
}

static void obj_times(const struct prep_obj *o, struct timespec ts[2])
{
	to_timespec(o->atime, &ts[0]);
	to_timespec(o->mtime, &ts[1]);
}

/* ---- directories beneath the target -------------------------------------- */

static int open_beneath(int dirfd, const char *name)
{
	static bool no_openat2;
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (!no_openat2) {
		fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd;
		no_openat2 = true;
	}
	/* name is one component (fstap_name_valid), so this is as strict. */
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int dcache_find(struct run *r, uint32_t obj)
{
	int i;

	for (i = 0; i < DCACHE_SIZE; i++)
		if (r->dc[i].fd >= 0 && r->dc[i].obj == obj) {
			r->dc[i].used = ++r->tick;
			return r->dc[i].fd;
		}
	return -1;
}

static int dcache_put(struct run *r, uint32_t obj, int fd)
{
	int i, victim = 0;

	for (i = 0; i < DCACHE_SIZE; i++) {
		if (r->dc[i].fd < 0) {
			victim = i;
			break;
		}
		if (r->dc[i].used < r->dc[victim].used)
			victim = i;
	}
	if (r->dc[victim].fd >= 0)
		close(r->dc[victim].fd);
	r->dc[victim] = (struct dcache_ent){ obj, fd, ++r->tick };
	return fd;
}

/*
 * An fd of created directory obj, borrowed: valid until the next call.
 * Opens the missing part of its chain of names from the nearest open one.
 */
static int dir_fd(struct run *r, uint32_t obj, int *out)
{
	const struct prep_model *m = r->m;
	uint32_t n = 0, cur = obj;
	int base = r->rootfd, fd;

	while (cur != 0 && (fd = dcache_find(r, cur)) < 0) {
		if (FSTAP_GROW(r->chain, n + 1, r->chain_cap))
			return -ENOMEM;
		r->chain[n++] = cur;
		cur = m->dents[m->objs[cur].via].parent_idx;
	}
	if (cur != 0)
		base = fd;
	while (n--) {
		cur = r->chain[n];
		fd = open_beneath(base, m->dents[m->objs[cur].via].name);
		if (fd < 0)
			return -errno;
		base = dcache_put(r, cur, fd);
	}
	*out = base;
	return 0;
}

static void dcache_clear(struct run *r)
{
	int i;

	for (i = 0; i < DCACHE_SIZE; i++) {
		if (r->dc[i].fd >= 0)
			close(r->dc[i].fd);
		r->dc[i].fd = -1;
	}
}

/* ---- attributes ---------------------------------------------------------- */

static void fill(struct run *r, size_t len);

/* The bytes to set for x: its value, or pseudo-random bytes of its size. */
static const void *xattr_value(struct run *r, const struct prep_xattr *x)
{
	if (x->value || !x->value_len)
		return x->value;
	if (x->value_len > DATA_BUF)
		return NULL;
	fill(r, x->value_len);
	return r->buf;
}

/* Sets the xattrs through fd, or, if fd < 0, on name in directory dirfd. */
static void set_xattrs(struct run *r, const struct prep_obj *o, int fd, int dirfd,
		       const char *name)
{
	uint32_t i;

	if (!o->nxattrs)
		return;
	if (fd < 0) {
		/*
		 * No fd to use for a symlink or a device: set them by name from
		 * inside its directory (no *xattrat() before Linux 6.13).
		 */
		if (r->cwdfd < 0)
			r->cwdfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (r->cwdfd < 0 || fchdir(dirfd)) {
			for (i = 0; i < o->nxattrs; i++)
				xattr_failed(r, errno);
			return;
		}
	}
	for (i = 0; i < o->nxattrs; i++) {
		const struct prep_xattr *x = &o->xattrs[i];
		const void *value = xattr_value(r, x);
		int rc;

		if (!x->name_len || strlen(x->name) != x->name_len) {
			xattr_failed(r, EINVAL);
			continue;
		}
		if (!value && x->value_len) {
			xattr_failed(r, E2BIG);
			continue;
		}
		if (fd >= 0)
			rc = fsetxattr(fd, x->name, value, x->value_len, 0);
		else
			rc = lsetxattr(name, x->name, value, x->value_len, 0);
		if (rc)
			xattr_failed(r, errno);
	}
	if (fd < 0 && fchdir(r->cwdfd))
		xattr_failed(r, errno);
}

/* Owner, xattrs, mode, times of an object open as fd (a file, a directory). */
static void set_attrs_fd(struct run *r, const struct prep_obj *o, int fd)
{
	struct timespec ts[2];

	if (fchown(fd, (uid_t)o->uid, (gid_t)o->gid))
		attr_failed(r, errno);
	set_xattrs(r, o, fd, -1, NULL);
	if (fchmod(fd, o->mode & 07777))
		attr_failed(r, errno);
	obj_times(o, ts);
	if (futimens(fd, ts))
		attr_failed(r, errno);
}

/* The same for a symlink or a special file, by name in dirfd, never followed. */
static void set_attrs_at(struct run *r, const struct prep_obj *o, int dirfd, const char *name)
{
	struct timespec ts[2];

	if (fchownat(dirfd, name, (uid_t)o->uid, (gid_t)o->gid, AT_SYMLINK_NOFOLLOW))
		attr_failed(r, errno);
	set_xattrs(r, o, -1, dirfd, name);
	if (!S_ISLNK(o->mode) && fchmodat(dirfd, name, o->mode & 07777, AT_SYMLINK_NOFOLLOW))
		attr_failed(r, errno);
	obj_times(o, ts);
	if (utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW))
		attr_failed(r, errno);
}

/* ---- creation ------------------------------------------------------------ */

static void fill(struct run *r, size_t len)
{
	fstap_fill_random(r->buf, (len + 7) / 8, &r->rng);
}

/* Writes the data extents; 0 or -errno. */
static int write_data(struct run *r, const struct prep_obj *o, int fd)
{
	uint32_t i;

	for (i = 0; i < o->nextents; i++) {
		uint64_t off = o->extents[i].offset, left = o->extents[i].length;

		while (left) {
			size_t len = left < DATA_BUF ? (size_t)left : DATA_BUF;
			ssize_t n;

			if (r->o->data == PREP_DATA_RANDOM)
				fill(r, len);
			n = pwrite(fd, r->buf, len, (off_t)off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			off += (uint64_t)n;
			left -= (uint64_t)n;
			r->st->bytes += (uint64_t)n;
			progress(r, false);
		}
	}
	return 0;
}

static int create_file(struct run *r, const struct prep_obj *o, int pfd, const char *name)
{
	int fd, ret = 0;

	fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (o->size > INT64_MAX)
		ret = -EFBIG;
	else if (o->size && ftruncate(fd, (off_t)o->size))
		ret = -errno;
	if (!ret)
		ret = write_data(r, o, fd);
	if (!ret)
		set_attrs_fd(r, o, fd);
	if (close(fd) && !ret)
		ret = -errno;
	/* A file that could not be made whole is not left half made. */
	if (ret && !is_fatal(-ret))
		unlinkat(pfd, name, 0);
	return ret;
}

static int create_obj(struct run *r, uint32_t idx, const struct prep_dent *d, int pfd)
{
	const struct prep_obj *o = &r->m->objs[idx];
	struct stat sb;
	int ret = 0;

	r->rng = r->o->seed ^ (o->id * 0x9e3779b97f4a7c15ULL) ^ 0x5deece66dULL;
	if (!r->rng)
		r->rng = 1;
	switch (o->mode & S_IFMT) {
	case S_IFDIR:
		if (mkdirat(pfd, d->name, 0700)) {
			ret = -errno;
			/* A fresh file system's lost+found is the trace's one. */
			if (errno == EEXIST && d->parent_idx == 0 && !strcmp(d->name, "lost+found") &&
			    !fstatat(pfd, d->name, &sb, AT_SYMLINK_NOFOLLOW) && S_ISDIR(sb.st_mode))
				ret = 0;
		}
		if (!ret)
			r->st->dirs++;
		break;
	case S_IFREG:
		ret = create_file(r, o, pfd, d->name);
		if (!ret)
			r->st->files++;
		break;
	case S_IFLNK:
		if (symlinkat((const char *)o->target, pfd, d->name))
			ret = -errno;
		else
			r->st->symlinks++;
		break;
	default:
		/* devices: the recorded number only with --devices (fstap/devnode.h) */
		if (mknodat(pfd, d->name, (o->mode & S_IFMT) | 0600,
			    (dev_t)fstap_devnode_rdev(o->mode, o->rdev, r->o->devices))) {
			ret = -errno;
		} else {
			r->st->specials++;
			if (!r->o->devices && fstap_is_devnode(o->mode))
				r->st->devnodes_placeholder++;
		}
		break;
	}
	if (!ret && !S_ISDIR(o->mode) && !S_ISREG(o->mode))
		set_attrs_at(r, o, pfd, d->name);
	return ret;
}

static int step_create(struct run *r, const struct prep_step *s)
{
	struct prep_model *m = r->m;
	const struct prep_dent *d = &m->dents[s->dent];
	int pfd, ret;

	if (r->state[d->parent_idx] != OBJ_DONE) {
		r->state[s->obj] = OBJ_FAILED;
		prep_note(m, PREP_SKIP_PARENT_FAILED, s->obj, NONE, 0);
		return 0;
	}
	ret = dir_fd(r, d->parent_idx, &pfd);
	if (!ret)
		ret = create_obj(r, s->obj, d, pfd);
	if (ret == 1) {
		r->state[s->obj] = OBJ_FAILED;
		prep_note(m, PREP_SKIP_BAD_OBJECT, s->obj, NONE, 0);
		return 0;
	}
	if (ret) {
		r->state[s->obj] = OBJ_FAILED;
		if (is_fatal(-ret))
			return fail(r, -ret, s->obj, "create");
		prep_note(m, PREP_SKIP_CREATE_FAILED, s->obj, s->dent, -ret);
		return 0;
	}
	r->state[s->obj] = OBJ_DONE;
	r->st->objects++;
	return 0;
}

static int step_link(struct run *r, const struct prep_step *s)
{
	struct prep_model *m = r->m;
	const struct prep_dent *d = &m->dents[s->dent];
	const struct prep_dent *src = &m->dents[m->objs[s->obj].via];
	int sfd, dfd, ret;

	if (r->state[s->obj] != OBJ_DONE || r->state[d->parent_idx] != OBJ_DONE) {
		prep_note(m, PREP_SKIP_PARENT_FAILED, NONE, s->dent, 0);
		return 0;
	}
	ret = dir_fd(r, src->parent_idx, &sfd);
	if (ret)
		return fail(r, -ret, src->parent_idx, "open directory");
	sfd = dup(sfd);
	if (sfd < 0)
		return fail(r, errno, src->parent_idx, "open directory");
	ret = dir_fd(r, d->parent_idx, &dfd);
	if (!ret && linkat(sfd, src->name, dfd, d->name, 0))
		ret = -errno;
	close(sfd);
	if (ret) {
		if (is_fatal(-ret))
			return fail(r, -ret, s->obj, "link");
		prep_note(m, PREP_SKIP_CREATE_FAILED, NONE, s->dent, -ret);
		return 0;
	}
	r->st->links++;
	return 0;
}

/* Directories' owners, xattrs, modes and times: children first, root last. */
static int finish_dirs(struct run *r)
{
	struct prep_model *m = r->m;
	uint32_t i;
	int fd, ret;

	for (i = m->nsteps; i-- > 0;) {
		const struct prep_step *s = &m->steps[i];

		if (s->kind != PREP_STEP_CREATE || !S_ISDIR(m->objs[s->obj].mode) ||
		    r->state[s->obj] != OBJ_DONE)
			continue;
		ret = dir_fd(r, s->obj, &fd);
		if (ret) {
			if (is_fatal(-ret))
				return fail(r, -ret, s->obj, "open directory");
			attr_failed(r, -ret);
			continue;
		}
		set_attrs_fd(r, &m->objs[s->obj], fd);
	}
	dcache_clear(r);
	if (m->root_has_state) {
		if (S_ISDIR(m->objs[0].mode))
			set_attrs_fd(r, &m->objs[0], r->rootfd);
		else
			prep_note(m, PREP_SKIP_BAD_OBJECT, 0, NONE, 0);
	}
	return 0;
}

/*
 * The recorded file attribute flags and project id of regular file or
 * directory o, open as fd: the flags chattr sets as recorded, the target
 * file system's own as they are (fstap_fileattr_merge_flags). 0 or -errno.
 */
static int set_fileattr(const struct prep_obj *o, int fd)
{
	struct fsxattr fsx;
	int cur, want;

	if (o->projid) {
		if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
			return -errno;
		if (fsx.fsx_projid != o->projid) {
			fsx.fsx_projid = o->projid;
			if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx))
				return -errno;
		}
	}
	if (!fstap_fileattr_merge_flags(0, (int)o->attr_flags))
		return 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &cur))
		return -errno;
	want = fstap_fileattr_merge_flags(cur, (int)o->attr_flags);
	if (want != cur && ioctl(fd, FS_IOC_SETFLAGS, &want))
		return -errno;
	return 0;
}

/* File attributes of every created file and directory with some recorded: the last step. */
static int finish_fileattrs(struct run *r)
{
	struct prep_model *m = r->m;
	uint32_t i;
	int pfd, fd, ret;

	for (i = m->nsteps; i-- > 0;) {
		const struct prep_step *s = &m->steps[i];
		const struct prep_obj *o = &m->objs[s->obj];
		const struct prep_dent *d = &m->dents[s->dent];

		if (s->kind != PREP_STEP_CREATE || r->state[s->obj] != OBJ_DONE ||
		    !(S_ISREG(o->mode) || S_ISDIR(o->mode)) ||
		    (!o->projid && !fstap_fileattr_merge_flags(0, (int)o->attr_flags)))
			continue;
		ret = dir_fd(r, d->parent_idx, &pfd);
		if (ret) {
			if (is_fatal(-ret))
				return fail(r, -ret, s->obj, "open directory");
			attr_failed(r, -ret);
			continue;
		}
		fd = openat(pfd, d->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
			    (S_ISDIR(o->mode) ? O_DIRECTORY : 0));
		if (fd < 0 || (ret = set_fileattr(o, fd)))
			attr_failed(r, fd < 0 ? errno : -ret);
		if (fd >= 0)
			close(fd);
	}
	dcache_clear(r);
	if (m->root_has_state && S_ISDIR(m->objs[0].mode) &&
	    (m->objs[0].projid || fstap_fileattr_merge_flags(0, (int)m->objs[0].attr_flags)) &&
	    (ret = set_fileattr(&m->objs[0], r->rootfd)))
		attr_failed(r, -ret);
	return 0;
}

/* Early check that the data and the objects fit in the target. */
static int check_space(struct run *r)
{
	struct prep_model *m = r->m;
	struct statvfs sv;
	uint64_t need = 0, avail, bs;
	uint32_t i, k;

	for (i = 0; i < m->nsteps; i++) {
		const struct prep_obj *o = &m->objs[m->steps[i].obj];

		if (m->steps[i].kind != PREP_STEP_CREATE)
			continue;
		r->st->total_objects++;
		if (!S_ISREG(o->mode))
			continue;
		for (k = 0; k < o->nextents; k++)
			r->st->total_bytes += o->extents[k].length;
	}
	if (fstatvfs(r->rootfd, &sv))
		return 0;	/* cannot tell: the writes will */
	bs = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	if (!bs)
		bs = 4096;
	for (i = 0; i < m->nsteps; i++) {
		const struct prep_obj *o = &m->objs[m->steps[i].obj];

		if (m->steps[i].kind != PREP_STEP_CREATE || !S_ISREG(o->mode))
			continue;
		for (k = 0; k < o->nextents; k++)
			need += (o->extents[k].length + bs - 1) / bs * bs;
	}
	avail = (uint64_t)sv.f_bavail * bs;
	if (sv.f_blocks && need > avail) {
		if (asprintf(&r->errmsg, "not enough space in '%s': the trace's files hold %.1f MiB "
			     "of data, %.1f MiB are free", r->o->dir_name, need / 1048576.0,
			     avail / 1048576.0) < 0)
			r->errmsg = NULL;
		return -ENOSPC;
	}
	if (sv.f_files && r->st->total_objects > (uint64_t)sv.f_favail) {
		if (asprintf(&r->errmsg, "not enough inodes in '%s': the trace has %llu objects, "
			     "%llu inodes are free", r->o->dir_name,
			     (unsigned long long)r->st->total_objects,
			     (unsigned long long)sv.f_favail) < 0)
			r->errmsg = NULL;
		return -ENOSPC;
	}
	return 0;
}

int prep_run(struct prep_model *m, int dirfd, const struct prep_opts *o,
	     struct prep_stats *st, char **errmsg)
{
	struct run r = { .m = m, .o = o, .st = st, .rootfd = dirfd, .cwdfd = -1 };
	uint32_t i;
	int ret;

	*errmsg = NULL;
	memset(st, 0, sizeof(*st));
	for (i = 0; i < DCACHE_SIZE; i++)
		r.dc[i].fd = -1;
	r.t0 = now_s();
	ret = check_space(&r);
	if (ret)
		goto out;
	r.state = calloc(m->nobjs, 1);
	r.buf = calloc(1, DATA_BUF);
	if (!r.state || !r.buf) {
		ret = -ENOMEM;
		goto out;
	}
	r.state[0] = OBJ_DONE;
	for (i = 0; i < m->nsteps && !ret; i++) {
		if (m->steps[i].kind == PREP_STEP_CREATE)
			ret = step_create(&r, &m->steps[i]);
		else
			ret = step_link(&r, &m->steps[i]);
		progress(&r, false);
	}
	if (!ret)
		ret = finish_dirs(&r);
	if (!ret)
		ret = finish_fileattrs(&r);
	if (!ret && syncfs(dirfd)) {
		ret = -errno;
		if (asprintf(&r.errmsg, "cannot sync '%s': %s", o->dir_name, strerror(-ret)) < 0)
			r.errmsg = NULL;
	}
out:
	if (o->progress && r.shown > 0)
		fputs("\r\033[K", stderr);
	dcache_clear(&r);
	if (r.cwdfd >= 0) {
		if (fchdir(r.cwdfd) && !ret)
			ret = -errno;
		close(r.cwdfd);
	}
	st->seconds = now_s() - r.t0;
	if (ret && !r.errmsg && asprintf(&r.errmsg, "cannot prepare '%s': %s", o->dir_name,
					 strerror(-ret)) < 0)
		r.errmsg = NULL;
	*errmsg = r.errmsg;
	free(r.state);
	free(r.buf);
	free(r.chain);
	return ret;
}

int prep_check_empty(int dirfd)
{
	struct dirent *e;
	DIR *d;
	int fd = dup(dirfd), ret = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	errno = 0;
	while ((e = readdir(d))) {
		struct stat sb;

		if (fstap_name_dots(e->d_name, strlen(e->d_name)))
			continue;
		if (!strcmp(e->d_name, "lost+found") &&
		    !fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) && S_ISDIR(sb.st_mode))
			continue;
		ret = -ENOTEMPTY;
		break;
	}
	if (!e && errno)
		ret = -errno;
	closedir(d);
	return ret;
}
