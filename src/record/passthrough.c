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
 *
 * Here: the credentials, the set-up, names and attributes (lookup, getattr,
 * setattr, the creates, link, unlink, rename). Open files and directories
 * are in passthrough_files.c, statfs, access, xattrs and the file attribute
 * ioctls in passthrough_attrs.c.
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
#include "record/passthrough_i.h"
#include "record/record_i.h"

bool pt_is_root;
static gid_t pt_egid;		/* the daemon's fsgid outside pt_cred_enter */
static gid_t pt_groups[PT_GROUPS_MAX];
static int pt_ngroups;

const char *pt_procpath(struct procpath *p, int fd)
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

void pt_cred_enter(const struct pt_cred *c, bool groups)
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

void pt_cred_leave(const struct pt_cred *c, bool groups)
{
	if (!c || !pt_is_root || cred_same(c, groups))
		return;
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, pt_egid);
	if (groups && c->getgroups)
		syscall(SYS_setgroups, (size_t)pt_ngroups, pt_groups);
}

bool pt_cred_retry(const struct pt_cred *c, int ret)
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
int pt_make_entry(struct pt_fs *fs, const struct rinode *parent, int pfd, const char *name,
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
	ret = pt_make_entry(fs, parent, l.fd, name, e);
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
			    : fchmodat(fs->proc_fd, pt_procpath(&pp, lfd) + 14, a->st_mode & 07777, 0))
			return -errno;
	}
	if ((valid & (FSTAP_SET_UID | FSTAP_SET_GID)) || ctime_only) {
		uid_t u = (valid & FSTAP_SET_UID) ? a->st_uid : (uid_t)-1;
		gid_t g = (valid & FSTAP_SET_GID) ? a->st_gid : (gid_t)-1;

		if (fchownat(lfd, "", u, g, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	if (valid & FSTAP_SET_SIZE) {
		if (fd >= 0 ? ftruncate(fd, a->st_size) : truncate(pt_procpath(&pp, lfd), a->st_size))
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
	pt_cred_enter(c, false);
	ret = do_make(l.fd, k, name, mode, rdev, target);
	pt_cred_leave(c, false);
	if (pt_cred_retry(c, ret)) {
		pt_cred_enter(c, true);
		ret = do_make(l.fd, k, name, mode, rdev, target);
		pt_cred_leave(c, true);
	}
	if (!ret)
		ret = pt_make_entry(fs, parent, l.fd, name, e);
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
		ret = pt_make_entry(fs, newparent, lp.fd, newname, e);
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

