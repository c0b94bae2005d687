/*
 * check_prepare.c: the pure half of `fstap prepare` (replay/prepare-plan.c):
 * extent normalization, the three creation orders (parents
 * always first, hard links after their object and their directory), and
 * hostile initial states (bad names, entries under files, loops, objects
 * without state, a name taken twice, a second name of a directory).
 */
#include <check.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/prepare.h"

static struct prep_model *m;

static void setup(void)
{
	ck_assert_int_eq(prep_model_new(&m), 0);
}

static void teardown(void)
{
	prep_model_free(m);
}

static void inode(uint64_t obj, uint32_t mode, uint64_t ino)
{
	struct fstap_rec r = { .op = FSTAP_OP_STATE_INODE, .obj = obj, .mode = mode, .ino = ino };

	if (S_ISLNK(mode))
		r.target = (struct fstap_bytes){ (const uint8_t *)"t", 1 };
	ck_assert_int_eq(prep_model_add(m, &r), 0);
}

static void dentry_n(uint64_t parent, const char *name, size_t len, uint64_t child)
{
	struct fstap_rec r = { .op = FSTAP_OP_STATE_DENTRY, .obj = parent, .child = child,
			       .name = { (const uint8_t *)name, (uint32_t)len } };

	ck_assert_int_eq(prep_model_add(m, &r), 0);
}

static void dentry(uint64_t parent, const char *name, uint64_t child)
{
	dentry_n(parent, name, strlen(name), child);
}

/* The plan as text: "+id" creates, "=id:name" links, space-separated. */
static const char *plan_str(void)
{
	static char buf[65536];
	size_t pos = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = 0; i < m->nsteps; i++) {
		const struct prep_step *s = &m->steps[i];

		if (s->kind == PREP_STEP_CREATE)
			pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s+%llu", pos ? " " : "",
						(unsigned long long)m->objs[s->obj].id);
		else
			pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s=%llu:%s",
						pos ? " " : "",
						(unsigned long long)m->objs[s->obj].id,
						m->dents[s->dent].name);
	}
	return buf;
}

/* Index of the CREATE step of object id, or -1. */
static int created_at(uint64_t id)
{
	uint32_t i;

	for (i = 0; i < m->nsteps; i++)
		if (m->steps[i].kind == PREP_STEP_CREATE && m->objs[m->steps[i].obj].id == id)
			return (int)i;
	return -1;
}

static uint64_t total_skipped(void)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < PREP_SKIP_NR; i++)
		t += m->skipped[i];
	return t;
}

START_TEST(test_extents_normalize)
{
	struct fstap_extent e[] = {
		{ 8192, 4096 }, { 0, 4096 }, { 2048, 4096 }, { 20000, 0 },
		{ 12288, 100 }, { 90000, 10 }, { 9000, UINT64_MAX },
	};
	uint32_t n = prep_extents_normalize(e, 7, 50000);

	/* [0,6144) merged; [8192,12288) + [9000,50000) + touching [12288,..) merged. */
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(e[0].offset, 0);
	ck_assert_uint_eq(e[0].length, 6144);
	ck_assert_uint_eq(e[1].offset, 8192);
	ck_assert_uint_eq(e[1].length, 50000 - 8192);
	ck_assert_uint_eq(prep_extents_normalize(e, 2, 0), 0);
}
END_TEST

/*
 *   /            (1)
 *   a/  ino 50   (2)     a/x ino 10 (4, created before its directory's ino)
 *   b   ino 20   (3)     a/y ino 60 (5) = hard link of b
 *   c   ino 30   (6)     symlink
 */
static void tree(void)
{
	inode(1, S_IFDIR | 0755, 2);
	dentry(1, "a", 2);
	inode(2, S_IFDIR | 0750, 50);
	dentry(1, "b", 3);
	dentry(2, "y", 3);
	inode(3, S_IFREG | 0644, 20);
	dentry(2, "x", 4);
	inode(4, S_IFREG | 0600, 10);
	dentry(1, "c", 6);
	inode(6, S_IFLNK | 0777, 30);
}

START_TEST(test_order_creation)
{
	tree();
	ck_assert_int_eq(prep_plan(m, PREP_ORDER_CREATION, 1), 0);
	/* b (20), c (30), a (50) then x (10) once a exists; y links b. */
	ck_assert_str_eq(plan_str(), "+3 +6 +2 =3:y +4");
	ck_assert_uint_eq(total_skipped(), 0);
}
END_TEST

START_TEST(test_order_name)
{
	tree();
	ck_assert_int_eq(prep_plan(m, PREP_ORDER_NAME, 1), 0);
	/* a, its x; y links b, which does not exist yet: linked when b is created. */
	ck_assert_str_eq(plan_str(), "+2 +4 +3 =3:y +6");
}
END_TEST

START_TEST(test_order_random)
{
	static char first[65536];
	uint64_t seed;
	int differ = 0;
	uint32_t i;

	/* 200 directories of 5 files: parents first, every seed; seeds differ. */
	for (seed = 1; seed <= 4; seed++) {
		teardown();
		setup();
		inode(1, S_IFDIR | 0755, 2);
		for (i = 0; i < 200; i++) {
			char name[32];
			uint32_t k;

			snprintf(name, sizeof(name), "d%u", i);
			dentry(i ? 2 + (i - 1) / 2 * 6 : 1, name, 2 + i * 6);
			inode(2 + i * 6, S_IFDIR | 0755, 1000 + i);
			for (k = 0; k < 5; k++) {
				snprintf(name, sizeof(name), "f%u", k);
				dentry(2 + i * 6, name, 3 + i * 6 + k);
				inode(3 + i * 6 + k, S_IFREG | 0644, 5000 + i * 6 + k);
			}
		}
		ck_assert_int_eq(prep_plan(m, PREP_ORDER_RANDOM, seed), 0);
		ck_assert_uint_eq(m->nsteps, 1200);
		ck_assert_uint_eq(total_skipped(), 0);
		for (i = 0; i < m->nsteps; i++) {
			const struct prep_dent *d = &m->dents[m->steps[i].dent];

			ck_assert(d->parent == 1 || created_at(d->parent) < (int)i);
		}
		if (seed == 1)
			strcpy(first, plan_str());
		else
			differ += strcmp(first, plan_str()) != 0;
	}
	ck_assert_int_eq(differ, 3);
	/* The same seed gives the same order. */
	teardown();
	setup();
	tree();
	ck_assert_int_eq(prep_plan(m, PREP_ORDER_RANDOM, 7), 0);
	strcpy(first, plan_str());
	teardown();
	setup();
	tree();
	ck_assert_int_eq(prep_plan(m, PREP_ORDER_RANDOM, 7), 0);
	ck_assert_str_eq(first, plan_str());
}
END_TEST

START_TEST(test_hostile)
{
	inode(1, S_IFDIR | 0755, 2);
	dentry(1, "..", 2);			/* bad name */
	dentry(1, "a/b", 3);			/* bad name */
	dentry_n(1, "n\0ul", 4, 4);		/* bad name */
	dentry(1, "", 5);			/* bad name */
	inode(2, S_IFDIR | 0755, 10);
	inode(3, S_IFREG | 0644, 11);
	inode(4, S_IFREG | 0644, 12);
	inode(5, S_IFREG | 0644, 13);
	dentry(1, "f", 6);
	inode(6, S_IFREG | 0644, 14);
	dentry(6, "under-file", 7);		/* parent not a directory */
	inode(7, S_IFREG | 0644, 15);
	dentry(1, "ghost", 99);			/* no state */
	dentry(98, "in-ghost", 6);		/* parent without state */
	/* A loop d1 -> d2 -> d1, reached from the root through d1. */
	dentry(1, "d1", 8);
	inode(8, S_IFDIR | 0755, 16);
	dentry(8, "d2", 9);
	inode(9, S_IFDIR | 0755, 17);
	dentry(9, "back", 8);			/* second name of a directory */
	dentry(9, "root", 1);			/* names the root */
	/* A loop not reached from the root. */
	inode(10, S_IFDIR | 0755, 18);
	inode(11, S_IFDIR | 0755, 19);
	dentry(10, "e", 11);
	dentry(11, "e", 10);
	/* One name, two children; and the same record twice (harmless). */
	dentry(1, "same", 6);
	dentry(1, "same", 7);
	dentry(1, "twice", 6);
	dentry(1, "twice", 6);
	inode(6, S_IFREG | 0600, 14);		/* a second state record */
	inode(12, 0170000, 20);			/* an unknown file type */
	dentry(1, "weird", 12);
	ck_assert_int_eq(prep_plan(m, PREP_ORDER_CREATION, 1), 0);

	ck_assert_str_eq(plan_str(), "+6 =6:same =6:twice +8 +9");
	ck_assert_uint_eq(m->skipped[PREP_SKIP_BAD_NAME], 4);
	ck_assert_uint_eq(m->skipped[PREP_SKIP_NOT_DIR], 1);
	ck_assert_uint_eq(m->skipped[PREP_SKIP_NO_STATE], 2);
	ck_assert_uint_eq(m->skipped[PREP_SKIP_DIR_LINK], 2);
	ck_assert_uint_eq(m->skipped[PREP_SKIP_DUP_NAME], 1);
	ck_assert_uint_eq(m->skipped[PREP_SKIP_DUP_STATE], 1);
	ck_assert_uint_eq(m->skipped[PREP_SKIP_BAD_OBJECT], 1);
	/* 2..5 (bad names only), 7 (under a file, and its "same" lost), 10, 11. */
	ck_assert_uint_eq(m->skipped[PREP_SKIP_UNREACHABLE], 7);
	ck_assert_uint_eq(m->objs[0].mode & 07777, 0755);
}
END_TEST

START_TEST(test_paths_for_messages)
{
	char buf[256];
	uint32_t i;

	tree();
	dentry(2, "bad\xff/", 7);
	ck_assert_int_eq(prep_plan(m, PREP_ORDER_CREATION, 1), 0);
	for (i = 0; i < m->ndents; i++)
		if (!m->dents[i].valid)
			ck_assert_str_eq(prep_dent_path(m, i, buf, sizeof(buf)), "a/bad\\xff/");
	ck_assert_str_eq(prep_obj_path(m, m->steps[4].obj, buf, sizeof(buf)), "a/x");
	ck_assert_str_eq(prep_obj_path(m, 0, buf, sizeof(buf)), ".");
}
END_TEST

static Suite *prepare_suite(void)
{
	Suite *s = suite_create("prepare");
	TCase *tc = tcase_create("Core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_extents_normalize);
	tcase_add_test(tc, test_order_creation);
	tcase_add_test(tc, test_order_name);
	tcase_add_test(tc, test_order_random);
	tcase_add_test(tc, test_paths_for_messages);
	suite_add_tcase(s, tc);
	tc = tcase_create("Hostile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hostile);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(prepare_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
