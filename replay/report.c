/*
 * report.c: renders the results of replay runs: a text table for people,
 * JSON (jansson) for programs and `compare`, CSV for spreadsheets. All
 * three read the same struct rp_result (fio's one model, several
 * renderers). Latencies are in microseconds in text and CSV, in ns in JSON.
 *
 * Not here: measuring (stats.c, run.c).
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/devnode.h"
#include "replay_i.h"

static const double pcts[] = { 50, 90, 99, 99.9 };
static const char *const pct_keys[] = { "p50", "p90", "p99", "p99.9" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

static const char *op_name(unsigned op)
{
	const struct fstap_op_info *oi = fstap_op_info(op);

	return oi ? oi->name : "?";
}

static const char *errno_name(unsigned e, char *buf, size_t cap)
{
	const char *n = e ? strerrorname_np((int)e) : NULL;

	if (n)
		return n;
	snprintf(buf, cap, "%u", e);
	return buf;
}

static double secs(const struct rp_result *r)
{
	return r->elapsed_ns ? (double)r->elapsed_ns / 1e9 : 1e-9;
}

static uint64_t bytes_of(const struct rp_result *r, unsigned op)
{
	return r->stats.op[op].bytes;
}

static uint64_t op_divs(const struct rp_result *r, unsigned op)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->stats.ndiv; i++)
		if (r->stats.div[i].op == op)
			n += r->stats.div[i].count;
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Min, median and max elapsed time over the runs. */
static void elapsed_summary(struct rp_result *const *runs, unsigned n, uint64_t v[3])
{
	uint64_t *e = calloc(n, sizeof(*e));
	unsigned i;

	if (!e) {
		v[0] = v[1] = v[2] = runs[0]->elapsed_ns;
		return;
	}
	for (i = 0; i < n; i++)
		e[i] = runs[i]->elapsed_ns;
	qsort(e, n, sizeof(*e), cmp_u64);
	v[0] = e[0];
	v[1] = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
	v[2] = e[n - 1];
	free(e);
}

static void div_label(const struct rp_div *d, char *buf, size_t cap)
{
	char eb[16];

	switch (d->kind) {
	case RP_DIV_ERRNO:
		snprintf(buf, cap, "%s", errno_name(d->err, eb, sizeof(eb)));
		break;
	case RP_DIV_SUCCEEDED:
		snprintf(buf, cap, "succeeded (recorded %s)", errno_name(d->err, eb, sizeof(eb)));
		break;
	case RP_DIV_DEVICE:
		snprintf(buf, cap, "device (open refused)");
		break;
	default:
		snprintf(buf, cap, "%s", rp_div_kind_name((enum rp_div_kind)d->kind));
	}
}

/* Over the parts of r (--clone, --mpi): elapsed and ops/s, min mean max; the start skew. */
struct parts_sum {
	uint64_t el[3];
	double ops[3];
	uint64_t skew;
};

static void parts_summary(const struct rp_result *r, struct parts_sum *p)
{
	uint64_t first = UINT64_MAX, last = 0;
	double el = 0;
	unsigned i;

	memset(p, 0, sizeof(*p));
	p->el[0] = UINT64_MAX;
	p->ops[0] = 1e300;
	for (i = 0; i < r->nparts; i++) {
		const struct rp_result *q = r->parts[i];
		double ops = (double)q->replayed / secs(q);

		p->el[0] = q->elapsed_ns < p->el[0] ? q->elapsed_ns : p->el[0];
		p->el[2] = q->elapsed_ns > p->el[2] ? q->elapsed_ns : p->el[2];
		el += (double)q->elapsed_ns;
		p->ops[0] = ops < p->ops[0] ? ops : p->ops[0];
		p->ops[2] = ops > p->ops[2] ? ops : p->ops[2];
		p->ops[1] += ops / r->nparts;
		first = q->started_ns < first ? q->started_ns : first;
		last = q->started_ns > last ? q->started_ns : last;
	}
	p->el[1] = (uint64_t)(el / r->nparts);
	p->skew = last - first;
}

static void text_parts(FILE *f, const struct rp_result *r)
{
	struct parts_sum p;
	unsigned i;

	parts_summary(r, &p);
	fprintf(f, "\n%ss:%*s%u; elapsed min %.3f s, mean %.3f s, max %.3f s; ops/s min %.0f, "
		"mean %.0f, max %.0f; start skew %.3f ms\n", r->part_kind,
		(int)(14 - strlen(r->part_kind) - 2), "", r->nparts, (double)p.el[0] / 1e9,
		(double)p.el[1] / 1e9, (double)p.el[2] / 1e9, p.ops[0], p.ops[1], p.ops[2],
		(double)p.skew / 1e6);
	for (i = 0; i < r->nparts; i++) {
		const struct rp_result *q = r->parts[i];

		fprintf(f, "  %s %-4u %9llu ops in %.3f s (%.0f ops/s), %llu divergences\n",
			r->part_kind, i, (unsigned long long)q->replayed, secs(q),
			(double)q->replayed / secs(q), (unsigned long long)q->stats.divergences);
	}
}

/* The run's figures: time, throughput, what was replayed or left out, the trace. */
static void text_summary(FILE *f, const struct rp_result *r, unsigned idx, unsigned n)
{
	double t = secs(r);

	if (n > 1)
		fprintf(f, "run %u of %u\n", idx + 1, n);
	fprintf(f, "elapsed:      %.3f s\n", t);
	if (r->synced)
		fprintf(f, "sync at end:  %.3f s (syncfs of the target); durable after %.3f s\n",
			(double)r->sync_ns / 1e9, (double)(r->elapsed_ns + r->sync_ns) / 1e9);
	fprintf(f, "ops:          %llu (%.0f ops/s), %u workers, order %s, pace ",
		(unsigned long long)r->replayed, (double)r->replayed / t, r->workers,
		rp_order_name(r->order));
	if (r->pace_native)
		fprintf(f, "native");
	else if (r->pace_pct == 0)
		fprintf(f, "afap");
	else if (r->pace_pct == 100)
		fprintf(f, "orig");
	else
		fprintf(f, "%u%%", r->pace_pct);
	if (r->pace_pct)
		fprintf(f, " (think time %.3f s over all threads)", (double)r->think_ns / 1e9);
	fputc('\n', f);
	if (r->planned)
		fprintf(f, "plan:         %llu ops (%.1f MiB) dispatched in %.3f s before the start, "
			"%s\n", (unsigned long long)r->planned, (double)r->plan_peak / 1048576.0,
			(double)r->plan_ns / 1e9, r->planned_all ? "the whole trace"
			: "the rest while the run went");
	fprintf(f, "read:         %.2f MB/s (%llu bytes)\n",
		(double)bytes_of(r, FSTAP_OP_READ) / 1e6 / t,
		(unsigned long long)bytes_of(r, FSTAP_OP_READ));
	fprintf(f, "written:      %.2f MB/s (%llu bytes)\n",
		(double)bytes_of(r, FSTAP_OP_WRITE) / 1e6 / t,
		(unsigned long long)bytes_of(r, FSTAP_OP_WRITE));
	fprintf(f, "records:      %llu operations; %llu left to the kernel, %llu not replayed\n",
		(unsigned long long)r->op_records, (unsigned long long)r->kernel_skipped,
		(unsigned long long)r->not_replayed);
	fprintf(f, "lookups:      %llu absorbed by the next call's path walk, %llu issued\n",
		(unsigned long long)r->lookups_absorbed, (unsigned long long)r->lookups_issued);
	if (r->getattrs_absorbed || r->getattrs_eof_reads)
		fprintf(f, "getattrs:     %llu absorbed (permission checks, size refreshes), %llu issued, "
			"%llu issued as reads at end of file\n",
			(unsigned long long)r->getattrs_absorbed, (unsigned long long)r->getattrs_issued,
			(unsigned long long)r->getattrs_eof_reads);
	if (r->syncs_unflagged)
		fprintf(f, "syncs:        %llu fsync/fdatasync after O_SYNC/O_DSYNC writes left to "
			"the kernel (the trace does not flag them)\n",
			(unsigned long long)r->syncs_unflagged);
	if (r->writes_merged)
		fprintf(f, "writes:       %llu parts of writes the kernel split, issued with the "
			"first part\n", (unsigned long long)r->writes_merged);
	if (r->rank_deps)
		fprintf(f, "ranks' order: %llu waits for operations of other ranks\n",
			(unsigned long long)r->rank_deps);
	if (r->handles_reopened)
		fprintf(f, "handles:      %llu opened again on the rank of a process that used "
			"what another rank's process opened\n", (unsigned long long)r->handles_reopened);
	if (r->cut.cut)
		fprintf(f, "trace:        incomplete: replayed the first %.1f s of %.1f s\n",
			(double)r->cut.cutoff_ns / 1e9, (double)r->cut.end_ns / 1e9);
	else if (r->incomplete)
		fprintf(f, "trace:        incomplete (no footer)\n");
	if (r->stats.devnodes || r->stats.device_io)
		fprintf(f, "device nodes: %llu " FSTAP_DEVNODE_WORDS "; %llu operations through "
			"refused opens of them not issued\n", (unsigned long long)r->stats.devnodes,
			(unsigned long long)r->stats.device_io);
}

/* The latency of each operation type, in microseconds. */
static void text_ops(FILE *f, const struct rp_result *r)
{
	const struct rp_stats *s = &r->stats;
	unsigned op, i;

	fprintf(f, "\n%-16s %9s %7s %9s %9s %9s %9s %9s %9s   (us)\n", "op", "count", "errors",
		"mean", "p50", "p90", "p99", "p99.9", "max");
	for (op = 0; op < FSTAP_OP_NR; op++) {
		const struct rp_opstat *o = &s->op[op];

		if (!o->count || !o->lat)
			continue;
		fprintf(f, "%-16s %9llu %7llu %9.1f", op_name(op), (unsigned long long)o->count,
			(unsigned long long)o->errors, rp_hist_mean(o->lat) / 1e3);
		for (i = 0; i < NPCT; i++)
			fprintf(f, " %9.1f", (double)rp_hist_percentile(o->lat, pcts[i]) / 1e3);
		fprintf(f, " %9.1f\n", (double)o->lat->max / 1e3);
	}
}

/* Schedule lag, order and the divergences by kind. */
static void text_divergences(FILE *f, const struct rp_result *r)
{
	const struct rp_stats *s = &r->stats;
	size_t j;

	if (s->lag && s->lag->n)
		fprintf(f, "\nschedule lag (us): p50 %.1f, p99 %.1f, max %.1f\n",
			(double)rp_hist_percentile(s->lag, 50) / 1e3,
			(double)rp_hist_percentile(s->lag, 99) / 1e3, (double)s->lag->max / 1e3);
	if (r->order == RP_ORDER_NONE)
		fprintf(f, "\nout of recorded order (same resource): %llu\n",
			(unsigned long long)s->out_of_order);
	fprintf(f, "\ndivergences:  %llu\n", (unsigned long long)s->divergences);
	for (j = 0; j < s->ndiv; j++) {
		char label[64];

		div_label(&s->div[j], label, sizeof(label));
		fprintf(f, "  %-16s %-32s %llu\n", op_name(s->div[j].op), label,
			(unsigned long long)s->div[j].count);
	}
	if (s->raced)
		fprintf(f, "raced:        %llu (results that differ where another thread changed the "
			"object during the recorded operation: either outcome was possible; not "
			"counted as divergences)\n",
			(unsigned long long)s->raced);
}

static void text_run(FILE *f, const struct rp_result *r, unsigned idx, unsigned n)
{
	text_summary(f, r, idx, n);
	text_ops(f, r);
	text_divergences(f, r);
	if (r->nparts)
		text_parts(f, r);
}

int rp_report_text(FILE *f, struct rp_result *const *runs, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (i)
			fputc('\n', f);
		text_run(f, runs[i], i, n);
	}
	if (n > 1) {
		uint64_t v[3];

		elapsed_summary(runs, n, v);
		fprintf(f, "\nelapsed over %u runs: min %.3f s, median %.3f s, max %.3f s\n", n,
			(double)v[0] / 1e9, (double)v[1] / 1e9, (double)v[2] / 1e9);
	}
	return ferror(f) ? -EIO : 0;
}

static json_t *hist_json(const struct rp_hist *h)
{
	json_t *o = json_object();
	unsigned i;

	json_object_set_new(o, "n", json_integer((json_int_t)h->n));
	json_object_set_new(o, "min", json_integer((json_int_t)h->min));
	json_object_set_new(o, "max", json_integer((json_int_t)h->max));
	json_object_set_new(o, "mean", json_real(rp_hist_mean(h)));
	json_object_set_new(o, "stddev", json_real(rp_hist_stddev(h)));
	for (i = 0; i < NPCT; i++)
		json_object_set_new(o, pct_keys[i],
				    json_integer((json_int_t)rp_hist_percentile(h, pcts[i])));
	return o;
}

static json_t *run_json(const struct rp_result *r);

/* "clones" (or "ranks"): each part's own result; "clones_summary". */
static void json_parts(json_t *o, const struct rp_result *r)
{
	json_t *arr = json_array(), *sum;
	struct parts_sum p;
	char key[32];
	unsigned i;

	parts_summary(r, &p);
	for (i = 0; i < r->nparts; i++) {
		json_t *e = run_json(r->parts[i]);

		json_object_set_new(e, r->part_kind, json_integer(i));
		json_array_append_new(arr, e);
	}
	snprintf(key, sizeof(key), "%ss", r->part_kind);
	json_object_set_new(o, key, arr);
	sum = json_pack("{s:i, s:{s:I, s:I, s:I}, s:{s:f, s:f, s:f}, s:I}",
			"n", (int)r->nparts,
			"elapsed_ns", "min", (json_int_t)p.el[0], "mean", (json_int_t)p.el[1],
			"max", (json_int_t)p.el[2],
			"ops_per_s", "min", p.ops[0], "mean", p.ops[1], "max", p.ops[2],
			"start_skew_ns", (json_int_t)p.skew);
	snprintf(key, sizeof(key), "%ss_summary", r->part_kind);
	json_object_set_new(o, key, sum);
}

static json_t *run_json(const struct rp_result *r)
{
	const struct rp_stats *s = &r->stats;
	json_t *o = json_object(), *ops = json_object(), *divs = json_array(), *lk = json_object(), *ga;
	double t = secs(r);
	unsigned op;
	size_t j;

	json_object_set_new(o, "elapsed_ns", json_integer((json_int_t)r->elapsed_ns));
	if (r->synced) {
		json_object_set_new(o, "sync_ns", json_integer((json_int_t)r->sync_ns));
		json_object_set_new(o, "durable_ns",
				    json_integer((json_int_t)(r->elapsed_ns + r->sync_ns)));
	}
	json_object_set_new(o, "ops", json_integer((json_int_t)r->replayed));
	json_object_set_new(o, "ops_per_s", json_real((double)r->replayed / t));
	/* --pace=native with the trace's round trips (false: the trace had none) */
	json_object_set_new(o, "pace_native", json_boolean(r->pace_native));
	/* paced: the think time the pace asked for between each thread's ops, summed */
	json_object_set_new(o, "think_ns", json_integer((json_int_t)r->think_ns));
	json_object_set_new(o, "bytes_read", json_integer((json_int_t)bytes_of(r, FSTAP_OP_READ)));
	json_object_set_new(o, "bytes_written",
			    json_integer((json_int_t)bytes_of(r, FSTAP_OP_WRITE)));
	json_object_set_new(o, "mb_per_s_read",
			    json_real((double)bytes_of(r, FSTAP_OP_READ) / 1e6 / t));
	json_object_set_new(o, "mb_per_s_written",
			    json_real((double)bytes_of(r, FSTAP_OP_WRITE) / 1e6 / t));
	json_object_set_new(o, "workers", json_integer(r->workers));
	/* dispatched before the clock started (--plan-ahead) */
	json_object_set_new(o, "plan", json_pack("{s:I, s:I, s:I, s:b}",
						 "ops", (json_int_t)r->planned,
						 "ns", (json_int_t)r->plan_ns,
						 "peak_bytes", (json_int_t)r->plan_peak,
						 "whole_trace", r->planned_all));
	json_object_set_new(o, "records", json_integer((json_int_t)r->records));
	json_object_set_new(o, "op_records", json_integer((json_int_t)r->op_records));
	json_object_set_new(o, "kernel_skipped", json_integer((json_int_t)r->kernel_skipped));
	json_object_set_new(o, "not_replayed", json_integer((json_int_t)r->not_replayed));
	json_object_set_new(lk, "absorbed", json_integer((json_int_t)r->lookups_absorbed));
	json_object_set_new(lk, "issued", json_integer((json_int_t)r->lookups_issued));
	json_object_set_new(o, "lookups", lk);
	ga = json_object();
	json_object_set_new(ga, "absorbed", json_integer((json_int_t)r->getattrs_absorbed));
	json_object_set_new(ga, "issued", json_integer((json_int_t)r->getattrs_issued));
	json_object_set_new(ga, "eof_reads", json_integer((json_int_t)r->getattrs_eof_reads));
	json_object_set_new(o, "getattrs", ga);
	json_object_set_new(o, "writes_merged", json_integer((json_int_t)r->writes_merged));
	json_object_set_new(o, "rank_deps", json_integer((json_int_t)r->rank_deps));
	json_object_set_new(o, "handles_left_open", json_integer((json_int_t)r->handles_left));
	json_object_set_new(o, "handles_reopened", json_integer((json_int_t)r->handles_reopened));
	json_object_set_new(o, "incomplete_trace", json_boolean(r->incomplete));
	if (r->cut.cut)
		json_object_set_new(o, "trace_cut",
				    json_pack("{s:I, s:I, s:I, s:I}",
					      "cutoff_ns", (json_int_t)r->cut.cutoff_ns,
					      "end_ns", (json_int_t)r->cut.end_ns,
					      "records", (json_int_t)r->cut.records,
					      "records_read", (json_int_t)r->cut.records_read));
	if (r->order == RP_ORDER_NONE)
		json_object_set_new(o, "out_of_order", json_integer((json_int_t)s->out_of_order));
	for (op = 0; op < FSTAP_OP_NR; op++) {
		const struct rp_opstat *os = &s->op[op];
		json_t *e;

		if (!os->count || !os->lat)
			continue;
		e = json_object();
		json_object_set_new(e, "count", json_integer((json_int_t)os->count));
		json_object_set_new(e, "errors", json_integer((json_int_t)os->errors));
		json_object_set_new(e, "bytes", json_integer((json_int_t)os->bytes));
		json_object_set_new(e, "divergences", json_integer((json_int_t)op_divs(r, op)));
		json_object_set_new(e, "lat_ns", hist_json(os->lat));
		json_object_set_new(ops, op_name(op), e);
	}
	json_object_set_new(o, "by_op", ops);
	if (s->lag && s->lag->n)
		json_object_set_new(o, "lag_ns", hist_json(s->lag));
	json_object_set_new(o, "divergences", json_integer((json_int_t)s->divergences));
	json_object_set_new(o, "raced", json_integer((json_int_t)s->raced));
	json_object_set_new(o, "devnodes_placeholder", json_integer((json_int_t)s->devnodes));
	json_object_set_new(o, "device_io_skipped", json_integer((json_int_t)s->device_io));
	for (j = 0; j < s->ndiv; j++) {
		const struct rp_div *d = &s->div[j];
		json_t *e = json_object();
		char eb[16];

		json_object_set_new(e, "op", json_string(op_name(d->op)));
		json_object_set_new(e, "kind", json_string(rp_div_kind_name((enum rp_div_kind)d->kind)));
		if (d->kind == RP_DIV_ERRNO || d->kind == RP_DIV_SUCCEEDED)
			json_object_set_new(e, "errno", json_string(errno_name(d->err, eb, sizeof(eb))));
		json_object_set_new(e, "count", json_integer((json_int_t)d->count));
		json_array_append_new(divs, e);
	}
	json_object_set_new(o, "divergence", divs);
	if (r->nparts)
		json_parts(o, r);
	return o;
}

int rp_report_json(FILE *f, struct rp_result *const *runs, unsigned n,
		   const struct rp_options *o)
{
	json_t *root = json_object(), *arr = json_array(), *sum = json_object(), *el = json_object();
	uint64_t v[3];
	unsigned i;
	int ret;

	json_object_set_new(root, "fstap_replay", json_integer(1));
	json_object_set_new(root, "trace", json_string(o->trace));
	json_object_set_new(root, "dir", json_string(o->dir));
	json_object_set_new(root, "order", json_string(rp_order_name(o->order)));
	json_object_set_new(root, "pace_pct", json_integer(o->pace_pct));
	json_object_set_new(root, "pace_native", json_boolean(o->pace_native));
	for (i = 0; i < n; i++)
		json_array_append_new(arr, run_json(runs[i]));
	json_object_set_new(root, "runs", arr);
	elapsed_summary(runs, n, v);
	json_object_set_new(el, "min", json_integer((json_int_t)v[0]));
	json_object_set_new(el, "median", json_integer((json_int_t)v[1]));
	json_object_set_new(el, "max", json_integer((json_int_t)v[2]));
	json_object_set_new(sum, "elapsed_ns", el);
	json_object_set_new(root, "summary", sum);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	fputc('\n', f);
	return ret || ferror(f) ? -EIO : 0;
}

int rp_report_csv(FILE *f, struct rp_result *const *runs, unsigned n)
{
	unsigned i, op, k;

	fprintf(f, "run,op,count,errors,bytes,divergences,mean_us,p50_us,p90_us,p99_us,"
		   "p99_9_us,max_us,elapsed_s\n");
	for (i = 0; i < n; i++) {
		const struct rp_result *r = runs[i];

		fprintf(f, "%u,all,%llu,,%llu,%llu,,,,,,,%.6f\n", i + 1,
			(unsigned long long)r->replayed,
			(unsigned long long)(bytes_of(r, FSTAP_OP_READ) + bytes_of(r, FSTAP_OP_WRITE)),
			(unsigned long long)r->stats.divergences, secs(r));
		for (op = 0; op < FSTAP_OP_NR; op++) {
			const struct rp_opstat *o = &r->stats.op[op];

			if (!o->count || !o->lat)
				continue;
			fprintf(f, "%u,%s,%llu,%llu,%llu,%llu,%.3f", i + 1, op_name(op),
				(unsigned long long)o->count, (unsigned long long)o->errors,
				(unsigned long long)o->bytes, (unsigned long long)op_divs(r, op),
				rp_hist_mean(o->lat) / 1e3);
			for (k = 0; k < NPCT; k++)
				fprintf(f, ",%.3f", (double)rp_hist_percentile(o->lat, pcts[k]) / 1e3);
			fprintf(f, ",%.3f,\n", (double)o->lat->max / 1e3);
		}
	}
	return ferror(f) ? -EIO : 0;
}
