/*
 * clone.c: a replay made of parts: `--clone=N` (N copies of the trace's
 * workload, each beneath its own subdirectory of DIR, replayed at once by
 * one thread each from a common start) and the merging of parts' results
 * into one (also the MPI ranks' results, replay/mpi.c).
 *
 * Each clone is one rp_run over its own subdirectory: its own dispatcher,
 * workers, path model and statistics. The clone's thread takes a private
 * file-system context (unshare(CLONE_FS)) first, so that the umask rp_run
 * sets for its workers, and their working directories, stay its own.
 *
 * Not here: the replay of one copy (run.c and the rest), the reports
 * (report.c renders the parts).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fstap/log.h"
#include "replay_i.h"

int rp_result_merge(struct rp_result *dst, const struct rp_result *src)
{
	if (src->elapsed_ns > dst->elapsed_ns)
		dst->elapsed_ns = src->elapsed_ns;
	dst->order = src->order;
	dst->pace_pct = src->pace_pct;
	dst->records += src->records;
	/* the whole trace planned: by every part (dst has none before the first) */
	dst->planned_all = src->planned_all && (dst->planned_all || !dst->planned);
	dst->planned += src->planned;
	dst->plan_peak += src->plan_peak;
	if (src->plan_ns > dst->plan_ns)
		dst->plan_ns = src->plan_ns;
	dst->op_records += src->op_records;
	dst->replayed += src->replayed;
	dst->kernel_skipped += src->kernel_skipped;
	dst->syncs_unflagged += src->syncs_unflagged;
	dst->not_replayed += src->not_replayed;
	dst->lookups_absorbed += src->lookups_absorbed;
	dst->lookups_issued += src->lookups_issued;
	dst->getattrs_absorbed += src->getattrs_absorbed;
	dst->getattrs_issued += src->getattrs_issued;
	dst->getattrs_eof_reads += src->getattrs_eof_reads;
	dst->writes_merged += src->writes_merged;
	dst->think_ns += src->think_ns;
	dst->handles_left += src->handles_left;
	dst->rank_deps += src->rank_deps;
	dst->handles_reopened += src->handles_reopened;
	dst->workers += src->workers;
	dst->incomplete |= src->incomplete;
	if (src->cut.cut && !dst->cut.cut)
		dst->cut = src->cut;
	return rp_stats_merge(&dst->stats, &src->stats);
}

int rp_result_of_parts(const char *kind, struct rp_result **parts, unsigned n,
		       struct rp_result **out)
{
	struct rp_result *r = calloc(1, sizeof(*r));
	unsigned i;
	int ret = 0;

	if (!r) {
		for (i = 0; i < n; i++)
			rp_result_free(parts[i]);
		free(parts);
		return -ENOMEM;
	}
	rp_stats_init(&r->stats);
	r->part_kind = kind;
	r->parts = parts;
	r->nparts = n;
	for (i = 0; i < n && !ret; i++)
		ret = rp_result_merge(r, parts[i]);
	if (ret) {
		rp_result_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

/*
 * The common start. Every clone's thread waits until all are started (the
 * gate), then plans its run; the runs start together once every clone has
 * planned (the barrier, rp_options.at_start), the caller's own at_start
 * called once by the last to arrive. A clone that fails before it arrives
 * counts as arrived and failed: the others do not start.
 */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;		/* 0 wait, 1 go, -1 give up */
	unsigned n, arrived;	/* clones, and those at the barrier (or failed) */
	int ret;		/* 0, or -ECANCELED: a clone failed or at_start did */
	const struct rp_options *o;	/* the caller's (its at_start) */
};

struct clone {
	struct rp_options o;
	char dir[4096];
	struct gate *gate;
	pthread_t th;
	struct rp_result *res;
	bool arrived;
	uint64_t started_ns;	/* CLOCK_REALTIME when the runs started */
	int ret;
};

static int gate_wait(struct gate *g)
{
	int s;

	pthread_mutex_lock(&g->mu);
	while (!g->state)
		pthread_cond_wait(&g->cv, &g->mu);
	s = g->state;
	pthread_mutex_unlock(&g->mu);
	return s;
}

static void gate_open(struct gate *g, int state)
{
	pthread_mutex_lock(&g->mu);
	g->state = state;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* c arrives at the barrier (failed: its run ended before it could). */
static void barrier_arrive(struct clone *c, bool failed)
{
	struct gate *g = c->gate;

	c->arrived = true;
	if (failed)
		g->ret = -ECANCELED;
	if (++g->arrived < g->n)
		return;
	if (!g->ret && g->o->at_start && g->o->at_start(g->o->at_start_arg))
		g->ret = -ECANCELED;
	pthread_cond_broadcast(&g->cv);
}

static int clone_at_start(void *arg)
{
	struct clone *c = arg;
	struct gate *g = c->gate;
	int ret;

	pthread_mutex_lock(&g->mu);
	barrier_arrive(c, false);
	while (g->arrived < g->n)
		pthread_cond_wait(&g->cv, &g->mu);
	ret = g->ret;
	pthread_mutex_unlock(&g->mu);
	c->started_ns = fstap_realtime_ns();
	return ret;
}

static void *clone_main(void *arg)
{
	struct clone *c = arg;

	if (unshare(CLONE_FS)) {
		c->ret = fstap_error(-errno, "cannot replay clone '%s': unshare: %s", c->dir,
				     strerror(errno));
	} else if (gate_wait(c->gate) > 0) {
		c->ret = rp_run(&c->o, &c->res);
		if (!c->ret)
			c->res->started_ns = c->started_ns;
	} else {
		c->ret = -ECANCELED;
	}
	pthread_mutex_lock(&c->gate->mu);
	if (!c->arrived)
		barrier_arrive(c, true);
	pthread_mutex_unlock(&c->gate->mu);
	return NULL;
}

int rp_run_clones(const struct rp_options *o, unsigned n, struct rp_result **out)
{
	struct gate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, n, 0, 0, o };
	struct rp_result **parts;
	struct clone *c;
	unsigned i, started;
	int ret = 0;

	if (!n || n > RP_CLONES_MAX)
		return fstap_error(-EINVAL, "--clone must be 1 to %u", RP_CLONES_MAX);
	c = calloc(n, sizeof(*c));
	parts = calloc(n, sizeof(*parts));
	if (!c || !parts) {
		free(c);
		free(parts);
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	}
	for (i = 0; i < n; i++) {
		c[i].o = *o;
		c[i].o.notes_said = o->notes_said || i > 0;
		c[i].o.progress = false;
		snprintf(c[i].dir, sizeof(c[i].dir), RP_CLONE_DIR_FMT, o->dir, i);
		c[i].o.dir = c[i].dir;
		c[i].o.at_start = clone_at_start;
		c[i].o.at_start_arg = &c[i];
		c[i].gate = &gate;
	}
	for (started = 0; started < n; started++)
		if ((ret = -pthread_create(&c[started].th, NULL, clone_main, &c[started])))
			break;
	if (ret)
		fstap_error(ret, "cannot start the thread of clone %u: %s", started, strerror(-ret));
	gate_open(&gate, ret ? -1 : 1);
	for (i = 0; i < started; i++)
		pthread_join(c[i].th, NULL);
	for (i = 0; i < started; i++)
		if (!ret && c[i].ret)
			ret = c[i].ret;
	for (i = 0; i < n; i++)
		parts[i] = c[i].res;
	free(c);
	if (ret) {
		for (i = 0; i < n; i++)
			rp_result_free(parts[i]);
		free(parts);
		return ret;
	}
	ret = rp_result_of_parts("clone", parts, n, out);
	return ret ? fstap_error(ret, "cannot replay: out of memory") : 0;
}
