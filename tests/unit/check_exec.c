/*
 * check_exec.c: the executor table. Every record type has an executor or
 * an explicit reason why it is not replayed; executors issue real system
 * calls in a temporary directory, mapping recorded handles to live ones,
 * counting unknown handles and hostile paths instead of failing.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tests/unit/fixtures.h"
#include "replay/replay_i.h"

START_TEST(test_exec_table_complete)
{
	unsigned op;

	for (op = 0; op < FSTAP_OP_NR; op++) {
		const struct fstap_op_info *oi = fstap_op_info(op);

		if (!oi && op != FSTAP_OP_NONE)
			continue;	/* not a record type */
		ck_assert_msg(rp_exec_ops[op].fn || rp_exec_ops[op].why,
			      "record type %u (%s) has no executor and no reason", op,
			      oi ? oi->name : "none");
		if (op < FSTAP_OP_META_FIRST && op != FSTAP_OP_NONE && op != FSTAP_OP_FORGET &&
		    op != FSTAP_OP_FLUSH)
			ck_assert_msg(rp_exec_ops[op].fn, "operation %s is not replayed", oi->name);
		if (op >= FSTAP_OP_META_FIRST)
			ck_assert_ptr_null(rp_exec_ops[op].fn);
	}
}
END_TEST

static char tmpl[64];
static int root_fd;
static struct rp_shared *sh;
static struct rp_exec *x;
static struct rp_stats st;
static struct rp_handles hs;	/* the dispatcher's: ex() binds each task as it would */

static void setup(void)
{
	strcpy(tmpl, "/tmp/check_exec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	root_fd = open(tmpl, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(root_fd, 0);
	rp_stats_init(&st);
	ck_assert_int_eq(rp_shared_new(root_fd, &sh), 0);
	ck_assert_int_eq(rp_exec_new(sh, &st, &x), 0);
	rp_handles_init(&hs);
	umask(0);
}

static void teardown(void)
{
	char cmd[128];

	rp_exec_free(x);
	rp_handles_release(&hs);
	rp_shared_free(sh);
	rp_stats_release(&st);
	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	ck_assert_int_eq(system(cmd), 0);
}

/* Runs one record with paths path (and path2). */
static int64_t ex(struct fstap_rec r, const char *path, const char *path2)
{
	struct rp_task t = { .rec = r, .path = path, .path2 = path2 };

	ck_assert_int_eq(rp_handles_bind(&hs, &t), 0);
	return rp_exec_run(x, &t);
}

/* The directory cache is shared: two workers open a directory once per generation. */
START_TEST(test_exec_dircache_shared)
{
	struct rp_exec *x2;
	struct rp_task t = { .rec = { .op = FSTAP_OP_MKDIR, .obj = 1, .name = B("d"), .mode = 0777 },
			     .path = "/" };
	unsigned i;

	ck_assert_int_eq(rp_exec_run(x, &t), 0);
	ck_assert_int_eq(rp_exec_new(sh, &st, &x2), 0);
	for (i = 0; i < 4; i++) {
		t = (struct rp_task){ .rec = { .op = FSTAP_OP_MKDIR, .obj = 2, .mode = 0777,
					       .name = B(i % 2 ? "b" : "a") }, .path = "/d" };
		if (i < 2)
			ck_assert_int_eq(rp_exec_run(i % 2 ? x2 : x, &t), 0);
		t = (struct rp_task){ .rec = { .op = FSTAP_OP_LOOKUP, .obj = 2, .name = B("a") },
				      .path = "/d" };
		ck_assert_int_eq(rp_exec_run(i % 2 ? x2 : x, &t), 0);
	}
	ck_assert_uint_eq(rp_shared_dir_opens(sh), 1);
	/* a newer generation (an rmdir or a directory rename) opens it again */
	t.ns_gen = 1;
	ck_assert_int_eq(rp_exec_run(x2, &t), 0);
	ck_assert_int_eq(rp_exec_run(x, &t), 0);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), 2);
	/* a task of the older generation still in flight: its own descriptor */
	t.ns_gen = 0;
	ck_assert_int_eq(rp_exec_run(x, &t), 0);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), 3);
	/* rename between two directories: both held during the call */
	t = (struct rp_task){ .rec = { .op = FSTAP_OP_RENAME, .obj = 2, .name = B("b"),
				       .newparent = 3, .newname = B("c") },
			      .path = "/d", .path2 = "/d/a", .ns_gen = 1 };
	ck_assert_int_eq(rp_exec_run(x2, &t), 0);
	rp_exec_free(x2);
}
END_TEST

/* Runs a lookup of "x" in dir at generation gen. */
static void lookup_in(const char *dir, uint32_t gen)
{
	struct rp_task t = { .rec = { .op = FSTAP_OP_LOOKUP, .obj = 2, .name = B("x"),
				      .result = -ENOENT }, .path = dir, .ns_gen = gen };

	ck_assert_int_eq(rp_exec_run(x, &t), -ENOENT);
}

/* A namespace change drops the entries at and below the paths it lists, only. */
START_TEST(test_exec_dircache_ns_change)
{
	static const char *const dirs[] = { "/d", "/d/a", "/d/a/s", "/d/ab", "/e" };
	char p[300];
	unsigned i;
	uint64_t n;

	for (i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "%s%s", tmpl, dirs[i]);
		ck_assert_int_eq(mkdir(p, 0755), 0);
	}
	for (i = 0; i < 5; i++)
		lookup_in(dirs[i], 0);
	n = rp_shared_dir_opens(sh);
	ck_assert_uint_eq(n, 5);
	for (i = 0; i < 5; i++)
		lookup_in(dirs[i], 0);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n);		/* all cached */

	/* generation 1: "/d/a" removed or moved (not "/d/ab", a sibling) */
	rp_shared_ns_change(sh, 1, "/d/a");
	for (i = 0; i < 5; i++)
		lookup_in(dirs[i], 1);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n + 2);	/* /d/a and /d/a/s */
	n += 2;
	/* a task of generation 0 run late (its worker behind) finds the
	 * directories the change kept, and opens its own "/d/a" */
	lookup_in("/d/ab", 0);
	lookup_in("/e", 0);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n);
	lookup_in("/d/a", 0);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n + 1);
	n++;
	/* ...which serves its generation's next tasks, not generation 1's */
	lookup_in("/d/a", 0);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n);
	lookup_in("/d/a", 1);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n);	/* generation 1's own, kept */
	/* generation 2: a rename of "/e" over "/d" lists both */
	rp_shared_ns_change(sh, 2, "/e");
	rp_shared_ns_change(sh, 2, "/d");
	lookup_in("/d/ab", 2);
	lookup_in("/d", 2);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n + 2);
	n += 2;
	/* generations 3 and 4, only 4 listed: 3 is unknown, everything goes */
	rp_shared_ns_change(sh, 4, "/d/a");
	lookup_in("/d/ab", 4);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n + 1);
	n++;
	/* a change of unknown path: everything goes */
	rp_shared_ns_change(sh, 5, NULL);
	lookup_in("/d/ab", 5);
	lookup_in("/d/ab", 5);
	ck_assert_uint_eq(rp_shared_dir_opens(sh), n + 1);
}
END_TEST

START_TEST(test_exec_file_lifecycle)
{
	char p[128];
	struct stat s;
	char v[64];

	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .obj = 1, .name = B("d"),
						.mode = 0777, .umask = 022 }, "/", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_CREATE, .obj = 2, .name = B("f"),
						.mode = 0100666, .umask = 022, .fh = 7,
						.flags_arg = O_RDWR | O_CREAT | O_EXCL }, "/d", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_WRITE, .fh = 7, .offset = 4096,
						.size = 8192, .result = 8192 }, NULL, NULL), 8192);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_READ, .fh = 7, .offset = 0,
						.size = 65536, .result = 12288 }, NULL, NULL), 12288);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_FSYNC, .fh = 7 }, NULL, NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_SETATTR, .valid = FSTAP_SET_MODE,
						.mode = 0600 }, "/d/f", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_SETXATTR, .name = B("user.x"),
						.size = 12 }, "/d/f", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_GETXATTR, .name = B("user.x"),
						.size = 0, .result = 12 }, "/d/f", NULL), 12);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .fh = 7 }, NULL, NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_RENAME, .obj = 2, .name = B("f"),
						.newparent = 1, .newname = B("g") }, "/d", "/"), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_SYMLINK, .obj = 1, .name = B("s"),
						.target = B("/etc/passwd") }, "/", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_READLINK,
						.target = B("/etc/passwd") }, "/s", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 2, .name = B("f"),
						.result = -ENOENT }, "/d", NULL), -ENOENT);
	ck_assert_uint_eq(st.divergences, 0);

	snprintf(p, sizeof(p), "%s/g", tmpl);
	ck_assert_int_eq(stat(p, &s), 0);
	ck_assert_uint_eq(s.st_size, 12288);
	ck_assert_uint_eq(s.st_mode, 0100600);
	ck_assert_int_eq(getxattr(p, "user.x", v, sizeof(v)), 12);
	snprintf(p, sizeof(p), "%s/d", tmpl);
	ck_assert_int_eq(stat(p, &s), 0);
	ck_assert_uint_eq(s.st_mode, 040755);
	ck_assert_uint_eq(rp_handles_open(&hs), 0);
	ck_assert_uint_eq(st.op[FSTAP_OP_WRITE].bytes, 8192);
}
END_TEST

/* setxattr writes the recorded value exactly; without one, pseudo-random bytes of its size. */
START_TEST(test_exec_setxattr_value)
{
	static const uint8_t val[] = { 0x02, 0x00, 0x00, 0xff, 'a', 0x00, 'b' };
	uint8_t got[64], zero[16] = { 0 };
	char p[128];

	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .obj = 1, .name = B("x"),
						.mode = 0755 }, "/", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_SETXATTR, .name = B("user.v"),
						.size = sizeof(val),
						.value = { val, sizeof(val) } }, "/x", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_SETXATTR, .name = B("user.r"),
						.size = 16 }, "/x", NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_SETXATTR, .name = B("user.e") },
			    "/x", NULL), 0);
	ck_assert_uint_eq(st.divergences, 0);
	snprintf(p, sizeof(p), "%s/x", tmpl);
	ck_assert_int_eq(getxattr(p, "user.v", got, sizeof(got)), sizeof(val));
	ck_assert_mem_eq(got, val, sizeof(val));
	ck_assert_int_eq(getxattr(p, "user.r", got, sizeof(got)), 16);
	ck_assert(memcmp(got, zero, 16) != 0);
	ck_assert_int_eq(getxattr(p, "user.e", got, sizeof(got)), 0);
}
END_TEST

/*
 * listxattr on a target that lists a copy of its own (xfs's
 * trusted.SGI_ACL_FILE, made here by hand) gives the recorded length when
 * only that name is in excess; any other difference is a divergence.
 */
START_TEST(test_exec_listxattr_fs_own_names)
{
	char p[128];

	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .obj = 1, .name = B("l"),
						.mode = 0755 }, "/", NULL), 0);
	snprintf(p, sizeof(p), "%s/l", tmpl);
	ck_assert_int_eq(setxattr(p, "user.a", "1", 1, 0), 0);
	if (setxattr(p, "trusted.SGI_ACL_FILE", "x", 1, 0))
		return;		/* trusted.* needs CAP_SYS_ADMIN */
	/* the list is "trusted.SGI_ACL_FILE\0user.a\0": 28 bytes, 7 the application's */
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_LISTXATTR, .result = 7 }, "/l", NULL),
			 7);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_LISTXATTR, .size = 7, .result = 7 },
			    "/l", NULL), 7);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_LISTXATTR, .result = 28 }, "/l", NULL),
			 28);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_LISTXATTR, .size = 4,
						.result = -ERANGE }, "/l", NULL), -ERANGE);
	ck_assert_uint_eq(st.divergences, 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_LISTXATTR, .result = 5 }, "/l", NULL),
			 28);	/* the target's own result */
	ck_assert_uint_eq(st.divergences, 1);
}
END_TEST

START_TEST(test_exec_readdir_entries)
{
	struct fstap_dirent e[3] = { { .name = { (const uint8_t *)".", 1 } },
				     { .name = { (const uint8_t *)"a", 1 } },
				     { .name = { (const uint8_t *)"b", 1 } } };
	char p[128];

	snprintf(p, sizeof(p), "%s/a", tmpl);
	close(open(p, O_CREAT | O_WRONLY, 0644));
	snprintf(p, sizeof(p), "%s/b", tmpl);
	close(open(p, O_CREAT | O_WRONLY, 0644));
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_OPENDIR, .obj = 1, .fh = 3 }, "/",
			    NULL), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_READDIR, .fh = 3, .nentries = 3,
						.entries = e, .result = 3 }, NULL, NULL), 3);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_READDIR, .fh = 3, .offset = 3 },
			    NULL, NULL), 0);
	ck_assert_uint_eq(st.divergences, 0);
	/* Rewind: a listing that misses "b" differs. */
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_READDIR, .fh = 3, .nentries = 2,
						.entries = e, .result = 2 }, NULL, NULL), 2);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_READDIR, .fh = 3, .offset = 2 },
			    NULL, NULL), 0);
	ck_assert_uint_eq(st.divergences, 1);
	ck_assert_uint_eq(st.div[0].kind, RP_DIV_ENTRIES);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_RELEASEDIR, .fh = 3 }, NULL, NULL), 0);
}
END_TEST

START_TEST(test_exec_unknown_and_hostile)
{
	char out[128];
	struct stat s;

	/* Unknown handles and objects: counted, never fatal. */
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_READ, .fh = 99, .size = 10 }, NULL,
			    NULL), RP_E_UNKNOWN);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_GETATTR }, NULL, NULL), RP_E_UNKNOWN);
	/* Hostile names and paths: refused. */
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .name = B(".."), .mode = 0755 },
			    "/", NULL), RP_E_REFUSED);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .name = B("a/../../x"),
						.mode = 0755 }, "/", NULL), RP_E_REFUSED);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_UNLINK, .name = B("x") },
			    "/../..", NULL), RP_E_REFUSED);
	/* A symlink to / inside the target: resolving through it is refused. */
	snprintf(out, sizeof(out), "%s/escape", tmpl);
	ck_assert_int_eq(symlink("/", out), 0);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_MKDIR, .name = B("fstap-escaped"),
						.mode = 0755 }, "/escape/tmp", NULL), RP_E_REFUSED);
	ck_assert_int_ne(stat("/tmp/fstap-escaped", &s), 0);
	/* Operations on the symlink itself do not follow it. */
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_OPEN, .fh = 5 }, "/escape", NULL),
			 -ELOOP);
	ck_assert_int_eq(ex((struct fstap_rec){ .op = FSTAP_OP_SETATTR, .valid = FSTAP_SET_SIZE }, "/escape",
			    NULL), -ELOOP);
	ck_assert_uint_eq(st.divergences, 8);
}
END_TEST

static Suite *exec_suite(void)
{
	Suite *s = suite_create("exec");
	TCase *tc = tcase_create("Core"), *sys = tcase_create("Syscalls");

	tcase_add_test(tc, test_exec_table_complete);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(sys, setup, teardown);
	tcase_add_test(sys, test_exec_dircache_shared);
	tcase_add_test(sys, test_exec_dircache_ns_change);
	tcase_add_test(sys, test_exec_file_lifecycle);
	tcase_add_test(sys, test_exec_setxattr_value);
	tcase_add_test(sys, test_exec_listxattr_fs_own_names);
	tcase_add_test(sys, test_exec_readdir_entries);
	tcase_add_test(sys, test_exec_unknown_and_hostile);
	suite_add_tcase(s, sys);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(exec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
