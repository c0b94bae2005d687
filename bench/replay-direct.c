/*
 * replay-direct: the baseline of bench/replay-overhead.sh, the system calls
 * of a replay issued directly by a small C program.
 *
 *   replay-direct [-n NFILES] [-i ITERS] [-t THREADS] [-s] DIR
 *
 * With -s (--setup), creates NFILES files of 4 KiB (f00000, f00001, ...)
 * in DIR and exits. Otherwise changes into DIR and does ITERS iterations,
 * each on the next file in name order (iteration k on file k mod NFILES):
 * stat(name), open(name, O_RDONLY), read 4 KiB, close. Every call is
 * checked; the names are relative to DIR, as the replay's calls are
 * relative to a directory descriptor (openat2 beneath its DIR), so both
 * walk one path component per call. With -t, THREADS threads share the
 * iterations (ITERS / THREADS each, the rest to the first ones), thread j
 * starting at file j x NFILES / THREADS; the loop's time runs from their
 * common start to the last one's end.
 *
 * Prints one line: "loop CALLS SECONDS RATE calls/s", SECONDS the elapsed
 * time of the loop (CLOCK_MONOTONIC), CALLS = 4 x ITERS.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_SIZE 4096
#define NAME_LEN 24	/* "f" and a long in decimal, NUL */

static long nfiles = 10000, iters = 250000, nthreads = 1;
static char buf[FILE_SIZE];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path, int err)
{
	fprintf(stderr, "replay-direct: %s %s: %s\n", what, path ? path : "", strerror(err));
	exit(1);
}

static void fname(char *p, size_t n, long i)
{
	snprintf(p, n, "f%05ld", i);
}

/* Creates the files in the current directory; 0 or -errno. */
static int setup(void)
{
	char p[NAME_LEN];
	long i;
	int fd;

	for (i = 0; i < FILE_SIZE; i++)
		buf[i] = (char)(i * 7 + 1);
	for (i = 0; i < nfiles; i++) {
		fname(p, sizeof(p), i);
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			return -errno;
		if (write(fd, buf, FILE_SIZE) != FILE_SIZE) {
			int err = errno ? -errno : -EIO;

			close(fd);
			return err;
		}
		if (close(fd))
			return -errno;
	}
	return 0;
}

/*
 * The measured loop of one thread: iters iterations from file first; 0 or
 * -errno (the name of the file that failed in *bad). The names are
 * formatted before the clock starts, so the loop is the system calls and a
 * table look-up.
 */
static int run(char (*names)[NAME_LEN], long first, long n, char *data, const char **bad)
{
	struct stat st;
	long k, i = first;
	int fd;

	for (k = 0; k < n; k++) {
		const char *p = names[i];

		*bad = p;
		if (stat(p, &st))
			return -errno;
		fd = open(p, O_RDONLY);
		if (fd < 0)
			return -errno;
		if (read(fd, data, FILE_SIZE) != FILE_SIZE) {
			int err = errno ? -errno : -EIO;

			close(fd);
			return err;
		}
		if (close(fd))
			return -errno;
		if (++i == nfiles)
			i = 0;
	}
	return 0;
}

struct loop {
	pthread_t th;
	char (*names)[NAME_LEN];
	long first, n;
	pthread_barrier_t *start;
	const char *bad;
	int ret;
	char data[FILE_SIZE];
};

static void *loop_main(void *arg)
{
	struct loop *l = arg;

	pthread_barrier_wait(l->start);
	l->ret = run(l->names, l->first, l->n, l->data, &l->bad);
	return NULL;
}

/* The loop over nthreads threads; 0 or the first thread's error (*bad). */
static int run_threads(char (*names)[NAME_LEN], double *t, const char **bad)
{
	struct loop *l = calloc((size_t)nthreads, sizeof(*l));
	pthread_barrier_t start;
	long j;
	int ret = 0;

	if (!l)
		die("malloc", NULL, ENOMEM);
	pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
	for (j = 0; j < nthreads; j++) {
		l[j].names = names;
		l[j].first = j * nfiles / nthreads;
		l[j].n = iters / nthreads + (j < iters % nthreads);
		l[j].start = &start;
		if (pthread_create(&l[j].th, NULL, loop_main, &l[j]))
			die("pthread_create", NULL, EAGAIN);
	}
	*t = now();
	pthread_barrier_wait(&start);
	for (j = 0; j < nthreads; j++)
		pthread_join(l[j].th, NULL);
	*t = now() - *t;
	for (j = 0; j < nthreads && !ret; j++)
		if ((ret = l[j].ret))
			*bad = l[j].bad;
	pthread_barrier_destroy(&start);
	free(l);
	return ret;
}

static void usage(int st)
{
	fprintf(st ? stderr : stdout,
		"usage: replay-direct [-n NFILES] [-i ITERS] [-t THREADS] [-s] DIR\n"
		"  -n NFILES   files (default 10000)\n"
		"  -i ITERS    iterations of stat, open, read 4 KiB, close (default 250000)\n"
		"  -t THREADS  threads sharing the iterations (default 1)\n"
		"  -s          create the NFILES files of 4 KiB in DIR instead\n");
	exit(st);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "setup", no_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char (*names)[NAME_LEN];
	const char *bad = NULL;
	int c, do_setup = 0, ret;
	double t;
	long i;

	while ((c = getopt_long(argc, argv, "n:i:t:sh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': nfiles = atol(optarg); break;
		case 'i': iters = atol(optarg); break;
		case 't': nthreads = atol(optarg); break;
		case 's': do_setup = 1; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc - 1 || nfiles < 1 || nfiles > 99999 || iters < 0 ||
	    nthreads < 1 || nthreads > 1024)
		usage(2);
	if (chdir(argv[optind]))
		die("chdir", argv[optind], errno);
	if (do_setup) {
		if ((ret = setup()))
			die("setup in", argv[optind], -ret);
		return 0;
	}
	if (!(names = malloc((size_t)nfiles * sizeof(*names))))
		die("malloc", NULL, ENOMEM);
	for (i = 0; i < nfiles; i++)
		fname(names[i], sizeof(names[i]), i);
	ret = run_threads(names, &t, &bad);
	if (ret)
		die("loop:", bad, -ret);
	printf("loop %ld %.6f %.1f calls/s\n", 4 * iters, t, t > 0 ? 4 * iters / t : 0.0);
	free(names);
	return 0;
}
