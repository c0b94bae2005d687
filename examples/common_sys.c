/* common_sys.c: the checked system-call wrappers of the example workloads
 * (see common.h): each does one real call (or a loop of them for full reads
 * and writes), counts it in the calling thread's counters, and on failure
 * dies naming the call and the path. */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

bool x_mkdir(struct ex_stats *st, const char *path, mode_t mode, bool may_exist)
{
	st->ops[OP_MKDIR]++;
	if (mkdir(path, mode) == 0)
		return true;
	if (errno == EEXIST && may_exist) {
		struct stat sb;
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			return false;
		errno = EEXIST;
	}
	if (errno == EEXIST && !may_exist)
		ex_die("mkdir '%s': %s (left by an earlier run? run the cleanup phase first)", path,
		       strerror(errno));
	ex_die("mkdir '%s': %s", path, strerror(errno));
}

void x_rmdir(struct ex_stats *st, const char *path)
{
	st->ops[OP_RMDIR]++;
	if (rmdir(path) != 0)
		ex_die("rmdir '%s': %s", path, strerror(errno));
}

bool x_rmdir_if_exists(struct ex_stats *st, const char *path)
{
	st->ops[OP_RMDIR]++;
	if (rmdir(path) == 0)
		return true;
	if (errno == ENOENT)
		return false;
	ex_die("rmdir '%s': %s", path, strerror(errno));
}

int x_open(struct ex_stats *st, const char *path, int flags, mode_t mode)
{
	int fd;

	st->ops[(flags & O_CREAT) ? OP_CREATE : OP_OPEN]++;
	do
		fd = open(path, flags | O_CLOEXEC, mode);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		ex_die("open '%s': %s", path, strerror(errno));
	return fd;
}

void x_close(struct ex_stats *st, int fd, const char *path)
{
	st->ops[OP_CLOSE]++;
	/* On Linux the descriptor is gone even if close fails (EINTR too), so
	 * never retry; an error is a real write-back error (NFS, FUSE). */
	if (close(fd) != 0)
		ex_die("close '%s': %s", path, strerror(errno));
}

size_t x_read(struct ex_stats *st, int fd, void *buf, size_t len, const char *path)
{
	ssize_t n;

	do {
		st->ops[OP_READ]++;
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		ex_die("read '%s': %s", path, strerror(errno));
	st->bytes_read += (uint64_t)n;
	return (size_t)n;
}

size_t x_pread_full(struct ex_stats *st, int fd, void *buf, size_t len, off_t off, const char *path)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;
		st->ops[OP_READ]++;
		n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ex_die("pread '%s' at %lld: %s", path, (long long)(off + (off_t)done), strerror(errno));
		if (n == 0)
			break;
		done += (size_t)n;
		st->bytes_read += (uint64_t)n;
	}
	return done;
}

uint64_t x_read_all(struct ex_stats *st, int fd, void *buf, size_t bufsize, const char *path)
{
	uint64_t total = 0;
	size_t n;

	while ((n = x_read(st, fd, buf, bufsize, path)) > 0)
		total += n;
	return total;
}

void x_write_full(struct ex_stats *st, int fd, const void *buf, size_t len, const char *path)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;
		st->ops[OP_WRITE]++;
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ex_die("write '%s': %s", path, strerror(errno));
		if (n == 0)
			ex_die("write '%s': wrote nothing", path);
		done += (size_t)n;
		st->bytes_written += (uint64_t)n;
	}
}

void x_pwrite_full(struct ex_stats *st, int fd, const void *buf, size_t len, off_t off, const char *path)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;
		st->ops[OP_WRITE]++;
		n = pwrite(fd, (const char *)buf + done, len - done, off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ex_die("pwrite '%s' at %lld: %s", path, (long long)(off + (off_t)done), strerror(errno));
		if (n == 0)
			ex_die("pwrite '%s': wrote nothing", path);
		done += (size_t)n;
		st->bytes_written += (uint64_t)n;
	}
}

void x_stat(struct ex_stats *st, const char *path, struct stat *sb)
{
	st->ops[OP_STAT]++;
	if (stat(path, sb) != 0)
		ex_die("stat '%s': %s", path, strerror(errno));
}

void x_fstat(struct ex_stats *st, int fd, struct stat *sb, const char *path)
{
	st->ops[OP_STAT]++;
	if (fstat(fd, sb) != 0)
		ex_die("fstat '%s': %s", path, strerror(errno));
}

void x_unlink(struct ex_stats *st, const char *path)
{
	st->ops[OP_UNLINK]++;
	if (unlink(path) != 0)
		ex_die("unlink '%s': %s", path, strerror(errno));
}

bool x_exists(struct ex_stats *st, const char *path)
{
	struct stat sb;

	st->ops[OP_STAT]++;
	if (stat(path, &sb) == 0)
		return true;
	if (errno == ENOENT)
		return false;
	ex_die("stat '%s': %s", path, strerror(errno));
}

bool x_unlink_if_exists(struct ex_stats *st, const char *path)
{
	st->ops[OP_UNLINK]++;
	if (unlink(path) == 0)
		return true;
	if (errno == ENOENT)
		return false;
	ex_die("unlink '%s': %s", path, strerror(errno));
}

void x_rename(struct ex_stats *st, const char *from, const char *to)
{
	st->ops[OP_RENAME]++;
	if (rename(from, to) != 0)
		ex_die("rename '%s' to '%s': %s", from, to, strerror(errno));
}

void x_fsync(struct ex_stats *st, int fd, const char *path)
{
	st->ops[OP_FSYNC]++;
	if (fsync(fd) != 0)
		ex_die("fsync '%s': %s", path, strerror(errno));
}

void x_fdatasync(struct ex_stats *st, int fd, const char *path)
{
	st->ops[OP_FDATASYNC]++;
	if (fdatasync(fd) != 0)
		ex_die("fdatasync '%s': %s", path, strerror(errno));
}

static void xattr_die(const char *what, const char *path, const char *name)
{
	int e = errno;

	if (e == ENOTSUP)
		ex_die("%s '%s' on '%s': %s (the file system under -d does not support user "
		       "extended attributes)", what, name, path, strerror(e));
	ex_die("%s '%s' on '%s': %s", what, name, path, strerror(e));
}

size_t x_getxattr(struct ex_stats *st, const char *path, const char *name, void *buf, size_t len)
{
	ssize_t n;

	st->ops[OP_GETXATTR]++;
	n = getxattr(path, name, buf, len);
	if (n < 0)
		xattr_die("getxattr", path, name);
	return (size_t)n;
}

size_t x_fgetxattr(struct ex_stats *st, int fd, const char *name, void *buf, size_t len, const char *path)
{
	ssize_t n;

	st->ops[OP_GETXATTR]++;
	n = fgetxattr(fd, name, buf, len);
	if (n < 0)
		xattr_die("fgetxattr", path, name);
	return (size_t)n;
}

void x_setxattr(struct ex_stats *st, const char *path, const char *name, const void *val, size_t len)
{
	st->ops[OP_SETXATTR]++;
	if (setxattr(path, name, val, len, 0) != 0)
		xattr_die("setxattr", path, name);
}

void x_fsetxattr(struct ex_stats *st, int fd, const char *name, const void *val, size_t len, const char *path)
{
	st->ops[OP_SETXATTR]++;
	if (fsetxattr(fd, name, val, len, 0) != 0)
		xattr_die("fsetxattr", path, name);
}

char **ex_list_dir(struct ex_stats *st, const char *path, size_t *n)
{
	DIR *d;
	struct dirent *de;
	size_t cap = 64, len = 0;
	char **names;

	st->ops[OP_OPENDIR]++;
	d = opendir(path);
	if (!d)
		ex_die("opendir '%s': %s", path, strerror(errno));
	names = ex_malloc(cap * sizeof *names);
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				ex_die("readdir '%s': %s", path, strerror(errno));
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		st->ops[OP_READDIR]++;
		if (len == cap) {
			char **nn;
			cap *= 2;
			nn = realloc(names, cap * sizeof *names);
			if (!nn)
				ex_die("out of memory listing '%s'", path);
			names = nn;
		}
		names[len] = strdup(de->d_name);
		if (!names[len])
			ex_die("out of memory listing '%s'", path);
		len++;
	}
	st->ops[OP_CLOSEDIR]++;
	if (closedir(d) != 0)
		ex_die("closedir '%s': %s", path, strerror(errno));
	*n = len;
	return names;
}

void ex_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
