/*
 * fs-calls.c: the file system calls that strace import has to know beyond
 * what common tools make, on DIR (t3100): mknod and mknodat (fifos),
 * openat2, pwritev2 and preadv2, utimes, futimesat and utime, and an
 * O_TMPFILE file that is written and closed unnamed. The times and mknod
 * are made by a child process (a second per-pid file under strace -ff),
 * whose fifo the parent renames when the child is done.
 *
 *   fs-calls DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

static int die(const char *what)
{
	fprintf(stderr, "fs-calls: %s: %s\n", what, strerror(errno));
	return 1;
}

static int child(int dirfd)
{
	struct timeval tv[2] = { { 1000, 250000 }, { 2000, 0 } }, tv2[2] = { { 3000, 0 }, { 4000, 0 } };
	struct utimbuf ub = { 5000, 6000 };

	/* the system calls themselves: glibc makes mknod and utimes of *at calls */
	if (syscall(SYS_mknod, "fifo", S_IFIFO | 0640, 0) ||
	    syscall(SYS_mknodat, dirfd, "sub/fifo2", S_IFIFO | 0600, 0))
		return die("mknod");
	if (syscall(SYS_utimes, "f2", tv) || syscall(SYS_futimesat, dirfd, "sub/g", tv2) ||
	    syscall(SYS_utime, "f2", &ub) || syscall(SYS_utimes, "sub/g", NULL))
		return die("utimes");
	return 0;
}

int main(int argc, char **argv)
{
	struct open_how how = { .flags = O_CREAT | O_RDWR | O_CLOEXEC, .mode = 0644 };
	char buf[16] = "abcdefgh";
	struct iovec iov = { buf, 8 };
	int dirfd, fd, status;
	pid_t pid;

	if (argc != 2 || chdir(argv[1]) || (dirfd = open(".", O_DIRECTORY | O_RDONLY)) < 0)
		return die("usage: fs-calls DIR");
	if (mkdir("sub", 0755))
		return die("mkdir");
	fd = (int)syscall(SYS_openat2, AT_FDCWD, "f2", &how, sizeof(how));
	if (fd < 0 || pwritev2(fd, &iov, 1, 4, 0) != 8 || preadv2(fd, &iov, 1, 0, 0) != 8 ||
	    close(fd))
		return die("openat2");
	how.flags = O_CREAT | O_WRONLY | O_EXCL;
	fd = (int)syscall(SYS_openat2, dirfd, "sub/g", &how, sizeof(how));
	if (fd < 0 || write(fd, buf, 3) != 3 || close(fd))
		return die("openat2 sub/g");
	fd = open(".", O_TMPFILE | O_WRONLY, 0600);
	if (fd < 0 || write(fd, buf, 5) != 5 || close(fd))
		return die("O_TMPFILE");
	pid = fork();
	if (pid < 0)
		return die("fork");
	if (!pid)
		_exit(child(dirfd));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	if (rename("fifo", "fifo.done"))	/* after the child's mknod: the merge's order */
		return die("rename");
	return close(dirfd) ? die("close") : 0;
}
