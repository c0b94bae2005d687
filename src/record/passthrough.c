/*
 * passthrough.c: the file-system work of the recorder, one pt_* function per
 * operation, done on the backing directory with *at() system calls.
 *
 * Every function returns 0 (or a byte count) on success and -errno on
 * failure, the errno of the backing file system. None of them talks to FUSE
 * or records anything: rec_ops.c does that around them, and the unit tests
 * call them on a temporary directory.
 *
 * Credentials: objects are created (mkdir, mknod, symlink, create) and
 * attributes changed (setattr) with the requesting process's fsuid and
 * fsgid, set on the calling thread only (setfsuid/setfsgid are per thread in
 * the kernel). If that fails with EACCES or EPERM, the call is retried with
 * the caller's supplementary groups too, so the common path reads nothing
 * from /proc. The file attribute ioctls that set (chattr) run with the
 * caller's fsuid and fsgid too, so that the backing file system checks
 * ownership and CAP_LINUX_IMMUTABLE as for the caller (a fsuid other than 0
 * drops the daemon's file capabilities). Everything else runs with the
 * daemon's credentials: the kernel has already checked permissions
 * (default_permissions).
 *
 * Inodes without an open descriptor are reached through the O_PATH
 * descriptor cache (inode.c); calls that do not accept an O_PATH descriptor
 * (chmod, truncate, access) go through /proc/self/fd/N, and xattr calls
 * through a descriptor opened for them where they can (xattr_target_get).
 */
#include <dirent.h>
#include <linux/limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fstap/fileattr.h"
#include "fstap/ops.h"
#include "record/record_i.h"

#define PT_GROUPS_MAX 256

static bool pt_is_root;
static gid_t pt_egid;		/* the daemon's fsgid outside cred_enter */
static gid_t pt_groups[PT_GROUPS_MAX];
static int pt_ngroups;

/* "/proc/self/fd/N" without stdio formatting. */
struct procpath {
	char s[32];
};

static const char *procpath(struct procpath *p, int fd)
{
	char tmp[12];
	int n = 0, i = 0;
	unsigned v = (unsigned)fd;

	memcpy(p->s, "/proc/self/fd/", 14);
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		p->s[14 + i++] = tmp[--n];
	p->s[14 + i] = '\0';
	return p->s;
}

/* ---- credentials -------------------------------------------------------- */

/*
 * A caller with the daemon's own ids (root, as most recorded workloads run)
 * needs no switch: the four set calls around each create, mkdir, mknod and
 * symlink would set the ids to what they are already.
 */
static bool cred_same(const struct pt_cred *c, bool groups)
{
	return !groups && c->uid == 0 && c->gid == pt_egid;
}

static void cred_enter(const struct pt_cred *c, bool groups)
{
	if (!c || !pt_is_root || cred_same(c, groups))
		return;
	if (groups && c->getgroups) {
		gid_t list[PT_GROUPS_MAX];
		int n = c->getgroups(c->getgroups_arg, PT_GROUPS_MAX, list);

		if (n >= 0)
			syscall(SYS_setgroups, (size_t)n, list);	/* this thread only */
	}
	syscall(SYS_setfsgid, c->gid);
	syscall(SYS_setfsuid, c->uid);
}

static void cred_leave(const struct pt_cred *c, bool groups)
{
	if (!c || !pt_is_root || cred_same(c, groups))
		return;
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, pt_egid);
	if (groups && c->getgroups)
		syscall(SYS_setgroups, (size_t)pt_ngroups, pt_groups);
}

static bool cred_retry(const struct pt_cred *c, int ret)
{
	return c && c->getgroups && pt_is_root && c->uid != 0 &&
		(ret == -EACCES || ret == -EPERM);
}

/* ---- set-up ------------------------------------------------------------- */

int pt_fs_init(struct pt_fs *fs, int root_fd, unsigned cache_slots)
{
	int ret;

	memset(fs, 0, sizeof(*fs));
	pt_is_root = geteuid() == 0;
	pt_egid = getegid();
	pt_ngroups = getgroups(PT_GROUPS_MAX, pt_groups);
	if (pt_ngroups < 0)
		pt_ngroups = 0;
	fs->root_fd = root_fd;
	fs->proc_fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->proc_fd < 0)
		return -errno;
	ret = itable_init(&fs->it, root_fd, cache_slots);
	if (ret < 0) {
		close(fs->proc_fd);
		return ret;
	}
	atomic_init(&fs->next_fh, 1);
	return 0;
}

void pt_fs_release(struct pt_fs *fs)
{
	itable_release(&fs->it);
	if (fs->proc_fd >= 0)
		close(fs->proc_fd);
	fs->proc_fd = -1;
}

struct rinode *pt_root(struct pt_fs *fs)
{
	return &fs->it.root;
}

/* Finishes an entry created or found as (pfd, name) in parent. */
static int make_entry(struct pt_fs *fs, const struct rinode *parent, int pfd, const char *name,
		      struct pt_entry *e)
{
	int tries, ret = -ESTALE;

	/* -EAGAIN: the name changed between the stat and the handle; again */
	for (tries = 0; tries < 8; tries++) {
		if (fstatat(pfd, name, &e->st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		ret = itable_get_at(&fs->it, parent, pfd, name, &e->st, &e->ri, &e->newobj);
		if (ret != -EAGAIN)
			return ret;
	}
	return -ESTALE;
}

/* ---- entries ------------------------------------------------------------ */

int pt_lookup(struct pt_fs *fs, struct rinode *parent, const char *name, struct pt_entry *e)
{
	struct fdlease l;
	int ret;

	ret = fdc_get(&fs->it, parent, &l);
	if (ret < 0)
		return ret;
	ret = make_entry(fs, parent, l.fd, name, e);
	fdc_put(&fs->it, &l);
	return ret;
}

void pt_forget(struct pt_fs *fs, struct rinode *ri, uint64_t n)
{
	itable_forget(&fs->it, ri, n);
}

int pt_getattr(struct pt_fs *fs, struct rinode *ri, struct stat *st)
{
	struct fdlease l;
	int ret;

	/* not cached: by name in its directory, which costs no open (inode.c) */
	if (fdc_get_cached(&fs->it, ri, &l) < 0) {
		if (itable_stat_by_name(&fs->it, ri, st) == 0)
			return 0;
		ret = fdc_get(&fs->it, ri, &l);
		if (ret < 0)
			return ret;
	}
	ret = fstatat(l.fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	fdc_put(&fs->it, &l);
	return ret;
}

int pt_fgetattr(uint64_t fh, struct stat *st)
{
	return fstat(PT_FH_FD(fh), st) < 0 ? -errno : 0;
}

static int do_setattr(struct pt_fs *fs, int lfd, int fd, const struct stat *a, int valid)
{
	struct procpath pp;

	/*
	 * chown(path, -1, -1) changes only the ctime; the kernel sends it as a
	 * setattr with nothing to set (FSTAP_SET_CTIME with a writeback
	 * cache). fchownat(-1, -1) is how the backing file system does it.
	 */
	bool ctime_only = !(valid & (FSTAP_SET_MODE | FSTAP_SET_UID | FSTAP_SET_GID |
				     FSTAP_SET_SIZE | FSTAP_SET_ATIME | FSTAP_SET_MTIME |
				     FSTAP_SET_ATIME_NOW | FSTAP_SET_MTIME_NOW));

	if (valid & FSTAP_SET_MODE) {
		if (fd >= 0 ? fchmod(fd, a->st_mode & 07777)
			    : fchmodat(fs->proc_fd, procpath(&pp, lfd) + 14, a->st_mode & 07777, 0))
			return -errno;
	}
	if ((valid & (FSTAP_SET_UID | FSTAP_SET_GID)) || ctime_only) {
		uid_t u = (valid & FSTAP_SET_UID) ? a->st_uid : (uid_t)-1;
		gid_t g = (valid & FSTAP_SET_GID) ? a->st_gid : (gid_t)-1;

		if (fchownat(lfd, "", u, g, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	if (valid & FSTAP_SET_SIZE) {
		if (fd >= 0 ? ftruncate(fd, a->st_size) : truncate(procpath(&pp, lfd), a->st_size))
			return -errno;
	}
	if (valid & (FSTAP_SET_ATIME | FSTAP_SET_MTIME | FSTAP_SET_ATIME_NOW |
		     FSTAP_SET_MTIME_NOW)) {
		struct timespec ts[2];

		ts[0].tv_sec = 0;
		ts[0].tv_nsec = UTIME_OMIT;
		ts[1] = ts[0];
		if (valid & FSTAP_SET_ATIME_NOW)
			ts[0].tv_nsec = UTIME_NOW;
		else if (valid & FSTAP_SET_ATIME)
			ts[0] = a->st_atim;
		if (valid & FSTAP_SET_MTIME_NOW)
			ts[1].tv_nsec = UTIME_NOW;
		else if (valid & FSTAP_SET_MTIME)
			ts[1] = a->st_mtim;
		if (utimensat(lfd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	return 0;
}

int pt_setattr(struct pt_fs *fs, struct rinode *ri, int fd, const struct stat *attr,
	       int valid, struct stat *st)
{
	struct fdlease l;
	int ret;

	ret = fdc_get(&fs->it, ri, &l);
	if (ret < 0)
		return ret;
	ret = do_setattr(fs, l.fd, fd, attr, valid);
	if (!ret && fstatat(l.fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		ret = -errno;
	fdc_put(&fs->it, &l);
	return ret;
}

int pt_readlink(struct pt_fs *fs, struct rinode *ri, char *buf, size_t size)
{
	struct fdlease l;
	ssize_t n;
	int ret;

	ret = fdc_get(&fs->it, ri, &l);
	if (ret < 0)
		return ret;
	n = readlinkat(l.fd, "", buf, size);
	ret = n < 0 ? -errno : (int)n;
	fdc_put(&fs->it, &l);
	return ret;
}

enum mkkind { MK_NOD, MK_DIR, MK_SYMLINK };

static int do_make(int pfd, enum mkkind k, const char *name, mode_t mode, dev_t rdev,
		   const char *target)
{
	int r;

	switch (k) {
	case MK_NOD:
		r = mknodat(pfd, name, mode, rdev);
		break;
	case MK_DIR:
		r = mkdirat(pfd, name, mode);
		break;
	default:
		r = symlinkat(target, pfd, name);
		break;
	}
	return r < 0 ? -errno : 0;
}

static int make_node(struct pt_fs *fs, const struct pt_cred *c, struct rinode *parent,
		     enum mkkind k, const char *name, mode_t mode, dev_t rdev,
		     const char *target, struct pt_entry *e)
{
	struct fdlease l;
	int ret;

	ret = fdc_get(&fs->it, parent, &l);
	if (ret < 0)
		return ret;
	cred_enter(c, false);
	ret = do_make(l.fd, k, name, mode, rdev, target);
	cred_leave(c, false);
	if (cred_retry(c, ret)) {
		cred_enter(c, true);
		ret = do_make(l.fd, k, name, mode, rdev, target);
		cred_leave(c, true);
	}
	if (!ret)
		ret = make_entry(fs, parent, l.fd, name, e);
	fdc_put(&fs->it, &l);
	return ret;
}

int pt_mknod(struct pt_fs *fs, const struct pt_cred *c, struct rinode *parent,
	     const char *name, mode_t mode, dev_t rdev, struct pt_entry *e)
{
	return make_node(fs, c, parent, MK_NOD, name, mode, rdev, NULL, e);
}

int pt_mkdir(struct pt_fs *fs, const struct pt_cred *c, struct rinode *parent,
	     const char *name, mode_t mode, struct pt_entry *e)
{
	return make_node(fs, c, parent, MK_DIR, name, mode, 0, NULL, e);
}

int pt_symlink(struct pt_fs *fs, const struct pt_cred *c, const char *target,
	       struct rinode *parent, const char *name, struct pt_entry *e)
{
	return make_node(fs, c, parent, MK_SYMLINK, name, 0, 0, target, e);
}

/* Leases descriptors of a and b (link, rename): both or neither. */
static int lease_two(struct pt_fs *fs, struct rinode *a, struct fdlease *la, struct rinode *b,
		     struct fdlease *lb)
{
	int ret = fdc_get(&fs->it, a, la);

	if (ret < 0)
		return ret;
	ret = fdc_get(&fs->it, b, lb);
	if (ret < 0)
		fdc_put(&fs->it, la);
	return ret;
}

int pt_link(struct pt_fs *fs, struct rinode *ri, struct rinode *newparent,
	    const char *newname, struct pt_entry *e)
{
	struct fdlease l, lp;
	int ret;

	ret = lease_two(fs, ri, &l, newparent, &lp);
	if (ret < 0)
		return ret;
	ret = linkat(l.fd, "", lp.fd, newname, AT_EMPTY_PATH) < 0 ? -errno : 0;
	if (!ret)
		ret = make_entry(fs, newparent, lp.fd, newname, e);
	fdc_put(&fs->it, &lp);
	fdc_put(&fs->it, &l);
	return ret;
}

static int remove_entry(struct pt_fs *fs, struct rinode *parent, const char *name, int flags)
{
	struct fdlease l;
	struct stat st;
	bool known;
	int ret;

	ret = fdc_get(&fs->it, parent, &l);
	if (ret < 0)
		return ret;
	known = fstatat(l.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (known && (S_ISDIR(st.st_mode) || st.st_nlink <= 1))
		ret = itable_remove_name(&fs->it, l.fd, name, flags, st.st_dev, st.st_ino);
	else
		ret = unlinkat(l.fd, name, flags) < 0 ? -errno : 0;
	fdc_put(&fs->it, &l);
	return ret;
}

int pt_unlink(struct pt_fs *fs, struct rinode *parent, const char *name)
{
	return remove_entry(fs, parent, name, 0);
}

int pt_rmdir(struct pt_fs *fs, struct rinode *parent, const char *name)
{
	return remove_entry(fs, parent, name, AT_REMOVEDIR);
}

int pt_rename(struct pt_fs *fs, struct rinode *parent, const char *name,
	      struct rinode *newparent, const char *newname, unsigned flags)
{
	struct fdlease l, nl;
	struct stat src, dst;
	bool have_dst;
	int ret;

	ret = lease_two(fs, parent, &l, newparent, &nl);
	if (ret < 0)
		return ret;
	have_dst = !(flags & RENAME_EXCHANGE) &&
		fstatat(nl.fd, newname, &dst, AT_SYMLINK_NOFOLLOW) == 0 &&
		fstatat(l.fd, name, &src, AT_SYMLINK_NOFOLLOW) == 0 &&
		!(src.st_ino == dst.st_ino && src.st_dev == dst.st_dev);
	if (have_dst && (S_ISDIR(dst.st_mode) || dst.st_nlink <= 1))
		ret = itable_rename_over(&fs->it, l.fd, name, nl.fd, newname, flags,
					 dst.st_dev, dst.st_ino);
	else
		ret = renameat2(l.fd, name, nl.fd, newname, flags) < 0 ? -errno : 0;
	fdc_put(&fs->it, &nl);
	fdc_put(&fs->it, &l);
	return ret;
}

/* ---- files -------------------------------------------------------------- */

static int open_flags(const struct pt_fs *fs, int flags)
{
	flags &= ~(O_CREAT | O_EXCL | O_NOCTTY);
	if (fs->writeback) {
		/* the kernel may read pages of a write-only file and keeps the offsets */
		if ((flags & O_ACCMODE) == O_WRONLY)
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		flags &= ~O_APPEND;
	}
	return flags | O_CLOEXEC;
}

static uint64_t make_fh(struct pt_fs *fs, int fd, int flags)
{
	uint64_t id = atomic_fetch_add(&fs->next_fh, 1);

	return (id << 24) | ((uint64_t)!!(flags & O_DIRECT) << 23) | (uint64_t)fd;
}

static int open_inode(struct pt_fs *fs, struct rinode *ri, int flags)
{
	struct procpath pp;
	struct fdlease l;
	int fd, ret;

	if (ri->pinned_fd >= 0) {
		fd = openat(fs->proc_fd, procpath(&pp, ri->pinned_fd) + 14, flags);
		return fd < 0 ? -errno : fd;
	}
	fd = open_by_handle_at(fs->it.mount_fd, ri->handle, flags);
	if (fd >= 0 || errno != ELOOP)
		return fd < 0 ? -errno : fd;
	ret = fdc_get(&fs->it, ri, &l);	/* not reached for regular files */
	if (ret < 0)
		return ret;
	fd = openat(fs->proc_fd, procpath(&pp, l.fd) + 14, flags);
	ret = fd < 0 ? -errno : fd;
	fdc_put(&fs->it, &l);
	return ret;
}

int pt_open(struct pt_fs *fs, struct rinode *ri, int flags, uint64_t *fh)
{
	int fd;

	flags = open_flags(fs, flags);
	fd = open_inode(fs, ri, flags);
	if (fd < 0)
		return fd;
	*fh = make_fh(fs, fd, flags);
	return 0;
}

static int do_create(int pfd, const char *name, int flags, mode_t mode)
{
	int fd = openat(pfd, name, flags, mode);

	return fd < 0 ? -errno : fd;
}

int pt_create(struct pt_fs *fs, const struct pt_cred *c, struct rinode *parent,
	      const char *name, mode_t mode, int flags, struct pt_entry *e, uint64_t *fh)
{
	struct fdlease l;
	int ret, fd;

	flags = open_flags(fs, flags) | O_CREAT | (flags & O_EXCL);
	ret = fdc_get(&fs->it, parent, &l);
	if (ret < 0)
		return ret;
	cred_enter(c, false);
	fd = do_create(l.fd, name, flags, mode);
	cred_leave(c, false);
	if (cred_retry(c, fd)) {
		cred_enter(c, true);
		fd = do_create(l.fd, name, flags, mode);
		cred_leave(c, true);
	}
	if (fd < 0) {
		fdc_put(&fs->it, &l);
		return fd;
	}
	ret = make_entry(fs, parent, l.fd, name, e);
	fdc_put(&fs->it, &l);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	*fh = make_fh(fs, fd, flags);
	return 0;
}

ssize_t pt_read(uint64_t fh, void *buf, size_t size, off_t off)
{
	ssize_t n = pread(PT_FH_FD(fh), buf, size, off);

	return n < 0 ? -errno : n;
}

ssize_t pt_read_pipe(uint64_t fh, int pipe_wr, size_t size, off_t off)
{
	size_t done = 0;

	while (done < size) {
		loff_t pos = (loff_t)off + (loff_t)done;
		ssize_t n = splice(PT_FH_FD(fh), &pos, pipe_wr, NULL, size - done, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;	/* end of file */
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t pt_write(uint64_t fh, const void *buf, size_t size, off_t off, void *bounce)
{
	ssize_t n;

	if (PT_FH_DIRECT(fh) && ((uintptr_t)buf & 4095) && bounce) {
		memcpy(bounce, buf, size);
		buf = bounce;
	}
	n = pwrite(PT_FH_FD(fh), buf, size, off);
	return n < 0 ? -errno : n;
}

/* Whether c is in group g: its gid, else its supplementary groups (read only then). */
static bool cred_in_group(const struct pt_cred *c, gid_t g)
{
	gid_t list[PT_GROUPS_MAX];
	int i, n;

	if (c->gid == g)
		return true;
	n = c->getgroups ? c->getgroups(c->getgroups_arg, PT_GROUPS_MAX, list) : 0;
	for (i = 0; i < n && i < PT_GROUPS_MAX; i++)
		if (list[i] == g)
			return true;
	return false;
}

int pt_write_drop_privs(uint64_t fh, const struct pt_cred *c)
{
	int fd = PT_FH_FD(fh);
	mode_t drop = 0;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_ISUID | S_ISGID)))
		return 0;
	if (st.st_mode & S_ISUID)
		drop |= S_ISUID;
	if ((st.st_mode & S_ISGID) && ((st.st_mode & S_IXGRP) || !cred_in_group(c, st.st_gid)))
		drop |= S_ISGID;
	if (!drop)
		return 0;
	return fchmod(fd, st.st_mode & 07777 & ~drop) < 0 ? -errno : 0;
}

int pt_flush(uint64_t fh)
{
	/* what close(2) of the application's descriptor would do on the backing fs */
	int fd = dup(PT_FH_FD(fh));

	if (fd < 0)
		return -errno;
	return close(fd) < 0 ? -errno : 0;
}

int pt_release(uint64_t fh)
{
	return close(PT_FH_FD(fh)) < 0 ? -errno : 0;
}

int pt_fsync(uint64_t fh, int datasync)
{
	int fd = PT_FH_FD(fh);

	return (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? -errno : 0;
}

/* ---- directories -------------------------------------------------------- */

int pt_opendir(struct pt_fs *fs, struct rinode *ri, struct pt_dir **out)
{
	struct pt_dir *d;
	int fd;

	fd = open_inode(fs, ri, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	d->dp = fdopendir(fd);
	if (!d->dp) {
		int err = -errno;

		close(fd);
		free(d);
		return err;
	}
	d->dev = ri->dev;
	d->id = atomic_fetch_add(&fs->next_fh, 1);
	*out = d;
	return 0;
}

int pt_readdir_next(struct pt_dir *d, off_t off, struct pt_dirent_out *de)
{
	if (off != d->offset) {
		seekdir(d->dp, off);
		d->pending = NULL;
		d->offset = off;
	}
	if (!d->pending) {
		errno = 0;
		d->pending = readdir(d->dp);
		if (!d->pending)
			return errno ? -errno : 0;
	}
	de->name = d->pending->d_name;
	de->ino = d->pending->d_ino;
	de->type = d->pending->d_type;
	de->next_off = d->pending->d_off;
	return 1;
}

void pt_readdir_consume(struct pt_dir *d)
{
	if (d->pending) {
		d->offset = d->pending->d_off;
		d->pending = NULL;
	}
}

int pt_releasedir(struct pt_dir *d)
{
	int ret = closedir(d->dp) < 0 ? -errno : 0;

	free(d);
	return ret;
}

int pt_fsyncdir(struct pt_dir *d, int datasync)
{
	int fd = dirfd(d->dp);

	return (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? -errno : 0;
}

/* ---- the rest ----------------------------------------------------------- */

int pt_statfs(struct pt_fs *fs, struct rinode *ri, struct statvfs *sv)
{
	struct fdlease l;
	int ret;

	ret = fdc_get(&fs->it, ri, &l);
	if (ret < 0)
		return ret;
	ret = fstatvfs(l.fd, sv) < 0 ? -errno : 0;
	fdc_put(&fs->it, &l);
	return ret;
}

int pt_access(struct pt_fs *fs, const struct pt_cred *c, struct rinode *ri, int mask)
{
	struct procpath pp;
	struct fdlease l;
	int ret;

	ret = fdc_get(&fs->it, ri, &l);
	if (ret < 0)
		return ret;
	cred_enter(c, true);
	ret = faccessat(fs->proc_fd, procpath(&pp, l.fd) + 14, mask, AT_EACCESS) < 0 ? -errno : 0;
	cred_leave(c, true);
	fdc_put(&fs->it, &l);
	return ret;
}

/*
 * The inode an xattr call works on. Regular files and directories known by
 * a file handle are opened for reading (open_by_handle_at) and served with
 * the f*xattr calls: an open, the call and a close take about 0.7 us here,
 * where resolving the /proc/self/fd/N magic link alone takes about 3 us, and
 * the kernel asks for security.capability before every write. The open is
 * non-blocking, so a lease that another process holds on the backing file
 * makes it fail at once instead of waiting (watchers of the backing file
 * with inotify or fanotify see the open and the close). Other types (a FIFO or a device
 * must not be opened), pinned inodes and a failed open go through
 * /proc/self/fd/N of the O_PATH descriptor. For a symlink (opened with
 * O_NOFOLLOW), following the magic link lands on the symlink itself, not on
 * its target, so its own xattrs (trusted.*, security.*) are served like any
 * other inode's. The VFS has already refused user.* on symlinks and
 * trusted.* to unprivileged callers (xattr_permission), before the request
 * reached us.
 */
struct xattr_target {
	int fd;			/* an open descriptor, or -1: use path */
	const char *path;	/* /proc/self/fd/N of the lease's descriptor */
	struct fdlease l;
	struct procpath pp;
};

static int xattr_target_get(struct pt_fs *fs, struct rinode *ri, struct xattr_target *x)
{
	int ret;

	x->fd = -1;
	x->path = NULL;
	x->l.fd = -1;
	if (ri->handle && (ri->type == S_IFREG || ri->type == S_IFDIR)) {
		x->fd = open_by_handle_at(fs->it.mount_fd, ri->handle,
					  O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (x->fd >= 0)
			return 0;
	}
	ret = fdc_get(&fs->it, ri, &x->l);
	if (ret < 0)
		return ret;
	x->path = procpath(&x->pp, x->l.fd);
	return 0;
}

static void xattr_target_put(struct pt_fs *fs, struct xattr_target *x)
{
	if (x->fd >= 0)
		close(x->fd);
	else
		fdc_put(&fs->it, &x->l);
}

static ssize_t xt_get(struct xattr_target *x, const char *name, void *value, size_t size)
{
	ssize_t n = x->fd >= 0 ? fgetxattr(x->fd, name, value, size)
			       : getxattr(x->path, name, value, size);

	return n < 0 ? -errno : n;
}

static ssize_t xt_list(struct xattr_target *x, char *list, size_t size)
{
	ssize_t n = x->fd >= 0 ? flistxattr(x->fd, list, size) : listxattr(x->path, list, size);

	return n < 0 ? -errno : n;
}

int pt_setxattr(struct pt_fs *fs, struct rinode *ri, const char *name, const void *value,
		size_t size, int flags)
{
	struct xattr_target x;
	int ret;

	ret = xattr_target_get(fs, ri, &x);
	if (ret < 0)
		return ret;
	ret = x.fd >= 0 ? fsetxattr(x.fd, name, value, size, flags)
			: setxattr(x.path, name, value, size, flags);
	ret = ret < 0 ? -errno : 0;
	xattr_target_put(fs, &x);
	return ret;
}

ssize_t pt_getxattr(struct pt_fs *fs, struct rinode *ri, const char *name, void *value,
		    size_t size)
{
	struct xattr_target x;
	ssize_t n;
	int ret;

	ret = xattr_target_get(fs, ri, &x);
	if (ret < 0)
		return ret;
	n = xt_get(&x, name, value, size);
	xattr_target_put(fs, &x);
	return n;
}

/*
 * Removes the trusted.* names from a list of n bytes, as the backing file
 * system does for a caller without CAP_SYS_ADMIN (the daemon has it).
 * Returns the new length.
 */
static size_t drop_trusted(char *list, size_t n)
{
	size_t in = 0, out = 0;

	while (in < n) {
		size_t len = strnlen(list + in, n - in) + 1;

		if (strncmp(list + in, "trusted.", 8) != 0) {
			memmove(list + out, list + in, len);
			out += len;
		}
		in += len;
	}
	return out;
}

ssize_t pt_listxattr(struct pt_fs *fs, const struct pt_cred *c, struct rinode *ri,
		     char *list, size_t size)
{
	char all[XATTR_LIST_MAX];
	struct xattr_target x;
	ssize_t n;
	int ret;

	ret = xattr_target_get(fs, ri, &x);
	if (ret < 0)
		return ret;
	if (!c || c->uid == 0 || !pt_is_root) {
		n = xt_list(&x, list, size);
		xattr_target_put(fs, &x);
		return n;
	}
	/* an unprivileged caller: the whole list, filtered, then sized */
	n = xt_list(&x, all, sizeof(all));
	xattr_target_put(fs, &x);
	if (n < 0)
		return n;
	n = (ssize_t)drop_trusted(all, (size_t)n);
	if (size == 0)
		return n;
	if ((size_t)n > size)
		return -ERANGE;
	memcpy(list, all, (size_t)n);
	return n;
}

int pt_removexattr(struct pt_fs *fs, struct rinode *ri, const char *name)
{
	struct xattr_target x;
	int ret;

	ret = xattr_target_get(fs, ri, &x);
	if (ret < 0)
		return ret;
	ret = x.fd >= 0 ? fremovexattr(x.fd, name) : removexattr(x.path, name);
	ret = ret < 0 ? -errno : 0;
	xattr_target_put(fs, &x);
	return ret;
}

int pt_fallocate(uint64_t fh, int mode, off_t off, off_t len)
{
	return fallocate(PT_FH_FD(fh), mode, off, len) < 0 ? -errno : 0;
}

int pt_fileattr(int fd, const struct pt_cred *c, unsigned int cmd, void *arg)
{
	int ret;

	if (!fstap_fileattr_size(cmd))
		return -ENOTTY;
	if (!fstap_fileattr_sets(cmd))
		return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
	cred_enter(c, false);
	ret = ioctl(fd, cmd, arg) < 0 ? -errno : 0;
	cred_leave(c, false);
	return ret;
}

ssize_t pt_copy_file_range(uint64_t fh_in, off_t off_in, uint64_t fh_out, off_t off_out,
			   size_t len, unsigned flags)
{
	loff_t oi = off_in, oo = off_out;
	ssize_t n = copy_file_range(PT_FH_FD(fh_in), &oi, PT_FH_FD(fh_out), &oo, len, flags);

	return n < 0 ? -errno : n;
}

int pt_lseek(uint64_t fh, off_t off, int whence, off_t *out)
{
	off_t r = lseek(PT_FH_FD(fh), off, whence);

	if (r < 0)
		return -errno;
	*out = r;
	return 0;
}
