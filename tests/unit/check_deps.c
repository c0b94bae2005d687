/*
 * check_deps.c: deps.c's --order=resource, on a run of workers that never
 * start: an op that reads a resource waits for its latest writer only, so
 * two threads' reads of one file overlap; an op that changes it waits for
 * the writer and for every reader since; a worker's own earlier ops are
 * never waited for; past RES_READERS readers one more waits for them and
 * stands for them; a released handle's state is gone (and freed: the
 * sanitizer build checks). And what rp_resources makes of records, on a
 * real pathmap: threads that open, read and close one file wait for none
 * of each other's reads; a rename over a file waits for the opens of it
 * by its path, not for the reads of the threads that have it open, and
 * those read on; an open that truncates waits for the readers; two
 * listings of a directory overlap.
 */
#include <check.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fstap/ops.h"
#include "fstap/pathmap.h"
#include "replay/run_i.h"
#include "tests/unit/fixtures.h"

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
	ck_assert_int_eq(fstap_pathmap_new(&r.pm), 0);
}

static void teardown(void)
{
	unsigned i;

	rp_deps_release(&r);
	fstap_pathmap_free(r.pm);
	for (i = 0; i < NW; i++)
		free(workers[i].known);
}

/* Worker w dispatches t; what it waits for, as "worker:wseq" pairs separated by spaces, in want. */
static void dispatch_task(unsigned w, struct rp_task *t, const char *want)
{
	char got[256] = "";
	uint32_t i;

	t->deps = t->dep_inline;
	t->capdeps = RP_TASK_MAX_RES;
	ck_assert_int_eq(rp_deps_resource(&r, t, &workers[w]), 0);
	workers[w].wseq++;
	for (i = 0; i < t->ndeps; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u:%lu", i ? " " : "",
			 t->deps[i].w->idx, (unsigned long)t->deps[i].wseq);
	if (t->deps != t->dep_inline)
		free(t->deps);
	ck_assert_str_eq(got, want);
}

/* Worker w dispatches an op of type op that reads (or changes) the resource res. */
static void dispatch(unsigned w, unsigned op, uint64_t res, bool change, const char *want)
{
	struct rp_task t;

	memset(&t, 0, sizeof(t));
	t.rec.op = (uint16_t)op;
	t.res[t.nres++] = res;
	t.res_changes = change;
	dispatch_task(w, &t, want);
}

/*
 * Worker w dispatches the record of op on obj (fh: its handle, 0 none;
 * name, child, newparent, newname: an entry's), its resources from
 * rp_resources; then the pathmap learns from it.
 */
static void dispatch_rec(unsigned w, unsigned op, uint64_t obj, uint64_t fh, const char *name,
			 uint64_t child, uint64_t newparent, const char *newname, uint64_t flags,
			 const char *want)
{
	struct rp_task t;

	memset(&t, 0, sizeof(t));
	t.rec = (struct fstap_rec){ .op = (uint16_t)op, .obj = obj, .fh = fh, .child = child,
				    .newparent = newparent, .flags_arg = flags };
	if (name)
		t.rec.name = B(name);
	if (newname)
		t.rec.newname = B(newname);
	rp_resources(&r, &t);
	dispatch_task(w, &t, want);
	ck_assert_int_eq(fstap_pathmap_learn_kind(r.pm, &t.rec, NULL, NULL), 0);
	ck_assert_int_eq(fstap_pathmap_apply(r.pm, &t.rec), 0);
}

/* The initial state: obj named name in dir, of mode. */
static void state(uint64_t dir, const char *name, uint64_t obj, uint64_t mode)
{
	struct fstap_rec e = { .op = FSTAP_OP_STATE_DENTRY, .obj = dir, .name = B(name),
			       .child = obj };
	struct fstap_rec i = { .op = FSTAP_OP_STATE_INODE, .obj = obj, .mode = mode };

	ck_assert_int_eq(fstap_pathmap_apply(r.pm, &e), 0);
	ck_assert_int_eq(fstap_pathmap_learn_kind(r.pm, &i, NULL, NULL), 0);
	ck_assert_int_eq(fstap_pathmap_apply(r.pm, &i), 0);
}

#define FILE_A 100	/* resources: any key but 0 */
#define FILE_B 104
#define HANDLE 106

START_TEST(test_deps_readers_overlap)
{
	dispatch(0, FSTAP_OP_WRITE, FILE_A, true, "");
	/* two readers wait for the write, not for each other */
	dispatch(1, FSTAP_OP_READ, FILE_A, false, "0:1");
	dispatch(2, FSTAP_OP_GETATTR, FILE_A, false, "0:1");
	dispatch(1, FSTAP_OP_READ, FILE_A, false, "");		/* known: 1 waits for 0:1 already */
	/* a writer waits for both readers: worker 1's latest read */
	dispatch(3, FSTAP_OP_SETATTR, FILE_A, true, "0:1 1:2 2:1");
	/* and the next reader for that writer alone */
	dispatch(2, FSTAP_OP_READ, FILE_A, false, "3:1");
	/* another file is another resource */
	dispatch(4, FSTAP_OP_READ, FILE_B, false, "");
	dispatch(5, FSTAP_OP_WRITE, FILE_B, true, "4:1");
}
END_TEST

START_TEST(test_deps_own_worker)
{
	/* one worker's reads and writes wait for nothing: it runs them in order */
	dispatch(0, FSTAP_OP_READ, FILE_A, false, "");
	dispatch(0, FSTAP_OP_WRITE, FILE_A, true, "");
	dispatch(0, FSTAP_OP_READ, FILE_A, false, "");
	/* a lone reader stands as the writer: the next reader waits for it */
	dispatch(1, FSTAP_OP_READ, FILE_A, false, "0:3");
	dispatch(2, FSTAP_OP_READ, FILE_A, false, "0:3");
	dispatch(0, FSTAP_OP_WRITE, FILE_A, true, "1:1 2:1");
}
END_TEST

START_TEST(test_deps_many_readers)
{
	dispatch(0, FSTAP_OP_WRITE, FILE_A, true, "");
	dispatch(1, FSTAP_OP_READ, FILE_A, false, "0:1");
	dispatch(2, FSTAP_OP_READ, FILE_A, false, "0:1");
	dispatch(3, FSTAP_OP_READ, FILE_A, false, "0:1");
	/* past RES_READERS: the next waits for those kept, and stands for them */
	dispatch(4, FSTAP_OP_READ, FILE_A, false, "0:1 1:1 2:1 3:1");
	dispatch(5, FSTAP_OP_READ, FILE_A, false, "0:1");
	dispatch(1, FSTAP_OP_WRITE, FILE_A, true, "4:1 5:1");
}
END_TEST

START_TEST(test_deps_handle_released)
{
	dispatch(0, FSTAP_OP_OPEN, HANDLE, true, "");
	dispatch(1, FSTAP_OP_READ, HANDLE, false, "0:1");
	dispatch(2, FSTAP_OP_READ, HANDLE, false, "0:1");
	dispatch(0, FSTAP_OP_RELEASE, HANDLE, true, "1:1 2:1");
	ck_assert_ptr_null(fstap_map_get(&r.res_last, HANDLE));
	/* the same number opened again starts afresh */
	dispatch(3, FSTAP_OP_OPEN, HANDLE, true, "");
}
END_TEST

#define ROOT 1
#define DB 2		/* a directory */
#define TABLE 3		/* DB/t.glass, a regular file */
#define TABLE_NEW 4	/* DB/t.new, made by the writer */
#define NONE NULL, 0, 0, NULL	/* no entry */

/* Two readers that open, read and close one file wait for none of each other's reads. */
START_TEST(test_deps_open_read_close_overlap)
{
	state(ROOT, "db", DB, S_IFDIR | 0755);
	state(DB, "t.glass", TABLE, S_IFREG | 0644);
	dispatch_rec(1, FSTAP_OP_OPEN, TABLE, 10, NONE, O_RDONLY, "");
	dispatch_rec(2, FSTAP_OP_OPEN, TABLE, 11, NONE, O_RDONLY, "1:1");	/* the first reader stands as writer */
	dispatch_rec(1, FSTAP_OP_READ, TABLE, 10, NONE, 0, "");
	dispatch_rec(2, FSTAP_OP_READ, TABLE, 11, NONE, 0, "");
	dispatch_rec(1, FSTAP_OP_RELEASE, TABLE, 10, NONE, 0, "");
	dispatch_rec(2, FSTAP_OP_RELEASE, TABLE, 11, NONE, 0, "");
	dispatch_rec(1, FSTAP_OP_OPEN, TABLE, 12, NONE, O_RDONLY, "");
	dispatch_rec(1, FSTAP_OP_READ, TABLE, 12, NONE, 0, "");
	/* an open that truncates changes the file: it waits for the readers */
	dispatch_rec(3, FSTAP_OP_OPEN, TABLE, 13, NONE, O_WRONLY | O_TRUNC, "1:1 2:3 1:5");
	/* two listings of one directory overlap; a create in it waits for both */
	dispatch_rec(4, FSTAP_OP_OPENDIR, DB, 20, NONE, 0, "");
	dispatch_rec(5, FSTAP_OP_OPENDIR, DB, 21, NONE, 0, "4:1");	/* the first reader stands as writer */
	dispatch_rec(4, FSTAP_OP_READDIR, DB, 20, NONE, 0, "");
	dispatch_rec(5, FSTAP_OP_READDIR, DB, 21, NONE, 0, "");
	dispatch_rec(0, FSTAP_OP_CREATE, DB, 22, "new", TABLE_NEW, 0, NULL, O_WRONLY, "4:1 5:2 4:2");
}
END_TEST

/* An update by rename: the readers of the old version are not waited for, nor wait. */
START_TEST(test_deps_rename_over_open_file)
{
	state(ROOT, "db", DB, S_IFDIR | 0755);
	state(DB, "t.glass", TABLE, S_IFREG | 0644);
	dispatch_rec(1, FSTAP_OP_OPEN, TABLE, 10, NONE, O_RDONLY, "");
	dispatch_rec(1, FSTAP_OP_READ, TABLE, 10, NONE, 0, "");
	dispatch_rec(0, FSTAP_OP_CREATE, DB, 11, "t.new", TABLE_NEW, 0, NULL, O_WRONLY, "");
	dispatch_rec(0, FSTAP_OP_WRITE, TABLE_NEW, 11, NONE, 0, "");
	dispatch_rec(0, FSTAP_OP_RELEASE, TABLE_NEW, 11, NONE, 0, "");
	/* the rename waits for the open of t.glass by its path, not for the read */
	dispatch_rec(0, FSTAP_OP_RENAME, DB, 0, "t.new", 0, DB, "t.glass", 0, "1:1");
	/* the reader reads on from the old version, not after the rename */
	dispatch_rec(1, FSTAP_OP_READ, TABLE, 10, NONE, 0, "");
	dispatch_rec(1, FSTAP_OP_RELEASE, TABLE, 10, NONE, 0, "");
	/* an open of the path now reaches the new version: after the rename */
	dispatch_rec(1, FSTAP_OP_OPEN, TABLE_NEW, 12, NONE, O_RDONLY, "0:3 0:4");
	/* an unlink of the file waits for the rename of its directory's entry
	 * and the open by its path, not for worker 2's read through a handle */
	dispatch_rec(2, FSTAP_OP_READ, TABLE_NEW, 12, NONE, 0, "0:3 1:5");
	dispatch_rec(3, FSTAP_OP_UNLINK, DB, 0, "t.glass", 0, 0, NULL, 0, "0:4 1:5");
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
	tcase_add_test(tc, test_deps_open_read_close_overlap);
	tcase_add_test(tc, test_deps_rename_over_open_file);
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
