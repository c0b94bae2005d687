/*
 * verdict.c: what compare concludes per row (best, same, slower,
 * inconclusive, diverged, failed) from the runs, with the statistics of
 * stats.c, and the closing sentence of the table. Pure: no I/O.
 * docs/compare.md gives the rules for the reader.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "fstap/util.h"

static const char *const verdict_names[] = {
	[CMP_V_NONE] = "none",		[CMP_V_BEST] = "best",
	[CMP_V_SAME] = "same",		[CMP_V_SLOWER] = "slower",
	[CMP_V_INCONCLUSIVE] = "inconclusive",
	[CMP_V_DIVERGED] = "diverged",	[CMP_V_FAILED] = "failed",
};

const char *cmp_verdict_name(enum cmp_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(verdict_names) ? verdict_names[v]
									       : "none";
}

/* The run with the largest share of diverged operations (div_* of row). */
static void worst_divergence(struct cmp_row *row)
{
	unsigned k;

	row->div_worst = row->div_ops = 0;
	row->div_run = 0;
	for (k = 0; k < row->nruns; k++) {
		const struct cmp_run *u = &row->runs[k];
		double share = u->ops ? (double)u->divergences / (double)u->ops : u->divergences;
		double worst = row->div_ops ? (double)row->div_worst / (double)row->div_ops
					    : row->div_worst;

		if (u->divergences && (!row->div_run || share > worst)) {
			row->div_worst = u->divergences;
			row->div_ops = u->ops;
			row->div_run = k + 1;
		}
	}
}

static bool diverged(const struct cmp_row *row, double max_share)
{
	if (!row->div_run)
		return false;
	if (!row->div_ops)
		return true;
	return (double)row->div_worst / (double)row->div_ops > max_share;
}

/* Elapsed seconds (which == 0) or ops/s (which == 1) of the runs, malloc'd. */
static double *run_values(const struct cmp_row *row, int which)
{
	double *v = malloc((row->nruns ? row->nruns : 1) * sizeof(*v));
	unsigned k;

	if (!v)
		return NULL;
	for (k = 0; k < row->nruns; k++)
		v[k] = which ? row->runs[k].ops_per_s : row->runs[k].elapsed_s;
	return v;
}

/* The intervals of the medians and the divergence state of one row. */
static int describe_row(struct cmp_row *row, double max_share)
{
	double *el, *ops;
	int ret;

	row->tested = false;
	row->runs_needed = 0;
	row->p = row->p_holm = 1;
	row->vs_best = 0;
	memset(&row->vs_best_ci, 0, sizeof(row->vs_best_ci));
	if (row->failed || !row->nruns) {
		row->verdict = CMP_V_FAILED;
		return 0;
	}
	el = run_values(row, 0);
	ops = run_values(row, 1);
	ret = el && ops ? 0 : -ENOMEM;
	if (!ret)
		ret = cmp_median_ci(el, row->nruns, &row->elapsed_ci);
	if (!ret)
		ret = cmp_median_ci(ops, row->nruns, &row->ops_ci);
	free(el);
	free(ops);
	worst_divergence(row);
	row->verdict = diverged(row, max_share) ? CMP_V_DIVERGED : CMP_V_NONE;
	return ret;
}

/* The U test and the ratio of row against best (row->p, vs_best). */
static int test_row(const struct cmp_row *best, struct cmp_row *row)
{
	double *x = run_values(best, 0), *y = run_values(row, 0);
	bool exact;
	int ret = x && y ? 0 : -ENOMEM;

	if (!ret)
		ret = cmp_mann_whitney(x, best->nruns, y, row->nruns, &row->p, &exact);
	if (!ret && cmp_hl_ratio(x, best->nruns, y, row->nruns, &row->vs_best, &row->vs_best_ci))
		row->vs_best = 0;	/* a zero time: no ratio */
	row->tested = !ret;
	free(x);
	free(y);
	return ret;
}

int cmp_results_decide(struct cmp_results *res)
{
	struct cmp_row *best = NULL;
	double *p;
	unsigned i, m = 0, j;
	int ret = 0;

	for (i = 0; i < res->nrows && !ret; i++) {
		struct cmp_row *r = &res->rows[i];

		ret = describe_row(r, res->max_divergence);
		if (r->verdict == CMP_V_NONE && (!best || r->med_s < best->med_s))
			best = r;
	}
	if (ret || !best)
		return ret;
	best->verdict = CMP_V_BEST;
	best->vs_best = 1;
	best->vs_best_ci = (struct cmp_ci){ 1, 1, 1, true };
	p = malloc(res->nrows * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < res->nrows && !ret; i++)
		if (res->rows[i].verdict == CMP_V_NONE) {
			ret = test_row(best, &res->rows[i]);
			p[m++] = res->rows[i].p;
		}
	if (!ret)
		ret = cmp_holm(p, m);
	for (i = 0, j = 0; i < res->nrows && !ret; i++) {
		struct cmp_row *r = &res->rows[i];

		if (r->verdict != CMP_V_NONE)
			continue;
		r->p_holm = p[j++];
		if (r->p_holm < CMP_ALPHA && r->vs_best > 1)
			r->verdict = CMP_V_SLOWER;
		else if (r->p_holm >= CMP_ALPHA &&
			 m * cmp_mann_whitney_min_p(best->nruns, r->nruns) >= CMP_ALPHA) {
			r->verdict = CMP_V_INCONCLUSIVE;
			r->runs_needed = cmp_runs_needed(m, CMP_ALPHA);
		} else if (r->p_holm < CMP_ALPHA) {
			r->verdict = CMP_V_INCONCLUSIVE;	/* ranks and medians disagree */
		} else {
			r->verdict = CMP_V_SAME;
		}
	}
	free(p);
	return ret;
}

bool cmp_results_undecided(const struct cmp_results *res)
{
	unsigned i;

	for (i = 0; i < res->nrows; i++)
		if (res->rows[i].verdict == CMP_V_INCONCLUSIVE)
			return true;
	return false;
}

void cmp_row_label(const struct cmp_results *res, const struct cmp_row *row, char *buf,
		   size_t len)
{
	unsigned i;
	bool variants = false;

	for (i = 0; i < res->nrows; i++)
		variants = variants || strcmp(res->rows[i].variant, row->variant);
	if (variants)
		snprintf(buf, len, "%s (%s)", row->cand->name, row->variant);
	else
		snprintf(buf, len, "%s", row->cand->name);
}

/* Appends printf output to buf (of len), keeping it terminated. */
static void __attribute__((format(printf, 3, 4))) append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* " [1.70-2.10]", with the coverage when it is below 95%. */
static void append_ci(char *buf, size_t len, const struct cmp_ci *ci)
{
	append(buf, len, " [%.2f-%.2f", ci->lo, ci->hi);
	if (!ci->reaches_95)
		append(buf, len, ", %.0f%% confidence", 100 * ci->coverage);
	append(buf, len, "]");
}

static void row_clause(const struct cmp_results *res, const struct cmp_row *r, char *buf,
		       size_t len)
{
	char label[128];

	cmp_row_label(res, r, label, sizeof(label));
	switch (r->verdict) {
	case CMP_V_BEST:
		append(buf, len, "%s is fastest", label);
		break;
	case CMP_V_SAME:
		append(buf, len, "%s is the same within noise (p=%.2g)", label, r->p_holm);
		break;
	case CMP_V_SLOWER:
		append(buf, len, "%s is %.2fx slower", label, r->ratio);
		append_ci(buf, len, &r->vs_best_ci);
		break;
	case CMP_V_INCONCLUSIVE:
		append(buf, len, "%s is inconclusive at %.2fx (p=%.2g", label, r->ratio,
		       r->p_holm);
		if (r->runs_needed)
			append(buf, len, "; %u runs per row could tell", r->runs_needed);
		append(buf, len, ")");
		break;
	case CMP_V_DIVERGED:
		append(buf, len, "%s diverged (%llu of %llu operations in run %u) and is not ranked",
		       label, (unsigned long long)r->div_worst, (unsigned long long)r->div_ops,
		       r->div_run);
		break;
	case CMP_V_FAILED:
		append(buf, len, "%s failed", label);
		break;
	case CMP_V_NONE:
		break;
	}
}

const char *cmp_verdict_sentence(const struct cmp_results *res, char *buf, size_t len)
{
	static const enum cmp_verdict order[] = { CMP_V_BEST, CMP_V_SAME, CMP_V_INCONCLUSIVE,
						  CMP_V_SLOWER, CMP_V_DIVERGED, CMP_V_FAILED };
	unsigned i, k, n = 0;
	bool ranked = false;

	buf[0] = '\0';
	for (i = 0; i < res->nrows; i++)
		ranked = ranked || res->rows[i].verdict == CMP_V_BEST;
	if (!ranked)
		append(buf, len, "no candidate could be ranked; ");
	for (k = 0; k < ARRAY_SIZE(order); k++)
		for (i = 0; i < res->nrows; i++) {
			if (res->rows[i].verdict != order[k])
				continue;
			if (n++)
				append(buf, len, "; ");
			row_clause(res, &res->rows[i], buf, len);
		}
	if (!n)
		append(buf, len, "nothing ran");
	return buf;
}
