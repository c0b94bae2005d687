/*
 * check_clone.c: the merge of a replay's parts (clones, MPI ranks) into one
 * result (replay/clone.c): counters and histograms added, the longest
 * elapsed time, divergences by kind summed, each part kept.
 */
#include <check.h>
#include <stdlib.h>

#include "replay/replay_i.h"

/* A part with n getattrs of lat ns each, one ENOENT divergence, elapsed el. */
static struct rp_result *part(unsigned n, uint64_t lat, uint64_t el)
{
	struct rp_result *r = calloc(1, sizeof(*r));
	unsigned i;

	ck_assert_ptr_nonnull(r);
	rp_stats_init(&r->stats);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(rp_stats_add(&r->stats, FSTAP_OP_GETATTR, 0, lat), 0);
	ck_assert_int_eq(rp_stats_div(&r->stats, FSTAP_OP_GETATTR, RP_DIV_ERRNO, 2), 0);
	r->replayed = n;
	r->op_records = n + 1;
	r->lookups_absorbed = 3;
	r->rank_deps = 4;
	r->workers = 2;
	r->elapsed_ns = el;
	return r;
}

START_TEST(test_clone_merge)
{
	struct rp_result **parts = calloc(3, sizeof(*parts)), *r = NULL;
	const struct rp_opstat *o;

	ck_assert_ptr_nonnull(parts);
	parts[0] = part(10, 1000, 5000);
	parts[1] = part(20, 3000, 9000);
	parts[2] = part(5, 500, 7000);
	ck_assert_int_eq(rp_result_of_parts("clone", parts, 3, &r), 0);
	ck_assert_str_eq(r->part_kind, "clone");
	ck_assert_uint_eq(r->nparts, 3);
	ck_assert_ptr_eq(r->parts[1], parts[1]);
	ck_assert_uint_eq(r->replayed, 35);
	ck_assert_uint_eq(r->op_records, 38);
	ck_assert_uint_eq(r->lookups_absorbed, 9);
	ck_assert_uint_eq(r->workers, 6);
	ck_assert_uint_eq(r->elapsed_ns, 9000);
	o = &r->stats.op[FSTAP_OP_GETATTR];
	ck_assert_uint_eq(o->count, 35);
	ck_assert_uint_eq(o->lat->n, 35);
	ck_assert_uint_eq(o->lat->min, 500);
	ck_assert_uint_eq(o->lat->max, 3000);
	ck_assert(rp_hist_mean(o->lat) > (10 * 1000 + 20 * 3000 + 5 * 500) / 35.0 - 1e-6);
	ck_assert(rp_hist_mean(o->lat) < (10 * 1000 + 20 * 3000 + 5 * 500) / 35.0 + 1e-6);
	ck_assert_uint_eq(r->rank_deps, 12);
	ck_assert_uint_eq(r->stats.divergences, 3);
	ck_assert_uint_eq(r->stats.ndiv, 1);
	ck_assert_uint_eq(r->stats.div[0].count, 3);
	/* The parts keep their own. */
	ck_assert_uint_eq(r->parts[2]->stats.op[FSTAP_OP_GETATTR].count, 5);
	rp_result_free(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clone");
	TCase *tc = tcase_create("Core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_clone_merge);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
