/*
 * check_disk_model.c: the arithmetic of fstap disk's models (src/disk/
 * model.c) against cases computed by hand: the seek curve at 0, 1 cylinder,
 * a third and the whole stroke; rotation from the rpm; zones (rate, which
 * zone, which cylinder); a random read, a sequential one, one a little
 * ahead on the track, one queued behind another, a read-ahead hit;
 * writes with the write cache off and on, a flush; the ssd's channels and
 * shared transfer; parsing of --model specs and their errors.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "disk/disk.h"

static struct disk_model *m;

/* A small hdd: 3 000 cylinders, 1 zone at 100 MB/s, 1 MB per cylinder. */
static struct disk_params flat_hdd(void)
{
	struct disk_params p;

	ck_assert_int_eq(disk_params_defaults("hdd", &p), 0);
	p.hdd.cylinders = 3000;
	p.hdd.zones = 1;
	p.hdd.outer_mbps = p.hdd.inner_mbps = 100;
	p.hdd.capacity = 3000000000ull;
	p.hdd.readahead = 0;
	return p;
}

static void model(const struct disk_params *p)
{
	ck_assert_int_eq(disk_model_new(p, &m), 0);
}

static void teardown(void)
{
	disk_model_free(m);
	m = NULL;
}

#define ck_near(a, b) ck_assert_double_eq_tol((double)(a), (double)(b), 1.0)

START_TEST(test_seek_curve)
{
	struct disk_params p = flat_hdd();

	model(&p);
	ck_near(disk_hdd_seek_ns(m, 0), 0);
	ck_near(disk_hdd_seek_ns(m, 1), 1.0e6);	/* track-to-track */
	ck_near(disk_hdd_seek_ns(m, 1000), 8.5e6);	/* average, at a third */
	ck_near(disk_hdd_seek_ns(m, 3000), 17.0e6);	/* full stroke */
	ck_assert(disk_hdd_seek_ns(m, 2) > disk_hdd_seek_ns(m, 1));
	ck_assert(disk_hdd_seek_ns(m, 2000) < 17.0e6);
}
END_TEST

START_TEST(test_rotation)
{
	struct disk_params p = flat_hdd();

	model(&p);
	ck_near(disk_hdd_rotation_ns(m), 4166666.67);	/* 60 s / 7200 / 2 */
	teardown();
	p.hdd.rpm = 15000;
	model(&p);
	ck_near(disk_hdd_rotation_ns(m), 2.0e6);
}
END_TEST

START_TEST(test_zones)
{
	struct disk_params p = flat_hdd();

	/* 2 zones of 500 cylinders at 200 and 100 MB/s: 2 MB and 1 MB each */
	p.hdd.cylinders = 1000;
	p.hdd.zones = 2;
	p.hdd.outer_mbps = 200;
	p.hdd.inner_mbps = 100;
	p.hdd.capacity = 1500000000ull;
	model(&p);
	ck_near(disk_hdd_rate(m, 0), 200e6);
	ck_near(disk_hdd_rate(m, 1), 100e6);
	ck_assert_uint_eq(disk_hdd_zone(m, 0), 0);
	ck_assert_uint_eq(disk_hdd_zone(m, 999999999ull), 0);
	ck_assert_uint_eq(disk_hdd_zone(m, 1000000000ull), 1);
	ck_assert_uint_eq(disk_hdd_cylinder(m, 500000000ull), 250);
	ck_assert_uint_eq(disk_hdd_cylinder(m, 1200000000ull), 700);
	ck_assert_uint_eq(disk_hdd_cylinder(m, 1499999999ull), 999);
}
END_TEST

START_TEST(test_random_and_sequential_read)
{
	struct disk_params p = flat_hdd();
	uint64_t t;
	const struct disk_stats *st;

	model(&p);
	/* from cylinder 0 to 1000: 8.5 ms seek, 4.1667 ms rotation, 40.96 us */
	t = disk_model_submit(m, DISK_READ, 1000000000ull, 4096, 0);
	ck_near(t, 8.5e6 + 4166666.67 + 40960);
	/* the next sector, later: no seek, no rotation (no read-ahead here) */
	ck_near(disk_model_submit(m, DISK_READ, 1000004096ull, 4096, t + 1000000),
		t + 1000000 + 40960);
	/* 100 KB ahead on the track: the gap passes under the head (1 ms) */
	ck_near(disk_model_submit(m, DISK_READ, 1000108192ull, 4096, 0),
		t + 1000000 + 40960 + 1000000 + 40960);
	st = disk_model_stats(m);
	ck_assert_uint_eq(st->seeks, 1);
	ck_assert_uint_eq(st->seek_cylinders, 1000);
	ck_assert_uint_eq(st->requests[DISK_READ], 3);
	ck_assert_uint_eq(st->bytes[DISK_READ], 12288);
	ck_assert_uint_eq(st->cache_hits, 0);
}
END_TEST

START_TEST(test_queue)
{
	struct disk_params p = flat_hdd();
	uint64_t a, b;

	model(&p);
	a = disk_model_submit(m, DISK_READ, 1000500000ull, 4096, 0);
	/* same cylinder, behind the head: half a rotation, after the first */
	b = disk_model_submit(m, DISK_READ, 1000100000ull, 4096, 0);
	ck_near(b, a + 4166666.67 + 40960);
	ck_assert_uint_eq(disk_model_stats(m)->seeks, 1);
}
END_TEST

START_TEST(test_readahead_hit)
{
	struct disk_params p = flat_hdd();
	uint64_t t, u;

	p.hdd.readahead = 65536;
	model(&p);
	t = disk_model_submit(m, DISK_READ, 1000000000ull, 4096, 0);
	/* 1 ms idle reads 100 000 bytes ahead, capped at 64 KiB: a hit */
	u = disk_model_submit(m, DISK_READ, 1000008192ull, 4096, t + 1000000);
	ck_near(u, t + 1000000 + 4096 * 1e3 / 300);	/* at the interface rate */
	ck_assert_uint_eq(disk_model_stats(m)->cache_hits, 1);
	/* past the read-ahead: the head is at its end, 64 KiB + 4 KiB on */
	u = disk_model_submit(m, DISK_READ, 1000000000ull + 4096 + 65536, 4096, u);
	ck_near(u, t + 1000000 + 4096 * 1e3 / 300 + 40960);
	ck_assert_uint_eq(disk_model_stats(m)->cache_hits, 1);
	/* a write drops the segment: the same read misses now */
	disk_model_submit(m, DISK_WRITE, 1000008192ull, 4096, u);
	disk_model_submit(m, DISK_READ, 1000008192ull, 4096, u + 100000000ull);
	ck_assert_uint_eq(disk_model_stats(m)->cache_hits, 1);
}
END_TEST

START_TEST(test_write_cache)
{
	struct disk_params p = flat_hdd();
	uint64_t t;

	p.hdd.wce = false;
	model(&p);
	t = disk_model_submit(m, DISK_WRITE, 2000000000ull, 4096, 0);
	ck_near(t, disk_hdd_seek_ns(m, 2000) + 4166666.67 + 40960);
	ck_near(disk_model_submit(m, DISK_FLUSH, 0, 0, t), t);
	teardown();

	p.hdd.wce = true;
	p.hdd.flush_ms = 2;
	model(&p);
	/* completes at the interface transfer; the head is busy until it is on disk */
	ck_near(disk_model_submit(m, DISK_WRITE, 2000000000ull, 4096, 0), 4096 * 1e3 / 300);
	ck_near(disk_model_submit(m, DISK_FLUSH, 0, 0, 0), t + 2e6);
}
END_TEST

START_TEST(test_ssd_channels)
{
	struct disk_params p;
	uint64_t a, b;

	ck_assert_int_eq(disk_params_defaults("ssd", &p), 0);
	p.ssd.channels = 2;
	p.ssd.read_us = 100;
	p.ssd.read_mbps = 100;
	model(&p);
	a = disk_model_submit(m, DISK_READ, 0, 4096, 0);
	b = disk_model_submit(m, DISK_READ, 8192, 4096, 0);
	ck_near(a, 100000 + 40960);
	ck_near(b, 100000 + 2 * 40960);	/* in flash together, one transfer path */
	ck_near(disk_model_submit(m, DISK_READ, 0, 4096, 0), a + 100000 + 40960);
}
END_TEST

START_TEST(test_none)
{
	struct disk_params p;

	ck_assert_int_eq(disk_params_defaults("none", &p), 0);
	model(&p);
	ck_assert_uint_eq(disk_model_submit(m, DISK_READ, 0, 1 << 20, 12345), 12345);
	ck_assert_uint_eq(disk_model_stats(m)->bytes[DISK_READ], 1 << 20);
}
END_TEST

START_TEST(test_parse)
{
	struct disk_params p;
	char err[128] = "";

	ck_assert_int_eq(disk_params_parse("hdd,rpm=15000,wce=0,capacity=256M", &p, err,
					   sizeof(err)), 0);
	ck_assert_int_eq(p.kind, DISK_HDD);
	ck_assert_double_eq(p.hdd.rpm, 15000);
	ck_assert(!p.hdd.wce);
	ck_assert_uint_eq(p.hdd.capacity, 256ull << 20);
	ck_assert_int_eq(disk_params_parse("ssd,channels=4", &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.ssd.channels, 4);
	ck_assert_int_eq(disk_params_parse("hdd,bogus=1", &p, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "model 'hdd' has no parameter 'bogus'");
	ck_assert_int_eq(disk_params_parse("tape", &p, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "unknown model 'tape' (none, hdd, ssd, raid5)");
	ck_assert_int_eq(disk_params_parse("hdd,wce=2", &p, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "bad value '2' for wce");
	ck_assert_int_eq(disk_params_parse("hdd,avg=20", &p, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "seek times must be t2t <= avg <= full");
	ck_assert_int_eq(disk_params_parse("hdd,rpm", &p, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "'rpm' is not KEY=VALUE");
	ck_assert_int_eq(disk_params_parse("raid5,rpm=10000,members=5,chunk=128k", &p, err,
					   sizeof(err)), 0);
	ck_assert_uint_eq(p.raid5.members, 5);
	ck_assert_uint_eq(p.raid5.chunk, 128 * 1024);
	ck_assert_int_eq(p.raid5.member, DISK_HDD);
	ck_assert_double_eq(p.hdd.rpm, 10000);
	ck_assert_int_eq(disk_params_parse("raid5,member=tape", &p, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "bad value 'tape' for member (hdd, ssd)");
	ck_assert_int_eq(disk_params_parse("raid5,members=2", &p, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "members must be 3 to 16");
	ck_assert_int_eq(disk_params_parse("raid5,member=ssd,rpm=1", &p, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "model 'raid5' (of ssd) has no parameter 'rpm'");
}
END_TEST

START_TEST(test_qd_buckets)
{
	ck_assert_uint_eq(disk_qd_bucket(1), 0);
	ck_assert_uint_eq(disk_qd_bucket(2), 1);
	ck_assert_uint_eq(disk_qd_bucket(3), 2);
	ck_assert_uint_eq(disk_qd_bucket(4), 2);
	ck_assert_uint_eq(disk_qd_bucket(5), 3);
	ck_assert_uint_eq(disk_qd_bucket(64), 6);
	ck_assert_uint_eq(disk_qd_bucket(65), 7);
	ck_assert_uint_eq(disk_qd_bucket(100000), 7);
}
END_TEST

START_TEST(test_raid5_layout)
{
	/* left-symmetric, 4 members, 64 KiB chunks: parity on 3, 2, 1, 0, ... */
	static const struct { uint64_t chunk; unsigned disk, parity; uint64_t stripe; } want[] = {
		{ 0, 0, 3, 0 }, { 1, 1, 3, 0 }, { 2, 2, 3, 0 },
		{ 3, 3, 2, 1 }, { 4, 0, 2, 1 }, { 5, 1, 2, 1 },
		{ 6, 2, 1, 2 }, { 7, 3, 1, 2 }, { 8, 0, 1, 2 },
		{ 9, 1, 0, 3 }, { 10, 2, 0, 3 }, { 11, 3, 0, 3 },
		{ 12, 0, 3, 4 },
	};
	struct disk_raid5_place pl;
	unsigned i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		disk_raid5_map(4, 65536, want[i].chunk * 65536 + 100, &pl);
		ck_assert_uint_eq(pl.disk, want[i].disk);
		ck_assert_uint_eq(pl.parity, want[i].parity);
		ck_assert_uint_eq(pl.stripe, want[i].stripe);
		ck_assert_uint_eq(pl.member_off, want[i].stripe * 65536 + 100);
	}
}
END_TEST

/* raid5 of 4 ssd members: 100 us reads, 16 us writes, 100 MB/s, 1 channel. */
static void raid5_model(void)
{
	struct disk_params p;
	char err[128];

	ck_assert_int_eq(disk_params_parse("raid5,members=4,chunk=64k,member=ssd,channels=1,"
					   "read_lat=100,write_lat=16,read_bw=100,write_bw=100",
					   &p, err, sizeof(err)), 0);
	model(&p);
}

START_TEST(test_raid5_small_write)
{
	const struct disk_stats *st;
	uint64_t t;

	raid5_model();
	/* read old data and old parity (in parallel), then write both */
	t = disk_model_submit(m, DISK_WRITE, 4096, 4096, 0);
	ck_near(t, 100000 + 40960 + 16000 + 40960);
	st = disk_model_stats(m);
	ck_assert_uint_eq(st->member_reads, 2);
	ck_assert_uint_eq(st->member_writes, 2);
	ck_assert_uint_eq(st->rmw_stripes, 1);
	ck_assert_uint_eq(st->full_stripe_writes, 0);
	ck_assert_uint_eq(st->requests[DISK_WRITE], 1);
}
END_TEST

START_TEST(test_raid5_full_stripe)
{
	const struct disk_stats *st;

	raid5_model();
	/* 3 data chunks and the parity, written at once: no read */
	ck_near(disk_model_submit(m, DISK_WRITE, 3 * 65536, 3 * 65536, 0), 16000 + 655360);
	st = disk_model_stats(m);
	ck_assert_uint_eq(st->member_reads, 0);
	ck_assert_uint_eq(st->member_writes, 4);
	ck_assert_uint_eq(st->full_stripe_writes, 1);
	ck_assert_uint_eq(st->rmw_stripes, 0);
	/* the same size unaligned: two partial stripes, 3 chunk pieces + 2 parities */
	disk_model_submit(m, DISK_WRITE, 3 * 65536 + 4096, 3 * 65536, 0);
	ck_assert_uint_eq(st->full_stripe_writes, 1);
	ck_assert_uint_eq(st->rmw_stripes, 2);
	ck_assert_uint_eq(st->member_reads, 4 + 2);
	ck_assert_uint_eq(st->member_writes, 4 + 4 + 2);
	/* a read reads only its chunks */
	disk_model_submit(m, DISK_READ, 0, 2 * 65536, 0);
	ck_assert_uint_eq(st->member_reads, 6 + 2);
	ck_assert_uint_eq(st->member_writes, 10);
}
END_TEST

static Suite *disk_model_suite(void)
{
	Suite *s = suite_create("disk_model");
	TCase *tc = tcase_create("Core");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_seek_curve);
	tcase_add_test(tc, test_rotation);
	tcase_add_test(tc, test_zones);
	tcase_add_test(tc, test_random_and_sequential_read);
	tcase_add_test(tc, test_queue);
	tcase_add_test(tc, test_readahead_hit);
	tcase_add_test(tc, test_write_cache);
	tcase_add_test(tc, test_ssd_channels);
	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_qd_buckets);
	tcase_add_test(tc, test_raid5_layout);
	tcase_add_test(tc, test_raid5_small_write);
	tcase_add_test(tc, test_raid5_full_stripe);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(disk_model_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
