/*
 * check_timing.c: pacing arithmetic with a fake clock (no timed tests):
 * afap never sleeps, orig keeps the gaps, N% scales them, and the
 * lateness of each sleep is carried forward so that it never accumulates;
 * --pace=native's think times: each gap of a thread less the round trip of
 * the trace's metadata (per kind, for each cache mode) until its
 * transition has been seen RP_NATIVE_MIN_SEEN times, then no more than the
 * transition's shortest gap less the round trip (up to 1 ms; a longer gap
 * less the transition's mean, at most RP_NATIVE_FLOOR_CAP round trips); a
 * gap shorter than its floor leaves the rest owed to the next ones (at
 * most the cap); the durations of requests not
 * issued are no think time; never more than the recorded gap. A gap that
 * holds the whole run of a thread started in it counts from that thread's
 * end (a join), and only then; the round trips seen in the trace (two
 * requests of one system call) stand for the calibration once there are
 * enough of them, per kind.
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

/* rp_native_init of meta as a reader parses it (NULL: no metadata). */
static int native_of(json_t *meta, struct rp_native *n)
{
	char *s = meta ? json_dumps(meta, JSON_COMPACT) : NULL;
	struct fstap_meta m;

	fstap_meta_parse(s, &m);
	free(s);
	return rp_native_init(&m, n);
}

/* A request of type op of thread th from start to start + dur; th's think time then. */
static uint64_t step(struct rp_native *n, struct rp_native_thread *th, unsigned op,
		     uint64_t start, uint64_t dur, bool marked)
{
	struct fstap_rec c;

	memset(&c, 0, sizeof(c));
	c.tid = 1;
	c.op = (uint16_t)op;
	c.start_ns = start;
	c.dur_ns = dur;
	rp_native_step(n, th, &c, marked);
	return th->think_ns;
}

START_TEST(test_timing_native_gap)
{
	static const struct {
		const char *mode;
		bool writeback;
	} modes[] = { { "all", false }, { "calls", false }, { "direct", false },
		      { "kernel", true } };
	unsigned i, k;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		json_t *meta = mode_meta(modes[i].mode, modes[i].writeback, 15000, 20000);
		struct rp_native_thread th = { 0 };
		struct rp_native n;

		ck_assert_int_eq(native_of(meta, &n), 0);
		/* its first request: no gap before it */
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_GETATTR, 0, 1000, false), 0);
		/* a gap less one round trip of the request's kind */
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_GETATTR, 101000, 1000, false), 85000);
		ck_assert_uint_eq(rp_native_gap(&th, UINT64_MAX), 85000);
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_READ, 202000, 1000, false), 80000);
		/* never more than the recorded gap; the next think time starts at 0 */
		ck_assert_uint_eq(rp_native_gap(&th, 30000), 30000);
		ck_assert_uint_eq(th.think_ns, 0);
		/* a request not issued in between (a lookup): its gap is counted,
		 * its duration is not */
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_LOOKUP, 253000, 9000, false), 35000);
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_OPEN, 302000, 1000, false), 60000);
		ck_assert_uint_eq(rp_native_gap(&th, 100000), 60000);
		/* a gap shorter than the round trip: none, and the rest is owed */
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_GETATTR, 312000, 1000, false), 0);
		ck_assert_uint_eq(th.owed_ns, 6000);
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_MKDIR, 413000, 1000, false), 79000);
		ck_assert_uint_eq(th.owed_ns, 0);
		rp_native_gap(&th, UINT64_MAX);
		/* at most RP_NATIVE_FLOOR_CAP round trips are owed */
		for (k = 0; k < 10; k++)
			step(&n, &th, FSTAP_OP_SETATTR, 414000, 0, false);
		ck_assert_uint_eq(th.owed_ns, RP_NATIVE_FLOOR_CAP * 15000);
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_STATFS, 1414000, 0, false),
				  1000000 - (RP_NATIVE_FLOOR_CAP + 1) * 15000);
		rp_native_gap(&th, UINT64_MAX);
		/* a write through the writeback cache was not a round trip of the thread's */
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_WRITE, 1514000, 0, false),
				  modes[i].writeback ? 100000 : 80000);
		/* a forget has no reply: no gap before or after it */
		rp_native_gap(&th, UINT64_MAX);
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_FORGET, 1600000, 0, false), 0);
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_GETATTR, 1614000, 0, false), 85000);
		rp_native_free(&n);
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
	struct rp_native_thread th = { 0 };
	struct rp_native n;

	ck_assert_int_eq(native_of(meta, &n), -ENOENT);
	ck_assert_int_eq(native_of(bad, &n), -ENOENT);
	ck_assert_int_eq(native_of(NULL, &n), -ENOENT);
	/* without the data figure, the metadata one stands for both */
	ck_assert_int_eq(native_of(meta_only, &n), 0);
	step(&n, &th, FSTAP_OP_OPEN, 0, 0, false);
	ck_assert_uint_eq(step(&n, &th, FSTAP_OP_READ, 10000, 0, false), 3000);
	rp_native_free(&n);
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

START_TEST(test_timing_native_seen)
{
	json_t *meta = mode_meta("calls", false, 90000, 80000);
	struct rp_native_thread th = { 0 };
	struct rp_native n;
	uint64_t t = 1000000;
	unsigned i;

	ck_assert_int_eq(native_of(meta, &n), 0);
	/* not a pair of one system call, or a gap too long to be one: not seen */
	for (i = 0; i < 40; i++) {
		step(&n, &th, FSTAP_OP_GETATTR, t, 0, false);
		step(&n, &th, FSTAP_OP_OPEN, t += 5000, 0, false);
		step(&n, &th, FSTAP_OP_READ, t += 5000, 0, false);
		step(&n, &th, FSTAP_OP_WRITE, t += 5000, 0, false);
		step(&n, &th, FSTAP_OP_LOOKUP, t += 5000, 0, false);
		step(&n, &th, FSTAP_OP_CREATE, t += 2 * RP_NATIVE_MAX_SEEN_NS, 0, false);
	}
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_GETATTR), 90000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_READ), 80000);
	/* a lookup and the create of its name, 30 and 10 us apart: the
	 * calibration until RP_NATIVE_MIN_SEEN, then their mean, for both kinds */
	for (i = 0; i < RP_NATIVE_MIN_SEEN; i++) {
		ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_MKDIR), 90000);
		step(&n, &th, FSTAP_OP_LOOKUP, t += 100000, 0, false);
		step(&n, &th, FSTAP_OP_CREATE, t += i % 2 ? 10000 : 30000, 0, false);
	}
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_MKDIR), 20000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_READ), 20000);
	/* the kernel's getxattr and its write, 50 us apart: the data figure */
	for (i = 0; i < RP_NATIVE_MIN_SEEN; i++) {
		step(&n, &th, FSTAP_OP_GETXATTR, t += 100000, 0, false);
		step(&n, &th, FSTAP_OP_WRITE, t += 50000, 0, true);
	}
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_READ), 50000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_WRITE), 50000);
	ck_assert_uint_eq(rp_native_rtt(&n, FSTAP_OP_LOOKUP), 20000);
	/* a flush and the getattr after it, 60 us apart each time: the round
	 * trip off each until RP_NATIVE_MIN_SEEN are seen, then each keeps the
	 * shortest less the round trip: the same */
	memset(&th, 0, sizeof(th));
	step(&n, &th, FSTAP_OP_GETATTR, t += 1000, 0, false);
	for (i = 0; i < RP_NATIVE_MIN_SEEN; i++) {
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_FLUSH, t += 20000, 0, false), 0);
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_GETATTR, t += 60000, 0, false),
				  60000 - 20000);
		rp_native_gap(&th, UINT64_MAX);
	}
	step(&n, &th, FSTAP_OP_FLUSH, t += 20000, 0, false);
	ck_assert_uint_eq(step(&n, &th, FSTAP_OP_GETATTR, t += 60000, 0, false), 40000);
	rp_native_gap(&th, UINT64_MAX);
	/* a long think (above RP_NATIVE_MAX_SEEN_NS) keeps all but their mean */
	step(&n, &th, FSTAP_OP_FLUSH, t += 20000, 0, false);
	ck_assert_uint_eq(step(&n, &th, FSTAP_OP_GETATTR, t += 5000000, 0, false),
			  5000000 - 60000);
	/* a transition whose gaps are long (500 us): the round trip off each
	 * until RP_NATIVE_MIN_SEEN are seen, then each keeps the shortest less
	 * the round trip: the same */
	memset(&th, 0, sizeof(th));
	step(&n, &th, FSTAP_OP_READ, t += 1000, 0, false);
	for (i = 0; i < 2 * RP_NATIVE_MIN_SEEN; i++)
		ck_assert_uint_eq(step(&n, &th, FSTAP_OP_READ, t += 500000, 0, false),
				  (i + 1) * 450000);
	/* a gap above RP_NATIVE_MAX_SEEN_NS loses their mean, at most
	 * RP_NATIVE_FLOOR_CAP round trips */
	rp_native_gap(&th, UINT64_MAX);
	ck_assert_uint_eq(step(&n, &th, FSTAP_OP_READ, t += 2000000, 0, false),
			  2000000 - RP_NATIVE_FLOOR_CAP * 50000);
	/* gaps that spread (the recorder kept the thread from a CPU in some):
	 * 25 and 205 us in turn; the round trip off each until
	 * RP_NATIVE_MIN_SEEN are seen, then each keeps no more than the
	 * shortest less the round trip, 5 us, not what is above their mean */
	memset(&th, 0, sizeof(th));
	step(&n, &th, FSTAP_OP_LISTXATTR, t += 1000, 0, false);
	for (i = 0; i < 2 * RP_NATIVE_MIN_SEEN; i++) {
		uint64_t e = i % 2 ? 205000 : 25000;

		step(&n, &th, FSTAP_OP_LISTXATTR, t += e, 0, false);
		ck_assert_uint_eq(rp_native_gap(&th, UINT64_MAX),
				  i < RP_NATIVE_MIN_SEEN ? e - 20000 : 5000);
	}
	/* requests from no thread (tid 0: the kernel's releases after the
	 * last close): no think time before them, whatever their gaps */
	{
		struct rp_native_thread none = { 0 };
		struct fstap_rec c = { .op = FSTAP_OP_RELEASE, .start_ns = t };

		for (i = 0; i < 2 * RP_NATIVE_MIN_SEEN; i++) {
			c.start_ns += 100000;
			rp_native_step(&n, &none, &c, false);
		}
		ck_assert_uint_eq(rp_native_gap(&none, UINT64_MAX), 0);
	}
	/* a gap shorter than the shortest so far is the shortest now */
	step(&n, &th, FSTAP_OP_LISTXATTR, t += 21000, 0, false);
	ck_assert_uint_eq(rp_native_gap(&th, UINT64_MAX), 1000);
	step(&n, &th, FSTAP_OP_LISTXATTR, t += 205000, 0, false);
	ck_assert_uint_eq(rp_native_gap(&th, UINT64_MAX), 1000);
	rp_native_free(&n);
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
