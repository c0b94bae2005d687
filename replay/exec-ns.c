/*
 * exec-ns.c: the executors of the namespace: lookups and attributes,
 * making and removing entries, renames and links, statfs and access.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fstap/devnode.h"
#include "exec_i.h"
int64_t rp_exec_lookup(struct rp_exec *x, const struct rp_task *t)
{
	struct stat st;
	int dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(fstatat(dfd, x->name, &st, AT_SYMLINK_NOFOLLOW));
}

int64_t rp_exec_getattr(struct rp_exec *x, const struct rp_task *t)
{
	struct stat st;
	int dfd, ret;

	if (t->rec.fh) {
		int64_t r;
		struct rp_handle *h = rp_io_handle(t->h, &r);

		if (!h)
			return r;
		/* the application's read at end of file (classify.c) */
		if (t->eof_read) {
			r = rp_grow_buf(&x->buf, &x->bufcap, t->rec.size, false);
			if (!r)
				r = SYSVAL(pread(h->fd, x->buf, t->rec.size, (off_t)t->rec.offset));
		} else {
			r = SYSRET(fstat(h->fd, &st));
		}
		rp_handle_put(h);
		return r;
	}
	if ((ret = rp_obj_at(x, t, t->path, x->name, &dfd)))
		return ret;
	return SYSRET(fstatat(dfd, x->name, &st, AT_SYMLINK_NOFOLLOW));
}

int64_t rp_exec_setattr(struct rp_exec *x, const struct rp_task *t)
{
	const struct fstap_rec *r = &t->rec;
	struct rp_handle *h = NULL;
	int64_t ret = 0;
	int dfd = -1, fd = -1;

	if (r->fh) {
		h = rp_io_handle(t->h, &ret);
		if (!h)
			return ret;
		fd = h->fd;
	} else if ((ret = rp_obj_at(x, t, t->path, x->name, &dfd))) {
		return ret;
	}
	if (r->valid & FSTAP_SET_MODE)
		ret = fd >= 0 ? SYSRET(fchmod(fd, (mode_t)(r->mode & 07777)))
			      : SYSRET(fchmodat(dfd, x->name, (mode_t)(r->mode & 07777),
						AT_SYMLINK_NOFOLLOW));
	if (!ret && (r->valid & (FSTAP_SET_UID | FSTAP_SET_GID))) {
		uid_t u = (r->valid & FSTAP_SET_UID) ? (uid_t)r->owner_uid : (uid_t)-1;
		gid_t g = (r->valid & FSTAP_SET_GID) ? (gid_t)r->owner_gid : (gid_t)-1;

		ret = fd >= 0 ? SYSRET(fchown(fd, u, g))
			      : SYSRET(fchownat(dfd, x->name, u, g, AT_SYMLINK_NOFOLLOW));
	}
	if (!ret && (r->valid & FSTAP_SET_SIZE)) {
		if (fd >= 0) {
			ret = SYSRET(ftruncate(fd, (off_t)r->size));
		} else {
			/* truncate(2) would follow a final symlink: open it ourselves. */
			int tfd = openat(dfd, x->name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
					 O_CLOEXEC | O_NOCTTY);

			ret = tfd < 0 ? -(int64_t)errno : SYSRET(ftruncate(tfd, (off_t)r->size));
			if (tfd >= 0)
				close(tfd);
		}
	}
	if (!ret && (r->valid & (FSTAP_SET_ATIME | FSTAP_SET_MTIME |
				 FSTAP_SET_ATIME_NOW | FSTAP_SET_MTIME_NOW))) {
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };

		if (r->valid & FSTAP_SET_ATIME_NOW)
			ts[0].tv_nsec = UTIME_NOW;
		else if (r->valid & FSTAP_SET_ATIME)
			ts[0] = (struct timespec){ r->atime / 1000000000, r->atime % 1000000000 };
		if (r->valid & FSTAP_SET_MTIME_NOW)
			ts[1].tv_nsec = UTIME_NOW;
		else if (r->valid & FSTAP_SET_MTIME)
			ts[1] = (struct timespec){ r->mtime / 1000000000, r->mtime % 1000000000 };
		for (int i = 0; i < 2; i++) {
			if (ts[i].tv_nsec < 0 && ts[i].tv_nsec != UTIME_OMIT &&
			    ts[i].tv_nsec != UTIME_NOW) {
				ts[i].tv_sec--;
				ts[i].tv_nsec += 1000000000;
			}
		}
		ret = fd >= 0 ? SYSRET(futimens(fd, ts))
			      : SYSRET(utimensat(dfd, x->name, ts, AT_SYMLINK_NOFOLLOW));
	}
	if (h)
		rp_handle_put(h);
	return ret;
}

int64_t rp_exec_readlink(struct rp_exec *x, const struct rp_task *t)
{
	ssize_t n;
	int dfd, ret;

	if ((ret = rp_obj_at(x, t, t->path, x->name, &dfd)))
		return ret;
	n = readlinkat(dfd, x->name, x->link, sizeof(x->link));
	if (n < 0)
		return -errno;
	/* The recorded result is 0; a different link text is a value divergence. */
	if ((size_t)n != t->rec.target.len || memcmp(x->link, t->rec.target.ptr, (size_t)n))
		rp_note_div(x, t, RP_DIV_VALUE, 0, 0, NULL, NULL);
	return 0;
}

/* A device node gets its recorded number only with --devices (fstap/devnode.h). */
int64_t rp_exec_mknod(struct rp_exec *x, const struct rp_task *t)
{
	dev_t rdev = (dev_t)fstap_devnode_rdev(t->rec.mode, t->rec.rdev, x->sh->devices);
	int dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	if (mknodat(dfd, x->name, (mode_t)(t->rec.mode & S_IFMT) | rp_umasked(&t->rec, 07777), rdev))
		return -errno;
	if (!x->sh->devices && fstap_is_devnode(t->rec.mode))
		x->st->devnodes++;
	return 0;
}

int64_t rp_exec_mkdir(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(mkdirat(dfd, x->name, rp_umasked(&t->rec, 07777)));
}

int64_t rp_exec_unlink(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(unlinkat(dfd, x->name, 0));
}

int64_t rp_exec_rmdir(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(unlinkat(dfd, x->name, AT_REMOVEDIR));
}

int64_t rp_exec_symlink(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &dfd);
	size_t len = t->rec.target.len;

	if (ret)
		return ret;
	/* The link text is only stored, never followed by the replay. */
	if (!len || len > PATH_MAX || memchr(t->rec.target.ptr, '\0', len))
		return RP_E_REFUSED;
	memcpy(x->link, t->rec.target.ptr, len);
	x->link[len] = '\0';
	return SYSRET(symlinkat(x->link, dfd, x->name));
}

/* Both directories stay open until the executor returns (held references). */
int64_t rp_exec_rename(struct rp_exec *x, const struct rp_task *t)
{
	int sfd, dfd, ret = rp_entry_at(x, t, t->path, t->rec.name, x->name, &sfd);

	if (ret)
		return ret;
	ret = rp_entry_at(x, t, t->path2, t->rec.newname, x->name2, &dfd);
	if (!ret)
		ret = (int)SYSRET(renameat2(sfd, x->name, dfd, x->name2,
					    (unsigned)(t->rec.flags_arg & 7)));
	return ret;
}

int64_t rp_exec_link(struct rp_exec *x, const struct rp_task *t)
{
	int sfd, dfd, ret = rp_obj_at(x, t, t->path, x->name, &sfd);

	if (ret)
		return ret;
	ret = rp_entry_at(x, t, t->path2, t->rec.newname, x->name2, &dfd);
	if (!ret)
		ret = (int)SYSRET(linkat(sfd, x->name, dfd, x->name2, 0));
	return ret;
}

int64_t rp_exec_statfs(struct rp_exec *x, const struct rp_task *t)
{
	struct statfs sf;

	(void)t;
	return SYSRET(fstatfs(x->sh->root_fd, &sf));
}

int64_t rp_exec_access(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = rp_obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(faccessat(dfd, x->name, (int)(t->rec.mode & 7), AT_SYMLINK_NOFOLLOW));
}
