/*
 * state.c: the initial-state records of one object and one name, read from
 * a real file system (state.h): the recorder's snapshot and the strace
 * importer's namespace describe what they find with them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>	/* FS_IOC_GETFLAGS, FS_IOC_FSGETXATTR */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fstap/state.h"
#include "fstap/util.h"
#include "fstap/xattr.h"

/*
 * The value of xattr p into the free part of sb->xvals: its size, or -1. A
 * value that does not fit is only measured (*fits false).
 */
static ssize_t read_value(struct fstap_statebuf *sb, const char *path, const char *p,
			  size_t used, bool *fits)
{
	ssize_t v = getxattr(path, p, sb->xvals + used, sizeof(sb->xvals) - used);

	*fits = v >= 0;
	if (v < 0 && errno == ERANGE)
		v = getxattr(path, p, NULL, 0);
	return v;
}

static void read_xattrs(struct fstap_statebuf *sb, int fd, uint32_t value_max,
			struct fstap_rec *r)
{
	char path[32];
	ssize_t n, v;
	size_t used = 0;
	bool fits, left_out = false;
	char *p;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = listxattr(path, sb->xlist, sizeof(sb->xlist));
	if (n <= 0)
		return;
	for (p = sb->xlist; p < sb->xlist + n && r->nxattrs < FSTAP_STATE_XATTRS_MAX; p += strlen(p) + 1) {
		struct fstap_xattr *x = &sb->xattrs[r->nxattrs];

		if (fstap_xattr_fs_own(p, strlen(p)))
			continue;	/* xfs's copy of an ACL: not the application's */
		v = read_value(sb, path, p, used, &fits);
		if (v < 0)
			continue;	/* removed meanwhile */
		x->name.ptr = (const uint8_t *)p;
		x->name.len = (uint32_t)strlen(p);
		x->value = (struct fstap_bytes){ NULL, 0 };
		if (fits && fstap_xattr_value_kept(p, (size_t)v, value_max)) {
			x->value.ptr = (const uint8_t *)sb->xvals + used;
			x->value.len = (uint32_t)v;
			used += (size_t)v;
		} else {
			left_out = true;
		}
		sb->xattr_sizes[r->nxattrs++] = (uint64_t)v;
	}
	r->xattrs = sb->xattrs;
	if (left_out)
		r->xattr_sizes = (struct fstap_u64_list){ sb->xattr_sizes, r->nxattrs };
}

static void read_extents(struct fstap_statebuf *sb, int fd, off_t size,
			 struct fstap_rec *r)
{
	off_t pos = 0, data, hole;

	while (pos < size && r->nextents < FSTAP_STATE_EXTENTS_MAX) {
		data = lseek(fd, pos, SEEK_DATA);
		if (data < 0)
			break;		/* ENXIO: only a hole is left */
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			hole = size;
		if (r->nextents == FSTAP_STATE_EXTENTS_MAX - 1)
			hole = size;	/* too fragmented: the rest is one extent */
		sb->extents[r->nextents].offset = (uint64_t)data;
		sb->extents[r->nextents].length = (uint64_t)(hole - data);
		r->nextents++;
		pos = hole;
	}
	r->extents = sb->extents;
}

/*
 * The file attribute flags (lsattr) and the project id of an open file or
 * directory; left 0 where the file system has none (ENOTTY) or fd is O_PATH.
 */
static void read_fileattr(int fd, struct fstap_rec *r)
{
	struct fsxattr fsx;
	int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0)
		r->flags_arg = (uint32_t)flags;
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx) == 0)
		r->projid = fsx.fsx_projid;
}

int fstap_state_inode(struct fstap_statebuf *sb, int dirfd, const char *name,
		      const struct stat *st, uint64_t obj, uint32_t value_max,
		      fstap_state_emit_fn emit, void *arg)
{
	struct fstap_rec r;
	int fd;

	memset(&r, 0, sizeof(r));
	r.op = FSTAP_OP_STATE_INODE;
	r.obj = obj;
	r.mode = st->st_mode;
	r.owner_uid = st->st_uid;
	r.owner_gid = st->st_gid;
	r.size = (uint64_t)st->st_size;
	r.atime = fstap_timespec_ns(&st->st_atim);
	r.mtime = fstap_timespec_ns(&st->st_mtim);
	r.ctime = fstap_timespec_ns(&st->st_ctim);
	r.ino = st->st_ino;
	r.nlink = st->st_nlink;
	r.rdev = st->st_rdev;
	if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlinkat(dirfd, name, sb->target, sizeof(sb->target));

		if (n > 0) {
			r.target.ptr = (const uint8_t *)sb->target;
			r.target.len = (uint32_t)n;
		}
	} else if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)) {
		int flags = S_ISDIR(st->st_mode) ? O_RDONLY | O_DIRECTORY : O_RDONLY;

		fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			read_xattrs(sb, fd, value_max, &r);
			read_fileattr(fd, &r);
			if (S_ISREG(st->st_mode) && st->st_size > 0)
				read_extents(sb, fd, st->st_size, &r);
			close(fd);
		}
	}
	emit(&r, arg);
	return 0;
}

void fstap_state_dentry(uint64_t parent, const char *name, uint64_t child,
			fstap_state_emit_fn emit, void *arg)
{
	struct fstap_rec r;

	memset(&r, 0, sizeof(r));
	r.op = FSTAP_OP_STATE_DENTRY;
	r.obj = parent;
	r.name.ptr = (const uint8_t *)name;
	r.name.len = (uint32_t)strlen(name);
	r.child = child;
	emit(&r, arg);
}
