/*
 * check_name.c: the one name and path check: lengths at NAME_MAX and
 * PATH_MAX and one past, ".", "..", '/', NUL, empty components, trailing
 * slashes, relative paths; and the one test of "." and "..".
 */
#include <check.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/name.h"

static bool name_ok(const char *s, size_t len)
{
	struct fstap_bytes b = { (const uint8_t *)s, (uint32_t)len };

	return fstap_name_valid(b);
}

START_TEST(names)
{
	static char buf[NAME_MAX + 2];

	ck_assert(name_ok("a", 1));
	ck_assert(name_ok("...", 3));
	ck_assert(name_ok(".a", 2));
	ck_assert(name_ok("..a", 3));
	ck_assert(!name_ok("", 0));
	ck_assert(!name_ok(".", 1));
	ck_assert(!name_ok("..", 2));
	ck_assert(!name_ok("a/b", 3));
	ck_assert(!name_ok("a\0b", 3));
	ck_assert(!name_ok("/etc", 4));
	ck_assert(!name_ok("ab/", 3));
	ck_assert(name_ok("\xff\xfe", 2));
	memset(buf, 'x', sizeof(buf));
	ck_assert(name_ok(buf, NAME_MAX));
	ck_assert(!name_ok(buf, NAME_MAX + 1));
}
END_TEST

START_TEST(dots)
{
	ck_assert_int_eq(fstap_name_dots(".", 1), 1);
	ck_assert_int_eq(fstap_name_dots("..", 2), 2);
	ck_assert_int_eq(fstap_name_dots("./", 1), 1);	/* a path's component */
	ck_assert_int_eq(fstap_name_dots("../x", 2), 2);
	ck_assert_int_eq(fstap_name_dots("", 0), 0);
	ck_assert_int_eq(fstap_name_dots(".", 0), 0);
	ck_assert_int_eq(fstap_name_dots("...", 3), 0);
	ck_assert_int_eq(fstap_name_dots(".a", 2), 0);
	ck_assert_int_eq(fstap_name_dots("a.", 2), 0);
	ck_assert_int_eq(fstap_name_dots("a", 1), 0);
	ck_assert_int_eq(fstap_name_dots(".\0", 2), 0);
}
END_TEST

START_TEST(paths)
{
	char *p = malloc(PATH_MAX + 1);
	size_t i;

	ck_assert(fstap_path_valid("/"));
	ck_assert(fstap_path_valid("/a"));
	ck_assert(fstap_path_valid("/a/b/.c"));
	ck_assert(!fstap_path_valid(NULL));
	ck_assert(!fstap_path_valid(""));
	ck_assert(!fstap_path_valid("a/b"));
	ck_assert(!fstap_path_valid("//"));
	ck_assert(!fstap_path_valid("/a//b"));
	ck_assert(!fstap_path_valid("/a/"));
	ck_assert(!fstap_path_valid("/a/./b"));
	ck_assert(!fstap_path_valid("/a/.."));
	ck_assert(!fstap_path_valid("/.."));
	ck_assert(!fstap_path_valid("/a/../../x"));
	ck_assert(!fstap_path_valid("<obj:5>/b"));
	/* A component one byte over NAME_MAX. */
	p[0] = '/';
	memset(p + 1, 'x', NAME_MAX + 1);
	p[NAME_MAX + 2] = '\0';
	ck_assert(!fstap_path_valid(p));
	p[NAME_MAX + 1] = '\0';
	ck_assert(fstap_path_valid(p));
	/* PATH_MAX - 1 bytes of "/x/x...": valid; one more byte: not. */
	for (i = 0; i < PATH_MAX - 1; i++)
		p[i] = i % 2 ? 'x' : '/';
	p[PATH_MAX - 1] = '\0';
	if (p[PATH_MAX - 2] == '/')
		p[PATH_MAX - 2] = 'y';
	ck_assert(fstap_path_valid(p));
	p[PATH_MAX - 1] = 'x';
	p[PATH_MAX] = '\0';
	ck_assert(!fstap_path_valid(p));
	free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("name");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, names);
	tcase_add_test(tc, dots);
	tcase_add_test(tc, paths);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
