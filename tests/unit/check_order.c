/*
 * check_order.c: the access order analysis (src/analysis/order.c): which
 * listing a process's opens are related to (its own latest listing, else
 * the directory's latest listing by any process), and the rows it gives,
 * against cases worked out by hand.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"

#define DIR 2

static char names[8][4];

/* File k of DIR: object 100 + k, name "n<k>", d_ino 1000 + k. */
static uint64_t file(unsigned k)
{
	return 100 + k;
}

/* pid lists DIR on handle fh from offset: the entries keys[0..n). */
static void list(struct an_access *o, struct an_objtab *objs, uint32_t pid, uint64_t fh,
		 uint64_t offset, const unsigned *keys, unsigned n)
{
	struct fstap_dirent ents[8];
	struct fstap_rec rec;
	unsigned i;

	memset(&rec, 0, sizeof(rec));
	for (i = 0; i < n; i++) {
		snprintf(names[keys[i]], sizeof(names[0]), "n%u", keys[i]);
		ents[i].name.ptr = (const uint8_t *)names[keys[i]];
		ents[i].name.len = (uint32_t)strlen(names[keys[i]]);
		ents[i].obj = file(keys[i]);
		ents[i].ino = 1000 + keys[i];
		ents[i].type = 8;
	}
	rec.op = FSTAP_OP_READDIR;
	rec.pid = rec.tid = pid;
	rec.obj = DIR;
	rec.fh = fh;
	rec.offset = offset;
	rec.entries = ents;
	rec.nentries = n;
	ck_assert_int_eq(an_access_listing(o, &rec, objs), 0);
}

static void open_all(struct an_access *o, uint32_t pid, const unsigned *keys, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(an_access_open(o, pid, DIR, file(keys[i])), 0);
}

struct fixture {
	struct an_access *o;
	struct an_objtab *objs;
	const struct an_access_row *rows;
	size_t n;
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	ck_assert_int_eq(an_access_new(&f->o), 0);
	ck_assert_int_eq(an_objtab_new(&f->objs), 0);
}

static void finish(struct fixture *f)
{
	ck_assert_int_eq(an_access_finish(f->o, &f->rows, &f->n), 0);
}

static void teardown(struct fixture *f)
{
	an_access_free(f->o);
	an_objtab_free(f->objs);
}

static const struct an_access_row *row_of(struct fixture *f, uint32_t lister, uint32_t reader,
					  size_t files)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->rows[i].lister == lister && f->rows[i].readers[0] == reader &&
		    f->rows[i].files == files)
			return &f->rows[i];
	ck_abort_msg("no row listed by %u, read by %u, %zu files", lister, reader, files);
	return NULL;
}

static const unsigned hashed[] = { 3, 1, 2, 0 }, by_name[] = { 0, 1, 2, 3 };
static const unsigned reverse[] = { 3, 2, 1, 0 };

START_TEST(test_order_own_listing)
{
	struct fixture f;
	const struct an_access_row *r;

	setup(&f);
	list(f.o, f.objs, 10, 5, 0, hashed, 4);
	open_all(f.o, 10, hashed, 4);
	finish(&f);
	ck_assert_uint_eq(f.n, 1);
	r = row_of(&f, 10, 10, 4);
	ck_assert_uint_eq(r->nreaders, 1);
	ck_assert_uint_eq(r->dir, DIR);
	ck_assert_uint_eq(r->listed, 4);
	ck_assert(r->rho[AN_ORD_READDIR] == 1.0);
	/* positions by name of the opened 3,1,2,0 are 3,1,2,0: d^2 = 18, 1 - 108/60 */
	ck_assert(fabs(r->rho[AN_ORD_NAME] + 0.8) < 1e-9);
	ck_assert(fabs(r->rho[AN_ORD_INODE] + 0.8) < 1e-9);
	teardown(&f);
}
END_TEST

START_TEST(test_order_other_process_reads_latest_listing)
{
	struct fixture f;
	const struct an_access_row *r;

	setup(&f);
	list(f.o, f.objs, 10, 5, 0, hashed, 4);		/* find */
	open_all(f.o, 20, by_name, 4);			/* sort | xargs cat */
	finish(&f);
	ck_assert_uint_eq(f.n, 1);			/* the lister opened nothing: no row */
	r = row_of(&f, 10, 20, 4);
	ck_assert_uint_eq(r->nreaders, 1);
	ck_assert(r->rho[AN_ORD_NAME] == 1.0);
	ck_assert(r->rho[AN_ORD_INODE] == 1.0);
	ck_assert(fabs(r->rho[AN_ORD_READDIR] + 0.8) < 1e-9);
	teardown(&f);
}
END_TEST

START_TEST(test_order_readers_share_a_reading)
{
	struct fixture f;
	const struct an_access_row *r;

	setup(&f);
	list(f.o, f.objs, 10, 5, 0, hashed, 4);		/* find */
	open_all(f.o, 20, by_name, 2);			/* xargs -n 2 cat: two cat processes */
	open_all(f.o, 21, by_name + 2, 2);
	finish(&f);
	ck_assert_uint_eq(f.n, 1);
	r = row_of(&f, 10, 20, 4);
	ck_assert_uint_eq(r->nreaders, 2);
	ck_assert_uint_eq(r->readers[1], 21);
	ck_assert(r->rho[AN_ORD_NAME] == 1.0);
	teardown(&f);
}
END_TEST

START_TEST(test_order_own_listing_first)
{
	struct fixture f;
	const struct an_access_row *r;

	setup(&f);
	list(f.o, f.objs, 10, 5, 0, by_name, 4);
	list(f.o, f.objs, 20, 6, 0, reverse, 4);	/* the latest listing, by another */
	open_all(f.o, 10, by_name, 4);
	finish(&f);
	ck_assert_uint_eq(f.n, 1);
	r = row_of(&f, 10, 10, 4);
	ck_assert(r->rho[AN_ORD_READDIR] == 1.0);	/* its own listing, not the reverse */
	teardown(&f);
}
END_TEST

START_TEST(test_order_listed_again)
{
	struct fixture f;
	const struct an_access_row *r;
	const unsigned first[] = { 0, 1, 2 }, second[] = { 3, 2, 1 };

	setup(&f);
	list(f.o, f.objs, 10, 5, 0, by_name, 4);
	open_all(f.o, 20, first, 3);
	list(f.o, f.objs, 10, 7, 0, reverse, 4);
	open_all(f.o, 20, second, 3);			/* 2 and 1 again: first opens of this reading */
	finish(&f);
	ck_assert_uint_eq(f.n, 2);
	ck_assert(f.rows[0].rho[AN_ORD_READDIR] == 1.0);
	ck_assert(f.rows[1].rho[AN_ORD_READDIR] == 1.0);
	ck_assert(f.rows[0].rho[AN_ORD_NAME] == 1.0 || f.rows[1].rho[AN_ORD_NAME] == 1.0);
	ck_assert(f.rows[0].rho[AN_ORD_NAME] == -1.0 || f.rows[1].rho[AN_ORD_NAME] == -1.0);
	r = row_of(&f, 10, 20, 3);
	ck_assert_uint_eq(r->listed, 4);
	teardown(&f);
}
END_TEST

START_TEST(test_order_what_counts)
{
	struct fixture f;
	const struct an_access_row *r;
	const unsigned head[] = { 3, 1 }, tail[] = { 2, 0 }, twice[] = { 1, 3, 1, 2, 3, 0 };

	setup(&f);
	/* nothing listed yet: these opens relate to nothing */
	open_all(f.o, 20, by_name, 4);
	/* one listing over two readdir calls on one handle */
	list(f.o, f.objs, 10, 5, 0, head, 2);
	list(f.o, f.objs, 10, 5, 2, tail, 2);
	/* an entry that was not listed, and second opens, do not count */
	ck_assert_int_eq(an_access_open(f.o, 20, DIR, file(7)), 0);
	open_all(f.o, 20, twice, 6);
	finish(&f);
	ck_assert_uint_eq(f.n, 1);
	r = row_of(&f, 10, 20, 4);
	ck_assert_uint_eq(r->listed, 4);
	/* first opens 1, 3, 2, 0 at listing positions 1, 0, 2, 3: d^2 = 2, 1 - 12/60 */
	ck_assert(fabs(r->rho[AN_ORD_READDIR] - 0.8) < 1e-9);
	teardown(&f);
}
END_TEST

START_TEST(test_order_forget_dir)
{
	struct fixture f;

	setup(&f);
	ck_assert_int_eq(an_access_forget(f.o, DIR), 0);
	list(f.o, f.objs, 10, 5, 0, hashed, 4);
	open_all(f.o, 10, hashed, 4);
	/* a directory gone for good: its reading ends, a row at once */
	ck_assert_int_eq(an_access_forget(f.o, DIR), 1);
	ck_assert_int_eq(an_access_forget(f.o, DIR), 0);
	open_all(f.o, 10, hashed, 4);
	finish(&f);
	ck_assert_uint_eq(f.n, 1);
	ck_assert(row_of(&f, 10, 10, 4)->rho[AN_ORD_READDIR] == 1.0);
	teardown(&f);
}
END_TEST

static Suite *order_suite(void)
{
	Suite *s = suite_create("order");
	TCase *core = tcase_create("Core");

	tcase_add_test(core, test_order_own_listing);
	tcase_add_test(core, test_order_other_process_reads_latest_listing);
	tcase_add_test(core, test_order_readers_share_a_reading);
	tcase_add_test(core, test_order_own_listing_first);
	tcase_add_test(core, test_order_listed_again);
	tcase_add_test(core, test_order_what_counts);
	tcase_add_test(core, test_order_forget_dir);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(order_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
