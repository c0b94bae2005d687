/*
 * passthrough_files.c: the recorder's work on open files and directories
 * (open, create, read, write, flush, fsync, release, the directory
 * stream, fallocate, copy_file_range, lseek), as passthrough.c says.
 *
 * Not here: names and attributes (passthrough.c), statfs, access, xattrs
 * and the file attribute ioctls (passthrough_attrs.c).
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
		fd = openat(fs->proc_fd, pt_procpath(&pp, ri->pinned_fd) + 14, flags);
		return fd < 0 ? -errno : fd;
	}
	fd = open_by_handle_at(fs->it.mount_fd, ri->handle, flags);
	if (fd >= 0 || errno != ELOOP)
		return fd < 0 ? -errno : fd;
	ret = fdc_get(&fs->it, ri, &l);	/* not reached for regular files */
	if (ret < 0)
		return ret;
	fd = openat(fs->proc_fd, pt_procpath(&pp, l.fd) + 14, flags);
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
	pt_cred_enter(c, false);
	fd = do_create(l.fd, name, flags, mode);
	pt_cred_leave(c, false);
	if (pt_cred_retry(c, fd)) {
		pt_cred_enter(c, true);
		fd = do_create(l.fd, name, flags, mode);
		pt_cred_leave(c, true);
	}
	if (fd < 0) {
		fdc_put(&fs->it, &l);
		return fd;
	}
	ret = pt_make_entry(fs, parent, l.fd, name, e);
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

/* ---- the rest of a file's calls ----------------------------------------- */

int pt_fallocate(uint64_t fh, int mode, off_t off, off_t len)
{
	return fallocate(PT_FH_FD(fh), mode, off, len) < 0 ? -errno : 0;
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
