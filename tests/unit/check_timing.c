/*
 * check_timing.c: pacing arithmetic with a fake clock (no timed tests):
 * afap never sleeps, orig keeps the gaps, N% scales them, and the
 * lateness of each sleep is carried forward so that it never accumulates.
 */
#include <check.h>
#include <stdint.h>

#include "replay_i.h"

struct fake {
	uint64_t now;
	uint64_t overshoot;	/* every sleep wakes this late */
	unsigned sleeps;
};

static uint64_t fake_now(void *arg)
{
	return ((struct fake *)arg)->now;
}

static void fake_sleep_until(void *arg, uint64_t t)
{
	struct fake *f = arg;

	f->sleeps++;
	if (t > f->now)
		f->now = t;
	f->now += f->overshoot;
}

START_TEST(test_timing_afap_never_sleeps)
{
	struct fake f = { .now = 1000 };
	struct rp_clock c = { fake_now, fake_sleep_until, &f };
	struct rp_pace p;
	uint64_t issued;

	rp_pace_init(&p, 0);
	ck_assert_uint_eq(rp_pace_wait(&p, &c, 0, 1000000, &issued), 0);
	ck_assert_uint_eq(issued, 1000);
	ck_assert_uint_eq(f.sleeps, 0);
}
END_TEST

START_TEST(test_timing_orig_keeps_gaps)
{
	struct fake f = { .now = 0 };
	struct rp_clock c = { fake_now, fake_sleep_until, &f };
	struct rp_pace p;
	uint64_t issued;

	rp_pace_init(&p, 100);
	ck_assert_uint_eq(rp_pace_wait(&p, &c, 0, 5000, &issued), 0);
	ck_assert_uint_eq(issued, 5000);
	f.now += 300;	/* the op's service time */
	ck_assert_uint_eq(rp_pace_wait(&p, &c, f.now, 2000, &issued), 0);
	ck_assert_uint_eq(issued, 7300);
}
END_TEST

START_TEST(test_timing_scaled)
{
	struct fake f = { .now = 0 };
	struct rp_clock c = { fake_now, fake_sleep_until, &f };
	struct rp_pace p;
	uint64_t issued;

	rp_pace_init(&p, 50);
	rp_pace_wait(&p, &c, 0, 10000, &issued);
	ck_assert_uint_eq(issued, 5000);
	rp_pace_init(&p, 300);
	rp_pace_wait(&p, &c, issued, 1000, &issued);
	ck_assert_uint_eq(issued, 8000);
	ck_assert_uint_eq(rp_pace_scale(&p, UINT64_MAX), UINT64_MAX);
}
END_TEST

/* 10000 ops, 100 us apart, every sleep 10 us late: the end is one overshoot late, not 100 ms. */
START_TEST(test_timing_overshoot_does_not_accumulate)
{
	struct fake f = { .now = 0, .overshoot = 10000 };
	struct rp_clock c = { fake_now, fake_sleep_until, &f };
	struct rp_pace p;
	uint64_t issued = 0, prev_done = 0, lag_max = 0, lag;
	unsigned i;

	rp_pace_init(&p, 100);
	for (i = 0; i < 10000; i++) {
		lag = rp_pace_wait(&p, &c, prev_done, 100000, &issued);
		if (lag > lag_max)
			lag_max = lag;
		f.now += 1000;	/* service time */
		prev_done = f.now;
	}
	/* Ideal: 10000 gaps of 100 us plus 9999 service times of 1 us. */
	uint64_t ideal = 10000ull * 100000 + 9999ull * 1000;

	ck_assert_uint_ge(issued + 10000, ideal);
	ck_assert_uint_le(issued, ideal + 10000);
	ck_assert_uint_le(lag_max, 10000);
}
END_TEST

/* An op delayed (by a dependency, a slow call) is made up from the next gaps. */
START_TEST(test_timing_late_op_is_made_up)
{
	struct fake f = { .now = 0 };
	struct rp_clock c = { fake_now, fake_sleep_until, &f };
	struct rp_pace p;
	uint64_t issued, lag;

	rp_pace_init(&p, 100);
	f.now = 50000;	/* already 40 us past the first op's ideal time 10 us */
	lag = rp_pace_wait(&p, &c, 0, 10000, &issued);
	ck_assert_uint_eq(lag, 40000);
	ck_assert_uint_eq(issued, 50000);
	ck_assert_int_eq(p.debt_ns, 40000);
	/* Next gap 100 us: issued 40 us early to make up for it. */
	lag = rp_pace_wait(&p, &c, 50000, 100000, &issued);
	ck_assert_uint_eq(issued, 110000);
	ck_assert_uint_eq(lag, 0);
	ck_assert_int_eq(p.debt_ns, 0);
	/* A gap smaller than the debt: no sleep, the rest is carried. */
	p.debt_ns = 30000;
	lag = rp_pace_wait(&p, &c, 110000, 10000, &issued);
	ck_assert_uint_eq(issued, 110000);
	ck_assert_int_eq(p.debt_ns, 20000);
}
END_TEST

static Suite *timing_suite(void)
{
	Suite *s = suite_create("timing");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_timing_afap_never_sleeps);
	tcase_add_test(tc, test_timing_orig_keeps_gaps);
	tcase_add_test(tc, test_timing_scaled);
	tcase_add_test(tc, test_timing_overshoot_does_not_accumulate);
	tcase_add_test(tc, test_timing_late_op_is_made_up);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(timing_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
