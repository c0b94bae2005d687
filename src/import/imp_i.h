/*
 * imp_i.h: the state of an strace import, shared by its driver
 * (strace_import.c: root, writer, records), its lines (strace_lines.c:
 * times, unfinished and resumed calls, the -ff files merged), its
 * processes (strace_proc.c: descriptor tables, clone, exec, exit), its
 * summary (strace_summary.c), its namespace (strace_ns.c: objects, names,
 * the initial state) and its calls (strace_calls*.c: one function per
 * system call).
 */
#ifndef FSTAP_IMP_I_H
#define FSTAP_IMP_I_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fstap/trace.h"
#include "import/strace_i.h"
#include "import/strace_import.h"

/* One object: what the importer knows of it besides its names (the path map's). */
struct imp_obj {
	uint32_t type;		/* S_IFMT bits, 0 if not known */
	uint64_t size;		/* as far as the log tells */
	char *target;		/* symlinks: the target, if known */
};

/* An open file description (shared by dup'ed and inherited descriptors). */
struct imp_ofd {
	uint64_t obj, fh;
	uint64_t pos, flags, dir_cookie;
	bool dir, opath;
	int refs;
};

struct imp_fd {
	struct imp_ofd *o;
	bool cloexec;
};

/* A descriptor table (shared by CLONE_FILES threads). */
struct imp_fdtab {
	int refs, n;
	struct imp_fd *v;
};

struct imp_proc {
	struct imp_proc *next;
	uint32_t pid, tgid, ppid;
	struct imp_fdtab *fds;
	uint32_t umask;
	char *cwd;		/* learned from AT_FDCWD<...>, chdir; NULL if not known */
	char *pending;		/* the line of an <unfinished ...> call */
	uint64_t pending_line;
	bool pending_done;	/* imported at its start (close): drop its resumed line */
	uint32_t adopted_by;	/* the parent it was given before its clone returned, 0: none */
};

struct imp_count {
	char name[ST_NAME_MAX];
	uint64_t n;
};

#define IMP_COUNTS_MAX 512

/* One call as the handlers see it. */
struct imp_call {
	struct st_line *l;
	struct imp_proc *p;
	struct st_span a[ST_ARGS_MAX];
	int na;
};

struct imp {
	const struct strace_import_opts *opts;
	const char *in_name;	/* the log being read */
	uint32_t file_pid;	/* its pid, for the per-pid files of strace -ff */
	struct strace_import_stats *st;
	struct fstap_writer *w;
	char root[PATH_MAX];
	size_t rootlen;
	uint32_t uid, gid;

	struct imp_obj *objs;
	uint64_t nobjs;
	size_t capobjs;
	struct fstap_pathmap *pm;	/* the names, as the records written give them */
	uint64_t next_fh;

	struct imp_proc *procs;
	bool have_t0;
	int64_t t0, last_t, day;
	uint64_t end_ns;

	/* every call in one of them, by name: strace -c's counts */
	struct imp_count below[IMP_COUNTS_MAX], outside[IMP_COUNTS_MAX];
	struct imp_count unsupported[IMP_COUNTS_MAX], unknown[IMP_COUNTS_MAX];
	int nbelow, noutside, nunsupported, nunknown;

	/* scratch for the calls */
	char path[PATH_MAX], path2[PATH_MAX], fdpath[PATH_MAX];
	char sbuf[65536];
};

/* ---- strace_ns.c ---- */
int ns_init(struct imp *im);
void ns_free(struct imp *im);
/* A new object of type (S_IFMT bits or 0): its id, 0 on ENOMEM. */
uint64_t ns_new_obj(struct imp *im, uint32_t type);
/* The object named name in directory parent as the records written so far tell, 0 if none. */
uint64_t ns_get(const struct imp *im, uint64_t parent, const char *name);
/* The directory holding directory dir's name, 0 for the root or if not known. */
uint64_t ns_parent(const struct imp *im, uint64_t dir);
/* Writes rec to the trace and learns its names. 0 or -errno. */
int ns_emit(struct imp *im, const struct fstap_rec *rec);
/* Describes dir as the initial state: STATE_INODE/DENTRY records, and learns it. */
int ns_state(struct imp *im, const char *dir);

/* ---- strace_import.c ---- */
/* Sets *errmsg (if NULL so far) to the message: -EINVAL. */
int imp_fail(char **errmsg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A record with the call's common header (times, thread, credentials, result). */
void imp_rec(struct imp *im, const struct imp_call *c, unsigned op, struct fstap_rec *r);
int imp_emit(struct imp *im, const struct fstap_rec *r);

/* ---- strace_lines.c ---- */
/* Imports the lines of the logs (the per-pid files of -ff merged by time). */
int imp_read_logs(struct imp *im, const struct strace_log *logs, size_t n, char **errmsg);

/* ---- strace_proc.c ---- */
/* The process of pid, made on first sight; NULL on ENOMEM. */
struct imp_proc *imp_proc_get(struct imp *im, uint32_t pid);
/* The process of a line's pid, given its parent if its clone is unfinished. */
struct imp_proc *imp_proc_of_line(struct imp *im, uint32_t pid);
/* clone, clone3, fork, vfork: what the child inherits. */
int imp_proc_fork(struct imp *im, struct imp_call *c);
/* execve, execveat: the PROCESS record and the close-on-exec descriptors closed. */
int imp_proc_exec(struct imp *im, struct imp_call *c);
/* An exit: p's reference to its table dropped (the last one closes it). */
int imp_proc_exit(struct imp *im, const struct imp_call *c, struct imp_proc *p);
/* Frees every process (those with a call pending counted as unmatched). */
void imp_procs_free(struct imp *im);
struct imp_ofd *imp_fd_get(struct imp_proc *p, int fd);
int imp_fd_set(struct imp *im, struct imp_proc *p, int fd, struct imp_ofd *o, bool cloexec);
/* Closes fd: FLUSH and, at the last reference, RELEASE (RELEASEDIR). */
int imp_fd_close(struct imp *im, const struct imp_call *c, struct imp_proc *p, int fd);

/* ---- strace_summary.c ---- */
/* Counts one call of name in v (of *n names, at most IMP_COUNTS_MAX). */
void imp_count(struct imp_count *v, int *n, const char *name);
void imp_print_summary(struct imp *im, FILE *f);

/* ---- strace_calls.c ---- */
/*
 * Imports one whole call: 0 (counted as imported, outside, unsupported or
 * with an unknown descriptor), or -errno (the writer failed).
 */
int calls_import(struct imp *im, struct imp_call *c);

#endif
