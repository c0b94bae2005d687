/*
 * run_i.h: the state of one replay run shared by its stages (run.c,
 * stage.c, dispatch.c, deps.c, learn.c, worker.c, borrowed.c): the
 * dispatcher's struct run, the workers, and each recorded thread.
 */
#ifndef FSTAP_REPLAY_RUN_I_H
#define FSTAP_REPLAY_RUN_I_H

#include <sched.h>
#include <stdatomic.h>

#include "fstap/sort.h"
#include "replay_i.h"

#define WINDOW_MARGIN_NS 250000000ull
#define DEFAULT_QUEUE 1024
#define MAX_WORKERS 1024
#define PATHBUF 8192

struct ends_ring {
	struct { uint64_t wseq, end; } *v;
	size_t head, len, cap;
};

/* ---- plan.c: the tasks dispatched ahead of their execution ---------------- */

struct rp_plan;
struct plan_block;

/* One consumer's jobs in dispatch order (plan.c). */
struct rp_stream {
	/* the dispatcher's */
	struct plan_block *head, *tail;	/* head: the first block, published with the first job */
	size_t wpos;			/* where the next job goes in tail */
	uint64_t planned;		/* jobs written */
	uint64_t wbytes;		/* their bytes */
	/* the consumer's */
	_Alignas(64) struct plan_block *rblock;	/* the block it reads */
	size_t rpos;
	uint64_t taken;			/* jobs read */
	uint64_t rmask;			/* the fields of the record it decoded last (plan.c) */
	_Atomic uint64_t rbytes;	/* their bytes (the dispatcher reads it when the plan is full) */
	_Alignas(64) _Atomic uint64_t published;	/* jobs it may read */
	atomic_bool sleeping, closed;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/*
 * A plan of budget bytes of jobs not yet read at most (one job larger than
 * that is let in when nothing is left to read).
 */
int rp_plan_new(size_t budget, struct rp_plan **out);
void rp_plan_free(struct rp_plan *p);
/* s (rp_stream_init'ed) is one of p's: its unread bytes count. 0 or -ENOMEM. */
int rp_plan_add_stream(struct rp_plan *p, struct rp_stream *s);
/* s (empty) is no longer one of p's. */
void rp_plan_remove_stream(struct rp_plan *p, struct rp_stream *s);
/* The most bytes of blocks the plan held at once. */
size_t rp_plan_peak(const struct rp_plan *p);
/* Whether the plan's blocks take more than budget / frac. */
bool rp_plan_over(struct rp_plan *p, size_t frac);
/* Waits until a block's worth of the budget is free (the consumers read on). */
void rp_plan_wait(struct rp_plan *p);
void rp_stream_init(struct rp_stream *s);
/* Frees what s still holds (the plan's count too, if p) and its lock. */
void rp_stream_release(struct rp_plan *p, struct rp_stream *s);
/*
 * The dispatcher appends t (dispatched to worker widx; alone: see
 * rp_stage_alone) to s, packed; t stays the caller's. 0, -EAGAIN when the
 * plan is full (nothing written), or -ENOMEM.
 */
int rp_stream_put(struct rp_plan *p, struct rp_stream *s, const struct rp_task *t,
		  unsigned widx, bool alone);
/* No more jobs: the consumer ends once it has read what s holds. */
void rp_stream_close(struct rp_stream *s);
/* Whether s has a job the consumer has not read. */
bool rp_stream_ready(struct rp_stream *s);
/*
 * The consumer: the next job of s decoded into *t (its pointers into the
 * stream: valid until the next call; the fields of a task that workers
 * and executors do not read are left as they were; *t zeroed before the
 * first call, and then given only to this stream), with its worker and
 * whether it is alone. With wait, waits for one; false at the end (closed and read), or
 * without wait when none is published.
 */
bool rp_stream_next(struct rp_plan *p, struct rp_stream *s, bool wait, struct rp_task *t,
		    unsigned *widx, bool *alone);

struct rp_worker {
	struct run *run;
	unsigned idx;
	pthread_t th;
	bool started;		/* its thread runs */
	bool remote;		/* --split: a stand-in, its ops another rank's (mpi-xfer.c) */

	/* queue and progress, protected by mu */
	pthread_mutex_t mu;
	pthread_cond_t cv_get, cv_put, cv_done;
	struct rp_task *head, *tail;
	unsigned qlen;
	bool closed;
	bool sleeping;		/* the worker waits on cv_get */
	atomic_bool queued;	/* head is not NULL: read without mu while spinning */

	struct rp_stream stream;	/* its jobs, planned (r->plan, not r->x) */

	/* written by the worker once per op: a cache line of their own, which
	 * the dispatcher's writes to the fields around do not take away */
	_Alignas(64) _Atomic uint64_t done;	/* ops completed (per-worker numbers 1..done) */
	_Atomic uint64_t wake_at;	/* the least done a thread sleeps on cv_done for (none: UINT64_MAX) */

	/* dispatcher only */
	_Alignas(64) uint64_t wseq;	/* ops dispatched to it */
	struct rp_task *inflight, *inflight_tail;	/* dispatched, not yet freed (dnext) */
	uint64_t prev_end;	/* recorded end of its latest op, for the gaps */
	uint64_t first_start;	/* recorded start of its first op (rp_pace_joined) */
	struct ends_ring ends;	/* thread order: dispatched ops not yet ended */
	uint64_t ended;		/* its last op ended at the current dispatch time */
	uint64_t *known;	/* known[w]: what this worker already waits for */
	size_t nknown;

	/* worker thread only */
	_Alignas(64) struct rp_stats stats;
	int err;
};

/*
 * --split (split.c): the progress of the workers of every rank. Every rank
 * dispatches the whole trace alike, so worker k is the same recorded
 * thread on every rank: on the rank that replays it, a worker with a
 * thread (local); elsewhere a stand-in whose ops are not executed, whose
 * count of completed ops is what that rank says (remote). mpi-xfer.c
 * tells the local counts to the other ranks and sets the remote ones.
 */
struct rp_progress {
	_Atomic uint64_t local[MAX_WORKERS];	/* a local worker's completed ops */
	atomic_uint nlocal;	/* the local workers are below this */
	_Atomic uint64_t remote[MAX_WORKERS];	/* a stand-in's done, as its rank told */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_uint waiters;
	atomic_int failed;	/* a rank that failed (the job gives up), or -1 */
};

void rp_progress_init(struct rp_progress *p);
void rp_progress_destroy(struct rp_progress *p);
/* Worker idx is local (the dispatcher says so when it makes it). */
void rp_progress_local(struct rp_progress *p, unsigned idx);
/* Local worker idx has completed n ops (the worker says). */
void rp_progress_count(struct rp_progress *p, unsigned idx, uint64_t n);
/* Stand-in idx has completed n ops (its rank says); the waiters see it. */
void rp_progress_set(struct rp_progress *p, unsigned idx, uint64_t n);
/* Rank failed: every wait returns false from now on. */
void rp_progress_fail(struct rp_progress *p, int rank);
/* Waits until stand-in idx has completed n ops; false if the job gave up. */
bool rp_progress_wait(struct rp_progress *p, unsigned idx, uint64_t n);

/* Per recorded thread, dispatcher only. */
struct tstate {
	struct rp_worker *w;
	/* its non-kernel records and write markers still in the stage, in start order */
	struct rp_task *head, *tail;
	uint64_t sync_armed;	/* its latest op was a synchronous write: sync_key() */
	struct rp_native_thread native;	/* --pace=native: its gaps */
	struct rp_fh_hist fh_hist;	/* its latest requests (classify.c) */
};

struct run {
	const struct rp_options *o;
	struct rp_shared *sh;
	struct fstap_pathmap *pm;
	struct rp_arena *arena;	/* tasks and their paths */
	struct rp_worker **w;
	size_t nw, capw;
	struct fstap_map tids;	/* tid + 1 -> struct tstate * */
	struct fstap_map res_last;	/* resource -> its writer and readers (deps.c) */
	struct rp_races races;	/* races in the recording (races.c) */
	struct fstap_map fh_owner;	/* fh + 1 -> worker idx that opened it */
	struct rp_handles handles;	/* the handles tasks name (handles.c) */
	struct fstap_map fh_remote;	/* --split: fh + 1 -> its open on another rank (borrowed.c) */
	struct fstap_map fh_local;	/* --split: fh + 1 -> worker idx + 1 holding this rank's copy */
	struct fstap_map sync_fh;	/* fh + 1 -> FSTAP_OP_FSYNC|FDATASYNC: opened O_SYNC|O_DSYNC */
	struct fstap_map open_fh;	/* obj -> fh + 1 of its latest handle still open */
	bool attr_stale;	/* the recording did not cache attributes */
	bool sync_unflagged;	/* the kernel's syncs after synchronous writes are not flagged */
	bool native;		/* --pace=native with the trace's round trips */
	struct rp_native gaps;	/* the recorder's share of the gaps (timing.c) */
	struct fstap_map comm_of;	/* pid + 1 -> its latest process name (char *), divergence log */
	char **comms;		/* every name comm_of ever held (owned) */
	size_t ncomms, capcomms;
	struct rp_task *stage_head, *stage_tail;	/* out of the window, to dispatch */
	uint64_t lookahead;	/* how long a staged record waits for its thread's next ones */
	uint64_t seq;
	uint32_t ns_gen;
	uint64_t t0;		/* monotonic start of the run: its first dispatch */
	uint64_t origin;	/* recorded start of the first operation dispatched */
	bool started;
	unsigned qdepth;
	uint64_t last_progress;
	struct rp_result *res;
	struct rp_result others;	/* --split: what the counters of other ranks' records got */
	struct rp_progress *prog;	/* --split: the ranks' progress, or NULL */
	/* the plan (plan.c): the tasks dispatched before the clock starts and ahead of the workers */
	struct rp_plan *plan;	/* or NULL: each task goes to its worker's queue */
	struct rp_stream onecpu;	/* with r->x: every worker's jobs, run by the dispatcher */
	bool go;		/* the clock runs, the workers run */
	/*
	 * The workers' threads started before the clock (rp_run_go) set up
	 * their execution contexts, say so (ready), then wait for the gate to
	 * open, when the clock starts: a run does not count thread creation.
	 */
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	unsigned nstarted, nready;
	atomic_bool gate_open;
	bool merge;		/* the dispatcher runs every worker's stream, merged (worker.c) */
	bool start_failed;	/* rp_run_go failed (and said why) */
	atomic_bool failed;	/* rp_run_fail: the workers skip the rest */
	uint64_t begin;		/* monotonic: when the dispatcher began to read */
	/* one CPU: the dispatcher runs the ops of idle workers itself (worker.c) */
	struct rp_exec *x;	/* its execution context then, or NULL */
	struct rp_stats xstats;	/* what it ran, merged into res at the end */
	int cwd_fd;		/* the working directory to go back to after that, or -1 */
	char p1[PATHBUF], p2[PATHBUF];
};

/*
 * A thread about to sleep until another's next step (a worker waiting for
 * a task, a dependency, a job) spins a little first: the step usually
 * comes within microseconds, and a futex round trip costs several. Loop
 * while not ready and rp_spin(&until), until 0 at first: false once
 * RP_SPIN_NS have passed, the CPU yielded at each turn.
 */
#define RP_SPIN_NS 20000

static inline bool rp_spin(uint64_t *until)
{
	uint64_t t = fstap_now_ns();

	if (!*until)
		*until = t + RP_SPIN_NS;
	else if (t >= *until)
		return false;
	sched_yield();
	return true;
}

/*
 * Loads the line at p into the cache ahead of its use. GCC 12 takes
 * __builtin_prefetch for a statement without effect, and its dead code
 * elimination dropped every prefetch of the worker's loop (and the calls to
 * a function made only of them): an asm statement is kept as written.
 */
static inline void rp_prefetch_line(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

/*
 * A task read a window ago is out of the caches by the time it comes out
 * of it (a window holds tens of megabytes of tasks). Each one is fetched
 * ahead: when it becomes the head of its run (the few run heads are popped
 * in turn), and before its dispatch.
 */
static inline void rp_prefetch_task(const struct rp_task *t)
{
	const char *p = (const char *)t;
	size_t off;

	for (off = 0; off < sizeof(*t); off += 64)
		rp_prefetch_line(p + off);
}

/* ---- stage.c -------------------------------------------------------------- */

/* A new state for thread tid, or NULL (rp_tstate_get's slow path). */
struct tstate *rp_tstate_new(struct run *r, uint32_t tid);

/* The state of thread tid; if it has none, a new one if create, else NULL. */
static inline struct tstate *rp_tstate_get(struct run *r, uint32_t tid, bool create)
{
	struct tstate *ts = fstap_map_get_ptr(&r->tids, (uint64_t)tid + 1);

	return ts || !create ? ts : rp_tstate_new(r, tid);
}
/* Stages t (out of the window, in start order); 0 or -ENOMEM (t freed). */
int rp_stage(struct run *r, struct rp_task *t);
/* Dispatches what the stage releases (all: everything). */
int rp_unstage(struct run *r, bool all);
/* Whether no record of another thread started within t, just unstaged. */
bool rp_stage_alone(const struct run *r, const struct rp_task *t);

/* ---- dispatch.c ----------------------------------------------------------- */

/* Issues t (or frees it if it is not issued); 0 or -errno. */
int rp_dispatch(struct run *r, struct rp_task *t);
/* Hands w a task the replay made (borrowed.c), not a record's; 0 or -ENOMEM. */
int rp_dispatch_made(struct run *r, struct rp_task *t, struct rp_worker *w);

/* ---- borrowed.c ------------------------------------------------------------ */

/*
 * --split: before t, issued, goes to w: notes the handles it opens (here
 * or on another rank), opens for w the handle it uses if only another rank
 * opened it, and closes this rank's copy when t, on another rank, releases
 * it. 0 or -ENOMEM.
 */
int rp_borrow(struct run *r, struct rp_task *t, struct rp_worker *w);
void rp_borrowed_release(struct run *r);

/* ---- deps.c --------------------------------------------------------------- */

/* The worker that runs t (started if new), or NULL on -ENOMEM. */
struct rp_worker *rp_worker_for_task(struct run *r, struct tstate *ts, struct rp_task *t);
int rp_ends_push(struct ends_ring *e, uint64_t wseq, uint64_t end);
/* t (of worker me) waits until w has done its ops up to wseq. 0 or -ENOMEM. */
int rp_deps_add(struct rp_task *t, struct rp_worker *me, struct rp_worker *w, uint64_t wseq);
int rp_deps_thread(struct run *r, struct rp_task *t, struct rp_worker *me);
void rp_resources(struct run *r, struct rp_task *t);
int rp_deps_resource(struct run *r, struct rp_task *t, struct rp_worker *me);
/* Frees what --order=resource keeps per resource. */
void rp_deps_release(struct run *r);

/* ---- learn.c -------------------------------------------------------------- */

bool rp_is_device(const struct run *r, uint64_t obj);
/* Whether c may change what directory paths name (a new generation). */
bool rp_changes_dirs(const struct run *r, const struct fstap_rec *c);
void rp_note_root_names(struct run *r, const struct fstap_rec *c);
int rp_learn_dispatched(struct run *r, const struct fstap_rec *c);
void rp_getattr_by_handle(struct run *r, struct rp_task *t);
void rp_ns_changes(struct run *r, const struct rp_task *t);
int rp_sync_after_write(struct run *r, struct tstate *ts, struct rp_task *t);
int rp_learn_comm(struct run *r, const struct fstap_rec *c);
const char *rp_comm_of(const struct run *r, uint32_t pid);

/* ---- worker.c ------------------------------------------------------------- */

/* Starts a worker for r (remote: a stand-in, no thread), or NULL. */
struct rp_worker *rp_worker_new(struct run *r, bool remote);
/* Closes w's queue: it ends once it has executed what it holds. */
void rp_worker_close(struct rp_worker *w);
/* Whether this thread may run on one CPU only (its affinity). */
bool rp_one_cpu(void);
/* Ends the dispatcher's own execution of a worker's ops, if it ran them. */
void rp_dispatcher_exec_end(struct run *r);
/* Frees an ended worker. */
void rp_worker_free(struct rp_worker *w);
/*
 * Hands t to w (waits while w's queue is full, or the plan is) and frees
 * it; with a plan, the run starts (rp_run_go) when the plan is full. 0 or
 * -errno.
 */
int rp_queue_put(struct rp_worker *w, struct rp_task *t);
/*
 * The run starts: the caller's o->at_start, the clock, the workers'
 * threads (all: the whole trace is planned; the dispatcher may then run
 * the jobs itself, r->merge). 0 or -errno (logged).
 */
int rp_run_go(struct run *r, bool all);
/* The gate of the workers' threads started before the clock (struct run). */
void rp_gate_init(struct run *r);
void rp_gate_release(struct run *r);
/* With r->x and a plan: the dispatcher runs what the plan holds. 0 or -errno (said). */
int rp_plan_run_all(struct run *r);
/* The run failed: the workers skip what they hold, and no wait waits any longer. */
void rp_run_fail(struct run *r);
/* Frees a list of tasks linked by next. */
void rp_free_tasks(struct rp_task *t);

#endif
