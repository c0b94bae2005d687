/*
 * snapshot.c: the initial state of the backing tree as STATE_INODE and
 * STATE_DENTRY records: type, mode, owner, size, times, inode number, link
 * count, device number, symlink target, xattrs, data extents (the rest of
 * a file is holes), file attribute flags and project id, so that `prepare`
 * can rebuild it.
 *
 * --snapshot=full walks the whole tree at mount, before the first request;
 * --snapshot=touched describes an object when the workload first looks it
 * up or lists it (rec_ops.c calls snap_inode). Object ids come from the inode
 * table, so the state records and the operation records name objects alike.
 *
 * xattr values follow the rule of --xattr-values (rec_xattr_value_kept): a
 * value left out is recorded empty, with its size in the record's
 * xattr_sizes, so that prepare still gives the xattr its size.
 *
 * Not here: reading file contents (a trace records shapes, not data).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>	/* FS_IOC_GETFLAGS, FS_IOC_FSGETXATTR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fstap/xattr.h"
#include "record/record_i.h"
#include "record/snapshot_i.h"

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

bool rec_xattr_value_kept(const char *name, size_t len, uint32_t user_max)
{
	return strncmp(name, "user.", 5) || len <= user_max;
}

/*
 * The value of xattr p into the free part of sb->xvals: its size, or -1. A
 * value that does not fit is only measured (*fits false).
 */
static ssize_t read_value(struct snapbuf *sb, const char *path, const char *p, size_t used,
			  bool *fits)
{
	ssize_t v = getxattr(path, p, sb->xvals + used, sizeof(sb->xvals) - used);

	*fits = v >= 0;
	if (v < 0 && errno == ERANGE)
		v = getxattr(path, p, NULL, 0);
	return v;
}

static void read_xattrs(struct snapbuf *sb, int fd, uint32_t value_max, struct fstap_rec *r)
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
	for (p = sb->xlist; p < sb->xlist + n && r->nxattrs < SNAP_XATTRS_MAX; p += strlen(p) + 1) {
		struct fstap_xattr *x = &sb->xattrs[r->nxattrs];

		if (fstap_xattr_fs_own(p, strlen(p)))
			continue;	/* xfs's copy of an ACL: not the application's */
		v = read_value(sb, path, p, used, &fits);
		if (v < 0)
			continue;	/* removed meanwhile */
		x->name.ptr = (const uint8_t *)p;
		x->name.len = (uint32_t)strlen(p);
		x->value = (struct fstap_bytes){ NULL, 0 };
		if (fits && rec_xattr_value_kept(p, (size_t)v, value_max)) {
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

static void read_extents(struct snapbuf *sb, int fd, off_t size, struct fstap_rec *r)
{
	off_t pos = 0, data, hole;

	while (pos < size && r->nextents < SNAP_EXTENTS_MAX) {
		data = lseek(fd, pos, SEEK_DATA);
		if (data < 0)
			break;		/* ENXIO: only a hole is left */
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			hole = size;
		if (r->nextents == SNAP_EXTENTS_MAX - 1)
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

int snap_inode(struct snapbuf *sb, int dirfd, const char *name, const struct stat *st,
	       uint64_t obj, uint32_t value_max, snap_emit_fn emit, void *arg)
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
	r.atime = ts_ns(&st->st_atim);
	r.mtime = ts_ns(&st->st_mtim);
	r.ctime = ts_ns(&st->st_ctim);
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

void snap_dentry(uint64_t parent, const char *name, uint64_t child, snap_emit_fn emit,
		 void *arg)
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

static int walk_dir(struct itable *t, struct snapbuf *sb, int dfd, uint64_t dobj,
		    uint32_t value_max, snap_emit_fn emit, void *arg, uint64_t *count)
{
	DIR *dp;
	struct dirent *de;
	int ret = 0;

	dp = fdopendir(dfd);
	if (!dp) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	while ((errno = 0, de = readdir(dp))) {
		struct stat st;
		uint64_t obj;
		bool newobj;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* gone meanwhile */
		/* a file system mounted below the root is walked too: the
		 * passthrough serves it (st is the mounted root's) */
		obj = itable_obj_of(t, st.st_dev, st.st_ino, true, &newobj);
		if (newobj) {
			snap_inode(sb, dirfd(dp), de->d_name, &st, obj, value_max, emit, arg);
			(*count)++;
		}
		snap_dentry(dobj, de->d_name, obj, emit, arg);
		if (S_ISDIR(st.st_mode) && newobj) {
			int cfd = openat(dirfd(dp), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd >= 0) {
				ret = walk_dir(t, sb, cfd, obj, value_max, emit, arg, count);
				if (ret < 0 && ret != -EACCES)
					break;
				ret = 0;
			}
		}
	}
	if (!de && errno)
		ret = -errno;
	closedir(dp);
	return ret;
}

int snap_walk(struct pt_fs *fs, uint32_t value_max, snap_emit_fn emit, void *arg,
	      uint64_t *count)
{
	struct snapbuf *sb = malloc(sizeof(*sb));
	struct stat st;
	int dfd, ret;

	*count = 0;
	if (!sb)
		return -ENOMEM;
	if (fstat(fs->root_fd, &st) < 0) {
		ret = -errno;
		free(sb);
		return ret;
	}
	snap_inode(sb, fs->root_fd, ".", &st, FSTAP_ROOT_OBJ, value_max, emit, arg);
	(*count)++;
	dfd = openat(fs->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		free(sb);
		return ret;
	}
	ret = walk_dir(&fs->it, sb, dfd, FSTAP_ROOT_OBJ, value_max, emit, arg, count);
	free(sb);
	return ret;
}
