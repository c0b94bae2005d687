/*
 * check_fileattr.c: the file attribute ioctls of a trace (fstap/fileattr.h):
 * the four commands and their argument sizes, an argument through an ioctl
 * record and back, the flags a replay sets on another file system, and the
 * calls on a real file of this machine's /tmp.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tests/unit/fixtures.h"
#include "fstap/fileattr.h"

START_TEST(test_fileattr_commands)
{
	ck_assert_uint_eq(fstap_fileattr_size(FS_IOC_GETFLAGS), 4);
	ck_assert_uint_eq(fstap_fileattr_size(FS_IOC_SETFLAGS), 4);
	ck_assert_uint_eq(fstap_fileattr_size(FS_IOC_FSGETXATTR), 28);
	ck_assert_uint_eq(fstap_fileattr_size(FS_IOC_FSSETXATTR), 28);
	ck_assert_uint_eq(fstap_fileattr_size(FS_IOC_GETVERSION), 0);
	ck_assert_uint_eq(fstap_fileattr_size(0xc020660b), 0);	/* FS_IOC_FIEMAP */
	ck_assert_uint_eq(fstap_fileattr_size((uint64_t)FS_IOC_GETFLAGS << 32), 0);
	ck_assert(fstap_fileattr_sets(FS_IOC_SETFLAGS) && fstap_fileattr_sets(FS_IOC_FSSETXATTR));
	ck_assert(!fstap_fileattr_sets(FS_IOC_GETFLAGS) && !fstap_fileattr_sets(FS_IOC_FSGETXATTR));
	ck_assert(fstap_fileattr_is_flags(FS_IOC_GETFLAGS) && !fstap_fileattr_is_flags(FS_IOC_FSGETXATTR));
	/* the numbers docs/trace-format.md gives */
	ck_assert_uint_eq(FS_IOC_GETFLAGS, 0x80086601);
	ck_assert_uint_eq(FS_IOC_SETFLAGS, 0x40086602);
	ck_assert_uint_eq(FS_IOC_FSGETXATTR, 0x801c581f);
	ck_assert_uint_eq(FS_IOC_FSSETXATTR, 0x401c5820);
}
END_TEST

START_TEST(test_fileattr_record_round_trip)
{
	union fstap_fileattr_arg a, b;
	struct fstap_rec r;

	memset(&r, 0, sizeof(r));
	memset(&a, 0, sizeof(a));
	a.fsx.xflags = FS_XFLAG_APPEND | FS_XFLAG_PROJINHERIT;
	a.fsx.projid = 4000000000u;
	a.fsx.extsize = 1 << 20;
	a.fsx.cowextsize = 7;
	a.fsx.nextents = 99;	/* an output only: not recorded */
	r.cmd = FS_IOC_FSSETXATTR;
	fstap_fileattr_to_rec(&r, r.cmd, &a);
	ck_assert_uint_eq(r.flags_arg, FS_XFLAG_APPEND | FS_XFLAG_PROJINHERIT);
	ck_assert_uint_eq(r.projid, 4000000000u);
	ck_assert_uint_eq(r.extsize, 1 << 20);
	ck_assert_uint_eq(r.cowextsize, 7);
	memset(&b, 0, sizeof(b));
	fstap_fileattr_from_rec(&b, &r);
	a.fsx.nextents = 0;
	ck_assert(!memcmp(&a.fsx, &b.fsx, sizeof(a.fsx)));

	memset(&r, 0, sizeof(r));
	r.cmd = FS_IOC_SETFLAGS;
	a.flags = (int)(FS_APPEND_FL | FS_EXTENT_FL | FS_CASEFOLD_FL);
	fstap_fileattr_to_rec(&r, r.cmd, &a);
	ck_assert_uint_eq(r.flags_arg, FS_APPEND_FL | FS_EXTENT_FL | FS_CASEFOLD_FL);
	ck_assert_uint_eq(r.projid, 0);
	fstap_fileattr_from_rec(&b, &r);
	ck_assert_int_eq(b.flags, a.flags);
}
END_TEST

/* ext4's extents flag recorded, replayed on a file system without it (xfs), and back. */
START_TEST(test_fileattr_merge_flags)
{
	int ext4 = FS_EXTENT_FL, rec = FS_EXTENT_FL | FS_APPEND_FL | FS_NODUMP_FL | FS_PROJINHERIT_FL;

	ck_assert_int_eq(fstap_fileattr_merge_flags(0, rec),
			 FS_APPEND_FL | FS_NODUMP_FL | FS_PROJINHERIT_FL);
	ck_assert_int_eq(fstap_fileattr_merge_flags(ext4, FS_APPEND_FL), FS_EXTENT_FL | FS_APPEND_FL);
	ck_assert_int_eq(fstap_fileattr_merge_flags(ext4 | FS_IMMUTABLE_FL, FS_NOATIME_FL),
			 FS_EXTENT_FL | FS_NOATIME_FL);
	ck_assert_int_eq(fstap_fileattr_merge_flags(FS_INLINE_DATA_FL | FS_VERITY_FL, 0),
			 FS_INLINE_DATA_FL | FS_VERITY_FL);
}
END_TEST

/* The recorded argument is what the kernel takes: a get then a set on /tmp, when it has flags. */
START_TEST(test_fileattr_on_a_real_file)
{
	char *path = fixture_tmpname("fileattr");
	union fstap_fileattr_arg a;
	struct fstap_rec r;
	int fd = open(path, O_RDWR);

	ck_assert_int_ge(fd, 0);
	memset(&a, 0, sizeof(a));
	if (ioctl(fd, FS_IOC_GETFLAGS, &a) == 0) {
		memset(&r, 0, sizeof(r));
		r.cmd = FS_IOC_SETFLAGS;
		fstap_fileattr_to_rec(&r, r.cmd, &a);
		r.flags_arg |= FS_NODUMP_FL;
		fstap_fileattr_from_rec(&a, &r);
		ck_assert_int_eq(ioctl(fd, FS_IOC_SETFLAGS, &a), 0);
		memset(&a, 0, sizeof(a));
		ck_assert_int_eq(ioctl(fd, FS_IOC_GETFLAGS, &a), 0);
		ck_assert(a.flags & FS_NODUMP_FL);
	} else {
		ck_assert_int_eq(errno, ENOTTY);	/* tmpfs of old kernels */
	}
	close(fd);
	unlink(path);
	free(path);
}
END_TEST

static Suite *fileattr_suite(void)
{
	Suite *s = suite_create("fileattr");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_fileattr_commands);
	tcase_add_test(tc, test_fileattr_record_round_trip);
	tcase_add_test(tc, test_fileattr_merge_flags);
	tcase_add_test(tc, test_fileattr_on_a_real_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fileattr_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
