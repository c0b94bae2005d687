/*
 * sched.c: one replay run. The dispatcher (the calling thread) streams the
 * trace, restores global start order with a bounded reorder window,
 * resolves each record's paths in that order, decides with classify.c's
 * rules what is re-issued (lookups the next operation's path walk
 * reproduces, and requests the kernel made on its own, are not; the parts
 * of a write() the kernel split are issued as one), computes the ordering
 * constraints of
 * the chosen --order, and hands tasks to workers through bounded queues.
 * Workers wait for their dependencies, pace, execute (exec.c) and count.
 *
 * Reorder window: the recorder writes per-thread chunks, so each thread's
 * records are in order but threads interleave at chunk granularity, and a
 * thread's chunk is flushed at least every flush_interval_ns (trace
 * metadata; 1 s if absent). A record is therefore released (the earliest
 * on start time, then file position, from a merge of the file's sorted
 * runs) only once a record that started more than window + margin later
 * has been read, or at the end. It then waits in the stage until the
 * next records of its thread it depends on join it, or a window more
 * (classification, see rp_classify). Memory: the runs and the stage hold
 * the records of a window, two when a thread pauses; the rest grows with
 * threads, live handles and named objects.
 *
 * Ordering (every dependency points to an op dispatched earlier, so the
 * lowest pending op can always run: no deadlock):
 *  - strict: one worker, global start order.
 *  - thread: a worker per recorded tid; op X waits, for every other worker
 *    w, for w's last op whose recorded end is <= X's recorded start (w runs
 *    its ops in order, so all earlier ones are done too). A worker skips
 *    constraints it already waited for (known[]).
 *  - resource: a worker per tid; X waits for the last op dispatched before
 *    it on each of its resources (objects, directory, handles).
 *  - none: a worker per tid, per-thread order only; ops that run after a
 *    later-recorded op on the same resource are counted.
 *
 * Not here: the rules of what a request stands for (classify.c), the
 * system calls (exec.c), the arithmetic of pacing (timing.c) and of
 * statistics (stats.c), the tasks' memory (task.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fstap/devnode.h"
#include "fstap/log.h"
#include "fstap/pathmap.h"
#include "replay_i.h"

#define DEFAULT_FLUSH_NS 1000000000ull
#define WINDOW_MARGIN_NS 250000000ull
#define DEFAULT_QUEUE 1024
#define MAX_WORKERS 1024
#define PATHBUF 8192

struct ends_ring {
	struct { uint64_t wseq, end; } *v;
	size_t head, len, cap;
};

struct rp_worker {
	struct run *run;
	unsigned idx;
	pthread_t th;
	bool started;

	/* queue and progress, protected by mu */
	pthread_mutex_t mu;
	pthread_cond_t cv_get, cv_put, cv_done;
	struct rp_task *head, *tail;
	unsigned qlen;
	bool closed;
	bool sleeping;		/* the worker waits on cv_get */
	atomic_bool queued;	/* head is not NULL: read without mu while spinning */

	/* written by the worker once per op: a cache line of their own, which
	 * the dispatcher's writes to the fields around do not take away */
	_Alignas(64) _Atomic uint64_t done;	/* ops completed (per-worker numbers 1..done) */
	atomic_uint waiters;	/* threads waiting on cv_done */

	/* dispatcher only */
	_Alignas(64) uint64_t wseq;	/* ops dispatched to it */
	struct rp_task *inflight, *inflight_tail;	/* dispatched, not yet freed (dnext) */
	uint64_t prev_end;	/* recorded end of its latest op, for the gaps */
	struct ends_ring ends;	/* thread order: dispatched ops not yet ended */
	uint64_t ended;		/* its last op ended at the current dispatch time */
	uint64_t *known;	/* known[w]: what this worker already waits for */
	size_t nknown;

	/* worker thread only */
	_Alignas(64) struct rp_stats stats;
	int err;
};

/* Per recorded thread, dispatcher only. */
struct tstate {
	struct rp_worker *w;
	/* its non-kernel records and write markers still in the heap, in start order */
	struct rp_task *head, *tail;
	uint64_t sync_armed;	/* its latest op was a synchronous write: sync_key() */
};

struct run {
	const struct rp_options *o;
	struct rp_shared *sh;
	struct fstap_pathmap *pm;
	struct rp_arena *arena;	/* tasks and their paths */
	struct rp_worker **w;
	size_t nw, capw;
	struct rp_map tids;	/* tid + 1 -> struct tstate * */
	struct rp_map res_last;	/* resource -> wseq << 20 | worker idx */
	struct rp_map races;	/* obj -> struct obj_ends * (rp_race_check) */
	struct rp_map fh_owner;	/* fh + 1 -> worker idx that opened it */
	struct rp_map kinds;	/* obj -> KIND_DIR or KIND_OTHER, where known */
	struct rp_map parents;	/* obj -> its directory (the last one named), where known */
	struct rp_map sync_fh;	/* fh + 1 -> FSTAP_OP_FSYNC|FDATASYNC: opened O_SYNC|O_DSYNC */
	struct rp_map open_fh;	/* obj -> fh + 1 of its latest handle still open */
	bool attr_stale;	/* the recording did not cache attributes */
	bool sync_unflagged;	/* the kernel's syncs after synchronous writes are not flagged */
	struct rp_map comm_of;	/* pid + 1 -> its latest process name (char *), divergence log */
	char **comms;		/* every name comm_of ever held (owned) */
	size_t ncomms, capcomms;
	struct heap_ent *heap;		/* the heads of the window's runs */
	size_t nheap, capheap;
	struct rp_task *run_tail;	/* the tail of the newest run */
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
	char p1[PATHBUF], p2[PATHBUF];
};

static uint64_t now_ns(void)
{
	return rp_clock_real.now(NULL);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- options -------------------------------------------------------------- */

static const char *const order_names[RP_ORDER_NR] = { "strict", "thread", "resource", "none" };

int rp_order_parse(const char *s, enum rp_order *out)
{
	unsigned i;

	for (i = 0; i < RP_ORDER_NR; i++) {
		if (!strcmp(s, order_names[i])) {
			*out = (enum rp_order)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rp_order_name(enum rp_order o)
{
	return (unsigned)o < RP_ORDER_NR ? order_names[o] : "?";
}

int rp_pace_parse(const char *s, unsigned *pct)
{
	char *end;
	unsigned long v;

	if (!strcmp(s, "afap")) {
		*pct = 0;
		return 0;
	}
	if (!strcmp(s, "orig")) {
		*pct = 100;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (strcmp(end, "%") || v < 1 || v > 100000)
		return -EINVAL;
	*pct = (unsigned)v;
	return 0;
}

/* ---- reorder: a merge of sorted runs, on (start_ns, fileidx) ------------- */

/*
 * The file is a sequence of chunks, and a chunk is one FUSE worker's
 * records, which it started one after the other: runs in start order. So
 * the window is kept as runs (lists linked by ->next) and the heap holds
 * only each run's head: a few dozen entries rather than every record of
 * the window, which made sifting the dispatcher's largest cost. The keys
 * are kept in the heap itself: comparing them touches no task.
 */
struct heap_ent {
	uint64_t start, idx;
	struct rp_task *t;	/* the head of a run */
};

static inline bool before(const struct heap_ent *a, const struct heap_ent *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return a->idx < b->idx;
}

static bool task_before(const struct rp_task *a, const struct rp_task *b)
{
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns;
	return a->fileidx < b->fileidx;
}

static void sift_down(struct run *r, size_t i, struct heap_ent e)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= r->nheap)
			break;
		if (c + 1 < r->nheap && before(&r->heap[c + 1], &r->heap[c]))
			c++;
		if (!before(&r->heap[c], &e))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = e;
}

/* Adds t to the newest run if it starts no earlier than its tail, else starts a run. */
static int heap_push(struct run *r, struct rp_task *t)
{
	struct heap_ent e = { t->start_ns, t->fileidx, t };
	size_t i;

	t->next = NULL;
	if (r->run_tail && !task_before(t, r->run_tail)) {
		r->run_tail->next = t;
		r->run_tail->next_start = t->start_ns;
		r->run_tail->next_idx = t->fileidx;
		r->run_tail = t;
		return 0;
	}
	if (r->nheap == r->capheap) {
		size_t c = r->capheap ? 2 * r->capheap : 64;
		struct heap_ent *p = realloc(r->heap, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->heap = p;
		r->capheap = c;
	}
	i = r->nheap++;
	while (i && before(&e, &r->heap[(i - 1) / 2])) {
		r->heap[i] = r->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	r->heap[i] = e;
	r->run_tail = t;
	return 0;
}

/*
 * Loads the line at p into the cache ahead of its use. GCC 12 takes
 * __builtin_prefetch for a statement without effect, and its dead code
 * elimination dropped every prefetch of the worker's loop (and the calls to
 * a function made only of them): an asm statement is kept as written.
 */
static inline void prefetch_line(const void *p)
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
static void prefetch_task(const struct rp_task *t)
{
	const char *p = (const char *)t;
	size_t off;

	for (off = 0; off < sizeof(*t); off += 64)
		prefetch_line(p + off);
}

/* Takes the earliest record of the window. */
static struct rp_task *heap_pop(struct run *r)
{
	struct rp_task *top = r->heap[0].t, *next = top->next;

	if (next) {
		/* the key of the next one is in top: next itself may not be in the cache */
		struct heap_ent e = { top->next_start, top->next_idx, next };

		prefetch_task(next);
		sift_down(r, 0, e);
	} else {
		if (r->run_tail == top)
			r->run_tail = NULL;
		if (--r->nheap)
			sift_down(r, 0, r->heap[r->nheap]);
	}
	top->next = NULL;
	return top;
}

/* ---- workers ------------------------------------------------------------ */

/*
 * Hand-off between the dispatcher and a worker. A round trip through a
 * futex costs several microseconds, as much as the system call the worker
 * replays, so: the worker takes the whole queue at once, spins a little
 * before it sleeps (the next task usually comes within microseconds), is
 * woken only when it sleeps, and publishes its progress with an atomic,
 * taking the lock only when someone waits for it.
 */
#define SPIN_NS 20000

/* Spins up to SPIN_NS for *v to reach n; whether it did. */
static bool spin_until(_Atomic uint64_t *v, uint64_t n)
{
	uint64_t until = 0;

	while (atomic_load_explicit(v, memory_order_acquire) < n) {
		uint64_t t = now_ns();

		if (!until)
			until = t + SPIN_NS;
		else if (t >= until)
			return false;
		sched_yield();
	}
	return true;
}

static void wait_done(struct rp_worker *w, uint64_t n)
{
	if (spin_until(&w->done, n))
		return;
	pthread_mutex_lock(&w->mu);
	atomic_fetch_add(&w->waiters, 1);
	while (atomic_load(&w->done) < n)
		pthread_cond_wait(&w->cv_done, &w->mu);
	atomic_fetch_sub(&w->waiters, 1);
	pthread_mutex_unlock(&w->mu);
}

static void mark_done(struct rp_worker *w)
{
	atomic_fetch_add(&w->done, 1);
	if (atomic_load(&w->waiters)) {
		pthread_mutex_lock(&w->mu);
		pthread_cond_broadcast(&w->cv_done);
		pthread_mutex_unlock(&w->mu);
	}
}

/* Takes every queued task (a list), or NULL when the queue is closed and empty. */
static struct rp_task *queue_take(struct rp_worker *w)
{
	struct rp_task *list;
	uint64_t until = 0;

	while (!atomic_load_explicit(&w->queued, memory_order_acquire)) {
		uint64_t t = now_ns();

		if (!until)
			until = t + SPIN_NS;
		else if (t >= until)
			break;
		sched_yield();
	}
	pthread_mutex_lock(&w->mu);
	while (!w->head && !w->closed) {
		w->sleeping = true;
		pthread_cond_wait(&w->cv_get, &w->mu);
		w->sleeping = false;
	}
	list = w->head;
	w->head = w->tail = NULL;
	atomic_store_explicit(&w->queued, false, memory_order_relaxed);
	if (w->qlen >= w->run->qdepth)
		pthread_cond_signal(&w->cv_put);
	w->qlen = 0;
	pthread_mutex_unlock(&w->mu);
	return list;
}

static void free_tasks(struct rp_task *t)
{
	struct rp_task *next;

	for (; t; t = next) {
		next = t->next;
		rp_task_free(t);
	}
}

/*
 * Frees w's tasks that it has executed. The worker never writes to a task
 * (a line it wrote would travel back to the dispatcher's cache to be
 * freed): it only counts them, in w->done, and the dispatcher, which keeps
 * its own list of what it handed out, frees up to that count. A block freed
 * by the thread that allocated it also stays in that thread's malloc cache.
 */
static void reclaim(struct rp_worker *w)
{
	uint64_t done = atomic_load_explicit(&w->done, memory_order_acquire);
	struct rp_task *t;

	while ((t = w->inflight) && t->wseq <= done) {
		w->inflight = t->dnext;
		rp_task_free(t);
	}
	if (!w->inflight)
		w->inflight_tail = NULL;
}

/* Reading w->done takes its line from the worker: not at every op. */
#define RECLAIM_EVERY 32

static void queue_put(struct rp_worker *w, struct rp_task *t)
{
	t->next = NULL;
	t->dnext = NULL;
	t->wseq = w->wseq;
	if (w->inflight_tail)
		w->inflight_tail->dnext = t;
	else
		w->inflight = t;
	w->inflight_tail = t;
	pthread_mutex_lock(&w->mu);
	while (w->qlen >= w->run->qdepth)
		pthread_cond_wait(&w->cv_put, &w->mu);
	if (w->tail)
		w->tail->next = t;
	else
		w->head = t;
	w->tail = t;
	w->qlen++;
	atomic_store_explicit(&w->queued, true, memory_order_release);
	if (w->sleeping)
		pthread_cond_signal(&w->cv_get);
	pthread_mutex_unlock(&w->mu);
	if (!(w->wseq % RECLAIM_EVERY))
		reclaim(w);
}

/*
 * The tasks after t in a taken list are loaded into this CPU's cache while
 * t's system call runs: the dispatcher wrote them on another CPU, and
 * reading one there line by line, when its turn comes, costs as much as a
 * system call. The one after next is fetched (its pointer is in next,
 * fetched one task ago), and next's paths (their pointer too).
 */
static void prefetch_queued(const struct rp_task *next)
{
	if (!next)
		return;
	if (next->next)
		prefetch_task(next->next);
	if (next->paths)
		prefetch_line(next->paths);
}

static void *worker_main(void *arg)
{
	struct rp_worker *w = arg;
	struct run *r = w->run;
	struct rp_exec *x = NULL;
	struct rp_pace pace;
	struct rp_task *t, *list;
	uint64_t prev_done = r->t0, issued;
	uint32_t i;

	rp_pace_init(&pace, r->o->pace_pct);
	/* a paced worker sleeps between ops: a thread's default timer slack
	 * lets each sleep end up to 50 us late (the schedule lag's p99) */
	if (pace.pct)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	w->err = rp_exec_new(r->sh, &w->stats, &x);
	while ((list = queue_take(w))) {
		prefetch_task(list);
		while ((t = list)) {
			list = t->next;
			prefetch_queued(list);
			for (i = 0; i < t->ndeps; i++)
				wait_done(t->deps[i].w, t->deps[i].wseq);
			if (pace.pct) {
				uint64_t lag = rp_pace_wait(&pace, &rp_clock_real, prev_done,
							    t->gap_ns, &issued);

				rp_stats_add_lag(&w->stats, lag);
			}
			if (x)
				rp_exec_run(x, t);
			if (pace.pct)
				prev_done = now_ns();
			mark_done(w);	/* t may be freed from here on */
		}
	}
	rp_exec_free(x);
	return NULL;
}

static struct rp_worker *worker_new(struct run *r)
{
	struct rp_worker *w;

	if (r->nw == r->capw) {
		size_t c = r->capw ? 2 * r->capw : 16;
		struct rp_worker **p = realloc(r->w, c * sizeof(*p));

		if (!p)
			return NULL;
		r->w = p;
		r->capw = c;
	}
	w = aligned_alloc(_Alignof(struct rp_worker), sizeof(*w));	/* its lines: see done */
	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->run = r;
	w->idx = (unsigned)r->nw;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv_get, NULL);
	pthread_cond_init(&w->cv_put, NULL);
	pthread_cond_init(&w->cv_done, NULL);
	rp_stats_init(&w->stats);
	if (pthread_create(&w->th, NULL, worker_main, w)) {
		free(w);
		return NULL;
	}
	w->started = true;
	r->w[r->nw++] = w;
	return w;
}

static void worker_close(struct rp_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->closed = true;
	pthread_cond_signal(&w->cv_get);
	pthread_mutex_unlock(&w->mu);
}

static void worker_free(struct rp_worker *w)
{
	struct rp_task *t;

	while ((t = w->inflight)) {	/* all executed: the worker has ended */
		w->inflight = t->dnext;
		rp_task_free(t);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_get);
	pthread_cond_destroy(&w->cv_put);
	pthread_cond_destroy(&w->cv_done);
	rp_stats_release(&w->stats);
	free(w->ends.v);
	free(w->known);
	free(w);
}

/* ---- dispatch ------------------------------------------------------------- */

static struct tstate *tstate_get(struct run *r, uint32_t tid, bool create)
{
	uint64_t *v = rp_map_get(&r->tids, (uint64_t)tid + 1);
	struct tstate *ts;

	if (v)
		return (struct tstate *)(uintptr_t)*v;
	if (!create)
		return NULL;
	ts = calloc(1, sizeof(*ts));
	if (!ts || rp_map_put(&r->tids, (uint64_t)tid + 1, (uint64_t)(uintptr_t)ts)) {
		free(ts);
		return NULL;
	}
	return ts;
}

static struct rp_worker *worker_for(struct run *r, struct tstate *ts, uint32_t tid)
{
	if (ts->w)
		return ts->w;
	if (r->o->order == RP_ORDER_STRICT) {
		ts->w = r->nw ? r->w[0] : worker_new(r);
	} else if (r->nw >= MAX_WORKERS) {
		/* NEEDSWORK: beyond MAX_WORKERS threads, tids share workers. */
		ts->w = r->w[tid % r->nw];
	} else {
		ts->w = worker_new(r);
	}
	return ts->w;
}

/*
 * The kernel closes a file (release) on its own when the application's
 * last reference goes, from no thread of the application (the record has
 * tid 0, or the kernel flag): that close goes to the worker that opened the
 * handle, after its other uses. Without this, --order=none would run such
 * closes on a worker of their own, before the reads they follow.
 */
static struct rp_worker *worker_for_task(struct run *r, struct tstate *ts, struct rp_task *t)
{
	unsigned op = t->rec.op;
	uint64_t key = t->rec.fh + 1;

	if (op == FSTAP_OP_OPEN || op == FSTAP_OP_CREATE || op == FSTAP_OP_OPENDIR) {
		struct rp_worker *w = worker_for(r, ts, t->rec.tid);

		if (w && key && rp_map_put(&r->fh_owner, key, w->idx))
			return NULL;
		return w;
	}
	if (op == FSTAP_OP_RELEASE || op == FSTAP_OP_RELEASEDIR) {
		uint64_t idx;

		/* the recorder leaves a release without a thread (tid 0) unflagged:
		 * it stands for the application's close, from no thread */
		if (key && rp_map_del(&r->fh_owner, key, &idx) &&
		    ((t->rec.flags & FSTAP_RF_KERNEL) || t->rec.tid == 0))
			return r->w[idx];
	}
	return worker_for(r, ts, t->rec.tid);
}

/*
 * Records that op wseq of a worker ends at end. The ring answers, for a
 * start time S that only grows, the last op of the worker ended by S
 * (deps_thread pops it from the head). A worker's ends are not in order:
 * a release the kernel sent on its own, routed to the worker that opened
 * the handle, can end after the worker's next ops do. An op that ends no
 * later than one dispatched before it makes that one useless (waiting for
 * the later op waits for both), so it replaces it: the ring keeps ends
 * increasing, and popping stops at no long op with shorter ones behind.
 */
static int ends_push(struct ends_ring *e, uint64_t wseq, uint64_t end)
{
	while (e->len && e->v[(e->head + e->len - 1) % e->cap].end >= end)
		e->len--;
	if (e->len == e->cap) {
		size_t c = e->cap ? 2 * e->cap : 16, i;
		__typeof__(e->v) p = malloc(c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		for (i = 0; i < e->len; i++)
			p[i] = e->v[(e->head + i) % e->cap];
		free(e->v);
		e->v = p;
		e->head = 0;
		e->cap = c;
	}
	e->v[(e->head + e->len++) % e->cap].wseq = wseq;
	e->v[(e->head + e->len - 1) % e->cap].end = end;
	return 0;
}

static uint64_t *known_slot(struct rp_worker *me, unsigned idx)
{
	if (idx >= me->nknown) {
		size_t n = idx + 16;
		uint64_t *p = realloc(me->known, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + me->nknown, 0, (n - me->nknown) * sizeof(*p));
		me->known = p;
		me->nknown = n;
	}
	return &me->known[idx];
}

static int add_dep(struct rp_task *t, struct rp_worker *me, struct rp_worker *w, uint64_t wseq)
{
	uint64_t *k;

	if (w == me || !wseq)
		return 0;
	k = known_slot(me, w->idx);
	if (!k)
		return -ENOMEM;
	if (*k >= wseq)
		return 0;
	*k = wseq;
	return rp_task_add_dep(t, w, wseq);
}

/* --order=thread: wait for every other worker's ops that ended before t started. */
static int deps_thread(struct run *r, struct rp_task *t, struct rp_worker *me)
{
	size_t i;
	int ret;

	for (i = 0; i < r->nw; i++) {
		struct rp_worker *w = r->w[i];
		struct ends_ring *e = &w->ends;

		while (e->len && e->v[e->head].end <= t->rec.start_ns) {
			w->ended = e->v[e->head].wseq;
			e->head = (e->head + 1) % e->cap;
			e->len--;
		}
		if ((ret = add_dep(t, me, w, w->ended)))
			return ret;
	}
	return 0;
}

static void add_res(struct rp_task *t, uint64_t key)
{
	uint32_t i;

	if (key <= 3 || t->nres == RP_TASK_MAX_RES)
		return;
	for (i = 0; i < t->nres; i++)
		if (t->res[i] == key)
			return;
	t->res[t->nres++] = key;
}

#define RES_OBJ(o) ((o) ? ((uint64_t)(o) << 1) + 2 : 0)
#define RES_FH(f) (((uint64_t)(f) << 1) + 3)

/* The objects and handles an op touches (before the pathmap learns from it). */
static void resources(struct run *r, struct rp_task *t)
{
	const struct fstap_rec *c = &t->rec;
	const struct fstap_op_info *oi = fstap_op_info(c->op);

	add_res(t, RES_OBJ(c->obj));
	if (oi && (oi->props & FSTAP_OPP_HANDLE))
		add_res(t, RES_FH(c->fh));
	switch (c->op) {
	case FSTAP_OP_OPEN:
	case FSTAP_OP_OPENDIR:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_GETATTR:
	case FSTAP_OP_SETATTR:
		if (c->fh)
			add_res(t, RES_FH(c->fh));
		break;
	case FSTAP_OP_RENAME:
		add_res(t, RES_OBJ(c->newparent));
		add_res(t, RES_OBJ(fstap_pathmap_lookup(r->pm, c->obj, c->name)));
		add_res(t, RES_OBJ(fstap_pathmap_lookup(r->pm, c->newparent, c->newname)));
		break;
	case FSTAP_OP_LINK:
		add_res(t, RES_OBJ(c->newparent));
		break;
	case FSTAP_OP_COPY_FILE_RANGE:
		add_res(t, RES_FH(c->fh2));
		add_res(t, RES_OBJ(c->obj2));
		break;
	default:
		break;
	}
	if (oi && (oi->props & FSTAP_OPP_DIRENT)) {
		uint64_t child = c->child ? c->child : fstap_pathmap_lookup(r->pm, c->obj, c->name);

		add_res(t, RES_OBJ(child));
	}
}

/* --order=resource: wait for the previous op on each of t's resources. */
static int deps_resource(struct run *r, struct rp_task *t, struct rp_worker *me)
{
	uint32_t i;
	int ret;

	for (i = 0; i < t->nres; i++) {
		uint64_t *v = rp_map_get(&r->res_last, t->res[i]);

		if (v && (ret = add_dep(t, me, r->w[*v & 0xfffff], *v >> 20)))
			return ret;
		if ((t->rec.op == FSTAP_OP_RELEASE || t->rec.op == FSTAP_OP_RELEASEDIR) &&
		    (t->res[i] & 1)) {
			rp_map_del(&r->res_last, t->res[i], NULL);	/* a handle ends */
			continue;
		}
		if ((ret = rp_map_put(&r->res_last, t->res[i], (me->wseq + 1) << 20 | me->idx)))
			return ret;
	}
	return 0;
}

/* Resolves t's paths from the pathmap as it is before t. */
static int resolve(struct run *r, struct rp_task *t)
{
	const struct fstap_rec *c = &t->rec;
	const struct fstap_op_info *oi = fstap_op_info(c->op);
	int n1, n2 = -1;
	bool two = c->op == FSTAP_OP_RENAME || c->op == FSTAP_OP_LINK;

	(void)oi;
	n1 = fstap_pathmap_path(r->pm, c->obj, r->p1, sizeof(r->p1));
	if (two)
		n2 = fstap_pathmap_path(r->pm, c->newparent, r->p2, sizeof(r->p2));
	/* An unknown object comes out as "<obj:N>": no leading '/'. */
	if (n1 < 0 || r->p1[0] != '/' || strlen(r->p1) != (size_t)n1)
		n1 = -1;
	if (two && (n2 < 0 || r->p2[0] != '/' || strlen(r->p2) != (size_t)n2))
		n2 = -1;
	t->paths = rp_arena_alloc(r->arena, (n1 >= 0 ? (size_t)n1 + 1 : 0) +
					       (n2 >= 0 ? (size_t)n2 + 1 : 0) + 1);
	if (!t->paths)
		return -ENOMEM;
	if (n1 >= 0) {
		memcpy(t->paths, r->p1, (size_t)n1 + 1);
		t->path = t->paths;
	}
	if (n2 >= 0) {
		char *p = t->paths + (n1 >= 0 ? n1 + 1 : 0);

		memcpy(p, r->p2, (size_t)n2 + 1);
		t->path2 = p;
	}
	return 0;
}

static bool replayed(const struct rp_task *t, struct rp_result *res)
{
	unsigned op = t->rec.op;

	if (op >= FSTAP_OP_NR || !rp_exec_ops[op].fn) {
		res->not_replayed++;
		return false;
	}
	/* The kernel's own requests are left to the target kernel; releases
	 * still close the replay's descriptor (the application's close). */
	if ((t->rec.flags & FSTAP_RF_KERNEL) && op != FSTAP_OP_RELEASE &&
	    op != FSTAP_OP_RELEASEDIR) {
		res->kernel_skipped++;
		return false;
	}
	if (op == FSTAP_OP_LOOKUP) {
		if (t->absorbed) {
			res->lookups_absorbed++;
			return false;
		}
		res->lookups_issued++;
	}
	if (op == FSTAP_OP_WRITE && t->merged) {
		res->writes_merged++;	/* issued with the first part of its write() */
		return false;
	}
	if (op == FSTAP_OP_GETATTR) {
		if (t->absorbed) {
			res->getattrs_absorbed++;
			return false;
		}
		if (t->eof_read)
			res->getattrs_eof_reads++;
		else
			res->getattrs_issued++;
	}
	return true;
}

static void thread_unlink(struct tstate *ts, struct rp_task *t);

/*
 * The workers share a cache of directory descriptors by path (exec.c); a
 * task uses only those of its namespace generation, which changes at an rmdir, and at a rename that
 * moves or replaces a directory (or an object not known to be none). A
 * rename of a file over a file, the common case (write a temporary, rename
 * it over), leaves every directory path naming what it named.
 */
#define KIND_DIR 1
#define KIND_OTHER 2
#define KIND_DEVICE 3		/* a character or block device node (not a directory) */

static uint64_t kind_of_mode(uint64_t mode)
{
	return S_ISDIR((mode_t)mode) ? KIND_DIR : fstap_is_devnode(mode) ? KIND_DEVICE : KIND_OTHER;
}

/* Whether obj is known to be a device node. */
static bool is_device(const struct run *r, uint64_t obj)
{
	const uint64_t *k = obj ? rp_map_get(&r->kinds, obj) : NULL;

	return k && *k == KIND_DEVICE;
}

static bool maybe_dir(const struct run *r, uint64_t obj)
{
	const uint64_t *k = obj ? rp_map_get(&r->kinds, obj) : NULL;

	return !k || *k == KIND_DIR;
}

static bool changes_dirs(const struct run *r, const struct fstap_rec *c)
{
	uint64_t src, dst;

	if (c->op == FSTAP_OP_RMDIR)
		return true;
	if (c->op != FSTAP_OP_RENAME)
		return false;
	src = fstap_pathmap_lookup(r->pm, c->obj, c->name);
	dst = fstap_pathmap_lookup(r->pm, c->newparent, c->newname);
	return !src || maybe_dir(r, src) || (dst && maybe_dir(r, dst));
}

static int learn_kind(struct run *r, const struct fstap_rec *c)
{
	if (!c->child || c->result < 0)
		return 0;
	switch (c->op) {
	case FSTAP_OP_MKDIR:
		return rp_map_put(&r->kinds, c->child, KIND_DIR);
	case FSTAP_OP_MKNOD:
		return rp_map_put(&r->kinds, c->child, kind_of_mode(c->mode));
	case FSTAP_OP_CREATE:
	case FSTAP_OP_SYMLINK:
		return rp_map_put(&r->kinds, c->child, KIND_OTHER);
	default:
		return 0;
	}
}

/*
 * The directory of each object, for the walk rule (rp_getattr_walk), learned
 * from the records as they are read (classification happens then), and
 * from renames as they are dispatched (which object a rename moves is only
 * known from the names at that point). A hard link's object keeps the
 * directory of its latest name.
 */
static int learn_parent(struct run *r, const struct fstap_rec *c)
{
	switch (c->op) {
	case FSTAP_OP_STATE_DENTRY:
		return c->child ? rp_map_put(&r->parents, c->child, c->obj) : 0;
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
		if (c->result < 0 || !c->child || !c->obj)
			return 0;
		return rp_map_put(&r->parents, c->child, c->obj);
	case FSTAP_OP_LINK:
		if (c->result < 0 || !c->obj || !c->newparent)
			return 0;
		return rp_map_put(&r->parents, c->obj, c->newparent);
	default:
		return 0;
	}
}

/* The names rec gives in the root: the root's own entries compare then. */
static void note_root_names(struct run *r, const struct fstap_rec *c)
{
	const struct fstap_op_info *oi = fstap_op_info(c->op);
	uint32_t i;

	if (c->obj == FSTAP_ROOT_OBJ &&
	    ((oi && (oi->props & FSTAP_OPP_DIRENT)) || c->op == FSTAP_OP_STATE_DENTRY))
		rp_shared_note_root_name(r->sh, c->name);
	if (c->newparent == FSTAP_ROOT_OBJ && (c->op == FSTAP_OP_RENAME || c->op == FSTAP_OP_LINK))
		rp_shared_note_root_name(r->sh, c->newname);
	if (c->op == FSTAP_OP_READDIR && c->obj == FSTAP_ROOT_OBJ)
		for (i = 0; i < c->nentries; i++)
			rp_shared_note_root_name(r->sh, c->entries[i].name);
}

/* Which handle of each object is open, as the records are dispatched. */
static int learn_open_handle(struct run *r, const struct fstap_rec *c)
{
	uint64_t obj = c->op == FSTAP_OP_CREATE ? c->child : c->obj, *v;

	if (c->result < 0 || !obj || !c->fh)
		return 0;
	if (c->op == FSTAP_OP_OPEN || c->op == FSTAP_OP_CREATE)
		return rp_map_put(&r->open_fh, obj, c->fh + 1);
	if (c->op == FSTAP_OP_RELEASE && (v = rp_map_get(&r->open_fh, obj)) && *v == c->fh + 1)
		rp_map_del(&r->open_fh, obj, NULL);
	return 0;
}

/*
 * A GETATTR without a handle of an object whose last name was removed (the
 * kernel asking about an open, unlinked file): no path reaches it any more,
 * its open handle does.
 */
static void getattr_by_handle(struct run *r, struct rp_task *t)
{
	uint64_t parent, *v;
	struct fstap_bytes name;

	if (t->rec.op != FSTAP_OP_GETATTR || t->rec.fh || t->rec.obj == FSTAP_ROOT_OBJ ||
	    fstap_pathmap_name(r->pm, t->rec.obj, &parent, &name) != 0)
		return;
	if ((v = rp_map_get(&r->open_fh, t->rec.obj)))
		t->rec.fh = *v - 1;
}

/* Tells the directory cache which paths the new generation changes. */
static void ns_change_entry(struct run *r, const char *dir, struct fstap_bytes name)
{
	size_t len = dir ? strlen(dir) : 0;

	if (!dir || !rp_name_ok(name) || len + 1 + name.len >= sizeof(r->p1)) {
		rp_shared_ns_change(r->sh, r->ns_gen, NULL);
		return;
	}
	memcpy(r->p1, dir, len);
	if (len == 1)
		len = 0;	/* the root: "/name" */
	r->p1[len] = '/';
	memcpy(r->p1 + len + 1, name.ptr, name.len);
	r->p1[len + 1 + name.len] = '\0';
	rp_shared_ns_change(r->sh, r->ns_gen, r->p1);
}

static void ns_changes(struct run *r, const struct rp_task *t)
{
	ns_change_entry(r, t->path, t->rec.name);
	if (t->rec.op == FSTAP_OP_RENAME)
		ns_change_entry(r, t->path2, t->rec.newname);
}

static uint64_t sync_key(uint64_t fh, unsigned op)
{
	return (fh + 1) << 6 | op;
}

/*
 * Traces whose recorder did not flag them (sync_writes_flagged absent from
 * the metadata): the FSYNC (FDATASYNC) of a thread right after its write on
 * a handle opened with O_SYNC (O_DSYNC) is the kernel's (generic_write_sync)
 * and left to the target's kernel, as the recorder now flags it. An
 * application's own fsync right after such a write is taken for the
 * kernel's too; its next one is not.
 */
static int sync_after_write(struct run *r, struct tstate *ts, struct rp_task *t)
{
	struct fstap_rec *c = &t->rec;
	uint64_t *v, armed = ts->sync_armed;

	if (c->flags & FSTAP_RF_KERNEL)
		return 0;	/* a write marker, the kernel's own requests */
	ts->sync_armed = 0;
	switch (c->op) {
	case FSTAP_OP_OPEN:
	case FSTAP_OP_CREATE:
		if (c->result < 0 || !(c->flags_arg & O_DSYNC))
			return 0;
		return rp_map_put(&r->sync_fh, c->fh + 1, (c->flags_arg & O_SYNC) == O_SYNC ?
				  FSTAP_OP_FSYNC : FSTAP_OP_FDATASYNC);
	case FSTAP_OP_RELEASE:
		rp_map_del(&r->sync_fh, c->fh + 1, NULL);
		return 0;
	case FSTAP_OP_WRITE:
		v = rp_map_get(&r->sync_fh, c->fh + 1);
		if (v && c->result > 0)
			ts->sync_armed = sync_key(c->fh, (unsigned)*v);
		return 0;
	case FSTAP_OP_FSYNC:
	case FSTAP_OP_FDATASYNC:
		if (armed && armed == sync_key(c->fh, c->op)) {
			c->flags |= FSTAP_RF_KERNEL;
			r->res->syncs_unflagged++;
		}
		return 0;
	default:
		return 0;
	}
}

/* Keeps a process record's name for the divergence log. 0 or -ENOMEM. */
static int learn_comm(struct run *r, const struct fstap_rec *c)
{
	char *s;

	if (!c->pid || !c->comm.len)
		return 0;
	if (r->ncomms == r->capcomms) {
		size_t cap = r->capcomms ? 2 * r->capcomms : 64;
		char **p = realloc(r->comms, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->comms = p;
		r->capcomms = cap;
	}
	s = strndup((const char *)c->comm.ptr, c->comm.len);
	if (!s)
		return -ENOMEM;
	r->comms[r->ncomms++] = s;
	return rp_map_put(&r->comm_of, (uint64_t)c->pid + 1, (uint64_t)(uintptr_t)s);
}

static const char *comm_of(const struct run *r, uint32_t pid)
{
	const uint64_t *v = rp_map_get(&r->comm_of, (uint64_t)pid + 1);

	return v ? (const char *)(uintptr_t)*v : NULL;
}

static int dispatch(struct run *r, struct rp_task *t)
{
	struct tstate *ts = t->ts;
	struct rp_worker *w;
	uint64_t end;
	bool bump, issue;
	int ret;

	if (!ts)
		return -ENOMEM;
	if (!r->started) {
		/*
		 * The run starts with its first operation, not when the first
		 * window of the trace has been read; paced gaps count from the
		 * first operation's recorded start, not from the recorder's.
		 */
		r->started = true;
		r->t0 = now_ns();
		r->origin = t->rec.start_ns;
	}
	if (t->tprev || t->tnext || ts->head == t) {
		/* the rest of a split write() is in the list (the window) */
		if (t->rec.op == FSTAP_OP_WRITE)
			rp_merge_split_write(t);
		/* what the object after it was, below which directory, may
		 * have been learned only since (a CREATE can come later in the
		 * file, in another FUSE worker's chunk): by now everything that
		 * started before it has been read */
		if (t->rec.op == FSTAP_OP_GETATTR && !t->rec.fh && !t->absorbed)
			rp_classify(r->attr_stale, &r->parents, t);
		thread_unlink(ts, t);
	}
	if (r->sync_unflagged && (ret = sync_after_write(r, ts, t)))
		return ret;
	getattr_by_handle(r, t);
	/* a third of a trace's records are not issued (absorbed, the
	 * kernel's): no paths for them unless the directory cache needs them */
	issue = replayed(t, r->res);
	bump = changes_dirs(r, &t->rec);
	if ((issue || bump) && (ret = resolve(r, t)))
		return ret;
	if (issue && r->o->order != RP_ORDER_STRICT && r->o->order != RP_ORDER_THREAD)
		resources(r, t);
	if (t->rec.op == FSTAP_OP_RENAME && t->rec.result >= 0 && t->rec.newparent) {
		uint64_t moved = fstap_pathmap_lookup(r->pm, t->rec.obj, t->rec.name);

		if (moved && (ret = rp_map_put(&r->parents, moved, t->rec.newparent)))
			return ret;
	}
	note_root_names(r, &t->rec);
	if ((ret = fstap_pathmap_apply(r->pm, &t->rec)) || (ret = learn_kind(r, &t->rec)) ||
	    (ret = learn_open_handle(r, &t->rec)))
		return ret;
	if (bump) {
		r->ns_gen++;	/* what a directory path names may have changed */
		ns_changes(r, t);
	}
	if (!issue) {
		rp_task_free(t);
		return 0;
	}
	if ((ret = rp_race_check(&r->races, &t->rec, &t->raced)))
		return ret;
	t->device = t->rec.op == FSTAP_OP_OPEN && is_device(r, t->rec.obj);
	if (r->res->divlog)
		t->comm = comm_of(r, t->rec.pid);
	w = worker_for_task(r, ts, t);
	if (!w)
		return -ENOMEM;
	t->seq = ++r->seq;
	t->ns_gen = r->ns_gen - bump;	/* its own paths are from before */
	if (r->o->order == RP_ORDER_THREAD)
		ret = deps_thread(r, t, w);
	else if (r->o->order == RP_ORDER_RESOURCE)
		ret = deps_resource(r, t, w);
	if (ret)
		return ret;
	end = sat_add(t->rec.start_ns, t->rec.dur_ns);
	if (!w->prev_end)
		w->prev_end = r->origin;
	t->gap_ns = t->rec.start_ns > w->prev_end ? t->rec.start_ns - w->prev_end : 0;
	if (end > w->prev_end)
		w->prev_end = end;
	w->wseq++;
	if (r->o->order == RP_ORDER_THREAD && (ret = ends_push(&w->ends, w->wseq, end)))
		return ret;
	queue_put(w, t);
	return 0;
}

static void progress(struct run *r, bool final)
{
	uint64_t now = now_ns(), done;
	size_t i;
	double s;

	if (!r->o->progress || (!final && now - r->last_progress < 500000000ull))
		return;
	r->last_progress = now;
	for (done = 0, i = 0; i < r->nw; i++)
		done += atomic_load_explicit(&r->w[i]->done, memory_order_relaxed);
	s = (double)(now - r->t0) / 1e9;
	fprintf(stderr, "\rreplay: %llu ops, %.1f s, %.0f ops/s   %s",
		(unsigned long long)done, s, s > 0 ? (double)done / s : 0.0, final ? "\n" : "");
	fflush(stderr);
}

/* The trace's metadata object (NULL if none or not JSON); json_decref it. */
static json_t *trace_metadata(const struct fstap_reader *rd)
{
	const struct fstap_trace_info *info = fstap_reader_info(rd);

	return info->metadata_json ? json_loads(info->metadata_json, 0, NULL) : NULL;
}

/*
 * Whether the recording refreshed attributes before every permission check
 * (its recorder.attr_timeout is 0, as in the default cache mode). A trace
 * that does not say (hand-made, imported) is taken as not.
 */
static bool attrs_stale(const json_t *meta)
{
	json_t *v = json_object_get(json_object_get(meta, "recorder"), "attr_timeout");

	return json_is_number(v) && json_number_value(v) == 0;
}

/*
 * Whether the recorder flagged the kernel's syncs after synchronous writes
 * (recorder.sync_writes_flagged), or had none to flag: with direct_io the
 * kernel does not sync after a write, with writeback_cache the writes are
 * not the thread's. A trace that does not say is taken as not.
 */
static bool syncs_flagged(const json_t *meta)
{
	json_t *rec = json_object_get(meta, "recorder");

	return json_is_true(json_object_get(rec, "sync_writes_flagged")) ||
	       json_is_true(json_object_get(rec, "direct_io")) ||
	       json_is_true(json_object_get(rec, "writeback_cache"));
}

/* flush_interval_ns from the trace metadata ("recorder", top level or "options"). */
static uint64_t flush_interval(const json_t *meta)
{
	json_t *v = json_object_get(json_object_get(meta, "recorder"), "flush_interval_ns");

	if (!v)
		v = json_object_get(meta, "flush_interval_ns");
	if (!v)
		v = json_object_get(json_object_get(meta, "options"), "flush_interval_ns");
	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v)
							       : DEFAULT_FLUSH_NS;
}

/*
 * Appends t to its thread's list and classifies it and the record before
 * it, whose next record it is. Records come here in global start order
 * (from the reorder window), so a thread's records arrive in its own order
 * and t always goes at the tail: each record is classified when it comes
 * (against the ones before it: a write's marker, the read a getattr with a
 * handle stands for, the create or opendir before a getattr) and once more
 * when the next one comes (a lookup or getattr against the call after it).
 */
static void thread_append(const struct run *r, struct tstate *ts, struct rp_task *t)
{
	struct rp_task *q;

	t->tprev = ts->tail;
	t->tnext = NULL;
	if (ts->tail)
		ts->tail->tnext = t;
	else
		ts->head = t;
	ts->tail = t;
	if (!t->marker && (q = rp_op_prev(t)))
		rp_classify(r->attr_stale, &r->parents, q);	/* its next record came */
	rp_classify(r->attr_stale, &r->parents, t);
}

static void thread_unlink(struct tstate *ts, struct rp_task *t)
{
	if (t->tprev)
		t->tprev->tnext = t->tnext;
	else
		ts->head = t->tnext;
	if (t->tnext)
		t->tnext->tprev = t->tprev;
	else
		ts->tail = t->tprev;
	t->tprev = t->tnext = NULL;
}

/*
 * The window's output, in start order: joins its thread's list (its own
 * requests and the kernel's write markers, the boundaries of its write()
 * calls), then the stage, where it waits out the lookahead.
 */
static int stage(struct run *r, struct rp_task *t)
{
	struct tstate *ts = tstate_get(r, t->rec.tid, true);

	if (!ts) {
		rp_task_free(t);
		return -ENOMEM;
	}
	t->ts = ts;
	if (!(t->rec.flags & FSTAP_RF_KERNEL) || t->marker)
		thread_append(r, ts, t);
	t->next = NULL;
	if (r->stage_tail)
		r->stage_tail->next = t;
	else
		r->stage_head = t;
	r->stage_tail = t;
	return 0;
}

/*
 * Dispatches the staged records in order, each once it is classified for
 * good or has waited out the lookahead (a thread's last record before it
 * pauses: nothing more may come). All of them at the end.
 */
static int unstage(struct run *r, bool all)
{
	struct rp_task *t;
	int ret;

	while ((t = r->stage_head) &&
	       (all || rp_classified(t) ||
		sat_add(t->start_ns, r->lookahead) < r->stage_tail->start_ns)) {
		r->stage_head = t->next;
		if (!r->stage_head)
			r->stage_tail = NULL;
		else
			prefetch_task(r->stage_head);	/* the next to dispatch */
		t->next = NULL;
		if ((ret = dispatch(r, t)))
			return ret;
	}
	return 0;
}

/* Reads the whole trace and dispatches it; 0 or -errno (logged). */
static int feed(struct run *r, struct fstap_reader *rd, uint64_t window)
{
	struct fstap_rec rec;
	uint64_t idx = 0, max_start = 0;
	int ret;

	r->lookahead = window;
	while ((ret = fstap_reader_next(rd, &rec)) > 0) {
		struct rp_task *t;

		r->res->records++;
		if (fstap_op_is_meta(rec.op)) {
			if (rec.op == FSTAP_OP_STATE_DENTRY)
				note_root_names(r, &rec);
			if ((rec.op == FSTAP_OP_STATE_DENTRY || rec.op == FSTAP_OP_STATE_INODE) &&
			    ((ret = fstap_pathmap_apply(r->pm, &rec)) || (ret = learn_parent(r, &rec))))
				return fstap_error(ret, "cannot replay: out of memory");
			if (rec.op == FSTAP_OP_STATE_INODE && rec.obj &&
			    (ret = rp_map_put(&r->kinds, rec.obj, kind_of_mode(rec.mode))))
				return fstap_error(ret, "cannot replay: out of memory");
			if (rec.op == FSTAP_OP_PROCESS && r->res->divlog && (ret = learn_comm(r, &rec)))
				return fstap_error(ret, "cannot replay: out of memory");
			continue;
		}
		r->res->op_records++;
		t = rp_task_new(r->arena, &rec);
		if (!t)
			return fstap_error(-ENOMEM, "cannot replay: out of memory");
		t->fileidx = idx++;
		t->recno = r->res->records - 1;
		t->marker = rp_write_marker(&rec);
		if ((ret = learn_parent(r, &rec)) || (ret = heap_push(r, t))) {
			rp_task_free(t);
			return fstap_error(ret, "cannot replay: out of memory");
		}
		if (rec.start_ns > max_start)
			max_start = rec.start_ns;
		while (r->nheap && sat_add(r->heap[0].start, window) < max_start)
			if ((ret = stage(r, heap_pop(r))))
				return fstap_error(ret, "cannot replay: out of memory");
		if ((ret = unstage(r, false)))
			return fstap_error(ret, "cannot replay: out of memory");
		if (!(idx & 4095))
			progress(r, false);
	}
	if (ret < 0)
		return fstap_error(ret, "cannot replay '%s': %s", r->o->trace,
				   fstap_reader_errmsg(rd));
	while (r->nheap)
		if ((ret = stage(r, heap_pop(r))))
			return fstap_error(ret, "cannot replay: out of memory");
	if ((ret = unstage(r, true)))
		return fstap_error(ret, "cannot replay: out of memory");
	return 0;
}

static void run_release(struct run *r)
{
	size_t i;

	for (i = 0; i < r->nheap; i++) {
		struct rp_task *t = r->heap[i].t, *next;

		for (; t; t = next) {
			next = t->next;
			rp_task_free(t);
		}
	}
	free(r->heap);
	free_tasks(r->stage_head);
	for (i = 0; i < r->tids.cap; i++)
		if (r->tids.keys[i])
			free((struct tstate *)(uintptr_t)r->tids.vals[i]);
	rp_map_release(&r->tids);
	rp_map_release(&r->res_last);
	rp_races_release(&r->races);
	rp_map_release(&r->fh_owner);
	rp_map_release(&r->kinds);
	rp_map_release(&r->parents);
	rp_map_release(&r->sync_fh);
	rp_map_release(&r->open_fh);
	rp_map_release(&r->comm_of);
	for (i = 0; i < r->ncomms; i++)
		free(r->comms[i]);
	free(r->comms);
	fstap_pathmap_free(r->pm);
	rp_arena_free(r->arena);	/* every task is freed by now */
}

int rp_run(const struct rp_options *o, struct rp_result **out)
{
	struct run r = { .o = o };
	struct fstap_reader *rd = NULL;
	struct rp_result *res;
	struct stat st;
	char *msg = NULL, line[256];
	json_t *meta;
	uint64_t window;
	int root_fd, ret;
	mode_t old_umask;
	size_t i;

	root_fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0 || fstat(root_fd, &st)) {
		ret = -errno;
		if (ret == -ENOTDIR)
			return fstap_error(ret, "'%s' is not a directory", o->dir);
		return fstap_error(ret, "cannot open directory '%s': %s", o->dir, strerror(-ret));
	}
	if ((ret = fstap_reader_open(&rd, o->trace, &msg))) {
		fstap_error(ret, "%s", msg ? msg : "cannot open trace");
		free(msg);
		close(root_fd);
		return ret;
	}
	res = calloc(1, sizeof(*res));
	if (!res || fstap_pathmap_new(&r.pm) || rp_arena_new(&r.arena) ||
	    rp_shared_new(root_fd, &r.sh)) {
		free(res);
		fstap_pathmap_free(r.pm);
		rp_arena_free(r.arena);
		fstap_reader_close(rd);
		close(root_fd);
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	}
	rp_stats_init(&res->stats);
	res->order = o->order;
	res->pace_pct = o->pace_pct;
	r.res = res;
	r.qdepth = o->queue_depth ? o->queue_depth : DEFAULT_QUEUE;
	rp_map_init(&r.tids);
	rp_map_init(&r.res_last);
	rp_map_init(&r.races);
	rp_map_init(&r.fh_owner);
	rp_map_init(&r.kinds);
	rp_map_init(&r.parents);
	rp_map_init(&r.sync_fh);
	rp_map_init(&r.open_fh);
	rp_map_init(&r.comm_of);
	meta = trace_metadata(rd);
	r.attr_stale = attrs_stale(meta);
	r.sync_unflagged = !syncs_flagged(meta);
	window = o->window_ns ? o->window_ns : sat_add(flush_interval(meta), WINDOW_MARGIN_NS);
	json_decref(meta);
	rp_shared_track_order(r.sh, o->order == RP_ORDER_NONE);
	rp_shared_allow_devices(r.sh, o->devices);
	ret = o->divlog_max ? rp_divlog_new(o->divlog_max, &res->divlog) : 0;
	if (ret)
		fstap_error(ret, "cannot replay: out of memory");
	rp_shared_set_divlog(r.sh, res->divlog);

	/* Modes and umasks are applied from the record, as the process had them. */
	old_umask = umask(0);
	r.t0 = now_ns();
	r.last_progress = r.t0;
	if (!ret)
		ret = feed(&r, rd, window);
	for (i = 0; i < r.nw; i++)
		worker_close(r.w[i]);
	for (i = 0; i < r.nw; i++)
		pthread_join(r.w[i]->th, NULL);
	res->elapsed_ns = now_ns() - r.t0;
	umask(old_umask);
	progress(&r, true);

	res->incomplete = !fstap_reader_complete(rd);
	res->cut = *fstap_reader_cut(rd);
	if (!ret && fstap_reader_notice(rd, "replayed", line, sizeof(line)))
		fstap_warn("%s", line);
	res->workers = (unsigned)r.nw;
	res->handles_left = rp_shared_open_handles(r.sh);
	for (i = 0; i < r.nw; i++) {
		if (!ret && r.w[i]->err)
			ret = fstap_error(r.w[i]->err, "cannot start a replay worker");
		rp_stats_merge(&res->stats, &r.w[i]->stats);
		worker_free(r.w[i]);
	}
	free(r.w);
	for (i = 0; i < FSTAP_OP_NR; i++)
		res->replayed += res->stats.op[i].count;
	run_release(&r);
	rp_shared_free(r.sh);
	fstap_reader_close(rd);
	close(root_fd);
	if (ret) {
		rp_result_free(res);
		return ret;
	}
	*out = res;
	return 0;
}

void rp_result_free(struct rp_result *r)
{
	if (!r)
		return;
	rp_stats_release(&r->stats);
	rp_divlog_free(r->divlog);
	free(r);
}
