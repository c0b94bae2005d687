/*
 * check_compare_stats.c: unit tests of compare's statistics
 * (src/compare/stats.c) against values from published tables or counted
 * by hand: the median's order-statistic interval, the exact Mann-Whitney
 * p-values (with and without ties), the normal approximation, the
 * Hodges-Lehmann ratio and its interval, Holm's correction and the runs
 * needed for a decision.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "compare/stats.h"

#define TOL 1e-9

START_TEST(test_compare_stats_median)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };

	ck_assert_double_eq(cmp_median(odd, 3), 2);
	ck_assert_double_eq(cmp_median(even, 4), 2.5);
	ck_assert_double_eq(cmp_median(odd, 0), 0);
}
END_TEST

START_TEST(test_compare_stats_median_ci)
{
	double v[10] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	struct cmp_ci ci;

	/* n = 10: k = 2 (P(B <= 1) = 11/1024), coverage 1 - 22/1024 */
	ck_assert_int_eq(cmp_median_ci(v, 10, &ci), 0);
	ck_assert_double_eq(ci.lo, 2);
	ck_assert_double_eq(ci.hi, 9);
	ck_assert_double_eq_tol(ci.coverage, 1 - 22.0 / 1024, TOL);
	ck_assert(ci.reaches_95);
	/* n = 6: the smallest sample with a 95% interval: min-max, 1 - 2/64 */
	ck_assert_int_eq(cmp_median_ci(v, 6, &ci), 0);
	ck_assert_double_eq(ci.lo, 5);
	ck_assert_double_eq(ci.hi, 10);
	ck_assert_double_eq_tol(ci.coverage, 1 - 2.0 / 64, TOL);
	ck_assert(ci.reaches_95);
	/* n = 5: min-max covers only 1 - 2/32 = 93.75%; n = 3: 75% */
	ck_assert_int_eq(cmp_median_ci(v, 5, &ci), 0);
	ck_assert_double_eq_tol(ci.coverage, 0.9375, TOL);
	ck_assert(!ci.reaches_95);
	ck_assert_double_eq(ci.lo, 6);
	ck_assert_double_eq(ci.hi, 10);
	ck_assert_int_eq(cmp_median_ci(v, 3, &ci), 0);
	ck_assert_double_eq_tol(ci.coverage, 0.75, TOL);
	ck_assert_int_eq(cmp_median_ci(v, 1, &ci), 0);
	ck_assert_double_eq(ci.lo, 10);
	ck_assert_double_eq(ci.coverage, 0);
	ck_assert_int_eq(cmp_median_ci(v, 0, &ci), -EINVAL);
}
END_TEST

START_TEST(test_compare_stats_mann_whitney_exact)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	const double mixed[] = { 1, 3, 5 }, other[] = { 2, 4, 6 };
	double p;
	bool exact;

	/* complete separation: 2 / C(6,3) = 0.1 and 2 / C(10,5) = 0.0079 */
	ck_assert_int_eq(cmp_mann_whitney(a3, 3, b3, 3, &p, &exact), 0);
	ck_assert(exact);
	ck_assert_double_eq_tol(p, 0.1, TOL);
	ck_assert_int_eq(cmp_mann_whitney(b3, 3, a3, 3, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 0.1, TOL);
	ck_assert_int_eq(cmp_mann_whitney(a5, 5, b5, 5, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 2.0 / 252, TOL);
	ck_assert_double_eq_tol(p, 0.0079, 0.00005);
	/* W = 9 against a mean of 10.5: 14 of the 20 splits as far or farther */
	ck_assert_int_eq(cmp_mann_whitney(mixed, 3, other, 3, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 0.7, TOL);
	/* identical samples: p = 1 */
	ck_assert_int_eq(cmp_mann_whitney(a3, 3, a3, 3, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 1, TOL);
	ck_assert_double_eq_tol(cmp_mann_whitney_min_p(5, 5), 2.0 / 252, TOL);
	ck_assert_double_eq_tol(cmp_mann_whitney_min_p(1, 1), 1, TOL);
	ck_assert_int_eq(cmp_mann_whitney(a3, 0, b3, 3, &p, &exact), -EINVAL);
}
END_TEST

START_TEST(test_compare_stats_mann_whitney_ties)
{
	const double x1[] = { 1, 2, 2 }, y1[] = { 2, 3, 4 };
	const double x2[] = { 1, 1, 2, 3 }, y2[] = { 2, 3, 3, 4, 5 };
	const double all[] = { 7, 7, 7 };
	double p;
	bool exact;

	/* counted over the C(6,3) = 20 splits of the mid-ranks: 6 as extreme */
	ck_assert_int_eq(cmp_mann_whitney(x1, 3, y1, 3, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 6.0 / 20, TOL);
	/* 10 of the C(9,4) = 126 splits */
	ck_assert_int_eq(cmp_mann_whitney(x2, 4, y2, 5, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 10.0 / 126, TOL);
	/* all tied: no evidence at all */
	ck_assert_int_eq(cmp_mann_whitney(all, 3, all, 3, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 1, TOL);
}
END_TEST

START_TEST(test_compare_stats_mann_whitney_normal)
{
	double x[30], y[30], p;
	bool exact;
	unsigned i;

	for (i = 0; i < 30; i++) {
		x[i] = i;
		y[i] = 100 + i;
	}
	/* U = 0, mean 450, variance 900 * 61 / 12: z = 449.5 / 67.64 */
	ck_assert_int_eq(cmp_mann_whitney(x, 30, y, 30, &p, &exact), 0);
	ck_assert(!exact);
	ck_assert_double_eq_tol(p, 3.019859359e-11, 1e-18);
	ck_assert_int_eq(cmp_mann_whitney(x, 30, x, 30, &p, &exact), 0);
	ck_assert_double_eq_tol(p, 1, TOL);
}
END_TEST

START_TEST(test_compare_stats_hl_ratio)
{
	const double x3[] = { 1.0, 1.1, 1.2 }, y3[] = { 2.0, 2.2, 2.4 };
	const double x5[] = { 1.0, 1.1, 1.2, 1.3, 1.4 }, y5[] = { 1.5, 1.6, 1.7, 1.8, 1.9 };
	const double bad[] = { 1, 0, 2 };
	double r;
	struct cmp_ci ci;

	/* 3 runs each: the 9 ratios range 2/1.2 .. 2.4/1; median 2; U's P(U=0)
	 * = 1/20 is above 2.5%: no 95% interval, full range with 90% coverage */
	ck_assert_int_eq(cmp_hl_ratio(x3, 3, y3, 3, &r, &ci), 0);
	ck_assert_double_eq_tol(r, 2, TOL);
	ck_assert_double_eq_tol(ci.lo, 2.0 / 1.2, TOL);
	ck_assert_double_eq_tol(ci.hi, 2.4, TOL);
	ck_assert_double_eq_tol(ci.coverage, 0.9, TOL);
	ck_assert(!ci.reaches_95);
	/* 5 runs each: the table's critical U is 2, so [D(3), D(23)],
	 * coverage 1 - 2 * 4/252; of the 25 ratios sorted the 3rd is 1.5/1.3, the
	 * 13th (the median) 1.7/1.2 and the 23rd 1.9/1.1 */
	ck_assert_int_eq(cmp_hl_ratio(x5, 5, y5, 5, &r, &ci), 0);
	ck_assert_double_eq_tol(ci.coverage, 1 - 8.0 / 252, TOL);
	ck_assert(ci.reaches_95);
	ck_assert_double_eq_tol(ci.lo, 1.5 / 1.3, TOL);
	ck_assert_double_eq_tol(ci.hi, 1.9 / 1.1, TOL);
	ck_assert_double_eq_tol(r, 1.7 / 1.2, TOL);
	ck_assert_int_eq(cmp_hl_ratio(bad, 3, y3, 3, &r, &ci), -EINVAL);
}
END_TEST

START_TEST(test_compare_stats_holm)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005 }, one[] = { 0.3 }, big[] = { 0.6, 0.7 };

	ck_assert_int_eq(cmp_holm(p, 4), 0);
	ck_assert_double_eq_tol(p[3], 0.02, TOL);
	ck_assert_double_eq_tol(p[0], 0.03, TOL);
	ck_assert_double_eq_tol(p[2], 0.06, TOL);
	ck_assert_double_eq_tol(p[1], 0.06, TOL);	/* monotone: not 0.04 */
	ck_assert_int_eq(cmp_holm(one, 1), 0);
	ck_assert_double_eq_tol(one[0], 0.3, TOL);
	ck_assert_int_eq(cmp_holm(big, 2), 0);
	ck_assert_double_eq_tol(big[0], 1, TOL);
	ck_assert_double_eq_tol(big[1], 1, TOL);
	ck_assert_int_eq(cmp_holm(p, 0), 0);
}
END_TEST

START_TEST(test_compare_stats_runs_needed)
{
	/* 2/C(8,4) = 0.029; two rows: 4/70 = 0.057 is not enough, 4/252 is */
	ck_assert_uint_eq(cmp_runs_needed(1, 0.05), 4);
	ck_assert_uint_eq(cmp_runs_needed(2, 0.05), 5);
	ck_assert_uint_eq(cmp_runs_needed(3, 0.05), 5);
	ck_assert_uint_eq(cmp_runs_needed(7, 0.05), 6);	/* 14/252 > 0.05, 14/924 */
}
END_TEST

static Suite *compare_stats_suite(void)
{
	Suite *s = suite_create("compare_stats");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_compare_stats_median);
	tcase_add_test(tc, test_compare_stats_median_ci);
	tcase_add_test(tc, test_compare_stats_mann_whitney_exact);
	tcase_add_test(tc, test_compare_stats_mann_whitney_ties);
	tcase_add_test(tc, test_compare_stats_mann_whitney_normal);
	tcase_add_test(tc, test_compare_stats_hl_ratio);
	tcase_add_test(tc, test_compare_stats_holm);
	tcase_add_test(tc, test_compare_stats_runs_needed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(compare_stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
