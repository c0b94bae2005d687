/*
 * check_reorder.c: the reorder plan (src/analysis/reorder*.c) on records
 * built in memory: which records form a file's group, which stay in place,
 * the new order and the exact new start times worked out by hand.
 */
#include <check.h>
#include <string.h>

#include "analysis/analysis.h"
#include "fstap/pathmap.h"

#define B(s) ((struct fstap_bytes){ (const uint8_t *)(s), sizeof(s) - 1 })

static struct fstap_rec recs[16];
static const struct fstap_rec *ptrs[16];
static size_t n;
static struct an_objtab *objs;
static struct fstap_pathmap *pm;
static struct fstap_dirent ents[3];

static struct fstap_rec *add(unsigned op, uint32_t tid, uint64_t t, uint64_t obj)
{
	struct fstap_rec *r = &recs[n];

	memset(r, 0, sizeof(*r));
	r->op = (uint16_t)op;
	r->tid = r->pid = tid;
	r->start_ns = t;
	r->dur_ns = 1;
	r->obj = obj;
	ptrs[n++] = r;
	return r;
}

static void state(uint64_t dir, const char *name, uint64_t child, uint64_t ino, bool is_dir)
{
	struct fstap_rec r = { .op = FSTAP_OP_STATE_INODE, .obj = child, .ino = ino,
			       .mode = is_dir ? 040755 : 0100644 };

	ck_assert_int_eq(an_objtab_apply(objs, pm, &r), 0);
	memset(&r, 0, sizeof(r));
	r.op = FSTAP_OP_STATE_DENTRY;
	r.obj = dir;
	r.name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)strlen(name) };
	r.child = child;
	ck_assert_int_eq(an_objtab_apply(objs, pm, &r), 0);
}

/* One thread lists /d (c, b, a) and reads c, b, a; releases come without a thread. */
static void setup(void)
{
	struct fstap_rec *r;

	n = 0;
	ck_assert_int_eq(an_objtab_new(&objs), 0);
	ck_assert_int_eq(fstap_pathmap_new(&pm), 0);
	state(1, "d", 2, 50, true);
	state(2, "b", 10, 3, false);
	state(2, "a", 11, 2, false);
	state(2, "c", 12, 1, false);
	ents[0] = (struct fstap_dirent){ B("c"), 12, 1, 8 };
	ents[1] = (struct fstap_dirent){ B("b"), 10, 3, 8 };
	ents[2] = (struct fstap_dirent){ B("a"), 11, 2, 8 };
	r = add(FSTAP_OP_READDIR, 5, 50, 2);		/* 0 */
	r->entries = ents;
	r->nentries = 3;
	r = add(FSTAP_OP_LOOKUP, 5, 100, 2);		/* 1: group c */
	r->name = B("c");
	r->child = 12;
	add(FSTAP_OP_OPEN, 5, 110, 12)->fh = 1;		/* 2 */
	add(FSTAP_OP_READ, 5, 120, 12)->fh = 1;		/* 3 */
	add(FSTAP_OP_RELEASE, 0, 130, 12)->fh = 1;	/* 4: async */
	add(FSTAP_OP_GETATTR, 5, 140, 2);		/* 5: neutral, between */
	r = add(FSTAP_OP_LOOKUP, 5, 150, 2);		/* 6: group b */
	r->name = B("b");
	r->child = 10;
	add(FSTAP_OP_OPEN, 5, 160, 10)->fh = 2;		/* 7 */
	add(FSTAP_OP_RELEASE, 0, 170, 10)->fh = 2;	/* 8 */
	r = add(FSTAP_OP_LOOKUP, 5, 180, 2);		/* 9: group a */
	r->name = B("a");
	r->child = 11;
	add(FSTAP_OP_OPEN, 5, 190, 11)->fh = 3;		/* 10 */
	add(FSTAP_OP_RELEASE, 0, 200, 11)->fh = 3;	/* 11 */
}

static void teardown(void)
{
	an_objtab_free(objs);
	fstap_pathmap_free(pm);
}

START_TEST(test_reorder_groups_and_times_by_name)
{
	uint64_t group[16], run[16], t[16];
	struct an_reorder_stats st;
	/*
	 * Spans (first start to last end of the thread's records): c 100..121,
	 * b 150..161, a 180..191. a takes slot 0 at 100 (shift then -10), the
	 * getattr moves by -10, b takes slot 1 at 150 - 10, c slot 2 at 180 - 10.
	 */
	static const uint64_t want[12] = { 50, 170, 180, 190, 200, 130, 140, 150, 160, 100, 110, 120 };
	size_t i;

	ck_assert_int_eq(an_reorder_plan(ptrs, n, objs, pm, AN_BY_NAME, 1, group, run, t, &st), 0);
	ck_assert_uint_eq(group[0], 0);
	ck_assert_uint_eq(group[5], 0);
	ck_assert(group[1] && group[1] == group[2] && group[2] == group[3] && group[3] == group[4]);
	ck_assert(group[6] && group[6] == group[7] && group[7] == group[8] && group[6] != group[1]);
	ck_assert(group[9] && group[9] == group[10] && group[10] == group[11] && group[9] != group[6]);
	ck_assert(run[1] && run[1] == run[6] && run[6] == run[9]);
	for (i = 0; i < n; i++)
		ck_assert_msg(t[i] == want[i], "record %zu: t %llu, expected %llu", i,
			      (unsigned long long)t[i], (unsigned long long)want[i]);
	ck_assert_uint_eq(st.runs, 1);
	ck_assert_uint_eq(st.groups, 3);
	ck_assert_uint_eq(st.moved, 2);
}
END_TEST

START_TEST(test_reorder_readdir_order_keeps_times)
{
	uint64_t group[16], run[16], t[16];
	size_t i;

	/* the reader already follows the listing: nothing moves */
	ck_assert_int_eq(an_reorder_plan(ptrs, n, objs, pm, AN_BY_READDIR, 1, group, run, t, NULL), 0);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(t[i], recs[i].start_ns);
}
END_TEST

START_TEST(test_reorder_inode_order)
{
	uint64_t group[16], run[16], t[16];

	/* inodes: c 1, a 2, b 3: c stays first, a before b */
	ck_assert_int_eq(an_reorder_plan(ptrs, n, objs, pm, AN_BY_INODE, 1, group, run, t, NULL), 0);
	ck_assert_uint_eq(t[1], 100);
	ck_assert(t[9] < t[6] && t[9] > t[3]);
}
END_TEST

START_TEST(test_reorder_barrier_ends_run)
{
	uint64_t group[16], run[16], t[16];
	struct an_reorder_stats st;

	/* a mkdir in the directory between c and b: runs c, then b a */
	recs[5].op = FSTAP_OP_MKDIR;
	recs[5].name = B("x");
	recs[5].child = 40;
	ck_assert_int_eq(an_reorder_plan(ptrs, n, objs, pm, AN_BY_NAME, 1, group, run, t, &st), 0);
	ck_assert(run[1] != run[6] && run[6] == run[9]);
	ck_assert_uint_eq(t[1], 100);	/* c is alone in its run */
	ck_assert_uint_eq(t[5], 140);	/* the barrier stays */
	ck_assert_uint_eq(t[9], 150);	/* a takes b's slot */
	ck_assert_uint_eq(t[6], 180);
	ck_assert_uint_eq(st.runs, 1);
}
END_TEST

static Suite *reorder_suite(void)
{
	Suite *s = suite_create("reorder");
	TCase *core = tcase_create("Core");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_reorder_groups_and_times_by_name);
	tcase_add_test(core, test_reorder_readdir_order_keeps_times);
	tcase_add_test(core, test_reorder_inode_order);
	tcase_add_test(core, test_reorder_barrier_ends_run);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reorder_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
