/*
 * split.c: `--mpi --split=process|thread`: which rank replays which of the
 * trace's recorded processes (threads). Every rank reads and dispatches the
 * whole trace, so every rank meets the processes (threads) in the same
 * order and makes the same assignment: an id listed in the --map file goes
 * to its rank, the others to the ranks in turn (round-robin) as they first
 * appear.
 *
 * The map file: one "ID RANK" a line (decimal: a pid with --split=process,
 * a tid with --split=thread), blank lines and lines starting with '#'
 * ignored.
 *
 * Also here: the progress of the ranks' workers (struct rp_progress,
 * run_i.h), which the workers wait on and mpi-xfer.c keeps.
 *
 * Not here: the execution of a share (dispatch.c, worker.c) and the
 * messages between the ranks (mpi-xfer.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/log.h"
#include "run_i.h"

struct rp_share {
	enum rp_split split;
	int rank, nranks;
	struct fstap_map fixed;	/* id + 1 -> rank, from the map */
	struct fstap_map seen;	/* id + 1 -> rank, every id met */
	unsigned next;		/* the round-robin's next rank */
	struct rp_progress *prog;
};

int rp_split_parse(const char *s, enum rp_split *out)
{
	if (!strcmp(s, "clone"))
		*out = RP_SPLIT_CLONE;
	else if (!strcmp(s, "process"))
		*out = RP_SPLIT_PROCESS;
	else if (!strcmp(s, "thread"))
		*out = RP_SPLIT_THREAD;
	else
		return -EINVAL;
	return 0;
}

/* One line of the map (NUL-terminated, no newline) into s->fixed. */
static int map_line(struct rp_share *s, const char *path, unsigned lineno, char *line)
{
	unsigned long long id, rank;
	char *p = line, *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	errno = 0;
	id = strtoull(p, &end, 10);
	if (errno || end == p || (*end != ' ' && *end != '\t') || id > UINT32_MAX)
		goto bad;
	p = end;
	rank = strtoull(p, &end, 10);
	if (errno || end == p)
		goto bad;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (*end)
		goto bad;
	if (rank >= (unsigned long long)s->nranks)
		return fstap_error(-EINVAL, "--map '%s': line %u: rank %llu, but the job has %d "
				   "ranks (0 to %d)", path, lineno, rank, s->nranks, s->nranks - 1);
	if (fstap_map_get(&s->fixed, id + 1))
		return fstap_error(-EINVAL, "--map '%s': line %u: %s %llu listed twice", path,
				   lineno, s->split == RP_SPLIT_THREAD ? "thread" : "process", id);
	if (fstap_map_put(&s->fixed, id + 1, rank))
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	return 0;
bad:
	return fstap_error(-EINVAL, "--map '%s': line %u: expected '%s RANK', not '%.60s'", path,
			   lineno, s->split == RP_SPLIT_THREAD ? "TID" : "PID", line);
}

static int map_load(struct rp_share *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	int ret = 0;

	if (!f)
		return fstap_error(-errno, "--map: cannot open '%s': %s", path, strerror(errno));
	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[len - 1] = 0;
		ret = map_line(s, path, lineno, line);
	}
	if (!ret && ferror(f))
		ret = fstap_error(-EIO, "--map: cannot read '%s'", path);
	free(line);
	fclose(f);
	return ret;
}

int rp_share_new(enum rp_split split, const char *map, int rank, int nranks,
		 struct rp_share **out)
{
	struct rp_share *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	s->split = split;
	s->rank = rank;
	s->nranks = nranks;
	fstap_map_init(&s->fixed);
	fstap_map_init(&s->seen);
	if (map && (ret = map_load(s, map))) {
		rp_share_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void rp_share_free(struct rp_share *s)
{
	if (!s)
		return;
	fstap_map_release(&s->fixed);
	fstap_map_release(&s->seen);
	free(s);
}

int rp_share_owner(struct rp_share *s, const struct fstap_rec *c, int *rank)
{
	uint64_t key = (uint64_t)(s->split == RP_SPLIT_THREAD ? c->tid : c->pid) + 1;
	uint64_t *v = fstap_map_get(&s->seen, key);
	uint64_t k;

	if (v) {
		*rank = (int)*v;
		return 0;
	}
	v = fstap_map_get(&s->fixed, key);
	if (v) {
		k = *v;
	} else {
		k = s->next;
		s->next = (s->next + 1) % (unsigned)s->nranks;
	}
	*rank = (int)k;
	return fstap_map_put(&s->seen, key, k);
}

bool rp_share_mine(const struct rp_share *s, int rank)
{
	return rank == s->rank;
}

void rp_share_set_progress(struct rp_share *s, struct rp_progress *p)
{
	s->prog = p;
}

struct rp_progress *rp_share_progress(const struct rp_share *s)
{
	return s->prog;
}

/* ---- the ranks' progress --------------------------------------------------- */

void rp_progress_init(struct rp_progress *p)
{
	memset(p, 0, sizeof(*p));
	atomic_init(&p->failed, -1);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
}

void rp_progress_destroy(struct rp_progress *p)
{
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
}

void rp_progress_local(struct rp_progress *p, unsigned idx)
{
	if (idx < MAX_WORKERS && idx >= atomic_load(&p->nlocal))
		atomic_store(&p->nlocal, idx + 1);
}

void rp_progress_count(struct rp_progress *p, unsigned idx, uint64_t n)
{
	if (idx < MAX_WORKERS)
		atomic_store_explicit(&p->local[idx], n, memory_order_release);
}

/* Wakes the waiters (they count themselves before they check, under mu). */
static void wake(struct rp_progress *p)
{
	if (atomic_load(&p->waiters)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

void rp_progress_set(struct rp_progress *p, unsigned idx, uint64_t n)
{
	if (idx >= MAX_WORKERS || n <= atomic_load_explicit(&p->remote[idx], memory_order_relaxed))
		return;
	atomic_store(&p->remote[idx], n);
	wake(p);
}

void rp_progress_fail(struct rp_progress *p, int rank)
{
	int none = -1;

	atomic_compare_exchange_strong(&p->failed, &none, rank);
	wake(p);
}

static bool reached(struct rp_progress *p, unsigned idx, uint64_t n)
{
	return atomic_load(&p->remote[idx]) >= n || atomic_load(&p->failed) >= 0;
}

/* Spins this long before it sleeps (a completion usually comes within it). */
#define PROGRESS_SPIN_NS 20000

bool rp_progress_wait(struct rp_progress *p, unsigned idx, uint64_t n)
{
	uint64_t until = fstap_now_ns() + PROGRESS_SPIN_NS;

	if (idx >= MAX_WORKERS)
		return false;
	while (!reached(p, idx, n) && fstap_now_ns() < until)
		sched_yield();
	if (!reached(p, idx, n)) {
		pthread_mutex_lock(&p->mu);
		atomic_fetch_add(&p->waiters, 1);
		while (!reached(p, idx, n))
			pthread_cond_wait(&p->cv, &p->mu);
		atomic_fetch_sub(&p->waiters, 1);
		pthread_mutex_unlock(&p->mu);
	}
	return atomic_load(&p->failed) < 0;
}
