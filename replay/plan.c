/*
 * plan.c: the plan, the dispatched tasks packed ahead of their execution.
 *
 * A replay reads, reorders, classifies and resolves every record before a
 * worker issues it: some microseconds of the dispatcher's work a record,
 * as much as the system call it stands for on a cached file system. Done
 * while the workers run, that work would be part of every candidate's time
 * (on one CPU all of it, on two its hand-offs and cache traffic). So the
 * dispatcher plans ahead: before the run's clock starts it dispatches up
 * to a budget of the trace into streams, and the workers start once the
 * budget is full or the trace ends. A trace within the budget is replayed
 * with the dispatcher idle; a longer one has its first budget planned and
 * the rest dispatched while the workers run, the dispatcher never more
 * than a budget ahead (it waits for the workers to free blocks).
 *
 * A stream is one consumer's tasks in dispatch order: a chain of blocks
 * that the dispatcher appends to and one consumer reads, each task packed
 * as a job (its header, dependencies, resources and paths, then its
 * record's nonzero fields: some 100 bytes against a task's 800) and
 * decoded by the consumer into a task of its own stack. A worker decodes
 * each job while the run's clock runs, so the record is kept in the
 * cheapest form to read back, not the smallest (fstap_rec_pack's): each
 * present 8-byte field whole, found by a mask bit, its place in the record
 * from a table; a record with arrays (readdir's entries) is kept as a
 * clone. The dispatcher
 * publishes a count of jobs (release) after writing them; the consumer
 * reads up to it (acquire), spins a little when it has caught up, then
 * sleeps until the dispatcher wakes it. Blocks the consumer has read go
 * back to the plan's pool, for the dispatcher to fill again (those of the
 * usual size; a stream's first, smaller blocks and a job's own larger one
 * are freed). The budget bounds the bytes not yet read; each stream also
 * keeps the block it reads and the one the dispatcher fills.
 *
 * Not here: what a task is and who consumes a stream (worker.c, run.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fstap/log.h"
#include "run_i.h"

/*
 * A block's room for jobs: a stream's first block is small, and each next
 * one twice the last up to BLOCK_DATA, so that a trace of thousands of
 * short threads does not hold a large block per thread.
 */
#define BLOCK_DATA ((size_t)64 << 10)
#define BLOCK_FIRST ((size_t)2 << 10)

struct plan_block {
	struct plan_block *next;	/* the stream's next block; the pool's next */
	size_t size;			/* bytes of data */
	unsigned char data[];	/* jobs, 8-byte aligned (malloc's alignment) */
};

struct rp_plan {
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a block came back */
	struct plan_block *pool;	/* blocks read, to fill again */
	size_t budget;			/* bytes of jobs not yet read at most (one job may exceed) */
	size_t block_max;		/* a block's room at most: BLOCK_DATA, less for a small budget */
	size_t in_use;			/* bytes of blocks out of the pool */
	size_t peak;			/* the most in_use was */
	bool waiting;			/* the dispatcher waits on cv */
	size_t wanted;			/* the block the plan was last too full for */
	struct rp_stream **streams;	/* every stream (their bytes not yet read) */
	size_t nstreams, capstreams;
};

/*
 * A job's header: its layout, then the block of the task's fields a job
 * carries (struct rp_task, RP_TASK_CARRIED_*), copied whole, then its
 * variable parts.
 */
struct job {
	uint32_t len;		/* bytes to the next job; 0: the stream goes on in the next block */
	uint32_t widx;		/* its worker */
	uint16_t ndeps, path_len, path2_len;	/* a path's length + 1; 0: none */
	uint8_t nres, bits;	/* JOB_*: alone, and which handles follow */
	_Alignas(8) unsigned char carried[RP_TASK_CARRIED_SIZE];
	/* struct rp_dep deps[ndeps], uint64_t res[nres], struct rp_handle *h, h2,
	 * h_stale (those present), path, path2, the packed record */
};

enum { JOB_ALONE = 1, JOB_H = 2, JOB_H2 = 4, JOB_H_STALE = 8 };

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/*
 * A job's record: the fields that are not 8 bytes wide, then a mask of the
 * present 8-byte fields (REC_FIELDS' order) and of the byte strings, then
 * the fields' values, then each string as its length (8 bytes) and its
 * bytes, 8-byte aligned. REC_CLONE in the mask: a clone of the record
 * (FSTAP_CLONE_OP) follows instead.
 */
struct job_rec {
	uint16_t op, flags;
	uint32_t tid, pid, uid, gid;
	uint64_t mask;
};

#define REC_TAIL_FIELDS 31	/* child to cowextsize, one after the other */
#define REC_FIELDS (4 + REC_TAIL_FIELDS)
#define REC_STRINGS 4		/* name, newname, target, value */
#define REC_CLONE (1ull << 63)
_Static_assert(sizeof(struct fstap_rec) == 456, "struct fstap_rec changed: update job_rec");

/*
 * Where each 8-byte field of REC_FIELDS is in struct fstap_rec: a table, as
 * a worker looks one up for every field of every job it decodes.
 */
#define TAIL(i) (offsetof(struct fstap_rec, child) + 8 * (i))
static const uint16_t rec_field_offs[] = {
	offsetof(struct fstap_rec, result), offsetof(struct fstap_rec, obj),
	offsetof(struct fstap_rec, start_ns), offsetof(struct fstap_rec, dur_ns),
	TAIL(0), TAIL(1), TAIL(2), TAIL(3), TAIL(4), TAIL(5), TAIL(6), TAIL(7),
	TAIL(8), TAIL(9), TAIL(10), TAIL(11), TAIL(12), TAIL(13), TAIL(14), TAIL(15),
	TAIL(16), TAIL(17), TAIL(18), TAIL(19), TAIL(20), TAIL(21), TAIL(22), TAIL(23),
	TAIL(24), TAIL(25), TAIL(26), TAIL(27), TAIL(28), TAIL(29), TAIL(30),
};
#undef TAIL
_Static_assert(sizeof(rec_field_offs) / sizeof(rec_field_offs[0]) == REC_FIELDS,
	       "rec_field_offs: a field missing or too many");

/* Where each byte string of REC_STRINGS is in struct fstap_rec. */
static const size_t rec_string_off[REC_STRINGS] = {
	offsetof(struct fstap_rec, name), offsetof(struct fstap_rec, newname),
	offsetof(struct fstap_rec, target), offsetof(struct fstap_rec, value),
};

static struct fstap_bytes *rec_string(struct fstap_rec *r, unsigned k)
{
	return (struct fstap_bytes *)((unsigned char *)r + rec_string_off[k]);
}

static bool rec_has_arrays(const struct fstap_rec *r)
{
	return r->nentries || r->nxattrs || r->nextents || r->xattr_sizes.n;
}

/* The bytes job_rec_put writes for r at most. */
static size_t job_rec_bound(const struct fstap_rec *r)
{
	if (rec_has_arrays(r))	/* (the job's length is rounded up to 8: so is its bound) */
		return sizeof(struct job_rec) + sizeof(*r) +
		       ALIGN8(fstap_rec_clone_size(r, FSTAP_CLONE_OP));
	return sizeof(struct job_rec) + 8 * (REC_FIELDS + REC_STRINGS) +
	       ALIGN8(r->name.len) + ALIGN8(r->newname.len) + ALIGN8(r->target.len) +
	       ALIGN8(r->value.len);
}

/* Writes r at dst (8-byte aligned); returns the bytes written. */
static size_t job_rec_put(unsigned char *dst, const struct fstap_rec *r)
{
	struct job_rec *h = (struct job_rec *)dst;
	uint64_t *v = (uint64_t *)(h + 1);
	unsigned char *q;
	unsigned bit, k;

	*h = (struct job_rec){ r->op, r->flags, r->tid, r->pid, r->uid, r->gid, 0 };
	if (rec_has_arrays(r)) {
		struct fstap_rec *c = (struct fstap_rec *)(h + 1);

		h->mask = REC_CLONE;
		fstap_rec_clone_into(c, c + 1, r, FSTAP_CLONE_OP);
		return sizeof(*h) + sizeof(*c) + fstap_rec_clone_size(r, FSTAP_CLONE_OP);
	}
	for (bit = 0; bit < REC_FIELDS; bit++) {
		uint64_t x;

		memcpy(&x, (const unsigned char *)r + rec_field_offs[bit], sizeof(x));
		if (x) {
			h->mask |= 1ull << bit;
			*v++ = x;
		}
	}
	q = (unsigned char *)v;
	for (k = 0; k < REC_STRINGS; k++) {
		const struct fstap_bytes *b = rec_string((struct fstap_rec *)(uintptr_t)r, k);
		uint64_t len = b->len;

		if (!len)
			continue;
		h->mask |= 1ull << (REC_FIELDS + k);
		memcpy(q, &len, sizeof(len));
		memcpy(q + sizeof(len), b->ptr, b->len);
		q += sizeof(len) + ALIGN8(b->len);
	}
	return (size_t)(q - dst);
}

/*
 * Reads the record job_rec_put wrote at src into *r, its strings pointing
 * into src. *last is the mask of the record *r held (0 for a cleared one):
 * only the fields it had and this one has not are cleared, not the whole
 * record, since a worker decodes every job while the clock runs.
 */
static void job_rec_get(struct fstap_rec *r, const unsigned char *src, uint64_t *last)
{
	const struct job_rec *h = (const struct job_rec *)src;
	const uint64_t *v = (const uint64_t *)(h + 1);
	const unsigned char *q;
	uint64_t m;

	if (h->mask == REC_CLONE) {
		*r = *(const struct fstap_rec *)(h + 1);
		*last = REC_CLONE;
		return;
	}
	if (*last == REC_CLONE) {
		memset(r, 0, sizeof(*r));
	} else {
		for (m = *last & ~h->mask & ((1ull << REC_FIELDS) - 1); m; m &= m - 1)
			memset((unsigned char *)r + rec_field_offs[__builtin_ctzll(m)], 0, 8);
		for (m = (*last & ~h->mask) >> REC_FIELDS; m; m &= m - 1)
			*rec_string(r, (unsigned)__builtin_ctzll(m)) = (struct fstap_bytes){ NULL, 0 };
	}
	*last = h->mask;
	r->op = h->op;
	r->flags = h->flags;
	r->tid = h->tid;
	r->pid = h->pid;
	r->uid = h->uid;
	r->gid = h->gid;
	for (m = h->mask & ((1ull << REC_FIELDS) - 1); m; m &= m - 1)
		memcpy((unsigned char *)r + rec_field_offs[__builtin_ctzll(m)], v++, 8);
	q = (const unsigned char *)v;
	for (m = h->mask >> REC_FIELDS; m; m &= m - 1) {
		uint64_t len;

		memcpy(&len, q, sizeof(len));
		*rec_string(r, (unsigned)__builtin_ctzll(m)) =
			(struct fstap_bytes){ q + sizeof(len), (uint32_t)len };
		q += sizeof(len) + ALIGN8(len);
	}
}

int rp_plan_new(size_t budget, struct rp_plan **out)
{
	struct rp_plan *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->budget = budget;
	p->block_max = budget / 8 < BLOCK_FIRST ? BLOCK_FIRST
		       : budget / 8 < BLOCK_DATA ? budget / 8 : BLOCK_DATA;
	*out = p;
	return 0;
}

void rp_plan_free(struct rp_plan *p)
{
	if (!p)
		return;
	while (p->pool) {
		struct plan_block *b = p->pool;

		p->pool = b->next;
		free(b);
	}
	free(p->streams);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}

int rp_plan_add_stream(struct rp_plan *p, struct rp_stream *s)
{
	if (FSTAP_GROW(p->streams, p->nstreams + 1, p->capstreams))
		return -ENOMEM;
	p->streams[p->nstreams++] = s;
	return 0;
}

void rp_plan_remove_stream(struct rp_plan *p, struct rp_stream *s)
{
	size_t i;

	for (i = 0; i < p->nstreams; i++)
		if (p->streams[i] == s) {
			p->streams[i] = p->streams[--p->nstreams];
			return;
		}
}

/*
 * The bytes of jobs written and not yet read, in every stream. A block is
 * counted in in_use until its consumer has read past it, and the block a
 * consumer has read to its end stays with it while it is its stream's
 * last: with many streams, in_use alone could stay at the budget with
 * nothing left to read, and the dispatcher would wait for ever. The budget
 * bounds what is not yet read; the memory is that, and at most the last
 * block or two of each stream.
 */
static size_t plan_unread(const struct rp_plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nstreams; i++)
		n += p->streams[i]->wbytes - atomic_load_explicit(&p->streams[i]->rbytes,
								  memory_order_relaxed);
	return n;
}

/*
 * Whether a block of size bytes would take the plan over its budget (mu
 * held). With nothing left to read, any block is let in (a job larger than
 * the budget).
 */
static bool plan_full(const struct rp_plan *p, size_t size)
{
	size_t unread;

	if (!p->in_use || p->in_use + size <= p->budget)
		return false;
	unread = plan_unread(p);
	return unread && unread + size > p->budget;
}

size_t rp_plan_peak(const struct rp_plan *p)
{
	return p->peak;
}

void rp_stream_init(struct rp_stream *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
}

/* Frees the blocks s still holds (the plan counts them no more, if p) and its lock. */
void rp_stream_release(struct rp_plan *p, struct rp_stream *s)
{
	struct plan_block *b = s->rblock ? s->rblock : s->head;

	while (b) {
		struct plan_block *next = b->next;

		if (p)
			p->in_use -= b->size;
		free(b);
		b = next;
	}
	s->head = s->tail = s->rblock = NULL;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
}

/*
 * A block of at least need bytes, from the pool if it has one that large;
 * NULL when it would take the plan over its budget (full: *full set) or on
 * -ENOMEM.
 */
static struct plan_block *block_get(struct rp_plan *p, size_t want, size_t need, bool *full)
{
	size_t size = need > want ? need : want;
	struct plan_block *b = NULL;

	pthread_mutex_lock(&p->mu);
	if (plan_full(p, size)) {
		p->wanted = size;
		*full = true;
		pthread_mutex_unlock(&p->mu);
		return NULL;
	}
	if (size == p->block_max && p->pool) {
		b = p->pool;
		p->pool = b->next;
	}
	p->in_use += size;
	if (p->in_use > p->peak)
		p->peak = p->in_use;
	pthread_mutex_unlock(&p->mu);
	if (!b && !(b = malloc(sizeof(*b) + size))) {
		pthread_mutex_lock(&p->mu);
		p->in_use -= size;
		pthread_mutex_unlock(&p->mu);
		return NULL;
	}
	b->next = NULL;
	b->size = size;
	return b;
}

static void block_put(struct rp_plan *p, struct plan_block *b)
{
	pthread_mutex_lock(&p->mu);
	p->in_use -= b->size;
	if (b->size == p->block_max) {
		b->next = p->pool;
		p->pool = b;
	} else {
		free(b);
	}
	if (p->waiting)
		pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

bool rp_plan_over(struct rp_plan *p, size_t frac)
{
	bool over;

	pthread_mutex_lock(&p->mu);
	over = p->in_use > p->budget / frac;
	pthread_mutex_unlock(&p->mu);
	return over;
}

/*
 * A consumer that returns a block, or has read all its stream holds and
 * sleeps, wakes the waiting dispatcher; a consumer's reading within its
 * last block wakes no one, so the wait also looks again every
 * millisecond.
 */
void rp_plan_wait(struct rp_plan *p)
{
	pthread_mutex_lock(&p->mu);
	p->waiting = true;
	while (plan_full(p, p->wanted > p->block_max ? p->wanted : p->block_max)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
	}
	p->waiting = false;
	pthread_mutex_unlock(&p->mu);
}

/* A consumer has read all its stream holds: the dispatcher may be waiting for that. */
static void plan_poke(struct rp_plan *p)
{
	pthread_mutex_lock(&p->mu);
	if (p->waiting)
		pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* The bytes of t's job, record packed at its most. */
static size_t job_bound(const struct rp_task *t)
{
	size_t n = sizeof(struct job) + t->ndeps * sizeof(struct rp_dep) +
		   t->nres * sizeof(uint64_t) +
		   (!!t->h + !!t->h2 + !!t->h_stale) * sizeof(struct rp_handle *);

	n += (t->path ? strlen(t->path) + 1 : 0) + (t->path2 ? strlen(t->path2) + 1 : 0);
	return ALIGN8(n) + job_rec_bound(&t->rec);
}

/* Writes h (if any) at *q, as which of the job's handles; *q moves past it. */
static void job_handle_put(struct job *j, unsigned char **q, uint8_t which, struct rp_handle *h)
{
	if (!h)
		return;
	memcpy(*q, &h, sizeof(h));
	*q += sizeof(h);
	j->bits |= which;
}

int rp_stream_put(struct rp_plan *p, struct rp_stream *s, const struct rp_task *t,
		  unsigned widx, bool alone)
{
	size_t bound = job_bound(t), off;
	struct plan_block *b;
	struct job *j;
	unsigned char *q;
	bool full = false;

	if (!s->tail || s->wpos + bound + sizeof(uint32_t) > s->tail->size) {
		size_t want = s->tail ? 2 * s->tail->size : BLOCK_FIRST;

		if (!(b = block_get(p, want < p->block_max ? want : p->block_max,
				    bound + sizeof(uint32_t), &full)))
			return full ? -EAGAIN : -ENOMEM;
		if (s->tail) {
			uint32_t end = 0;	/* the stream goes on in b */

			memcpy(s->tail->data + s->wpos, &end, sizeof(end));
			s->tail->next = b;
		} else {
			s->head = b;	/* the consumer starts here (published below) */
		}
		s->tail = b;
		s->wpos = 0;
	}
	j = (struct job *)(s->tail->data + s->wpos);
	*j = (struct job){
		.widx = widx, .ndeps = (uint16_t)t->ndeps, .nres = (uint8_t)t->nres,
		.bits = alone ? JOB_ALONE : 0,
	};
	memcpy(j->carried, (const unsigned char *)t + RP_TASK_CARRIED_OFF, RP_TASK_CARRIED_SIZE);
	q = (unsigned char *)(j + 1);
	memcpy(q, t->deps, t->ndeps * sizeof(struct rp_dep));
	q += t->ndeps * sizeof(struct rp_dep);
	memcpy(q, t->res, t->nres * sizeof(uint64_t));
	q += t->nres * sizeof(uint64_t);
	job_handle_put(j, &q, JOB_H, t->h);
	job_handle_put(j, &q, JOB_H2, t->h2);
	job_handle_put(j, &q, JOB_H_STALE, t->h_stale);
	if (t->path) {
		j->path_len = (uint16_t)(strlen(t->path) + 1);
		memcpy(q, t->path, j->path_len);
		q += j->path_len;
	}
	if (t->path2) {
		j->path2_len = (uint16_t)(strlen(t->path2) + 1);
		memcpy(q, t->path2, j->path2_len);
		q += j->path2_len;
	}
	off = ALIGN8((size_t)(q - (unsigned char *)j));
	off += job_rec_put((unsigned char *)j + off, &t->rec);
	j->len = (uint32_t)ALIGN8(off);
	if (j->len > bound)
		BUG("a job longer than its bound");	/* the marker after it would not fit */
	s->wpos += j->len;
	s->wbytes += j->len;
	s->planned++;
	/* the job is written: the consumer may read it (seq_cst: see rp_stream_next) */
	atomic_store(&s->published, s->planned);
	if (atomic_load(&s->sleeping)) {
		pthread_mutex_lock(&s->mu);
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return 0;
}

void rp_stream_close(struct rp_stream *s)
{
	pthread_mutex_lock(&s->mu);
	atomic_store(&s->closed, true);
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* Whether a job is published that the consumer has not read. */
static bool stream_has(struct rp_stream *s)
{
	return atomic_load(&s->published) > s->taken;
}

bool rp_stream_ready(struct rp_stream *s)
{
	return stream_has(s);
}

/*
 * Waits until s has a job to read or is closed; whether it has one. The
 * consumer says it sleeps, then looks again, and the dispatcher publishes,
 * then looks whether it sleeps (all sequentially consistent): one of the
 * two sees the other, so no job is left unread behind a sleep.
 */
static bool stream_wait(struct rp_plan *p, struct rp_stream *s)
{
	uint64_t until = 0;

	while (!stream_has(s) && !atomic_load(&s->closed) && rp_spin(&until))
		;
	if (stream_has(s))
		return true;
	plan_poke(p);
	pthread_mutex_lock(&s->mu);
	atomic_store(&s->sleeping, true);
	while (!stream_has(s) && !atomic_load(&s->closed))
		pthread_cond_wait(&s->cv, &s->mu);
	atomic_store(&s->sleeping, false);
	pthread_mutex_unlock(&s->mu);
	return stream_has(s);
}

bool rp_stream_next(struct rp_plan *p, struct rp_stream *s, bool wait, struct rp_task *t,
		    unsigned *widx, bool *alone)
{
	const unsigned char *q;
	const struct job *j;
	uint32_t len;

	if (wait ? !stream_wait(p, s) : !stream_has(s))
		return false;
	if (!s->rblock)
		s->rblock = s->head;
	if (s->rpos + sizeof(len) > s->rblock->size)
		len = 0;	/* (a job always leaves room for the marker: not reached) */
	else
		memcpy(&len, s->rblock->data + s->rpos, sizeof(len));
	if (!len) {
		struct plan_block *done = s->rblock;

		s->rblock = done->next;
		s->rpos = 0;
		block_put(p, done);
	}
	j = (const struct job *)(s->rblock->data + s->rpos);
	s->rpos += j->len;
	s->taken++;
	atomic_store_explicit(&s->rbytes, atomic_load_explicit(&s->rbytes, memory_order_relaxed) +
			      j->len, memory_order_relaxed);
	/* what workers and executors read of a task (see struct rp_task) */
	t->path = t->path2 = NULL;
	q = (const unsigned char *)(j + 1);
	t->ndeps = j->ndeps;
	t->deps = (struct rp_dep *)(uintptr_t)q;	/* read only: the executor's */
	q += j->ndeps * sizeof(struct rp_dep);
	t->nres = j->nres;
	if (j->nres) {
		memcpy(t->res, q, j->nres * sizeof(uint64_t));
		q += j->nres * sizeof(uint64_t);
	}
	t->h = t->h2 = t->h_stale = NULL;
	if (j->bits & (JOB_H | JOB_H2 | JOB_H_STALE)) {
		if (j->bits & JOB_H) {
			memcpy(&t->h, q, sizeof(t->h));
			q += sizeof(t->h);
		}
		if (j->bits & JOB_H2) {
			memcpy(&t->h2, q, sizeof(t->h2));
			q += sizeof(t->h2);
		}
		if (j->bits & JOB_H_STALE) {
			memcpy(&t->h_stale, q, sizeof(t->h_stale));
			q += sizeof(t->h_stale);
		}
	}
	if (j->path_len) {
		t->path = (const char *)q;
		q += j->path_len;
	}
	if (j->path2_len) {
		t->path2 = (const char *)q;
		q += j->path2_len;
	}
	memcpy((unsigned char *)t + RP_TASK_CARRIED_OFF, j->carried, RP_TASK_CARRIED_SIZE);
	q = (const unsigned char *)j + ALIGN8((size_t)(q - (const unsigned char *)j));
	job_rec_get(&t->rec, q, &s->rmask);
	*widx = j->widx;
	*alone = j->bits & JOB_ALONE;
	return true;
}
