/*
 * worker.c: the worker pool and the hand-off of tasks to it. Each worker
 * takes its queue as a list, waits for each task's dependencies (other
 * workers' progress), paces, executes (exec.c) and counts; the dispatcher
 * frees what the workers have done.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fstap/log.h"
#include "run_i.h"

/*
 * Hand-off between the dispatcher and a worker. A round trip through a
 * futex costs several microseconds, as much as the system call the worker
 * replays, so: the worker takes the whole queue at once, spins a little
 * before it sleeps (rp_spin), is woken only when it sleeps, and publishes
 * its progress with an atomic, taking the lock only when someone waits
 * for it.
 */
/* Spins up to RP_SPIN_NS for *v to reach n (or the run to fail); whether it did. */
static bool spin_until(const struct run *r, _Atomic uint64_t *v, uint64_t n)
{
	uint64_t until = 0;

	while (atomic_load_explicit(v, memory_order_acquire) < n && !atomic_load(&r->failed))
		if (!rp_spin(&until))
			return false;
	return true;
}

/*
 * wait_done when w has not completed n ops yet: spins, then sleeps until
 * done reaches the least count a sleeper waits for (wake_at), not at every
 * op: a thread that waits for an op far ahead in another's stream would be
 * woken, and take the lock, once per op of it. The sleeper stores wake_at
 * before it reads done, mark_done stores done before it reads wake_at: one
 * of them sees the other's (seq_cst).
 */
static void wait_done_slow(struct rp_worker *w, uint64_t n)
{
	const struct run *r = w->run;

	if (spin_until(r, &w->done, n))
		return;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (n < atomic_load(&w->wake_at))
			atomic_store(&w->wake_at, n);
		if (atomic_load(&w->done) >= n || atomic_load(&r->failed))
			break;
		pthread_cond_wait(&w->cv_done, &w->mu);
	}
	pthread_mutex_unlock(&w->mu);
}

/*
 * Waits until w has completed n ops, or the run has failed (rp_run_fail).
 * Inline, the usual case (done already: the dispatcher, merged, waits so
 * for every worker an op depends on) costs a load, not a call.
 */
static inline void wait_done(struct rp_worker *w, uint64_t n)
{
	if (atomic_load_explicit(&w->done, memory_order_acquire) < n)
		wait_done_slow(w, n);
}

static void gate_open(struct run *r);

void rp_run_fail(struct run *r)
{
	size_t i;

	atomic_store(&r->failed, true);
	gate_open(r);	/* threads started before the clock go on, to stop */
	for (i = 0; i < r->nw; i++) {
		pthread_mutex_lock(&r->w[i]->mu);
		pthread_cond_broadcast(&r->w[i]->cv_done);
		pthread_mutex_unlock(&r->w[i]->mu);
	}
}

/*
 * Waits for d (its worker's ops up to d->wseq); a stand-in's progress comes
 * from its rank. False: the job gave up (another rank failed).
 */
static bool wait_dep(const struct run *r, const struct rp_dep *d)
{
	if (d->w->remote)
		return rp_progress_wait(r->prog, d->w->idx, d->wseq);
	wait_done(d->w, d->wseq);
	return true;
}

/* --split: the count the other ranks are told (the worker may be freed before they are). */
static void told_done(const struct run *r, struct rp_worker *w)
{
	if (r->prog)
		rp_progress_count(r->prog, w->idx, atomic_load_explicit(&w->done,
									memory_order_relaxed));
}

/* One more op of w completed: wakes the sleepers once the least of them is due. */
static void mark_done(struct rp_worker *w)
{
	uint64_t done = atomic_fetch_add(&w->done, 1) + 1;

	if (done >= atomic_load(&w->wake_at)) {
		pthread_mutex_lock(&w->mu);
		atomic_store(&w->wake_at, UINT64_MAX);	/* those still short store theirs again */
		pthread_cond_broadcast(&w->cv_done);
		pthread_mutex_unlock(&w->mu);
	}
}

/* Takes every queued task (a list), or NULL when the queue is closed and empty. */
static struct rp_task *queue_take(struct rp_worker *w)
{
	struct rp_task *list;
	uint64_t until = 0;

	while (!atomic_load_explicit(&w->queued, memory_order_acquire) && rp_spin(&until))
		;
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

void rp_free_tasks(struct rp_task *t)
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

static int worker_start(struct rp_worker *w);
static int dispatcher_exec_begin(struct run *r);

/*
 * One CPU (r->x): the dispatcher runs t, w's, itself once w's thread (if
 * it has one) has executed what it holds, after t's dependencies.
 */
static void dispatcher_run(struct run *r, struct rp_worker *w, const struct rp_task *t)
{
	uint32_t i;

	if (w->started)
		wait_done(w, t->wseq - 1);
	for (i = 0; i < t->ndeps; i++)
		wait_done(t->deps[i].w, t->deps[i].wseq);
	rp_exec_run(r->x, t);
	mark_done(w);
	if (w->inflight)
		reclaim(w);	/* what its thread executed */
}

/* Puts t in w's queue for its thread; the dispatcher frees it once executed. */
static void queue_push(struct rp_worker *w, struct rp_task *t)
{
	t->next = NULL;
	t->dnext = NULL;
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
 * One CPU, with a plan: the dispatcher runs job t of worker widx itself,
 * or, when t may wait for an op dispatched after it (not alone), a copy
 * of it goes to the worker's thread. Returns 0 or -errno.
 */
static int plan_run_one(struct run *r, const struct rp_task *t, unsigned widx, bool alone)
{
	struct rp_worker *w = r->w[widx];
	struct rp_task *copy;

	if (alone || (!w->started && worker_start(w))) {
		dispatcher_run(r, w, t);	/* (or w cannot have its thread) */
		return 0;
	}
	if (!(copy = rp_task_dup(r->arena, t)))
		return -ENOMEM;
	queue_push(w, copy);
	return 0;
}

/*
 * One CPU, with a plan: runs a job, then more until the plan holds at
 * most its budget / frac (0: all it holds). Returns 0 or -errno.
 */
static int plan_run(struct run *r, size_t frac)
{
	struct rp_task job = { 0 };
	unsigned widx;
	bool alone, first = true;
	int ret = 0;

	while (!ret && (first || !frac || rp_plan_over(r->plan, frac)) &&
	       rp_stream_next(r->plan, &r->onecpu, false, &job, &widx, &alone)) {
		ret = plan_run_one(r, &job, widx, alone);
		first = false;
	}
	return ret;
}

/*
 * The merge (r->merge): the dispatcher runs the jobs of every worker's
 * stream in dispatch order (the least seq of the streams' next jobs), as
 * on one CPU. Each stream's next job is decoded into a task of its own.
 */
static int merge_run(struct run *r)
{
	struct merge_head {
		struct rp_task t;
		unsigned widx;
		bool alone, full;
	} *h = calloc(r->nw, sizeof(*h));
	int ret = 0;
	size_t i, best;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < r->nw; i++)
		h[i].full = rp_stream_next(r->plan, &r->w[i]->stream, false, &h[i].t, &h[i].widx,
					   &h[i].alone);
	while (!ret) {
		for (best = r->nw, i = 0; i < r->nw; i++)
			if (h[i].full && (best == r->nw || h[i].t.seq < h[best].t.seq))
				best = i;
		if (best == r->nw)
			break;
		ret = plan_run_one(r, &h[best].t, h[best].widx, h[best].alone);
		h[best].full = rp_stream_next(r->plan, &r->w[best]->stream, false, &h[best].t,
					      &h[best].widx, &h[best].alone);
	}
	free(h);
	return ret;
}

int rp_plan_run_all(struct run *r)
{
	if (r->plan && r->x && (r->merge ? merge_run(r) : plan_run(r, 0)))
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	return 0;
}

/*
 * Whether the dispatcher runs the planned jobs itself, merged (merge_run),
 * with more than one CPU: when the whole trace is planned (the dispatcher
 * has nothing else to do) and the replay goes as fast as possible in the
 * recorded order across threads (thread or strict: an op waits for one
 * dispatched after it only if their records overlap), with few workers (a
 * job is chosen among their streams' next ones). As on one CPU, no
 * hand-off between threads costs a futex round trip, and an op that may
 * wait for a later one goes to its worker's thread.
 */
#define MERGE_MAX_WORKERS 16

static bool merge_begin(struct run *r, bool all)
{
	if (!all || r->x || !r->plan || r->o->pace_pct || r->prog || r->nw > MERGE_MAX_WORKERS ||
	    (r->o->order != RP_ORDER_THREAD && r->o->order != RP_ORDER_STRICT))
		return false;
	if (dispatcher_exec_begin(r)) {
		rp_dispatcher_exec_end(r);
		return false;	/* the workers' threads run their streams */
	}
	return r->merge = true;
}

/* Opens the gate: the threads waiting in gate_pass go on. */
static void gate_open(struct run *r)
{
	pthread_mutex_lock(&r->gate_mu);
	atomic_store(&r->gate_open, true);
	pthread_cond_broadcast(&r->gate_cv);
	pthread_mutex_unlock(&r->gate_mu);
}

/* A worker's thread, set up: says so, and waits for the run's clock to start. */
static void gate_pass(struct run *r)
{
	if (atomic_load(&r->gate_open))
		return;		/* started after the start */
	pthread_mutex_lock(&r->gate_mu);
	r->nready++;
	pthread_cond_broadcast(&r->gate_cv);
	while (!atomic_load(&r->gate_open))
		pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	pthread_mutex_unlock(&r->gate_mu);
}

void rp_gate_init(struct run *r)
{
	pthread_mutex_init(&r->gate_mu, NULL);
	pthread_cond_init(&r->gate_cv, NULL);
}

void rp_gate_release(struct run *r)
{
	gate_open(r);	/* (a failed start leaves none waiting) */
	pthread_mutex_destroy(&r->gate_mu);
	pthread_cond_destroy(&r->gate_cv);
}

int rp_run_go(struct run *r, bool all)
{
	int ret = 0;
	size_t i;

	r->go = true;
	merge_begin(r, all);
	r->res->planned = r->onecpu.planned;
	for (i = 0; i < r->nw; i++)
		r->res->planned += r->w[i]->stream.planned;
	/* the workers' threads are made and set up before the clock starts */
	for (i = 0; i < r->nw && !r->x; i++)
		if (!r->w[i]->remote && !r->w[i]->started && worker_start(r->w[i])) {
			r->start_failed = true;	/* (rp_run fails the run: the others stop) */
			gate_open(r);
			return fstap_error(-EAGAIN, "cannot start a replay worker");
		}
	pthread_mutex_lock(&r->gate_mu);
	while (r->nready < r->nstarted)
		pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	pthread_mutex_unlock(&r->gate_mu);
	r->res->plan_ns = fstap_now_ns() - r->begin;
	if (r->o->at_start && (ret = r->o->at_start(r->o->at_start_arg))) {
		r->start_failed = true;
		gate_open(r);
		return ret;
	}
	r->t0 = fstap_now_ns();
	gate_open(r);
	return 0;
}

/*
 * With a plan: t, packed, to w's stream (or, one CPU, the dispatcher's).
 * A full plan starts the run; once it runs, the dispatcher waits for the
 * workers to read on, or, one CPU, runs half the plan itself.
 */
static int plan_put(struct run *r, struct rp_worker *w, struct rp_task *t)
{
	struct rp_stream *s = r->x ? &r->onecpu : &w->stream;
	bool alone = rp_stage_alone(r, t);	/* (for merge_run too) */
	int ret;

	while ((ret = rp_stream_put(r->plan, s, t, w->idx, alone)) == -EAGAIN) {
		ret = 0;
		if (!r->go)
			ret = rp_run_go(r, false);
		else if (r->x)
			ret = plan_run(r, 2);
		else
			rp_plan_wait(r->plan);	/* (ret 0) */
		if (ret)
			break;
	}
	if (!ret && r->go && !r->x && !w->started && worker_start(w)) {
		r->start_failed = true;
		ret = fstap_error(-EAGAIN, "cannot start a replay worker");
	}
	return ret;
}

int rp_queue_put(struct rp_worker *w, struct rp_task *t)
{
	struct run *r = w->run;
	int ret = 0;

	t->wseq = w->wseq;
	if (w->remote) {
		rp_task_free(t);	/* another rank runs it */
	} else if (r->plan) {
		ret = plan_put(r, w, t);
		rp_task_free(t);
	} else if (r->x && (rp_stage_alone(r, t) || (!w->started && worker_start(w)))) {
		dispatcher_run(r, w, t);	/* (or w cannot have its thread) */
		rp_task_free(t);
	} else {
		queue_push(w, t);
	}
	return ret;
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
		rp_prefetch_task(next->next);
	if (next->paths)
		rp_prefetch_line(next->paths);
}

/* What a worker keeps between its tasks. */
struct worker_ctx {
	struct rp_exec *x;
	struct rp_pace pace;
	uint64_t prev_done;	/* when its latest op ended (paced) */
	bool gave_up;		/* the job gave up (another rank failed) */
};

/* w's thread runs t: after its dependencies, at its pace. */
static void worker_run(struct rp_worker *w, struct worker_ctx *c, const struct rp_task *t)
{
	struct run *r = w->run;
	uint64_t issued;
	uint32_t i;

	for (i = 0; i < t->ndeps && !c->gave_up; i++)
		c->gave_up = !wait_dep(r, &t->deps[i]);
	if (c->gave_up || atomic_load(&r->failed)) {
		mark_done(w);	/* what is left is not executed */
		told_done(r, w);
		return;
	}
	if (c->pace.pct) {
		uint64_t lag;

		if (t->joined)	/* its gap counts from the threads it waited for */
			c->prev_done = fstap_now_ns();
		lag = rp_pace_wait(&c->pace, &rp_clock_real, c->prev_done, t->gap_ns, &issued);
		rp_stats_add_lag(&w->stats, lag);
	}
	if (c->x)
		rp_exec_run(c->x, t);
	if (c->pace.pct)
		c->prev_done = fstap_now_ns();
	mark_done(w);	/* t may be freed from here on */
	told_done(r, w);
}

static void *worker_main(void *arg)
{
	struct rp_worker *w = arg;
	struct run *r = w->run;
	struct worker_ctx c = { 0 };
	struct rp_task *t, *list;

	rp_pace_init(&c.pace, r->o->pace_pct);
	/* a paced worker sleeps between ops: a thread's default timer slack
	 * lets each sleep end up to 50 us late (the schedule lag's p99) */
	if (c.pace.pct)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	w->err = rp_exec_new(r->sh, &w->stats, &c.x);
	gate_pass(r);
	c.prev_done = r->t0;
	if (r->plan && !r->x) {
		struct rp_task job = { 0 };	/* decoded from the stream, on this stack */
		unsigned widx;
		bool alone;

		while (rp_stream_next(r->plan, &w->stream, true, &job, &widx, &alone))
			worker_run(w, &c, &job);
	} else {
		while ((list = queue_take(w))) {
			rp_prefetch_task(list);
			while ((t = list)) {
				list = t->next;
				prefetch_queued(list);
				worker_run(w, &c, t);
			}
		}
	}
	rp_exec_free(c.x);
	return NULL;
}

static int worker_start(struct rp_worker *w)
{
	struct run *r = w->run;

	pthread_mutex_lock(&r->gate_mu);
	if (pthread_create(&w->th, NULL, worker_main, w)) {
		pthread_mutex_unlock(&r->gate_mu);
		return -EAGAIN;
	}
	r->nstarted += !atomic_load(&r->gate_open);	/* (one started after waits for nothing) */
	pthread_mutex_unlock(&r->gate_mu);
	w->started = true;
	return 0;
}

/*
 * As fast as possible on one CPU (the replay's affinity: taskset, a
 * cpuset), a worker gets no thread until it needs one: the dispatcher runs
 * its ops itself, as they are dispatched, and no hand-off costs a futex
 * round trip and two context switches. With two CPUs or more the
 * dispatcher reads and dispatches while the workers execute, and that
 * overlap is worth more. The dispatcher runs an op itself only if it
 * cannot wait for an operation dispatched after it: the ops it runs
 * complete in dispatch order, and a worker's thread runs those of an op
 * that may block on another thread (a FIFO's open waits for its other
 * end; calls on regular files and directories never do). An op waits for
 * another thread's only if that one started before it ended (in the
 * recording); when an op is dispatched every record that started before
 * it ended has been staged (stage.c), so if none of them is another
 * thread's, the op waits for no later one (rp_stage_alone).
 * Such an op is run by its worker's thread (started for it); before the
 * worker's next op that the dispatcher runs, it waits for that thread. The
 * dispatcher's execution context changes its thread's working directory
 * (the l*xattr calls): it goes back at the end (rp_dispatcher_exec_end).
 */
bool rp_one_cpu(void)
{
	cpu_set_t set;

	return !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) == 1;
}

static int dispatcher_exec_begin(struct run *r)
{
	r->cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	rp_stats_init(&r->xstats);
	return rp_exec_new(r->sh, &r->xstats, &r->x);
}

void rp_dispatcher_exec_end(struct run *r)
{
	if (!r->x && r->cwd_fd < 0)
		return;
	if (r->x) {
		rp_exec_free(r->x);
		r->x = NULL;
		rp_stats_merge(&r->res->stats, &r->xstats);
		rp_stats_release(&r->xstats);
	}
	if (r->cwd_fd >= 0) {
		if (fchdir(r->cwd_fd))
			fstap_warn("cannot go back to the working directory: %s", strerror(errno));
		close(r->cwd_fd);
		r->cwd_fd = -1;
	}
}

struct rp_worker *rp_worker_new(struct run *r, bool remote)
{
	struct rp_worker *w;

	if (FSTAP_GROW(r->w, r->nw + 1, r->capw))
		return NULL;
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
	atomic_init(&w->wake_at, UINT64_MAX);
	rp_stats_init(&w->stats);
	rp_stream_init(&w->stream);
	if (r->plan && rp_plan_add_stream(r->plan, &w->stream)) {
		rp_stream_release(NULL, &w->stream);
		free(w);
		return NULL;
	}
	w->remote = remote;
	if (remote) {
		/* a stand-in: no thread */
	} else if (r->prog) {
		/* its progress is told to the other ranks: a thread of its own (no plan) */
		if (worker_start(w)) {
			free(w);
			return NULL;
		}
		rp_progress_local(r->prog, w->idx);
	} else if (!r->nw && !r->o->pace_pct && rp_one_cpu() &&
		   !(w->err = dispatcher_exec_begin(r))) {
		/* the dispatcher runs its ops (rp_queue_put) */
	} else if (r->x || (r->plan && !r->go)) {
		/* a thread when it needs one (rp_queue_put), or when the run starts */
	} else if (worker_start(w)) {
		if (r->plan)
			rp_plan_remove_stream(r->plan, &w->stream);
		rp_stream_release(NULL, &w->stream);
		free(w);
		return NULL;
	}
	r->w[r->nw++] = w;
	return w;
}

void rp_worker_close(struct rp_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->closed = true;
	pthread_cond_signal(&w->cv_get);
	pthread_mutex_unlock(&w->mu);
	rp_stream_close(&w->stream);
}

void rp_worker_free(struct rp_worker *w)
{
	struct rp_task *t;

	while ((t = w->inflight)) {	/* all executed: the worker has ended */
		w->inflight = t->dnext;
		rp_task_free(t);
	}
	rp_stream_release(w->run->plan, &w->stream);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_get);
	pthread_cond_destroy(&w->cv_put);
	pthread_cond_destroy(&w->cv_done);
	rp_stats_release(&w->stats);
	free(w->ends.v);
	free(w->known);
	free(w);
}
