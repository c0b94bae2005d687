/*
 * check_syncw.c: which FSYNC/FDATASYNC requests the recorder takes for the
 * kernel's sync after a synchronous write (syncw.c): the next request of
 * the writing thread, on the same handle, of the sync the write's flags
 * announce; anything else in between disarms, other threads are apart.
 */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>

#include "record/record_i.h"

START_TEST(test_syncw_rules)
{
	struct rec_syncw *w;

	ck_assert_int_eq(rec_syncw_new(&w), 0);
	/* O_SYNC: the FSYNC of that handle, once */
	rec_syncw_wrote(w, 100, 5, O_WRONLY | O_SYNC);
	ck_assert(rec_syncw_take(w, 100, FSTAP_OP_FSYNC, 5));
	ck_assert(!rec_syncw_take(w, 100, FSTAP_OP_FSYNC, 5));	/* the application's own */
	/* O_DSYNC: FDATASYNC, not FSYNC */
	rec_syncw_wrote(w, 100, 5, O_WRONLY | O_DSYNC);
	ck_assert(!rec_syncw_take(w, 100, FSTAP_OP_FSYNC, 5));
	rec_syncw_wrote(w, 100, 5, O_WRONLY | O_DSYNC);
	ck_assert(rec_syncw_take(w, 100, FSTAP_OP_FDATASYNC, 5));
	/* a plain write arms nothing */
	rec_syncw_wrote(w, 100, 5, O_WRONLY);
	ck_assert(!rec_syncw_take(w, 100, FSTAP_OP_FSYNC, 5));
	/* another handle, another thread */
	rec_syncw_wrote(w, 100, 5, O_WRONLY | O_SYNC);
	ck_assert(!rec_syncw_take(w, 101, FSTAP_OP_FSYNC, 5));
	ck_assert(!rec_syncw_take(w, 100, FSTAP_OP_FSYNC, 6));
	/* the parts of a split write keep it armed; another request disarms */
	rec_syncw_wrote(w, 100, 5, O_WRONLY | O_SYNC);
	ck_assert(!rec_syncw_take(w, 100, FSTAP_OP_WRITE, 0));
	ck_assert(rec_syncw_take(w, 100, FSTAP_OP_FSYNC, 5));
	rec_syncw_wrote(w, 100, 5, O_WRONLY | O_SYNC);
	ck_assert(!rec_syncw_take(w, 100, FSTAP_OP_GETATTR, 0));
	ck_assert(!rec_syncw_take(w, 100, FSTAP_OP_FSYNC, 5));
	/* thread ids out of range, and no table (--no-trace) */
	rec_syncw_wrote(w, 0, 5, O_SYNC);
	ck_assert(!rec_syncw_take(w, 0, FSTAP_OP_FSYNC, 5));
	rec_syncw_wrote(w, 4194304, 5, O_SYNC);
	ck_assert(!rec_syncw_take(w, 4194304, FSTAP_OP_FSYNC, 5));
	rec_syncw_wrote(NULL, 100, 5, O_SYNC);
	ck_assert(!rec_syncw_take(NULL, 100, FSTAP_OP_FSYNC, 5));
	rec_syncw_free(w);
}
END_TEST

static Suite *syncw_suite(void)
{
	Suite *s = suite_create("syncw");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_syncw_rules);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(syncw_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
