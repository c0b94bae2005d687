/*
 * recbuf.c: the recorder's side of the trace: per-thread chunks, a pool of
 * preallocated chunks, and the writer thread.
 *
 * A request thread encodes its record into its own chunk (no lock held by
 * anyone else except the writer's periodic flush, no allocation, no
 * formatting). A full chunk goes to the writer's queue and the thread takes
 * a free one from the pool; when the pool is empty the record is dropped and
 * counted, and the writer notes the loss in the trace (a LOSS record and the
 * footer's count). The writer writes queued chunks, turns partial chunks
 * older than flush_ms into chunks so that a crash loses little, and writes
 * the process records.
 *
 * Processes: the kernel gives the requesting thread's id. The first request
 * of a thread reads /proc/TID/status once to learn its process (the only
 * /proc read on a request path, once per thread); the writer thread then
 * reads the process's name and command line and writes a PROCESS record,
 * once per process. Thread and process ids are reused (pid_max is 32768 on
 * a small machine), so the writer checks once per flush interval that each
 * thread it knows still belongs to its process (tgkill with signal 0) and
 * forgets those that do not; a new process with an old pid then gets its
 * own PROCESS record. A thread that exits and whose id is reused by another
 * process within the interval is credited to the old process until then.
 *
 * Watermarks: each flush pass notes the time T before it takes the partial
 * chunks, and once those are written, writes a watermark record with the
 * time of the previous pass. A record that ended before the previous pass
 * began was added to its thread's chunk before this pass took it (the gap
 * between a request's end time and recbuf_add is the reply, microseconds,
 * far less than a flush interval), so every record that ended before the
 * watermark is in the file before it: a reader of a torn trace cuts there
 * (docs/trace-format.md). Only a thread stalled for a whole flush interval
 * between its reply and recbuf_add could break this. The crash flush writes
 * the pending watermark when it could reach every thread's chunk.
 *
 * Crash: the crash handler (fstap_crash_set_hook) calls recbuf_crash_flush,
 * which tells the request threads to stop after the record at hand (so that
 * every reply the application got is in a chunk) and asks the writer to
 * write what it can reach without waiting for a lock (queued chunks, then
 * every thread's partial chunk whose lock is free); it waits for that at
 * most 2 s, then the process dies.
 *
 * Lock order: a thread's lock, then rb->lock. The writer never holds both.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fstap/crash.h"
#include "fstap/trace.h"
#include "record/record_i.h"

#define PID_LIMIT 4194304u	/* PID_MAX_LIMIT on 64-bit Linux */
#define PIDQ_MAX 4096
#define CRASH_POLL_MS 100	/* the writer answers a crash within this */
#define CRASH_WAIT_MS 2000	/* the crashing thread waits at most this for it */
#define CRASH_SETTLE_MS 50	/* for the request threads to stop after a crash */

struct chunk {
	struct chunk *next;	/* free list or queue; rb->lock */
	uint8_t *buf;
	struct fstap_chunk_enc enc;
};

/* One request thread's state. Never freed until recbuf_stop: reused. */
struct rthread {
	struct rthread *next;	/* list of all; append only, rb->lock to append */
	pthread_mutex_t lock;	/* cur; the owner thread and the writer's flush */
	struct chunk *cur;	/* lock */
	atomic_bool in_use;
	struct recbuf *rb;
};

/* A thread seen for the first time, for the writer (new_process: write its PROCESS record). */
struct pidq_ent {
	uint32_t tid, pid, ppid;
	bool new_process;
	uint64_t time_ns;
	char comm[16];
};

/* A thread the writer knows, to forget it when it is gone. */
struct known_tid {
	uint32_t tid, pid;
};

enum { CRASH_NONE, CRASH_FLUSH, CRASH_DONE };

struct recbuf {
	struct fstap_writer *w;
	uint64_t start_mono;
	size_t chunk_size;
	unsigned flush_ms;

	pthread_t thread;
	pthread_key_t key;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;				/* lock */
	struct chunk *free;			/* lock */
	struct chunk *qhead, *qtail;		/* lock */
	struct pidq_ent pidq[PIDQ_MAX];		/* lock */
	unsigned npidq;				/* lock */
	_Atomic(struct rthread *) threads;

	struct chunk *pool;
	unsigned nchunks;

	atomic_ullong lost, added;
	uint64_t lost_noted;			/* writer thread only */
	uint64_t pass_ns;			/* writer thread only: start of the last pass */
	int werr;				/* writer thread only: first write error */

	_Atomic uint32_t *tid2pid;		/* PID_LIMIT entries, 0 = unknown */
	atomic_ulong *pid_seen;			/* bitmap of processes recorded */
	struct known_tid *known;		/* writer thread only */
	size_t nknown, known_cap;		/* writer thread only */

	atomic_int crash;			/* CRASH_* */
	atomic_int writer_tid;
};

static uint64_t rel_now(const struct recbuf *rb)
{
	return fstap_now_ns() - rb->start_mono;
}

/* ---- chunks ------------------------------------------------------------- */

static struct chunk *chunk_take(struct recbuf *rb)
{
	struct chunk *c;

	pthread_mutex_lock(&rb->lock);
	c = rb->free;
	if (c)
		rb->free = c->next;
	pthread_mutex_unlock(&rb->lock);
	if (c)
		fstap_chunk_enc_init(&c->enc, c->buf, rb->chunk_size + FSTAP_CHUNK_HEADER_SIZE,
				     rel_now(rb));
	return c;
}

static void chunk_queue(struct recbuf *rb, struct chunk *c)
{
	c->next = NULL;
	pthread_mutex_lock(&rb->lock);
	if (rb->qtail)
		rb->qtail->next = c;
	else
		rb->qhead = c;
	rb->qtail = c;
	pthread_cond_signal(&rb->cond);
	pthread_mutex_unlock(&rb->lock);
}

/* Takes the queue of full chunks (NULL if empty). Lock held. */
static struct chunk *queue_take(struct recbuf *rb)
{
	struct chunk *q = rb->qhead;

	rb->qhead = rb->qtail = NULL;
	return q;
}

/* Hands the thread's chunk to the writer if it holds records. Thread lock held. */
static struct chunk *detach(struct rthread *t)
{
	struct chunk *c = t->cur;

	if (c && c->enc.nrec > 0) {
		t->cur = NULL;
		return c;
	}
	return NULL;
}

static void thread_exit(void *arg)
{
	struct rthread *t = arg;
	struct chunk *c;

	pthread_mutex_lock(&t->lock);
	c = detach(t);
	pthread_mutex_unlock(&t->lock);
	if (c)
		chunk_queue(t->rb, c);
	atomic_store(&t->in_use, false);
	fstap_crash_thread_exit();
}

static struct rthread *thread_get(struct recbuf *rb)
{
	struct rthread *t = pthread_getspecific(rb->key);

	if (t)
		return t;
	for (t = atomic_load(&rb->threads); t; t = t->next) {
		bool expect = false;

		if (atomic_compare_exchange_strong(&t->in_use, &expect, true))
			break;
	}
	fstap_crash_thread_init();	/* once per thread: its overflow reports too */
	if (!t) {
		t = calloc(1, sizeof(*t));	/* once per thread, not per request */
		if (!t)
			return NULL;
		pthread_mutex_init(&t->lock, NULL);
		t->rb = rb;
		atomic_init(&t->in_use, true);
		pthread_mutex_lock(&rb->lock);
		t->next = atomic_load(&rb->threads);
		atomic_store(&rb->threads, t);
		pthread_mutex_unlock(&rb->lock);
	}
	pthread_setspecific(rb->key, t);
	return t;
}

void recbuf_add(struct recbuf *rb, const struct fstap_rec *rec)
{
	struct rthread *t = thread_get(rb);
	struct chunk *full = NULL;
	int ret = -ENOSPC;

	if (!t) {
		atomic_fetch_add(&rb->lost, 1);
		return;
	}
	pthread_mutex_lock(&t->lock);
	if (t->cur)
		ret = fstap_chunk_enc_add(&t->cur->enc, rec);
	if (ret == -ENOSPC) {
		full = detach(t);
		if (full) {
			chunk_queue(rb, full);
		}
		if (!t->cur)
			t->cur = chunk_take(rb);
		ret = t->cur ? fstap_chunk_enc_add(&t->cur->enc, rec) : -ENOBUFS;
	}
	pthread_mutex_unlock(&t->lock);
	if (ret < 0)
		atomic_fetch_add(&rb->lost, 1);
	else
		atomic_fetch_add_explicit(&rb->added, 1, memory_order_relaxed);
	/* the process is crashing: serve no more, so that every reply is saved */
	if (atomic_load_explicit(&rb->crash, memory_order_relaxed) != CRASH_NONE)
		for (;;)
			pause();
}

/* ---- processes ---------------------------------------------------------- */

/* Reads "Name:", "Tgid:" and "PPid:" of /proc/TID/status. */
static int read_status(uint32_t tid, uint32_t *tgid, uint32_t *ppid, char comm[16])
{
	char path[48], buf[2048], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	if (!strncmp(buf, "Name:\t", 6)) {
		size_t i;

		for (i = 0, p = buf + 6; i < 15 && *p && *p != '\n'; i++)
			comm[i] = *p++;
		comm[i] = '\0';
	}
	p = strstr(buf, "\nTgid:\t");
	if (!p)
		return -EIO;
	*tgid = (uint32_t)strtoul(p + 7, NULL, 10);
	p = strstr(buf, "\nPPid:\t");
	*ppid = p ? (uint32_t)strtoul(p + 7, NULL, 10) : 0;
	return 0;
}

#define PID_SEEN_BITS (8 * sizeof(unsigned long))

/* Marks process PID recorded; true if it was not yet (write its PROCESS record). */
static bool pid_mark_seen(struct recbuf *rb, uint32_t pid)
{
	unsigned long bit = 1ul << (pid % PID_SEEN_BITS);

	return !(atomic_fetch_or(&rb->pid_seen[pid / PID_SEEN_BITS], bit) & bit);
}

/* Forgets process PID: an id used again is a new process. */
static void pid_forget(struct recbuf *rb, uint32_t pid)
{
	unsigned long bit = 1ul << (pid % PID_SEEN_BITS);

	atomic_fetch_and(&rb->pid_seen[pid / PID_SEEN_BITS], ~bit);
}

uint32_t recbuf_pid_of(struct recbuf *rb, uint32_t tid)
{
	uint32_t pid, ppid = 0;
	char comm[16] = "";
	bool new_process;

	if (tid == 0 || tid >= PID_LIMIT)
		return tid;
	pid = atomic_load_explicit(&rb->tid2pid[tid], memory_order_relaxed);
	if (pid)
		return pid;
	if (read_status(tid, &pid, &ppid, comm) < 0 || pid == 0 || pid >= PID_LIMIT)
		pid = tid;	/* gone already: its own process, as far as we know */
	atomic_store_explicit(&rb->tid2pid[tid], pid, memory_order_relaxed);
	new_process = pid_mark_seen(rb, pid);
	pthread_mutex_lock(&rb->lock);
	if (rb->npidq < PIDQ_MAX) {
		struct pidq_ent *e = &rb->pidq[rb->npidq++];

		e->tid = tid;
		e->pid = pid;
		e->ppid = ppid;
		e->new_process = new_process;
		e->time_ns = rel_now(rb);
		memcpy(e->comm, comm, sizeof(e->comm));
	}
	pthread_cond_signal(&rb->cond);
	pthread_mutex_unlock(&rb->lock);
	return pid;
}

/* The writer learns a new thread: it will check later that it still lives. */
static void know_thread(struct recbuf *rb, uint32_t tid, uint32_t pid)
{
	if (FSTAP_GROW(rb->known, rb->nknown + 1, rb->known_cap))
		return;	/* not checked: its id keeps its process until the end */
	rb->known[rb->nknown++] = (struct known_tid){ tid, pid };
}

/*
 * Forgets the threads that are gone or whose id now belongs to another
 * process, and the processes that are gone, so that their ids are resolved
 * again when they reappear. Writer thread, once per flush interval.
 */
static void forget_exited(struct recbuf *rb)
{
	size_t i = 0;

	while (i < rb->nknown) {
		struct known_tid k = rb->known[i];

		if (syscall(SYS_tgkill, (pid_t)k.pid, (pid_t)k.tid, 0) == 0 || errno != ESRCH) {
			i++;
			continue;
		}
		atomic_store_explicit(&rb->tid2pid[k.tid], 0, memory_order_relaxed);
		if (kill((pid_t)k.pid, 0) < 0 && errno == ESRCH)
			pid_forget(rb, k.pid);
		rb->known[i] = rb->known[--rb->nknown];
	}
}

/* Reads a small /proc file into buf; returns its length (0 if unreadable). */
static size_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (len < size && (n = read(fd, buf + len, size - len)) > 0)
		len += (size_t)n;
	close(fd);
	return len;
}

static void write_process(struct recbuf *rb, const struct pidq_ent *e)
{
	char path[48], comm[64], cmdline[4096];
	struct fstap_rec r;
	size_t n;

	memset(&r, 0, sizeof(r));
	r.op = FSTAP_OP_PROCESS;
	r.pid = e->pid;
	r.ppid = e->ppid;
	r.time_ns = e->time_ns;
	snprintf(path, sizeof(path), "/proc/%u/comm", e->pid);
	n = read_small(path, comm, sizeof(comm));
	while (n && comm[n - 1] == '\n')
		n--;
	if (!n) {
		n = strlen(e->comm);
		memcpy(comm, e->comm, n);
	}
	r.comm.ptr = (const uint8_t *)comm;
	r.comm.len = (uint32_t)n;
	snprintf(path, sizeof(path), "/proc/%u/cmdline", e->pid);
	n = read_small(path, cmdline, sizeof(cmdline));
	while (n && cmdline[n - 1] == '\0')
		n--;
	r.cmdline.ptr = (const uint8_t *)cmdline;
	r.cmdline.len = (uint32_t)n;
	if (fstap_writer_add(rb->w, &r) < 0 && !rb->werr)
		rb->werr = -EIO;
}

/* ---- the writer thread -------------------------------------------------- */

static void put_chunk(struct recbuf *rb, struct chunk *c)
{
	int ret;

	fstap_chunk_enc_finish(&c->enc, 0);
	ret = fstap_writer_put_chunk(rb->w, &c->enc);
	if (ret < 0) {
		/* the disk is full or failing: the records are lost, counted */
		atomic_fetch_add(&rb->lost, c->enc.nops);
		if (!rb->werr)
			rb->werr = ret;
	}
}

static void note_losses(struct recbuf *rb)
{
	uint64_t lost = atomic_load(&rb->lost);

	if (lost > rb->lost_noted) {
		struct fstap_rec r;

		memset(&r, 0, sizeof(r));
		r.op = FSTAP_OP_LOSS;
		r.time_ns = rel_now(rb);
		r.lost = lost - rb->lost_noted;
		fstap_writer_count_lost(rb->w, lost - rb->lost_noted);
		fstap_writer_add(rb->w, &r);
		rb->lost_noted = lost;
	}
}

/* Takes partial chunks from the request threads. */
static void collect_partial(struct recbuf *rb)
{
	struct rthread *t;

	for (t = atomic_load(&rb->threads); t; t = t->next) {
		struct chunk *c;

		pthread_mutex_lock(&t->lock);
		c = detach(t);
		pthread_mutex_unlock(&t->lock);
		if (c)
			chunk_queue(rb, c);
	}
}

/*
 * After a crash elsewhere in the process: writes what can be reached without
 * waiting for a lock the crashed thread may hold. Writer thread.
 */
static void crash_flush(struct recbuf *rb)
{
	struct chunk *q = NULL;
	struct rthread *t;
	bool reached_all;
	int tries;

	for (tries = 0; tries < 10; tries++) {
		if (pthread_mutex_trylock(&rb->lock) == 0) {
			q = queue_take(rb);
			pthread_mutex_unlock(&rb->lock);
			break;
		}
		usleep(1000);
	}
	reached_all = tries < 10;
	for (; q; q = q->next)
		put_chunk(rb, q);
	for (t = atomic_load(&rb->threads); t; t = t->next) {
		struct chunk *c;

		if (pthread_mutex_trylock(&t->lock) != 0) {
			reached_all = false;
			continue;
		}
		c = detach(t);
		pthread_mutex_unlock(&t->lock);
		if (c)
			put_chunk(rb, c);
	}
	note_losses(rb);
	if (reached_all && rb->pass_ns)
		fstap_writer_watermark(rb->w, rb->pass_ns);
	fstap_writer_flush(rb->w);
}

void recbuf_crash_flush(struct recbuf *rb)
{
	uint64_t deadline;

	if (!rb || (int)syscall(SYS_gettid) == atomic_load(&rb->writer_tid))
		return;		/* the writer itself crashed: nobody can write */
	atomic_store(&rb->crash, CRASH_FLUSH);
	/*
	 * Spin rather than sleep: the other threads go on serving until the
	 * process dies, and what they add after the writer's pass is lost.
	 */
	deadline = fstap_now_ns() + CRASH_WAIT_MS * 1000000ull;
	while (atomic_load(&rb->crash) != CRASH_DONE && fstap_now_ns() < deadline)
		sched_yield();
}

/* Writes the chunks of q in order and returns each to the free list. */
static void write_queue(struct recbuf *rb, struct chunk *q)
{
	while (q) {
		struct chunk *next = q->next;

		put_chunk(rb, q);
		pthread_mutex_lock(&rb->lock);
		q->next = rb->free;
		rb->free = q;
		pthread_mutex_unlock(&rb->lock);
		q = next;
	}
}

/* Takes up to max new threads from the pid queue into pq; their number. Lock held. */
static unsigned pidq_take(struct recbuf *rb, struct pidq_ent *pq, unsigned max)
{
	unsigned n = rb->npidq < max ? rb->npidq : max;

	memcpy(pq, rb->pidq, n * sizeof(pq[0]));
	memmove(rb->pidq, rb->pidq + n, (rb->npidq - n) * sizeof(pq[0]));
	rb->npidq -= n;
	return n;
}

/*
 * Every flush interval (and at the end): the request threads' partial
 * chunks, the losses, the exited threads; then the watermark of the pass
 * before (every record that started before it is written now) and a
 * flush to the file.
 */
static void flush_pass(struct recbuf *rb)
{
	uint64_t pass_ns = rel_now(rb);
	struct chunk *q;

	collect_partial(rb);
	note_losses(rb);
	forget_exited(rb);
	pthread_mutex_lock(&rb->lock);
	q = queue_take(rb);
	pthread_mutex_unlock(&rb->lock);
	write_queue(rb, q);
	note_losses(rb);
	if (rb->pass_ns && fstap_writer_watermark(rb->w, rb->pass_ns) < 0 && !rb->werr)
		rb->werr = -EIO;
	rb->pass_ns = pass_ns;
	if (fstap_writer_flush(rb->w) < 0 && !rb->werr)
		rb->werr = -EIO;
}

/* After a crash elsewhere: writes what it can reach, then waits for the end. */
static void __attribute__((noreturn)) answer_crash(struct recbuf *rb)
{
	/* the request threads finish the request at hand and stop */
	usleep(CRASH_SETTLE_MS * 1000);
	crash_flush(rb);
	atomic_store(&rb->crash, CRASH_DONE);
	for (;;)
		pause();	/* the process is dying: write nothing more */
}

static void *writer_main(void *arg)
{
	struct recbuf *rb = arg;
	uint64_t last_flush = fstap_now_ns();

	atomic_store(&rb->writer_tid, (int)syscall(SYS_gettid));
	fstap_crash_thread_init();

	pthread_mutex_lock(&rb->lock);
	for (;;) {
		struct chunk *q;
		struct pidq_ent pq[64];
		unsigned npq, i;
		bool stopping;

		if (!rb->qhead && !rb->npidq && !rb->stop) {
			/* wakes at least every CRASH_POLL_MS to answer a crash */
			struct timespec ts;

			fstap_deadline_ms(&ts, rb->flush_ms < CRASH_POLL_MS ? rb->flush_ms : CRASH_POLL_MS);
			pthread_cond_timedwait(&rb->cond, &rb->lock, &ts);
		}
		if (atomic_load(&rb->crash) == CRASH_FLUSH) {
			pthread_mutex_unlock(&rb->lock);
			answer_crash(rb);
		}
		q = queue_take(rb);
		npq = pidq_take(rb, pq, ARRAY_SIZE(pq));
		stopping = rb->stop;
		pthread_mutex_unlock(&rb->lock);

		for (i = 0; i < npq; i++) {
			know_thread(rb, pq[i].tid, pq[i].pid);
			if (pq[i].new_process)
				write_process(rb, &pq[i]);
		}
		write_queue(rb, q);
		if (stopping || fstap_now_ns() - last_flush >= rb->flush_ms * 1000000ull) {
			flush_pass(rb);
			last_flush = fstap_now_ns();
		}
		pthread_mutex_lock(&rb->lock);
		if (stopping && !rb->qhead && !rb->npidq)
			break;
	}
	pthread_mutex_unlock(&rb->lock);
	return NULL;
}

/* ---- lifecycle ---------------------------------------------------------- */

static void recbuf_free(struct recbuf *rb)
{
	struct rthread *t, *next;
	unsigned i;

	for (t = atomic_load(&rb->threads); t; t = next) {
		next = t->next;
		pthread_mutex_destroy(&t->lock);
		free(t);
	}
	if (rb->pool)
		for (i = 0; i < rb->nchunks; i++)
			free(rb->pool[i].buf);
	free(rb->pool);
	free(rb->known);
	if (rb->tid2pid)
		munmap((void *)rb->tid2pid, PID_LIMIT * sizeof(uint32_t));
	if (rb->pid_seen)
		munmap((void *)rb->pid_seen, PID_LIMIT / 8);
	pthread_mutex_destroy(&rb->lock);
	pthread_cond_destroy(&rb->cond);
	free(rb);
}

int recbuf_start(struct recbuf **out, struct fstap_writer *w, uint64_t start_mono_ns,
		 const struct recbuf_opts *o)
{
	struct recbuf *rb = calloc(1, sizeof(*rb));
	unsigned i;
	void *p;
	int ret;

	if (!rb)
		return -ENOMEM;
	rb->w = w;
	rb->start_mono = start_mono_ns;
	rb->chunk_size = o->chunk_size ? o->chunk_size : 256 * 1024;
	rb->nchunks = o->nchunks ? o->nchunks : 64;
	rb->flush_ms = o->flush_ms ? o->flush_ms : 1000;
	pthread_mutex_init(&rb->lock, NULL);
	pthread_cond_init(&rb->cond, NULL);
	atomic_init(&rb->threads, NULL);
	rb->pool = calloc(rb->nchunks, sizeof(*rb->pool));
	if (!rb->pool)
		goto nomem;
	for (i = 0; i < rb->nchunks; i++) {
		rb->pool[i].buf = malloc(rb->chunk_size + FSTAP_CHUNK_HEADER_SIZE);
		if (!rb->pool[i].buf)
			goto nomem;
		/*
		 * Fault the pages in now, not on a request. Not zeros: malloc +
		 * memset(0) may become calloc, which leaves fresh pages untouched.
		 */
		memset(rb->pool[i].buf, 0xff, rb->chunk_size + FSTAP_CHUNK_HEADER_SIZE);
		rb->pool[i].next = rb->free;
		rb->free = &rb->pool[i];
	}
	p = mmap(NULL, PID_LIMIT * sizeof(uint32_t), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto nomem;
	rb->tid2pid = p;
	p = mmap(NULL, PID_LIMIT / 8, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto nomem;
	rb->pid_seen = p;
	ret = pthread_key_create(&rb->key, thread_exit);
	if (ret) {
		recbuf_free(rb);
		return -ret;
	}
	ret = pthread_create(&rb->thread, NULL, writer_main, rb);
	if (ret) {
		pthread_key_delete(rb->key);
		recbuf_free(rb);
		return -ret;
	}
	*out = rb;
	return 0;
nomem:
	recbuf_free(rb);
	return -ENOMEM;
}

uint64_t recbuf_stop(struct recbuf *rb)
{
	uint64_t lost;

	pthread_mutex_lock(&rb->lock);
	rb->stop = true;
	pthread_cond_signal(&rb->cond);
	pthread_mutex_unlock(&rb->lock);
	pthread_join(rb->thread, NULL);
	pthread_key_delete(rb->key);
	lost = atomic_load(&rb->lost);
	recbuf_free(rb);
	return lost;
}

uint64_t recbuf_lost(const struct recbuf *rb)
{
	return atomic_load(&((struct recbuf *)rb)->lost);
}

uint64_t recbuf_records(const struct recbuf *rb)
{
	return atomic_load(&((struct recbuf *)rb)->added);
}
