/*
 * paths.c: confinement of names and paths (fstap/name.h's checks), and the
 * directory and final name an executor's system call is issued at: a
 * single plain entry name, a path as the pathmap writes it, the directory
 * held from the cache (dircache.c), and the working directory for the
 * l*xattr calls (the entry's serial number, not its descriptor number,
 * says which it is).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fstap/name.h"
#include "exec_i.h"

int rp_name_cstr(struct fstap_bytes b, char *buf)
{
	if (!fstap_name_valid(b))
		return RP_E_REFUSED;
	memcpy(buf, b.ptr, b.len);
	buf[b.len] = '\0';
	return 0;
}

/* Whether path, one of t's, is valid: as the dispatcher found, or looked at now. */
static bool task_path_valid(const struct rp_task *t, const char *path)
{
	if ((path == t->path && (t->valid_paths & RP_PATH_VALID)) ||
	    (path == t->path2 && (t->valid_paths & RP_PATH2_VALID)))
		return true;
	return fstap_path_valid(path);
}

/* The directory and name of an entry operation's entry: dir path + rec name. */
int rp_entry_at(struct rp_exec *x, const struct rp_task *t, const char *dpath,
		    struct fstap_bytes name, char *nbuf, int *dfd)
{
	int ret = rp_name_cstr(name, nbuf);

	if (ret)
		return ret;
	if (!dpath)
		return RP_E_UNKNOWN;
	if (!task_path_valid(t, dpath))
		return RP_E_REFUSED;
	*dfd = rp_dir_hold(x, t, dpath);
	return *dfd < 0 ? *dfd : 0;
}

/*
 * The directory and name of the object at path, one of t's ("." in the
 * root for "/"). A valid path's components fit NAME_BUF and PATH_BUF
 * (fstap_path_valid); t->path comes split by the dispatcher.
 */
int rp_obj_at(struct rp_exec *x, const struct rp_task *t, const char *path, char *nbuf,
	      int *dfd)
{
	size_t len, name_at;

	if (!path)
		return RP_E_UNKNOWN;
	if (path == t->path && (t->valid_paths & RP_PATH_VALID)) {
		len = t->path_len;
		name_at = t->path_name;
	} else if (fstap_path_valid(path)) {
		len = strlen(path);
		name_at = rp_path_name_at(path, len);
	} else {
		return RP_E_REFUSED;
	}
	if (len == 1) {
		strcpy(nbuf, ".");
		*dfd = x->sh->root_fd;
		return 0;
	}
	memcpy(nbuf, path + name_at, len - name_at + 1);
	if (name_at == 1) {
		*dfd = x->sh->root_fd;	/* (rp_dir_hold's answer for "/") */
		return 0;
	}
	memcpy(x->pbuf, path, name_at - 1);
	x->pbuf[name_at - 1] = '\0';
	*dfd = rp_dir_hold(x, t, x->pbuf);
	return *dfd < 0 ? *dfd : 0;
}

/*
 * Makes dfd (the root or a directory the executor holds) this thread's
 * working directory, for the l*xattr calls.
 */
int rp_enter_dir(struct rp_exec *x, int dfd)
{
	uint64_t serial = 0;
	unsigned i;

	if (!x->own_fs)
		return -ENOTSUP;
	if (dfd == x->sh->root_fd)
		serial = 1;
	for (i = 0; !serial && i < x->nheld; i++)
		if (x->held[i]->fd == dfd)
			serial = x->held[i]->serial;
	if (serial && x->cwd == serial)
		return 0;
	if (fchdir(dfd)) {
		x->cwd = 0;
		return -errno;
	}
	x->cwd = serial;
	return 0;
}
