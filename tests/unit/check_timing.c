/*
 * check_timing.c: pacing arithmetic with a fake clock (no timed tests):
 * afap never sleeps, orig keeps the gaps, N% scales them, and the
 * lateness of each sleep is carried forward so that it never accumulates;
 * --pace=native's gaps: the recorded gap less the round trips of the
 * trace's metadata, never negative, for the metadata of each cache mode;
 * a gap that holds the whole run of a thread started in it counts from
 * that thread's end (a join), and only then; the round trips seen in the
 * trace (two requests of one system call) stand for the calibration once
 * there are enough of them, per kind.
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay_i.h"

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

/* The metadata of a trace recorded in a cache mode, with round trips m and d ns. */
static json_t *mode_meta(const char *mode, bool writeback, int m, int d)
{
	json_t *meta = json_pack("{s:{s:s,s:b,s:{s:i,s:i,s:i}}}", "recorder", "cache", mode,
				 "writeback_cache", writeback, "calibration", "requests", 200,
				 "meta_round_trip_ns", m, "data_round_trip_ns", d);

	ck_assert_ptr_nonnull(meta);
	return meta;
}

/* rp_native_from_meta of meta as a reader parses it (NULL: no metadata). */
static int native_of(json_t *meta, struct rp_native *n)
{
	char *s = meta ? json_dumps(meta, JSON_COMPACT) : NULL;
	struct fstap_meta m;

	fstap_meta_parse(s, &m);
	free(s);
	return rp_native_from_meta(&m, n);
}

START_TEST(test_timing_native_gap)
{
	static const struct {
		const char *mode;
		bool writeback;
	} modes[] = { { "all", false }, { "calls", false }, { "direct", false },
		      { "kernel", true } };
	unsigned i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		json_t *meta = mode_meta(modes[i].mode, modes[i].writeback, 15000, 20000);
		struct rp_native n;

		ck_assert_int_eq(native_of(meta, &n), 0);
		/* the recorded gap less one round trip of the request's kind */
		ck_assert_uint_eq(rp_native_gap(&n, 100000, 0, FSTAP_OP_GETATTR), 85000);
		ck_assert_uint_eq(rp_native_gap(&n, 100000, 0, FSTAP_OP_READ), 80000);
		/* and less the requests of the thread not issued in between */
		ck_assert_uint_eq(rp_native_gap(&n, 100000, 30000, FSTAP_OP_OPEN), 55000);
		/* never negative: a gap that was all round trip is none */
		ck_assert_uint_eq(rp_native_gap(&n, 9000, 0, FSTAP_OP_GETATTR), 0);
		ck_assert_uint_eq(rp_native_gap(&n, 0, 0, FSTAP_OP_READ), 0);
		ck_assert_uint_eq(rp_native_gap(&n, 40000, UINT64_MAX, FSTAP_OP_OPEN), 0);
		/* a write through the writeback cache was not a round trip of the thread's */
		ck_assert_uint_eq(rp_native_gap(&n, 100000, 0, FSTAP_OP_WRITE),
				  modes[i].writeback ? 100000 : 80000);
		json_decref(meta);
	}
}
END_TEST

START_TEST(test_timing_native_without_calibration)
{
	json_t *meta = json_pack("{s:{s:s}}", "recorder", "cache", "calls");
	json_t *bad = json_pack("{s:{s:{s:i}}}", "recorder", "calibration",
				"meta_round_trip_ns", -5);
	json_t *meta_only = json_pack("{s:{s:{s:i}}}", "recorder", "calibration",
				      "meta_round_trip_ns", 7000);
	struct rp_native n;

	ck_assert_int_eq(native_of(meta, &n), -ENOENT);
	ck_assert_int_eq(native_of(bad, &n), -ENOENT);
	ck_assert_int_eq(native_of(NULL, &n), -ENOENT);
	/* without the data figure, the metadata one stands for both */
	ck_assert_int_eq(native_of(meta_only, &n), 0);
	ck_assert_uint_eq(rp_native_gap(&n, 10000, 0, FSTAP_OP_READ), 3000);
	json_decref(meta);
	json_decref(bad);
	json_decref(meta_only);
}
END_TEST

START_TEST(test_timing_join)
{
	/* own op ended at 100; the next starts at 1000 */
	/* a thread started at 200, idle since 900: the gap counts from 900 */
	ck_assert_uint_eq(rp_pace_joined(100, 100, 1000, 200, 900), 900);
	/* ... and from the latest of two such threads */
	ck_assert_uint_eq(rp_pace_joined(rp_pace_joined(100, 100, 1000, 200, 900), 100, 1000,
					 300, 950), 950);
	ck_assert_uint_eq(rp_pace_joined(950, 100, 1000, 200, 900), 950);
	/* started before the gap: a thread running beside this one, no join */
	ck_assert_uint_eq(rp_pace_joined(100, 100, 1000, 50, 900), 100);
	ck_assert_uint_eq(rp_pace_joined(100, 100, 1000, 100, 900), 100);
	/* still busy at the op's start: not waited for */
	ck_assert_uint_eq(rp_pace_joined(100, 100, 1000, 200, 1001), 100);
	/* its end exactly at the op's start: waited for, no gap left */
	ck_assert_uint_eq(rp_pace_joined(100, 100, 1000, 200, 1000), 1000);
}
END_TEST

/* A record of type op starting at start ns. */
static struct fstap_rec rec_at(unsigned op, uint64_t start)
{
	struct fstap_rec c;

	memset(&c, 0, sizeof(c));
	c.op = (uint16_t)op;
	c.start_ns = start;
	return c;
}

START_TEST(test_timing_native_seen)
{
	json_t *meta = mode_meta("calls", false, 90000, 80000);
	struct fstap_rec create = rec_at(FSTAP_OP_CREATE, 1030000);
	struct fstap_rec write = rec_at(FSTAP_OP_WRITE, 2050000);
	struct rp_native n;
	unsigned i;

	ck_assert_int_eq(native_of(meta, &n), 0);
	/* not a pair of one system call, or a gap too long to be one: not seen */
	for (i = 0; i < 40; i++) {
		struct fstap_rec open = rec_at(FSTAP_OP_OPEN, 1000000 + 5000);
		struct fstap_rec far = rec_at(FSTAP_OP_CREATE, 1000000 + 2 * RP_NATIVE_MAX_SEEN_NS);

		rp_native_seen(&n, FSTAP_OP_GETATTR, 1000000, &open, false);
		rp_native_seen(&n, FSTAP_OP_READ, 1000000, &write, false);
		rp_native_seen(&n, FSTAP_OP_LOOKUP, 1000000, &far, false);
		rp_native_seen(&n, FSTAP_OP_LOOKUP, 2000000, &create, false);	/* before */
	}
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_GETATTR), 90000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_READ), 80000);
	/* a lookup and the create of its name, 30 and 10 us apart: the
	 * calibration until RP_NATIVE_MIN_SEEN, then their mean, for both kinds */
	for (i = 0; i < RP_NATIVE_MIN_SEEN; i++) {
		ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_MKDIR), 90000);
		rp_native_seen(&n, FSTAP_OP_LOOKUP, i % 2 ? 1000000 : 1020000, &create, false);
	}
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_MKDIR), 20000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_READ), 20000);
	ck_assert_uint_eq(rp_native_gap(&n, 100000, 0, FSTAP_OP_OPEN), 80000);
	/* the kernel's getxattr and its write, 50 us apart: the data figure */
	for (i = 0; i < RP_NATIVE_MIN_SEEN; i++)
		rp_native_seen(&n, FSTAP_OP_GETXATTR, 2000000, &write, true);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_READ), 50000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_WRITE), 50000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_LOOKUP), 20000);
	json_decref(meta);
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
	tcase_add_test(tc, test_timing_native_gap);
	tcase_add_test(tc, test_timing_native_without_calibration);
	tcase_add_test(tc, test_timing_join);
	tcase_add_test(tc, test_timing_native_seen);
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
