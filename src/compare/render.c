/*
 * render.c: the renderers of `fstap compare` over one result model: the text
 * table (as posted to mailing lists), results.json, results.csv and
 * chart.svg (a horizontal bar chart written by hand: median per row,
 * min-max whiskers, every bar labelled). Pure: they only write to a FILE.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "fstap/util.h"

#define MAX_TOP_OPS 4

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s && s[1] ? s + 1 : p;
}

/* Decimals for seconds so that the smallest value still shows 3 digits. */
static int sec_decimals(const struct cmp_results *res)
{
	double lo = 0;
	unsigned i;

	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		if (!r->failed && r->nruns && (lo == 0 || r->min_s < lo))
			lo = r->min_s;
	}
	if (lo >= 0.1 || lo == 0)
		return 3;
	if (lo >= 0.01)
		return 4;
	if (lo >= 0.001)
		return 5;
	return 6;
}

static void fmt_us(double ns, char *buf, size_t len)
{
	double us = ns / 1000;

	if (us < 10)
		snprintf(buf, len, "%.2f", us);
	else if (us < 1000)
		snprintf(buf, len, "%.1f", us);
	else
		snprintf(buf, len, "%.0f", us);
}

static void describe(const struct cmp_candidate *c, char *buf, size_t len)
{
	switch (c->kind) {
	case CMP_TARGET:
		snprintf(buf, len, "directory %s (prepared afresh per run)", c->dir);
		return;
	case CMP_DEVICE:
	case CMP_IMAGE:
		snprintf(buf, len, "mkfs.%s%s%s%s%s%s", c->fstype, *c->mkfs_opts ? " " : "",
			 c->mkfs_opts, *c->mount_opts ? ", mount -o " : "", c->mount_opts,
			 c->kind == CMP_DEVICE ? ", on the device" : ", loop image");
		return;
	}
}

/* How the candidate's loop device reached its image: ", direct I/O" or the note. */
static const char *loop_io(const struct cmp_results *res, const struct cmp_candidate *c)
{
	static char buf[300];
	unsigned i;

	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		if (r->cand != c || !r->direct_io)
			continue;
		if (r->direct_io > 0 && !r->device_note[0])
			return ", direct I/O";
		snprintf(buf, sizeof(buf), "; %s", r->device_note);
		return buf;
	}
	return "";
}

/*
 * Which runs diverged from the recording, each with its divergence log
 * (kept in --out's logs/), or "none".
 */
static void divergence_section(FILE *f, const struct cmp_results *res, int cw, int vw)
{
	char path[4096];
	unsigned i, k;
	bool any = false;

	for (i = 0; i < res->nrows; i++)
		for (k = 0; k < res->rows[i].nruns; k++)
			any = any || res->rows[i].runs[k].divergences;
	if (!any) {
		fprintf(f, "\ndivergences: none (every run replayed the recorded results)\n");
		return;
	}
	fprintf(f, "\ndivergences (results that differ from the recorded ones), per run%s:\n",
		res->logdir ? "" : "; --out=DIR keeps each run's log");
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		for (k = 0; k < r->nruns; k++) {
			if (!r->runs[k].divergences)
				continue;
			fprintf(f, "  %-*s  %-*s  run %u: %llu", cw, r->cand->name, vw, r->variant,
				k + 1, (unsigned long long)r->runs[k].divergences);
			if (res->logdir && cmp_divlog_path(path, sizeof(path), res->logdir, r, k + 1))
				fprintf(f, "  %s", path);
			fputc('\n', f);
		}
	}
}

/* After a failed row's reason: the runs it completed, if any, and a newline. */
static void done_runs(FILE *f, const struct cmp_row *r, int dec)
{
	double *el = malloc((r->nruns ? r->nruns : 1) * sizeof(*el));
	unsigned k;

	if (r->nruns && el) {
		for (k = 0; k < r->nruns; k++)
			el[k] = r->runs[k].elapsed_s;
		fprintf(f, " (%u run%s done: median %.*f s)", r->nruns, r->nruns == 1 ? "" : "s",
			dec, cmp_median(el, r->nruns));
	}
	free(el);
	fputc('\n', f);
}

/* The verdict column: "best", "same (p=0.89)", "slower 1.90-2.10x", ... */
static void verdict_cell(const struct cmp_row *r, char *buf, size_t len)
{
	switch (r->verdict) {
	case CMP_V_SAME:
		snprintf(buf, len, "same (p=%.2g)", r->p_holm);
		return;
	case CMP_V_SLOWER:
		snprintf(buf, len, "slower %.2f-%.2fx%s", r->vs_best_ci.lo, r->vs_best_ci.hi,
			 r->vs_best_ci.reaches_95 ? "" : "*");
		return;
	case CMP_V_INCONCLUSIVE:
		if (r->runs_needed)
			snprintf(buf, len, "inconclusive (p=%.2g; %u runs could tell)", r->p_holm,
				 r->runs_needed);
		else
			snprintf(buf, len, "inconclusive (p=%.2g)", r->p_holm);
		return;
	case CMP_V_DIVERGED:
		snprintf(buf, len, "diverged: not ranked");
		return;
	default:
		snprintf(buf, len, "%s", cmp_verdict_name(r->verdict));
	}
}

/*
 * Under the table: what a star means, why each diverged row is not
 * ranked (with its divergence log), and the closing sentence.
 */
static void verdict_notes(FILE *f, const struct cmp_results *res)
{
	char buf[2048], path[4096], label[128];
	bool star = false;
	unsigned i;

	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		if (r->failed || !r->nruns)
			continue;
		star = star || !r->elapsed_ci.reaches_95 ||
		       (r->verdict == CMP_V_SLOWER && !r->vs_best_ci.reaches_95);
	}
	fprintf(f, "\nmedian CI: distribution-free 95%% interval of the median; verdicts: exact "
		   "Mann-Whitney test against the best row, Holm-corrected, p < %.2g\n", CMP_ALPHA);
	if (star)
		fprintf(f, "*: too few runs for a 95%% interval (the median's needs 6 per row): "
			   "the range shown covers less (results.json: ci95_coverage)\n");
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		if (r->verdict != CMP_V_DIVERGED)
			continue;
		cmp_row_label(res, r, label, sizeof(label));
		fprintf(f, "%s is not ranked: run %u diverged in %llu of %llu operations, above "
			   "--max-divergence=%g%%", label, r->div_run,
			(unsigned long long)r->div_worst, (unsigned long long)r->div_ops,
			100 * res->max_divergence);
		if (res->logdir && cmp_divlog_path(path, sizeof(path), res->logdir, r, r->div_run))
			fprintf(f, "; see %s", path);
		fputc('\n', f);
	}
	if (res->budget_stop)
		fprintf(f, "--time-budget=%g s: no time for more runs after %u per row; the "
			   "inconclusive verdicts stand\n", res->time_budget, res->runs);
	fprintf(f, "\n%s\n", cmp_verdict_sentence(res, buf, sizeof(buf)));
}

/* The lines above the table: the trace, the runs, the order, what the times are. */
static void table_header(FILE *f, const struct cmp_results *res, bool synced)
{
	unsigned i;

	for (i = 0; i < res->nrows && res->rows[i].cand->kind != CMP_TARGET; i++)
		;
	fprintf(f, "fstap compare: %s, %u run%s per row, each on a fresh file system%s\n",
		base_name(res->trace), res->runs, res->runs == 1 ? "" : "s",
		i < res->nrows ? " (a fresh directory for a --target)" : "");
	if (res->max_runs) {
		fprintf(f, "--runs=auto: runs added until every verdict was decided, at most %u "
			   "per row (--max-runs)", res->max_runs);
		if (res->time_budget > 0)
			fprintf(f, ", within %g s (--time-budget)", res->time_budget);
		fputc('\n', f);
	}
	if (res->clone > 1)
		fprintf(f, "--clone=%u: each run is %u clients at once, each on its own copy of the "
			   "workload; elapsed: the longest client's, ops/s and counts: all of theirs\n",
			res->clone, res->clone);
	if (res->shuffled)
		fprintf(f, "runs of all rows interleaved in a shuffled order (--seed=%lu repeats it)\n",
			res->seed);
	if (synced)
		fprintf(f, "elapsed seconds until the writes were durable (the replay, then syncfs; "
			   "lower is better); last call: the median until the replay's last call "
			   "returned; ops/s is the median over the runs\n\n");
	else
		fprintf(f, "elapsed seconds (lower is better); ops/s is the median over the runs\n\n");
}

/* The widths of the candidate and variant columns. */
static void name_widths(const struct cmp_results *res, int *cw, int *vw)
{
	unsigned i;

	*cw = (int)strlen("candidate");
	*vw = (int)strlen("variant");
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		if ((int)strlen(r->cand->name) > *cw)
			*cw = (int)strlen(r->cand->name);
		if ((int)strlen(r->variant) > *vw)
			*vw = (int)strlen(r->variant);
	}
}

/* The table proper: its column heads and a line per row. */
static void table_rows(FILE *f, const struct cmp_results *res, int cw, int vw, bool synced)
{
	int dec = sec_decimals(res), nw = dec + 5;
	char buf[512];
	unsigned i;

	fprintf(f, "%-*s  %-*s  %*s  %*s  %*s  ", cw, "candidate", vw, "variant", nw, "median", nw,
		"min", nw, "max");
	if (synced)
		fprintf(f, "%*s  ", nw + 4, "last call");
	fprintf(f, "%10s  %7s  %-*s  %s\n", "ops/s", "vs best", 2 * nw + 2, "median CI", "verdict");
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		fprintf(f, "%-*s  %-*s  ", cw, r->cand->name, vw, r->variant);
		if (r->failed || !r->nruns) {
			fprintf(f, "FAILED: %s", r->failed ? r->reason : "no run completed");
			done_runs(f, r, dec);
			continue;
		}
		fprintf(f, "%*.*f  %*.*f  %*.*f  ", nw, dec, r->med_s, nw, dec, r->min_s, nw, dec,
			r->max_s);
		if (synced)
			fprintf(f, "%*.*f  ", nw + 4, dec, r->last_med_s);
		fprintf(f, "%10.0f  %6.2fx  ", r->ops_per_s, r->ratio);
		snprintf(buf, sizeof(buf), "%.*f-%.*f%s", dec, r->elapsed_ci.lo, dec,
			 r->elapsed_ci.hi, r->elapsed_ci.reaches_95 ? "" : "*");
		fprintf(f, "%-*s  ", 2 * nw + 2, buf);
		verdict_cell(r, buf, sizeof(buf));
		fprintf(f, "%s\n", buf);
	}
}

/* One row of the breakdown: mean / p99 of each of the ntop operations in its median run. */
static void op_row(FILE *f, const struct cmp_row *r, const char *const *top, unsigned ntop,
		   int cw, int vw)
{
	const struct cmp_run *run = &r->runs[r->median_run];
	char buf[64], m[24], p[24];
	unsigned j, k;

	fprintf(f, "%-*s  %-*s", cw, r->cand->name, vw, r->variant);
	for (j = 0; j < ntop; j++) {
		for (k = 0; k < run->nop && strcmp(run->op[k].name, top[j]); k++)
			;
		if (k == run->nop) {
			fprintf(f, "  %17s", "-");
			continue;
		}
		fmt_us(run->op[k].mean_ns, m, sizeof(m));
		fmt_us(run->op[k].p99_ns, p, sizeof(p));
		snprintf(buf, sizeof(buf), "%s / %s", m, p);
		fprintf(f, "  %17s", buf);
	}
	fputc('\n', f);
}

/* The latency of the operations that dominate the time, a line per ok row. */
static void op_breakdown(FILE *f, const struct cmp_results *res, int cw, int vw)
{
	const char *top[MAX_TOP_OPS];
	unsigned i, j, ntop, nok = 0;

	for (i = 0; i < res->nrows; i++)
		nok += !res->rows[i].failed && res->rows[i].nruns;
	ntop = cmp_top_ops(res, top, MAX_TOP_OPS);
	if (!ntop || !nok)
		return;
	fprintf(f, "\nper operation in the median run: mean / p99 latency in microseconds\n\n");
	fprintf(f, "%-*s  %-*s", cw, "candidate", vw, "variant");
	for (j = 0; j < ntop; j++)
		fprintf(f, "  %17s", top[j]);
	fputc('\n', f);
	for (i = 0; i < res->nrows; i++)
		if (!res->rows[i].failed && res->rows[i].nruns)
			op_row(f, &res->rows[i], top, ntop, cw, vw);
}

/* What each candidate is, once each. */
static void candidates_section(FILE *f, const struct cmp_results *res, int cw)
{
	char buf[512];
	unsigned i, j;

	fprintf(f, "\ncandidates:\n");
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_candidate *c = res->rows[i].cand;

		for (j = 0; j < i && res->rows[j].cand != c; j++)
			;
		if (j < i)
			continue;
		describe(c, buf, sizeof(buf));
		fprintf(f, "  %-*s  %s%s\n", cw, c->name, buf, loop_io(res, c));
	}
}

int cmp_render_table(FILE *f, const struct cmp_results *res)
{
	bool synced = cmp_results_synced(res);
	int cw, vw;

	name_widths(res, &cw, &vw);
	table_header(f, res, synced);
	table_rows(f, res, cw, vw, synced);
	verdict_notes(f, res);
	divergence_section(f, res, cw, vw);
	cmp_disk_section(f, res, cw, vw);
	op_breakdown(f, res, cw, vw);
	candidates_section(f, res, cw);
	return ferror(f) ? -EIO : 0;
}

/* ---- CSV ---------------------------------------------------------------- */

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_row_head(FILE *f, const struct cmp_row *r)
{
	const struct cmp_candidate *c = r->cand;

	csv_field(f, c->name);
	fputc(',', f);
	csv_field(f, c->kind == CMP_TARGET ? "dir" : c->fstype);
	fputc(',', f);
	csv_field(f, c->mkfs_opts);
	fputc(',', f);
	csv_field(f, c->mount_opts);
	fputc(',', f);
	csv_field(f, r->variant);
	fputc(',', f);
}

int cmp_render_csv(FILE *f, const struct cmp_results *res)
{
	unsigned i, j;

	fprintf(f, "candidate,fstype,mkfs_opts,mount_opts,variant,run,status,elapsed_s,ops,"
		   "ops_per_s,bytes_read,bytes_written,divergences,reason\n");
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		for (j = 0; j < r->nruns; j++) {
			const struct cmp_run *u = &r->runs[j];

			csv_row_head(f, r);
			fprintf(f, "%u,ok,%.9f,%llu,%.3f,%llu,%llu,%llu,\n", j + 1, u->elapsed_s,
				(unsigned long long)u->ops, u->ops_per_s,
				(unsigned long long)u->bytes_read,
				(unsigned long long)u->bytes_written,
				(unsigned long long)u->divergences);
		}
		if (r->failed || !r->nruns) {
			csv_row_head(f, r);
			fprintf(f, "%u,failed,,,,,,,", r->nruns + 1);
			csv_field(f, r->failed ? r->reason : "no run completed");
			fputc('\n', f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- SVG ---------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 5 ticks. */
static double nice_step(double max)
{
	double raw = max / 5, p, m;

	if (raw <= 0)
		return 1;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static const char *const palette[] = { "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
				       "#76b7b2", "#edc948" };

/* The chart's geometry, in pixels: the label column, the plot, the value column, rows. */
enum { SVG_LEFT = 230, SVG_PLOT = 520, SVG_RIGHT = 150, SVG_TOP = 70, SVG_ROWH = 30,
       SVG_BARH = 18 };

/* The x axis: its end (a whole number of steps above the longest max) and its step. */
static void svg_axis_range(const struct cmp_results *res, double *max, double *step)
{
	unsigned i;

	*max = 0;
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		if (!r->failed && r->nruns && r->max_s > *max)
			*max = r->max_s;
	}
	*step = nice_step(*max > 0 ? *max : 1);
	*max = ceil((*max > 0 ? *max : 1) / *step) * *step;
}

/* The XML header, the title and the two lines above the plot. */
static void svg_head(FILE *f, const struct cmp_results *res, int width, int height)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">\n",
		width, height, width, height);
	fprintf(f, "<title>fstap compare: ");
	xml_text(f, base_name(res->trace));
	fprintf(f, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
	fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">fstap compare: ",
		12);
	xml_text(f, base_name(res->trace));
	fprintf(f, " \xe2\x80\x94 elapsed seconds, lower is better</text>\n");
	fprintf(f, "<text x=\"12\" y=\"44\" fill=\"#555\">bar: median of %u run%s on a fresh file "
		   "system each; whisker: min to max; red: 95%% CI of the median</text>\n", res->runs,
		res->runs == 1 ? "" : "s");
}

/* The grid, the axes and the axis label, below nrows rows. */
static void svg_grid(FILE *f, unsigned nrows, double max, double step, double scale)
{
	int bottom = SVG_TOP + (int)nrows * SVG_ROWH;
	double t;

	for (t = 0; t <= max + step / 2; t += step) {
		double x = SVG_LEFT + t * scale;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x,
			SVG_TOP - 6, x, bottom);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%g</text>\n",
			x, bottom + 18, t);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", SVG_LEFT,
		bottom, SVG_LEFT + SVG_PLOT, bottom);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", SVG_LEFT,
		SVG_TOP - 6, SVG_LEFT, bottom);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">elapsed seconds "
		   "(lower is better)</text>\n", SVG_LEFT + SVG_PLOT / 2, bottom + 40);
}

/* An ok row's bar (colour of variant k), whiskers, interval and value, at y (centre cy). */
static void svg_bar(FILE *f, const struct cmp_row *r, unsigned k, int y, double cy,
		    double scale, int dec)
{
	fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		   "fill=\"%s\"><title>", SVG_LEFT, y, r->med_s * scale, SVG_BARH,
		palette[k % ARRAY_SIZE(palette)]);
	xml_text(f, r->cand->name);
	fprintf(f, " %s: median %.*f s, min %.*f s, max %.*f s</title></rect>\n", r->variant,
		dec, r->med_s, dec, r->min_s, dec, r->max_s);
	fprintf(f, "<g class=\"whisker\" stroke=\"#222\" stroke-width=\"1.5\">"
		   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		   "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
		   "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/></g>\n",
		SVG_LEFT + r->min_s * scale, cy, SVG_LEFT + r->max_s * scale, cy,
		SVG_LEFT + r->min_s * scale, y + 3, SVG_LEFT + r->min_s * scale, y + SVG_BARH - 3,
		SVG_LEFT + r->max_s * scale, y + 3, SVG_LEFT + r->max_s * scale, y + SVG_BARH - 3);
	fprintf(f, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		   "stroke=\"#c00\" stroke-width=\"4\" stroke-opacity=\"0.6\"><title>median "
		   "CI %.*f-%.*f s</title></line>\n", SVG_LEFT + r->elapsed_ci.lo * scale, cy,
		SVG_LEFT + r->elapsed_ci.hi * scale, cy, dec, r->elapsed_ci.lo, dec,
		r->elapsed_ci.hi);
	fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\">"
		   "%.*f s (%.2fx, %s)</text>\n", SVG_LEFT + r->max_s * scale + 8, cy, dec, r->med_s,
		r->ratio, cmp_verdict_name(r->verdict));
}

/* Row i: its label, then its bar (colour of variant k) or why it failed. */
static void svg_row(FILE *f, const struct cmp_row *r, unsigned i, unsigned k, double scale,
		    int dec)
{
	int y = SVG_TOP + (int)i * SVG_ROWH + (SVG_ROWH - SVG_BARH) / 2;
	double cy = y + SVG_BARH / 2.0;
	char desc[512];

	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">"
		   "<tspan font-weight=\"bold\">", SVG_LEFT - 10, cy);
	xml_text(f, r->cand->name);
	fprintf(f, "</tspan> ");
	xml_text(f, r->variant);
	fprintf(f, "</text>\n");
	if (!r->failed && r->nruns) {
		svg_bar(f, r, k, y, cy, scale, dec);
		return;
	}
	fprintf(f, "<text class=\"failed\" x=\"%d\" y=\"%.1f\" dominant-baseline=\"middle\" "
		   "fill=\"#c00\">failed: ", SVG_LEFT + 8, cy);
	snprintf(desc, sizeof(desc), "%.80s", r->failed ? r->reason : "no run completed");
	xml_text(f, desc);
	fprintf(f, "</text>\n");
}

int cmp_render_svg(FILE *f, const struct cmp_results *res)
{
	const int width = SVG_LEFT + SVG_PLOT + SVG_RIGHT;
	int height = SVG_TOP + (int)res->nrows * SVG_ROWH + 60;
	int dec = sec_decimals(res);
	const char *variants[16];
	unsigned nvar = 0, i, k;
	double max, step, scale;

	svg_axis_range(res, &max, &step);
	scale = SVG_PLOT / max;
	svg_head(f, res, width, height);
	svg_grid(f, res->nrows, max, step, scale);
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		/* a colour per variant, in the order they first come */
		for (k = 0; k < nvar && strcmp(variants[k], r->variant); k++)
			;
		if (k == nvar && nvar < ARRAY_SIZE(variants))
			variants[nvar++] = r->variant;
		svg_row(f, r, i, k, scale, dec);
	}
	fprintf(f, "</svg>\n");
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON --------------------------------------------------------------- */

static const char *kind_name(enum cmp_kind k)
{
	return k == CMP_TARGET ? "directory" : k == CMP_DEVICE ? "device" : "image";
}

static json_t *candidate_json(const struct cmp_candidate *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(c->name));
	json_object_set_new(o, "kind", json_string(kind_name(c->kind)));
	if (c->kind == CMP_TARGET) {
		json_object_set_new(o, "dir", json_string(c->dir));
	} else {
		json_object_set_new(o, "fstype", json_string(c->fstype));
		json_object_set_new(o, "mkfs_opts", json_string(c->mkfs_opts));
		json_object_set_new(o, "mount_opts", json_string(c->mount_opts));
	}
	return o;
}

static json_t *run_json(const struct cmp_run *u)
{
	json_t *o, *ops;
	unsigned k;

	if (u->raw)
		return json_deep_copy(u->raw);
	o = json_object();
	ops = json_object();
	json_object_set_new(o, "elapsed_ns", json_integer((json_int_t)llround(u->elapsed_s * 1e9)));
	json_object_set_new(o, "ops", json_integer((json_int_t)u->ops));
	json_object_set_new(o, "ops_per_s", json_real(u->ops_per_s));
	json_object_set_new(o, "bytes_read", json_integer((json_int_t)u->bytes_read));
	json_object_set_new(o, "bytes_written", json_integer((json_int_t)u->bytes_written));
	json_object_set_new(o, "divergences", json_integer((json_int_t)u->divergences));
	for (k = 0; k < u->nop; k++) {
		json_t *lat = json_object(), *e = json_object();

		json_object_set_new(lat, "mean", json_real(u->op[k].mean_ns));
		json_object_set_new(lat, "p99", json_integer((json_int_t)llround(u->op[k].p99_ns)));
		json_object_set_new(e, "count", json_integer((json_int_t)u->op[k].count));
		json_object_set_new(e, "lat_ns", lat);
		json_object_set_new(ops, u->op[k].name, e);
	}
	json_object_set_new(o, "by_op", ops);
	return o;
}

/* KEY: [lo, hi] and KEY_coverage: the interval's actual confidence. */
static void ci_json(json_t *o, const char *key, const struct cmp_ci *ci)
{
	char cov[64];

	json_object_set_new(o, key, json_pack("[f,f]", ci->lo, ci->hi));
	snprintf(cov, sizeof(cov), "%s_coverage", key);
	json_object_set_new(o, cov, json_real(ci->coverage));
}

/* vs_best {ratio, hodges_lehmann, ci95, p, p_holm}, runs_needed and diverged, as they apply. */
static void verdict_json(json_t *s, const struct cmp_results *res, const struct cmp_row *r)
{
	char path[4096];

	if (r->verdict == CMP_V_BEST || r->tested) {
		json_t *vb = json_object();

		json_object_set_new(vb, "ratio", json_real(r->ratio));
		json_object_set_new(vb, "hodges_lehmann", json_real(r->vs_best));
		ci_json(vb, "ci95", &r->vs_best_ci);
		if (r->tested) {
			json_object_set_new(vb, "p", json_real(r->p));
			json_object_set_new(vb, "p_holm", json_real(r->p_holm));
		}
		json_object_set_new(s, "vs_best", vb);
	}
	if (r->runs_needed)
		json_object_set_new(s, "runs_needed", json_integer(r->runs_needed));
	if (r->div_run) {
		json_t *d = json_object();

		json_object_set_new(d, "run", json_integer(r->div_run));
		json_object_set_new(d, "divergences", json_integer((json_int_t)r->div_worst));
		json_object_set_new(d, "ops", json_integer((json_int_t)r->div_ops));
		if (res->logdir && cmp_divlog_path(path, sizeof(path), res->logdir, r, r->div_run))
			json_object_set_new(d, "log", json_string(path));
		json_object_set_new(s, "worst_divergence", d);
	}
}

json_t *cmp_results_json(const struct cmp_results *res)
{
	json_t *root = json_object(), *cands = json_array(), *rows = json_array();
	char sentence[2048];
	unsigned i, j;

	json_object_set_new(root, "fstap_compare", json_integer(1));
	json_object_set_new(root, "trace", json_string(res->trace));
	json_object_set_new(root, "runs_per_row", json_integer(res->runs));
	json_object_set_new(root, "clone", json_integer(res->clone ? res->clone : 1));
	if (res->options)
		json_object_set(root, "options", res->options);
	if (res->machine)
		json_object_set(root, "machine", res->machine);
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_candidate *c = res->rows[i].cand;

		for (j = 0; j < i && res->rows[j].cand != c; j++)
			;
		if (j == i)
			json_array_append_new(cands, candidate_json(c));
	}
	json_object_set_new(root, "candidates", cands);
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];
		json_t *o = json_object(), *runs = json_array();
		bool ok = !r->failed && r->nruns;

		json_object_set_new(o, "candidate", json_string(r->cand->name));
		json_object_set_new(o, "variant", json_string(r->variant));
		json_object_set_new(o, "status", json_string(ok ? "ok" : "failed"));
		json_object_set_new(o, "verdict", json_string(cmp_verdict_name(r->verdict)));
		if (!ok)
			json_object_set_new(o, "reason", json_string(r->failed ? r->reason
									   : "no run completed"));
		if (ok) {
			json_t *s = json_object(), *el = json_object();

			json_object_set_new(el, "median", json_real(r->med_s));
			json_object_set_new(el, "min", json_real(r->min_s));
			json_object_set_new(el, "max", json_real(r->max_s));
			ci_json(el, "ci95", &r->elapsed_ci);
			json_object_set_new(s, "elapsed_s", el);
			if (r->runs[0].synced) {
				json_object_set_new(s, "last_call_s",
						    json_pack("{s:f, s:f, s:f}", "median", r->last_med_s,
							      "min", r->last_min_s, "max",
							      r->last_max_s));
				json_object_set_new(s, "sync_s",
						    json_pack("{s:f}", "median", r->sync_med_s));
			}
			json_object_set_new(s, "ops_per_s", json_real(r->ops_per_s));
			ci_json(s, "ops_per_s_ci95", &r->ops_ci);
			verdict_json(s, res, r);
			json_object_set_new(s, "ratio_to_best", json_real(r->ratio));
			json_object_set_new(s, "median_run", json_integer(r->median_run + 1));
			json_object_set_new(o, "summary", s);
		}
		for (j = 0; j < r->nruns; j++)
			json_array_append_new(runs, run_json(&r->runs[j]));
		json_object_set_new(o, "runs", runs);
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "rows", rows);
	json_object_set_new(root, "conclusion",
			    json_string(cmp_verdict_sentence(res, sentence, sizeof(sentence))));
	json_object_set_new(root, "seed", json_integer((json_int_t)res->seed));
	json_object_set_new(root, "max_divergence", json_real(res->max_divergence));
	if (res->max_runs)
		json_object_set_new(root, "time_budget_stop", json_boolean(res->budget_stop));
	return root;
}
