/*
 * check_util.c: the shared pieces of util.h: array growth keeps the
 * contents and reports a size it cannot allocate, and the capacity it
 * computes doubles from the first size; the uint64 map finds, replaces,
 * deletes (with the backward shift keeping every other key reachable) and
 * iterates; keys of one home slot (fstap_id_home) land one probe further
 * each, and close up when the first and a middle one go; ids whose home is
 * taken probe on by FSTAP_ID_STEP (17) slots, a delete in the middle of
 * such a chain shifts the later ids back by their probe distance
 * (fstap_id_dist) but not one whose own home is later on the chain, and
 * random puts, deletes and gets agree with a plain array: of dense ids,
 * ids differing in their low bits only and ids whose high bits are hashed,
 * through growth, and of 32 ids whose chain wraps round a 64-slot table;
 * saturating addition; the clocks move forward and a deadline is a
 * normalised timespec ahead of the realtime clock; the byte hash gives
 * distinct values to a million names of the shapes file systems hold
 * (numbers of every length, prefixes, one name under many seeds), which
 * the replay compares listings by; the random filler is the same for the
 * same state and not for another.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/util.h"

START_TEST(grow_keeps_contents)
{
	uint32_t *v = NULL;
	size_t cap = 0, i;

	ck_assert_int_eq(FSTAP_GROW(v, 0, cap), 0);
	ck_assert_ptr_null(v);
	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(FSTAP_GROW(v, i + 1, cap), 0);
		ck_assert_uint_ge(cap, i + 1);
		v[i] = (uint32_t)i * 7;
	}
	ck_assert_uint_eq(cap, 1024);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(v[i], i * 7);
	/* A need within the capacity changes nothing. */
	ck_assert_int_eq(FSTAP_GROW(v, 10, cap), 0);
	ck_assert_uint_eq(cap, 1024);
	free(v);
}
END_TEST

START_TEST(grow_too_large)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(FSTAP_GROW(v, 4, cap), 0);
	v[3] = 42;
	ck_assert_int_eq(FSTAP_GROW(v, SIZE_MAX / 4, cap), -ENOMEM);
	ck_assert_int_eq(FSTAP_GROW(v, SIZE_MAX, cap), -ENOMEM);
	ck_assert_uint_eq(cap, 16);
	ck_assert_uint_eq(v[3], 42);
	free(v);
}
END_TEST

START_TEST(grow_size_doubles)
{
	ck_assert_uint_eq(fstap_grow_size(0, 0, 64), 64);
	ck_assert_uint_eq(fstap_grow_size(0, 65, 64), 128);
	ck_assert_uint_eq(fstap_grow_size(0, 3, 0), 4);
	ck_assert_uint_eq(fstap_grow_size(100, 50, 64), 100);	/* holds it already */
	ck_assert_uint_eq(fstap_grow_size(100, 101, 64), 200);
	ck_assert_uint_eq(fstap_grow_size(16, SIZE_MAX, 16), 0);
	ck_assert_uint_eq(fstap_grow_size(0, SIZE_MAX / 2 + 2, 1), 0);
}
END_TEST

START_TEST(map_put_get_del)
{
	struct fstap_map m;
	uint64_t k, val;

	fstap_map_init(&m);
	ck_assert_ptr_null(fstap_map_get(&m, 1));
	ck_assert(!fstap_map_del(&m, 1, NULL));
	ck_assert_int_eq(fstap_map_put(&m, 0, 1), -EINVAL);
	for (k = 1; k <= 10000; k++)
		ck_assert_int_eq(fstap_map_put(&m, k * 4096, k), 0);
	ck_assert_uint_eq(m.n, 10000);
	ck_assert_uint_ge(m.cap, 2 * m.n);
	ck_assert_int_eq(fstap_map_put(&m, 4096, 99), 0);
	ck_assert_uint_eq(m.n, 10000);
	ck_assert_uint_eq(*fstap_map_get(&m, 4096), 99);
	ck_assert_ptr_null(fstap_map_get(&m, 4095));
	ck_assert_ptr_null(fstap_map_get(&m, 0));
	/* Delete every other key: the rest stay reachable past the holes. */
	for (k = 2; k <= 10000; k += 2) {
		ck_assert(fstap_map_del(&m, k * 4096, &val));
		ck_assert_uint_eq(val, k);
	}
	ck_assert_uint_eq(m.n, 5000);
	for (k = 1; k <= 10000; k++) {
		uint64_t *v = fstap_map_get(&m, k * 4096);

		if (k % 2 == 0) {
			ck_assert_ptr_null(v);
		} else {
			ck_assert_ptr_nonnull(v);
			ck_assert_uint_eq(*v, k == 1 ? 99 : k);
		}
	}
	ck_assert(!fstap_map_del(&m, 2 * 4096, NULL));
	fstap_map_release(&m);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_ptr_null(fstap_map_get(&m, 4096));
}
END_TEST

/* n keys (id & 15 == low) whose home in a table of mask + 1 slots is home. */
static size_t keys_with_home(uint64_t *keys, size_t n, size_t home, size_t mask)
{
	uint64_t hi;
	size_t got = 0;

	for (hi = 1; got < n; hi++)
		if (fstap_id_home(hi << 4 | (home & 15), mask) == home)
			keys[got++] = hi << 4 | (home & 15);
	return got;
}

/* The slot that holds key, found by looking at every slot, not by probing; cap if none. */
static size_t slot_holding(const struct fstap_map *m, uint64_t key)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->keys[i] == key)
			break;
	return i;
}

/*
 * Keys that share a home slot (fstap_id_home): each put probes one step
 * further than the one before, and deleting from the head and the middle
 * of the run shifts the rest back, every key still found.
 */
START_TEST(map_collisions)
{
	struct fstap_map m = { 0 };
	const size_t mask = 63, home = 5;
	const size_t left[6] = { 1, 2, 4, 5, 6, 7 };	/* the keys after the deletes */
	uint64_t keys[8];
	size_t i;

	ck_assert_uint_eq(keys_with_home(keys, 8, home, mask), 8);
	for (i = 0; i < 8; i++) {
		ck_assert_uint_eq(fstap_id_home(keys[i], mask), home);
		ck_assert_int_eq(fstap_map_put(&m, keys[i], i), 0);
	}
	ck_assert_uint_eq(m.cap, mask + 1);
	/* They collide: key i is i probes from the home they share. */
	for (i = 0; i < 8; i++) {
		size_t slot = slot_holding(&m, keys[i]);

		ck_assert_uint_lt(slot, m.cap);
		ck_assert_uint_eq(fstap_id_dist(home, slot, mask), i);
		ck_assert_uint_eq(fstap_map_slot(&m, keys[i]), slot);
	}
	ck_assert(fstap_map_del(&m, keys[3], NULL));
	ck_assert(fstap_map_del(&m, keys[0], NULL));
	ck_assert(!fstap_map_del(&m, keys[3], NULL));
	ck_assert_uint_eq(m.n, 6);
	/* The rest shifted back: no hole left in the run. */
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(fstap_id_dist(home, slot_holding(&m, keys[left[i]]), mask), i);
	for (i = 0; i < 8; i++) {
		uint64_t *v = fstap_map_get(&m, keys[i]);

		if (i == 0 || i == 3) {
			ck_assert_ptr_null(v);
			ck_assert_uint_eq(slot_holding(&m, keys[i]), m.cap);
		} else {
			ck_assert_ptr_nonnull(v);
			ck_assert_uint_eq(*v, i);
		}
	}
	fstap_map_release(&m);
}
END_TEST

START_TEST(map_iterate_and_pointers)
{
	struct fstap_map m = { 0 };
	uint64_t key, val, sum = 0;
	size_t pos = 0, seen = 0;
	int x = 1, y = 2;

	for (key = 1; key <= 100; key++)
		ck_assert_int_eq(fstap_map_put(&m, key, key * 10), 0);
	while (fstap_map_next(&m, &pos, &key, &val)) {
		ck_assert_uint_eq(val, key * 10);
		sum += key;
		seen++;
	}
	ck_assert_uint_eq(seen, 100);
	ck_assert_uint_eq(sum, 5050);
	fstap_map_release(&m);
	pos = 0;
	ck_assert(!fstap_map_next(&m, &pos, NULL, NULL));

	ck_assert_int_eq(fstap_map_put_ptr(&m, 7, &x), 0);
	ck_assert_int_eq(fstap_map_put_ptr(&m, 8, &y), 0);
	ck_assert_ptr_eq(fstap_map_get_ptr(&m, 7), &x);
	ck_assert_ptr_eq(fstap_map_get_ptr(&m, 8), &y);
	ck_assert_ptr_null(fstap_map_get_ptr(&m, 9));
	fstap_map_release(&m);
}
END_TEST

START_TEST(map_id_step_chain)
{
	struct fstap_map m = { 0 };
	const size_t mask = 63, home = 37;
	uint64_t keys[6];
	size_t i;

	/* The probe distance: the inverse of the step, modulo the table. */
	ck_assert_uint_eq(fstap_id_dist(home, home, mask), 0);
	ck_assert_uint_eq(fstap_id_dist(home, (home + FSTAP_ID_STEP) & mask, mask), 1);
	for (i = 0; i <= mask; i++)
		ck_assert_uint_eq(fstap_id_dist(home, (home + i * FSTAP_ID_STEP) & mask, mask), i);

	/* Six ids of one home: each put goes 17 slots on from the one before. */
	keys_with_home(keys, 6, home, mask);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(fstap_map_put(&m, keys[i], 100 + i), 0);
	ck_assert_uint_eq(m.cap, mask + 1);
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(m.keys[(home + i * 17) & mask], keys[i]);
	/* A delete in the middle: the later ones shift back one probe each. */
	ck_assert(fstap_map_del(&m, keys[2], NULL));
	for (i = 2; i < 5; i++)
		ck_assert_uint_eq(m.keys[(home + i * 17) & mask], keys[i + 1]);
	ck_assert_uint_eq(m.keys[(home + 5 * 17) & mask], 0);
	for (i = 0; i < 6; i++) {
		uint64_t *v = fstap_map_get(&m, keys[i]);

		if (i == 2) {
			ck_assert_ptr_null(v);
		} else {
			ck_assert_ptr_nonnull(v);
			ck_assert_uint_eq(*v, 100 + i);
		}
	}
	fstap_map_release(&m);
}
END_TEST

/*
 * An id whose own home lies on another chain stays there when the chain's
 * head goes, while an id of the chain behind it moves back past it.
 */
START_TEST(map_id_step_other_home_in_chain)
{
	struct fstap_map m = { 0 };
	const size_t mask = 63, home = 37, next = (37 + 17) & 63;
	uint64_t a[2], b;

	keys_with_home(a, 2, home, mask);
	keys_with_home(&b, 1, next, mask);
	ck_assert_int_eq(fstap_map_put(&m, a[0], 1), 0);
	ck_assert_int_eq(fstap_map_put(&m, b, 2), 0);
	ck_assert_int_eq(fstap_map_put(&m, a[1], 3), 0);
	ck_assert_uint_eq(m.cap, mask + 1);
	ck_assert_uint_eq(m.keys[next], b);
	ck_assert_uint_eq(m.keys[(home + 34) & mask], a[1]);
	ck_assert(fstap_map_del(&m, a[0], NULL));
	ck_assert_uint_eq(m.keys[home], a[1]);
	ck_assert_uint_eq(m.keys[next], b);
	ck_assert_uint_eq(*fstap_map_get(&m, b), 2);
	ck_assert_uint_eq(*fstap_map_get(&m, a[1]), 3);
	fstap_map_release(&m);
}
END_TEST

/* Every id in the map holds what the array says (0: not there), and nothing else is in it. */
static void map_matches(const struct fstap_map *m, const uint64_t *ids, const uint64_t *ref,
			size_t nids, size_t nref)
{
	size_t i, pos = 0, n = 0;

	for (i = 0; i < nids; i++) {
		const uint64_t *v = fstap_map_get(m, ids[i]);

		if (!ref[i])
			ck_assert_msg(!v, "id %llx deleted but found", (unsigned long long)ids[i]);
		else
			ck_assert_msg(v && *v == ref[i], "id %llx lost", (unsigned long long)ids[i]);
	}
	while (fstap_map_next(m, &pos, NULL, NULL))
		n++;
	ck_assert_uint_eq(n, nref);
	ck_assert_uint_eq(m->n, nref);
}

/*
 * rounds of 2000 random puts, deletes and gets of ids[0..nids) against an
 * array; in the first half the ids in use widen and puts win, in the
 * second deletes do. The capacities the map went through, counted.
 */
static size_t map_random_ops(const uint64_t *ids, size_t nids, size_t rounds, uint64_t seed)
{
	uint64_t *ref = calloc(nids, sizeof(*ref)), r;
	struct fstap_map m = { 0 };
	size_t round, op, i, nref = 0, caps = 0, lastcap = 0;

	ck_assert_ptr_nonnull(ref);
	for (round = 0; round < rounds; round++) {
		bool growing = round < rounds / 2;
		size_t range = growing ? nids * (round + 1) / (rounds / 2) : nids;

		for (op = 0; op < 2000; op++) {
			r = fstap_splitmix64(&seed);
			i = (size_t)(r >> 8) % range;
			if ((r & 255) < (growing ? 160u : 80u)) {
				ck_assert_int_eq(fstap_map_put(&m, ids[i], r | 1), 0);
				nref += !ref[i];
				ref[i] = r | 1;
			} else if ((r & 255) < 230) {
				uint64_t val = 0;
				bool had = fstap_map_del(&m, ids[i], &val);

				ck_assert_int_eq(had, ref[i] != 0);
				ck_assert_uint_eq(val, ref[i]);
				nref -= had;
				ref[i] = 0;
			} else {
				const uint64_t *v = fstap_map_get(&m, ids[i]);

				ck_assert_uint_eq(v ? *v : 0, ref[i]);
			}
			if (m.cap != lastcap) {
				lastcap = m.cap;
				caps++;
			}
		}
		map_matches(&m, ids, ref, nids, nref);
	}
	fstap_map_release(&m);
	free(ref);
	return caps;
}

/*
 * Dense ids, high ids that differ in their low bits only, and ids of the
 * same low bits whose high bits are hashed: the map grows across several
 * capacities, and agrees with the array throughout.
 */
START_TEST(map_random_vs_array)
{
	static uint64_t ids[3000];
	size_t i;

	for (i = 0; i < 1000; i++) {
		ids[i] = i + 1;
		ids[1000 + i] = 0xfeed000000ull + i;
		ids[2000 + i] = (uint64_t)(i + 1) << 20 | 5;
	}
	ck_assert_uint_ge(map_random_ops(ids, 3000, 40, 42), 5);
}
END_TEST

/*
 * 32 ids whose homes in a 64-slot table lie on one probe chain (8 each at
 * slots 5, 22, 39 and 56, 17 apart): the table never grows, chains wrap
 * round it, and deletes shift ids back across the wrap.
 */
START_TEST(map_random_long_chains)
{
	uint64_t ids[32];
	size_t h;

	for (h = 0; h < 4; h++)
		keys_with_home(ids + 8 * h, 8, (5 + 17 * h) & 63, 63);
	ck_assert_uint_eq(map_random_ops(ids, 32, 20, 7), 1);
}
END_TEST

START_TEST(sat_add_clock_hash)
{
	uint64_t a, b;
	int arr[7];

	ck_assert_uint_eq(fstap_sat_add(1, 2), 3);
	ck_assert_uint_eq(fstap_sat_add(UINT64_MAX - 1, 1), UINT64_MAX);
	ck_assert_uint_eq(fstap_sat_add(UINT64_MAX - 1, 2), UINT64_MAX);
	ck_assert_uint_eq(fstap_sat_add(UINT64_MAX, UINT64_MAX), UINT64_MAX);
	ck_assert_uint_eq(ARRAY_SIZE(arr), 7);
	a = fstap_now_ns();
	b = fstap_now_ns();
	ck_assert_uint_gt(a, 0);
	ck_assert_uint_ge(b, a);
	ck_assert_uint_ne(fstap_hash64(1), fstap_hash64(2));
	ck_assert_uint_ne(fstap_hash_bytes(1, "ab", 2), fstap_hash_bytes(2, "ab", 2));
	ck_assert_uint_ne(fstap_hash_bytes(1, "ab", 2), fstap_hash_bytes(1, "ba", 2));
	ck_assert_uint_eq(fstap_hash_bytes(1, "ab", 2), fstap_hash_bytes(1, "abc", 2));
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(hash_bytes_distinct)
{
	size_t n = 0, i, same = 0, cap = 1200000;
	uint64_t *h = malloc(cap * sizeof(*h));
	char b[64];
	long k;

	ck_assert_ptr_nonnull(h);
	/* every number to 6 digits, then sparser to 10: names of neighbouring lengths meet */
	for (k = 0; k < 300000; k++)
		h[n++] = fstap_hash_bytes(0, b, (size_t)snprintf(b, sizeof(b), "%ld", k));
	for (k = 1; k <= 100000; k++)
		h[n++] = fstap_hash_bytes(0, b, (size_t)snprintf(b, sizeof(b), "%ld", 300000 + k * 25013));
	for (k = 0; k < 300000; k++)
		h[n++] = fstap_hash_bytes(0, b, (size_t)snprintf(b, sizeof(b), "f%ld", k));
	for (k = 0; k < 200000; k++)
		h[n++] = fstap_hash_bytes(0, b, (size_t)snprintf(b, sizeof(b), "file.%07ld.tmp", k));
	for (k = 0; k < 64; k++) {
		memset(b, 'a', (size_t)k);
		h[n++] = fstap_hash_bytes(7, b, (size_t)k);
	}
	for (k = 1; k <= 200000; k++)
		h[n++] = fstap_hash_bytes((uint64_t)k, "x", 1);
	qsort(h, n, sizeof(*h), cmp_u64);
	for (i = 1; i < n; i++)
		same += h[i] == h[i - 1];
	ck_assert_uint_eq(same, 0);
	free(h);
}
END_TEST

START_TEST(fill_random_seeded)
{
	uint64_t a[64], b[64], s = 42, t = 42;
	size_t i, equal = 0;

	fstap_fill_random(a, 64, &s);
	fstap_fill_random(b, 64, &t);
	ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
	ck_assert_uint_eq(s, t);
	t = 43;
	fstap_fill_random(b, 64, &t);
	for (i = 0; i < 64; i++)
		equal += a[i] == b[i];
	ck_assert_uint_eq(equal, 0);
	/* the state moves on: the next block is another */
	fstap_fill_random(b, 64, &s);
	ck_assert_int_ne(memcmp(a, b, sizeof(a)), 0);
}
END_TEST

START_TEST(realtime_deadline)
{
	uint64_t before = fstap_realtime_ns(), at;
	struct timespec ts;
	unsigned long ms;

	ck_assert_uint_gt(before, 1600000000ull * 1000000000ull);	/* after 2020 */
	for (ms = 0; ms < 3000; ms += 999) {
		fstap_deadline_ms(&ts, ms);
		ck_assert_int_ge(ts.tv_nsec, 0);
		ck_assert_int_lt(ts.tv_nsec, 1000000000L);
		at = (uint64_t)fstap_timespec_ns(&ts);
		ck_assert_uint_ge(at, before + ms * 1000000ull);
		ck_assert_uint_le(at, fstap_realtime_ns() + ms * 1000000ull);
	}
}
END_TEST

START_TEST(timespec_ns)
{
	struct timespec t = { .tv_sec = 2, .tv_nsec = 5 };

	ck_assert_int_eq(fstap_timespec_ns(&t), 2000000005ll);
	t = (struct timespec){ .tv_sec = -1, .tv_nsec = 500000000 };	/* 0.5 s before */
	ck_assert_int_eq(fstap_timespec_ns(&t), -500000000ll);
	t = (struct timespec){ .tv_sec = 4000000000ll, .tv_nsec = 999999999 };	/* past 2038 */
	ck_assert_int_eq(fstap_timespec_ns(&t), 4000000000999999999ll);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, grow_keeps_contents);
	tcase_add_test(tc, grow_too_large);
	tcase_add_test(tc, grow_size_doubles);
	tcase_add_test(tc, map_put_get_del);
	tcase_add_test(tc, map_collisions);
	tcase_add_test(tc, map_iterate_and_pointers);
	tcase_add_test(tc, map_id_step_chain);
	tcase_add_test(tc, map_id_step_other_home_in_chain);
	tcase_add_test(tc, map_random_vs_array);
	tcase_add_test(tc, map_random_long_chains);
	tcase_add_test(tc, sat_add_clock_hash);
	tcase_add_test(tc, hash_bytes_distinct);
	tcase_add_test(tc, fill_random_seeded);
	tcase_add_test(tc, timespec_ns);
	tcase_add_test(tc, realtime_deadline);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
