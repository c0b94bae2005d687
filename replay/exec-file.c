/*
 * exec-file.c: the executors of open files: open, create, opendir, read,
 * write, release and the syncs, the ranges (fallocate, copy_file_range,
 * lseek), and the file attribute ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/fileattr.h"
#include "exec_i.h"
static int64_t open_common(struct rp_exec *x, const struct rp_task *t, int dfd, int flags,
			   mode_t mode, bool dir)
{
	int fd = openat(dfd, x->name, flags, mode);

	if (fd < 0)
		return -errno;
	return rp_handle_opened(t, fd, dir);
}

int64_t rp_exec_open(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	/* A device node is never opened without --devices: a handle that is no descriptor. */
	if (t->device && !x->sh->devices) {
		ret = rp_handle_opened(t, -1, false);
		return ret ? ret : RP_E_DEVICE;
	}
	/* An open of an existing object: it never creates one. */
	return open_common(x, t, dfd, rp_open_flags(t->rec.flags_arg) & ~(O_CREAT | O_EXCL), 0,
			   false);
}

int64_t rp_exec_create(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return open_common(x, t, dfd, rp_open_flags(t->rec.flags_arg) | O_CREAT,
			   rp_umasked(&t->rec, 07777), false);
}

/*
 * glibc's opendir() opens with O_RDONLY | O_NDELAY | O_DIRECTORY and then
 * fstat()s the descriptor (opendir_tail(), to size its buffer); FUSE sees
 * that fstat only when the directory's attributes are not cached, as a
 * GETATTR right after the OPENDIR (classify.c absorbs it). So an OPENDIR with
 * O_NONBLOCK is an opendir(), and its fstat is issued here; one without
 * (open(O_DIRECTORY) by hand, musl's opendir) is an open alone.
 */
int64_t rp_exec_opendir(struct rp_exec *x, const struct rp_task *t)
{
	struct stat st;
	int dfd, fd, ret = rp_obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	fd = openat(dfd, x->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if ((t->rec.flags_arg & O_NONBLOCK) && fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return rp_handle_opened(t, fd, true);
}

int64_t rp_exec_read(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = rp_io_handle(t->h, &ret);

	if (!h)
		return ret;
	ret = rp_grow_buf(&x->buf, &x->bufcap, t->rec.size, false);
	if (!ret)
		ret = SYSVAL(pread(h->fd, x->buf, t->rec.size, (off_t)t->rec.offset));
	rp_handle_put(h);
	return ret;
}

int64_t rp_exec_write(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = rp_io_handle(t->h, &ret);
	const uint8_t *data;

	if (!h)
		return ret;
	ret = rp_write_data(x, t->rec.size, &data);
	if (!ret)
		ret = SYSVAL(pwrite(h->fd, data, t->rec.size, (off_t)t->rec.offset));
	rp_handle_put(h);
	return ret;
}

int64_t rp_exec_release(struct rp_exec *x, const struct rp_task *t)
{
	return rp_handle_release(t->h) ? 0 : RP_E_UNKNOWN;
}

static int64_t fsync_common(struct rp_exec *x, const struct rp_task *t, bool data)
{
	int64_t ret;
	struct rp_handle *h = rp_io_handle(t->h, &ret);

	if (!h)
		return ret;
	ret = data ? SYSRET(fdatasync(h->fd)) : SYSRET(fsync(h->fd));
	rp_handle_put(h);
	return ret;
}

int64_t rp_exec_fsync(struct rp_exec *x, const struct rp_task *t)
{
	return fsync_common(x, t, false);
}

int64_t rp_exec_fdatasync(struct rp_exec *x, const struct rp_task *t)
{
	return fsync_common(x, t, true);
}

int64_t rp_exec_fsyncdir(struct rp_exec *x, const struct rp_task *t)
{
	return fsync_common(x, t, t->rec.flags_arg & 1);
}

/* ---- executors: ranges ---------------------------------------------------- */

int64_t rp_exec_fallocate(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = rp_io_handle(t->h, &ret);

	if (!h)
		return ret;
	ret = SYSRET(fallocate(h->fd, (int)(t->rec.flags_arg & 0x7f), (off_t)t->rec.offset,
			       (off_t)t->rec.size));
	rp_handle_put(h);
	return ret;
}

int64_t rp_exec_copy_file_range(struct rp_exec *x, const struct rp_task *t)
{
	loff_t in = (loff_t)t->rec.offset, out = (loff_t)t->rec.offset2;
	int64_t ret = 0;
	struct rp_handle *a = rp_io_handle(t->h, &ret), *b = NULL;

	if (a)
		b = rp_io_handle(t->h2, &ret);
	if (a && b)
		ret = SYSVAL(copy_file_range(a->fd, &in, b->fd, &out, t->rec.size, 0));
	if (a)
		rp_handle_put(a);
	if (b)
		rp_handle_put(b);
	return ret;
}

int64_t rp_exec_lseek(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = rp_io_handle(t->h, &ret);

	if (!h)
		return ret;
	ret = t->rec.whence > SEEK_HOLE ? -EINVAL
		: SYSVAL(lseek(h->fd, (off_t)t->rec.offset, (int)t->rec.whence));
	rp_handle_put(h);
	return ret;
}

/* ---- executors: ioctls ---------------------------------------------------- */

/* The get command of a set command's attributes. */
static unsigned long fileattr_get_cmd(uint64_t cmd)
{
	return fstap_fileattr_is_flags(cmd) ? FS_IOC_GETFLAGS : FS_IOC_FSGETXATTR;
}

/*
 * The file attribute ioctls (fstap/fileattr.h) on the live handle. A get
 * is issued as recorded. A set first reads the target's attributes and
 * changes what the application could change: for FS_IOC_SETFLAGS the flags
 * chattr sets (fstap_fileattr_merge_flags), so that flags of the recording
 * file system's own (ext4's extents flag) are not imposed on another; for
 * FS_IOC_FSSETXATTR xflags, extent size hints and project id as recorded.
 * A set that failed when recorded is not issued: the replay runs as root,
 * and making a file append-only that the application could not would make
 * every later write diverge. Other commands were refused by the recording
 * FUSE mount (ENOTTY) and are not issued either: their recorded result
 * stands.
 */
int64_t rp_exec_ioctl(struct rp_exec *x, const struct rp_task *t)
{
	uint64_t cmd = t->rec.cmd;
	union fstap_fileattr_arg a, cur;
	struct rp_handle *h;
	int64_t ret;

	if (!fstap_fileattr_size(cmd) || (fstap_fileattr_sets(cmd) && t->rec.result < 0))
		return t->rec.result;
	h = rp_handle_use(t->h);
	if (!h)
		return RP_E_UNKNOWN;
	memset(&a, 0, sizeof(a));
	if (!fstap_fileattr_sets(cmd)) {
		ret = SYSRET(ioctl(h->fd, (unsigned long)cmd, &a));
	} else if (!(ret = SYSRET(ioctl(h->fd, fileattr_get_cmd(cmd), &cur)))) {
		a = cur;
		fstap_fileattr_from_rec(&a, &t->rec);
		if (fstap_fileattr_is_flags(cmd))
			a.flags = fstap_fileattr_merge_flags(cur.flags, a.flags);
		ret = SYSRET(ioctl(h->fd, (unsigned long)cmd, &a));
	}
	rp_handle_put(h);
	return ret;
}
