/*
 * check_pathmap.c: object ids to paths: names learned from the initial
 * state, lookups, creates and readdir entries; rename (plain, replacing,
 * exchange), unlink, hard links, unknown objects, growth past a rehash,
 * and a hostile parent loop. Objects with several names: every name is
 * kept, the path follows the name a request went through and moves to a
 * surviving name when one is removed. Dead objects (no name, no open
 * handle, nothing in them) are forgotten after the grace period. Names
 * short and long (kept inline or not) through creates, renames and exchanges.
 * Each object's kind: the records that tell it, those that tell it only of
 * an object not known, failed ones, the objects told, learned ahead of the
 * names too; whether a directory is on
 * an object's path (links, lookups, renames, listings, a parent loop).
 * The death callback (fstap_pathmap_on_death): once per death, with the
 * dead object's id, at the record that kills it (a last name, a last
 * handle, a directory's last name in it), again at a later death, never
 * for the living. fstap_pathmap_dir_of agrees with the kind and parent
 * lookups through renames, hard links, unlinks, the root and unknown
 * objects. The object table's 17-slot probing: random creates and
 * forgettings of dense ids, ids differing in their low bits only and
 * hashed ones, and 120 ids of one home whose probe chain wraps round the
 * table, leave every living object found and every forgotten one gone.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/fixtures.h"
#include <sys/stat.h>

#include "fstap/pathmap.h"
#include "fstap/util.h"

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

/* name_of(obj): the name fstap_pathmap_name gives, as "dir/name", and its state. */
static const char *name_of(uint64_t obj, int *linked)
{
	uint64_t parent = 0;
	struct fstap_bytes name;

	*linked = fstap_pathmap_name(pm, obj, &parent, &name);
	if (*linked < 0)
		return "";
	snprintf(buf, sizeof(buf), "%llu/%.*s", (unsigned long long)parent, (int)name.len,
		 (const char *)name.ptr);
	return buf;
}

START_TEST(test_names_link_then_unlink_first)
{
	int linked;

	/* echo data > part && ln part final && rm part */
	apply(FSTAP_OP_CREATE, 1, "part", 2, 0, NULL, 0);
	apply(FSTAP_OP_LINK, 2, NULL, 0, 1, "final", 0);
	ck_assert_str_eq(path(2), "/part");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("final")), 2);
	apply(FSTAP_OP_UNLINK, 1, "part", 0, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/final");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("part")), 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("final")), 2);
	ck_assert_str_eq(name_of(2, &linked), "1/final");
	ck_assert_int_eq(linked, 1);
	/* A new file under the removed name is another object. */
	apply(FSTAP_OP_CREATE, 1, "part", 3, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/final");
	ck_assert_str_eq(path(3), "/part");
}
END_TEST

START_TEST(test_names_lookup_chooses_the_path)
{
	apply(FSTAP_OP_MKDIR, 1, "d", 5, 0, NULL, 0);
	apply(FSTAP_OP_CREATE, 1, "a", 2, 0, NULL, 0);
	apply(FSTAP_OP_LINK, 2, NULL, 0, 5, "b", 0);
	apply(FSTAP_OP_LINK, 2, NULL, 0, 1, "c", 0);
	ck_assert_str_eq(path(2), "/a");
	/* A lookup through /d/b: later requests on the object go there. */
	apply(FSTAP_OP_LOOKUP, 5, "b", 2, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/d/b");
	apply(FSTAP_OP_UNLINK, 5, "b", 0, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/a");
	apply(FSTAP_OP_UNLINK, 1, "a", 0, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/c");
	/* A directory has one name: a lookup under another replaces it. */
	apply(FSTAP_OP_LOOKUP, 1, "e", 5, 0, NULL, 0);
	ck_assert_str_eq(path(5), "/e");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("d")), 0);
}
END_TEST

START_TEST(test_names_rename_over_one_of_several)
{
	apply(FSTAP_OP_CREATE, 1, "a", 2, 0, NULL, 0);
	apply(FSTAP_OP_LINK, 2, NULL, 0, 1, "b", 0);
	apply(FSTAP_OP_CREATE, 1, "tmp", 3, 0, NULL, 0);
	/* tmp replaces a, one of 2's names: 2 keeps b. */
	apply(FSTAP_OP_RENAME, 1, "tmp", 0, 1, "a", 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("a")), 3);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("tmp")), 0);
	ck_assert_str_eq(path(3), "/a");
	ck_assert_str_eq(path(2), "/b");
	/* Renaming one of an object's names moves that name only. */
	apply(FSTAP_OP_LINK, 2, NULL, 0, 1, "c", 0);
	apply(FSTAP_OP_RENAME, 1, "c", 0, 1, "d", 0);
	ck_assert_str_eq(path(2), "/b");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("d")), 2);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("c")), 0);
	/* Renaming a name onto another name of the same object does nothing. */
	apply(FSTAP_OP_RENAME, 1, "b", 0, 1, "d", 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("b")), 2);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("d")), 2);
	/* The first name renamed: the path follows it. */
	apply(FSTAP_OP_RENAME, 1, "b", 0, 1, "e", 0);
	ck_assert_str_eq(path(2), "/e");
}
END_TEST

START_TEST(test_names_unlink_all)
{
	int linked;

	apply(FSTAP_OP_CREATE, 1, "a", 2, 0, NULL, 0);
	apply(FSTAP_OP_LINK, 2, NULL, 0, 1, "b", 0);
	apply(FSTAP_OP_UNLINK, 1, "a", 0, 0, NULL, 0);
	apply(FSTAP_OP_UNLINK, 1, "b", 0, 0, NULL, 0);
	/* No name left: the object keeps its last one, as an open file does. */
	ck_assert_str_eq(path(2), "/b");
	ck_assert_str_eq(name_of(2, &linked), "1/b");
	ck_assert_int_eq(linked, 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("a")), 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("b")), 0);
	/* An unlinking of a name that is gone changes nothing. */
	apply(FSTAP_OP_UNLINK, 1, "b", 0, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/b");
	/* linkat() of the open file gives it a name again. */
	apply(FSTAP_OP_LINK, 2, NULL, 0, 1, "c", 0);
	ck_assert_str_eq(path(2), "/c");
	ck_assert_str_eq(name_of(2, &linked), "1/c");
	ck_assert_int_eq(linked, 1);
	ck_assert_str_eq(name_of(77, &linked), "");
	ck_assert_int_eq(linked, -ENOENT);
}
END_TEST

START_TEST(test_names_initial_hard_links)
{
	apply(FSTAP_OP_STATE_DENTRY, 1, "d", 4, 0, NULL, 0);
	apply(FSTAP_OP_STATE_DENTRY, 1, "a", 2, 0, NULL, 0);
	apply(FSTAP_OP_STATE_DENTRY, 4, "b", 2, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/a");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 4, B("b")), 2);
	apply(FSTAP_OP_UNLINK, 1, "a", 0, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/d/b");
	/* A late initial name (state records may follow operations) does not
	 * bring back a name the trace removed, nor take one it reassigned. */
	apply(FSTAP_OP_CREATE, 1, "x", 3, 0, NULL, 0);
	apply(FSTAP_OP_LINK, 3, NULL, 0, 1, "y", 0);
	apply(FSTAP_OP_UNLINK, 1, "x", 0, 0, NULL, 0);
	apply(FSTAP_OP_STATE_DENTRY, 1, "x", 3, 0, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("x")), 0);
	ck_assert_str_eq(path(3), "/y");
	apply(FSTAP_OP_STATE_DENTRY, 1, "y", 6, 0, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("y")), 3);
	/* A late second initial name of an object the trace only looked up. */
	apply(FSTAP_OP_LOOKUP, 1, "p", 7, 0, NULL, 0);
	apply(FSTAP_OP_STATE_DENTRY, 1, "q", 7, 0, NULL, 0);
	ck_assert_str_eq(path(7), "/p");
	apply(FSTAP_OP_UNLINK, 1, "p", 0, 0, NULL, 0);
	ck_assert_str_eq(path(7), "/q");
}
END_TEST

START_TEST(test_names_rename_exchange)
{
	apply(FSTAP_OP_CREATE, 1, "a", 2, 0, NULL, 0);
	apply(FSTAP_OP_LINK, 2, NULL, 0, 1, "x", 0);
	apply(FSTAP_OP_CREATE, 1, "b", 3, 0, NULL, 0);
	apply(FSTAP_OP_RENAME, 1, "a", 0, 1, "b", 2 /* RENAME_EXCHANGE */);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("a")), 3);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("b")), 2);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("x")), 2);
	ck_assert_str_eq(path(2), "/b");
	ck_assert_str_eq(path(3), "/a");
	/* 2 keeps its other name through the exchange. */
	apply(FSTAP_OP_UNLINK, 1, "b", 0, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/x");
	/* Exchange with a name the trace does not know: the known one moves. */
	apply(FSTAP_OP_RENAME, 1, "a", 0, 1, "unknown", 2);
	ck_assert_str_eq(path(3), "/unknown");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("a")), 0);
}
END_TEST

/* Names of 0 to 40 bytes: moved, exchanged with shorter and longer ones, looked up. */
START_TEST(test_names_of_every_length)
{
	char a[48], b[48], want[128];
	size_t n;

	for (n = 1; n <= 40; n++) {
		memset(a, 'a', n);
		a[n] = 0;
		memset(b, 'b', 41 - n);
		b[41 - n] = 0;
		apply(FSTAP_OP_CREATE, 1, a, 10 + n, 0, NULL, 0);
		apply(FSTAP_OP_MKDIR, 1, b, 100 + n, 0, NULL, 0);
		snprintf(want, sizeof(want), "/%s", a);
		ck_assert_str_eq(path(10 + n), want);
		/* a moves into b under a new name, then trades places with b */
		apply(FSTAP_OP_RENAME, 1, a, 0, 100 + n, b, 0);
		snprintf(want, sizeof(want), "/%s/%s", b, b);
		ck_assert_str_eq(path(10 + n), want);
		apply(FSTAP_OP_RENAME, 1, b, 0, 100 + n, b, 2 /* RENAME_EXCHANGE */);
		snprintf(want, sizeof(want), "/%s", b);
		ck_assert_str_eq(path(10 + n), want);
		ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B(b)), 10 + n);
		ck_assert_uint_eq(fstap_pathmap_lookup(pm, 100 + n, B(b)), 100 + n);
		apply(FSTAP_OP_RENAME, 1, b, 0, 1, a, 0);
		ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B(a)), 10 + n);
		ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B(b)), 0);
		snprintf(want, sizeof(want), "/%s", a);
		ck_assert_str_eq(path(10 + n), want);
	}
	ck_assert_int_eq(fstap_pathmap_entry_path(pm, 1, B(""), buf, sizeof(buf)), 1);
}
END_TEST

START_TEST(test_names_readdir_second_names)
{
	struct fstap_dirent ents[3] = {
		{ .name = { (const uint8_t *)"f", 1 }, .obj = 2, .type = 8 },
		{ .name = { (const uint8_t *)"g", 1 }, .obj = 2, .type = 8 },
		{ .name = { (const uint8_t *)"s", 1 }, .obj = 5, .type = 4 },
	};
	struct fstap_rec rd = { .op = FSTAP_OP_READDIR, .obj = 1, .entries = ents, .nentries = 3 };

	apply(FSTAP_OP_MKDIR, 1, "d", 5, 0, NULL, 0);
	ck_assert_int_eq(fstap_pathmap_apply(pm, &rd), 0);
	ck_assert_str_eq(path(2), "/f");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("g")), 2);
	/* A directory listed under another name keeps its name. */
	ck_assert_str_eq(path(5), "/d");
	apply(FSTAP_OP_UNLINK, 1, "f", 0, 0, NULL, 0);
	ck_assert_str_eq(path(2), "/g");
}
END_TEST

/* One record at trace time t_ms (ms), for the tests of dead objects. */
static void at(uint64_t t_ms, unsigned op, uint64_t obj, const char *name, uint64_t child)
{
	struct fstap_rec r = { .op = (uint16_t)op, .obj = obj, .child = child,
			       .start_ns = t_ms * 1000000 };

	if (name)
		r.name = B(name);
	ck_assert_int_eq(fstap_pathmap_apply(pm, &r), 0);
}

#define GRACE_MS (FSTAP_PATHMAP_GRACE_NS / 1000000)

START_TEST(test_dead_objects_are_forgotten)
{
	const uint64_t n = 100000, first = 100;
	char name[32];
	uint64_t i, t = 0;

	/* 100k files created, closed and unlinked; every 100th one stays. */
	for (i = 0; i < n; i++, t++) {
		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		at(t, FSTAP_OP_CREATE, 1, name, first + i);
		at(t, FSTAP_OP_RELEASE, first + i, NULL, 0);
		if (i % 100)
			at(t, FSTAP_OP_UNLINK, 1, name, 0);
	}
	/* Within the grace period a dead file keeps its path (a late forget). */
	ck_assert_str_eq(path(first + n - 2), "/f99998");
	ck_assert_uint_gt(fstap_pathmap_objects(pm), n / 100);
	at(t + GRACE_MS, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), n / 100);
	ck_assert_str_eq(path(first + n - 2), "<obj:100098>");
	ck_assert_str_eq(path(first + n - 100), "/f99900");
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("f99900")), first + n - 100);
	ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B("f99901")), 0);
}
END_TEST

START_TEST(test_dead_objects_open_or_named_stay)
{
	uint64_t t = GRACE_MS + 1;

	/* A file unlinked while open stays until its release. */
	at(0, FSTAP_OP_CREATE, 1, "open", 2);
	at(0, FSTAP_OP_UNLINK, 1, "open", 0);
	/* A removed directory stays while an open, unlinked file was in it. */
	at(0, FSTAP_OP_MKDIR, 1, "d", 3);
	at(0, FSTAP_OP_LOOKUP, 3, "x", 4);
	at(0, FSTAP_OP_OPEN, 4, NULL, 0);
	at(0, FSTAP_OP_UNLINK, 3, "x", 0);
	at(0, FSTAP_OP_RMDIR, 1, "d", 0);
	/* A file that gets a name again within the grace period lives on. */
	at(0, FSTAP_OP_LOOKUP, 1, "again", 5);
	at(0, FSTAP_OP_UNLINK, 1, "again", 0);
	apply(FSTAP_OP_LINK, 5, NULL, 0, 1, "back", 0);
	at(t, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), 4);
	ck_assert_str_eq(path(2), "/open");
	ck_assert_str_eq(path(4), "/d/x");
	ck_assert_str_eq(path(5), "/back");
	at(t, FSTAP_OP_RELEASE, 2, NULL, 0);
	at(t, FSTAP_OP_RELEASE, 4, NULL, 0);
	ck_assert_str_eq(path(4), "/d/x");
	/* 2 and 4 go a grace period later, then 3, whose last name went. */
	at(2 * t, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), 2);
	ck_assert_str_eq(path(2), "<obj:2>");
	ck_assert_str_eq(path(3), "/d");
	at(3 * t, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), 1);
	ck_assert_str_eq(path(5), "/back");
	/* A release without its open (a filtered trace) changes nothing. */
	at(3 * t, FSTAP_OP_RELEASE, 5, NULL, 0);
	at(4 * t, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_str_eq(path(5), "/back");
}
END_TEST

START_TEST(test_dead_again_counts_from_the_latest_death)
{
	/* Three files die at 0; 2 is opened again and dies at half the grace period. */
	at(0, FSTAP_OP_CREATE, 1, "a", 2);
	at(0, FSTAP_OP_CREATE, 1, "b", 3);
	at(0, FSTAP_OP_CREATE, 1, "c", 4);
	at(0, FSTAP_OP_UNLINK, 1, "a", 0);
	at(0, FSTAP_OP_UNLINK, 1, "b", 0);
	at(0, FSTAP_OP_UNLINK, 1, "c", 0);
	at(0, FSTAP_OP_RELEASE, 2, NULL, 0);
	at(0, FSTAP_OP_RELEASE, 3, NULL, 0);
	at(0, FSTAP_OP_RELEASE, 4, NULL, 0);
	at(GRACE_MS / 2, FSTAP_OP_OPEN, 2, NULL, 0);
	at(GRACE_MS / 2, FSTAP_OP_RELEASE, 2, NULL, 0);
	/* the forgetting of 3 and 4 moves the nodes about; 2 keeps its place in the queue */
	at(GRACE_MS, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), 1);
	ck_assert_str_eq(path(2), "/a");
	ck_assert_str_eq(path(3), "<obj:3>");
	at(GRACE_MS + GRACE_MS / 2 - 1, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_str_eq(path(2), "/a");
	at(GRACE_MS + GRACE_MS / 2, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), 0);
	ck_assert_str_eq(path(2), "<obj:2>");
}
END_TEST

/* The deaths fstap_pathmap_on_death told, in order. */
static uint64_t deaths[64];
static size_t ndeaths;

static void on_death(void *arg, uint64_t obj)
{
	ck_assert_ptr_eq(arg, deaths);
	ck_assert_uint_lt(ndeaths, 64);
	deaths[ndeaths++] = obj;
}

/* The deaths told are exactly the n of want (out of line: want may be one past an array's end). */
static __attribute__((noinline)) void deaths_are(const uint64_t *want, size_t n)
{
	size_t i;

	ck_assert_uint_eq(ndeaths, n);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(deaths[i], want[i]);
}

/* The record at t_ms told exactly the deaths of the ids after it (none: no id). */
#define DEATHS_AT(t_ms, op, obj, name, child, ...)                                                \
	do {                                                                                     \
		const uint64_t want_[] = { 0, __VA_ARGS__ };                                      \
		ndeaths = 0;                                                                     \
		at(t_ms, op, obj, name, child);                                                  \
		deaths_are(want_ + 1, sizeof(want_) / sizeof(want_[0]) - 1);                      \
	} while (0)

START_TEST(test_death_callback)
{
	const uint64_t g = GRACE_MS;

	ndeaths = 0;
	fstap_pathmap_on_death(pm, on_death, deaths);
	/* a file closed, then unlinked: its death is the unlink's */
	DEATHS_AT(0, FSTAP_OP_CREATE, 1, "a", 2);
	DEATHS_AT(0, FSTAP_OP_RELEASE, 2, NULL, 0);
	DEATHS_AT(0, FSTAP_OP_GETATTR, 2, NULL, 0);
	DEATHS_AT(0, FSTAP_OP_UNLINK, 1, "a", 0, 2);
	/* unlinked while open: its death is the release's */
	DEATHS_AT(1, FSTAP_OP_CREATE, 1, "b", 3);
	DEATHS_AT(1, FSTAP_OP_UNLINK, 1, "b", 0);
	DEATHS_AT(1, FSTAP_OP_RELEASE, 3, NULL, 0, 3);
	/* one of two names gone: alive; the second: dead */
	DEATHS_AT(2, FSTAP_OP_CREATE, 1, "c", 4);
	DEATHS_AT(2, FSTAP_OP_RELEASE, 4, NULL, 0);
	apply(FSTAP_OP_LINK, 4, NULL, 0, 1, "c2", 0);
	DEATHS_AT(2, FSTAP_OP_UNLINK, 1, "c", 0);
	DEATHS_AT(2, FSTAP_OP_UNLINK, 1, "c2", 0, 4);
	/* opened and closed again at its death's time: no new death */
	DEATHS_AT(2, FSTAP_OP_OPEN, 4, NULL, 0);
	DEATHS_AT(2, FSTAP_OP_RELEASE, 4, NULL, 0);
	/* later, within the grace period: a death again, once */
	DEATHS_AT(3, FSTAP_OP_OPEN, 4, NULL, 0);
	DEATHS_AT(3, FSTAP_OP_RELEASE, 4, NULL, 0, 4);
	/* a removed directory with an open, unlinked file in it dies when the file is forgotten */
	DEATHS_AT(4, FSTAP_OP_MKDIR, 1, "d", 5);
	DEATHS_AT(4, FSTAP_OP_CREATE, 5, "x", 6);
	DEATHS_AT(4, FSTAP_OP_UNLINK, 5, "x", 0);
	DEATHS_AT(4, FSTAP_OP_RMDIR, 1, "d", 0);
	DEATHS_AT(5, FSTAP_OP_RELEASE, 6, NULL, 0, 6);
	ck_assert_str_eq(path(5), "/d");
	DEATHS_AT(5 + g, FSTAP_OP_GETATTR, 1, NULL, 0, 5);
	/* the living were never told; the forgetting tells no death */
	DEATHS_AT(5 + 3 * g, FSTAP_OP_GETATTR, 1, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), 0);
	DEATHS_AT(5 + 3 * g, FSTAP_OP_MKDIR, 1, "e", 7);
	DEATHS_AT(5 + 3 * g, FSTAP_OP_CREATE, 7, "y", 8);
	DEATHS_AT(5 + 3 * g, FSTAP_OP_RELEASE, 8, NULL, 0);
	DEATHS_AT(5 + 4 * g, FSTAP_OP_GETATTR, 8, NULL, 0);
	ck_assert_uint_eq(fstap_pathmap_objects(pm), 2);
	/* NULL: no more calls */
	fstap_pathmap_on_death(pm, NULL, NULL);
	DEATHS_AT(5 + 4 * g, FSTAP_OP_UNLINK, 7, "y", 0);
}
END_TEST

/* The directory of obj the way fstap_pathmap_dir_of stands for: a kind, then a parent. */
static uint64_t dir_two_lookups(uint64_t obj)
{
	if (!obj)
		return 0;
	if (fstap_pathmap_kind(pm, obj) == FSTAP_KIND_DIR)
		return obj;
	return fstap_pathmap_parent(pm, obj);
}

/* dir_of agrees with the two lookups for every id up to 20, and obj's is want. */
static void dir_is(uint64_t obj, uint64_t want, int line)
{
	uint64_t o;

	for (o = 0; o <= 20; o++)
		ck_assert_msg(fstap_pathmap_dir_of(pm, o) == dir_two_lookups(o),
			      "line %d: dir_of(%llu) %llu, two lookups %llu", line,
			      (unsigned long long)o, (unsigned long long)fstap_pathmap_dir_of(pm, o),
			      (unsigned long long)dir_two_lookups(o));
	ck_assert_msg(fstap_pathmap_dir_of(pm, obj) == want, "line %d: dir_of(%llu) %llu, not %llu",
		      line, (unsigned long long)obj,
		      (unsigned long long)fstap_pathmap_dir_of(pm, obj), (unsigned long long)want);
}
#define DIR_IS(obj, want) dir_is(obj, want, __LINE__)

/* A record at t_ms, its kinds learned first (as the reader does). */
static void learn_apply(uint64_t t_ms, unsigned op, uint64_t obj, const char *name,
			uint64_t child, uint64_t newparent, const char *newname)
{
	struct fstap_rec r = { .op = (uint16_t)op, .obj = obj, .child = child,
			       .newparent = newparent, .start_ns = t_ms * 1000000 };

	if (name)
		r.name = B(name);
	if (newname)
		r.newname = B(newname);
	ck_assert_int_eq(fstap_pathmap_learn_kind(pm, &r, NULL, NULL), 0);
	ck_assert_int_eq(fstap_pathmap_apply(pm, &r), 0);
}

static void learn_at(uint64_t t_ms, unsigned op, uint64_t obj, const char *name, uint64_t child)
{
	learn_apply(t_ms, op, obj, name, child, 0, NULL);
}

START_TEST(test_dir_of)
{
	DIR_IS(0, 0);
	DIR_IS(FSTAP_ROOT_OBJ, FSTAP_ROOT_OBJ);
	DIR_IS(9, 0);			/* unknown */
	learn_at(0, FSTAP_OP_MKDIR, 1, "d", 2);
	learn_at(0, FSTAP_OP_MKDIR, 2, "e", 3);
	learn_at(0, FSTAP_OP_CREATE, 2, "f", 4);
	learn_at(0, FSTAP_OP_RELEASE, 4, NULL, 0);
	DIR_IS(2, 2);
	DIR_IS(3, 3);
	DIR_IS(4, 2);
	/* renames: a file's directory follows, a directory stays its own */
	learn_apply(0, FSTAP_OP_RENAME, 2, "f", 0, 3, "g");
	DIR_IS(4, 3);
	learn_apply(0, FSTAP_OP_RENAME, 2, "e", 0, 1, "e");
	DIR_IS(3, 3);
	DIR_IS(4, 3);
	/* hard links: the name the path uses (a lookup through the other chooses it) */
	learn_apply(0, FSTAP_OP_LINK, 4, NULL, 0, 2, "h");
	learn_at(0, FSTAP_OP_LOOKUP, 2, "h", 4);
	DIR_IS(4, 2);
	learn_at(0, FSTAP_OP_LOOKUP, 3, "g", 4);
	DIR_IS(4, 3);
	learn_at(0, FSTAP_OP_UNLINK, 3, "g", 0);
	DIR_IS(4, 2);
	/* unlinked: dead within the grace period, then forgotten */
	learn_at(0, FSTAP_OP_UNLINK, 2, "h", 0);
	DIR_IS(4, 2);
	/* a lookup in a directory not known: both known now; an object opened, with no name */
	learn_at(0, FSTAP_OP_LOOKUP, 15, "x", 16);
	DIR_IS(16, 15);
	DIR_IS(15, 15);
	learn_at(0, FSTAP_OP_OPEN, 17, NULL, 0);
	DIR_IS(17, 0);
	learn_at(0, FSTAP_OP_RMDIR, 1, "e", 0);
	DIR_IS(3, 3);
	learn_at(2 * GRACE_MS, FSTAP_OP_GETATTR, 1, NULL, 0);
	DIR_IS(4, 0);
	DIR_IS(3, 0);
	DIR_IS(2, 2);
	DIR_IS(FSTAP_ROOT_OBJ, FSTAP_ROOT_OBJ);
}
END_TEST

/* The ids of test_obj_table_churn: dense, high ones differing in the low bits, hashed ones. */
static uint64_t churn_id(size_t i)
{
	if (i < 1500)
		return i + 2;
	if (i < 3000)
		return 0xfeed000000ull + (i - 1500);
	return (uint64_t)(i - 3000 + 1) << 24 | 7;
}

/*
 * Rounds of creates and unlinks of random ids, each round a grace period
 * after the one before (the dead forgotten, their nodes removed from the
 * object table by backward shift): every living id is found by its name,
 * every forgotten one is unknown, and the count agrees.
 */
START_TEST(test_obj_table_churn)
{
	enum { N = 4500 };
	static bool alive[N];
	char name[32];
	uint64_t seed = 5, t = 0, r;
	size_t round, i, nalive = 0;

	memset(alive, 0, sizeof(alive));
	for (round = 0; round < 24; round++) {
		t += GRACE_MS + 1;
		for (i = 0; i < N; i++) {
			r = fstap_splitmix64(&seed) % 100;
			snprintf(name, sizeof(name), "n%zu", i);
			if (!alive[i] && r < (round < 12 ? 30u : 10u)) {
				at(t, FSTAP_OP_CREATE, 1, name, churn_id(i));
				at(t, FSTAP_OP_RELEASE, churn_id(i), NULL, 0);
				alive[i] = true;
				nalive++;
			} else if (alive[i] && r >= (round < 12 ? 85u : 40u)) {
				at(t, FSTAP_OP_UNLINK, 1, name, 0);
				alive[i] = false;
				nalive--;
			}
		}
		at(t + GRACE_MS + 1, FSTAP_OP_GETATTR, 1, NULL, 0);
		ck_assert_uint_eq(fstap_pathmap_objects(pm), nalive);
		for (i = 0; i < N; i++) {
			uint64_t obj = churn_id(i);

			snprintf(name, sizeof(name), "n%zu", i);
			ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B(name)), alive[i] ? obj : 0);
			ck_assert_uint_eq(fstap_pathmap_parent(pm, obj), alive[i] ? 1 : 0);
			ck_assert_uint_eq(fstap_pathmap_dir_of(pm, obj), alive[i] ? 1 : 0);
		}
	}
}
END_TEST

/*
 * 120 ids of one home (in tables of up to 4096 slots, so whatever the
 * object table's size): one probe chain that wraps round the table; the
 * forgetting of every third, then of every other one left, shifts the
 * rest back across the wrap, and each is still found.
 */
START_TEST(test_obj_table_one_long_chain)
{
	enum { N = 120 };
	uint64_t ids[N], hi, t = 0;
	bool alive[N];
	char name[32];
	size_t n = 0, i, pass, nalive = N;

	for (hi = 1; n < N; hi++)
		if (fstap_id_home(hi << 4 | 9, 4095) == fstap_id_home(1 << 4 | 9, 4095))
			ids[n++] = hi << 4 | 9;
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "c%zu", i);
		at(t, FSTAP_OP_CREATE, 1, name, ids[i]);
		at(t, FSTAP_OP_RELEASE, ids[i], NULL, 0);
		alive[i] = true;
	}
	for (pass = 0; pass < 2; pass++) {
		size_t k = 0;

		for (i = 0; i < N; i++) {
			if (!alive[i] || k++ % (pass ? 2 : 3))
				continue;
			snprintf(name, sizeof(name), "c%zu", i);
			at(t, FSTAP_OP_UNLINK, 1, name, 0);
			alive[i] = false;
			nalive--;
		}
		t += GRACE_MS + 1;
		at(t, FSTAP_OP_GETATTR, 1, NULL, 0);
		ck_assert_uint_eq(fstap_pathmap_objects(pm), nalive);
		for (i = 0; i < N; i++) {
			snprintf(name, sizeof(name), "c%zu", i);
			ck_assert_msg(fstap_pathmap_parent(pm, ids[i]) == (alive[i] ? 1 : 0),
				      "pass %zu: id %zu", pass, i);
			ck_assert_uint_eq(fstap_pathmap_lookup(pm, 1, B(name)), alive[i] ? ids[i] : 0);
		}
	}
}
END_TEST

static void apply_rec(struct fstap_rec r)
{
	ck_assert_int_eq(fstap_pathmap_apply(pm, &r), 0);
}

/* The objects a record gave kinds to, as fstap_pathmap_learn_kind told them. */
static unsigned told[8][2], ntold;

static int tell(void *arg, uint64_t obj, enum fstap_kind kind)
{
	ck_assert_ptr_eq(arg, &ntold);
	ck_assert_uint_lt(ntold, ARRAY_SIZE(told));
	told[ntold][0] = (unsigned)obj;
	told[ntold++][1] = kind;
	return 0;
}

/* Learns rec's kinds, then applies it. */
static void learn(struct fstap_rec r)
{
	ntold = 0;
	ck_assert_int_eq(fstap_pathmap_learn_kind(pm, &r, tell, &ntold), 0);
	apply_rec(r);
}

#define ENT(n, o, t) { .name = { (const uint8_t *)(n), sizeof(n) - 1 }, .obj = (o), .type = (t) }

START_TEST(test_kinds)
{
	struct fstap_dirent ents[] = {
		ENT(".", 1, 4), ENT("r", 6, 4 /* DT_DIR */), ENT("q", 8, 4), ENT("c", 15, 2 /* DT_CHR */),
		ENT("u", 16, 0 /* DT_UNKNOWN */), ENT("w", 21, 8 /* DT_REG */),
	};
	static const unsigned listing[][2] = {
		{ 1, FSTAP_KIND_DIR }, { 6, FSTAP_KIND_DIR }, { 8, FSTAP_KIND_FILE },
		{ 15, FSTAP_KIND_DEVICE }, { 16, FSTAP_KIND_UNKNOWN }, { 21, FSTAP_KIND_FILE },
	};
	static const unsigned want[][2] = {
		{ FSTAP_ROOT_OBJ, FSTAP_KIND_DIR }, { 2, FSTAP_KIND_DIR }, { 7, FSTAP_KIND_DEVICE },
		{ 8, FSTAP_KIND_FILE }, { 3, FSTAP_KIND_DEVICE }, { 9, FSTAP_KIND_OTHER },
		{ 4, FSTAP_KIND_FILE }, { 10, FSTAP_KIND_OTHER }, { 11, FSTAP_KIND_DIR },
		{ 12, FSTAP_KIND_OTHER }, { 5, FSTAP_KIND_UNKNOWN }, { 6, FSTAP_KIND_DIR },
		{ 15, FSTAP_KIND_DEVICE }, { 16, FSTAP_KIND_UNKNOWN }, { 17, FSTAP_KIND_DIR },
		{ 18, FSTAP_KIND_DIR }, { 19, FSTAP_KIND_UNKNOWN }, { 21, FSTAP_KIND_DIR },
		{ 99, FSTAP_KIND_UNKNOWN },
	};
	struct fstap_rec r;
	size_t i;

	learn((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 2, .mode = S_IFDIR | 0755 });
	learn((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 7, .mode = S_IFBLK | 0600 });
	learn((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 8, .mode = S_IFREG | 0644 });
	learn((struct fstap_rec){ .op = FSTAP_OP_STATE_DENTRY, .obj = 1, .child = 2, .name = B("d") });
	learn((struct fstap_rec){ .op = FSTAP_OP_MKNOD, .obj = 2, .child = 3, .name = B("n"),
				  .mode = S_IFCHR | 0600 });
	learn((struct fstap_rec){ .op = FSTAP_OP_MKNOD, .obj = 2, .child = 9, .name = B("p"),
				  .mode = S_IFIFO | 0600 });
	learn((struct fstap_rec){ .op = FSTAP_OP_CREATE, .obj = 2, .child = 4, .name = B("f") });
	learn((struct fstap_rec){ .op = FSTAP_OP_SYMLINK, .obj = 2, .child = 10, .name = B("s") });
	learn((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .obj = 2, .child = 11, .name = B("m") });
	ck_assert(ntold == 2 && told[0][0] == 2 && told[1][0] == 11 && told[1][1] == FSTAP_KIND_DIR);
	/* a lookup: its directory is one, the object found is not told */
	learn((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 18, .child = 19, .name = B("x") });
	learn((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 2, .child = 12, .name = B("l") });
	ck_assert_int_eq(fstap_pathmap_kind(pm, 12), FSTAP_KIND_UNKNOWN);
	learn((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .obj = 2, .child = 5, .name = B("e"),
				  .result = -EEXIST });	/* failed: says nothing */
	ck_assert_uint_eq(ntold, 0);
	learn((struct fstap_rec){ .op = FSTAP_OP_READDIR, .obj = 1, .entries = ents,
				  .nentries = ARRAY_SIZE(ents) });
	ck_assert_uint_eq(ntold, ARRAY_SIZE(listing));
	ck_assert_mem_eq(told, listing, sizeof(listing));	/* "." is no entry */
	/* open and an entry's type say it only of an object not known */
	learn((struct fstap_rec){ .op = FSTAP_OP_OPEN, .obj = 12 });
	learn((struct fstap_rec){ .op = FSTAP_OP_OPEN, .obj = 2 });
	learn((struct fstap_rec){ .op = FSTAP_OP_OPENDIR, .obj = 17 });
	learn((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 21, .mode = S_IFDIR | 0755 });
	for (i = 0; i < ARRAY_SIZE(want); i++)
		ck_assert_msg(fstap_pathmap_kind(pm, want[i][0]) == want[i][1], "object %u: kind %d",
			      want[i][0], fstap_pathmap_kind(pm, want[i][0]));
	/* learned ahead of the record's names: the kind alone, the names later */
	r = (struct fstap_rec){ .op = FSTAP_OP_MKDIR, .obj = 2, .child = 13, .name = B("a") };
	ck_assert_int_eq(fstap_pathmap_learn_kind(pm, &r, NULL, NULL), 0);
	ck_assert_int_eq(fstap_pathmap_kind(pm, 13), FSTAP_KIND_DIR);
	ck_assert_str_eq(path(13), "<obj:13>");
	apply_rec(r);
	ck_assert_str_eq(path(13), "/d/a");
	ck_assert_int_eq(fstap_pathmap_kind(pm, 13), FSTAP_KIND_DIR);
	ck_assert_uint_eq(fstap_kind_of_mode(S_IFSOCK | 0600), FSTAP_KIND_OTHER);
	ck_assert_uint_eq(fstap_kind_of_mode(S_IFREG | 0600), FSTAP_KIND_FILE);
	ck_assert_uint_eq(fstap_kind_of_mode(S_IFIFO | 0600), FSTAP_KIND_OTHER);
}
END_TEST

/* Whether a directory is on an object's path, as the path goes. */
START_TEST(test_below)
{
	apply(FSTAP_OP_STATE_DENTRY, 1, "d", 2, 0, NULL, 0);
	apply(FSTAP_OP_MKDIR, 2, "e", 3, 0, NULL, 0);
	apply(FSTAP_OP_CREATE, 3, "f", 4, 0, NULL, 0);
	ck_assert(fstap_pathmap_below(pm, 4, 3) && fstap_pathmap_below(pm, 4, 2) &&
		  fstap_pathmap_below(pm, 4, FSTAP_ROOT_OBJ));
	ck_assert(!fstap_pathmap_below(pm, 2, 4) && !fstap_pathmap_below(pm, 2, 2));
	ck_assert(!fstap_pathmap_below(pm, 5, 2) && !fstap_pathmap_below(NULL, 4, 2));
	/* a link leaves the path; a lookup through the new name takes it */
	apply(FSTAP_OP_LINK, 4, NULL, 0, 1, "g", 0);
	ck_assert(fstap_pathmap_below(pm, 4, 3));
	apply(FSTAP_OP_LOOKUP, 1, "g", 4, 0, NULL, 0);
	ck_assert(!fstap_pathmap_below(pm, 4, 3) && fstap_pathmap_below(pm, 4, FSTAP_ROOT_OBJ));
	/* a rename moves the object, and what is below it */
	apply(FSTAP_OP_CREATE, 3, "h", 6, 0, NULL, 0);
	apply(FSTAP_OP_RENAME, 2, "e", 0, 1, "e", 0);
	ck_assert(!fstap_pathmap_below(pm, 6, 2) && fstap_pathmap_below(pm, 6, 3));
	/* names from a listing count; an unlinked last name stays the path */
	apply_rec((struct fstap_rec){ .op = FSTAP_OP_READDIR, .obj = 3, .nentries = 1,
		.entries = &(struct fstap_dirent){ .name = B("x"), .obj = 7, .type = 8 } });
	ck_assert(fstap_pathmap_below(pm, 7, 3));
	apply(FSTAP_OP_UNLINK, 3, "h", 0, 0, NULL, 0);
	ck_assert(fstap_pathmap_below(pm, 6, 3));
	/* a loop (a hostile trace) ends */
	apply(FSTAP_OP_LOOKUP, 50, "a", 51, 0, NULL, 0);
	apply(FSTAP_OP_LOOKUP, 51, "b", 50, 0, NULL, 0);
	ck_assert(!fstap_pathmap_below(pm, 50, 1));
}
END_TEST

static Suite *pathmap_suite(void)
{
	Suite *s = suite_create("pathmap");
	TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");
	TCase *names = tcase_create("SeveralNames");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_set_timeout(limits, 60);
	tcase_add_checked_fixture(names, setup, teardown);
	tcase_add_test(core, test_pathmap_names_and_renames);
	tcase_add_test(core, test_pathmap_failed_ops_and_unknown_objects);
	tcase_add_test(names, test_names_link_then_unlink_first);
	tcase_add_test(names, test_names_lookup_chooses_the_path);
	tcase_add_test(names, test_names_rename_over_one_of_several);
	tcase_add_test(names, test_names_unlink_all);
	tcase_add_test(names, test_names_initial_hard_links);
	tcase_add_test(names, test_names_rename_exchange);
	tcase_add_test(names, test_names_of_every_length);
	tcase_add_test(names, test_names_readdir_second_names);
	tcase_add_test(limits, test_pathmap_many_objects_and_loops);
	tcase_add_test(limits, test_dead_objects_are_forgotten);
	tcase_add_test(names, test_dead_objects_open_or_named_stay);
	tcase_add_test(names, test_dead_again_counts_from_the_latest_death);
	tcase_add_test(core, test_kinds);
	tcase_add_test(core, test_below);
	tcase_add_test(names, test_death_callback);
	tcase_add_test(core, test_dir_of);
	tcase_add_test(limits, test_obj_table_churn);
	tcase_add_test(limits, test_obj_table_one_long_chain);
	suite_add_tcase(s, core);
	suite_add_tcase(s, names);
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
