/*
 * check_rank.c: fractional ranks and Spearman's rho (src/analysis/rank.c),
 * against values worked out by hand, and the time arguments of filter.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/analysis.h"

START_TEST(test_rank_ties_share_mean_rank)
{
	const double v[] = { 10, 20, 20, 5, 20 };
	double r[5];

	ck_assert_int_eq(an_ranks(v, 5, r), 0);
	ck_assert(r[3] == 1.0);
	ck_assert(r[0] == 2.0);
	/* three 20s hold ranks 3, 4, 5 */
	ck_assert(r[1] == 4.0 && r[2] == 4.0 && r[4] == 4.0);
}
END_TEST

START_TEST(test_rank_spearman_known_values)
{
	static const struct {
		double x[6], y[6];
		size_t n;
		double rho;
	} cases[] = {
		{ { 1, 2, 3, 4, 5 }, { 10, 20, 30, 40, 50 }, 5, 1.0 },
		{ { 1, 2, 3, 4, 5 }, { 5, 4, 3, 2, 1 }, 5, -1.0 },
		/* monotone but not linear: still 1 */
		{ { 1, 2, 3, 4 }, { 1, 8, 27, 1000 }, 4, 1.0 },
		/* d = (0, 0, 1, -1, 0): 1 - 6 * 2 / 120 */
		{ { 1, 2, 3, 4, 5 }, { 1, 2, 4, 3, 5 }, 5, 0.9 },
		/* d^2 sum 4 over n = 4: 1 - 24 / 60 */
		{ { 1, 2, 3, 4 }, { 2, 1, 4, 3 }, 4, 0.6 },
		/* d^2 sum 10: 1 - 60 / 60 */
		{ { 1, 2, 3, 4 }, { 2, 4, 1, 3 }, 4, 0.0 },
		/* ties: ranks y = (1.5, 1.5, 3, 4): Pearson of ranks = 0.9486833 */
		{ { 1, 2, 3, 4 }, { 7, 7, 8, 9 }, 4, 0.9486832980505138 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double rho = an_spearman(cases[i].x, cases[i].y, cases[i].n);

		ck_assert_msg(fabs(rho - cases[i].rho) < 1e-9, "case %zu: rho %.12f, expected %.12f",
			      i, rho, cases[i].rho);
	}
}
END_TEST

START_TEST(test_rank_spearman_undefined)
{
	const double x[] = { 1, 2, 3 }, same[] = { 4, 4, 4 };

	ck_assert(isnan(an_spearman(x, x, 1)));
	ck_assert(isnan(an_spearman(x, x, 0)));
	ck_assert(isnan(an_spearman(x, same, 3)));
}
END_TEST

START_TEST(test_rank_parse_time)
{
	static const struct { const char *s; uint64_t ns; } ok[] = {
		{ "0", 0 }, { "1500", 1500 }, { "1500ns", 1500 }, { "2us", 2000 },
		{ "200ms", 200000000 }, { "1.5s", 1500000000 }, { "2m", 120000000000ull },
		{ "0.000001s", 1000 },
	};
	static const char *const bad[] = { "", "-1", "1x", "ms", "1.5 s", "1e400s", "+3" };
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(an_parse_time(ok[i].s, &v), 0);
		ck_assert_msg(v == ok[i].ns, "'%s' gave %llu", ok[i].s, (unsigned long long)v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(an_parse_time(bad[i], &v) == -EINVAL, "'%s' accepted", bad[i]);
}
END_TEST

static Suite *rank_suite(void)
{
	Suite *s = suite_create("rank");
	TCase *core = tcase_create("Core");

	tcase_add_test(core, test_rank_ties_share_mean_rank);
	tcase_add_test(core, test_rank_spearman_known_values);
	tcase_add_test(core, test_rank_spearman_undefined);
	tcase_add_test(core, test_rank_parse_time);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rank_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
