/*
 * report.c: `fstap report`: what a trace says about its workload, for a
 * person choosing a file system: the operation mix, per process, bytes and
 * request sizes, sequential versus random access, the busiest directories,
 * failed lookups, what the kernel asked on its own, and whether processes
 * open the files of a directory in readdir, name or inode order (the access
 * order analysis, the reason `fstap reorder` exists).
 *
 * One pass over the trace in time order fills one model (struct rep); the
 * text and JSON renderers print the same numbers from it. Requests flagged
 * FSTAP_RF_KERNEL are counted apart from the application's: they are in the
 * "kernel" section and in the byte totals, nowhere else. Not a replay and
 * not a latency study: durations here are the recorder's, FUSE included.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "fstap/log.h"
#include "fstap/pathmap.h"
#include "fstap/sort.h"
#include "fstap/util.h"

#define NBUCKETS 66		/* size 0, then (2^(k-2), 2^(k-1)] for k >= 1 */
#define MIN_ORDER_FILES 3	/* fewer opened files say nothing about an order */
#define PATH_CAP 4096

enum { IO_READ, IO_WRITE, IO_NR };
enum { ORD_READDIR = AN_ORD_READDIR, ORD_NAME = AN_ORD_NAME, ORD_INODE = AN_ORD_INODE,
       ORD_NR = AN_ORD_NR };

static const char *const io_names[IO_NR] = { "read", "write" };
static const char *const ord_names[ORD_NR] = { "readdir", "name", "inode" };

struct opstat {
	uint64_t count, errors, kernel;
	uint64_t dur_sum;	/* application records */
};

struct iostat {
	uint64_t ops, bytes, seq, rnd;
	uint64_t hist[NBUCKETS];
};

struct proc {
	uint32_t pid;
	char *comm;
	uint64_t ops, bytes_read, bytes_written;
};

/* A directory's operations; path: owned, for one the pathmap forgot (else NULL). */
struct dir_row {
	uint64_t obj, ops;
	char *path;
};

struct order_row {
	char *path;
	uint32_t lister;
	const uint32_t *readers;	/* the analysis's (r->order) */
	size_t nreaders;
	size_t files, listed;
	double rho[ORD_NR];
};

struct rep {
	const char *trace;
	struct an_objtab *objs;		/* u[0] ops credited (dirs), u[1] touched */
	struct an_objtab *handles;	/* u[0] next offset */
	struct an_objtab *threads;
	struct fstap_pathmap *pm;
	struct an_access *order;
	struct opstat ops[FSTAP_OP_NR];
	struct iostat io[IO_NR];
	struct proc *procs;
	size_t nprocs, capprocs;
	uint64_t app_ops, kernel_ops, kernel_bytes_read, kernel_bytes_written;
	uint64_t bytes_read, bytes_written, lost;
	uint64_t first_ns, last_end_ns, end_ns;
	bool any, complete;
	uint64_t lookups, lookups_failed;
	struct order_row *rows;
	size_t nrows;
	uint64_t nthreads;
	unsigned top;
	/* what the end needs of the objects the pathmap forgot */
	uint64_t gone_files, gone_dirs;	/* touched */
	struct dir_row *gone;		/* with operations: the top ones */
	size_t ngone, capgone;
	struct fstap_map gone_paths;	/* listed directory -> index + 1 in gone_path */
	char **gone_path;
	size_t ngone_path, capgone_path;
	int oom;
};

/* ---- processes ---------------------------------------------------------- */

static struct proc *proc_get(struct rep *r, uint32_t pid)
{
	struct proc *p;
	size_t i;

	/* processes are few; a linear scan from the most recent one is enough */
	for (i = r->nprocs; i-- > 0;)
		if (r->procs[i].pid == pid)
			return &r->procs[i];
	if (FSTAP_GROW(r->procs, r->nprocs + 1, r->capprocs))
		return NULL;
	p = &r->procs[r->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static const char *proc_comm(struct rep *r, uint32_t pid)
{
	size_t i;

	for (i = 0; i < r->nprocs; i++)
		if (r->procs[i].pid == pid && r->procs[i].comm)
			return r->procs[i].comm;
	return pid ? "?" : "(none)";	/* release and releasedir come without a process */
}

/* ---- sizes -------------------------------------------------------------- */

static unsigned size_bucket(uint64_t size)
{
	unsigned b = 1;

	if (!size)
		return 0;
	while (b < 65 && ((uint64_t)1 << (b - 1)) < size)
		b++;
	return b;	/* size <= 2^(b-1) */
}

static void size_label(unsigned b, char *buf, size_t cap)
{
	static const char units[] = "KMGTPE";
	uint64_t v;
	int u = -1;

	if (b == 0) {
		snprintf(buf, cap, "0");
		return;
	}
	v = (uint64_t)1 << (b - 1);
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, cap, "%" PRIu64, v);
	else
		snprintf(buf, cap, "%" PRIu64 "%c", v, units[u]);
}

/* ---- the access order analysis (order.c) -------------------------------- */

/* The rows of the order analysis, with their directories' paths. */
static int order_rows(struct rep *r)
{
	const struct an_access_row *rows;
	char path[PATH_CAP];
	size_t i, n;
	int ret;

	if ((ret = an_access_finish(r->order, &rows, &n)))
		return ret;
	r->rows = calloc(n + 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct order_row *w = &r->rows[i];

		const uint64_t *gone = fstap_map_get(&r->gone_paths, rows[i].dir);

		if (gone)
			snprintf(path, sizeof(path), "%s", r->gone_path[*gone - 1]);
		else if (fstap_pathmap_path(r->pm, rows[i].dir, path, sizeof(path)) < 0)
			snprintf(path, sizeof(path), "<obj:%" PRIu64 ">", rows[i].dir);
		if (!(w->path = strdup(path)))
			return -ENOMEM;
		r->nrows++;
		w->lister = rows[i].lister;
		w->readers = rows[i].readers;
		w->nreaders = rows[i].nreaders;
		w->files = rows[i].files;
		w->listed = rows[i].listed;
		memcpy(w->rho, rows[i].rho, sizeof(w->rho));
	}
	return 0;
}

static int opened(struct rep *r, const struct fstap_rec *rec)
{
	struct an_obj *f = an_objtab_get(r->objs, rec->obj);

	if (!f || !f->parent)
		return 0;
	return an_access_open(r->order, rec->pid, f->parent, rec->obj);
}

/* ---- objects the pathmap forgets ---------------------------------------- */

static int cmp_dir_row(const void *a, const void *b)
{
	const struct dir_row *x = a, *y = b;

	if (x->ops != y->ops)
		return x->ops < y->ops ? 1 : -1;
	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

static char *path_of(struct rep *r, uint64_t obj)
{
	char path[PATH_CAP];

	if (fstap_pathmap_path(r->pm, obj, path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "<obj:%" PRIu64 ">", obj);
	return strdup(path);
}

/* A forgotten directory's row; only the top ones can be printed, so only they stay. */
static int keep_gone_dir(struct rep *r, const struct an_obj *o)
{
	size_t i;

	if (r->ngone >= 2 * (size_t)r->top + 64) {
		qsort(r->gone, r->ngone, sizeof(*r->gone), cmp_dir_row);
		for (i = r->top; i < r->ngone; i++)
			free(r->gone[i].path);
		r->ngone = r->top;
	}
	if (FSTAP_GROW(r->gone, r->ngone + 1, r->capgone))
		return -ENOMEM;
	r->gone[r->ngone] = (struct dir_row){ o->obj, o->u[0], path_of(r, o->obj) };
	return r->gone[r->ngone++].path ? 0 : -ENOMEM;
}

/* The path of a forgotten directory that has rows in the access order analysis. */
static int keep_gone_path(struct rep *r, uint64_t dir)
{
	char *p;

	if (fstap_map_get(&r->gone_paths, dir))
		return 0;
	if (FSTAP_GROW(r->gone_path, r->ngone_path + 1, r->capgone_path) || !(p = path_of(r, dir)))
		return -ENOMEM;
	r->gone_path[r->ngone_path++] = p;
	return fstap_map_put(&r->gone_paths, dir, r->ngone_path);
}

/* The pathmap forgets o (dead, pathmap.h): what the report's end needs of it, kept now. */
static void forgot(struct an_obj *o, void *arg)
{
	struct rep *r = arg;
	int ret;

	if (o->u[1]) {
		if (o->type == AN_OT_DIR)
			r->gone_dirs++;
		else
			r->gone_files++;
	}
	an_objtab_del(r->handles, o->obj | (1ull << 63));
	ret = an_access_forget(r->order, o->obj);
	if (ret > 0)
		ret = keep_gone_path(r, o->obj);
	if (!ret && o->u[0])
		ret = keep_gone_dir(r, o);
	if (ret)
		r->oom = 1;
}

/* ---- the pass over the trace -------------------------------------------- */

static void touch(struct rep *r, uint64_t obj)
{
	struct an_obj *o;

	if (!obj)
		return;
	o = an_objtab_add(r->objs, obj);
	if (!o)
		r->oom = 1;
	else
		o->u[1] = 1;
}

/* The directory an application record is counted for ("busiest directories"). */
static uint64_t busy_dir(struct rep *r, const struct fstap_rec *rec)
{
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	struct an_obj *o;

	if (oi && (oi->props & FSTAP_OPP_DIRENT))
		return rec->obj;
	o = an_objtab_get(r->objs, rec->obj);
	if (!o)
		return 0;
	if (o->type == AN_OT_DIR)
		return rec->obj;
	return o->parent;
}

static void io_account(struct rep *r, const struct fstap_rec *rec, int which)
{
	struct iostat *io = &r->io[which];
	uint64_t key = rec->fh ? rec->fh : (rec->obj | (1ull << 63));
	struct an_obj *h;

	io->ops++;
	io->hist[size_bucket(rec->size)]++;
	if (rec->result < 0)
		return;
	io->bytes += (uint64_t)rec->result;
	h = an_objtab_add(r->handles, key);
	if (!h) {
		r->oom = 1;
		return;
	}
	/* sequential: at the end of the previous transfer on the handle (0 at first) */
	if (rec->offset == h->u[0])
		io->seq++;
	else
		io->rnd++;
	h->u[0] = rec->offset + (uint64_t)rec->result;
}

static int account(struct rep *r, const struct fstap_rec *rec)
{
	uint64_t dir;
	struct proc *p;
	int ret;

	switch (rec->op) {
	case FSTAP_OP_PROCESS:
		p = proc_get(r, (uint32_t)rec->pid);
		if (!p)
			return -ENOMEM;
		free(p->comm);
		p->comm = strndup((const char *)rec->comm.ptr, rec->comm.len);
		if (!p->comm)
			return -ENOMEM;
		return 0;
	case FSTAP_OP_LOSS:
		r->lost += rec->lost;
		return 0;
	case FSTAP_OP_FOOTER:
		r->end_ns = rec->time_ns;
		return 0;
	default:
		break;
	}
	if (fstap_op_is_meta(rec->op))
		return an_objtab_apply(r->objs, r->pm, rec);
	if (!r->any || rec->start_ns < r->first_ns)
		r->first_ns = rec->start_ns;
	r->any = true;
	if (rec->start_ns + rec->dur_ns > r->last_end_ns)
		r->last_end_ns = rec->start_ns + rec->dur_ns;
	if (rec->op == FSTAP_OP_READ && rec->result > 0)
		r->bytes_read += (uint64_t)rec->result;
	if (rec->op == FSTAP_OP_WRITE && rec->result > 0)
		r->bytes_written += (uint64_t)rec->result;
	/* learn names first: a lookup's child belongs to its directory at once */
	if ((ret = an_objtab_apply(r->objs, r->pm, rec)))
		return ret;
	if ((rec->op == FSTAP_OP_RELEASE || rec->op == FSTAP_OP_RELEASEDIR) && rec->fh)
		an_objtab_del(r->handles, rec->fh);	/* its offsets end with it */
	if (rec->flags & FSTAP_RF_KERNEL) {
		r->kernel_ops++;
		r->ops[rec->op].kernel++;
		if (rec->op == FSTAP_OP_READ && rec->result > 0)
			r->kernel_bytes_read += (uint64_t)rec->result;
		if (rec->op == FSTAP_OP_WRITE && rec->result > 0)
			r->kernel_bytes_written += (uint64_t)rec->result;
		return 0;
	}
	r->app_ops++;
	r->ops[rec->op].count++;
	r->ops[rec->op].dur_sum += rec->dur_ns;
	if (rec->result < 0)
		r->ops[rec->op].errors++;
	p = proc_get(r, rec->pid);
	if (!p)
		return -ENOMEM;
	p->ops++;
	if (rec->tid && !an_objtab_get(r->threads, rec->tid)) {
		if (!an_objtab_add(r->threads, rec->tid))
			return -ENOMEM;
		r->nthreads++;
	}
	touch(r, rec->obj);
	if (rec->result >= 0) {
		touch(r, rec->child);
		touch(r, rec->newparent);
		touch(r, rec->obj2);
	}
	dir = busy_dir(r, rec);
	if (dir) {
		struct an_obj *d = an_objtab_add(r->objs, dir);

		if (!d)
			return -ENOMEM;
		d->u[0]++;
	}
	switch (rec->op) {
	case FSTAP_OP_READ:
		io_account(r, rec, IO_READ);
		if (rec->result > 0)
			p->bytes_read += (uint64_t)rec->result;
		break;
	case FSTAP_OP_WRITE:
		io_account(r, rec, IO_WRITE);
		if (rec->result > 0)
			p->bytes_written += (uint64_t)rec->result;
		break;
	case FSTAP_OP_LOOKUP:
		r->lookups++;
		if (rec->result < 0)
			r->lookups_failed++;
		break;
	case FSTAP_OP_READDIR:
		if (rec->result >= 0 && (ret = an_access_listing(r->order, rec, r->objs)))
			return ret;
		break;
	case FSTAP_OP_OPEN:
		if (rec->result >= 0 && (ret = opened(r, rec)))
			return ret;
		break;
	default:
		break;
	}
	return r->oom ? -ENOMEM : 0;
}

/* ---- the model, as JSON (the text renderer reads the same tree) --------- */

static json_int_t jint(json_t *o, const char *path);

struct collect {
	struct dir_row *rows;
	size_t n, cap;
	uint64_t files, dirs;
	int oom;
};

static void collect_obj(struct an_obj *o, void *arg)
{
	struct collect *c = arg;

	if (o->u[1]) {
		if (o->type == AN_OT_DIR)
			c->dirs++;
		else
			c->files++;
	}
	if (!o->u[0])
		return;
	if (FSTAP_GROW(c->rows, c->n + 1, c->cap)) {
		c->oom = 1;
		return;
	}
	c->rows[c->n++] = (struct dir_row){ o->obj, o->u[0], NULL };
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->ops != y->ops)
		return x->ops < y->ops ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_order_row(const void *a, const void *b)
{
	const struct order_row *x = a, *y = b;

	int c;

	if (x->files != y->files)
		return x->files < y->files ? 1 : -1;
	if ((c = strcmp(x->path, y->path)))
		return c;
	if (x->lister != y->lister)
		return x->lister < y->lister ? -1 : 1;
	return (x->readers[0] > y->readers[0]) - (x->readers[0] < y->readers[0]);
}

static json_t *json_real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(round(v * 1e4) / 1e4);
}

static json_t *io_json(const struct iostat *io)
{
	json_t *o = json_object(), *h = json_object();
	char label[32];
	unsigned b;

	json_object_set_new(o, "ops", json_integer((json_int_t)io->ops));
	json_object_set_new(o, "bytes", json_integer((json_int_t)io->bytes));
	json_object_set_new(o, "sequential", json_integer((json_int_t)io->seq));
	json_object_set_new(o, "random", json_integer((json_int_t)io->rnd));
	for (b = 0; b < NBUCKETS; b++) {
		if (!io->hist[b])
			continue;
		if (b == 0)
			snprintf(label, sizeof(label), "0");
		else
			snprintf(label, sizeof(label), "%" PRIu64, b > 64 ? UINT64_MAX : (uint64_t)1 << (b - 1));
		json_object_set_new(h, label, json_integer((json_int_t)io->hist[b]));
	}
	json_object_set_new(o, "sizes", h);
	return o;
}

/*
 * The verdict over the directories with at least MIN_ORDER_FILES opened
 * files: the order(s) whose mean rho is highest, as a sentence.
 */
static void verdict(const double *mean, size_t ndirs, char *buf, size_t cap)
{
	double best = -2;
	int i, nbest = 0;
	char orders[64] = "";

	if (!ndirs) {
		snprintf(buf, cap, "no directory was listed and then read (%d files or more)",
			 MIN_ORDER_FILES);
		return;
	}
	for (i = 0; i < ORD_NR; i++)
		if (!isnan(mean[i]) && mean[i] > best)
			best = mean[i];
	for (i = 0; i < ORD_NR; i++) {
		if (isnan(mean[i]) || mean[i] < best - 0.02)
			continue;
		snprintf(orders + strlen(orders), sizeof(orders) - strlen(orders), "%s%s",
			 nbest ? " and " : "", ord_names[i]);
		nbest++;
	}
	if (best >= 0.9)
		snprintf(buf, cap, "opens follow %s order (rho %.2f over %zu director%s)",
			 orders, best, ndirs, ndirs == 1 ? "y" : "ies");
	else if (best >= 0.5)
		snprintf(buf, cap, "opens partly follow %s order (rho %.2f over %zu director%s)",
			 orders, best, ndirs, ndirs == 1 ? "y" : "ies");
	else if (best <= -0.9)
		snprintf(buf, cap, "opens follow the reverse of %s order (rho %.2f over %zu director%s)",
			 orders, best, ndirs, ndirs == 1 ? "y" : "ies");
	else
		snprintf(buf, cap, "opens follow none of readdir, name or inode order "
			 "(best: %s, rho %.2f over %zu director%s)", orders, best, ndirs,
			 ndirs == 1 ? "y" : "ies");
}

/* Whether the row's reading is the lister's own. */
static bool own_reading(const struct order_row *w)
{
	return w->nreaders == 1 && w->readers[0] == w->lister;
}

static json_t *pid_array(const uint32_t *pids, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(pids[i]));
	return a;
}

/* Adds the pids to a (a JSON array of distinct pids) that it lacks. */
static void add_pids(json_t *a, const uint32_t *pids, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < json_array_size(a); j++)
			if (json_integer_value(json_array_get(a, j)) == pids[i])
				break;
		if (j == json_array_size(a))
			json_array_append_new(a, json_integer(pids[i]));
	}
}

/*
 * Who listed and who read, over the rows that count (MIN_ORDER_FILES): one
 * object per lister and reader name (the lister's own readings apart), in
 * the order of their first row, with the pids of all its readers.
 */
static json_t *order_pairs(struct rep *r)
{
	json_t *a = json_array(), *p;
	size_t i, j;

	for (i = 0; i < r->nrows; i++) {
		const struct order_row *w = &r->rows[i];
		const char *rc = proc_comm(r, w->readers[0]);

		if (w->files < MIN_ORDER_FILES)
			continue;
		for (j = 0; j < json_array_size(a); j++) {
			p = json_array_get(a, j);
			if (jint(p, "lister_pid") == w->lister &&
			    json_is_true(json_object_get(p, "own")) == own_reading(w) &&
			    !strcmp(json_string_value(json_object_get(p, "reader_comm")), rc))
				break;
		}
		if (j == json_array_size(a))
			json_array_append_new(a, json_pack("{s:I, s:s, s:b, s:s, s:[], s:I, s:I}",
				"lister_pid", (json_int_t)w->lister, "lister_comm", proc_comm(r, w->lister),
				"own", own_reading(w), "reader_comm", rc, "reader_pids",
				"directories", (json_int_t)0, "files", (json_int_t)0));
		p = json_array_get(a, j);
		add_pids(json_object_get(p, "reader_pids"), w->readers, w->nreaders);
		json_object_set_new(p, "directories", json_integer(jint(p, "directories") + 1));
		json_object_set_new(p, "files", json_integer(jint(p, "files") + (json_int_t)w->files));
	}
	return a;
}

static json_t *build_json(struct rep *r, unsigned top)
{
	json_t *root = json_object(), *o, *a, *by;
	struct collect c = { 0 };
	double sum[ORD_NR] = { 0 }, mean[ORD_NR];
	size_t cnt[ORD_NR] = { 0 }, ndirs = 0, nfiles = 0, i;
	char path[PATH_CAP], text[256];
	unsigned op;

	json_object_set_new(root, "trace", json_string(r->trace));
	json_object_set_new(root, "complete", json_boolean(r->complete));
	json_object_set_new(root, "first_ns", json_integer((json_int_t)r->first_ns));
	json_object_set_new(root, "last_end_ns", json_integer((json_int_t)r->last_end_ns));
	json_object_set_new(root, "duration_ns",
			    json_integer((json_int_t)(r->last_end_ns - r->first_ns)));
	json_object_set_new(root, "lost", json_integer((json_int_t)r->lost));

	o = json_object();
	json_object_set_new(o, "application", json_integer((json_int_t)r->app_ops));
	json_object_set_new(o, "kernel", json_integer((json_int_t)r->kernel_ops));
	by = json_object();
	for (op = 0; op < FSTAP_OP_META_FIRST; op++) {
		const struct opstat *s = &r->ops[op];

		if (!s->count)
			continue;
		json_object_set_new(by, fstap_op_info(op)->name,
				    json_pack("{s:I, s:I, s:I}", "count", (json_int_t)s->count,
					      "errors", (json_int_t)s->errors,
					      "mean_ns", (json_int_t)(s->dur_sum / s->count)));
	}
	json_object_set_new(o, "by_op", by);
	json_object_set_new(root, "operations", o);

	if (r->nprocs)
		qsort(r->procs, r->nprocs, sizeof(*r->procs), cmp_proc);
	a = json_array();
	for (i = 0; i < r->nprocs && i < top; i++) {
		const struct proc *p = &r->procs[i];

		if (!p->ops)
			continue;
		json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I, s:I}",
						   "pid", (json_int_t)p->pid,
						   "comm", proc_comm(r, p->pid),
						   "ops", (json_int_t)p->ops,
						   "bytes_read", (json_int_t)p->bytes_read,
						   "bytes_written", (json_int_t)p->bytes_written));
	}
	json_object_set_new(root, "processes", a);
	json_object_set_new(root, "threads", json_integer((json_int_t)r->nthreads));

	json_object_set_new(root, "bytes",
			    json_pack("{s:I, s:I, s:I, s:I}",
				      "read", (json_int_t)r->bytes_read,
				      "written", (json_int_t)r->bytes_written,
				      "kernel_read", (json_int_t)r->kernel_bytes_read,
				      "kernel_written", (json_int_t)r->kernel_bytes_written));

	an_objtab_each(r->objs, collect_obj, &c);
	c.files += r->gone_files;
	c.dirs += r->gone_dirs;
	for (i = 0; i < r->ngone && !c.oom; i++) {
		if (FSTAP_GROW(c.rows, c.n + 1, c.cap))
			c.oom = 1;
		else
			c.rows[c.n++] = r->gone[i];
	}
	if (c.oom)
		r->oom = 1;
	json_object_set_new(root, "touched", json_pack("{s:I, s:I}",
						       "files", (json_int_t)c.files,
						       "directories", (json_int_t)c.dirs));
	o = json_object();
	for (i = 0; i < IO_NR; i++)
		json_object_set_new(o, io_names[i], io_json(&r->io[i]));
	json_object_set_new(root, "io", o);

	if (c.n)
		qsort(c.rows, c.n, sizeof(*c.rows), cmp_dir_row);
	a = json_array();
	for (i = 0; i < c.n && i < top; i++) {
		if (c.rows[i].path)
			snprintf(path, sizeof(path), "%s", c.rows[i].path);
		else if (fstap_pathmap_path(r->pm, c.rows[i].obj, path, sizeof(path)) < 0)
			snprintf(path, sizeof(path), "<obj:%" PRIu64 ">", c.rows[i].obj);
		json_array_append_new(a, json_pack("{s:s, s:I}", "path", path,
						   "ops", (json_int_t)c.rows[i].ops));
	}
	free(c.rows);
	json_object_set_new(root, "directories", a);

	json_object_set_new(root, "lookups",
			    json_pack("{s:I, s:I, s:o}", "total", (json_int_t)r->lookups,
				      "failed", (json_int_t)r->lookups_failed, "failed_fraction",
				      json_real_or_null(r->lookups ? (double)r->lookups_failed /
							(double)r->lookups : NAN)));

	o = json_object();
	json_object_set_new(o, "total", json_integer((json_int_t)r->kernel_ops));
	by = json_object();
	for (op = 0; op < FSTAP_OP_META_FIRST; op++)
		if (r->ops[op].kernel)
			json_object_set_new(by, fstap_op_info(op)->name,
					    json_integer((json_int_t)r->ops[op].kernel));
	json_object_set_new(o, "by_op", by);
	json_object_set_new(root, "kernel", o);

	/* access order */
	if (r->nrows)
		qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_order_row);
	for (i = 0; i < r->nrows; i++) {
		int k;

		if (r->rows[i].files < MIN_ORDER_FILES)
			continue;
		ndirs++;
		nfiles += r->rows[i].files;
		for (k = 0; k < ORD_NR; k++) {
			if (isnan(r->rows[i].rho[k]))
				continue;
			sum[k] += r->rows[i].rho[k];
			cnt[k]++;
		}
	}
	o = json_object();
	json_object_set_new(o, "directories", json_integer((json_int_t)ndirs));
	json_object_set_new(o, "files", json_integer((json_int_t)nfiles));
	json_object_set_new(o, "min_files", json_integer(MIN_ORDER_FILES));
	by = json_object();
	for (i = 0; i < ORD_NR; i++) {
		mean[i] = cnt[i] ? sum[i] / (double)cnt[i] : NAN;
		json_object_set_new(by, ord_names[i], json_real_or_null(mean[i]));
	}
	json_object_set_new(o, "mean_rho", by);
	verdict(mean, ndirs, text, sizeof(text));
	json_object_set_new(o, "verdict", json_string(text));
	a = json_array();
	for (i = 0; i < r->nrows && i < top; i++) {
		const struct order_row *w = &r->rows[i];

		json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:I, s:s, s:o, s:I, s:I, s:{s:o, s:o, s:o}}",
			"path", w->path, "pid", (json_int_t)w->lister, "comm", proc_comm(r, w->lister),
			"reader_pid", (json_int_t)w->readers[0], "reader_comm", proc_comm(r, w->readers[0]),
			"readers", pid_array(w->readers, w->nreaders),
			"files", (json_int_t)w->files, "listed", (json_int_t)w->listed, "rho",
			"readdir", json_real_or_null(w->rho[ORD_READDIR]),
			"name", json_real_or_null(w->rho[ORD_NAME]),
			"inode", json_real_or_null(w->rho[ORD_INODE])));
	}
	json_object_set_new(o, "per_directory", a);
	json_object_set_new(o, "processes", order_pairs(r));
	json_object_set_new(o, "listings", json_integer((json_int_t)r->nrows));
	json_object_set_new(root, "access_order", o);
	return root;
}

/* ---- text --------------------------------------------------------------- */

static json_int_t jint(json_t *o, const char *path)
{
	char key[64];
	const char *p = path, *dot;

	while ((dot = strchr(p, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - p), p);
		o = json_object_get(o, key);
		p = dot + 1;
	}
	return json_integer_value(json_object_get(o, p));
}

static void human_bytes(uint64_t v, char *buf, size_t cap)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	int i = 0;

	while (d >= 1024 && i < 5) {
		d /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, cap, "%" PRIu64 " B", v);
	else
		snprintf(buf, cap, "%.1f %s", d, u[i]);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void rho_text(FILE *f, json_t *v)
{
	if (json_is_number(v))
		fprintf(f, " %7.2f", json_number_value(v));
	else
		fprintf(f, " %7s", "-");
}

static void print_text(struct rep *r, json_t *root, FILE *f)
{
	json_t *o, *a, *v;
	const char *key;
	char b1[32], b2[32];
	size_t i, n;
	unsigned bkt;
	uint64_t dur = r->last_end_ns - r->first_ns;

	fprintf(f, "fstap report: %s%s\n", r->trace, r->complete ? "" : " (incomplete trace)");
	fprintf(f, "  duration: %.3f s (first operation at %.3f s, last ends at %.3f s)\n",
		(double)dur / 1e9, (double)r->first_ns / 1e9, (double)r->last_end_ns / 1e9);
	fprintf(f, "  operations: %" PRIu64 " by applications, %" PRIu64
		" by the kernel on its own; %" PRIu64 " lost in recording\n",
		r->app_ops, r->kernel_ops, r->lost);
	for (i = 0, n = 0; i < r->nprocs; i++)
		n += r->procs[i].pid != 0;
	fprintf(f, "  processes: %zu, threads: %" PRIu64 "\n", n, (uint64_t)jint(root, "threads"));
	human_bytes(r->bytes_read, b1, sizeof(b1));
	human_bytes(r->bytes_written, b2, sizeof(b2));
	fprintf(f, "  bytes: read %s (%" PRIu64 "), written %s (%" PRIu64 ")", b1,
		r->bytes_read, b2, r->bytes_written);
	if (r->kernel_bytes_read || r->kernel_bytes_written)
		fprintf(f, "; by the kernel: read %" PRIu64 ", written %" PRIu64,
			r->kernel_bytes_read, r->kernel_bytes_written);
	fprintf(f, "\n  touched: %" PRId64 " files, %" PRId64 " directories\n",
		(int64_t)jint(root, "touched.files"), (int64_t)jint(root, "touched.directories"));
	fprintf(f, "  lookups: %" PRIu64 ", failed %" PRIu64 " (%.1f%%)\n", r->lookups,
		r->lookups_failed, pct(r->lookups_failed, r->lookups));

	fprintf(f, "\noperations (application)\n  %-16s %10s %6s %8s %12s\n", "op", "count",
		"%", "errors", "mean lat");
	json_object_foreach(json_object_get(json_object_get(root, "operations"), "by_op"), key, v) {
		fprintf(f, "  %-16s %10" PRId64 " %6.1f %8" PRId64 " %10.1fus\n", key,
			(int64_t)jint(v, "count"), pct((uint64_t)jint(v, "count"), r->app_ops),
			(int64_t)jint(v, "errors"), (double)jint(v, "mean_ns") / 1e3);
	}

	fprintf(f, "\nprocesses (top %zu by operations)\n  %8s %-16s %10s %14s %14s\n",
		json_array_size(json_object_get(root, "processes")), "pid", "comm", "ops",
		"bytes read", "bytes written");
	json_array_foreach(json_object_get(root, "processes"), i, v)
		fprintf(f, "  %8" PRId64 " %-16s %10" PRId64 " %14" PRId64 " %14" PRId64 "\n",
			(int64_t)jint(v, "pid"), json_string_value(json_object_get(v, "comm")),
			(int64_t)jint(v, "ops"), (int64_t)jint(v, "bytes_read"),
			(int64_t)jint(v, "bytes_written"));

	for (i = 0; i < IO_NR; i++) {
		const struct iostat *io = &r->io[i];
		uint64_t done = io->seq + io->rnd;

		human_bytes(io->bytes, b1, sizeof(b1));
		fprintf(f, "\n%s: %" PRIu64 " requests, %s; sequential %" PRIu64 " (%.1f%%), random %"
			PRIu64 " (%.1f%%)\n", io_names[i], io->ops, b1, io->seq, pct(io->seq, done),
			io->rnd, pct(io->rnd, done));
		if (!io->ops)
			continue;
		fprintf(f, "  request sizes:");
		for (bkt = 0; bkt < NBUCKETS; bkt++) {
			if (!io->hist[bkt])
				continue;
			size_label(bkt, b2, sizeof(b2));
			fprintf(f, " <=%s=%.1f%%(%" PRIu64 ")", b2, pct(io->hist[bkt], io->ops),
				io->hist[bkt]);
		}
		fputc('\n', f);
	}

	a = json_object_get(root, "directories");
	fprintf(f, "\nbusiest directories (top %zu, operations on their entries and files)\n",
		json_array_size(a));
	json_array_foreach(a, i, v)
		fprintf(f, "  %10" PRId64 "  %s\n", (int64_t)jint(v, "ops"),
			json_string_value(json_object_get(v, "path")));

	o = json_object_get(json_object_get(root, "kernel"), "by_op");
	fprintf(f, "\nkernel requests (not counted above): %" PRIu64 "\n", r->kernel_ops);
	json_object_foreach(o, key, v)
		fprintf(f, "  %-16s %10" PRId64 "\n", key, (int64_t)json_integer_value(v));

	o = json_object_get(root, "access_order");
	fprintf(f, "\naccess order (files opened after their directory was listed, by any process)\n");
	fprintf(f, "  listings followed by opens: %" PRId64 "; with %d or more files: %" PRId64
		" directories, %" PRId64 " files\n", (int64_t)jint(o, "listings"), MIN_ORDER_FILES,
		(int64_t)jint(o, "directories"), (int64_t)jint(o, "files"));
	fprintf(f, "  mean rank correlation (Spearman rho) of the open order with:\n");
	for (i = 0; i < ORD_NR; i++) {
		fprintf(f, "    %-8s order", ord_names[i]);
		rho_text(f, json_object_get(json_object_get(o, "mean_rho"), ord_names[i]));
		fputc('\n', f);
	}
	fprintf(f, "  verdict: %s\n", json_string_value(json_object_get(o, "verdict")));
	json_array_foreach(json_object_get(o, "processes"), i, v) {
		const char *lc = json_string_value(json_object_get(v, "lister_comm"));
		const char *rc = json_string_value(json_object_get(v, "reader_comm"));

		json_t *pids = json_object_get(v, "reader_pids");

		if (json_is_true(json_object_get(v, "own")))
			fprintf(f, "  listed and read by %s (pid %" PRId64 ")", lc,
				(int64_t)jint(v, "lister_pid"));
		else if (json_array_size(pids) == 1)
			fprintf(f, "  listed by %s (pid %" PRId64 "), read by %s (pid %" PRId64 ")",
				lc, (int64_t)jint(v, "lister_pid"), rc,
				(int64_t)json_integer_value(json_array_get(pids, 0)));
		else
			fprintf(f, "  listed by %s (pid %" PRId64 "), read by %s (%zu processes)",
				lc, (int64_t)jint(v, "lister_pid"), rc, json_array_size(pids));
		fprintf(f, ": %" PRId64 " director%s, %" PRId64 " files\n",
			(int64_t)jint(v, "directories"), jint(v, "directories") == 1 ? "y" : "ies",
			(int64_t)jint(v, "files"));
	}
	a = json_object_get(o, "per_directory");
	if (json_array_size(a)) {
		fprintf(f, "  per directory (top %zu by files opened):\n  %7s %7s %7s %7s %8s %8s  %s\n",
			json_array_size(a), "readdir", "name", "inode", "files", "lister", "reader",
			"path");
		json_array_foreach(a, i, v) {
			json_t *rho = json_object_get(v, "rho");

			fputs(" ", f);
			rho_text(f, json_object_get(rho, "readdir"));
			rho_text(f, json_object_get(rho, "name"));
			rho_text(f, json_object_get(rho, "inode"));
			fprintf(f, " %7" PRId64 " %8" PRId64 " %8" PRId64 "  %s\n",
				(int64_t)jint(v, "files"), (int64_t)jint(v, "pid"),
				(int64_t)jint(v, "reader_pid"),
				json_string_value(json_object_get(v, "path")));
		}
	}
}

/* ---- entry point -------------------------------------------------------- */

int an_report(const char *trace, const struct an_report_opts *opts, FILE *out)
{
	struct fstap_reader *rd = NULL;
	struct fstap_sorter *s = NULL;
	struct rep r = { .trace = trace, .top = opts->top };
	struct fstap_rec rec;
	json_t *root = NULL;
	char line[256];
	int ret;
	size_t i;

	if ((ret = an_open_sorted(trace, &rd, &s)))
		return ret;
	if (an_objtab_new(&r.objs) || an_objtab_new(&r.handles) || an_objtab_new(&r.threads) ||
	    fstap_pathmap_new(&r.pm) || an_access_new(&r.order)) {
		ret = fstap_error(-ENOMEM, "out of memory");
		goto done;
	}
	an_objtab_forget_dead(r.objs, forgot, &r);
	while ((ret = fstap_sorter_next(s, &rec)) == 1)
		if ((ret = account(&r, &rec)))
			break;
	if (ret < 0) {
		if (ret == -ENOMEM)
			fstap_error(ret, "out of memory");
		else
			fstap_error(ret, "%s", fstap_reader_errmsg(rd));
		goto done;
	}
	r.complete = fstap_reader_complete(rd);
	if (r.complete)
		r.lost = fstap_reader_footer(rd)->lost;
	else if (fstap_reader_notice(rd, "reported", line, sizeof(line)))
		fstap_warn("%s", line);
	if (fstap_sorter_late(s))
		fstap_warn("%llu records came later than the reorder window and are out of time order",
			   (unsigned long long)fstap_sorter_late(s));
	if ((ret = order_rows(&r))) {
		ret = fstap_error(ret, "out of memory");
		goto done;
	}
	root = build_json(&r, opts->top);
	if (r.oom) {
		ret = fstap_error(-ENOMEM, "out of memory");
		goto done;
	}
	if (opts->json) {
		char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));

		if (!text) {
			ret = fstap_error(-ENOMEM, "out of memory");
			goto done;
		}
		fprintf(out, "%s\n", text);
		free(text);
	} else {
		print_text(&r, root, out);
	}
	ret = 0;
done:
	json_decref(root);
	an_access_free(r.order);
	an_objtab_free(r.objs);
	an_objtab_free(r.handles);
	an_objtab_free(r.threads);
	fstap_pathmap_free(r.pm);
	for (i = 0; i < r.nprocs; i++)
		free(r.procs[i].comm);
	free(r.procs);
	for (i = 0; i < r.nrows; i++)
		free(r.rows[i].path);
	free(r.rows);
	for (i = 0; i < r.ngone; i++)
		free(r.gone[i].path);
	free(r.gone);
	for (i = 0; i < r.ngone_path; i++)
		free(r.gone_path[i]);
	free(r.gone_path);
	fstap_map_release(&r.gone_paths);
	fstap_sorter_free(s);
	fstap_reader_close(rd);
	return ret;
}
