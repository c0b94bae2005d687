/*
 * check_xattr.c: the xattr names a file system keeps on its own (xattr.c):
 * which names they are, and the length of a listxattr list without them.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/xattr.h"

START_TEST(test_xattr_fs_own_names)
{
	ck_assert(fstap_xattr_fs_own("trusted.SGI_ACL_FILE", 20));
	ck_assert(fstap_xattr_fs_own("trusted.SGI_ACL_DEFAULT", 23));
	ck_assert(!fstap_xattr_fs_own("trusted.SGI_ACL_FILE", 19));	/* a prefix */
	ck_assert(!fstap_xattr_fs_own("trusted.SGI_ACL_FILEX", 21));
	ck_assert(!fstap_xattr_fs_own("system.posix_acl_access", 23));
	ck_assert(!fstap_xattr_fs_own("user.SGI_ACL_FILE", 17));
	ck_assert(!fstap_xattr_fs_own("", 0));
}
END_TEST

START_TEST(test_xattr_list_len_without_fs_own)
{
	static const char list[] = "user.a\0trusted.SGI_ACL_FILE\0system.posix_acl_access\0"
				   "trusted.SGI_ACL_DEFAULT\0user.b";	/* ends "user.b\0" */
	size_t len = sizeof(list);

	ck_assert_uint_eq(fstap_xattr_list_len_without_fs_own(list, len), len - 21 - 24);
	ck_assert_uint_eq(fstap_xattr_list_len_without_fs_own(list, 7), 7);	/* "user.a\0" */
	ck_assert_uint_eq(fstap_xattr_list_len_without_fs_own("", 0), 0);
	/* a last name without its NUL (a hostile or cut list) counts as it is */
	ck_assert_uint_eq(fstap_xattr_list_len_without_fs_own("trusted.SGI_ACL_FILE", 20), 0);
	ck_assert_uint_eq(fstap_xattr_list_len_without_fs_own("user.a\0user", 11), 11);
}
END_TEST

static Suite *xattr_suite(void)
{
	Suite *s = suite_create("xattr");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_xattr_fs_own_names);
	tcase_add_test(tc, test_xattr_list_len_without_fs_own);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(xattr_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
