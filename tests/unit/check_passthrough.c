/*
 * check_passthrough.c: the recorder's pt_* operations and inode table on a
 * temporary directory, without FUSE: results and errno match the system
 * calls they stand for, inode identity and object ids behave, and the
 * descriptor cache stays bounded.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "record/record_i.h"
#include "tests/unit/require.h"

static char tmpdir[64];
static int root_fd = -1;
static struct pt_fs fs;

static void setup(void)
{
	strcpy(tmpdir, "/tmp/fstap-pt-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	root_fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(root_fd, 0);
	ck_assert_int_eq(pt_fs_init(&fs, root_fd, 16), 0);
}

static void teardown(void)
{
	char cmd[128];

	pt_fs_release(&fs);
	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_passthrough_create_write_read)
{
	struct pt_entry e, e2;
	uint64_t fh;
	char buf[16];

	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "f", 0640, O_RDWR, &e, &fh), 0);
	ck_assert(S_ISREG(e.st.st_mode));
	ck_assert_int_eq(e.st.st_mode & 07777, 0640);
	ck_assert_int_gt(e.ri->obj, FSTAP_ROOT_OBJ);
	ck_assert_int_eq(pt_write(fh, "hello", 5, 0, NULL), 5);
	ck_assert_int_eq(pt_read(fh, buf, sizeof(buf), 1), 4);
	ck_assert(!memcmp(buf, "ello", 4));
	ck_assert_int_eq(pt_flush(fh), 0);
	ck_assert_int_eq(pt_release(fh), 0);
	/* the same inode again: the same table entry and object */
	ck_assert_int_eq(pt_lookup(&fs, pt_root(&fs), "f", &e2), 0);
	ck_assert_ptr_eq(e2.ri, e.ri);
	ck_assert_int_eq(e2.st.st_size, 5);
	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "f", 0640, O_RDWR | O_EXCL, &e2, &fh),
			 -EEXIST);
	pt_forget(&fs, e.ri, 2);
}
END_TEST

/*
 * pt_read_pipe: the bytes of the range go into the pipe, the count is
 * short only at the end of the file (0 past it), and a pipe too small for
 * the range fails with -EAGAIN (non-blocking), for rec_read to fall back on.
 */
START_TEST(test_passthrough_read_pipe)
{
	static char data[100000], got[100000];
	struct pt_entry e;
	uint64_t fh;
	int p[2];
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + i / 251);
	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "big", 0640, O_RDWR, &e, &fh), 0);
	ck_assert_int_eq(pt_write(fh, data, sizeof(data), 0, NULL), (ssize_t)sizeof(data));
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_ge(fcntl(p[0], F_SETPIPE_SZ, 256 * 1024), 256 * 1024);
	/* a range inside the file, at an odd offset */
	ck_assert_int_eq(pt_read_pipe(fh, p[1], 40000, 12345), 40000);
	ck_assert_int_eq(read(p[0], got, sizeof(got)), 40000);
	ck_assert(!memcmp(got, data + 12345, 40000));
	/* across the end: short */
	ck_assert_int_eq(pt_read_pipe(fh, p[1], 65536, 90000), 10000);
	ck_assert_int_eq(read(p[0], got, sizeof(got)), 10000);
	ck_assert(!memcmp(got, data + 90000, 10000));
	/* past the end: nothing */
	ck_assert_int_eq(pt_read_pipe(fh, p[1], 4096, 200000), 0);
	/* a pipe of 64 KiB cannot take 100 000 bytes at once */
	ck_assert_int_eq(fcntl(p[0], F_SETPIPE_SZ, 65536), 65536);
	ck_assert_int_eq(pt_read_pipe(fh, p[1], sizeof(data), 0), -EAGAIN);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(pt_release(fh), 0);
	pt_forget(&fs, e.ri, 1);
}
END_TEST

START_TEST(test_passthrough_errors)
{
	struct pt_entry e, d;

	ck_assert_int_eq(pt_lookup(&fs, pt_root(&fs), "missing", &e), -ENOENT);
	ck_assert_int_eq(pt_unlink(&fs, pt_root(&fs), "missing"), -ENOENT);
	ck_assert_int_eq(pt_mkdir(&fs, NULL, pt_root(&fs), "d", 0755, &d), 0);
	ck_assert_int_eq(pt_mkdir(&fs, NULL, pt_root(&fs), "d", 0755, &e), -EEXIST);
	ck_assert_int_eq(pt_mkdir(&fs, NULL, d.ri, "sub", 0755, &e), 0);
	ck_assert_int_eq(pt_rmdir(&fs, pt_root(&fs), "d"), -ENOTEMPTY);
	ck_assert_int_eq(pt_getxattr(&fs, d.ri, "user.none", NULL, 0), -ENODATA);
	ck_assert_int_eq(pt_rmdir(&fs, d.ri, "sub"), 0);
	pt_forget(&fs, e.ri, 1);
	ck_assert_int_eq(pt_rmdir(&fs, pt_root(&fs), "d"), 0);
	pt_forget(&fs, d.ri, 1);
}
END_TEST

START_TEST(test_passthrough_rename_flags_link_symlink)
{
	struct pt_entry a, b, l, s;
	uint64_t fh;
	char buf[64];

	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "a", 0600, O_WRONLY, &a, &fh), 0);
	pt_release(fh);
	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "b", 0600, O_WRONLY, &b, &fh), 0);
	pt_release(fh);
	ck_assert_int_eq(pt_rename(&fs, pt_root(&fs), "a", pt_root(&fs), "b", RENAME_NOREPLACE),
			 -EEXIST);
	ck_assert_int_eq(pt_rename(&fs, pt_root(&fs), "a", pt_root(&fs), "b", RENAME_EXCHANGE), 0);
	ck_assert_int_eq(pt_link(&fs, a.ri, pt_root(&fs), "hard", &l), 0);
	ck_assert_ptr_eq(l.ri, a.ri);
	ck_assert_int_eq(l.st.st_nlink, 2);
	ck_assert_int_eq(pt_symlink(&fs, NULL, "target/x", pt_root(&fs), "sym", &s), 0);
	ck_assert(S_ISLNK(s.st.st_mode));
	ck_assert_int_eq(pt_readlink(&fs, s.ri, buf, sizeof(buf)), 8);
	ck_assert(!memcmp(buf, "target/x", 8));
	/* rename over b: b's inode is deleted, a later inode may reuse its number */
	ck_assert_int_eq(pt_rename(&fs, pt_root(&fs), "hard", pt_root(&fs), "a", 0), 0);
}
END_TEST

START_TEST(test_passthrough_setattr_and_xattrs)
{
	struct pt_entry e;
	struct stat a, st;
	uint64_t fh;
	char val[16];
	char list[64];

	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "x", 0644, O_RDWR, &e, &fh), 0);
	memset(&a, 0, sizeof(a));
	a.st_mode = 0600;
	a.st_size = 12345;
	a.st_mtim.tv_sec = 1000000000;
	ck_assert_int_eq(pt_setattr(&fs, e.ri, -1, &a,
				    FSTAP_SET_MODE | FSTAP_SET_SIZE | FSTAP_SET_MTIME, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(st.st_size, 12345);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000000);
	ck_assert_int_eq(pt_setxattr(&fs, e.ri, "user.k", "v1", 2, XATTR_CREATE), 0);
	ck_assert_int_eq(pt_setxattr(&fs, e.ri, "user.k", "v2", 2, XATTR_CREATE), -EEXIST);
	ck_assert_int_eq(pt_getxattr(&fs, e.ri, "user.k", NULL, 0), 2);
	ck_assert_int_eq(pt_getxattr(&fs, e.ri, "user.k", val, sizeof(val)), 2);
	ck_assert(!memcmp(val, "v1", 2));
	ck_assert_int_eq(pt_getxattr(&fs, e.ri, "user.k", val, 1), -ERANGE);
	ck_assert_int_ge(pt_listxattr(&fs, NULL, e.ri, list, sizeof(list)), 7);
	ck_assert_int_eq(pt_removexattr(&fs, e.ri, "user.k"), 0);
	ck_assert_int_eq(pt_removexattr(&fs, e.ri, "user.k"), -ENODATA);
	ck_assert_int_eq(pt_fallocate(fh, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096),
			 0);
	{
		off_t off = 0;

		ck_assert_int_eq(pt_lseek(fh, 0, SEEK_HOLE, &off), 0);
		ck_assert_int_eq(off, 0);
	}
	pt_release(fh);
}
END_TEST

/* A symlink's own trusted.* xattrs (root only), not its target's. */
/*
 * xattrs on every type of inode: regular files and directories are opened
 * for the call (also a file of mode 0, and one under another process's write
 * lease, where the non-blocking open fails and the path is used); a FIFO is
 * never opened (an open for reading would wait for a writer).
 */
START_TEST(test_passthrough_xattrs_each_type)
{
	struct pt_entry f, d, p;
	char val[16], path[128];
	uint64_t fh;
	int lfd;

	REQUIRE(geteuid() == 0, "trusted.* on a FIFO needs CAP_SYS_ADMIN");
	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "f0", 0000, O_RDONLY, &f, &fh), 0);
	pt_release(fh);
	ck_assert_int_eq(pt_setxattr(&fs, f.ri, "user.k", "v", 1, 0), 0);
	ck_assert_int_eq(pt_getxattr(&fs, f.ri, "user.k", val, sizeof(val)), 1);
	ck_assert_int_eq(pt_mkdir(&fs, NULL, pt_root(&fs), "d", 0700, &d), 0);
	ck_assert_int_eq(pt_setxattr(&fs, d.ri, "user.d", "dv", 2, XATTR_CREATE), 0);
	ck_assert_int_eq(pt_getxattr(&fs, d.ri, "user.d", val, sizeof(val)), 2);
	ck_assert_int_eq(pt_listxattr(&fs, NULL, d.ri, NULL, 0), 7);
	ck_assert_int_eq(pt_removexattr(&fs, d.ri, "user.d"), 0);
	ck_assert_int_eq(pt_mknod(&fs, NULL, pt_root(&fs), "fifo", S_IFIFO | 0644, 0, &p), 0);
	ck_assert_int_eq(pt_setxattr(&fs, p.ri, "trusted.p", "pv", 2, 0), 0);
	ck_assert_int_eq(pt_getxattr(&fs, p.ri, "trusted.p", val, sizeof(val)), 2);
	ck_assert(!memcmp(val, "pv", 2));
	ck_assert_int_eq(pt_removexattr(&fs, p.ri, "trusted.p"), 0);
	/* a write lease on the backing file: the open would break it */
	signal(SIGIO, SIG_IGN);
	snprintf(path, sizeof(path), "%s/lease", tmpdir);
	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "lease", 0644, O_RDONLY, &f, &fh), 0);
	pt_release(fh);
	lfd = open(path, O_RDONLY);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(fcntl(lfd, F_SETLEASE, F_WRLCK), 0);
	ck_assert_int_eq(pt_setxattr(&fs, f.ri, "user.l", "lv", 2, 0), 0);
	ck_assert_int_eq(pt_getxattr(&fs, f.ri, "user.l", val, sizeof(val)), 2);
	ck_assert_int_eq(fcntl(lfd, F_SETLEASE, F_UNLCK), 0);
	close(lfd);
}
END_TEST

START_TEST(test_passthrough_symlink_xattrs)
{
	struct pt_entry e, t;
	struct pt_cred user = { .uid = 65534, .gid = 65534 };
	char val[16], list[128], path[128];
	uint64_t fh;
	ssize_t n;

	REQUIRE(geteuid() == 0, "trusted.* needs CAP_SYS_ADMIN");
	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "tgt", 0644, O_RDWR, &t, &fh), 0);
	pt_release(fh);
	ck_assert_int_eq(pt_symlink(&fs, NULL, "tgt", pt_root(&fs), "lnk", &e), 0);
	ck_assert_int_eq(pt_setxattr(&fs, e.ri, "trusted.s", "on-link", 7, XATTR_CREATE), 0);
	ck_assert_int_eq(pt_getxattr(&fs, e.ri, "trusted.s", val, sizeof(val)), 7);
	ck_assert(!memcmp(val, "on-link", 7));
	/* on the link itself: the target has none */
	ck_assert_int_eq(pt_getxattr(&fs, t.ri, "trusted.s", val, sizeof(val)), -ENODATA);
	snprintf(path, sizeof(path), "%s/lnk", tmpdir);
	ck_assert_int_eq(lgetxattr(path, "trusted.s", val, sizeof(val)), 7);
	n = pt_listxattr(&fs, NULL, e.ri, list, sizeof(list));
	ck_assert_int_eq(n, 10);
	ck_assert_str_eq(list, "trusted.s");
	/* an unprivileged caller does not see trusted.* names */
	ck_assert_int_eq(pt_listxattr(&fs, &user, e.ri, NULL, 0), 0);
	ck_assert_int_eq(pt_setxattr(&fs, t.ri, "trusted.a", "1", 1, 0), 0);
	ck_assert_int_eq(pt_setxattr(&fs, t.ri, "user.b", "1", 1, 0), 0);
	ck_assert_int_eq(pt_setxattr(&fs, t.ri, "trusted.c", "1", 1, 0), 0);
	ck_assert_int_eq(pt_listxattr(&fs, &user, t.ri, NULL, 0), 7);
	ck_assert_int_eq(pt_listxattr(&fs, &user, t.ri, list, 6), -ERANGE);
	ck_assert_int_eq(pt_listxattr(&fs, &user, t.ri, list, 7), 7);
	ck_assert_str_eq(list, "user.b");
	ck_assert_int_eq(pt_listxattr(&fs, NULL, t.ri, NULL, 0), 7 + 10 + 10);
	ck_assert_int_eq(pt_removexattr(&fs, e.ri, "trusted.s"), 0);
	ck_assert_int_eq(pt_removexattr(&fs, e.ri, "trusted.s"), -ENODATA);
}
END_TEST

/* A setattr with nothing to set is chown(-1, -1): the ctime changes. */
static int groups_4242(void *arg, int size, gid_t *list)
{
	(void)arg;
	if (size < 1)
		return -EINVAL;
	list[0] = 4242;
	return 1;
}

/* The mode after pt_write_drop_privs for caller c of a file made with mode m, group g. */
static mode_t mode_after_drop(mode_t m, gid_t g, const struct pt_cred *c)
{
	struct pt_entry e;
	struct stat st;
	uint64_t fh;

	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "s", 0600, O_RDWR, &e, &fh), 0);
	ck_assert_int_eq(fchown(PT_FH_FD(fh), 0, g), 0);
	ck_assert_int_eq(fchmod(PT_FH_FD(fh), m), 0);
	ck_assert_int_eq(pt_write_drop_privs(fh, c), 0);
	ck_assert_int_eq(fstat(PT_FH_FD(fh), &st), 0);
	ck_assert_int_eq(pt_release(fh), 0);
	ck_assert_int_eq(pt_unlink(&fs, pt_root(&fs), "s"), 0);
	pt_forget(&fs, e.ri, 1);
	return st.st_mode & 07777;
}

/*
 * pt_write_drop_privs, the backing file system's rule for a write by a
 * caller without CAP_FSETID: setuid always goes; setgid goes with group
 * execute, or when the caller is in neither the file's group by its gid
 * nor by its supplementary groups; other bits stay.
 */
START_TEST(test_passthrough_write_drop_privs)
{
	struct pt_cred user = { .uid = 65534, .gid = 65534 };
	struct pt_cred member = { .uid = 65534, .gid = 65534, .getgroups = groups_4242 };

	REQUIRE(geteuid() == 0, "fchown to another group needs root");
	ck_assert_int_eq(mode_after_drop(04777, 4242, &user), 0777);
	ck_assert_int_eq(mode_after_drop(02777, 4242, &user), 0777);
	ck_assert_int_eq(mode_after_drop(06755, 4242, &user), 0755);
	ck_assert_int_eq(mode_after_drop(02767, 4242, &user), 0767);
	ck_assert_int_eq(mode_after_drop(02767, 4242, &member), 02767);
	ck_assert_int_eq(mode_after_drop(02767, 65534, &user), 02767);
	ck_assert_int_eq(mode_after_drop(02777, 65534, &user), 0777);
	ck_assert_int_eq(mode_after_drop(01777, 4242, &user), 01777);
	ck_assert_int_eq(mode_after_drop(0644, 4242, &user), 0644);
}
END_TEST

/*
 * pt_fileattr: a get with any caller; a set with the caller's fsuid, so
 * that the backing file system refuses another user's file (EPERM) and
 * append-only without CAP_LINUX_IMMUTABLE (EPERM), and allows the owner's
 * nodump and root's append-only; another command is ENOTTY.
 */
START_TEST(test_passthrough_fileattr_credentials)
{
	struct pt_cred user = { .uid = 65534, .gid = 65534 };
	struct pt_entry e;
	uint64_t fh;
	int fd, flags, f;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "a", 0644, O_RDWR, &e, &fh), 0);
	fd = PT_FH_FD(fh);
	if (pt_fileattr(fd, &user, FS_IOC_GETFLAGS, &flags) == -ENOTTY) {
		pt_release(fh);
		return;	/* a /tmp without file attributes */
	}
	ck_assert_int_eq(pt_fileattr(fd, &user, FS_IOC_GETFLAGS, &flags), 0);
	f = flags | FS_NODUMP_FL;
	ck_assert_int_eq(pt_fileattr(fd, &user, FS_IOC_SETFLAGS, &f), -EPERM);
	ck_assert_int_eq(fchown(fd, 65534, 65534), 0);
	ck_assert_int_eq(pt_fileattr(fd, &user, FS_IOC_SETFLAGS, &f), 0);
	f = flags | FS_APPEND_FL;
	ck_assert_int_eq(pt_fileattr(fd, &user, FS_IOC_SETFLAGS, &f), -EPERM);
	ck_assert_int_eq(pt_fileattr(fd, NULL, FS_IOC_SETFLAGS, &f), 0);
	ck_assert_int_eq(pt_fileattr(fd, &user, FS_IOC_GETFLAGS, &f), 0);
	ck_assert(f & FS_APPEND_FL);
	ck_assert_int_eq(pt_fileattr(fd, NULL, FS_IOC_SETFLAGS, &flags), 0);
	ck_assert_int_eq(pt_fileattr(fd, NULL, FS_IOC_GETVERSION, &f), -ENOTTY);
	ck_assert_int_eq(pt_release(fh), 0);
	pt_forget(&fs, e.ri, 1);
}
END_TEST

START_TEST(test_passthrough_setattr_ctime_only)
{
	struct pt_entry e;
	struct stat a, st, before;
	uint64_t fh;

	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "c", 0644, O_RDWR, &e, &fh), 0);
	pt_release(fh);
	ck_assert_int_eq(pt_getattr(&fs, e.ri, &before), 0);
	usleep(20000);
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(pt_setattr(&fs, e.ri, -1, &a, 0, &st), 0);
	ck_assert(st.st_ctim.tv_sec != before.st_ctim.tv_sec ||
		  st.st_ctim.tv_nsec != before.st_ctim.tv_nsec);
	ck_assert_int_eq(st.st_mtim.tv_sec, before.st_mtim.tv_sec);
	ck_assert_int_eq(st.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	ck_assert_int_eq(st.st_uid, before.st_uid);
	ck_assert_int_eq(st.st_mode, before.st_mode);
}
END_TEST

START_TEST(test_passthrough_readdir_order)
{
	struct pt_entry e;
	struct pt_dir *d;
	struct pt_dirent_out de;
	uint64_t fh;
	int n = 0, ret;
	off_t off = 0;

	ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), "one", 0644, O_RDWR, &e, &fh), 0);
	pt_release(fh);
	ck_assert_int_eq(pt_opendir(&fs, pt_root(&fs), &d), 0);
	while ((ret = pt_readdir_next(d, off, &de)) == 1) {
		n++;
		off = de.next_off;
		pt_readdir_consume(d);
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(n, 3);	/* ".", "..", "one" */
	ck_assert_int_eq(pt_releasedir(d), 0);
}
END_TEST

/* More inodes than cache slots: every one still reachable, no fd leak. */
START_TEST(test_passthrough_fd_cache_bounded)
{
	struct pt_entry e[200];
	struct stat st;
	char name[16];
	uint64_t fh;
	int i, fd_before, fd_after;

	fd_before = open("/dev/null", O_RDONLY);
	close(fd_before);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		ck_assert_int_eq(pt_create(&fs, NULL, pt_root(&fs), name, 0644, O_RDWR, &e[i], &fh),
				 0);
		pt_release(fh);
	}
	for (i = 0; i < 200; i++)
		ck_assert_int_eq(pt_getattr(&fs, e[i].ri, &st), 0);
	fd_after = open("/dev/null", O_RDONLY);
	close(fd_after);
	if (fs.it.use_handles)
		ck_assert_int_le(fd_after - fd_before, 16 + 1);
	for (i = 0; i < 200; i++)
		pt_forget(&fs, e[i].ri, 1);
}
END_TEST

/* A name renamed over between its stat and its handle: not the stat's inode. */
START_TEST(test_passthrough_renamed_over_between_stat_and_handle)
{
	struct stat old, now;
	struct rinode *ri;
	struct pt_entry e;
	bool newobj;
	int fd;

	fd = openat(root_fd, "a", O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = openat(root_fd, "b", O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(fstatat(root_fd, "a", &old, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert_int_eq(renameat(root_fd, "b", root_fd, "a"), 0);
	ck_assert_int_eq(itable_get_at(&fs.it, pt_root(&fs), root_fd, "a", &old, &ri, &newobj),
			 -EAGAIN);
	/* a lookup stats again and gets the inode that is there now */
	ck_assert_int_eq(fstatat(root_fd, "a", &now, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert_int_eq(pt_lookup(&fs, pt_root(&fs), "a", &e), 0);
	ck_assert_int_eq(e.st.st_ino, now.st_ino);
	ck_assert_int_eq(e.ri->ino, now.st_ino);
	pt_forget(&fs, e.ri, 1);
}
END_TEST

static Suite *passthrough_suite(void)
{
	Suite *s = suite_create("passthrough");
	TCase *tc = tcase_create("Core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_passthrough_create_write_read);
	tcase_add_test(tc, test_passthrough_read_pipe);
	tcase_add_test(tc, test_passthrough_errors);
	tcase_add_test(tc, test_passthrough_rename_flags_link_symlink);
	tcase_add_test(tc, test_passthrough_setattr_and_xattrs);
	tcase_add_test(tc, test_passthrough_symlink_xattrs);
	tcase_add_test(tc, test_passthrough_xattrs_each_type);
	tcase_add_test(tc, test_passthrough_setattr_ctime_only);
	tcase_add_test(tc, test_passthrough_write_drop_privs);
	tcase_add_test(tc, test_passthrough_fileattr_credentials);
	tcase_add_test(tc, test_passthrough_readdir_order);
	tcase_add_test(tc, test_passthrough_fd_cache_bounded);
	tcase_add_test(tc, test_passthrough_renamed_over_between_stat_and_handle);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(passthrough_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
