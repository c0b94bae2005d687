/*
 * exec_i.h: what the executors share (exec.c and the files it names): the
 * run's shared state (shared.c), the handles the tasks name (handles.c),
 * the directory cache (dircache.c), the per-worker context (context.c),
 * names and paths (paths.c), and the executors themselves, for the table.
 */
#ifndef FSTAP_REPLAY_EXEC_I_H
#define FSTAP_REPLAY_EXEC_I_H

#include <linux/limits.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "replay_i.h"

#define DIRCACHE_MAX 256		/* descriptors the shared table keeps */
#define DIRCACHE_BUCKETS 512
#define EXEC_HELD 4		/* directories one executor holds (rename: 2) */
#define NAME_BUF 1024
#define PATH_BUF 8192
#define DENTS_BUF 32768
#define RND_SIZE (1u << 20)

/* ---- handles.c: the handle objects ----------------------------------------- */

/* A directory handle's listing state (exec-dir.c), protected by mu. */
struct rp_listing {
	pthread_mutex_t mu;
	bool listed, consumed;
	uint64_t *names;	/* sorted hashes of the live listing ("." ".." left out) */
	size_t nnames;
	uint64_t rec_total;	/* recorded entries since the listing */
	uint8_t *seen;		/* seen[i]: names[i] was among the recorded entries */
	size_t unseen;		/* live names no recorded entry named yet */
	/* with a divergence log: the live names, in the order of names[] */
	uint32_t *name_off;	/* offset of names[i]'s name in name_buf */
	char *name_buf;		/* the names, each NUL-terminated */
	size_t name_len, name_cap;
};

/*
 * One recorded open's handle (see handles.c): made by the dispatcher, which
 * names it in the tasks that use the recorded fh; the executors open, use
 * and close it through those tasks, with no table and no lock.
 */
struct rp_handle {
	struct rp_handle *next;		/* the dispatcher's: retired, or spare */
	/* tasks bound to it not yet run: the dispatcher counts them up, the
	 * executors down; the dispatcher reuses it at 0 once retired */
	atomic_uint tasks;
	/* 0: not open (not yet, or closed); else the open's own reference and
	 * one per executor using it; the last one closes */
	atomic_int refs;
	atomic_bool released;	/* its release ran (or a later open of its fh) */
	bool dir;
	int fd;			/* set before refs; -1: a device node's open, refused */
	struct rp_listing *ls;	/* a directory's (its open allocates it), or NULL */
};

/* A cached directory descriptor (see the top of the file). */
struct rp_dir {
	struct rp_dir *hnext;		/* bucket chain, while in the table */
	struct rp_dir *lprev, *lnext;	/* LRU list (head: most recent), in the table */
	uint64_t hash, serial;
	/* it names the same directory in the generations since..gen (gen is
	 * the table's, or older for one opened by a task of an older
	 * generation): a task of a generation in between uses it */
	uint32_t since, gen;
	bool cached;			/* in the table (which holds one reference) */
	int refs;			/* protected by rp_shared.dmu */
	int fd;
	char path[];
};

/*
 * What entering generation gen changes: the paths at and below path name
 * other directories, or may (an rmdir, a directory renamed or replaced);
 * "" is everything (the path was not known).
 */
struct rp_nschange {
	struct rp_nschange *next;
	uint32_t gen;
	char path[];
};

struct rp_shared {
	int root_fd;
	pthread_mutex_t dmu;		/* the directory cache: */
	struct rp_dir *dbucket[DIRCACHE_BUCKETS];
	struct rp_dir *lru_head, *lru_tail;
	size_t ndirs;
	uint32_t dgen;			/* generation of the entries in the table */
	struct rp_nschange *nsq, *nsq_tail;	/* namespace changes not yet applied */
	uint64_t dserial;
	uint64_t dir_opens;		/* openat2 calls issued (tests, docs) */
	pthread_mutex_t omu;
	bool track_order;	/* --order=none: count same-resource reorderings */
	bool devices;		/* --devices: mknod of character and block devices */
	struct rp_divlog *divlog;	/* --divergences, or NULL (borrowed) */
	struct fstap_map order;	/* resource -> highest seq executed; protected by omu */
	struct rp_foreign *foreign;	/* the root's entries before the replay, by hash */
	size_t nforeign;
	/* write data, RND_SIZE bytes: pseudo-random, page aligned, filled before
	 * the run's clock starts and only read after (rp_write_data) */
	uint8_t *rnd;
};

/*
 * An entry the target's root held when the replay started (a fresh ext4's
 * lost+found). The end of a listing of the root does not count it, unless
 * the trace knew its name by then (rp_shared_note_root_name): what the
 * target came with and the trace never touched is not a divergence. Only
 * the root: prepare fills an empty directory (but for lost+found), so no
 * other directory holds entries the trace does not describe.
 */
struct rp_foreign {
	uint64_t hash;
	atomic_bool known;	/* set by the dispatcher, read by the workers */
};

struct rp_exec {
	struct rp_shared *sh;
	struct rp_stats *st;
	struct rp_dir *held[EXEC_HELD];	/* directories the running executor uses */
	unsigned nheld;
	bool own_fs;		/* unshare(CLONE_FS) worked: cwd is ours */
	uint64_t cwd;		/* serial of the directory we fchdir'ed to (1: root), 0 none */
	uint8_t *buf;		/* reads, getdents, xattr values; page aligned */
	size_t bufcap;
	uint8_t *rnd;		/* write data beyond RND_SIZE, or NULL (rp_write_data) */
	size_t rndcap;
	char name[NAME_BUF], name2[NAME_BUF];
	char pbuf[PATH_BUF];
	char link[PATH_MAX + 1];
};

#define SYSRET(expr) ((expr) < 0 ? -(int64_t)errno : 0)
#define SYSVAL(expr) ({ __typeof__(expr) v_ = (expr); v_ < 0 ? -(int64_t)errno : (int64_t)v_; })

/* ---- handles.c: the executors' side ------------------------------------- */

/* t's open ran: fd (taken; -1: a device node's, refused) is its handle's. 0 or -ENOMEM. */
int rp_handle_opened(const struct rp_task *t, int fd, bool dir);
/* Takes a reference to h if it is open and not released; NULL otherwise (or no h). */
struct rp_handle *rp_handle_use(struct rp_handle *h);
/* Drops a reference; the last one closes the descriptor. */
void rp_handle_put(struct rp_handle *h);
/* h's release: whether it was open (the descriptor closes with its last user). */
bool rp_handle_release(struct rp_handle *h);
/*
 * h (t->h or t->h2) for an executor that issues I/O on it (reference
 * taken), or NULL with *res the executor's result: RP_E_UNKNOWN for a
 * handle not open, RP_E_DEVICE_IO for the open of a device node the replay
 * refused (what is done through it is not issued either).
 */
struct rp_handle *rp_io_handle(struct rp_handle *h, int64_t *res);
/* t has run: its handles are named by one task less. */
void rp_handles_ran(const struct rp_task *t);

/* ---- dircache.c ----------------------------------------------------------- */

void rp_dir_unref(struct rp_dir *d);
void rp_dircache_clear(struct rp_shared *sh);
/*
 * A descriptor of directory dpath (a valid path: fstap_path_valid) beneath
 * the root, or < 0; the executor holds a reference on it until it returns
 * (rp_exec_drop_dirs).
 */
int rp_dir_hold(struct rp_exec *x, const struct rp_task *t, const char *dpath);
/* Drops the references the executor took on directories. */
void rp_exec_drop_dirs(struct rp_exec *x);

/* ---- context.c ------------------------------------------------------------ */

int rp_grow_buf(uint8_t **buf, size_t *cap, size_t need, bool random);
/* Pseudo-random bytes to write, size of them, in *data; 0 or -errno. */
int rp_write_data(struct rp_exec *x, size_t size, const uint8_t **data);

/* ---- paths.c -------------------------------------------------------------- */

/* name as a C string in buf (NAME_BUF), or RP_E_REFUSED. */
int rp_name_cstr(struct fstap_bytes b, char *buf);
int rp_entry_at(struct rp_exec *x, const struct rp_task *t, const char *dpath,
		struct fstap_bytes name, char *nbuf, int *dfd);
int rp_obj_at(struct rp_exec *x, const struct rp_task *t, const char *path, char *nbuf,
	      int *dfd);
int rp_enter_dir(struct rp_exec *x, int dfd);

/* ---- exec.c --------------------------------------------------------------- */

void rp_note_div(struct rp_exec *x, const struct rp_task *t, enum rp_div_kind kind,
		 unsigned err, int64_t res, json_t *missing, json_t *extra);
int rp_open_flags(uint64_t f);
mode_t rp_umasked(const struct fstap_rec *r, unsigned bits);

/* ---- exec-dir.c ----------------------------------------------------------- */

/* Lists the root as the replay finds it: sh->foreign. */
int rp_foreign_snapshot(struct rp_shared *sh);

/* ---- the executors (exec-ns.c, exec-file.c, exec-dir.c, exec-xattr.c) ----- */

#define RP_EXECUTOR(op) int64_t rp_exec_##op(struct rp_exec *x, const struct rp_task *t)
RP_EXECUTOR(lookup);
RP_EXECUTOR(getattr);
RP_EXECUTOR(setattr);
RP_EXECUTOR(readlink);
RP_EXECUTOR(mknod);
RP_EXECUTOR(mkdir);
RP_EXECUTOR(unlink);
RP_EXECUTOR(rmdir);
RP_EXECUTOR(symlink);
RP_EXECUTOR(rename);
RP_EXECUTOR(link);
RP_EXECUTOR(statfs);
RP_EXECUTOR(access);
RP_EXECUTOR(open);
RP_EXECUTOR(create);
RP_EXECUTOR(opendir);
RP_EXECUTOR(read);
RP_EXECUTOR(write);
RP_EXECUTOR(release);
RP_EXECUTOR(fsync);
RP_EXECUTOR(fdatasync);
RP_EXECUTOR(fsyncdir);
RP_EXECUTOR(fallocate);
RP_EXECUTOR(copy_file_range);
RP_EXECUTOR(lseek);
RP_EXECUTOR(ioctl);
RP_EXECUTOR(readdir);
RP_EXECUTOR(setxattr);
RP_EXECUTOR(getxattr);
RP_EXECUTOR(listxattr);
RP_EXECUTOR(removexattr);

#endif
