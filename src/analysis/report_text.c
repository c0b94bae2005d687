/*
 * report_text.c: `fstap report` as text for a person: the summary, the
 * operations, the top processes, reads and writes with their request
 * sizes, the busiest directories, the kernel's own requests and the access
 * order, read from the model and from its JSON tree (report_json.c) so that
 * both print the same numbers.
 */
#include <inttypes.h>
#include <string.h>

#include "analysis/report_i.h"

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

static void print_summary(const struct rep *r, json_t *root, FILE *f)
{
	char b1[32], b2[32];
	uint64_t dur = r->last_end_ns - r->first_ns;
	size_t i, n;

	fprintf(f, "fstap report: %s%s\n", r->trace, r->complete ? "" : " (incomplete trace)");
	fprintf(f, "  duration: %.3f s (first operation at %.3f s, last ends at %.3f s)\n",
		(double)dur / 1e9, (double)r->first_ns / 1e9, (double)r->last_end_ns / 1e9);
	fprintf(f, "  operations: %" PRIu64 " by applications, %" PRIu64
		" by the kernel on its own; %" PRIu64 " lost in recording\n",
		r->app_ops, r->kernel_ops, r->lost);
	for (i = 0, n = 0; i < r->nprocs; i++)
		n += r->procs[i].pid != 0;
	fprintf(f, "  processes: %zu, threads: %" PRIu64 "\n", n, (uint64_t)rep_jint(root, "threads"));
	human_bytes(r->bytes_read, b1, sizeof(b1));
	human_bytes(r->bytes_written, b2, sizeof(b2));
	fprintf(f, "  bytes: read %s (%" PRIu64 "), written %s (%" PRIu64 ")", b1,
		r->bytes_read, b2, r->bytes_written);
	if (r->kernel_bytes_read || r->kernel_bytes_written)
		fprintf(f, "; by the kernel: read %" PRIu64 ", written %" PRIu64,
			r->kernel_bytes_read, r->kernel_bytes_written);
	fprintf(f, "\n  touched: %" PRId64 " files, %" PRId64 " directories\n",
		(int64_t)rep_jint(root, "touched.files"),
		(int64_t)rep_jint(root, "touched.directories"));
	fprintf(f, "  lookups: %" PRIu64 ", failed %" PRIu64 " (%.1f%%)\n", r->lookups,
		r->lookups_failed, pct(r->lookups_failed, r->lookups));
}

static void print_operations(const struct rep *r, json_t *root, FILE *f)
{
	const char *key;
	json_t *v;
	size_t i;

	fprintf(f, "\noperations (application)\n  %-16s %10s %6s %8s %12s\n", "op", "count",
		"%", "errors", "mean lat");
	json_object_foreach(json_object_get(json_object_get(root, "operations"), "by_op"), key, v) {
		fprintf(f, "  %-16s %10" PRId64 " %6.1f %8" PRId64 " %10.1fus\n", key,
			(int64_t)rep_jint(v, "count"), pct((uint64_t)rep_jint(v, "count"), r->app_ops),
			(int64_t)rep_jint(v, "errors"), (double)rep_jint(v, "mean_ns") / 1e3);
	}

	fprintf(f, "\nprocesses (top %zu by operations)\n  %8s %-16s %10s %14s %14s\n",
		json_array_size(json_object_get(root, "processes")), "pid", "comm", "ops",
		"bytes read", "bytes written");
	json_array_foreach(json_object_get(root, "processes"), i, v)
		fprintf(f, "  %8" PRId64 " %-16s %10" PRId64 " %14" PRId64 " %14" PRId64 "\n",
			(int64_t)rep_jint(v, "pid"), json_string_value(json_object_get(v, "comm")),
			(int64_t)rep_jint(v, "ops"), (int64_t)rep_jint(v, "bytes_read"),
			(int64_t)rep_jint(v, "bytes_written"));
}

static void print_io(const struct rep *r, FILE *f)
{
	char b1[32], b2[32];
	unsigned bkt;
	size_t i;

	for (i = 0; i < IO_NR; i++) {
		const struct iostat *io = &r->io[i];
		uint64_t done = io->seq + io->rnd;

		human_bytes(io->bytes, b1, sizeof(b1));
		fprintf(f, "\n%s: %" PRIu64 " requests, %s; sequential %" PRIu64 " (%.1f%%), random %"
			PRIu64 " (%.1f%%)\n", rep_io_names[i], io->ops, b1, io->seq, pct(io->seq, done),
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
}

static void print_dirs_and_kernel(const struct rep *r, json_t *root, FILE *f)
{
	const char *key;
	json_t *a, *v;
	size_t i;

	a = json_object_get(root, "directories");
	fprintf(f, "\nbusiest directories (top %zu, operations on their entries and files)\n",
		json_array_size(a));
	json_array_foreach(a, i, v)
		fprintf(f, "  %10" PRId64 "  %s\n", (int64_t)rep_jint(v, "ops"),
			json_string_value(json_object_get(v, "path")));

	a = json_object_get(json_object_get(root, "kernel"), "by_op");
	fprintf(f, "\nkernel requests (not counted above): %" PRIu64 "\n", r->kernel_ops);
	json_object_foreach(a, key, v)
		fprintf(f, "  %-16s %10" PRId64 "\n", key, (int64_t)json_integer_value(v));
}

/* Who listed and who read (the "processes" of the access order). */
static void print_order_pairs(json_t *o, FILE *f)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(o, "processes"), i, v) {
		const char *lc = json_string_value(json_object_get(v, "lister_comm"));
		const char *rc = json_string_value(json_object_get(v, "reader_comm"));

		json_t *pids = json_object_get(v, "reader_pids");

		if (json_is_true(json_object_get(v, "own")))
			fprintf(f, "  listed and read by %s (pid %" PRId64 ")", lc,
				(int64_t)rep_jint(v, "lister_pid"));
		else if (json_array_size(pids) == 1)
			fprintf(f, "  listed by %s (pid %" PRId64 "), read by %s (pid %" PRId64 ")",
				lc, (int64_t)rep_jint(v, "lister_pid"), rc,
				(int64_t)json_integer_value(json_array_get(pids, 0)));
		else
			fprintf(f, "  listed by %s (pid %" PRId64 "), read by %s (%zu processes)",
				lc, (int64_t)rep_jint(v, "lister_pid"), rc, json_array_size(pids));
		fprintf(f, ": %" PRId64 " director%s, %" PRId64 " files\n",
			(int64_t)rep_jint(v, "directories"),
			rep_jint(v, "directories") == 1 ? "y" : "ies", (int64_t)rep_jint(v, "files"));
	}
}

static void print_order(json_t *root, FILE *f)
{
	json_t *o = json_object_get(root, "access_order"), *a, *v;
	size_t i;

	fprintf(f, "\naccess order (files opened after their directory was listed, by any process)\n");
	fprintf(f, "  listings followed by opens: %" PRId64 "; with %d or more files: %" PRId64
		" directories, %" PRId64 " files\n", (int64_t)rep_jint(o, "listings"), MIN_ORDER_FILES,
		(int64_t)rep_jint(o, "directories"), (int64_t)rep_jint(o, "files"));
	fprintf(f, "  mean rank correlation (Spearman rho) of the open order with:\n");
	for (i = 0; i < ORD_NR; i++) {
		fprintf(f, "    %-8s order", rep_ord_names[i]);
		rho_text(f, json_object_get(json_object_get(o, "mean_rho"), rep_ord_names[i]));
		fputc('\n', f);
	}
	fprintf(f, "  verdict: %s\n", json_string_value(json_object_get(o, "verdict")));
	print_order_pairs(o, f);
	a = json_object_get(o, "per_directory");
	if (!json_array_size(a))
		return;
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
			(int64_t)rep_jint(v, "files"), (int64_t)rep_jint(v, "pid"),
			(int64_t)rep_jint(v, "reader_pid"),
			json_string_value(json_object_get(v, "path")));
	}
}

void rep_print_text(const struct rep *r, json_t *root, FILE *f)
{
	print_summary(r, root, f);
	print_operations(r, root, f);
	print_io(r, f);
	print_dirs_and_kernel(r, root, f);
	print_order(root, f);
}
