/*
 * replay_i.h: the replay engine's internal interfaces, shared by its
 * modules and their unit tests:
 *
 *  - stats.c: latency histograms, per-op counters, divergences.
 *  - divlog.c: the divergence log (--divergences).
 *  - timing.c: pacing arithmetic over an injectable clock.
 *  - races.c: races in the recording (over fstap/util.h's uint64 map).
 *  - task.c: the tasks handed to workers, and the arena they live in.
 *  - handles.c: the handles the dispatcher names in the tasks.
 *  - exec.c (exec_i.h): the executor table, the executors, the
 *    per-worker execution context and the state the workers share.
 *  - classify.c: what each request stands for (absorbed, split writes).
 *  - run.c (run_i.h): one run: reading and reordering (fstap/sort.h's
 *    window), staging (stage.c), dispatch, dependencies, workers;
 *    options.c its options.
 *
 * Nothing here is a contract with other parts of fstap (replay.h is).
 */
#ifndef FSTAP_REPLAY_I_H
#define FSTAP_REPLAY_I_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "fstap/pathmap.h"
#include "fstap/ops.h"
#include "fstap/sort.h"
#include "fstap/trace.h"
#include "fstap/util.h"
#include "replay.h"

/* ---- stats.c: latency histograms ---------------------------------------- */

/*
 * Log-linear histogram of nanosecond values, as fio's (stat.h):
 *
 * Values below 2^RP_HIST_BITS (64) have a bucket each. Above, every power
 * of two [2^k, 2^(k+1)) is cut into 64 equal buckets of width 2^(k-6), so
 * a bucket's width is at most 1/64 of the values it holds; reporting the
 * bucket's midpoint is off by at most half a width, i.e. by less than
 * 1/128 (0.8%) of the true value. Index of v >= 64, with m = msb(v) and
 * s = m - 6: (s + 1) * 64 + (v >> s) - 64, continuous with the exact
 * buckets below (for m = 6, s = 0, the index is v). Values of 2^40 ns
 * (18 minutes) and more share the last bucket; min and max are kept
 * exactly besides. 35 groups of 64 buckets: 2240 counters, 17.5 KiB.
 *
 * Adding is O(1) (a count-leading-zeros and a shift); two histograms
 * merge by adding their counters; a percentile is a cumulative scan.
 * Mean and variance come from the exact integer sums of the values and of
 * their squares (128 bits: 2^40 values of 2^40 ns would still fit), taken
 * at report time: adding a value costs no division (Welford's method did
 * one per value, on every replayed operation), and merging is adding.
 */
#define RP_HIST_BITS 6
#define RP_HIST_SUB (1u << RP_HIST_BITS)
#define RP_HIST_MAXBIT 40
#define RP_HIST_NR ((RP_HIST_MAXBIT - RP_HIST_BITS + 1) * RP_HIST_SUB)

struct rp_hist {
	uint64_t n, min, max;
	unsigned __int128 sum, sum_sq;	/* of the values, of their squares */
	uint64_t bucket[RP_HIST_NR];
};

unsigned rp_hist_index(uint64_t v);
/* The midpoint of bucket idx (exact below 64). */
uint64_t rp_hist_value(unsigned idx);
void rp_hist_add(struct rp_hist *h, uint64_t v);
void rp_hist_merge(struct rp_hist *dst, const struct rp_hist *src);
/* The p-th percentile (0 < p <= 100), clamped to [min, max]; 0 if empty. */
uint64_t rp_hist_percentile(const struct rp_hist *h, double p);
/* The mean and the sample standard deviation of the values; 0 if too few. */
double rp_hist_mean(const struct rp_hist *h);
double rp_hist_stddev(const struct rp_hist *h);

/* ---- stats.c: per-op counters and divergences ---------------------------- */

/* Why a replayed result differs from the recorded one. */
enum rp_div_kind {
	RP_DIV_ERRNO,		/* replay failed with err (recorded: success or another errno) */
	RP_DIV_SUCCEEDED,	/* replay succeeded; recorded failed with err */
	RP_DIV_SHORT,		/* fewer bytes read, written or copied than recorded */
	RP_DIV_VALUE,		/* another value (more bytes, lseek offset, xattr size, link text) */
	RP_DIV_ENTRIES,		/* a readdir entry set differs */
	RP_DIV_UNKNOWN,		/* an object or handle the replay cannot resolve */
	RP_DIV_REFUSED,		/* a hostile name or path, refused (confinement) */
	RP_DIV_DEVICE,		/* an open of a device node, refused (no --devices) */
	RP_DIV_NR
};
const char *rp_div_kind_name(enum rp_div_kind k);

/* Executor pseudo-results (below any -errno; RP_E_UNKNOWN the largest: exec.c). */
#define RP_E_UNKNOWN (-100001)
#define RP_E_REFUSED (-100002)
#define RP_E_DEVICE (-100003)		/* the open of a device node, refused */
#define RP_E_DEVICE_IO (-100004)	/* I/O through such an open: not issued */

struct rp_div {
	uint16_t op, kind, err;
	uint64_t count;
};

struct rp_opstat {
	uint64_t count, errors, bytes;
	struct rp_hist *lat;	/* allocated on first use */
};

/* Statistics of one worker (thread-local), merged after the run. */
struct rp_stats {
	struct rp_opstat op[FSTAP_OP_NR];
	struct rp_hist *lag;	/* paced modes: issue time minus ideal time */
	struct rp_div *div;
	size_t ndiv, cap_div;
	uint64_t divergences;
	/* differing results of operations that raced in the recording (not divergences) */
	uint64_t raced;
	uint64_t out_of_order;	/* --order=none: same-resource pairs reordered */
	uint64_t devnodes;	/* device nodes made with a placeholder number (fstap/devnode.h) */
	uint64_t device_io;	/* operations through a refused open of one, not issued */
};

void rp_stats_init(struct rp_stats *s);
void rp_stats_release(struct rp_stats *s);
/* 0 or -ENOMEM (the sample is then lost, not the run). */
int rp_stats_add(struct rp_stats *s, unsigned op, int64_t result, uint64_t lat_ns);
int rp_stats_add_lag(struct rp_stats *s, uint64_t lag_ns);
int rp_stats_div(struct rp_stats *s, unsigned op, enum rp_div_kind kind, unsigned err);
int rp_stats_merge(struct rp_stats *dst, const struct rp_stats *src);

/*
 * Compares a replayed result with the recorded one. Returns true and sets
 * *kind and *err when they diverge. Readdir entry sets are compared by the
 * executor itself (RP_DIV_ENTRIES).
 */
bool rp_diverges(unsigned op, int64_t recorded, int64_t got, enum rp_div_kind *kind,
		 unsigned *err);

/* ---- timing.c ----------------------------------------------------------- */

struct rp_clock {
	uint64_t (*now)(void *arg);			/* monotonic ns */
	void (*sleep_until)(void *arg, uint64_t t);	/* may overshoot */
	void *arg;
};

/* The real clock: CLOCK_MONOTONIC, clock_nanosleep(TIMER_ABSTIME). */
extern const struct rp_clock rp_clock_real;

struct rp_pace {
	unsigned pct;		/* 0: as fast as possible; 100: original gaps */
	int64_t debt_ns;	/* lateness carried forward (thread-local) */
};

void rp_pace_init(struct rp_pace *p, unsigned pct);
/* The recorded gap scaled by the pace (saturating). */
uint64_t rp_pace_scale(const struct rp_pace *p, uint64_t gap_ns);
/*
 * Waits until the op is due: gap_ns (recorded think time) after prev_done
 * (when the worker's previous op completed, or the run started), minus
 * the lateness carried from earlier ops. Returns the schedule lag: how
 * much later than prev_done + scaled gap the op is issued (0 if not late).
 * *issued gets the issue time.
 */
uint64_t rp_pace_wait(struct rp_pace *p, const struct rp_clock *c, uint64_t prev_done,
		      uint64_t gap_ns, uint64_t *issued);
/*
 * Where the recorded gap before an op at start of a thread whose previous
 * op ended at own_end counts from: from (own_end, or a later point found
 * so far), or the end of another thread's latest op, last_end, if that
 * thread's first op started after own_end (it was started in the gap) and
 * it was idle at start (last_end <= start): the thread waited for it (a
 * fork and join), it did not think.
 */
uint64_t rp_pace_joined(uint64_t from, uint64_t own_end, uint64_t start, uint64_t born,
			uint64_t last_end);

/*
 * --pace=native: the recorder's share of the recorded gaps (timing.c), and
 * what is left of them: the application's think time.
 */
struct rp_native_trans {
	uint64_t sum_ns;	/* the gaps of a transition seen so far (up to RP_NATIVE_MAX_SEEN_NS) */
	uint64_t min_ns;	/* the shortest of them */
	uint32_t n;
};

struct rp_native {
	uint64_t meta_ns;	/* calibration: a request without data (GETATTR) */
	uint64_t data_ns;	/* calibration: a READ or WRITE */
	bool writeback;		/* writeback cache: a WRITE was not the thread's wait */
	/* the round trips seen in the trace so far, meta and data */
	uint64_t seen_ns[2], seen_n[2];
	/* per transition, [previous op * FSTAP_OP_NR + op] */
	struct rp_native_trans *trans;
};

/* A recorded thread's gaps so far (zeroed to start). */
struct rp_native_thread {
	bool started;		/* it had a request: ... */
	uint64_t last_end;	/* ... its previous request's end ... */
	unsigned last_op;	/* ... and type */
	uint64_t think_ns;	/* its think time since its latest issued operation */
	uint64_t owed_ns;	/* the recorder's share its next gaps still hold */
};

/* Means seen in the trace stand for the calibration from this many on. */
#define RP_NATIVE_MIN_SEEN 16
/* A gap above this is not counted in a mean: it holds something else. */
#define RP_NATIVE_MAX_SEEN_NS 1000000ull
/* A transition's floor is at most this many round trips. */
#define RP_NATIVE_FLOOR_CAP 4

/*
 * From a trace's metadata: 0, -ENOENT if it has no calibration (n is then
 * usable for rp_native_rtt only), -ENOMEM. rp_native_free frees it.
 */
int rp_native_init(const struct fstap_meta *m, struct rp_native *n);
void rp_native_free(struct rp_native *n);
/*
 * The round trip of a request of type op: the mean of those of its kind
 * (meta, or data for reads and writes) seen in the trace (of the other
 * kind's if its own are too few), the calibration's until
 * RP_NATIVE_MIN_SEEN are seen; 0 for a write with the writeback cache.
 */
uint64_t rp_native_rtt(const struct rp_native *n, unsigned op);
/*
 * Record c of thread th, in start order (marked: a write the kernel's
 * getxattr of security.capability came before): adds to th's think time
 * what of the gap before c was not the recorder's.
 */
void rp_native_step(struct rp_native *n, struct rp_native_thread *th, const struct fstap_rec *c,
		    bool marked);
/*
 * The gap the application had before th's issued operation whose recorded
 * gap is gap_ns: th's think time since its previous one, at most gap_ns
 * (a gap that counts from a joined thread's end is shorter). Starts th's
 * next think time.
 */
uint64_t rp_native_gap(struct rp_native_thread *th, uint64_t gap_ns);

/* ---- races.c: races in the recording ------------------------------------ */

/*
 * Races in the recording: an operation that overlapped in time with one of
 * another thread on the same object, one of the two changing it (a
 * setxattr and a getxattr, a write and a read, a create and a readdir of
 * the directory), could have seen either outcome; so may its replay. The
 * table holds, per object, the latest recorded ends of its issued
 * operations and its operations in the stage (owned; init with
 * rp_races_init, free with rp_races_release).
 *
 * rp_race_stage: t enters the stage (operations come in start order). A
 * change marks raced the staged operations of other threads it started
 * within; the stage keeps each task until every operation that started
 * before its end has been staged (stage.c), so that a change that
 * starts within an operation is seen before the operation is dispatched.
 * 0 or -ENOMEM.
 *
 * rp_race_unstage: t leaves the stage. rp_race_check: t, dispatched, is
 * issued: it is marked raced when it started within another thread's
 * change (or, a change, within another thread's operation), and its end is
 * kept (issued operations only, in start order). rp_races_forget: an
 * object the path map forgets (dead for its grace period) loses its state,
 * so that the table holds the live objects only.
 */
struct rp_race_obj;
struct rp_task;
struct rp_races {
	struct fstap_map objs;		/* obj -> struct rp_race_obj * */
	uint64_t last_obj;		/* the object of the latest lookup, and its state */
	struct rp_race_obj *last;
	struct rp_race_obj *dead;	/* forgotten, freed at the next check */
};
void rp_races_init(struct rp_races *races);
int rp_race_stage(struct rp_races *races, struct rp_task *t);
void rp_race_unstage(struct rp_task *t);
void rp_race_check(struct rp_races *races, struct rp_task *t);
/* obj is dead: its state goes (rp_races_forget). */
void rp_races_forget(struct rp_races *races, uint64_t obj);
void rp_races_release(struct rp_races *races);

/* ---- tasks: one operation on its way to a worker ------------------------- */

struct rp_worker;
struct tstate;

struct rp_dep {
	struct rp_worker *w;	/* must have completed ... */
	uint64_t wseq;		/* ... its ops up to this per-worker number */
};

#define RP_TASK_MAX_RES 4
#define RP_PATH_VALID 1
#define RP_PATH2_VALID 2

/*
 * A deep copy of one operation record, with what the dispatcher resolved.
 * One allocation holds the task, its names, its target and its readdir
 * entries; the paths are a second one. Owned by whoever holds the task.
 */
struct rp_task {
	struct rp_task *next;		/* queue link */
	struct rp_task *dnext;		/* the dispatcher's list of what a worker holds */
	struct rp_task *tprev, *tnext;	/* its thread's records in the stage, by time */
	struct tstate *ts;		/* its thread (run_i.h), once staged */
	/* in the reorder window: key rec.start_ns (here, a list walk reads one
	 * line), seq its position in the trace file (ties) */
	struct fstap_witem win;
	/*
	 * What a plan's job carries of the task besides its arrays and record:
	 * one block, that plan.c copies whole (RP_TASK_CARRIED_*), as a worker
	 * decodes a job for every operation.
	 */
	struct {
		uint64_t seq;		/* global dispatch order */
		uint64_t wseq;		/* its number in its worker's order */
		uint64_t gap_ns;	/* recorded think time before it */
		uint64_t recno;		/* its position in the trace file (every record counted) */
		const char *comm;	/* its process's name (the divergence log only), or NULL */
		uint32_t ns_gen;	/* namespace generation (directory cache) */
		/* with RP_PATH_VALID: path's length, and where its last component
		 * starts (rp_path_name_at), that an executor splits it without a scan */
		uint16_t path_len, path_name;
		/* RP_PATH_VALID, RP_PATH2_VALID: the dispatcher found path (path2)
		 * valid (fstap_path_valid), so that its executor need not look again */
		uint8_t valid_paths;
		bool eof_read;	/* a getattr that stands for a read at end of file */
		bool raced;	/* overlapped a conflicting op of another thread when recorded */
		bool device;	/* an open of a character or block device node */
		bool made;	/* the replay's own (borrowed.c): not counted */
		bool joined;	/* paced: gap_ns counts from its dependencies' end */
	};
	bool absorbed;			/* a lookup or getattr the next op reproduces */
	bool after_create;		/* a getattr of the file its thread's previous record created */
	bool after_opendir;		/* a getattr of the directory opendir() just opened (its fstat) */
	bool marker;			/* the kernel's GETXATTR of security.capability (write marker) */
	bool marked;			/* a write right after its marker: a write() starts here */
	bool merged;			/* a write the first part of its split issued (final) */
	struct rp_race_obj *race_obj;	/* its object's race state (races.c) */
	struct rp_task *race_prev, *race_next;	/* its object's staged operations */
	uint32_t ndeps, capdeps;
	struct rp_dep *deps;		/* dep_inline, or owned when more are needed */
	struct rp_dep dep_inline[RP_TASK_MAX_RES];
	uint32_t nres;
	uint64_t res[RP_TASK_MAX_RES];	/* resources, for --order=resource|none */
	uint8_t res_changes;		/* bit i: it changes res[i] (else it only reads it) */
	char *paths;			/* owned (the arena): path, then path2 */
	const char *path;		/* directory (entry ops) or object; NULL: unknown */
	const char *path2;		/* rename/link destination directory */
	/* the handles it names (rp_handles_bind): of rec.fh, of rec.fh2
	 * (copy_file_range), and an open's of the same fh before it, which it
	 * replaces (its release was not recorded); NULL: none */
	struct rp_handle *h, *h2, *h_stale;
	struct fstap_rec rec;		/* pointers into this allocation */
};

/* The block of a task a job carries (see struct rp_task): where, how long. */
#define RP_TASK_CARRIED_OFF offsetof(struct rp_task, seq)
#define RP_TASK_CARRIED_SIZE (offsetof(struct rp_task, joined) + sizeof(bool) - RP_TASK_CARRIED_OFF)

/* Where the last component of path (len bytes, beginning with '/') starts. */
static inline uint16_t rp_path_name_at(const char *path, size_t len)
{
	const char *slash = memrchr(path, '/', len);

	return (uint16_t)(slash - path + 1);
}

/*
 * The arena tasks and their paths are allocated from (task.c): one thread
 * allocates and releases, allocations are cache-line aligned.
 */
struct rp_arena;

int rp_arena_new(struct rp_arena **out);
/* Frees the arena; every allocation must have been released. */
void rp_arena_free(struct rp_arena *a);
/* NULL on -ENOMEM. */
void *rp_arena_alloc(struct rp_arena *a, size_t size);
void rp_arena_release(void *p);
/* Blocks in use now (those kept empty for reuse not counted). */
size_t rp_arena_blocks(const struct rp_arena *a);

/* Deep-copies rec (an operation record) into a; NULL on -ENOMEM. */
struct rp_task *rp_task_new(struct rp_arena *a, const struct fstap_rec *rec);
/* A copy of t (what an executor and a worker read of it) in a; NULL on -ENOMEM. */
struct rp_task *rp_task_dup(struct rp_arena *a, const struct rp_task *t);
/* Releases t and its paths (allocated from the same arena). */
void rp_task_free(struct rp_task *t);
/* Adds a dependency to t (0 or -ENOMEM). */
int rp_task_add_dep(struct rp_task *t, struct rp_worker *w, uint64_t wseq);

/* ---- handles.c: the dispatcher's side -------------------------------------- */

/*
 * The recorded handles of a run, as the dispatcher sees them: fh -> the
 * handle object of its latest open dispatched and not yet released, the
 * handles no new task names (retired) until the tasks that do have run,
 * and those reused after that (spare). The dispatcher's alone.
 */
struct rp_handle;
struct rp_handle_slab;
struct rp_handles {
	struct fstap_map live;		/* fh + 1 -> struct rp_handle * */
	struct rp_handle *retired, *retired_tail;	/* in the order retired */
	struct rp_handle *spare;
	struct rp_handle_slab *slabs;	/* where they all are; the first's are given out in turn */
	unsigned slab_used;		/* of the first slab's */
};
void rp_handles_init(struct rp_handles *hs);
/*
 * Names in t (an issued task, before it goes to its worker) the handles it
 * uses: an open gets a new one (and the one it replaces), a release takes
 * its fh's out of the table, an operation through a handle gets its fh's
 * (and fh2's). 0 or -ENOMEM.
 */
int rp_handles_bind(struct rp_handles *hs, struct rp_task *t);
/* After the run: the handles opened and not released. */
size_t rp_handles_open(const struct rp_handles *hs);
/* After the run: closes what is still open, frees them all. */
void rp_handles_release(struct rp_handles *hs);

/* ---- divlog.c: the divergence log ----------------------------------------- */

struct rp_divlog;

/* A log of the first max divergences of each (op, kind, errno). 0 or -ENOMEM. */
int rp_divlog_new(unsigned max, struct rp_divlog **out);
void rp_divlog_free(struct rp_divlog *l);
/* Whether one more divergence of (op, kind, err) is logged (it is then counted). */
bool rp_divlog_want(struct rp_divlog *l, unsigned op, enum rp_div_kind kind, unsigned err);
/*
 * Logs a divergence of t (after rp_divlog_want said yes): replayed is the
 * executor's result; missing and extra (readdir; NULL otherwise) are JSON
 * arrays of names, taken. 0 or -ENOMEM.
 */
int rp_divlog_add(struct rp_divlog *l, const struct rp_task *t, enum rp_div_kind kind,
		  unsigned err, int64_t replayed, json_t *missing, json_t *extra);
/*
 * Writes the entries in record order, one JSON object a line, each with
 * "run", and with part_kind (not NULL: "clone", "rank") the part's number.
 */
int rp_divlog_write(struct rp_divlog *l, FILE *f, unsigned run, const char *part_kind,
		    unsigned part);

/* ---- exec.c --------------------------------------------------------------- */

#define RP_IO_MAX (64u << 20)	/* the largest read/write/xattr buffer of an executor */

struct rp_shared;	/* state of one run shared by the workers (shared.c) */
struct rp_exec;		/* per-worker execution context (context.c) */

/*
 * An executor issues the system call(s) of one record and returns the
 * result (>= 0, -errno, or RP_E_UNKNOWN / RP_E_REFUSED). It may count a
 * divergence of its own (readdir entries) in st.
 */
typedef int64_t (*rp_exec_fn)(struct rp_exec *x, const struct rp_task *t);

struct rp_exec_op {
	rp_exec_fn fn;		/* NULL: not replayed */
	const char *why;	/* for NULL fn: why not (docs, tests) */
};

extern const struct rp_exec_op rp_exec_ops[FSTAP_OP_NR];

/* Opens the shared state of a run over the directory root_fd (not taken). */
int rp_shared_new(int root_fd, struct rp_shared **out);
void rp_shared_free(struct rp_shared *sh);
/* --order=none: count ops that run after a later-recorded op on a resource. */
void rp_shared_track_order(struct rp_shared *sh, bool on);
/* Lets mknod create character and block devices (--devices). */
void rp_shared_allow_devices(struct rp_shared *sh, bool on);
/* Where the workers log divergences (borrowed; NULL: no log). */
void rp_shared_set_divlog(struct rp_shared *sh, struct rp_divlog *log);
/* The trace names name in the root: a listing compares it (see exec-dir.c). */
void rp_shared_note_root_name(struct rp_shared *sh, struct fstap_bytes name);
/* Directories opened (openat2) by the shared directory cache so far. */
uint64_t rp_shared_dir_opens(struct rp_shared *sh);
/*
 * The dispatcher, before it hands out the first task of namespace
 * generation gen: in gen, the paths at and below path (NULL: all) may name
 * other directories than before. Called once or more per generation, in
 * order; a generation with no call empties the directory cache.
 */
void rp_shared_ns_change(struct rp_shared *sh, uint32_t gen, const char *path);

int rp_exec_new(struct rp_shared *sh, struct rp_stats *st, struct rp_exec **out);
void rp_exec_free(struct rp_exec *x);
/* Runs the executor of t's op and accounts the result; returns it. */
int64_t rp_exec_run(struct rp_exec *x, const struct rp_task *t);

/* ---- classify.c ------------------------------------------------------------ */

/* Whether lookup l is absorbed by next, the same thread's next record. */
bool rp_lookup_absorbed(const struct fstap_rec *l, const struct fstap_rec *next);
/* Whether getattr g (without a handle) is the permission check of next. */
bool rp_getattr_absorbed(const struct fstap_rec *g, const struct fstap_rec *next);
/* Whether getattr g (without a handle) is the open's check after create prev. */
bool rp_getattr_after_create(const struct fstap_rec *prev, const struct fstap_rec *g);
/* Whether getattr g of a directory is the check of the walk through it to
 * next (pm: the paths as before g; NULL: none known). */
bool rp_getattr_walk(const struct fstap_rec *g, const struct fstap_rec *n,
		     const struct fstap_pathmap *pm);
/* Whether getattr g of a directory, then getattr n of it, then nn (a walk
 * through it), is the kernel's twice asked permission check. */
bool rp_getattr_dir_twice(const struct fstap_rec *g, const struct fstap_rec *n,
			  const struct fstap_rec *nn, const struct fstap_pathmap *pm);
/* Whether getattr g is the fstat() of the opendir() prev (O_NONBLOCK: glibc's). */
bool rp_getattr_after_opendir(const struct fstap_rec *prev, const struct fstap_rec *g);

/*
 * Whether r is the kernel's GETXATTR of security.capability, which it sends
 * once per write() system call (file_remove_privs), never between the parts
 * of a write it splits. A -ENOSYS answer makes the kernel stop asking
 * (no_getxattr): that one marks nothing.
 */
bool rp_write_marker(const struct fstap_rec *r);
/*
 * Whether write w has the shape of the continuation of write prev in one
 * split write(): same handle, w starts at a page boundary exactly where a
 * complete prev ended. The shape alone does not prove it (see
 * rp_classify_arrived).
 */
bool rp_write_continues(const struct fstap_rec *prev, const struct fstap_rec *w);

/*
 * A thread's records are linked in recorded start order by tprev/tnext
 * (write markers included, the thread's other kernel requests not), and
 * each is classified once, in two halves: what the records before it say,
 * when it joins the list (rp_classify_arrived), and what the ones after it
 * say, when it leaves the list to be dispatched (rp_classify).
 *
 * rp_classify_arrived: a write gets t->marked when its marker precedes it,
 * t->absorbed when it continues a write() the kernel split (the previous
 * write of the thread, marked or itself a continuation, with no marker in
 * between); a getattr without a handle t->after_create and
 * t->after_opendir; a getattr with a handle t->absorbed, or t->eof_read
 * with the offset and size of the read at end of file it stands for in
 * t->rec (from h, the thread's latest requests, which t then joins).
 *
 * rp_classify: a lookup or a getattr without a handle gets t->absorbed
 * (attr_stale: the recording did not cache attributes, permission-check
 * getattrs are then absorbed; pm: the paths as before t, NULL: none known,
 * for the walk rules); a getattr with a handle that a read on
 * it follows is absorbed.
 */
/* A thread's latest requests (write markers left out), newest last. */
#define RP_EOF_SCAN 16	/* how far back a getattr with a handle looks for its read */
struct rp_fh_hist {
	struct rp_fh_seen {
		uint64_t fh, end, size;	/* end: where it ended (offset + result) */
		bool short_read;	/* a read that returned less than it asked for */
	} e[RP_EOF_SCAN];
	unsigned next, n;		/* the slot the next one takes; slots used */
};
void rp_classify_arrived(struct rp_task *t, struct rp_fh_hist *h);
void rp_classify(bool attr_stale, const struct fstap_pathmap *pm, struct rp_task *t);
/* What a classified task stands for in the replay. */
enum rp_fate {
	RP_FATE_ISSUED,		/* its system call(s) are issued */
	RP_FATE_NOT_REPLAYED,	/* a type that is not (forget, flush: rp_exec_ops) */
	RP_FATE_KERNEL,		/* the kernel's own request, left to the target's kernel */
	RP_FATE_ABSORBED,	/* a lookup or getattr another call reproduces */
	RP_FATE_MERGED,		/* a part of a split write(), issued with the first */
};
static inline enum rp_fate rp_fate(const struct rp_task *t)
{
	unsigned op = t->rec.op;

	if (op >= FSTAP_OP_NR || !rp_exec_ops[op].fn)
		return RP_FATE_NOT_REPLAYED;
	/* The kernel's own requests are left to the target kernel; releases
	 * still close the replay's descriptor (the application's close). */
	if ((t->rec.flags & FSTAP_RF_KERNEL) && op != FSTAP_OP_RELEASE &&
	    op != FSTAP_OP_RELEASEDIR)
		return RP_FATE_KERNEL;
	if ((op == FSTAP_OP_LOOKUP || op == FSTAP_OP_GETATTR) && t->absorbed)
		return RP_FATE_ABSORBED;
	if (op == FSTAP_OP_WRITE && t->merged)
		return RP_FATE_MERGED;
	return RP_FATE_ISSUED;
}
/*
 * The first part of a split write() takes the continuations that follow it
 * in its thread's list: adds their sizes and results to t->rec, marks them
 * merged. Returns how many it took.
 */
unsigned rp_merge_split_write(struct rp_task *t);
/* t's thread's next and previous requests, its write markers left out. */
static inline struct rp_task *rp_op_next(const struct rp_task *t)
{
	struct rp_task *n = t->tnext;

	while (n && n->marker)
		n = n->tnext;
	return n;
}

static inline struct rp_task *rp_op_prev(const struct rp_task *t)
{
	struct rp_task *p = t->tprev;

	while (p && p->marker)
		p = p->tprev;
	return p;
}

/*
 * Whether t, in its thread's list, is classified for good: what it stands
 * for no longer depends on records still to come. A lookup depends on its
 * thread's next request, a getattr on the next two (rp_getattr_dir_twice),
 * a write on the end of the split write() it may start (the continuations
 * it takes, rp_merge_split_write); nothing else on later records. Inline,
 * as the functions around it: the dispatcher asks for every record.
 */
static inline bool rp_classified(const struct rp_task *t)
{
	const struct rp_task *n;

	if (t->marker || (t->rec.flags & FSTAP_RF_KERNEL))
		return true;	/* not re-issued as such: nothing to find */
	switch (t->rec.op) {
	case FSTAP_OP_LOOKUP:
		return rp_op_next(t) != NULL;
	case FSTAP_OP_GETATTR:
		return (n = rp_op_next(t)) && rp_op_next(n);
	case FSTAP_OP_WRITE:
		for (n = t->tnext; n && n->rec.op == FSTAP_OP_WRITE && n->absorbed; n = n->tnext)
			;
		return n != NULL;
	default:
		return true;
	}
}

/* ---- run.c ---------------------------------------------------------------- */

/* What one run measured; report.c renders it. */
struct rp_result {
	enum rp_order order;
	unsigned pace_pct;
	bool pace_native;		/* the gaps less the recorder's round trips */
	uint64_t elapsed_ns;		/* until the last call returned */
	uint64_t think_ns;		/* paced: the think time asked for between threads' ops, summed */
	uint64_t sync_ns;		/* --sync-at-end: the syncfs after it */
	bool synced;			/* sync_ns is set */
	uint64_t records;		/* records read (all types) */
	uint64_t op_records;		/* operation records */
	uint64_t replayed;		/* ops executed */
	uint64_t kernel_skipped;	/* FSTAP_RF_KERNEL: left to the kernel */
	uint64_t syncs_unflagged;	/* of them, syncs after synchronous writes found here */
	uint64_t not_replayed;		/* forget, flush */
	uint64_t lookups_absorbed, lookups_issued;
	uint64_t getattrs_absorbed, getattrs_issued, getattrs_eof_reads;
	uint64_t writes_merged;		/* parts of a kernel-split write, issued with the first */
	uint64_t handles_left;		/* open at the end of the trace */
	uint64_t rank_deps;		/* --split: dependencies on ops of other ranks */
	uint64_t handles_reopened;	/* --split: handles opened again for this rank's use */
	unsigned workers;
	/* the plan (plan.c): what was dispatched before the clock started */
	uint64_t planned;		/* ops */
	uint64_t plan_ns;		/* the time it took (reading the trace included) */
	uint64_t plan_peak;		/* the most bytes the plan held */
	bool planned_all;		/* the whole trace (else the rest during the run) */
	bool incomplete;		/* the trace had no footer */
	struct fstap_cut cut;		/* how it was cut (cut.cut false: not) */
	struct rp_stats stats;		/* merged over the workers */
	struct rp_divlog *divlog;	/* --divergences: owned, or NULL */
	/* --clone, --mpi (clone.c): the results merged into this one, owned */
	const char *part_kind;		/* "clone" or "rank" */
	struct rp_result **parts;
	unsigned nparts;
	uint64_t started_ns;		/* a part: CLOCK_REALTIME at its start */
	char *divlog_lines;		/* a rank's divergence log as received (mpi.c), or NULL */
};

/* ---- clone.c -------------------------------------------------------------- */

/*
 * Merges src, one part of a replay (a clone, a rank), into dst: counters
 * and histograms added, the longest elapsed time kept. 0 or -ENOMEM.
 */
int rp_result_merge(struct rp_result *dst, const struct rp_result *src);
/* The merged result of the n parts (taken: owned by *out). 0 or -ENOMEM. */
int rp_result_of_parts(const char *kind, struct rp_result **parts, unsigned n,
		       struct rp_result **out);

/* ---- split.c: --mpi --split=process|thread, who replays what --------------- */

/*
 * This rank's share: split (RP_SPLIT_PROCESS or RP_SPLIT_THREAD), the map
 * file (NULL: none) loaded and checked against nranks. 0 or -errno (logged).
 */
int rp_share_new(enum rp_split split, const char *map, int rank, int nranks,
		 struct rp_share **out);
void rp_share_free(struct rp_share *s);
/* The rank that replays c's process (thread), assigned on first sight. 0 or -ENOMEM. */
int rp_share_owner(struct rp_share *s, const struct fstap_rec *c, int *rank);
/* Whether rank is this one. */
bool rp_share_mine(const struct rp_share *s, int rank);
struct rp_progress;
/* The progress of the ranks' workers (run_i.h), or NULL. */
void rp_share_set_progress(struct rp_share *s, struct rp_progress *p);
struct rp_progress *rp_share_progress(const struct rp_share *s);

/*
 * mpi-xfer.c (a build with MPI): the progress thread that tells the ranks'
 * progress to each other. rp_xfer_finish, after this rank's run (status:
 * its result, 0 or -errno), tells the others and waits until every rank
 * has; frees x. It returns 0, or -ECANCELED when another rank failed.
 */
struct rp_xfer;
int rp_xfer_start(int rank, int nranks, struct rp_xfer **out);
struct rp_progress *rp_xfer_progress(struct rp_xfer *x);
int rp_xfer_finish(struct rp_xfer *x, int status);

#endif
