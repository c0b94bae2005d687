/*
 * passthrough_attrs.c: the recorder's statfs, access, extended attributes
 * and file attribute ioctls, as passthrough.c says.
 *
 * Not here: names and attributes (passthrough.c), open files and
 * directories (passthrough_files.c).
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
	pt_cred_enter(c, true);
	ret = faccessat(fs->proc_fd, pt_procpath(&pp, l.fd) + 14, mask, AT_EACCESS) < 0 ? -errno : 0;
	pt_cred_leave(c, true);
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
	x->path = pt_procpath(&x->pp, x->l.fd);
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

int pt_fileattr(int fd, const struct pt_cred *c, unsigned int cmd, void *arg)
{
	int ret;

	if (!fstap_fileattr_size(cmd))
		return -ENOTTY;
	if (!fstap_fileattr_sets(cmd))
		return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
	pt_cred_enter(c, false);
	ret = ioctl(fd, cmd, arg) < 0 ? -errno : 0;
	pt_cred_leave(c, false);
	return ret;
}

