/*
 * dirlist.c: a test helper that lists a directory with getdents64 the way
 * an application does, and prints exactly what each call returned, so that
 * t1100 can compare it with what the recorder stored.
 *
 *   dirlist DIR BUFSIZE SEEK_INDEX
 *
 * Three listings through one descriptor: from the start; again after a
 * rewind (lseek to 0, as rewinddir); then from the position after entry
 * SEEK_INDEX of the first listing (lseek to its d_off, as seekdir). Output,
 * one line per getdents64 call and per entry:
 *
 *   call LISTING POS COUNT     POS: the descriptor's position before the call
 *   ent LISTING NAME D_OFF
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct dirent64_k {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* One listing from the descriptor's position to the end; *off_at gets entry at's d_off. */
static int list(int fd, char *buf, size_t size, int listing, long at, int64_t *off_at)
{
	long index = 0;

	for (;;) {
		off_t pos = lseek(fd, 0, SEEK_CUR);
		long n = syscall(SYS_getdents64, fd, buf, size), i, count = 0;

		if (n < 0) {
			fprintf(stderr, "dirlist: getdents64: %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i += ((struct dirent64_k *)(buf + i))->d_reclen)
			count++;
		printf("call %d %lld %ld\n", listing, (long long)pos, count);
		if (n == 0)
			return 0;
		for (i = 0; i < n; i += ((struct dirent64_k *)(buf + i))->d_reclen) {
			struct dirent64_k *d = (struct dirent64_k *)(buf + i);

			printf("ent %d %s %lld\n", listing, d->d_name, (long long)d->d_off);
			if (index++ == at && off_at)
				*off_at = d->d_off;
		}
	}
}

int main(int argc, char **argv)
{
	int64_t seek_to = -1;
	size_t size;
	char *buf;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: dirlist DIR BUFSIZE SEEK_INDEX\n");
		return 2;
	}
	size = strtoul(argv[2], NULL, 0);
	buf = malloc(size);
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!buf || fd < 0) {
		fprintf(stderr, "dirlist: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (list(fd, buf, size, 1, atol(argv[3]), &seek_to))
		return 1;
	if (lseek(fd, 0, SEEK_SET) != 0 || list(fd, buf, size, 2, -1, NULL))
		return 1;
	if (seek_to < 0 || lseek(fd, seek_to, SEEK_SET) != seek_to) {
		fprintf(stderr, "dirlist: cannot seek to entry %s\n", argv[3]);
		return 1;
	}
	if (list(fd, buf, size, 3, -1, NULL))
		return 1;
	close(fd);
	free(buf);
	return 0;
}
