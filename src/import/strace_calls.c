/*
 * strace_calls.c: the system calls of an strace log, each turned into the
 * fstap operation records the recorder would have written for it. This
 * file has what the handlers share (paths, the object a call acts on,
 * LOOKUP records, the counts of calls left out) and the table of calls;
 * the handlers are in strace_calls_io.c, strace_calls_dir.c and
 * strace_calls_attr.c (strace_calls_i.h lists them).
 *
 * Paths: an argument path is made absolute with its directory
 * descriptor's -yy annotation (or the process's working directory, learned
 * from AT_FDCWD<...> and chdir) and normalized lexically; only paths below
 * --root are imported, as paths relative to it. A name the importer does
 * not know yet, met by a call that succeeded, is learned with a LOOKUP
 * record (as the kernel would have looked it up); a call that failed on a
 * missing name becomes a LOOKUP of the first missing component with the
 * call's error, so that a replay meets the same error.
 *
 * An O_TMPFILE open has no fstap operation: it is counted as
 * "openat(O_TMPFILE)", and the calls on its descriptor with the others
 * that have none. NEEDSWORK: a symlink in the middle of a path is resolved
 * lexically.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/name.h"
#include "fstap/util.h"
#include "import/strace_calls_i.h"

/* ---- paths --------------------------------------------------------------- */

/* Normalizes an absolute path in place: no "//", ".", ".." or trailing '/'. */
static void normalize(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		char *c;
		size_t n;
		int dots;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		c = in;
		while (*in && *in != '/')
			in++;
		n = (size_t)(in - c);
		dots = fstap_name_dots(c, n);
		if (dots == 1)
			continue;
		if (dots == 2) {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, c, n);
		out += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* The path relative to --root ("" for the root), or NULL if outside it. */
const char *sc_rel_of(struct imp *im, const char *abs)
{
	if (!im->rootlen)
		return abs[1] ? abs + 1 : abs + 1;
	if (strncmp(abs, im->root, im->rootlen))
		return NULL;
	if (abs[im->rootlen] == '\0')
		return abs + im->rootlen;
	if (abs[im->rootlen] != '/')
		return NULL;
	return abs + im->rootlen + 1;
}

void sc_set_cwd(struct imp_proc *p, const char *dir)
{
	if (p->cwd && !strcmp(p->cwd, dir))
		return;
	free(p->cwd);
	p->cwd = strdup(dir);
}

/*
 * The absolute path of argument patharg, relative to the descriptor of
 * argument dirarg (-1: the working directory) into out. 0, -ENOENT if the
 * directory is not known, -EINVAL if the arguments are not what they should.
 */
int sc_arg_path(struct imp *im, struct imp_call *c, int dirarg, int patharg, char *out)
{
	char *dir = im->fdpath;
	size_t len, dlen;
	bool cut;
	int fd, ret;

	if (patharg >= c->na)
		return -EINVAL;
	if ((ret = st_arg_str(c->a[patharg], im->sbuf, sizeof(im->sbuf), &len, &cut)) || cut)
		return ret ? ret : -EINVAL;
	dir[0] = '\0';
	if (dirarg >= 0) {
		if (dirarg >= c->na || st_arg_fd(c->a[dirarg], &fd, dir, PATH_MAX))
			return -EINVAL;
		if (fd == AT_FDCWD && dir[0] == '/')
			sc_set_cwd(c->p, dir);
	} else if (c->p->cwd) {
		snprintf(dir, PATH_MAX, "%s", c->p->cwd);
	}
	if (im->sbuf[0] == '/') {
		dir[0] = '\0';
	} else if (dir[0] != '/') {
		return -ENOENT;
	}
	dlen = strlen(dir);
	if (dlen + 1 + len + 1 > PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(out, dir, dlen);
	out[dlen] = '/';
	memcpy(out + dlen + 1, im->sbuf, len + 1);
	normalize(out);
	return 0;
}

/* ---- records ------------------------------------------------------------- */

int sc_rec_lookup(struct imp *im, struct imp_call *c, uint64_t parent, const char *name,
		  uint64_t child, int64_t res)
{
	struct fstap_rec r;

	imp_rec(im, c, FSTAP_OP_LOOKUP, &r);
	r.obj = parent;
	r.name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)strlen(name) };
	r.child = child;
	r.result = res;
	return imp_emit(im, &r);
}

void sc_set_name(struct fstap_bytes *b, const char *s)
{
	*b = (struct fstap_bytes){ (const uint8_t *)s, (uint32_t)strlen(s) };
}

/*
 * Walks rel ("a/b/c") from the root: *parent the directory of its last
 * component, leaf that component, *obj its object (0 if not known). With
 * learn, unknown directories on the way are learned with LOOKUP records;
 * without, an unknown one stops the walk: returns 1 with *parent the last
 * known directory and leaf the missing component. 0, 1 or -errno.
 */
int sc_walk(struct imp *im, struct imp_call *c, const char *rel, bool learn,
	    uint64_t *parent, char *leaf, uint64_t *obj)
{
	uint64_t dir = FSTAP_ROOT_OBJ;
	const char *s = rel;
	int ret;

	*parent = 0;
	*obj = FSTAP_ROOT_OBJ;
	leaf[0] = '\0';
	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		uint64_t child;

		memcpy(leaf, s, n);
		leaf[n] = '\0';
		child = ns_get(im, dir, leaf);
		if (!e) {
			*parent = dir;
			*obj = child;
			return 0;
		}
		if (!child) {
			if (!learn) {
				*parent = dir;
				return 1;
			}
			child = ns_new_obj(im, S_IFDIR);
			if (!child)
				return -ENOMEM;
			if ((ret = sc_rec_lookup(im, c, dir, leaf, child, 0)))
				return ret;
		}
		dir = child;
		s = e + 1;
	}
	return 0;
}

/* Learns the unknown object at parent/leaf (a successful call found it). */
int sc_learn_leaf(struct imp *im, struct imp_call *c, uint64_t parent, const char *leaf,
		  uint32_t type, uint64_t *obj)
{
	if (*obj)
		return 0;
	*obj = ns_new_obj(im, type);
	if (!*obj)
		return -ENOMEM;
	return sc_rec_lookup(im, c, parent, leaf, *obj, 0);
}

bool sc_failed(const struct imp_call *c)
{
	return c->l->has_result && c->l->result < 0;
}

int64_t sc_res_of(const struct imp_call *c)
{
	return c->l->has_result ? c->l->result : 0;
}

/* Counts the call as outside --root (or on something that is no file). */
int sc_outside(struct imp *im, struct imp_call *c)
{
	im->st->outside++;
	imp_count(im->outside, &im->noutside, c->l->name);
	return HANDLED;
}

int sc_unsupported(struct imp *im, struct imp_call *c)
{
	return sc_unsupported_as(im, c, "");
}

int sc_unsupported_as(struct imp *im, struct imp_call *c, const char *what)
{
	char name[ST_NAME_MAX + 16];

	snprintf(name, sizeof(name), "%s%s", c->l->name, what);
	im->st->unsupported++;
	imp_count(im->unsupported, &im->nunsupported, name);
	return HANDLED;
}

/*
 * The descriptor of a "/proc/self/fd/N" path (also thread-self), by which
 * programs act on an O_PATH descriptor (tar's chmod of a directory), or -1.
 */
static int proc_fd_path(const char *p)
{
	const char *n;
	char *end;
	long fd;

	if (!strncmp(p, "/proc/self/fd/", 14))
		n = p + 14;
	else if (!strncmp(p, "/proc/thread-self/fd/", 21))
		n = p + 21;
	else
		return -1;
	fd = strtol(n, &end, 10);
	return *n && !*end && fd >= 0 && fd < (1 << 20) ? (int)fd : -1;
}

/*
 * The object of a call on a path (dirarg, patharg) or, with patharg < 0 or
 * an empty path, on the descriptor of dirarg. 0: t is set (for a failed
 * call, the caller writes the operation with the error); HANDLED: the call
 * is counted or its LOOKUP error written; -errno.
 */
int sc_target_of(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		 struct target *t)
{
	int fd, ret;

	memset(t, 0, sizeof(*t));
	if (patharg >= 0 && patharg < c->na && c->a[patharg].len == 2 &&
	    !memcmp(c->a[patharg].p, "\"\"", 2))
		patharg = -1;	/* AT_EMPTY_PATH */
	if (patharg < 0) {
		if (dirarg >= c->na || st_arg_fd(c->a[dirarg], &fd, im->fdpath, PATH_MAX))
			return sc_unsupported(im, c);
		t->o = imp_fd_get(c->p, fd);
		if (!t->o) {
			if (im->fdpath[0] == '/' && sc_rel_of(im, im->fdpath)) {
				im->st->unknown_fd++;
				imp_count(im->unknown, &im->nunknown, c->l->name);
				return HANDLED;
			}
			return sc_outside(im, c);
		}
		t->obj = t->o->obj;
		t->fh = t->o->opath ? 0 : t->o->fh;
		return 0;
	}
	ret = sc_arg_path(im, c, dirarg, patharg, im->path);
	if (ret == -ENOENT)
		return sc_outside(im, c);	/* relative to a directory the log does not name */
	if (ret)
		return sc_unsupported(im, c);
	if ((fd = proc_fd_path(im->path)) >= 0) {
		t->o = imp_fd_get(c->p, fd);
		if (!t->o)
			return sc_outside(im, c);
		t->obj = t->o->obj;
		t->fh = t->o->opath ? 0 : t->o->fh;
		return 0;
	}
	if (!(t->rel = sc_rel_of(im, im->path)))
		return sc_outside(im, c);
	ret = sc_walk(im, c, t->rel, !sc_failed(c), &t->parent, t->leaf, &t->obj);
	if (ret < 0)
		return ret;
	if (sc_failed(c) && (ret == 1 || !t->obj)) {
		ret = sc_rec_lookup(im, c, t->parent, t->leaf, 0, c->l->result);
		return ret ? ret : HANDLED;
	}
	if (!sc_failed(c) && !t->obj && (ret = sc_learn_leaf(im, c, t->parent, t->leaf, 0, &t->obj)))
		return ret;
	return 0;
}

/*
 * Where a call that makes a name acts: parent/leaf of (dirarg, patharg);
 * the root itself (obj 1, no parent) only if root_ok.
 * 0, HANDLED (counted, or the LOOKUP error of a missing directory), -errno.
 */
int sc_entry_of(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		char *pathbuf, bool root_ok, struct target *t)
{
	int ret;

	memset(t, 0, sizeof(*t));
	ret = sc_arg_path(im, c, dirarg, patharg, pathbuf);
	if (ret == -ENOENT)
		return sc_outside(im, c);
	if (ret)
		return sc_unsupported(im, c);
	if (!(t->rel = sc_rel_of(im, pathbuf)) || (!t->rel[0] && !root_ok))
		return sc_outside(im, c);
	ret = sc_walk(im, c, t->rel, !sc_failed(c), &t->parent, t->leaf, &t->obj);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		ret = sc_rec_lookup(im, c, t->parent, t->leaf, 0, c->l->result);
		return ret ? ret : HANDLED;
	}
	return 0;
}

/* The open file of descriptor argument i, or NULL when the call is counted. */
struct imp_ofd *sc_fd_arg(struct imp *im, struct imp_call *c, int i)
{
	struct target t;

	return sc_target_of(im, c, i, -1, &t) ? NULL : t.o;
}

uint64_t sc_u64_arg(struct imp_call *c, int i)
{
	int64_t v = 0;

	if (i < c->na)
		st_arg_int(c->a[i], &v);
	return (uint64_t)v;
}

uint64_t sc_flags_arg(struct imp_call *c, int i)
{
	uint64_t v = 0;

	if (i < c->na)
		st_arg_flags(c->a[i], &v);
	return v;
}

/* ---- the table ----------------------------------------------------------- */

struct call_entry {
	const char *name;
	int (*fn)(struct imp *im, struct imp_call *c);
};

/* Sorted by name (bsearch). */
static const struct call_entry calls[] = {
	{ "access", c_access },
	{ "chdir", c_chdir },
	{ "chmod", c_chmod },
	{ "chown", c_chown },
	{ "close", c_close },
	{ "copy_file_range", c_copy_file_range },
	{ "creat", c_creat },
	{ "dup", c_dup },
	{ "dup2", c_dup },
	{ "dup3", c_dup },
	{ "faccessat", c_faccessat },
	{ "faccessat2", c_faccessat },
	{ "fallocate", c_fallocate },
	{ "fchdir", c_fchdir },
	{ "fchmod", c_fchmod },
	{ "fchmodat", c_fchmodat },
	{ "fchown", c_fchown },
	{ "fchownat", c_fchownat },
	{ "fcntl", c_fcntl },
	{ "fdatasync", c_fdatasync },
	{ "fgetxattr", c_fgetxattr },
	{ "flistxattr", c_flistxattr },
	{ "fremovexattr", c_fremovexattr },
	{ "fsetxattr", c_fsetxattr },
	{ "fstat", c_fstat },
	{ "fstatfs", c_fstatfs },
	{ "fsync", c_fsync },
	{ "ftruncate", c_ftruncate },
	{ "futimesat", c_futimesat },
	{ "getdents64", c_getdents },
	{ "getxattr", c_getxattr },
	{ "lchown", c_chown },
	{ "lgetxattr", c_getxattr },
	{ "link", c_link },
	{ "linkat", c_linkat },
	{ "listxattr", c_listxattr },
	{ "llistxattr", c_listxattr },
	{ "lremovexattr", c_removexattr },
	{ "lseek", c_lseek },
	{ "lsetxattr", c_setxattr },
	{ "lstat", c_stat },
	{ "mkdir", c_mkdir },
	{ "mkdirat", c_mkdirat },
	{ "mknod", c_mknod },
	{ "mknodat", c_mknodat },
	{ "newfstatat", c_newfstatat },
	{ "open", c_open },
	{ "openat", c_openat },
	{ "openat2", c_openat2 },
	{ "pread64", c_pread },
	{ "preadv", c_preadv },
	{ "preadv2", c_preadv },
	{ "pwrite64", c_pwrite },
	{ "pwritev", c_pwritev },
	{ "pwritev2", c_pwritev },
	{ "read", c_read },
	{ "readlink", c_readlink },
	{ "readlinkat", c_readlinkat },
	{ "readv", c_readv },
	{ "removexattr", c_removexattr },
	{ "rename", c_rename },
	{ "renameat", c_renameat },
	{ "renameat2", c_renameat2 },
	{ "rmdir", c_rmdir },
	{ "setxattr", c_setxattr },
	{ "stat", c_stat },
	{ "statfs", c_statfs },
	{ "statx", c_newfstatat },
	{ "symlink", c_symlink },
	{ "symlinkat", c_symlinkat },
	{ "truncate", c_truncate },
	{ "umask", c_umask },
	{ "unlink", c_unlink },
	{ "unlinkat", c_unlinkat },
	{ "utime", c_utime },
	{ "utimensat", c_utimensat },
	{ "utimes", c_utimes },
	{ "write", c_write },
	{ "writev", c_writev },
};

static int cmp_call(const void *key, const void *e)
{
	return strcmp(key, ((const struct call_entry *)e)->name);
}

int calls_import(struct imp *im, struct imp_call *c)
{
	const struct call_entry *e = bsearch(c->l->name, calls, ARRAY_SIZE(calls),
					     sizeof(calls[0]), cmp_call);
	int ret;

	if (!e)
		return sc_unsupported(im, c) < 0 ? -EINVAL : 0;
	ret = e->fn(im, c);
	return ret < 0 ? ret : 0;
}
