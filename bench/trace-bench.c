/*
 * trace-bench.c: how fast libfstap encodes, decodes and exports a trace, and
 * how small the trace is, on a synthetic mdtest-like record stream (its
 * targets and figures are in docs/PERFORMANCE.md, "Trace encoding").
 *
 * The stream is what the recorder would write for mdtest run with 4 threads
 * over 100k files in 100 directories (mdtest -n 25000 -w 4096 -e 4096, one
 * directory subtree per thread), phase by phase with a barrier between
 * phases as mdtest has:
 *
 *   mkdir     lookup(-ENOENT) + mkdir                     per directory
 *   create    lookup(-ENOENT) + create + write 4096 + flush + release
 *   stat      getattr                                     (attributes expired)
 *   read      open + read 4096 + flush + release
 *   unlink    unlink
 *   rmdir     rmdir                                       per directory
 *
 * The four threads are interleaved in start-time order, as a single
 * recorder stream would see them. Each thread has its own tid, all share
 * one pid and uid/gid; release carries no process and no credentials (the
 * kernel sends it with nocreds after the last close; the recorder does not
 * flag it as the kernel's, since it stands for the close). Object ids are
 * assigned in order of first appearance (the root is 1), handle ids count
 * up from 1, as the recorder's inode table and make_fh do (it records
 * PT_FH_ID, the id, not the raw fh). Times advance
 * per thread by the operation's duration plus 0.2-3 us, the durations are
 * 1-20 us by operation with +-50% jitter, from a fixed-seed PRNG, so every
 * run encodes the same bytes. With --rate N a thread also waits (think
 * time) until threads/N s after its record's start before the next one:
 * at most N records per second of trace time, as a recorder can deliver,
 * against some 555 000 without (docs/PERFORMANCE.md, "Trace length").
 *
 * Measurements, each repeated --reps times on CPU 0 and reported as the
 * median: encode (fstap_chunk_enc_add into 256 KiB chunks), the size per
 * record, decode (fstap_reader_next over a file, and fstap_chunk_decode in
 * memory), JSONL export (fstap_jsonl_record + fstap_pathmap_apply, to
 * /dev/null), and, for comparison, the size of the strace -f -tt -T text of
 * the same file operations, formatted here line by line.
 *
 * --syscall-workload DIR runs the same operations as real system calls in
 * DIR (for run-trace-bench.sh to measure a real strace of them).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fstap/jsonl.h"
#include "fstap/ops.h"
#include "fstap/pathmap.h"
#include "fstap/trace.h"
#include "fstap/util.h"

#define CHUNK_PAYLOAD (256u << 10)
#define CHUNK_CAP (FSTAP_CHUNK_HEADER_SIZE + CHUNK_PAYLOAD)
#define MAX_THREADS 64
#define NOCREDS 0xff
#define NO_NAME UINT32_MAX
#define DATA_BYTES 4096

/* Linux open flags, spelled out so that the stream is the same everywhere. */
#define L_O_WRONLY	01
#define L_O_CREAT	0100
#define L_O_EXCL	0200
#define L_O_LARGEFILE	0100000
#define L_S_IFREG	0100000
#define L_S_IFDIR	0040000

struct options {
	unsigned files, dirs, threads, reps;
	unsigned rounds;	/* > 0: write --keep with the phases repeated, measure nothing */
	unsigned rate;		/* > 0: records per second of trace time, all threads */
	bool json, raw_fh;
	const char *dir;
	const char *keep;	/* write the trace here and keep it */
	const char *workload_dir;
};

/* One operation of the synthetic stream, compact; expanded by build_rec(). */
struct synth {
	uint64_t start_ns;
	uint64_t obj, child, fh;
	uint32_t dur_ns;
	int32_t result;
	uint32_t name;		/* index into the name table, NO_NAME */
	uint32_t size, flags_arg, mode, umask;
	uint8_t op, thread;	/* thread index, NOCREDS: no process or credentials */
};

struct stream {
	struct synth *ops;
	size_t n, cap;
	char (*names)[16];	/* directories first, then files */
	uint8_t *name_len;
	unsigned nnames;
	uint32_t pid, uid, gid;
	uint32_t tid[MAX_THREADS];
	unsigned files, dirs, threads;
	/* strace comparison: the same operations as text */
	uint64_t strace_bytes, strace_lines;
};

/* ---- PRNG and clock ------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint32_t rng_range(uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rng() % (hi - lo + 1));
}

/* Keeps the compiler from dropping work whose result is not used. */
static inline void sink(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void die(const char *what, int err)
{
	fprintf(stderr, "trace-bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("calloc", ENOMEM);
	return p;
}

/* ---- the synthetic stream --------------------------------------------------- */

enum phase { PH_MKDIR, PH_CREATE, PH_STAT, PH_READ, PH_UNLINK, PH_RMDIR, PH_NR };

/* Steps (records) per item in each phase. */
static const unsigned phase_steps[PH_NR] = { 2, 5, 1, 4, 1, 1 };

struct gen_thread {
	uint64_t clock;
	unsigned idx;		/* item within the phase */
	unsigned step;		/* record within the item */
	bool waiting;		/* at the barrier */
	unsigned first_dir, ndirs;
	uint64_t fh, fd;	/* open handle during a file's steps */
};

/* What carries over from one round of the phases to the next. */
struct carry {
	unsigned round;
	uint64_t clock, next_obj, next_fh;
};

struct gen {
	struct stream *s;
	struct gen_thread th[MAX_THREADS];
	enum phase phase;
	uint64_t *dir_obj, *file_obj;
	uint64_t next_obj, next_fh;
	uint64_t interval_ns;	/* --rate: a thread's records start this far apart, or 0 */
	bool raw_fh;
};

/* Duration of an operation in ns: a per-op base with +-50% jitter. */
static uint32_t op_dur(unsigned op)
{
	uint32_t base;

	switch (op) {
	case FSTAP_OP_LOOKUP: base = 3000; break;
	case FSTAP_OP_MKDIR: base = 18000; break;
	case FSTAP_OP_CREATE: base = 14000; break;
	case FSTAP_OP_WRITE: base = 8000; break;
	case FSTAP_OP_FLUSH: base = 2000; break;
	case FSTAP_OP_RELEASE: base = 2500; break;
	case FSTAP_OP_GETATTR: base = 2500; break;
	case FSTAP_OP_OPEN: base = 6000; break;
	case FSTAP_OP_READ: base = 6000; break;
	case FSTAP_OP_UNLINK: base = 12000; break;
	case FSTAP_OP_RMDIR: base = 13000; break;
	default: base = 5000; break;
	}
	return rng_range(base / 2, base + base / 2);
}

static struct synth *push(struct gen *g, unsigned op, unsigned t)
{
	struct stream *s = g->s;
	struct gen_thread *th = &g->th[t];
	struct synth *o;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1 << 16;
		s->ops = realloc(s->ops, s->cap * sizeof(*s->ops));
		if (!s->ops)
			die("realloc", ENOMEM);
	}
	o = &s->ops[s->n++];
	memset(o, 0, sizeof(*o));
	o->op = (uint8_t)op;
	o->thread = (uint8_t)t;
	o->name = NO_NAME;
	o->start_ns = th->clock;
	o->dur_ns = op_dur(op);
	th->clock += o->dur_ns + rng_range(200, 3000);
	if (th->clock < o->start_ns + g->interval_ns)
		th->clock = o->start_ns + g->interval_ns;	/* think time */
	return o;
}

static uint64_t new_fh(struct gen *g, unsigned t)
{
	uint64_t id = g->next_fh++;

	/* The recorder's raw fh: id << 24 | fd (src/record/passthrough.c make_fh). */
	return g->raw_fh ? id << 24 | (uint64_t)(5 + t) : id;
}

/* The file a thread works on: item idx of its subtree, dir-major. */
static unsigned file_of(const struct gen *g, unsigned t, unsigned idx, unsigned *dir)
{
	unsigned fpd = g->s->files / g->s->dirs;

	*dir = g->th[t].first_dir + idx / fpd;
	return *dir * fpd + idx % fpd;
}

/* strace -f -tt -T text of the same operation (synthetic, for the size). */
static void strace_line(struct stream *s, const struct synth *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void strace_line(struct stream *s, const struct synth *o, const char *fmt, ...)
{
	char line[512];
	uint64_t t = o->start_ns + 36000ull * 1000000000u;	/* 10:00:00 */
	int n;
	va_list ap;

	n = snprintf(line, sizeof(line), "%u  %02u:%02u:%02u.%06u ", s->tid[o->thread],
		     (unsigned)(t / 3600000000000ull % 24), (unsigned)(t / 60000000000ull % 60),
		     (unsigned)(t / 1000000000u % 60), (unsigned)(t / 1000 % 1000000));
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	n += snprintf(line + n, sizeof(line) - (size_t)n, " <%u.%06u>\n",
		      o->dur_ns / 1000000000u, o->dur_ns / 1000 % 1000000);
	s->strace_bytes += (uint64_t)n;
	s->strace_lines++;
}

#define XDATA "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..."

/* Emits the next record of thread t; returns false when its phase is done. */
static bool gen_step(struct gen *g, unsigned t)
{
	struct stream *s = g->s;
	struct gen_thread *th = &g->th[t];
	unsigned fpt = s->files / s->threads;
	unsigned dir, f, nitems = (g->phase == PH_MKDIR || g->phase == PH_RMDIR) ? th->ndirs : fpt;
	const char *fname, *dname;
	struct synth *o;

	if (th->idx >= nitems)
		return false;
	if (g->phase == PH_MKDIR || g->phase == PH_RMDIR) {
		dir = th->first_dir + th->idx;
		f = 0;
	} else {
		f = file_of(g, t, th->idx, &dir);
	}
	fname = s->names[s->dirs + f];
	dname = s->names[dir];

	switch (g->phase) {
	case PH_MKDIR:
		if (th->step == 0) {
			o = push(g, FSTAP_OP_LOOKUP, t);
			o->obj = FSTAP_ROOT_OBJ;
			o->name = dir;
			o->result = -ENOENT;
		} else {
			o = push(g, FSTAP_OP_MKDIR, t);
			o->obj = FSTAP_ROOT_OBJ;
			o->name = dir;
			o->mode = L_S_IFDIR | 0755;
			o->umask = 022;
			o->child = g->dir_obj[dir] = g->next_obj++;
			strace_line(s, o, "mkdir(\"%s\", 0755) = 0", dname);
		}
		break;
	case PH_CREATE:
		switch (th->step) {
		case 0:
			o = push(g, FSTAP_OP_LOOKUP, t);
			o->obj = g->dir_obj[dir];
			o->name = s->dirs + f;
			o->result = -ENOENT;
			break;
		case 1:
			o = push(g, FSTAP_OP_CREATE, t);
			o->obj = g->dir_obj[dir];
			o->name = s->dirs + f;
			o->mode = L_S_IFREG | 0644;
			o->umask = 022;
			o->flags_arg = L_O_WRONLY | L_O_CREAT | L_O_EXCL | L_O_LARGEFILE;
			o->child = g->file_obj[f] = g->next_obj++;
			o->fh = th->fh = new_fh(g, t);
			strace_line(s, o, "openat(AT_FDCWD, \"%s/%s\", O_WRONLY|O_CREAT|O_EXCL, 0644) = %u",
				    dname, fname, 5 + t);
			break;
		case 2:
			o = push(g, FSTAP_OP_WRITE, t);
			o->obj = g->file_obj[f];
			o->fh = th->fh;
			o->size = DATA_BYTES;
			o->result = DATA_BYTES;
			strace_line(s, o, "write(%u, " XDATA ", %u) = %u", 5 + t, DATA_BYTES, DATA_BYTES);
			break;
		case 3:
			o = push(g, FSTAP_OP_FLUSH, t);
			o->obj = g->file_obj[f];
			o->fh = th->fh;
			strace_line(s, o, "close(%u) = 0", 5 + t);
			break;
		default:
			o = push(g, FSTAP_OP_RELEASE, t);
			o->thread = NOCREDS;
			o->obj = g->file_obj[f];
			o->fh = th->fh;
			o->flags_arg = L_O_WRONLY | L_O_LARGEFILE;
			break;
		}
		break;
	case PH_STAT:
		o = push(g, FSTAP_OP_GETATTR, t);
		o->obj = g->file_obj[f];
		strace_line(s, o, "newfstatat(AT_FDCWD, \"%s/%s\", {st_mode=S_IFREG|0644, st_size=%u, ...}, 0) = 0",
			    dname, fname, DATA_BYTES);
		break;
	case PH_READ:
		switch (th->step) {
		case 0:
			o = push(g, FSTAP_OP_OPEN, t);
			o->obj = g->file_obj[f];
			o->flags_arg = L_O_LARGEFILE;
			o->fh = th->fh = new_fh(g, t);
			strace_line(s, o, "openat(AT_FDCWD, \"%s/%s\", O_RDONLY) = %u", dname, fname, 5 + t);
			break;
		case 1:
			o = push(g, FSTAP_OP_READ, t);
			o->obj = g->file_obj[f];
			o->fh = th->fh;
			o->size = DATA_BYTES;
			o->result = DATA_BYTES;
			strace_line(s, o, "read(%u, " XDATA ", %u) = %u", 5 + t, DATA_BYTES, DATA_BYTES);
			break;
		case 2:
			o = push(g, FSTAP_OP_FLUSH, t);
			o->obj = g->file_obj[f];
			o->fh = th->fh;
			strace_line(s, o, "close(%u) = 0", 5 + t);
			break;
		default:
			o = push(g, FSTAP_OP_RELEASE, t);
			o->thread = NOCREDS;
			o->obj = g->file_obj[f];
			o->fh = th->fh;
			o->flags_arg = L_O_LARGEFILE;
			break;
		}
		break;
	case PH_UNLINK:
		o = push(g, FSTAP_OP_UNLINK, t);
		o->obj = g->dir_obj[dir];
		o->name = s->dirs + f;
		strace_line(s, o, "unlink(\"%s/%s\") = 0", dname, fname);
		break;
	case PH_RMDIR:
	default:
		o = push(g, FSTAP_OP_RMDIR, t);
		o->obj = FSTAP_ROOT_OBJ;
		o->name = dir;
		strace_line(s, o, "rmdir(\"%s\") = 0", dname);
		break;
	}
	if (++th->step == phase_steps[g->phase]) {
		th->step = 0;
		th->idx++;
	}
	return true;
}

/*
 * The stream of one round of the phases. Round 0 starts with the process
 * record and names its directories dir.NNN; round k > 0 names them
 * dir.KKKKK.NNN (fresh paths) and goes on with the object ids, handle ids
 * and clock where round k - 1 ended.
 */
static void stream_build(struct stream *s, const struct options *opt, struct carry *c)
{
	struct gen g;
	unsigned i, t;

	memset(s, 0, sizeof(*s));
	memset(&g, 0, sizeof(g));
	s->files = opt->files;
	s->dirs = opt->dirs;
	s->threads = opt->threads;
	s->pid = 4242;
	s->uid = s->gid = 1000;
	for (t = 0; t < s->threads; t++)
		s->tid[t] = s->pid + 1 + t;
	s->nnames = s->dirs + s->files;
	s->names = xcalloc(s->nnames, sizeof(*s->names));
	s->name_len = xcalloc(s->nnames, 1);
	for (i = 0; i < s->dirs; i++)
		s->name_len[i] = (uint8_t)(c->round ?
			snprintf(s->names[i], 16, "dir.%05u.%03u", c->round % 100000, i) :
			snprintf(s->names[i], 16, "dir.%03u", i));
	for (i = 0; i < s->files; i++)
		s->name_len[s->dirs + i] = (uint8_t)snprintf(s->names[s->dirs + i], 16,
							     "file.%06u", i);
	g.s = s;
	g.raw_fh = opt->raw_fh;
	if (opt->rate)
		g.interval_ns = 1000000000ull * s->threads / opt->rate;
	g.dir_obj = xcalloc(s->dirs, sizeof(uint64_t));
	g.file_obj = xcalloc(s->files, sizeof(uint64_t));
	g.next_obj = c->round ? c->next_obj : FSTAP_ROOT_OBJ + 1;
	g.next_fh = c->round ? c->next_fh : 1;

	/* The process record comes first, as the recorder writes it once per pid. */
	s->cap = 1 << 16;
	s->ops = xcalloc(s->cap, sizeof(*s->ops));
	if (c->round == 0)
		s->ops[s->n++] = (struct synth){ .op = FSTAP_OP_PROCESS, .name = NO_NAME };

	for (t = 0; t < s->threads; t++) {
		g.th[t].clock = c->clock + 1000000 + rng_range(0, 20000);
		g.th[t].first_dir = t * (s->dirs / s->threads);
		g.th[t].ndirs = s->dirs / s->threads;
	}
	for (g.phase = PH_MKDIR; g.phase < PH_NR;) {
		unsigned best = MAX_THREADS;
		uint64_t barrier = 0;

		for (t = 0; t < s->threads; t++)
			if (!g.th[t].waiting && (best == MAX_THREADS || g.th[t].clock < g.th[best].clock))
				best = t;
		if (best < MAX_THREADS) {
			if (!gen_step(&g, best))
				g.th[best].waiting = true;
			continue;
		}
		/* Everyone is at the barrier: the next phase starts together. */
		for (t = 0; t < s->threads; t++)
			if (g.th[t].clock > barrier)
				barrier = g.th[t].clock;
		barrier += rng_range(5000, 50000);
		for (t = 0; t < s->threads; t++) {
			g.th[t].clock = barrier + rng_range(0, 5000);
			g.th[t].idx = g.th[t].step = 0;
			g.th[t].waiting = false;
		}
		g.phase++;
	}
	c->clock = g.th[0].clock;
	for (t = 1; t < s->threads; t++)
		if (g.th[t].clock > c->clock)
			c->clock = g.th[t].clock;
	c->next_obj = g.next_obj;
	c->next_fh = g.next_fh;
	c->round++;
	free(g.dir_obj);
	free(g.file_obj);
}

static void stream_free(struct stream *s)
{
	free(s->ops);
	free(s->names);
	free(s->name_len);
}

/* Fills r from o the way the recorder fills its record on the stack. */
static inline void build_rec(const struct stream *s, const struct synth *o, struct fstap_rec *r)
{
	static const char cmdline[] = "mdtest\0-n\00025000\0-w\0004096\0-e\0004096\0-u";

	*r = (struct fstap_rec){ .op = o->op };
	if (o->op == FSTAP_OP_PROCESS) {
		r->pid = s->pid;
		r->ppid = 1;
		r->comm = (struct fstap_bytes){ (const uint8_t *)"mdtest", 6 };
		r->cmdline = (struct fstap_bytes){ (const uint8_t *)cmdline, sizeof(cmdline) };
		return;
	}
	/* NOCREDS: tid, pid, uid, gid 0 and no kernel flag (src/record/rec_ops.c rq_emit) */
	if (o->thread != NOCREDS) {
		r->tid = s->tid[o->thread];
		r->pid = s->pid;
		r->uid = s->uid;
		r->gid = s->gid;
	}
	r->start_ns = o->start_ns;
	r->dur_ns = o->dur_ns;
	r->result = o->result;
	r->obj = o->obj;
	r->child = o->child;
	r->fh = o->fh;
	r->size = o->size;
	r->flags_arg = o->flags_arg;
	r->mode = o->mode;
	r->umask = o->umask;
	if (o->name != NO_NAME)
		r->name = (struct fstap_bytes){ (const uint8_t *)s->names[o->name],
						s->name_len[o->name] };
}

/* ---- measurements ----------------------------------------------------------- */

struct chunkref {
	size_t off, len;	/* of the payload in the arena */
	uint64_t base_ns;
};

struct encoded {
	uint8_t *arena;
	size_t len, cap;
	struct chunkref *chunks;
	size_t nchunks, cap_chunks;
	uint64_t payload_bytes;
};

static void keep_chunk(struct encoded *e, const struct fstap_chunk_enc *enc, size_t len)
{
	if (e->len + len > e->cap) {
		e->cap = e->cap ? 2 * e->cap : 16 << 20;
		while (e->cap < e->len + len)
			e->cap *= 2;
		e->arena = realloc(e->arena, e->cap);
		if (!e->arena)
			die("realloc", ENOMEM);
	}
	if (e->nchunks == e->cap_chunks) {
		e->cap_chunks = e->cap_chunks ? 2 * e->cap_chunks : 256;
		e->chunks = realloc(e->chunks, e->cap_chunks * sizeof(*e->chunks));
		if (!e->chunks)
			die("realloc", ENOMEM);
	}
	memcpy(e->arena + e->len, enc->buf, len);
	e->chunks[e->nchunks++] = (struct chunkref){ e->len + FSTAP_CHUNK_HEADER_SIZE,
						     len - FSTAP_CHUNK_HEADER_SIZE, enc->base_ns };
	e->len += len;
	e->payload_bytes += len - FSTAP_CHUNK_HEADER_SIZE;
}

/* Encodes the whole stream into 256 KiB chunks; keeps them if e is set. */
static void encode_all(const struct stream *s, struct fstap_chunk_enc *enc, uint8_t *buf,
		       struct encoded *e)
{
	struct fstap_rec r;
	size_t i;
	int ret;

	fstap_chunk_enc_init(enc, buf, CHUNK_CAP, 0);
	for (i = 0; i < s->n; i++) {
		build_rec(s, &s->ops[i], &r);
		ret = fstap_chunk_enc_add(enc, &r);
		if (ret == -ENOSPC) {
			size_t len = fstap_chunk_enc_finish(enc, 0);

			if (e)
				keep_chunk(e, enc, len);
			fstap_chunk_enc_init(enc, buf, CHUNK_CAP, enc->prev_ns);
			ret = fstap_chunk_enc_add(enc, &r);
		}
		if (ret)
			die("fstap_chunk_enc_add", ret);
	}
	if (enc->nrec) {
		size_t len = fstap_chunk_enc_finish(enc, 0);

		if (e)
			keep_chunk(e, enc, len);
	}
}

/* Only builds the records: the part of the encode loop that is the generator's. */
static void build_all(const struct stream *s)
{
	struct fstap_rec r;
	size_t i;

	for (i = 0; i < s->n; i++) {
		build_rec(s, &s->ops[i], &r);
		sink(&r);
	}
}

static int count_rec(const struct fstap_rec *rec, void *arg)
{
	*(uint64_t *)arg += rec->start_ns;
	return 0;
}

static uint64_t decode_mem(const struct encoded *e)
{
	uint64_t sum = 0;
	size_t i;
	int ret;

	for (i = 0; i < e->nchunks; i++) {
		ret = fstap_chunk_decode(e->arena + e->chunks[i].off, e->chunks[i].len,
					 e->chunks[i].base_ns, count_rec, &sum);
		if (ret < 0)
			die("fstap_chunk_decode", ret);
	}
	return sum;
}

/* Reads the whole trace file; returns the number of records. */
static uint64_t decode_file(const char *path)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	uint64_t n = 0;
	char *msg = NULL;
	int ret;

	ret = fstap_reader_open(&r, path, &msg);
	if (ret) {
		fprintf(stderr, "trace-bench: %s\n", msg ? msg : strerror(-ret));
		exit(1);
	}
	while ((ret = fstap_reader_next(r, &rec)) == 1)
		n++;
	if (ret < 0 || !fstap_reader_complete(r)) {
		fprintf(stderr, "trace-bench: reading %s: %s\n", path, fstap_reader_errmsg(r));
		exit(1);
	}
	fstap_reader_close(r);
	return n;
}

static void flush_jb(struct fstap_jbuf *jb, int fd, uint64_t *total)
{
	size_t off = 0;

	*total += jb->len;
	while (off < jb->len) {
		ssize_t n = write(fd, jb->buf + off, jb->len - off);

		if (n < 0)
			die("write /dev/null", errno);
		off += (size_t)n;
	}
	jb->len = 0;
}

/*
 * JSONL export as `fstap export` does it: from the reader (from_file) or
 * from the records built in memory; returns the JSON text's size.
 */
static uint64_t export_all(const struct stream *s, const char *path, int devnull)
{
	struct fstap_pathmap *pm;
	struct fstap_jbuf jb = { 0 };
	struct fstap_reader *r = NULL;
	struct fstap_rec rec;
	uint64_t total = 0;
	size_t i = 0;
	int ret;

	if ((ret = fstap_pathmap_new(&pm)))
		die("fstap_pathmap_new", ret);
	if (path && (ret = fstap_reader_open(&r, path, NULL)))
		die("fstap_reader_open", ret);
	for (;;) {
		if (r) {
			ret = fstap_reader_next(r, &rec);
			if (ret < 0)
				die("fstap_reader_next", ret);
			if (!ret)
				break;
		} else {
			if (i == s->n)
				break;
			build_rec(s, &s->ops[i++], &rec);
		}
		if ((ret = fstap_jsonl_record(&jb, &rec, pm)))
			die("fstap_jsonl_record", ret);
		if ((ret = fstap_pathmap_apply(pm, &rec)))
			die("fstap_pathmap_apply", ret);
		if (jb.len >= (1u << 20))
			flush_jb(&jb, devnull, &total);
	}
	flush_jb(&jb, devnull, &total);
	fstap_jbuf_release(&jb);
	fstap_pathmap_free(pm);
	fstap_reader_close(r);
	return total;
}

/*
 * Writes s, then (--rounds N) the N - 1 further rounds of the phases built
 * one at a time from c, so that memory stays that of one round.
 */
static void write_trace(const struct stream *s, const struct options *opt, struct carry c,
			const char *path, uint64_t *file_bytes, uint64_t *nrec)
{
	static char meta[] = "{\"host\":\"trace-bench\",\"synthetic\":true}";
	struct fstap_trace_info info = { .start_realtime_ns = 1700000000ull * 1000000000u,
					 .start_monotonic_ns = 0, .metadata_json = meta };
	struct fstap_writer *w;
	struct fstap_rec r;
	struct stream next;
	uint64_t end_ns;
	struct stat st;
	size_t i;
	int ret;

	if ((ret = fstap_writer_open(&w, path, &info, CHUNK_PAYLOAD)))
		die(path, ret);
	*nrec = 0;
	for (;;) {
		for (i = 0; i < s->n; i++) {
			build_rec(s, &s->ops[i], &r);
			if ((ret = fstap_writer_add(w, &r)))
				die(fstap_writer_errmsg(w), ret);
		}
		*nrec += s->n;
		end_ns = s->ops[s->n - 1].start_ns + 1000;
		if (s == &next)
			stream_free(&next);
		if (c.round >= opt->rounds)
			break;
		stream_build(&next, opt, &c);
		s = &next;
	}
	if ((ret = fstap_writer_close(w, end_ns, false)))
		die(fstap_writer_errmsg(w), ret);
	fstap_writer_free(w);
	if (stat(path, &st))
		die(path, errno);
	*file_bytes = (uint64_t)st.st_size;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the syscall workload (for a real strace) ------------------------------- */

struct wl_thread {
	const struct options *opt;
	unsigned t;
	pthread_barrier_t *bar;
};

static void *wl_run(void *arg)
{
	const struct wl_thread *w = arg;
	const struct options *opt = w->opt;
	unsigned dpt = opt->dirs / opt->threads, fpd = opt->files / opt->dirs;
	char path[64], buf[DATA_BYTES];
	unsigned d, k, ph;
	struct stat st;
	int fd;

	memset(buf, 'x', sizeof(buf));
	for (ph = PH_MKDIR; ph < PH_NR; ph++) {
		for (d = w->t * dpt; d < (w->t + 1) * dpt; d++) {
			if (ph == PH_MKDIR || ph == PH_RMDIR) {
				snprintf(path, sizeof(path), "dir.%03u", d);
				if (ph == PH_MKDIR ? mkdir(path, 0755) : rmdir(path))
					die(path, errno);
				continue;
			}
			for (k = 0; k < fpd; k++) {
				snprintf(path, sizeof(path), "dir.%03u/file.%06u", d, d * fpd + k);
				switch (ph) {
				case PH_CREATE:
					fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
					if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
						die(path, errno);
					close(fd);
					break;
				case PH_STAT:
					if (stat(path, &st))
						die(path, errno);
					break;
				case PH_READ:
					fd = open(path, O_RDONLY);
					if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf))
						die(path, errno);
					close(fd);
					break;
				default:
					if (unlink(path))
						die(path, errno);
				}
			}
		}
		pthread_barrier_wait(w->bar);
	}
	return NULL;
}

static int syscall_workload(const struct options *opt)
{
	pthread_t tids[MAX_THREADS];
	struct wl_thread w[MAX_THREADS];
	pthread_barrier_t bar;
	unsigned t;

	if (chdir(opt->workload_dir))
		die(opt->workload_dir, errno);
	pthread_barrier_init(&bar, NULL, opt->threads);
	for (t = 0; t < opt->threads; t++) {
		w[t] = (struct wl_thread){ opt, t, &bar };
		if (pthread_create(&tids[t], NULL, wl_run, &w[t]))
			die("pthread_create", EAGAIN);
	}
	for (t = 0; t < opt->threads; t++)
		pthread_join(tids[t], NULL);
	return 0;
}

/* ---- main ------------------------------------------------------------------- */

static const char usage[] =
	"usage: trace-bench [--json] [--files N] [--dirs N] [--threads N] [--reps N]\n"
	"                   [--dir DIR] [--raw-fh] [--keep TRACE]\n"
	"       trace-bench --rounds N --keep TRACE [--rate N] [--files N] [--dirs N] [--threads N]\n"
	"       trace-bench --syscall-workload DIR [--files N] [--dirs N] [--threads N]\n"
	"\n"
	"Measures libfstap on a synthetic mdtest-like stream (default 100000 files\n"
	"in 100 directories, 4 threads): encode and decode rates, bytes per record,\n"
	"JSONL export rate, each the median of --reps runs (default 5) on CPU 0.\n"
	"\n"
	"  --json            one JSON object instead of the table\n"
	"  --dir DIR         where the trace file is written (default /dev/shm, else /tmp)\n"
	"  --raw-fh          handles as the recorder's raw fh (id << 24 | fd)\n"
	"  --keep TRACE      write the trace file to TRACE and keep it\n"
	"  --rounds N        write to TRACE the phases N times over, each round in\n"
	"                    fresh directories (dir.KKKKK.NNN), built one round at a\n"
	"                    time, print the number of records and measure nothing:\n"
	"                    a trace of any length (--files 90900: 1000200 records\n"
	"                    a round, the first one record more)\n"
	"  --rate N          N records per second of trace time at most, all threads\n"
	"                    together: each thread starts a record at most every\n"
	"                    threads/N s, idle in between (think time); without it\n"
	"                    the threads never idle (some 555 000 records/s)\n"
	"  --syscall-workload DIR\n"
	"                    run the same operations as system calls in DIR (empty),\n"
	"                    for measuring a real strace of them; measures nothing\n";

static unsigned parse_uint(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end || v == 0 || v > 100000000) {
		fprintf(stderr, "trace-bench: bad %s '%s'\n", what, s);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "files", required_argument, NULL, 'f' },
		{ "dirs", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'r' },
		{ "dir", required_argument, NULL, 'D' },
		{ "raw-fh", no_argument, NULL, 'R' },
		{ "keep", required_argument, NULL, 'K' },
		{ "rounds", required_argument, NULL, 'N' },
		{ "rate", required_argument, NULL, 'a' },
		{ "syscall-workload", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct options opt = { .files = 100000, .dirs = 100, .threads = 4, .reps = 5 };
	struct carry carry = { 0 };
	struct fstap_chunk_enc *enc;
	struct encoded e = { 0 };
	struct stream s;
	uint8_t *buf;
	double *enc_s, *build_s, *dec_s, *decm_s, *exp_s, *expm_s;
	double enc_rate, build_rate, dec_rate, decm_rate, exp_rate, expm_rate;
	uint64_t file_bytes = 0, json_bytes = 0, nread;
	char path[4096];
	bool pinned;
	cpu_set_t cpus;
	unsigned rep;
	int c, devnull;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': opt.json = true; break;
		case 'f': opt.files = parse_uint(optarg, "--files"); break;
		case 'd': opt.dirs = parse_uint(optarg, "--dirs"); break;
		case 't': opt.threads = parse_uint(optarg, "--threads"); break;
		case 'r': opt.reps = parse_uint(optarg, "--reps"); break;
		case 'D': opt.dir = optarg; break;
		case 'R': opt.raw_fh = true; break;
		case 'K': opt.keep = optarg; break;
		case 'N': opt.rounds = parse_uint(optarg, "--rounds"); break;
		case 'a': opt.rate = parse_uint(optarg, "--rate"); break;
		case 'W': opt.workload_dir = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind != argc || opt.threads > MAX_THREADS || opt.dirs % opt.threads ||
	    opt.files % opt.dirs || opt.dirs > 1000 || opt.files > 1000000) {
		fprintf(stderr, "trace-bench: need --threads <= %d dividing --dirs <= 1000, "
			"--dirs dividing --files <= 1000000\n", MAX_THREADS);
		return 2;
	}
	if (opt.workload_dir)
		return syscall_workload(&opt);
	if (opt.rounds && !opt.keep) {
		fprintf(stderr, "trace-bench: --rounds needs --keep TRACE\n");
		return 2;
	}
	if (opt.rounds) {
		uint64_t nrec;

		stream_build(&s, &opt, &carry);
		write_trace(&s, &opt, carry, opt.keep, &file_bytes, &nrec);
		stream_free(&s);
		printf("%llu records (%u rounds), %llu bytes\n", (unsigned long long)nrec,
		       opt.rounds, (unsigned long long)file_bytes);
		return 0;
	}

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	pinned = sched_setaffinity(0, sizeof(cpus), &cpus) == 0;
	if (!pinned)
		fprintf(stderr, "trace-bench: cannot pin to CPU 0: %s (measuring anyway)\n",
			strerror(errno));

	stream_build(&s, &opt, &carry);
	if (!opt.dir)
		opt.dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	if (opt.keep)
		snprintf(path, sizeof(path), "%s", opt.keep);
	else
		snprintf(path, sizeof(path), "%s/trace-bench.%d.fstap", opt.dir, (int)getpid());
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		die("/dev/null", errno);

	enc = xcalloc(1, sizeof(*enc));
	buf = malloc(CHUNK_CAP);
	if (!buf)
		die("malloc", ENOMEM);
	enc_s = xcalloc(opt.reps, sizeof(double));
	build_s = xcalloc(opt.reps, sizeof(double));
	dec_s = xcalloc(opt.reps, sizeof(double));
	decm_s = xcalloc(opt.reps, sizeof(double));
	exp_s = xcalloc(opt.reps, sizeof(double));
	expm_s = xcalloc(opt.reps, sizeof(double));

	/* Untimed: the chunks for the in-memory decode, the size, the file. */
	encode_all(&s, enc, buf, &e);
	write_trace(&s, &opt, carry, path, &file_bytes, &nread);
	nread = decode_file(path);
	if (nread != s.n + 1) {	/* + the footer */
		fprintf(stderr, "trace-bench: read %llu records back, wrote %zu\n",
			(unsigned long long)nread, s.n + 1);
		return 1;
	}

	for (rep = 0; rep < opt.reps; rep++) {
		uint64_t t0, sum;

		t0 = fstap_now_ns();
		build_all(&s);
		build_s[rep] = (double)(fstap_now_ns() - t0) / 1e9;

		t0 = fstap_now_ns();
		encode_all(&s, enc, buf, NULL);
		enc_s[rep] = (double)(fstap_now_ns() - t0) / 1e9;

		t0 = fstap_now_ns();
		sum = decode_mem(&e);
		decm_s[rep] = (double)(fstap_now_ns() - t0) / 1e9;
		sink(&sum);

		t0 = fstap_now_ns();
		decode_file(path);
		dec_s[rep] = (double)(fstap_now_ns() - t0) / 1e9;

		t0 = fstap_now_ns();
		json_bytes = export_all(&s, path, devnull);
		exp_s[rep] = (double)(fstap_now_ns() - t0) / 1e9;

		t0 = fstap_now_ns();
		export_all(&s, NULL, devnull);
		expm_s[rep] = (double)(fstap_now_ns() - t0) / 1e9;
	}
	if (!opt.keep)
		unlink(path);
	close(devnull);

	{
		double n = (double)s.n;
		double enc_bytes = (double)e.len;
		double bpr = enc_bytes / n, bpr_payload = (double)e.payload_bytes / n;
		double bpf = enc_bytes / s.files;
		double st_bpl = (double)s.strace_bytes / (double)s.strace_lines;
		double st_bpf = (double)s.strace_bytes / s.files;

		build_rate = n / median(build_s, opt.reps);
		enc_rate = n / median(enc_s, opt.reps);
		decm_rate = n / median(decm_s, opt.reps);
		dec_rate = (double)nread / median(dec_s, opt.reps);
		exp_rate = (double)nread / median(exp_s, opt.reps);
		expm_rate = n / median(expm_s, opt.reps);

		if (opt.json) {
			printf("{\"bench\":\"trace\",\"files\":%u,\"dirs\":%u,\"threads\":%u,"
			       "\"reps\":%u,\"pinned_cpu0\":%s,\"raw_fh\":%s,\"records\":%zu,"
			       "\"chunks\":%zu,\"chunk_payload\":%u,"
			       "\"encode_rps\":%.0f,\"build_only_rps\":%.0f,"
			       "\"decode_reader_rps\":%.0f,\"decode_memory_rps\":%.0f,"
			       "\"export_reader_rps\":%.0f,\"export_memory_rps\":%.0f,"
			       "\"bytes_per_record\":%.3f,\"payload_bytes_per_record\":%.3f,"
			       "\"file_bytes\":%llu,\"file_bytes_per_record\":%.3f,"
			       "\"bytes_per_file\":%.2f,\"jsonl_bytes_per_record\":%.1f,"
			       "\"strace_lines\":%llu,\"strace_bytes_per_line\":%.1f,"
			       "\"strace_bytes_per_file\":%.1f,"
			       "\"ratio_bytes_per_op\":%.4f,\"ratio_bytes_per_file\":%.4f,"
			       "\"targets\":{\"encode_5M\":%s,\"decode_5M\":%s,"
			       "\"bytes_24\":%s,\"export_500k\":%s}}\n",
			       s.files, s.dirs, s.threads, opt.reps, pinned ? "true" : "false",
			       opt.raw_fh ? "true" : "false", s.n, e.nchunks, CHUNK_PAYLOAD,
			       enc_rate, build_rate, dec_rate, decm_rate, exp_rate, expm_rate,
			       bpr, bpr_payload, (unsigned long long)file_bytes,
			       (double)file_bytes / n, bpf, (double)json_bytes / (double)nread,
			       (unsigned long long)s.strace_lines, st_bpl, st_bpf,
			       bpr / st_bpl, bpf / st_bpf,
			       enc_rate >= 5e6 ? "true" : "false",
			       dec_rate >= 5e6 && decm_rate >= 5e6 ? "true" : "false",
			       bpr <= 24 ? "true" : "false", exp_rate >= 5e5 ? "true" : "false");
		} else {
			printf("trace-bench: mdtest-like stream, %u files in %u dirs, %u threads, "
			       "%zu records, %zu chunks of %u KiB\n",
			       s.files, s.dirs, s.threads, s.n, e.nchunks, CHUNK_PAYLOAD >> 10);
			printf("median of %u runs, %s%s\n\n", opt.reps,
			       pinned ? "pinned to CPU 0" : "NOT pinned",
			       opt.raw_fh ? ", raw fh (id << 24 | fd)" : "");
			printf("%-44s %14s %12s %s\n", "measure", "value", "target", "");
			printf("%-44s %14.0f %12s %s\n", "encode, records/s (fstap_chunk_enc_add)",
			       enc_rate, ">= 5000000", enc_rate >= 5e6 ? "met" : "MISSED");
			printf("%-44s %14.0f %12s\n", "  of which building the records, records/s",
			       build_rate, "");
			printf("%-44s %14.0f %12s %s\n", "decode, records/s (fstap_reader_next)",
			       dec_rate, ">= 5000000", dec_rate >= 5e6 ? "met" : "MISSED");
			printf("%-44s %14.0f %12s %s\n", "decode, records/s (fstap_chunk_decode)",
			       decm_rate, ">= 5000000", decm_rate >= 5e6 ? "met" : "MISSED");
			printf("%-44s %14.2f %12s %s\n", "bytes/record (chunks with headers)",
			       bpr, "<= 24", bpr <= 24 ? "met" : "MISSED");
			printf("%-44s %14.2f\n", "bytes/record (payload only)", bpr_payload);
			printf("%-44s %14.2f\n", "bytes/record (whole file, header+footer)",
			       (double)file_bytes / n);
			printf("%-44s %14.0f %12s %s\n", "export JSONL, records/s (reader+pathmap)",
			       exp_rate, ">= 500000", exp_rate >= 5e5 ? "met" : "MISSED");
			printf("%-44s %14.0f\n", "export JSONL, records/s (from memory)", expm_rate);
			printf("%-44s %14.1f\n", "JSONL bytes/record", (double)json_bytes / (double)nread);
			printf("\nstrace -f -tt -T text of the same operations (%llu syscall lines):\n",
			       (unsigned long long)s.strace_lines);
			printf("%-44s %14.1f\n", "strace bytes/line", st_bpl);
			printf("%-44s %14.4f\n", "fstap bytes/record / strace bytes/line", bpr / st_bpl);
			printf("%-44s %14.1f\n", "fstap bytes per file (11 records)", bpf);
			printf("%-44s %14.1f\n", "strace bytes per file (8 lines)", st_bpf);
			printf("%-44s %14.4f\n", "fstap / strace, per file", bpf / st_bpf);
		}
	}
	free(enc);
	free(buf);
	free(e.arena);
	free(e.chunks);
	stream_free(&s);
	free(enc_s);
	free(build_s);
	free(dec_s);
	free(decm_s);
	free(exp_s);
	free(expm_s);
	return 0;
}
