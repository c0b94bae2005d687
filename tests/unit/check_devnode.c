/*
 * check_devnode.c: the device numbers prepare and replay give device
 * nodes: placeholders (1:3 for character, 0:0 for block nodes) unless
 * --devices; other types keep what they have.
 */
#include <check.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fstap/devnode.h"

START_TEST(test_devnode_placeholders)
{
	uint64_t sda = makedev(8, 0), zero = makedev(1, 5);

	ck_assert(fstap_is_devnode(S_IFCHR | 0600));
	ck_assert(fstap_is_devnode(S_IFBLK | 0600));
	ck_assert(!fstap_is_devnode(S_IFIFO | 0600));
	ck_assert(!fstap_is_devnode(S_IFREG | 0600));
	ck_assert(!fstap_is_devnode(0));
	ck_assert_uint_eq(fstap_devnode_rdev(S_IFCHR | 0666, zero, false), makedev(1, 3));
	ck_assert_uint_eq(fstap_devnode_rdev(S_IFBLK | 0660, sda, false), makedev(0, 0));
	ck_assert_uint_eq(fstap_devnode_rdev(S_IFCHR | 0666, zero, true), zero);
	ck_assert_uint_eq(fstap_devnode_rdev(S_IFBLK | 0660, sda, true), sda);
	/* a FIFO's or socket's number is whatever the trace says (mknod ignores it) */
	ck_assert_uint_eq(fstap_devnode_rdev(S_IFIFO | 0644, 77, false), 77);
	ck_assert_uint_eq(fstap_devnode_rdev(S_IFSOCK | 0644, 0, false), 0);
}
END_TEST

static Suite *devnode_suite(void)
{
	Suite *s = suite_create("devnode");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_devnode_placeholders);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(devnode_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
