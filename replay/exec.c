/*
 * exec.c: the executor table and the execution of one task. One function
 * per record type, in a table indexed by the record type (libfuse's
 * fuse_ll_ops shape), each issuing the real system call(s) the recorded
 * operation stands for, beneath the target directory, and returning the
 * result as the trace records it: bytes or 0, or -errno. Types that are not
 * re-issued (forget, flush) have an explicit entry saying why;
 * check_exec.c asserts that no type is forgotten. The executors are by
 * family: exec-ns.c (names), exec-file.c (open files, ranges, ioctls),
 * exec-dir.c (listings), exec-xattr.c.
 *
 * Confinement (the trace is untrusted): every directory is opened with
 * openat2(root, relpath, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), every
 * final name is a single plain component (no '/', not "." or "..") used
 * with an *at() call that does not follow a final symlink (O_NOFOLLOW,
 * AT_SYMLINK_NOFOLLOW, l*xattr after fchdir). A path that tries to leave
 * the directory is refused and counted (RP_DIV_REFUSED), an unknown object
 * or handle is counted (RP_DIV_UNKNOWN); neither is ever fatal. A device
 * node is made with a number that reaches no device and never opened
 * unless --devices (fstap/devnode.h): its open is counted (RP_DIV_DEVICE),
 * the I/O through it not issued. Divergences are also logged, with
 * --divergences (divlog.c), readdir's with the names missing and extra.
 *
 * Not here: ordering, pacing, path resolution from the trace (run.c and
 * its stages).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "exec_i.h"

/*
 * Counts a divergence of t and logs it if the log wants one more of its
 * kind; missing and extra (readdir's names, or NULL) are taken.
 */
void rp_note_div(struct rp_exec *x, const struct rp_task *t, enum rp_div_kind kind,
		     unsigned err, int64_t res, json_t *missing, json_t *extra)
{
	struct rp_divlog *log = x->sh->divlog;

	rp_stats_div(x->st, t->rec.op, kind, err);
	if (log && rp_divlog_want(log, t->rec.op, kind, err)) {
		rp_divlog_add(log, t, kind, err, res, missing, extra);
		return;
	}
	json_decref(missing);
	json_decref(extra);
}

/* Open flags a replay passes on: the access mode and the flags that change behaviour. */
int rp_open_flags(uint64_t f)
{
	uint64_t keep = O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_NONBLOCK |
			O_DSYNC | O_SYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOATIME;

	return (int)(f & keep) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
}

mode_t rp_umasked(const struct fstap_rec *r, unsigned bits)
{
	return (mode_t)((r->mode & bits) & ~(r->umask & 07777));
}

/* ---- the table ---------------------------------------------------------- */

#define EX(op, fn) [FSTAP_OP_##op] = { fn, NULL }
#define NOT(op, why) [FSTAP_OP_##op] = { NULL, why }

const struct rp_exec_op rp_exec_ops[FSTAP_OP_NR] = {
	NOT(NONE, "not an operation"),
	EX(LOOKUP, rp_exec_lookup),
	EX(GETATTR, rp_exec_getattr),
	EX(SETATTR, rp_exec_setattr),
	EX(READLINK, rp_exec_readlink),
	EX(MKNOD, rp_exec_mknod),
	EX(MKDIR, rp_exec_mkdir),
	EX(UNLINK, rp_exec_unlink),
	EX(RMDIR, rp_exec_rmdir),
	EX(SYMLINK, rp_exec_symlink),
	EX(RENAME, rp_exec_rename),
	EX(LINK, rp_exec_link),
	EX(OPEN, rp_exec_open),
	EX(CREATE, rp_exec_create),
	EX(READ, rp_exec_read),
	EX(WRITE, rp_exec_write),
	NOT(FLUSH, "part of close(2): the close is issued at release"),
	EX(RELEASE, rp_exec_release),
	EX(FSYNC, rp_exec_fsync),
	EX(FDATASYNC, rp_exec_fdatasync),
	EX(OPENDIR, rp_exec_opendir),
	EX(READDIR, rp_exec_readdir),
	EX(RELEASEDIR, rp_exec_release),
	EX(FSYNCDIR, rp_exec_fsyncdir),
	EX(STATFS, rp_exec_statfs),
	EX(ACCESS, rp_exec_access),
	EX(SETXATTR, rp_exec_setxattr),
	EX(GETXATTR, rp_exec_getxattr),
	EX(LISTXATTR, rp_exec_listxattr),
	EX(REMOVEXATTR, rp_exec_removexattr),
	EX(FALLOCATE, rp_exec_fallocate),
	EX(COPY_FILE_RANGE, rp_exec_copy_file_range),
	EX(LSEEK, rp_exec_lseek),
	NOT(FORGET, "the kernel's cache bookkeeping, not a system call"),
	EX(IOCTL, rp_exec_ioctl),
	NOT(PROCESS, "metadata record"),
	NOT(STATE_INODE, "initial state: fstap prepare"),
	NOT(STATE_DENTRY, "initial state: fstap prepare"),
	NOT(LOSS, "metadata record"),
	NOT(FOOTER, "metadata record"),
	NOT(WATERMARK, "metadata record"),
};

/* --order=none: counts an op that runs after a later-recorded op on a resource. */
static void track_order(struct rp_exec *x, const struct rp_task *t)
{
	struct rp_shared *sh = x->sh;
	bool late = false;
	uint32_t i;

	pthread_mutex_lock(&sh->omu);
	for (i = 0; i < t->nres; i++) {
		uint64_t *v = fstap_map_get(&sh->order, t->res[i]);

		if (v && *v > t->seq)
			late = true;
		else if (v)
			*v = t->seq;
		else
			fstap_map_put(&sh->order, t->res[i], t->seq);
	}
	x->st->out_of_order += late;	/* an op once, however many of its resources */
	pthread_mutex_unlock(&sh->omu);
}

/* Runs t's executor and accounts the result (rp_exec_run, but the handles' count). */
static int64_t exec_account(struct rp_exec *x, const struct rp_task *t)
{
	unsigned op = t->rec.op, err;
	enum rp_div_kind kind;
	uint64_t t0, lat;
	int64_t res;

	if (op >= FSTAP_OP_NR || !rp_exec_ops[op].fn)
		return 0;
	if (x->sh->track_order)
		track_order(x, t);
	t0 = fstap_now_ns();
	res = rp_exec_ops[op].fn(x, t);
	lat = fstap_now_ns() - t0;
	rp_exec_drop_dirs(x);
	if (res == RP_E_DEVICE_IO) {
		x->st->device_io++;	/* through a device node's refused open: not issued */
		return res;
	}
	if (t->made)
		return res;	/* the replay's own open or close (borrowed.c) */
	rp_stats_add(x->st, op, res, lat);
	/* the recorded result again (not a pseudo-result): rp_diverges would say no */
	if (res == t->rec.result && res > RP_E_UNKNOWN)
		return res;
	if (rp_diverges(op, t->rec.result, res, &kind, &err)) {
		if (t->raced) {
			x->st->raced++;
		} else {
			rp_note_div(x, t, kind, err, res, NULL, NULL);
		}
	}
	return res;
}

int64_t rp_exec_run(struct rp_exec *x, const struct rp_task *t)
{
	int64_t res = exec_account(x, t);

	rp_handles_ran(t);	/* t no longer uses its handles */
	return res;
}
