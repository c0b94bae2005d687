/*
 * check_output.c: safe output files: an output that is an input (the same
 * path, a hard link, a symlink, redirected standard output) is refused; a
 * commit replaces the old file whole (through a symlink: the file it names)
 * and keeps its permissions; an abort leaves the old file and no temporary;
 * a device is written as it is, never replaced.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/log.h"
#include "fstap/name.h"
#include "fstap/output.h"

static char dir[PATH_MAX], in[PATH_MAX + 8], out[PATH_MAX + 8];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static char *get(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of dir, "." and ".." left out. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += !fstap_name_dots(e->d_name, strlen(e->d_name));
	closedir(d);
	return n;
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/check_output.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	put(in, "input");
	fstap_verbosity = -1;
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_refuses_the_input)
{
	const char *inputs[] = { "/nonexistent/x", in, NULL };
	struct fstap_output *o = NULL;
	char buf[64];

	ck_assert_int_eq(fstap_output_check(in, inputs), -EEXIST);
	ck_assert_int_eq(fstap_output_open(&o, in, inputs), -EEXIST);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(link(in, out), 0);
	ck_assert_int_eq(fstap_output_open(&o, out, inputs), -EEXIST);
	ck_assert_int_eq(unlink(out), 0);
	ck_assert_int_eq(symlink("in", out), 0);
	ck_assert_int_eq(fstap_output_open(&o, out, inputs), -EEXIST);
	ck_assert_str_eq(get(in, buf, sizeof(buf)), "input");
	ck_assert_int_eq(entries(), 2);
}
END_TEST

START_TEST(test_new_output_is_not_an_input)
{
	const char *inputs[] = { in, NULL };

	ck_assert_int_eq(fstap_output_check(out, inputs), 0);
	put(out, "other");
	ck_assert_int_eq(fstap_output_check(out, inputs), 0);
	ck_assert_int_eq(fstap_output_check(out, NULL), 0);
}
END_TEST

START_TEST(test_commit_replaces_whole)
{
	const char *inputs[] = { in, NULL };
	struct fstap_output *o;
	char buf[64];
	FILE *f;

	put(out, "old");
	ck_assert_int_eq(chmod(out, 0640), 0);
	ck_assert_int_eq(fstap_output_open(&o, out, inputs), 0);
	f = fstap_output_stream(o);
	ck_assert_ptr_nonnull(f);
	fputs("new", f);
	fflush(f);
	/* until the commit, the old file is there, the new one beside it */
	ck_assert_str_eq(get(out, buf, sizeof(buf)), "old");
	ck_assert_int_eq(entries(), 3);
	ck_assert_int_eq(fstap_output_commit(o), 0);
	ck_assert_str_eq(get(out, buf, sizeof(buf)), "new");
	ck_assert_int_eq(entries(), 2);
	{
		struct stat st;

		ck_assert_int_eq(stat(out, &st), 0);
		ck_assert_int_eq(st.st_mode & 0777, 0640);
	}
}
END_TEST

START_TEST(test_commit_through_symlink_keeps_it)
{
	char target[PATH_MAX + 16], buf[64];
	struct fstap_output *o;
	struct stat st;

	snprintf(target, sizeof(target), "%s/target", dir);
	put(target, "old");
	ck_assert_int_eq(symlink("target", out), 0);
	ck_assert_int_eq(fstap_output_open(&o, out, NULL), 0);
	ck_assert_int_eq(write(fstap_output_fd(o), "new", 3), 3);
	ck_assert_int_eq(fstap_output_commit(o), 0);
	ck_assert_int_eq(lstat(out, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_str_eq(get(target, buf, sizeof(buf)), "new");
}
END_TEST

START_TEST(test_abort_keeps_old)
{
	struct fstap_output *o;
	char buf[64];

	put(out, "old");
	ck_assert_int_eq(fstap_output_open(&o, out, NULL), 0);
	ck_assert_int_eq(write(fstap_output_fd(o), "half", 4), 4);
	fstap_output_abort(o);
	ck_assert_str_eq(get(out, buf, sizeof(buf)), "old");
	ck_assert_int_eq(entries(), 2);
	fstap_output_abort(NULL);
}
END_TEST

START_TEST(test_directory_refused)
{
	struct fstap_output *o;

	ck_assert_int_eq(fstap_output_open(&o, dir, NULL), -EISDIR);
	ck_assert_ptr_null(o);
}
END_TEST

START_TEST(test_device_written_directly)
{
	struct fstap_output *o;
	struct stat st;

	ck_assert_int_eq(fstap_output_open(&o, "/dev/null", NULL), 0);
	ck_assert_int_eq(write(fstap_output_fd(o), "x", 1), 1);
	ck_assert_int_eq(fstap_output_commit(o), 0);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("Core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_refuses_the_input);
	tcase_add_test(tc, test_new_output_is_not_an_input);
	tcase_add_test(tc, test_commit_replaces_whole);
	tcase_add_test(tc, test_commit_through_symlink_keeps_it);
	tcase_add_test(tc, test_abort_keeps_old);
	tcase_add_test(tc, test_directory_refused);
	tcase_add_test(tc, test_device_written_directly);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(output_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
