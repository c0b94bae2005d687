/*
 * check_task.c: task.c, the tasks the dispatcher hands to the workers: the
 * deep copy of a record, dependencies, and the arena they are allocated
 * from (blocks reused once empty, out-of-order releases, large
 * allocations).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/trace.h"
#include "tests/unit/fixtures.h"
#include "replay/replay_i.h"

/* The arena: blocks reused once empty, out-of-order releases, large allocations. */
START_TEST(test_task_arena)
{
	static void *p[20000];	/* about 6 MiB: three blocks or more */
	struct rp_arena *a;
	unsigned i;
	char *big;

	ck_assert_int_eq(rp_arena_new(&a), 0);
	for (i = 0; i < 20000; i++) {
		p[i] = rp_arena_alloc(a, 100 + i % 300);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % 64, 0);	/* a line each */
		memset(p[i], (int)i, 100);
	}
	ck_assert_uint_gt(rp_arena_blocks(a), 2);
	for (i = 0; i < 20000; i++)	/* nothing overlapped */
		ck_assert_uint_eq(((unsigned char *)p[i])[99], (unsigned char)i);
	for (i = 1; i < 20000; i += 2)	/* every other one: every block stays */
		rp_arena_release(p[i]);
	ck_assert_uint_gt(rp_arena_blocks(a), 2);
	for (i = 0; i < 20000; i += 2)
		rp_arena_release(p[i]);
	ck_assert_uint_eq(rp_arena_blocks(a), 1);	/* the current one */
	big = rp_arena_alloc(a, 3u << 20);	/* a block of its own */
	ck_assert_ptr_nonnull(big);
	memset(big, 1, 3u << 20);
	ck_assert_uint_eq(rp_arena_blocks(a), 2);
	p[0] = rp_arena_alloc(a, 10);
	rp_arena_release(big);
	ck_assert_uint_eq(rp_arena_blocks(a), 1);
	rp_arena_release(p[0]);
	rp_arena_free(a);
}
END_TEST

START_TEST(test_task_copy)
{
	struct fstap_dirent ents[2] = { { .name = { (const uint8_t *)"a", 1 }, .obj = 3 },
					{ .name = { (const uint8_t *)"bb", 2 }, .obj = 4 } };
	char name[] = "name", target[] = "tgt";
	struct fstap_rec r = { .op = FSTAP_OP_READDIR, .obj = 2, .fh = 9, .nentries = 2,
			       .entries = ents, .name = B(name), .target = B(target) };
	struct rp_arena *a;
	struct rp_task *t;

	ck_assert_int_eq(rp_arena_new(&a), 0);
	t = rp_task_new(a, &r);
	ck_assert_ptr_nonnull(t);
	memset(name, 'x', 4);
	memset(target, 'y', 3);
	ents[1].name.ptr = (const uint8_t *)"zz";
	ck_assert_int_eq(memcmp(t->rec.name.ptr, "name", 4), 0);
	ck_assert_int_eq(memcmp(t->rec.target.ptr, "tgt", 3), 0);
	ck_assert_uint_eq(t->rec.nentries, 2);
	ck_assert_int_eq(memcmp(t->rec.entries[1].name.ptr, "bb", 2), 0);
	ck_assert_uint_eq(t->rec.entries[1].obj, 4);
	for (unsigned i = 0; i < 40; i++)
		ck_assert_int_eq(rp_task_add_dep(t, NULL, i), 0);
	ck_assert_uint_eq(t->ndeps, 40);
	rp_task_free(t);
	rp_arena_free(a);
}
END_TEST

static Suite *task_suite(void)
{
	Suite *s = suite_create("task");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_task_arena);
	tcase_add_test(tc, test_task_copy);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(task_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
