/*
 * check_compare.c: unit tests of the pure parts of `fstap compare`
 * (src/compare/model.c, render.c, verdict.c): candidate specifications,
 * image sizing, the statistics, the order of the runs, the verdicts,
 * parsing a replay run, and the table, CSV, SVG and JSON renderers on
 * synthetic results.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

#define MiB (1024ULL * 1024)

START_TEST(test_candidate_parse)
{
	struct cmp_candidate c;
	char err[256];

	ck_assert_int_eq(cmp_candidate_parse("ext4-i128:ext4:-I 128", &c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.name, "ext4-i128");
	ck_assert_str_eq(c.fstype, "ext4");
	ck_assert_str_eq(c.mkfs_opts, "-I 128");
	ck_assert_str_eq(c.mount_opts, "");
	ck_assert_int_eq(c.kind, CMP_IMAGE);
	cmp_candidate_free(&c);

	ck_assert_int_eq(cmp_candidate_parse("xfs-512:xfs:-i size=512:noatime,nodiratime", &c, err,
					     sizeof(err)), 0);
	ck_assert_str_eq(c.mkfs_opts, "-i size=512");
	ck_assert_str_eq(c.mount_opts, "noatime,nodiratime");
	cmp_candidate_free(&c);

	ck_assert_int_eq(cmp_candidate_parse("x:xfs::noatime", &c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.mkfs_opts, "");
	ck_assert_str_eq(c.mount_opts, "noatime");
	cmp_candidate_free(&c);

	ck_assert_int_eq(cmp_candidate_parse("justaname", &c, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "NAME:FSTYPE"));
	ck_assert_int_eq(cmp_candidate_parse("a/b:ext4", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(cmp_candidate_parse(":ext4", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(cmp_candidate_parse("a:EXT 4", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(cmp_candidate_parse("a:ext4::no atime", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(cmp_candidate_parse("-a:ext4", &c, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(test_target_parse)
{
	struct cmp_candidate c;
	char err[256];

	ck_assert_int_eq(cmp_target_parse("scratch=/mnt/a=b", &c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.name, "scratch");
	ck_assert_str_eq(c.dir, "/mnt/a=b");
	ck_assert_int_eq(c.kind, CMP_TARGET);
	cmp_candidate_free(&c);
	ck_assert_int_eq(cmp_target_parse("/mnt/x", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(cmp_target_parse("=/mnt/x", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(cmp_target_parse("n=", &c, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(test_packages)
{
	ck_assert_str_eq(cmp_mkfs_package("ext4"), "e2fsprogs");
	ck_assert_str_eq(cmp_mkfs_package("xfs"), "xfsprogs");
	ck_assert_str_eq(cmp_mkfs_package("btrfs"), "btrfs-progs");
	ck_assert_ptr_null(cmp_mkfs_package("zzfs"));
	ck_assert_ptr_null(cmp_mkfs_package("ext5"));	/* no such type, not e2fsprogs */
	ck_assert_str_eq(cmp_mkfs_package("ext2"), "e2fsprogs");
	ck_assert_str_eq(cmp_mkfs_force_flags("ext4"), "-F -q");
	ck_assert_str_eq(cmp_mkfs_force_flags("xfs"), "-f -q");
	ck_assert_str_eq(cmp_mkfs_force_flags("btrfs"), "-f -q");
}
END_TEST

START_TEST(test_image_size)
{
	struct cmp_trace_size s = { 0, 0, 0, 0 };
	char buf[32];

	/* An empty trace gets the minimum of each file system. */
	ck_assert_uint_eq(cmp_image_size(&s, "ext4"), 64 * MiB);
	ck_assert_uint_eq(cmp_image_size(&s, "xfs"), 300 * MiB);
	ck_assert_uint_eq(cmp_image_size(&s, "btrfs"), 128 * MiB);
	ck_assert_uint_ge(cmp_fs_min_size("btrfs"), 114 * MiB);

	/* 100 MiB of files, 50 MiB written, 1000 objects: 2 x (150 MiB + 8000 KiB) + 64 MiB. */
	s.initial_bytes = 100 * MiB;
	s.written_bytes = 50 * MiB;
	s.inodes = 1000;
	{
		uint64_t need = 2 * (150 * MiB + 1000 * 8192) + 64 * MiB;
		uint64_t want = (need + 64 * MiB - 1) / (64 * MiB) * (64 * MiB);

		ck_assert_uint_eq(cmp_image_size(&s, "ext4"), want);
		ck_assert_uint_eq(cmp_image_size(&s, "xfs"), want);
		ck_assert_uint_eq(want % (64 * MiB), 0);
	}
	/* --clone=3: three copies on each image; 1 is one, as 0 is. */
	{
		uint64_t need = 2 * 3 * (150 * MiB + 1000 * 8192) + 64 * MiB;
		uint64_t want = (need + 64 * MiB - 1) / (64 * MiB) * (64 * MiB), one;

		one = cmp_image_size(&s, "ext4");
		s.copies = 1;
		ck_assert_uint_eq(cmp_image_size(&s, "ext4"), one);
		s.copies = 3;
		ck_assert_uint_eq(cmp_image_size(&s, "ext4"), want);
		s.copies = 1024;
		s.written_bytes = 1ULL << 45;
		ck_assert_uint_eq(cmp_image_size(&s, "ext4"), 1ULL << 50);
		s.copies = 0;
	}
	/* Huge values saturate instead of overflowing. */
	s.initial_bytes = ~0ULL;
	ck_assert_uint_eq(cmp_image_size(&s, "ext4"), 1ULL << 50);

	ck_assert_str_eq(cmp_fmt_bytes(300 * MiB, buf, sizeof(buf)), "300 MiB");
	ck_assert_str_eq(cmp_fmt_bytes(1536 * MiB, buf, sizeof(buf)), "1.5 GiB");
	ck_assert_str_eq(cmp_fmt_bytes(12, buf, sizeof(buf)), "12 bytes");
}
END_TEST

START_TEST(test_median)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	ck_assert_double_eq(cmp_median(odd, 3), 2);
	ck_assert_double_eq(cmp_median(even, 4), 2.5);
	ck_assert_double_eq(cmp_median(one, 1), 7);
	ck_assert_double_eq(cmp_median(NULL, 0), 0);
}
END_TEST

/* ---- synthetic results ------------------------------------------------- */

static struct cmp_candidate cands[3];

static void add_run(struct cmp_row *row, double el, uint64_t ops, double read_mean,
		    double open_mean)
{
	struct cmp_opstat op[3] = {
		{ "read", 1000, read_mean, read_mean * 3 },
		{ "open", 100, open_mean, open_mean * 2 },
		{ "getattr", 10, 1000, 2000 },
	};
	struct cmp_run r;

	memset(&r, 0, sizeof(r));
	r.elapsed_s = el;
	r.ops = ops;
	r.ops_per_s = ops / el;
	r.op = op;
	r.nop = 3;
	ck_assert_int_eq(cmp_row_add_run(row, &r), 0);
}

static void make_results(struct cmp_results *res)
{
	char err[256];

	ck_assert_int_eq(cmp_candidate_fs("ext4", &cands[0], err, sizeof(err)), 0);
	ck_assert_int_eq(cmp_candidate_parse("xfs-512:xfs:-i size=512:noatime", &cands[1], err,
					     sizeof(err)), 0);
	ck_assert_int_eq(cmp_candidate_parse("bad,\"q\":ext4:-O nope", &cands[2], err,
					     sizeof(err)), -EINVAL);
	ck_assert_int_eq(cmp_candidate_parse("bad:ext4:-O nope", &cands[2], err, sizeof(err)), 0);
	memset(res, 0, sizeof(*res));
	res->trace = "/tmp/spool.trace";
	res->runs = 3;
	res->nrows = 4;
	res->rows = calloc(4, sizeof(*res->rows));
	res->rows[0].cand = &cands[0];
	res->rows[0].variant = "recorded";
	add_run(&res->rows[0], 2.0, 1000, 5000, 20000);
	add_run(&res->rows[0], 1.0, 1000, 4000, 20000);
	add_run(&res->rows[0], 3.0, 1000, 6000, 20000);
	res->rows[1].cand = &cands[1];
	res->rows[1].variant = "recorded";
	add_run(&res->rows[1], 4.0, 1000, 8000, 10000);
	add_run(&res->rows[1], 4.5, 1000, 9000, 10000);
	add_run(&res->rows[1], 3.5, 1000, 7000, 10000);
	res->rows[2].cand = &cands[1];
	res->rows[2].variant = "name";
	add_run(&res->rows[2], 1.5, 1000, 3000, 10000);
	add_run(&res->rows[2], 0.5, 1000, 2000, 10000);
	res->rows[3].cand = &cands[2];
	res->rows[3].variant = "recorded";
	cmp_row_fail(&res->rows[3], "mkfs.ext4 failed (exit 1): Invalid filesystem option\nset");
	cmp_results_summarize(res);
}

static void free_results(struct cmp_results *res)
{
	unsigned i, j;

	for (i = 0; i < res->nrows; i++) {
		for (j = 0; j < res->rows[i].nruns; j++)
			cmp_run_free(&res->rows[i].runs[j]);
		free(res->rows[i].runs);
	}
	free(res->rows);
	for (i = 0; i < 3; i++)
		cmp_candidate_free(&cands[i]);
}

/* Renders into a string (free it). */
static char *render(int (*fn)(FILE *, const struct cmp_results *), const struct cmp_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fn(f, r), 0);
	fclose(f);
	if (getenv("CHECK_COMPARE_SHOW"))	/* to look at the output */
		fputs(buf, stderr);
	return buf;
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

START_TEST(test_summarize)
{
	struct cmp_results res;

	make_results(&res);
	ck_assert_double_eq(res.rows[0].med_s, 2.0);
	ck_assert_double_eq(res.rows[0].min_s, 1.0);
	ck_assert_double_eq(res.rows[0].max_s, 3.0);
	ck_assert_uint_eq(res.rows[0].median_run, 0);
	ck_assert_uint_eq(res.rows[1].median_run, 0);
	ck_assert_double_eq(res.rows[2].med_s, 1.0);		/* even: the mean of the middle two */
	ck_assert_uint_eq(res.rows[2].median_run, 1);		/* the lower middle run */
	ck_assert_double_eq(res.rows[2].ratio, 1.0);		/* the best */
	ck_assert_double_eq(res.rows[0].ratio, 2.0);
	ck_assert_double_eq(res.rows[1].ratio, 4.0);
	ck_assert_double_eq(res.rows[0].ops_per_s, 500.0);
	ck_assert(res.rows[3].failed);
	ck_assert_ptr_null(strchr(res.rows[3].reason, '\n'));
	free_results(&res);
}
END_TEST

START_TEST(test_top_ops)
{
	struct cmp_results res;
	const char *top[4];
	unsigned n;

	make_results(&res);
	/* read: 1000 x 5000 + 1000 x 8000 + 1000 x 2000; open: 100 x (20000 + 10000 + 10000);
	 * getattr is 10 x 1000 per row, under 5% of the total, so it is left out. */
	n = cmp_top_ops(&res, top, 4);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(top[0], "read");
	ck_assert_str_eq(top[1], "open");
	n = cmp_top_ops(&res, top, 1);
	ck_assert_uint_eq(n, 1);
	free_results(&res);
}
END_TEST

START_TEST(test_table)
{
	struct cmp_results res;
	char *t;

	make_results(&res);
	t = render(cmp_render_table, &res);
	ck_assert_ptr_nonnull(strstr(t, "lower is better"));
	ck_assert_ptr_nonnull(strstr(t, "candidate"));
	/* ext4: median 2.000, min 1.000, max 3.000, 500 ops/s, 2.00x. */
	ck_assert_ptr_nonnull(strstr(t, "ext4       recorded     2.000     1.000     3.000         500"));
	ck_assert_ptr_nonnull(strstr(t, "2.00x"));
	ck_assert_ptr_nonnull(strstr(t, "xfs-512    name         1.000     0.500     1.500"));
	ck_assert_ptr_nonnull(strstr(t, "1.00x"));
	ck_assert_ptr_nonnull(strstr(t, "bad        recorded  FAILED: mkfs.ext4 failed (exit 1)"));
	ck_assert_ptr_null(strstr(t, "runs done"));
	ck_assert_ptr_null(strstr(t, "--clone"));
	free(t);
	/* --clone=3: the header says what a run is */
	res.clone = 3;
	t = render(cmp_render_table, &res);
	ck_assert_ptr_nonnull(strstr(t, "\n--clone=3: each run is 3 clients at once, each on its "
				       "own copy of the workload; elapsed: the longest client's, "
				       "ops/s and counts: all of theirs\n"));
	free(t);
	res.clone = 0;
	/* a row interrupted after two runs shows them */
	add_run(&res.rows[3], 2.0, 1000, 5000, 20000);
	add_run(&res.rows[3], 3.0, 1000, 5000, 20000);
	t = render(cmp_render_table, &res);
	ck_assert_ptr_nonnull(strstr(t, "set (2 runs done: median 2.500 s)\n"));
	/* The breakdown: ext4's median run has read mean 5 us, p99 15 us. */
	ck_assert_ptr_nonnull(strstr(t, "5.00 / 15.0"));
	ck_assert_ptr_nonnull(strstr(t, "mkfs.xfs -i size=512, mount -o noatime, loop image"));
	/* the verdict column, the median's interval (3 runs: min-max, starred) */
	ck_assert_ptr_nonnull(strstr(t, "2.00x  1.000-3.000*        inconclusive (p=0.4; 5 runs "
				       "could tell)\n"));
	ck_assert_ptr_nonnull(strstr(t, "1.00x  0.500-1.500*        best\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nxfs-512 (name) is fastest; ext4 (recorded) is "
				       "inconclusive at 2.00x (p=0.4; 5 runs per row could tell)"));
	free(t);
	free_results(&res);
}
END_TEST

START_TEST(test_table_divergences)
{
	struct cmp_results res;
	char *t;

	make_results(&res);
	t = render(cmp_render_table, &res);
	ck_assert_ptr_nonnull(strstr(t, "\ndivergences: none (every run replayed the recorded results)\n"));
	free(t);
	res.rows[1].runs[1].divergences = 3;
	t = render(cmp_render_table, &res);
	ck_assert_ptr_nonnull(strstr(t, "\ndivergences (results that differ from the recorded ones), "
				       "per run; --out=DIR keeps each run's log:\n"
				       "  xfs-512    recorded  run 2: 3\n"));
	free(t);
	res.logdir = "/out/logs";
	t = render(cmp_render_table, &res);
	ck_assert_ptr_nonnull(strstr(t, "per run:\n  xfs-512    recorded  run 2: 3  "
				       "/out/logs/xfs-512-recorded-run2.divergences.jsonl\n"));
	ck_assert_ptr_null(strstr(t, "run 1:"));
	free(t);
	free_results(&res);
}
END_TEST

START_TEST(test_csv)
{
	struct cmp_results res;
	char *t;

	make_results(&res);
	t = render(cmp_render_csv, &res);
	/* A header, 3 + 3 + 2 runs, one failed row. */
	ck_assert_uint_eq(count(t, "\n"), 1 + 8 + 1);
	ck_assert_ptr_nonnull(strstr(t, "candidate,fstype,mkfs_opts,mount_opts,variant,run,status,"));
	ck_assert_ptr_nonnull(strstr(t, "ext4,ext4,,,recorded,2,ok,1.000000000,1000,1000.000,"));
	ck_assert_ptr_nonnull(strstr(t, "xfs-512,xfs,-i size=512,noatime,name,2,ok,0.5"));
	ck_assert_ptr_nonnull(strstr(t, "bad,ext4,-O nope,,recorded,1,failed,,,,,,,mkfs.ext4"));
	free(t);
	free_results(&res);
}
END_TEST

START_TEST(test_csv_quoting)
{
	struct cmp_results res;
	char *t;

	make_results(&res);
	cmp_row_fail(&res.rows[3], "a \"quoted\", reason");
	t = render(cmp_render_csv, &res);
	ck_assert_ptr_nonnull(strstr(t, ",\"a \"\"quoted\"\", reason\"\n"));
	free(t);
	free_results(&res);
}
END_TEST

START_TEST(test_svg)
{
	struct cmp_results res;
	char *t;

	make_results(&res);
	cmp_row_fail(&res.rows[3], "<bad> & \"worse\"");
	t = render(cmp_render_svg, &res);
	ck_assert_ptr_nonnull(strstr(t, "<?xml"));
	ck_assert_ptr_nonnull(strstr(t, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	ck_assert_ptr_nonnull(strstr(t, "</svg>"));
	ck_assert_uint_eq(count(t, "class=\"bar\""), 3);	/* one per ok row */
	ck_assert_uint_eq(count(t, "class=\"whisker\""), 3);
	ck_assert_uint_eq(count(t, "class=\"failed\""), 1);
	ck_assert_ptr_nonnull(strstr(t, "&lt;bad&gt; &amp; &quot;worse&quot;"));
	ck_assert_ptr_null(strstr(t, "<bad>"));
	ck_assert_ptr_nonnull(strstr(t, "2.000 s (2.00x, inconclusive)"));
	ck_assert_ptr_nonnull(strstr(t, "lower is better"));
	free(t);
	free_results(&res);
}
END_TEST

START_TEST(test_run_from_json)
{
	const char *text = "{\"elapsed_ns\": 1500000000, \"ops\": 300, \"ops_per_s\": 200.0,"
			   " \"bytes_read\": 10, \"bytes_written\": 20, \"divergences\": 2,"
			   " \"by_op\": {\"read\": {\"count\": 200, \"lat_ns\": {\"mean\": 1234.5,"
			   " \"p99\": 9000}}, \"open\": {\"count\": 100, \"lat_ns\": {\"mean\": 10,"
			   " \"p99\": 20}}}}";
	json_t *j = json_loads(text, 0, NULL);
	struct cmp_run r;

	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(cmp_run_from_json(j, &r), 0);
	ck_assert_double_eq_tol(r.elapsed_s, 1.5, 1e-12);
	ck_assert_uint_eq(r.ops, 300);
	ck_assert_double_eq_tol(r.ops_per_s, 200, 1e-9);
	ck_assert_uint_eq(r.divergences, 2);
	ck_assert_uint_eq(r.nop, 2);
	ck_assert_str_eq(r.op[0].name, "read");
	ck_assert_double_eq(r.op[0].mean_ns, 1234.5);
	ck_assert_double_eq(r.op[0].p99_ns, 9000);
	ck_assert_ptr_eq(r.raw, j);
	cmp_run_free(&r);
	json_decref(j);

	j = json_loads("{\"ops\": 3}", 0, NULL);
	ck_assert_int_eq(cmp_run_from_json(j, &r), -EINVAL);
	json_decref(j);
	ck_assert_int_eq(cmp_run_from_json(NULL, &r), -EINVAL);
}
END_TEST

START_TEST(test_json)
{
	struct cmp_results res;
	json_t *j, *rows, *row, *sum, *ci;

	make_results(&res);
	j = cmp_results_json(&res);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "fstap_compare")), 1);
	/* one client unless --clone said otherwise */
	ck_assert_int_eq(json_integer_value(json_object_get(j, "clone")), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "candidates")), 3);
	rows = json_object_get(j, "rows");
	ck_assert_uint_eq(json_array_size(rows), 4);
	row = json_array_get(rows, 0);
	ck_assert_str_eq(json_string_value(json_object_get(row, "status")), "ok");
	ck_assert_double_eq(json_real_value(json_object_get(json_object_get(json_object_get(row,
		"summary"), "elapsed_s"), "median")), 2.0);
	ck_assert_uint_eq(json_array_size(json_object_get(row, "runs")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(json_object_get(row,
		"runs"), 1), "elapsed_ns")), 1000000000);
	/* the new keys: verdict, elapsed_s.ci95 (3 runs: min-max, 75%), vs_best */
	ck_assert_str_eq(json_string_value(json_object_get(row, "verdict")), "inconclusive");
	sum = json_object_get(row, "summary");
	ci = json_object_get(json_object_get(sum, "elapsed_s"), "ci95");
	ck_assert_double_eq(json_real_value(json_array_get(ci, 0)), 1.0);
	ck_assert_double_eq(json_real_value(json_array_get(ci, 1)), 3.0);
	ck_assert_double_eq_tol(json_real_value(json_object_get(json_object_get(sum, "elapsed_s"),
		"ci95_coverage")), 0.75, 1e-12);
	ck_assert_uint_eq(json_array_size(json_object_get(sum, "ops_per_s_ci95")), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(sum, "vs_best"), "ci95")),
			  2);
	ck_assert(json_is_real(json_object_get(json_object_get(sum, "vs_best"), "p_holm")));
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "runs_needed")), 5);
	row = json_array_get(rows, 2);
	ck_assert_str_eq(json_string_value(json_object_get(row, "verdict")), "best");
	row = json_array_get(rows, 3);
	ck_assert_str_eq(json_string_value(json_object_get(row, "status")), "failed");
	ck_assert_str_eq(json_string_value(json_object_get(row, "verdict")), "failed");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(row, "reason")), "mkfs"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(j, "conclusion")),
				     "xfs-512 (name) is fastest"));
	json_decref(j);
	res.clone = 4;
	j = cmp_results_json(&res);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "clone")), 4);
	json_decref(j);
	free_results(&res);
}
END_TEST

/* Results of made-up runs: row i of candidate fs[i] with n[i] times. */
static void verdict_results(struct cmp_results *res, const char *const *fs, unsigned nrows,
			    const double *const *times, const unsigned *n)
{
	char err[256];
	unsigned i, k;

	memset(res, 0, sizeof(*res));
	res->trace = "w.trace";
	res->runs = n[0];
	res->nrows = nrows;
	res->max_divergence = CMP_MAX_DIVERGENCE;
	res->rows = calloc(nrows, sizeof(*res->rows));
	for (i = 0; i < nrows; i++) {
		ck_assert_int_eq(cmp_candidate_fs(fs[i], &cands[i], err, sizeof(err)), 0);
		res->rows[i].cand = &cands[i];
		res->rows[i].variant = "recorded";
		for (k = 0; k < n[i]; k++)
			add_run(&res->rows[i], times[i][k], 1000, 5000, 20000);
	}
}

START_TEST(test_verdict_slower_same)
{
	static const char *const fs[] = { "ext4", "xfs", "btrfs" };
	static const double ext4[] = { 0.97, 0.995, 1.005, 1.01, 1.03 };
	static const double xfs[] = { 0.98, 0.99, 1.0, 1.01, 1.02 };
	static const double btrfs[] = { 2.0, 2.1, 1.9, 2.05, 1.95 };
	static const double *const t[] = { ext4, xfs, btrfs };
	static const unsigned n[] = { 5, 5, 5 };
	struct cmp_results res;
	char buf[1024];

	verdict_results(&res, fs, 3, t, n);
	ck_assert_int_eq(cmp_results_summarize(&res), 0);
	ck_assert_str_eq(cmp_verdict_name(res.rows[1].verdict), "best");
	ck_assert_str_eq(cmp_verdict_name(res.rows[0].verdict), "same");
	ck_assert_str_eq(cmp_verdict_name(res.rows[2].verdict), "slower");
	/* 5 against 5, separated: 2/252, doubled by Holm over two rows */
	ck_assert_double_eq_tol(res.rows[2].p, 2.0 / 252, 1e-12);
	ck_assert_double_eq_tol(res.rows[2].p_holm, 4.0 / 252, 1e-12);
	ck_assert_double_eq_tol(res.rows[0].p_holm, 224.0 / 252, 1e-12);	/* counted */
	ck_assert(res.rows[2].vs_best_ci.lo > 1.8 && res.rows[2].vs_best_ci.hi < 2.2);
	ck_assert(res.rows[2].vs_best_ci.lo <= res.rows[2].vs_best &&
		  res.rows[2].vs_best <= res.rows[2].vs_best_ci.hi);
	ck_assert_double_eq_tol(res.rows[2].vs_best, 2.0, 1e-12);
	ck_assert_double_eq(res.rows[1].elapsed_ci.lo, 0.98);	/* 5 runs: min-max */
	ck_assert(!res.rows[1].elapsed_ci.reaches_95);
	cmp_verdict_sentence(&res, buf, sizeof(buf));
	ck_assert_str_eq(buf, "xfs is fastest; ext4 is the same within noise (p=0.89); "
			      "btrfs is 2.00x slower [1.90-2.10]");
	free_results(&res);
}
END_TEST

START_TEST(test_verdict_inconclusive)
{
	static const char *const fs[] = { "ext4", "xfs" };
	static const double ext4[] = { 2.0, 2.1, 1.9 };
	static const double xfs[] = { 1.0, 1.1, 0.9 };
	static const double *const t[] = { ext4, xfs };
	static const unsigned n[] = { 3, 3 };
	struct cmp_results res;
	char buf[1024];

	/* 3 against 3 cannot go below p = 0.1: inconclusive, 4 runs could tell */
	verdict_results(&res, fs, 2, t, n);
	ck_assert_int_eq(cmp_results_summarize(&res), 0);
	ck_assert_str_eq(cmp_verdict_name(res.rows[1].verdict), "best");
	ck_assert_str_eq(cmp_verdict_name(res.rows[0].verdict), "inconclusive");
	ck_assert_uint_eq(res.rows[0].runs_needed, 4);
	ck_assert_double_eq_tol(res.rows[0].p_holm, 0.1, 1e-12);
	cmp_verdict_sentence(&res, buf, sizeof(buf));
	ck_assert_str_eq(buf, "xfs is fastest; ext4 is inconclusive at 2.00x "
			      "(p=0.1; 4 runs per row could tell)");
	free_results(&res);
}
END_TEST

START_TEST(test_verdict_diverged_failed)
{
	static const char *const fs[] = { "ext4", "xfs", "btrfs" };
	static const double ext4[] = { 1.0, 1.1, 0.9, 1.05 };
	static const double xfs[] = { 0.5, 0.6, 0.4, 0.55 };
	static const double btrfs[] = { 3.0 };
	static const double *const t[] = { ext4, xfs, btrfs };
	static const unsigned n[] = { 4, 4, 1 };
	struct cmp_results res;
	char buf[1024];

	verdict_results(&res, fs, 3, t, n);
	res.rows[1].runs[2].divergences = 2;	/* 0.2% of 1000: diverged */
	res.rows[0].runs[1].divergences = 1;	/* 0.1%: not above, ranked */
	cmp_row_fail(&res.rows[2], "mkfs.btrfs failed");
	ck_assert_int_eq(cmp_results_summarize(&res), 0);
	ck_assert_str_eq(cmp_verdict_name(res.rows[1].verdict), "diverged");
	ck_assert_uint_eq(res.rows[1].div_run, 3);
	ck_assert_uint_eq(res.rows[1].div_worst, 2);
	ck_assert_str_eq(cmp_verdict_name(res.rows[0].verdict), "best");
	ck_assert_str_eq(cmp_verdict_name(res.rows[2].verdict), "failed");
	ck_assert_double_eq_tol(res.rows[1].ratio, 0.525 / 1.025, 1e-12);
	cmp_verdict_sentence(&res, buf, sizeof(buf));
	ck_assert_str_eq(buf, "ext4 is fastest; xfs diverged (2 of 1000 operations in run 3) "
			      "and is not ranked; btrfs failed");
	/* a zero threshold: any divergence disqualifies; nothing left to rank */
	res.max_divergence = 0;
	ck_assert_int_eq(cmp_results_summarize(&res), 0);
	ck_assert_str_eq(cmp_verdict_name(res.rows[0].verdict), "diverged");
	cmp_verdict_sentence(&res, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "no candidate could be ranked; ext4 diverged"));
	free_results(&res);
}
END_TEST

START_TEST(test_schedule)
{
	unsigned *a, *b, seen[3] = { 0, 0, 0 }, i, moved = 0;

	/* each of 3 rows 4 times, shuffled; the same seed, the same order */
	ck_assert_int_eq(cmp_schedule(3, 4, 42, &a), 0);
	ck_assert_int_eq(cmp_schedule(3, 4, 42, &b), 0);
	ck_assert_int_eq(memcmp(a, b, 12 * sizeof(*a)), 0);
	for (i = 0; i < 12; i++) {
		ck_assert_uint_lt(a[i], 3);
		seen[a[i]]++;
		moved += a[i] != i % 3;
	}
	ck_assert_uint_eq(seen[0], 4);
	ck_assert_uint_eq(seen[1], 4);
	ck_assert_uint_eq(seen[2], 4);
	ck_assert_uint_gt(moved, 0);	/* not the row-by-row round robin */
	free(b);
	ck_assert_int_eq(cmp_schedule(3, 4, 43, &b), 0);
	ck_assert_int_ne(memcmp(a, b, 12 * sizeof(*a)), 0);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_time_budget)
{
	/* no budget: always another round */
	ck_assert(cmp_budget_allows(1e9, 4, 0));
	/* 40 s for 4 runs per row: a round takes 10 s */
	ck_assert(cmp_budget_allows(40, 4, 50));
	ck_assert(!cmp_budget_allows(40, 4, 49.9));
	ck_assert(!cmp_budget_allows(40, 4, 30));
	/* 50 s for 5: the sixth ends at 60 */
	ck_assert(cmp_budget_allows(50, 5, 60));
	ck_assert(!cmp_budget_allows(50, 5, 59));
}
END_TEST

static Suite *compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("pure");

	tcase_add_test(tc, test_candidate_parse);
	tcase_add_test(tc, test_target_parse);
	tcase_add_test(tc, test_packages);
	tcase_add_test(tc, test_image_size);
	tcase_add_test(tc, test_median);
	tcase_add_test(tc, test_summarize);
	tcase_add_test(tc, test_top_ops);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_table_divergences);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_csv_quoting);
	tcase_add_test(tc, test_svg);
	tcase_add_test(tc, test_run_from_json);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_schedule);
	tcase_add_test(tc, test_verdict_slower_same);
	tcase_add_test(tc, test_verdict_inconclusive);
	tcase_add_test(tc, test_verdict_diverged_failed);
	tcase_add_test(tc, test_time_budget);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(compare_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
