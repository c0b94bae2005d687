/*
 * check_split.c: who replays what with --mpi --split=process|thread
 * (replay/split.c): round-robin in order of first appearance, the map's
 * ids on their ranks, the map's errors; and the ranks' progress the
 * workers wait on.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/run_i.h"

static int owner(struct rp_share *s, uint32_t pid, uint32_t tid)
{
	struct fstap_rec c = { .pid = pid, .tid = tid };
	int rank = -1;

	ck_assert_int_eq(rp_share_owner(s, &c, &rank), 0);
	return rank;
}

/* A map file holding text; its path (static). */
static const char *map_file(const char *text)
{
	static char path[] = "/tmp/check_split.XXXXXX";
	int fd;

	snprintf(path, sizeof(path), "/tmp/check_split.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(test_split_parse)
{
	enum rp_split s;

	ck_assert_int_eq(rp_split_parse("process", &s), 0);
	ck_assert_int_eq(s, RP_SPLIT_PROCESS);
	ck_assert_int_eq(rp_split_parse("thread", &s), 0);
	ck_assert_int_eq(s, RP_SPLIT_THREAD);
	ck_assert_int_eq(rp_split_parse("clone", &s), 0);
	ck_assert_int_eq(s, RP_SPLIT_CLONE);
	ck_assert_int_eq(rp_split_parse("host", &s), -EINVAL);
}
END_TEST

START_TEST(test_split_round_robin)
{
	struct rp_share *s;

	ck_assert_int_eq(rp_share_new(RP_SPLIT_PROCESS, NULL, 1, 3, &s), 0);
	/* processes by first appearance; a process keeps its rank, all its threads */
	ck_assert_int_eq(owner(s, 10, 10), 0);
	ck_assert_int_eq(owner(s, 20, 20), 1);
	ck_assert_int_eq(owner(s, 10, 11), 0);
	ck_assert_int_eq(owner(s, 30, 30), 2);
	ck_assert_int_eq(owner(s, 40, 40), 0);
	ck_assert_int_eq(owner(s, 20, 21), 1);
	ck_assert(rp_share_mine(s, 1) && !rp_share_mine(s, 0));
	rp_share_free(s);
	/* by thread: the tid decides */
	ck_assert_int_eq(rp_share_new(RP_SPLIT_THREAD, NULL, 0, 2, &s), 0);
	ck_assert_int_eq(owner(s, 10, 10), 0);
	ck_assert_int_eq(owner(s, 10, 11), 1);
	ck_assert_int_eq(owner(s, 10, 12), 0);
	ck_assert_int_eq(owner(s, 10, 11), 1);
	rp_share_free(s);
}
END_TEST

START_TEST(test_split_map)
{
	const char *path = map_file("# pid rank\n\n20 2\n 30\t0 \n");
	struct rp_share *s;

	ck_assert_int_eq(rp_share_new(RP_SPLIT_PROCESS, path, 0, 3, &s), 0);
	/* listed ids on their ranks; the others round-robin from rank 0 */
	ck_assert_int_eq(owner(s, 10, 10), 0);
	ck_assert_int_eq(owner(s, 20, 20), 2);
	ck_assert_int_eq(owner(s, 30, 30), 0);
	ck_assert_int_eq(owner(s, 40, 40), 1);
	rp_share_free(s);
	unlink(path);
}
END_TEST

START_TEST(test_split_map_errors)
{
	static const char *const bad[] = { "10 3\n", "10\n", "x 1\n", "10 1 2\n", "10 1\n10 2\n",
					   "-1 0\n" };
	struct rp_share *s = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = map_file(bad[i]);

		ck_assert_msg(rp_share_new(RP_SPLIT_PROCESS, path, 0, 3, &s) == -EINVAL, "%s",
			      bad[i]);
		unlink(path);
	}
	ck_assert_int_eq(rp_share_new(RP_SPLIT_PROCESS, "/nonexistent/map", 0, 3, &s), -ENOENT);
}
END_TEST

START_TEST(test_split_progress)
{
	struct rp_progress *p = malloc(sizeof(*p));

	ck_assert_ptr_nonnull(p);
	rp_progress_init(p);
	rp_progress_set(p, 3, 5);
	ck_assert(rp_progress_wait(p, 3, 5));
	ck_assert(rp_progress_wait(p, 3, 1));
	rp_progress_set(p, 3, 2);	/* counts only grow */
	ck_assert(rp_progress_wait(p, 3, 5));
	rp_progress_local(p, 7);
	rp_progress_count(p, 7, 4);
	ck_assert_uint_eq(atomic_load(&p->nlocal), 8);
	ck_assert_uint_eq(atomic_load(&p->local[7]), 4);
	/* a failed rank ends every wait, false */
	rp_progress_fail(p, 1);
	ck_assert(!rp_progress_wait(p, 4, 1));
	ck_assert_int_eq(atomic_load(&p->failed), 1);
	rp_progress_destroy(p);
	free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("split");
	TCase *tc = tcase_create("Core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_split_parse);
	tcase_add_test(tc, test_split_round_robin);
	tcase_add_test(tc, test_split_map);
	tcase_add_test(tc, test_split_map_errors);
	tcase_add_test(tc, test_split_progress);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
