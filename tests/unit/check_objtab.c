/*
 * check_objtab.c: the analysis object table (src/analysis/objtab.c) fed
 * with its pathmap: with an_objtab_forget_dead, the entries of dead
 * objects forgotten when the pathmap forgets them, their user's callback
 * first (the path resolves), while open or still named ones stay; entries
 * found again after others moved in the array (an_objtab_del); inode
 * numbers learned (state_inode over a readdir's d_ino) while the names stay
 * the pathmap's. With an_objtab_settle_dead, an entry that holds only what
 * the template holds is settled when its object dies (not while it lives,
 * not if it holds more): its id stays, an_objtab_each shows a copy (what
 * it changes is lost), get and add bring back an entry equal to the one
 * before the death (within the grace period, and after it for an object
 * that came back to life; the array's last entry too, guessed just
 * before), and its forgetting shows the user's callback the same entry;
 * called after the first an_objtab_apply, the deaths after it settle;
 * without it nothing settles.
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
	ck_assert_int_eq(fstap_pathmap_kind(pm, o->obj), FSTAP_KIND_FILE);
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
	ck_assert_int_eq(fstap_pathmap_kind(pm, 5), FSTAP_KIND_FILE);
}
END_TEST

/* ---- settling the dead (an_objtab_settle_dead) ---------------------------- */

/* The template of a settled entry, and report's sort of test of it. */
static const struct an_obj touched_bare = { .report.touched = true };
static size_t bare_asked;

static bool only_touched(const struct an_obj *o)
{
	bare_asked++;
	return o->report.touched && !o->report.ops && !o->ino && !o->ino_from_state && !o->priv;
}

/* Equal entries, member by member. */
static void same_entry(const struct an_obj *a, const struct an_obj *b)
{
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->obj, b->obj);
	ck_assert_uint_eq(a->ino, b->ino);
	ck_assert_uint_eq(a->report.ops, b->report.ops);
	ck_assert_int_eq(a->report.touched, b->report.touched);
	ck_assert_ptr_eq(a->priv, b->priv);
	ck_assert_int_eq(a->ino_from_state, b->ino_from_state);
}

/* The entries the forgetting showed, by object (100 + i). */
static struct an_obj forgot_as[16];
static bool forgot_seen[16];

static void keep_forgotten(struct an_obj *o, void *arg)
{
	(void)arg;
	ck_assert_uint_ge(o->obj, 100);
	ck_assert_uint_lt(o->obj, 116);
	ck_assert(!forgot_seen[o->obj - 100]);
	forgot_seen[o->obj - 100] = true;
	forgot_as[o->obj - 100] = *o;
	forgotten++;
}

/* an_objtab_each's fn: an inode number written to every entry (lost for a settled one). */
static void mark(struct an_obj *o, void *arg)
{
	(void)arg;
	o->ino = 777;
}

/* An entry whose mark stuck: the table holds it; one whose mark was lost: settled. */
static bool marked(uint64_t obj)
{
	const struct an_obj *o = an_objtab_get(t, obj);

	ck_assert_msg(o != NULL, "entry %llu lost", (unsigned long long)obj);
	return o->ino == 777;
}

/*
 * Files 100..111 created (each given an entry) and closed: 100-102 and
 * 106-111 only touched, 103 with ops, 104 with an inode number, 105 not
 * touched. Their entries then, in before[].
 */
static struct an_obj before[12];

static void touched_files(void)
{
	char name[16];
	uint64_t i;

	an_objtab_forget_dead(t, keep_forgotten, NULL);
	memset(forgot_seen, 0, sizeof(forgot_seen));
	bare_asked = 0;
	for (i = 0; i < 12; i++) {
		struct an_obj *o;

		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		at(0, FSTAP_OP_CREATE, 1, name, 100 + i);
		o = an_objtab_add(t, 100 + i);
		ck_assert_ptr_nonnull(o);
		o->report.touched = i != 5;
		if (i == 3)
			o->report.ops = 5;
		if (i == 4)
			o->ino = 44;
		at(0, FSTAP_OP_RELEASE, 100 + i, NULL, 0);
	}
	for (i = 0; i < 12; i++)
		before[i] = *an_objtab_get(t, 100 + i);
}

static void unlink_file(uint64_t t_ms, uint64_t i)
{
	char name[16];

	snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
	at(t_ms, FSTAP_OP_UNLINK, 1, name, 0);
}

START_TEST(test_objtab_settles_touched_only_at_death)
{
	struct fstap_rec link = { .op = FSTAP_OP_LINK, .obj = 102, .newparent = 1,
				  .newname = { (const uint8_t *)"again", 5 } };
	uint64_t i;

	an_objtab_settle_dead(t, &touched_bare, only_touched);
	touched_files();
	/* alive: nothing settles, nothing asked */
	ck_assert_uint_eq(bare_asked, 0);
	an_objtab_each(t, mark, NULL);
	for (i = 0; i < 12; i++)
		ck_assert(marked(100 + i));
	for (i = 0; i < 12; i++)
		an_objtab_get(t, 100 + i)->ino = before[i].ino;
	/* all but 111 die: the bare ones settle, asked once each */
	for (i = 0; i < 11; i++)
		unlink_file(1, i);
	ck_assert_uint_eq(bare_asked, 11);
	ck_assert_uint_eq(entries(), 12);
	an_objtab_each(t, mark, NULL);
	/* 106: its mark was lost (each saw a copy), and it comes back as it was */
	ck_assert(!marked(106));
	same_entry(an_objtab_get(t, 106), &before[6]);
	for (i = 3; i <= 5; i++)
		ck_assert_msg(marked(100 + i), "entry %llu was settled", (unsigned long long)i);
	ck_assert(marked(111));
	/* add brings a settled one back as it was, not as a new entry */
	same_entry(an_objtab_add(t, 100), &before[0]);
	same_entry(an_objtab_get(t, 100), &before[0]);
	/* 102 comes back to life within the grace period, without being asked for */
	ck_assert_int_eq(an_objtab_apply(t, pm, &link), 0);
	/* the grace period over: the dead forgotten, each shown its entry as it was */
	at(1 + GRACE_MS + 1, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(forgotten, 10);
	for (i = 0; i < 11; i++) {
		if (i == 2)
			continue;
		ck_assert_msg(forgot_seen[i], "%llu not forgotten", (unsigned long long)i);
		ck_assert_ptr_null(an_objtab_get(t, 100 + i));
		if (i >= 3 && i <= 5)	/* kept: the table's entry, marked */
			ck_assert_uint_eq(forgot_as[i].ino, 777);
		else			/* settled, brought back (100, 106) or not */
			same_entry(&forgot_as[i], &before[i]);
	}
	/* 102, alive again, still settled until asked for long after its death */
	ck_assert(!forgot_seen[2]);
	same_entry(an_objtab_get(t, 102), &before[2]);
	same_entry(an_objtab_get(t, 111), &(struct an_obj){ .obj = 111, .ino = 777,
							   .report.touched = true });
	ck_assert_uint_eq(entries(), 2);
}
END_TEST

/*
 * The last entry of the array settles (the array just shrinks, its bytes
 * still there) after a get made it the recent guess: asked for again, it
 * comes back as an entry of the table, whose changes stay through the
 * entries added after it.
 */
START_TEST(test_objtab_settled_last_entry_comes_back)
{
	struct an_obj *o;

	an_objtab_settle_dead(t, &touched_bare, only_touched);
	touched_files();
	ck_assert_uint_eq(an_objtab_get(t, 111)->obj, 111);
	unlink_file(1, 11);
	ck_assert_uint_eq(bare_asked, 1);
	o = an_objtab_get(t, 111);
	same_entry(o, &before[11]);
	o->report.ops = 3;
	ck_assert_ptr_nonnull(an_objtab_add(t, 200));
	ck_assert_ptr_nonnull(an_objtab_add(t, 201));
	ck_assert_uint_eq(an_objtab_get(t, 111)->report.ops, 3);
	ck_assert_uint_eq(an_objtab_get(t, 200)->obj, 200);
	ck_assert_uint_eq(entries(), 14);
}
END_TEST

/*
 * an_objtab_settle_dead after the first an_objtab_apply (which took the
 * pathmap's hooks for the table): from then on the bare settle at death,
 * the ones dead before stay entries.
 */
START_TEST(test_objtab_settles_when_asked_after_first_apply)
{
	uint64_t i;

	touched_files();
	unlink_file(1, 0);
	an_objtab_settle_dead(t, &touched_bare, only_touched);
	for (i = 1; i < 11; i++)
		unlink_file(2, i);
	ck_assert_uint_eq(bare_asked, 10);
	ck_assert_uint_eq(entries(), 12);
	an_objtab_each(t, mark, NULL);
	for (i = 0; i < 12; i++) {
		bool settled = i >= 1 && i <= 10 && !(i >= 3 && i <= 5);

		ck_assert_msg(marked(100 + i) != settled, "entry %llu %s",
			      (unsigned long long)(100 + i), settled ? "not settled" : "settled");
		if (settled)
			same_entry(an_objtab_get(t, 100 + i), &before[i]);
	}
	/* the grace period over: all the dead forgotten, settled or not */
	at(2 + GRACE_MS + 1, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(forgotten, 11);
	ck_assert_uint_eq(entries(), 1);
}
END_TEST

START_TEST(test_objtab_settles_nothing_by_default)
{
	uint64_t i;

	touched_files();
	for (i = 0; i < 11; i++)
		unlink_file(1, i);
	ck_assert_uint_eq(bare_asked, 0);
	an_objtab_each(t, mark, NULL);
	for (i = 0; i < 12; i++)
		ck_assert(marked(100 + i));
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
	tcase_add_test(core, test_objtab_settles_touched_only_at_death);
	tcase_add_test(core, test_objtab_settles_nothing_by_default);
	tcase_add_test(core, test_objtab_settled_last_entry_comes_back);
	tcase_add_test(core, test_objtab_settles_when_asked_after_first_apply);
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
