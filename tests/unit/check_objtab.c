/*
 * check_objtab.c: the analysis object table (src/analysis/objtab.c) fed
 * with its pathmap: with an_objtab_forget_dead, the entries of dead
 * objects forgotten when the pathmap forgets them, their user's callback
 * first (the path resolves), while open or still named ones stay; entries
 * found again after others moved in the array (an_objtab_del); inode
 * numbers learned (state_inode over a readdir's d_ino) while the names stay
 * the pathmap's.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "fstap/pathmap.h"

#define GRACE_MS (FSTAP_PATHMAP_GRACE_NS / 1000000)

static struct an_objtab *t;
static struct fstap_pathmap *pm;
static size_t forgotten;

static void setup(void)
{
	ck_assert_int_eq(an_objtab_new(&t), 0);
	ck_assert_int_eq(fstap_pathmap_new(&pm), 0);
	forgotten = 0;
}

static void teardown(void)
{
	an_objtab_free(t);
	fstap_pathmap_free(pm);
}

/* One record at trace time t_ms (ms). */
static void at(uint64_t t_ms, unsigned op, uint64_t obj, const char *name, uint64_t child)
{
	struct fstap_rec r = { .op = (uint16_t)op, .obj = obj, .child = child,
			       .start_ns = t_ms * 1000000 };

	if (name)
		r.name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)strlen(name) };
	ck_assert_int_eq(an_objtab_apply(t, pm, &r), 0);
}

static void count(struct an_obj *o, void *arg)
{
	(void)o;
	++*(size_t *)arg;
}

static size_t entries(void)
{
	size_t n = 0;

	an_objtab_each(t, count, &n);
	return n;
}

/* The user's callback: o's path still resolves, to the name it was created with. */
static void on_forget(struct an_obj *o, void *arg)
{
	char path[64], want[64];

	ck_assert_ptr_eq(arg, &forgotten);
	ck_assert_int_ge(fstap_pathmap_path(pm, o->obj, path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "/f%llu", (unsigned long long)(o->obj - 100));
	ck_assert_str_eq(path, want);
	ck_assert_int_eq(fstap_pathmap_kind(pm, o->obj), FSTAP_KIND_OTHER);
	forgotten++;
}

/* n files created in the root (each given an entry), closed, and unlinked but every 100th one. */
static void churn(uint64_t n)
{
	char name[32];
	uint64_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		at(i, FSTAP_OP_CREATE, 1, name, 100 + i);
		ck_assert_ptr_nonnull(an_objtab_add(t, 100 + i));
		at(i, FSTAP_OP_RELEASE, 100 + i, NULL, 0);
		if (i % 100)
			at(i, FSTAP_OP_UNLINK, 1, name, 0);
	}
	at(n + GRACE_MS, FSTAP_OP_GETATTR, 1, NULL, 0);
}

START_TEST(test_objtab_forgets_dead_objects)
{
	uint64_t parent;
	struct fstap_bytes name;

	an_objtab_forget_dead(t, on_forget, &forgotten);
	churn(100000);
	/* the live files */
	ck_assert_uint_eq(entries(), 1000);
	ck_assert_uint_eq(forgotten, 99000);
	ck_assert_ptr_null(an_objtab_get(t, 100 + 99999));
	ck_assert_ptr_nonnull(an_objtab_get(t, 100 + 99900));
	ck_assert_int_eq(fstap_pathmap_name(pm, 100 + 99900, &parent, &name), 1);
	ck_assert_uint_eq(parent, 1);
	ck_assert_int_eq(memcmp(name.ptr, "f99900", 6), 0);
}
END_TEST

START_TEST(test_objtab_keeps_everything_by_default)
{
	churn(20000);
	ck_assert_uint_eq(entries(), 20000);
	ck_assert_ptr_nonnull(an_objtab_get(t, 100 + 19999));
}
END_TEST

START_TEST(test_objtab_open_file_stays)
{
	an_objtab_forget_dead(t, NULL, NULL);
	at(0, FSTAP_OP_CREATE, 1, "a", 2);
	ck_assert_ptr_nonnull(an_objtab_add(t, 2));
	at(0, FSTAP_OP_UNLINK, 1, "a", 0);
	at(2 * GRACE_MS, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_ptr_nonnull(an_objtab_get(t, 2));
	at(2 * GRACE_MS, FSTAP_OP_RELEASE, 2, NULL, 0);
	at(3 * GRACE_MS, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_ptr_null(an_objtab_get(t, 2));
}
END_TEST

/* Objects that share the slots of the recently found ones, some deleted: the rest still found. */
START_TEST(test_objtab_found_after_deletes)
{
	uint64_t obj;

	for (obj = 1; obj <= 640; obj++)
		an_objtab_add(t, obj)->ino = obj;
	for (obj = 1; obj <= 640; obj++)
		ck_assert_uint_eq(an_objtab_get(t, obj)->ino, obj);
	for (obj = 1; obj <= 640; obj += 3)
		an_objtab_del(t, obj);
	for (obj = 640; obj >= 1; obj--) {
		struct an_obj *o = an_objtab_get(t, obj);

		if (obj % 3 == 1) {
			ck_assert_ptr_null(o);
			continue;
		}
		ck_assert_ptr_nonnull(o);
		ck_assert_uint_eq(o->obj, obj);
		ck_assert_uint_eq(o->ino, obj);
	}
	ck_assert_uint_eq(entries(), 640 - 214);
}
END_TEST

static void rename_rec(uint64_t dir, const char *name, uint64_t newdir, const char *newname)
{
	struct fstap_rec r = { .op = FSTAP_OP_RENAME, .obj = dir, .newparent = newdir };

	r.name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)strlen(name) };
	r.newname = (struct fstap_bytes){ (const uint8_t *)newname, (uint32_t)strlen(newname) };
	ck_assert_int_eq(an_objtab_apply(t, pm, &r), 0);
}

/* A listing of dir with two entries, ino 10 + obj. */
static void readdir_rec(uint64_t dir, uint64_t obj1, uint64_t obj2)
{
	struct fstap_dirent e[2] = {
		{ .obj = obj1, .ino = 10 + obj1, .name = { (const uint8_t *)"x", 1 } },
		{ .obj = obj2, .ino = 10 + obj2, .name = { (const uint8_t *)"y", 1 } },
	};
	struct fstap_rec r = { .op = FSTAP_OP_READDIR, .obj = dir, .entries = e, .nentries = 2 };

	ck_assert_int_eq(an_objtab_apply(t, pm, &r), 0);
}

START_TEST(test_objtab_inodes_and_names)
{
	struct fstap_rec si = { .op = FSTAP_OP_STATE_INODE, .obj = 3, .ino = 99, .mode = 0100644 };
	const struct an_obj *o;

	ck_assert_int_eq(an_objtab_apply(t, pm, &si), 0);
	at(0, FSTAP_OP_MKDIR, 1, "d", 2);
	readdir_rec(2, 3, 4);
	/* the initial state's inode number wins over a listing's */
	ck_assert_uint_eq(an_objtab_get(t, 3)->ino, 99);
	ck_assert_uint_eq(an_objtab_get(t, 4)->ino, 14);
	/* names and kinds are the pathmap's; a rename moves the name, not the entry */
	at(0, FSTAP_OP_CREATE, 1, "a", 5);
	o = an_objtab_add(t, 5);
	ck_assert_uint_eq(fstap_pathmap_parent(pm, 5), 1);
	rename_rec(1, "a", 2, "b");
	ck_assert_ptr_eq(an_objtab_get(t, 5), o);
	ck_assert_uint_eq(fstap_pathmap_parent(pm, 5), 2);
	ck_assert_int_eq(fstap_pathmap_kind(pm, 2), FSTAP_KIND_DIR);
	ck_assert_int_eq(fstap_pathmap_kind(pm, 5), FSTAP_KIND_OTHER);
}
END_TEST

static Suite *objtab_suite(void)
{
	Suite *s = suite_create("objtab");
	TCase *core = tcase_create("Core");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_set_timeout(core, 60);
	tcase_add_test(core, test_objtab_forgets_dead_objects);
	tcase_add_test(core, test_objtab_keeps_everything_by_default);
	tcase_add_test(core, test_objtab_open_file_stays);
	tcase_add_test(core, test_objtab_found_after_deletes);
	tcase_add_test(core, test_objtab_inodes_and_names);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(objtab_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
