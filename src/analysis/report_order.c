/*
 * report_order.c: the access order section of `fstap report`: the rows of
 * the order analysis (order.c) that count (MIN_ORDER_FILES opened files or
 * more), the mean rank correlation with each order, the verdict that says
 * which order the opens follow, who listed and who read, and the rows per
 * directory, as the "access_order" JSON object the text also prints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_i.h"

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
			 nbest ? " and " : "", rep_ord_names[i]);
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
static json_t *order_pairs(const struct rep *r)
{
	json_t *a = json_array(), *p;
	size_t i, j;

	for (i = 0; i < r->nrows; i++) {
		const struct order_row *w = &r->rows[i];
		const char *rc = rep_proc_comm(r, w->readers[0]);

		if (w->files < MIN_ORDER_FILES)
			continue;
		for (j = 0; j < json_array_size(a); j++) {
			p = json_array_get(a, j);
			if (rep_jint(p, "lister_pid") == w->lister &&
			    json_is_true(json_object_get(p, "own")) == own_reading(w) &&
			    !strcmp(json_string_value(json_object_get(p, "reader_comm")), rc))
				break;
		}
		if (j == json_array_size(a))
			json_array_append_new(a, json_pack("{s:I, s:s, s:b, s:s, s:[], s:I, s:I}",
				"lister_pid", (json_int_t)w->lister, "lister_comm", rep_proc_comm(r, w->lister),
				"own", own_reading(w), "reader_comm", rc, "reader_pids",
				"directories", (json_int_t)0, "files", (json_int_t)0));
		p = json_array_get(a, j);
		add_pids(json_object_get(p, "reader_pids"), w->readers, w->nreaders);
		json_object_set_new(p, "directories", json_integer(rep_jint(p, "directories") + 1));
		json_object_set_new(p, "files", json_integer(rep_jint(p, "files") + (json_int_t)w->files));
	}
	return a;
}

/* The top rows, one object each. */
static json_t *per_directory(const struct rep *r, unsigned top)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->nrows && i < top; i++) {
		const struct order_row *w = &r->rows[i];

		json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:I, s:s, s:o, s:I, s:I, s:{s:o, s:o, s:o}}",
			"path", w->path, "pid", (json_int_t)w->lister, "comm", rep_proc_comm(r, w->lister),
			"reader_pid", (json_int_t)w->readers[0], "reader_comm", rep_proc_comm(r, w->readers[0]),
			"readers", pid_array(w->readers, w->nreaders),
			"files", (json_int_t)w->files, "listed", (json_int_t)w->listed, "rho",
			"readdir", rep_real_or_null(w->rho[ORD_READDIR]),
			"name", rep_real_or_null(w->rho[ORD_NAME]),
			"inode", rep_real_or_null(w->rho[ORD_INODE])));
	}
	return a;
}

json_t *rep_order_json(struct rep *r, unsigned top)
{
	double sum[ORD_NR] = { 0 }, mean[ORD_NR];
	size_t cnt[ORD_NR] = { 0 }, ndirs = 0, nfiles = 0, i;
	char text[256];
	json_t *o, *by;

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
		json_object_set_new(by, rep_ord_names[i], rep_real_or_null(mean[i]));
	}
	json_object_set_new(o, "mean_rho", by);
	verdict(mean, ndirs, text, sizeof(text));
	json_object_set_new(o, "verdict", json_string(text));
	json_object_set_new(o, "per_directory", per_directory(r, top));
	json_object_set_new(o, "processes", order_pairs(r));
	json_object_set_new(o, "listings", json_integer((json_int_t)r->nrows));
	return o;
}
