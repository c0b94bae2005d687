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
		uint64_t t = fstap_now_ns();

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
		uint64_t t = fstap_now_ns();

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

/*
 * One CPU (r->x): the dispatcher runs t, w's, itself once w's thread (if
 * it has one) has executed what it holds, after t's dependencies; t is
 * freed.
 */
static void dispatcher_run(struct run *r, struct rp_worker *w, struct rp_task *t)
{
	uint32_t i;

	if (w->started)
		wait_done(w, w->wseq - 1);
	for (i = 0; i < t->ndeps; i++)
		wait_done(t->deps[i].w, t->deps[i].wseq);
	rp_exec_run(r->x, t);
	rp_task_free(t);
	mark_done(w);
	if (w->inflight)
		reclaim(w);	/* what its thread executed */
}

void rp_queue_put(struct rp_worker *w, struct rp_task *t)
{
	struct run *r = w->run;

	if (w->remote) {
		rp_task_free(t);	/* another rank runs it */
		return;
	}
	if (r->x && (rp_stage_alone(r, t) || (!w->started && worker_start(w)))) {
		dispatcher_run(r, w, t);	/* (or w cannot have its thread) */
		return;
	}
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
		rp_prefetch_task(next->next);
	if (next->paths)
		rp_prefetch_line(next->paths);
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
	bool gave_up = false;

	rp_pace_init(&pace, r->o->pace_pct);
	/* a paced worker sleeps between ops: a thread's default timer slack
	 * lets each sleep end up to 50 us late (the schedule lag's p99) */
	if (pace.pct)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	w->err = rp_exec_new(r->sh, &w->stats, &x);
	while ((list = queue_take(w))) {
		rp_prefetch_task(list);
		while ((t = list)) {
			list = t->next;
			prefetch_queued(list);
			for (i = 0; i < t->ndeps && !gave_up; i++)
				gave_up = !wait_dep(r, &t->deps[i]);
			if (gave_up) {
				mark_done(w);	/* what is left is not executed */
				told_done(r, w);
				continue;
			}
			if (pace.pct) {
				uint64_t lag;

				if (t->joined)	/* its gap counts from the threads it waited for */
					prev_done = fstap_now_ns();
				lag = rp_pace_wait(&pace, &rp_clock_real, prev_done, t->gap_ns, &issued);
				rp_stats_add_lag(&w->stats, lag);
			}
			if (x)
				rp_exec_run(x, t);
			if (pace.pct)
				prev_done = fstap_now_ns();
			mark_done(w);	/* t may be freed from here on */
			told_done(r, w);
		}
	}
	rp_exec_free(x);
	return NULL;
}

static int worker_start(struct rp_worker *w)
{
	if (pthread_create(&w->th, NULL, worker_main, w))
		return -EAGAIN;
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
 * end). An op waits for another thread's only if that one started before
 * it ended (in the recording); when an op is dispatched every record that
 * started before it ended has been staged (stage.c), so if none of them
 * is another thread's, the op waits for no later one (rp_stage_alone).
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
	rp_stats_init(&w->stats);
	w->remote = remote;
	if (remote) {
		/* a stand-in: no thread */
	} else if (r->prog) {
		/* its progress is told to the other ranks: a thread of its own */
		if (worker_start(w)) {
			free(w);
			return NULL;
		}
		rp_progress_local(r->prog, w->idx);
	} else if (!r->nw && !r->o->pace_pct && rp_one_cpu() &&
		   !(w->err = dispatcher_exec_begin(r))) {
		/* the dispatcher runs its ops (rp_queue_put) */
	} else if (r->x) {
		/* a thread when it needs one (rp_queue_put) */
	} else if (worker_start(w)) {
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
}

void rp_worker_free(struct rp_worker *w)
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
