/*
 * strace_calls_i.h: what the system call handlers of an strace import share
 * (strace_calls.c: paths, targets, LOOKUP records, counting, and the table
 * of calls) and the handlers of each family of calls: strace_calls_io.c
 * (open, close, dup, read, write, sync, fallocate, copy_file_range, lseek),
 * strace_calls_dir.c (getdents64, mkdir, unlink, rmdir, rename, link,
 * symlink, readlink) and strace_calls_attr.c (stat, access, statfs,
 * chmod, chown, truncate, utimensat, xattrs, umask, chdir).
 */
#ifndef FSTAP_STRACE_CALLS_I_H
#define FSTAP_STRACE_CALLS_I_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "import/imp_i.h"

#define HANDLED 1	/* the call is counted or its records are written */

/* Where a call on an existing object acts. */
struct target {
	uint64_t parent, obj, fh;
	struct imp_ofd *o;	/* when made through a descriptor */
	char leaf[NAME_MAX + 1];
	const char *rel;
};

/* The path relative to --root ("" for the root), or NULL if outside it. */
const char *sc_rel_of(struct imp *im, const char *abs);
void sc_set_cwd(struct imp_proc *p, const char *dir);
/* The absolute path of (dirarg, patharg) into out: 0, -ENOENT, -EINVAL. */
int sc_arg_path(struct imp *im, struct imp_call *c, int dirarg, int patharg, char *out);
int sc_rec_lookup(struct imp *im, struct imp_call *c, uint64_t parent, const char *name,
		  uint64_t child, int64_t res);
void sc_set_name(struct fstap_bytes *b, const char *s);
/* Walks rel from the root to its last component: 0, 1 (stopped), -errno. */
int sc_walk(struct imp *im, struct imp_call *c, const char *rel, bool learn,
	    uint64_t *parent, char *leaf, uint64_t *obj);
int sc_learn_leaf(struct imp *im, struct imp_call *c, uint64_t parent, const char *leaf,
		  uint32_t type, uint64_t *obj);
bool sc_failed(const struct imp_call *c);
int64_t sc_res_of(const struct imp_call *c);
/* Count the call as outside --root, or as having no fstap operation: HANDLED. */
int sc_outside(struct imp *im, struct imp_call *c);
int sc_unsupported(struct imp *im, struct imp_call *c);
/* The same, counted under the call's name followed by what ("(O_TMPFILE)"). */
int sc_unsupported_as(struct imp *im, struct imp_call *c, const char *what);
/* The object a call on an existing object acts on: 0, HANDLED, -errno. */
int sc_target_of(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		 struct target *t);
/* Where a call that makes a name acts: 0, HANDLED, -errno. */
int sc_entry_of(struct imp *im, struct imp_call *c, int dirarg, int patharg,
		char *pathbuf, bool root_ok, struct target *t);
struct imp_ofd *sc_fd_arg(struct imp *im, struct imp_call *c, int i);
uint64_t sc_u64_arg(struct imp_call *c, int i);
uint64_t sc_flags_arg(struct imp_call *c, int i);

/* The handlers (one per call, or per family of forms): 0, HANDLED, -errno. */
int c_access(struct imp *im, struct imp_call *c);
int c_chdir(struct imp *im, struct imp_call *c);
int c_chmod(struct imp *im, struct imp_call *c);
int c_chown(struct imp *im, struct imp_call *c);
int c_close(struct imp *im, struct imp_call *c);
int c_copy_file_range(struct imp *im, struct imp_call *c);
int c_creat(struct imp *im, struct imp_call *c);
int c_dup(struct imp *im, struct imp_call *c);
int c_faccessat(struct imp *im, struct imp_call *c);
int c_fallocate(struct imp *im, struct imp_call *c);
int c_fchdir(struct imp *im, struct imp_call *c);
int c_fchmod(struct imp *im, struct imp_call *c);
int c_fchmodat(struct imp *im, struct imp_call *c);
int c_fchown(struct imp *im, struct imp_call *c);
int c_fchownat(struct imp *im, struct imp_call *c);
int c_fcntl(struct imp *im, struct imp_call *c);
int c_fdatasync(struct imp *im, struct imp_call *c);
int c_fgetxattr(struct imp *im, struct imp_call *c);
int c_flistxattr(struct imp *im, struct imp_call *c);
int c_fremovexattr(struct imp *im, struct imp_call *c);
int c_fsetxattr(struct imp *im, struct imp_call *c);
int c_fstat(struct imp *im, struct imp_call *c);
int c_fstatfs(struct imp *im, struct imp_call *c);
int c_fsync(struct imp *im, struct imp_call *c);
int c_ftruncate(struct imp *im, struct imp_call *c);
int c_futimesat(struct imp *im, struct imp_call *c);
int c_getdents(struct imp *im, struct imp_call *c);
int c_getxattr(struct imp *im, struct imp_call *c);
int c_link(struct imp *im, struct imp_call *c);
int c_linkat(struct imp *im, struct imp_call *c);
int c_listxattr(struct imp *im, struct imp_call *c);
int c_lseek(struct imp *im, struct imp_call *c);
int c_mkdir(struct imp *im, struct imp_call *c);
int c_mkdirat(struct imp *im, struct imp_call *c);
int c_mknod(struct imp *im, struct imp_call *c);
int c_mknodat(struct imp *im, struct imp_call *c);
int c_newfstatat(struct imp *im, struct imp_call *c);
int c_open(struct imp *im, struct imp_call *c);
int c_openat(struct imp *im, struct imp_call *c);
int c_openat2(struct imp *im, struct imp_call *c);
int c_pread(struct imp *im, struct imp_call *c);
int c_preadv(struct imp *im, struct imp_call *c);
int c_pwrite(struct imp *im, struct imp_call *c);
int c_pwritev(struct imp *im, struct imp_call *c);
int c_read(struct imp *im, struct imp_call *c);
int c_readlink(struct imp *im, struct imp_call *c);
int c_readlinkat(struct imp *im, struct imp_call *c);
int c_readv(struct imp *im, struct imp_call *c);
int c_removexattr(struct imp *im, struct imp_call *c);
int c_rename(struct imp *im, struct imp_call *c);
int c_renameat(struct imp *im, struct imp_call *c);
int c_renameat2(struct imp *im, struct imp_call *c);
int c_rmdir(struct imp *im, struct imp_call *c);
int c_setxattr(struct imp *im, struct imp_call *c);
int c_stat(struct imp *im, struct imp_call *c);
int c_statfs(struct imp *im, struct imp_call *c);
int c_symlink(struct imp *im, struct imp_call *c);
int c_symlinkat(struct imp *im, struct imp_call *c);
int c_truncate(struct imp *im, struct imp_call *c);
int c_umask(struct imp *im, struct imp_call *c);
int c_unlink(struct imp *im, struct imp_call *c);
int c_unlinkat(struct imp *im, struct imp_call *c);
int c_utime(struct imp *im, struct imp_call *c);
int c_utimensat(struct imp *im, struct imp_call *c);
int c_utimes(struct imp *im, struct imp_call *c);
int c_write(struct imp *im, struct imp_call *c);
int c_writev(struct imp *im, struct imp_call *c);

#endif
