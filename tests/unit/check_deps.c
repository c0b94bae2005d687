/*
 * check_deps.c: deps.c's --order=resource, on a run of workers that never
 * start: an op that reads a resource waits for its latest writer only, so
 * two threads' reads of one file overlap; an op that changes it waits for
 * the writer and for every reader since; a worker's own earlier ops are
 * never waited for; past RES_READERS readers one more waits for them and
 * stands for them; a released handle's state is gone (and freed: the
 * sanitizer build checks).
 */
#include <check.h>
#include <string.h>

#include "fstap/ops.h"
#include "replay/run_i.h"

#define NW 6

static struct run r;
static struct rp_worker workers[NW], *wp[NW];

static void setup(void)
{
	unsigned i;

	memset(&r, 0, sizeof(r));
	memset(workers, 0, sizeof(workers));
	for (i = 0; i < NW; i++) {
		workers[i].idx = i;
		wp[i] = &workers[i];
	}
	r.w = wp;
	r.nw = NW;
	fstap_map_init(&r.res_last);
}

static void teardown(void)
{
	unsigned i;

	rp_deps_release(&r);
	for (i = 0; i < NW; i++)
		free(workers[i].known);
}

/*
 * Worker w dispatches an op of type op on resource res (a handle if fh);
 * what it waits for, as "worker:wseq" pairs separated by spaces, in want.
 */
static void dispatch(unsigned w, unsigned op, uint64_t res, const char *want)
{
	struct rp_task t;
	char got[256] = "";
	uint32_t i;

	memset(&t, 0, sizeof(t));
	t.rec.op = (uint16_t)op;
	t.deps = t.dep_inline;
	t.capdeps = RP_TASK_MAX_RES;
	t.res[t.nres++] = res;
	ck_assert_int_eq(rp_deps_resource(&r, &t, &workers[w]), 0);
	workers[w].wseq++;
	for (i = 0; i < t.ndeps; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u:%lu", i ? " " : "",
			 t.deps[i].w->idx, (unsigned long)t.deps[i].wseq);
	if (t.deps != t.dep_inline)
		free(t.deps);
	ck_assert_str_eq(got, want);
}

#define FILE_A 100	/* an object: even keys above 3 */
#define FILE_B 102
#define HANDLE 103	/* a handle: odd */

START_TEST(test_deps_readers_overlap)
{
	dispatch(0, FSTAP_OP_WRITE, FILE_A, "");
	/* two readers wait for the write, not for each other */
	dispatch(1, FSTAP_OP_READ, FILE_A, "0:1");
	dispatch(2, FSTAP_OP_GETATTR, FILE_A, "0:1");
	dispatch(1, FSTAP_OP_READ, FILE_A, "");		/* known: 1 waits for 0:1 already */
	/* a writer waits for both readers: worker 1's latest read */
	dispatch(3, FSTAP_OP_SETATTR, FILE_A, "0:1 1:2 2:1");
	/* and the next reader for that writer alone */
	dispatch(2, FSTAP_OP_READ, FILE_A, "3:1");
	/* another file is another resource */
	dispatch(4, FSTAP_OP_READ, FILE_B, "");
	dispatch(5, FSTAP_OP_WRITE, FILE_B, "4:1");
}
END_TEST

START_TEST(test_deps_own_worker)
{
	/* one worker's reads and writes wait for nothing: it runs them in order */
	dispatch(0, FSTAP_OP_READ, FILE_A, "");
	dispatch(0, FSTAP_OP_WRITE, FILE_A, "");
	dispatch(0, FSTAP_OP_READ, FILE_A, "");
	/* a lone reader stands as the writer: the next reader waits for it */
	dispatch(1, FSTAP_OP_READ, FILE_A, "0:3");
	dispatch(2, FSTAP_OP_READ, FILE_A, "0:3");
	dispatch(0, FSTAP_OP_WRITE, FILE_A, "1:1 2:1");
}
END_TEST

START_TEST(test_deps_many_readers)
{
	dispatch(0, FSTAP_OP_WRITE, FILE_A, "");
	dispatch(1, FSTAP_OP_READ, FILE_A, "0:1");
	dispatch(2, FSTAP_OP_READ, FILE_A, "0:1");
	dispatch(3, FSTAP_OP_READ, FILE_A, "0:1");
	/* past RES_READERS: the next waits for those kept, and stands for them */
	dispatch(4, FSTAP_OP_READ, FILE_A, "0:1 1:1 2:1 3:1");
	dispatch(5, FSTAP_OP_READ, FILE_A, "0:1");
	dispatch(1, FSTAP_OP_WRITE, FILE_A, "4:1 5:1");
}
END_TEST

START_TEST(test_deps_handle_released)
{
	dispatch(0, FSTAP_OP_OPEN, HANDLE, "");
	dispatch(1, FSTAP_OP_READ, HANDLE, "0:1");
	dispatch(2, FSTAP_OP_READ, HANDLE, "0:1");
	dispatch(0, FSTAP_OP_RELEASE, HANDLE, "1:1 2:1");
	ck_assert_ptr_null(fstap_map_get(&r.res_last, HANDLE));
	/* the same number opened again starts afresh */
	dispatch(3, FSTAP_OP_OPEN, HANDLE, "");
}
END_TEST

static Suite *deps_suite(void)
{
	Suite *s = suite_create("deps");
	TCase *tc = tcase_create("Core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_deps_readers_overlap);
	tcase_add_test(tc, test_deps_own_worker);
	tcase_add_test(tc, test_deps_many_readers);
	tcase_add_test(tc, test_deps_handle_released);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(deps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
