/*
 * check_pathmap.c: object ids to paths: names learned from the initial
 * state, lookups, creates and readdir entries; rename (plain, replacing,
 * exchange), unlink, hard links, unknown objects, growth past a rehash,
 * and a hostile parent loop.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fixtures.h"
#include "fstap/pathmap.h"

static struct fstap_pathmap *pm;
static char buf[4096];

static void setup(void)
{
	ck_assert_int_eq(fstap_pathmap_new(&pm), 0);
}

static void teardown(void)
{
	fstap_pathmap_free(pm);
}

static void apply(unsigned op, uint64_t obj, const char *name, uint64_t child,
		  uint64_t newparent, const char *newname, uint64_t flags)
{
	struct fstap_rec r = { .op = (uint16_t)op, .obj = obj, .child = child,
			       .newparent = newparent, .flags_arg = flags };

	if (name)
		r.name = B(name);
	if (newname)
		r.newname = B(newname);
	ck_assert_int_eq(fstap_pathmap_apply(pm, &r), 0);
}

static const char *path(uint64_t obj)
{
	ck_assert_int_ge(fstap_pathmap_path(pm, obj, buf, sizeof(buf)), 0);
	return buf;
}

START_TEST(test_pathmap_names_and_renames)
{
	apply(FSTAP_OP_STATE_DENTRY, 1, "d", 2, 0, NULL, 0);
	apply(FSTAP_OP_LOOKUP, 2, "f", 3, 0, NULL, 0);
	apply(FSTAP_OP_MKDIR, 1, "e", 4, 0, NULL, 0);
	ck_assert_str_eq(path(1), "/");
	ck_assert_str_eq(path(3), "/d/f");
	ck_assert_int_eq(fstap_pathmap_entry_path(pm, 2, B("x"), buf, sizeof(buf)), 4);
	ck_assert_str_eq(buf, "/d/x");
	/* Rename a directory: its children follow. */
	apply(FSTAP_OP_RENAME, 1, "d", 0, 4, "d2", 0);
	ck_assert_str_eq(path(3), "/e/d2/f");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("d")), 0);
	/* Rename over an existing name replaces it. */
	apply(FSTAP_OP_CREATE, 1, "g", 5, 0, NULL, 0);
	apply(FSTAP_OP_RENAME, 4, "d2", 0, 1, "g", 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("g")), 2);
	ck_assert_str_eq(path(3), "/g/f");
	/* Exchange. */
	apply(FSTAP_OP_CREATE, 1, "h", 6, 0, NULL, 0);
	apply(FSTAP_OP_RENAME, 1, "g", 0, 1, "h", 2 /* RENAME_EXCHANGE */);
	ck_assert_str_eq(path(2), "/h");
	ck_assert_str_eq(path(6), "/g");
	/* Unlink: the name goes, the object keeps its last path. */
	apply(FSTAP_OP_UNLINK, 1, "g", 0, 0, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("g")), 0);
	ck_assert_str_eq(path(6), "/g");
	/* A second name in the initial state (a hard link) keeps the first. */
	apply(FSTAP_OP_STATE_DENTRY, 1, "second", 2, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/h");
	/* A hard link does not move the first name. */
	apply(FSTAP_OP_LINK, 3, NULL, 0, 1, "hl", 0);
	ck_assert_str_eq(path(3), "/h/f");
}
END_TEST

START_TEST(test_pathmap_failed_ops_and_unknown_objects)
{
	struct fstap_rec r = { .op = FSTAP_OP_LOOKUP, .obj = 1, .child = 9, .result = -ENOENT };
	struct fstap_dirent ents[3] = {
		{ .name = { (const uint8_t *)".", 1 }, .obj = 1 },
		{ .name = { (const uint8_t *)"a", 1 }, .obj = 10 },
		{ .name = { (const uint8_t *)"b", 1 }, .obj = 0 },
	};
	struct fstap_rec rd = { .op = FSTAP_OP_READDIR, .obj = 1, .entries = ents, .nentries = 3 };

	r.name = B("nope");
	ck_assert_int_eq(fstap_pathmap_apply(pm, &r), 0);
	ck_assert_str_eq(path(9), "<obj:9>");
	apply(FSTAP_OP_LOOKUP, 77, "x", 78, 0, NULL, 0);
	ck_assert_str_eq(path(78), "<obj:77>/x");
	ck_assert_int_eq(fstap_pathmap_apply(pm, &rd), 0);
	ck_assert_str_eq(path(10), "/a");
	ck_assert_str_eq(path(1), "/");
}
END_TEST

START_TEST(test_pathmap_many_objects_and_loops)
{
	char name[32];
	uint64_t i;

	for (i = 2; i < 50000; i++) {
		snprintf(name, sizeof(name), "n%llu", (unsigned long long)i);
		apply(FSTAP_OP_CREATE, i <= 100 ? 1 : i % 100 + 1, name, i, 0, NULL, 0);
	}
	ck_assert_str_eq(path(12345), "/n46/n12345");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 46, B("n12345")), 12345);
	/* A hostile trace makes 60001 and 60002 each other's parent. */
	apply(FSTAP_OP_LOOKUP, 60001, "a", 60002, 0, NULL, 0);
	apply(FSTAP_OP_LOOKUP, 60002, "b", 60001, 0, NULL, 0);
	ck_assert_int_eq(fstap_pathmap_path(pm, 60001, buf, sizeof(buf)), -ENAMETOOLONG);
	ck_assert_int_eq(fstap_pathmap_path(pm, 2, buf, 3), -ENAMETOOLONG);
}
END_TEST

static Suite *pathmap_suite(void)
{
	Suite *s = suite_create("pathmap");
	TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(core, test_pathmap_names_and_renames);
	tcase_add_test(core, test_pathmap_failed_ops_and_unknown_objects);
	tcase_add_test(limits, test_pathmap_many_objects_and_loops);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pathmap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
