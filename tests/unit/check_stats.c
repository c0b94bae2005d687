/*
 * check_stats.c: the replay's statistics: histogram bucket arithmetic
 * (continuity, error bound), percentiles, merging, and the classification
 * of a replayed result against the recorded one (a table of cases).
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay_i.h"

START_TEST(test_stats_hist_buckets)
{
	uint64_t v, prev = 0;
	unsigned i;

	/* Exact below 64, contiguous and monotonic above. */
	for (v = 0; v < 64; v++)
		ck_assert_uint_eq(rp_hist_index(v), v);
	for (v = 1; v < (1ull << 22); v += 1 + v / 97) {
		unsigned idx = rp_hist_index(v);

		ck_assert_uint_ge(idx, prev);
		ck_assert_uint_le(idx, prev + 1 + (unsigned)(v / 97) + 1);
		prev = idx;
	}
	/* The midpoint of a value's bucket is within 1/128 of it. */
	for (i = 0; i < 40; i++) {
		v = (1ull << i) + (1ull << i) / 3 + 7;
		uint64_t m = rp_hist_value(rp_hist_index(v));
		uint64_t d = m > v ? m - v : v - m;

		ck_assert_uint_le(d * 128, v);
	}
	ck_assert_uint_eq(rp_hist_index(UINT64_MAX), RP_HIST_NR - 1);
	ck_assert_uint_eq(rp_hist_index(1ull << 40), RP_HIST_NR - 1);
	ck_assert_uint_lt(rp_hist_index((1ull << 40) - 1), RP_HIST_NR);
}
END_TEST

START_TEST(test_stats_hist_percentiles)
{
	struct rp_hist *h = calloc(1, sizeof(*h));
	uint64_t v;

	ck_assert_uint_eq(rp_hist_percentile(h, 50), 0);
	for (v = 1; v <= 100000; v++)
		rp_hist_add(h, v * 1000);	/* 1 us .. 100 ms */
	ck_assert_uint_eq(h->n, 100000);
	ck_assert_uint_eq(h->min, 1000);
	ck_assert_uint_eq(h->max, 100000000);
	ck_assert(rp_hist_mean(h) > 50000499.0 && rp_hist_mean(h) < 50000501.0);
	/* Within the histogram's error bound of the exact percentile. */
	v = rp_hist_percentile(h, 50);
	ck_assert(v > 50000000 - 50000000 / 100 && v < 50000000 + 50000000 / 100);
	v = rp_hist_percentile(h, 99);
	ck_assert(v > 99000000 - 99000000 / 100 && v < 99000000 + 99000000 / 100);
	v = rp_hist_percentile(h, 99.9);
	ck_assert(v > 99900000 - 99900000 / 100 && v <= 100000000);
	ck_assert_uint_eq(rp_hist_percentile(h, 100), 100000000);
	free(h);
}
END_TEST

/* Mean and sample standard deviation from the integer sums, small and huge values. */
START_TEST(test_stats_hist_moments)
{
	static const uint64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct rp_hist *h = calloc(1, sizeof(*h));
	unsigned i;

	ck_assert(rp_hist_mean(h) == 0 && rp_hist_stddev(h) == 0);
	rp_hist_add(h, 7);
	ck_assert(rp_hist_mean(h) == 7 && rp_hist_stddev(h) == 0);
	memset(h, 0, sizeof(*h));
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		rp_hist_add(h, v[i]);
	ck_assert(rp_hist_mean(h) == 5);
	ck_assert(fabs(rp_hist_stddev(h) - sqrt(32.0 / 7)) < 1e-12);
	/* all alike: exactly 0, however large (no cancellation) */
	memset(h, 0, sizeof(*h));
	for (i = 0; i < 1000; i++)
		rp_hist_add(h, 123456789012345ull);
	ck_assert(rp_hist_mean(h) == 123456789012345.0 && rp_hist_stddev(h) == 0);
	/* sums past 2^64: the long double way, still close */
	memset(h, 0, sizeof(*h));
	rp_hist_add(h, UINT64_MAX / 2);
	rp_hist_add(h, UINT64_MAX / 2 + 2000);
	ck_assert(fabs(rp_hist_stddev(h) / (1000 * sqrt(2.0)) - 1) < 1e-9);
	/* sum_sq wraps past 2^128: centred at min, still exact */
	memset(h, 0, sizeof(*h));
	for (i = 0; i < 3; i++)
		rp_hist_add(h, UINT64_MAX - 1000 * i);
	ck_assert(fabs(rp_hist_stddev(h) - 1000) < 1e-9);
	free(h);
}
END_TEST

START_TEST(test_stats_hist_merge)
{
	struct rp_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct rp_hist *all = calloc(1, sizeof(*all));
	uint64_t v;
	unsigned i;

	for (v = 1; v < 5000; v++) {
		rp_hist_add(v % 3 ? a : b, v * v);
		rp_hist_add(all, v * v);
	}
	rp_hist_merge(a, b);
	ck_assert_uint_eq(a->n, all->n);
	ck_assert_uint_eq(a->min, all->min);
	ck_assert_uint_eq(a->max, all->max);
	for (i = 0; i < RP_HIST_NR; i++)
		ck_assert_uint_eq(a->bucket[i], all->bucket[i]);
	ck_assert(a->sum == all->sum && a->sum_sq == all->sum_sq);
	ck_assert(fabs(rp_hist_mean(a) - rp_hist_mean(all)) < 1e-9);
	ck_assert(rp_hist_stddev(a) / rp_hist_stddev(all) > 0.999999 &&
		  rp_hist_stddev(a) / rp_hist_stddev(all) < 1.000001);
	free(a);
	free(b);
	free(all);
}
END_TEST

static const struct {
	unsigned op;
	int64_t recorded, got;
	bool diverges;
	enum rp_div_kind kind;
	unsigned err;
} div_cases[] = {
	{ FSTAP_OP_UNLINK, 0, 0, false, 0, 0 },
	{ FSTAP_OP_UNLINK, -ENOENT, -ENOENT, false, 0, 0 },
	{ FSTAP_OP_UNLINK, 0, -ENOENT, true, RP_DIV_ERRNO, ENOENT },
	{ FSTAP_OP_UNLINK, -EACCES, -ENOENT, true, RP_DIV_ERRNO, ENOENT },
	{ FSTAP_OP_MKDIR, -EEXIST, 0, true, RP_DIV_SUCCEEDED, EEXIST },
	{ FSTAP_OP_READ, 4096, 4096, false, 0, 0 },
	{ FSTAP_OP_READ, 4096, 100, true, RP_DIV_SHORT, 0 },
	{ FSTAP_OP_READ, 100, 4096, true, RP_DIV_VALUE, 0 },
	{ FSTAP_OP_WRITE, 4096, 0, true, RP_DIV_SHORT, 0 },
	{ FSTAP_OP_LSEEK, 8192, 4096, true, RP_DIV_VALUE, 0 },
	{ FSTAP_OP_GETXATTR, 8, 8, false, 0, 0 },
	{ FSTAP_OP_GETXATTR, 8, 9, true, RP_DIV_VALUE, 0 },
	{ FSTAP_OP_READDIR, 4, 2, false, 0, 0 },
	{ FSTAP_OP_OPEN, 0, RP_E_UNKNOWN, true, RP_DIV_UNKNOWN, 0 },
	{ FSTAP_OP_OPEN, -ENOENT, RP_E_REFUSED, true, RP_DIV_REFUSED, 0 },
	{ FSTAP_OP_OPEN, 0, RP_E_DEVICE, true, RP_DIV_DEVICE, 0 },
};

START_TEST(test_stats_divergence_table)
{
	unsigned i, err;
	enum rp_div_kind kind;

	for (i = 0; i < sizeof(div_cases) / sizeof(div_cases[0]); i++) {
		bool d = rp_diverges(div_cases[i].op, div_cases[i].recorded, div_cases[i].got,
				     &kind, &err);

		ck_assert_msg(d == div_cases[i].diverges, "case %u", i);
		if (d) {
			ck_assert_msg(kind == div_cases[i].kind, "case %u kind %d", i, kind);
			ck_assert_msg(err == div_cases[i].err, "case %u err %u", i, err);
		}
	}
}
END_TEST

START_TEST(test_stats_counters_and_merge)
{
	struct rp_stats a, b;

	rp_stats_init(&a);
	rp_stats_init(&b);
	ck_assert_int_eq(rp_stats_add(&a, FSTAP_OP_READ, 4096, 1000), 0);
	ck_assert_int_eq(rp_stats_add(&a, FSTAP_OP_READ, -EIO, 1000), 0);
	ck_assert_int_eq(rp_stats_add(&b, FSTAP_OP_READ, 100, 3000), 0);
	ck_assert_int_eq(rp_stats_add(&b, FSTAP_OP_MKDIR, 0, 50), 0);
	rp_stats_div(&a, FSTAP_OP_UNLINK, RP_DIV_ERRNO, ENOENT);
	rp_stats_div(&b, FSTAP_OP_UNLINK, RP_DIV_ERRNO, ENOENT);
	rp_stats_div(&b, FSTAP_OP_READ, RP_DIV_SHORT, 0);
	ck_assert_int_eq(rp_stats_merge(&a, &b), 0);
	ck_assert_uint_eq(a.op[FSTAP_OP_READ].count, 3);
	ck_assert_uint_eq(a.op[FSTAP_OP_READ].errors, 1);
	ck_assert_uint_eq(a.op[FSTAP_OP_READ].bytes, 4196);
	ck_assert_uint_eq(a.op[FSTAP_OP_READ].lat->max, 3000);
	ck_assert_uint_eq(a.op[FSTAP_OP_MKDIR].count, 1);
	ck_assert_uint_eq(a.divergences, 3);
	ck_assert_uint_eq(a.ndiv, 2);
	ck_assert_uint_eq(a.div[0].count, 2);
	rp_stats_release(&a);
	rp_stats_release(&b);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_stats_hist_buckets);
	tcase_add_test(tc, test_stats_hist_percentiles);
	tcase_add_test(tc, test_stats_hist_moments);
	tcase_add_test(tc, test_stats_hist_merge);
	tcase_add_test(tc, test_stats_divergence_table);
	tcase_add_test(tc, test_stats_counters_and_merge);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
