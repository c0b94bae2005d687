/*
 * mdphase: the phases of bench/record-bench.sh, timed one by one.
 *
 *   mdphase [options] DIR
 *
 * Metadata set (mdtest-like, in DIR/md): NFILES files spread over NDIRS
 * directories; phases create (open O_CREAT|O_EXCL, write 4 KiB, close),
 * stat, readdir (opendir, readdir to the end, closedir, per directory),
 * open+read 4 KiB+close, unlink. The directories are made before and
 * removed after, untimed.
 *
 * Data set (DIR/data.bin): sequential write of SIZE in 1 MiB writes with
 * fsync and close in the time; the page cache dropped (drop_caches, needs
 * root); sequential cold read; sequential warm read (the same file again).
 *
 * With -S, sync() before each metadata phase (untimed), so that the
 * write-back of one phase's data (create writes 4 KiB per file) does not
 * fall into the next phase's time at random.
 *
 * Prints one line per phase: "PHASE OPS SECONDS RATE UNIT", where RATE is
 * operations per second (metadata) or MB/s (data, 1 MB = 10^6 bytes).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *root;
static long nfiles = 20000, ndirs = 100;
static long long data_mib = 512;
static int sync_phases;
static char *buf;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "mdphase: %s %s: %s\n", what, path ? path : "", strerror(errno));
	exit(1);
}

static void fpath(char *p, size_t n, long i)
{
	snprintf(p, n, "%s/md/d%03ld/f%06ld", root, i % ndirs, i);
}

static void report(const char *phase, double ops, double t, const char *unit, double rate)
{
	printf("%-9s %10.0f %10.6f %14.1f %s\n", phase, ops, t, rate, unit);
	fflush(stdout);
}

static double phase_start(void)
{
	if (sync_phases)
		sync();
	return now();
}

static void md_phases(void)
{
	char p[4096];
	double t;
	long i, n;
	int fd;

	snprintf(p, sizeof(p), "%s/md", root);
	if (mkdir(p, 0755) && errno != EEXIST)
		die("mkdir", p);
	for (i = 0; i < ndirs; i++) {
		snprintf(p, sizeof(p), "%s/md/d%03ld", root, i);
		if (mkdir(p, 0755))
			die("mkdir", p);
	}
	memset(buf, 'x', 4096);

	t = phase_start();
	for (i = 0; i < nfiles; i++) {
		fpath(p, sizeof(p), i);
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create", p);
		if (write(fd, buf, 4096) != 4096)
			die("write", p);
		if (close(fd))
			die("close", p);
	}
	t = now() - t;
	report("create", nfiles, t, "ops/s", nfiles / t);

	t = phase_start();
	for (i = 0; i < nfiles; i++) {
		struct stat st;

		fpath(p, sizeof(p), i);
		if (stat(p, &st))
			die("stat", p);
	}
	t = now() - t;
	report("stat", nfiles, t, "ops/s", nfiles / t);

	n = 0;
	t = phase_start();
	for (i = 0; i < ndirs; i++) {
		DIR *d;
		struct dirent *de;

		snprintf(p, sizeof(p), "%s/md/d%03ld", root, i);
		if (!(d = opendir(p)))
			die("opendir", p);
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				n++;
		closedir(d);
	}
	t = now() - t;
	if (n != nfiles) {
		fprintf(stderr, "mdphase: readdir found %ld entries, expected %ld\n", n, nfiles);
		exit(1);
	}
	report("readdir", n, t, "entries/s", n / t);

	t = phase_start();
	for (i = 0; i < nfiles; i++) {
		fpath(p, sizeof(p), i);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			die("open", p);
		if (read(fd, buf, 4096) != 4096)
			die("read", p);
		close(fd);
	}
	t = now() - t;
	report("open+read", nfiles, t, "ops/s", nfiles / t);

	t = phase_start();
	for (i = 0; i < nfiles; i++) {
		fpath(p, sizeof(p), i);
		if (unlink(p))
			die("unlink", p);
	}
	t = now() - t;
	report("unlink", nfiles, t, "ops/s", nfiles / t);

	for (i = 0; i < ndirs; i++) {
		snprintf(p, sizeof(p), "%s/md/d%03ld", root, i);
		if (rmdir(p))
			die("rmdir", p);
	}
	snprintf(p, sizeof(p), "%s/md", root);
	rmdir(p);
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		die("drop caches:", "/proc/sys/vm/drop_caches");
	close(fd);
}

static double seq_read(const char *p, long long bytes)
{
	long long done = 0;
	ssize_t r;
	double t = now();
	int fd = open(p, O_RDONLY);

	if (fd < 0)
		die("open", p);
	while ((r = read(fd, buf, 1 << 20)) > 0)
		done += r;
	if (r < 0)
		die("read", p);
	close(fd);
	if (done != bytes) {
		fprintf(stderr, "mdphase: read %lld bytes, expected %lld\n", done, bytes);
		exit(1);
	}
	return now() - t;
}

static void data_phases(void)
{
	char p[4096];
	long long bytes = data_mib << 20, i;
	double t;
	int fd;

	snprintf(p, sizeof(p), "%s/data.bin", root);
	for (i = 0; i < (1 << 20); i++)
		buf[i] = (char)(i * 7 + 1);
	t = now();
	fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die("create", p);
	for (i = 0; i < data_mib; i++)
		if (write(fd, buf, 1 << 20) != 1 << 20)
			die("write", p);
	if (fsync(fd) || close(fd))
		die("fsync", p);
	t = now() - t;
	report("write", data_mib, t, "MB/s", bytes / t / 1e6);

	drop_caches();
	t = seq_read(p, bytes);
	report("read", data_mib, t, "MB/s", bytes / t / 1e6);
	t = seq_read(p, bytes);
	report("readwarm", data_mib, t, "MB/s", bytes / t / 1e6);
	if (unlink(p))
		die("unlink", p);
}

static void usage(int st)
{
	fprintf(st ? stderr : stdout,
		"usage: mdphase [-n NFILES] [-d NDIRS] [-s DATA_MIB] [-m] [-D] [-S] DIR\n"
		"  -n NFILES   files in the metadata set (default 20000)\n"
		"  -d NDIRS    directories (default 100)\n"
		"  -s MIB      size of the data set file (default 512)\n"
		"  -m          metadata set only\n"
		"  -D          data set only\n"
		"  -S          sync() before each metadata phase (untimed)\n");
	exit(st);
}

int main(int argc, char **argv)
{
	int c, md = 1, data = 1;

	while ((c = getopt(argc, argv, "n:d:s:mDSh")) != -1) {
		switch (c) {
		case 'n': nfiles = atol(optarg); break;
		case 'd': ndirs = atol(optarg); break;
		case 's': data_mib = atoll(optarg); break;
		case 'm': data = 0; break;
		case 'D': md = 0; break;
		case 'S': sync_phases = 1; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc - 1 || nfiles < 1 || ndirs < 1 || ndirs > 1000 || data_mib < 1)
		usage(2);
	root = argv[optind];
	if (!(buf = aligned_alloc(4096, 1 << 20)))
		die("malloc", NULL);
	if (md)
		md_phases();
	if (data)
		data_phases();
	return 0;
}
