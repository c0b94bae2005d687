/*
 * report_json.c: the model of `fstap report` as one JSON tree, what
 * --json prints and what the text renderer (report_text.c) reads: the
 * totals, the operations, the top processes, bytes, the objects touched
 * (those the pathmap forgot included), reads and writes with their size
 * histograms, the busiest directories, lookups, the kernel's own requests
 * and the access order (report_order.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_i.h"
#include "fstap/pathmap.h"

/* The objects touched and the directories with operations, forgotten ones included. */
struct collect {
	const struct fstap_pathmap *pm;
	struct dir_row *rows;
	size_t n, cap;
	uint64_t files, dirs;
	int oom;
};

static void collect_obj(struct an_obj *o, void *arg)
{
	struct collect *c = arg;

	if (o->report.touched) {
		if (fstap_pathmap_kind(c->pm, o->obj) == FSTAP_KIND_DIR)
			c->dirs++;
		else
			c->files++;
	}
	if (!o->report.ops)
		return;
	if (FSTAP_GROW(c->rows, c->n + 1, c->cap)) {
		c->oom = 1;
		return;
	}
	c->rows[c->n++] = (struct dir_row){ o->obj, o->report.ops, NULL };
}

static void collect(struct rep *r, struct collect *c)
{
	size_t i;

	c->pm = r->pm;
	an_objtab_each(r->objs, collect_obj, c);
	c->files += r->gone_files;
	c->dirs += r->gone_dirs;
	for (i = 0; i < r->ngone && !c->oom; i++) {
		if (FSTAP_GROW(c->rows, c->n + 1, c->cap))
			c->oom = 1;
		else
			c->rows[c->n++] = r->gone[i];
	}
	if (c->oom)
		r->oom = 1;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->ops != y->ops)
		return x->ops < y->ops ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

json_t *rep_real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(round(v * 1e4) / 1e4);
}

json_int_t rep_jint(json_t *o, const char *path)
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

static json_t *operations_json(const struct rep *r)
{
	json_t *o = json_object(), *by = json_object();
	unsigned op;

	json_object_set_new(o, "application", json_integer((json_int_t)r->app_ops));
	json_object_set_new(o, "kernel", json_integer((json_int_t)r->kernel_ops));
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
	return o;
}

/* The top processes by operations (sorted in a copy: r->procs is indexed by pid). */
static json_t *processes_json(struct rep *r, unsigned top)
{
	json_t *a = json_array();
	struct proc *sorted;
	size_t i;

	if (!r->nprocs)
		return a;
	sorted = malloc(r->nprocs * sizeof(*sorted));
	if (!sorted) {
		r->oom = 1;
		return a;
	}
	memcpy(sorted, r->procs, r->nprocs * sizeof(*sorted));
	qsort(sorted, r->nprocs, sizeof(*sorted), cmp_proc);
	for (i = 0; i < r->nprocs && i < top; i++) {
		const struct proc *p = &sorted[i];

		if (!p->ops)
			continue;
		json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I, s:I}",
						   "pid", (json_int_t)p->pid,
						   "comm", rep_proc_comm(r, p->pid),
						   "ops", (json_int_t)p->ops,
						   "bytes_read", (json_int_t)p->bytes_read,
						   "bytes_written", (json_int_t)p->bytes_written));
	}
	free(sorted);
	return a;
}

/* The busiest directories of c (sorted here), the top ones; frees c's rows. */
static json_t *directories_json(const struct rep *r, struct collect *c, unsigned top)
{
	json_t *a = json_array();
	char path[PATH_CAP];
	size_t i;

	if (c->n)
		qsort(c->rows, c->n, sizeof(*c->rows), rep_cmp_dir_row);
	for (i = 0; i < c->n && i < top; i++) {
		if (c->rows[i].path)
			snprintf(path, sizeof(path), "%s", c->rows[i].path);
		else
			rep_obj_path(r, c->rows[i].obj, path, sizeof(path));
		json_array_append_new(a, json_pack("{s:s, s:I}", "path", path,
						   "ops", (json_int_t)c->rows[i].ops));
	}
	free(c->rows);
	return a;
}

static json_t *kernel_json(const struct rep *r)
{
	json_t *o = json_object(), *by = json_object();
	unsigned op;

	json_object_set_new(o, "total", json_integer((json_int_t)r->kernel_ops));
	for (op = 0; op < FSTAP_OP_META_FIRST; op++)
		if (r->ops[op].kernel)
			json_object_set_new(by, fstap_op_info(op)->name,
					    json_integer((json_int_t)r->ops[op].kernel));
	json_object_set_new(o, "by_op", by);
	return o;
}

json_t *rep_json(struct rep *r, unsigned top)
{
	json_t *root = json_object(), *o;
	struct collect c = { 0 };
	size_t i;

	json_object_set_new(root, "trace", json_string(r->trace));
	json_object_set_new(root, "complete", json_boolean(r->complete));
	json_object_set_new(root, "first_ns", json_integer((json_int_t)r->first_ns));
	json_object_set_new(root, "last_end_ns", json_integer((json_int_t)r->last_end_ns));
	json_object_set_new(root, "duration_ns",
			    json_integer((json_int_t)(r->last_end_ns - r->first_ns)));
	json_object_set_new(root, "lost", json_integer((json_int_t)r->lost));
	json_object_set_new(root, "operations", operations_json(r));
	json_object_set_new(root, "processes", processes_json(r, top));
	json_object_set_new(root, "threads", json_integer((json_int_t)r->nthreads));
	json_object_set_new(root, "bytes",
			    json_pack("{s:I, s:I, s:I, s:I}",
				      "read", (json_int_t)r->bytes_read,
				      "written", (json_int_t)r->bytes_written,
				      "kernel_read", (json_int_t)r->kernel_bytes_read,
				      "kernel_written", (json_int_t)r->kernel_bytes_written));

	collect(r, &c);
	json_object_set_new(root, "touched", json_pack("{s:I, s:I}",
						       "files", (json_int_t)c.files,
						       "directories", (json_int_t)c.dirs));
	o = json_object();
	for (i = 0; i < IO_NR; i++)
		json_object_set_new(o, rep_io_names[i], io_json(&r->io[i]));
	json_object_set_new(root, "io", o);
	json_object_set_new(root, "directories", directories_json(r, &c, top));

	json_object_set_new(root, "lookups",
			    json_pack("{s:I, s:I, s:o}", "total", (json_int_t)r->lookups,
				      "failed", (json_int_t)r->lookups_failed, "failed_fraction",
				      rep_real_or_null(r->lookups ? (double)r->lookups_failed /
						       (double)r->lookups : NAN)));
	json_object_set_new(root, "kernel", kernel_json(r));
	json_object_set_new(root, "access_order", rep_order_json(r, top));
	return root;
}
