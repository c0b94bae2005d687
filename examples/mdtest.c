/* mdtest: an mdtest-like metadata benchmark. THREADS threads (mdtest's
 * ranks) each create COUNT files, then stat them, then read them (open, read
 * --bytes, close), then remove them, with a barrier between phases; the files
 * live in a directory per thread (DIR/mdtest/rank.N, mdtest -u) or in one
 * shared directory (--shared, DIR/mdtest/shared). Each phase's rate is
 * printed like mdtest's summary, the wall time of the phase across all
 * threads.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phases[] = { "create", "stat", "read", "remove", NULL };
enum { PH_CREATE = 1, PH_STAT = 2, PH_READ = 4, PH_REMOVE = 8 };
#define NPHASES 4
static const char *const phase_titles[NPHASES] = { "File creation", "File stat", "File read", "File removal" };

static bool shared;
static bool random_order;
static uint64_t bytes = 4096;
static char root[EX_PATH_MAX];

static pthread_barrier_t barrier;
static double phase_start[NPHASES], phase_end[NPHASES];

struct rank {
	pthread_t thread;
	int index;
	struct ex_stats st;
	uint64_t phase_ops[NPHASES];
};

static void dir_path(char *buf, int r)
{
	if (shared)
		ex_path(buf, "%s/shared", root);
	else
		ex_path(buf, "%s/rank.%d", root, r);
}

static void item_path(char *buf, const char *dir, int r, long i)
{
	ex_path(buf, "%s/file.mdtest.%d.%ld", dir, r, i);
}

static void wait_all(void)
{
	int e = pthread_barrier_wait(&barrier);

	if (e != 0 && e != PTHREAD_BARRIER_SERIAL_THREAD)
		ex_die("pthread_barrier_wait: %s", strerror(e));
}

static void *rank_main(void *arg)
{
	struct rank *rk = arg;
	char dir[EX_PATH_MAX], path[EX_PATH_MAX];
	long *items = ex_malloc((size_t)ex.count * sizeof *items);
	char *buf = ex_malloc(bytes ? (size_t)bytes : 1);
	struct ex_rng rng;
	struct stat sb;

	ex_rng_seed(&rng, ex.seed, 100 + (uint64_t)rk->index);
	ex_rng_fill(&rng, buf, (size_t)bytes);
	dir_path(dir, rk->index);
	for (long i = 0; i < ex.count; i++)
		items[i] = i;

	for (int p = 0; p < NPHASES; p++) {
		if (!((ex.phases >> p) & 1))
			continue;
		/* Everyone ready, then the clock starts (as mdtest's barrier). */
		wait_all();
		if (rk->index == 0)
			phase_start[p] = ex_now();
		wait_all();
		if (random_order && p != 0)
			ex_rng_shuffle(&rng, items, (size_t)ex.count, sizeof *items);
		if (p == 0 && !shared)
			x_mkdir(&rk->st, dir, 0755, false);
		for (long k = 0; k < ex.count; k++) {
			int fd;

			item_path(path, dir, rk->index, items[k]);
			switch (p) {
			case 0:
				fd = x_open(&rk->st, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
				if (bytes)
					x_write_full(&rk->st, fd, buf, (size_t)bytes, path);
				x_close(&rk->st, fd, path);
				break;
			case 1:
				x_stat(&rk->st, path, &sb);
				break;
			case 2:
				fd = x_open(&rk->st, path, O_RDONLY, 0);
				if (bytes && x_read(&rk->st, fd, buf, (size_t)bytes, path) != bytes)
					ex_die("read '%s': short read (expected %llu bytes)", path,
					       (unsigned long long)bytes);
				x_close(&rk->st, fd, path);
				break;
			case 3:
				x_unlink(&rk->st, path);
				break;
			}
			rk->phase_ops[p]++;
		}
		if (p == 3 && !shared)
			x_rmdir(&rk->st, dir);
		wait_all();
		if (rk->index == 0)
			phase_end[p] = ex_now();
	}
	free(items);
	free(buf);
	return NULL;
}

/* ---- command line ---- */
static const struct ex_option options[] = {
	EX_OPT_FLAG("shared", &shared, true),
	EX_OPT_FLAG("unique", &shared, false),
	EX_OPT_BYTES("bytes", &bytes, 0, 1 << 20),
	EX_OPT_FLAG("random", &random_order, true),
	EX_OPT_END,
};

static void apply_size(enum ex_size size)
{
	static const long thr[] = { 2, 4, 8 }, cnt[] = { 2000, 50000, 500000 };

	if (!ex.threads_set)
		ex.threads = (int)thr[size];
	if (!ex.count_set)
		ex.count = cnt[size];
}

static const struct ex_prog prog = {
	.name = "mdtest",
	.help = "\n"
		"An mdtest-like metadata load in DIR/mdtest: THREADS threads each create,\n"
		"stat, read and remove COUNT files, a barrier between phases, the rate of\n"
		"each phase printed like mdtest's summary.\n"
		"\n"
		"Phases (default: all, in this order; name some to run only those, e.g.\n"
		"'create' now and 'stat read remove' later with the same -t, -n, --shared):\n"
		"  create     open(O_CREAT|O_EXCL), write --bytes, close\n"
		"  stat       stat each file\n"
		"  read       open, read --bytes, close\n"
		"  remove     unlink each file, then the directories\n"
		"\n"
		"Options:\n"
		"  -d DIR          where DIR/mdtest is made (default .)\n"
		"  -t THREADS      threads (small 2, medium 4, large 8)\n"
		"  -n COUNT        files per thread (small 2000, medium 50000, large 500000)\n"
		"  -s SEED         PRNG seed (default 1): data, --random order\n"
		"  --size=SIZE     small (default), medium or large preset\n"
		"  --shared        one shared directory for all threads (default: one\n"
		"                  directory per thread, --unique)\n"
		"  --bytes=B       bytes written at create and read at read (default 4096;\n"
		"                  0: none)\n"
		"  --random        stat, read and remove in a random order (mdtest -R)\n"
		"  -v              progress on stderr\n"
		"\n"
		"Output: a rate per phase, one summary line (ops by type, bytes), the time.\n"
		"Example: mdtest -d /mnt/test -t 4 -n 10000 --shared\n",
	.phases = phases,
	.default_phases = PH_CREATE | PH_STAT | PH_READ | PH_REMOVE,
	.options = options,
	.apply_size = apply_size,
};

int main(int argc, char **argv)
{
	struct ex_stats st = { { 0 }, 0, 0 };
	struct rank *rk;
	char extra[256], path[EX_PATH_MAX];
	uint64_t phase_ops[NPHASES] = { 0, 0, 0, 0 };
	double t0;
	int e;

	ex_parse(&prog, argc, argv);
	ex_path(root, "%s/mdtest", ex.dir);
	e = pthread_barrier_init(&barrier, NULL, (unsigned)ex.threads);
	if (e)
		ex_die("pthread_barrier_init: %s", strerror(e));
	rk = ex_calloc((size_t)ex.threads, sizeof *rk);
	t0 = ex_now();
	if (ex.phases & PH_CREATE) {
		x_mkdir(&st, root, 0755, false);
		if (shared) {
			ex_path(path, "%s/shared", root);
			x_mkdir(&st, path, 0755, false);
		}
	}
	for (int i = 0; i < ex.threads; i++) {
		rk[i].index = i;
		ex_thread_start(&rk[i].thread, rank_main, &rk[i]);
	}
	for (int i = 0; i < ex.threads; i++) {
		ex_thread_join(rk[i].thread);
		ex_stats_add(&st, &rk[i].st);
		for (int p = 0; p < NPHASES; p++)
			phase_ops[p] += rk[i].phase_ops[p];
	}
	if (ex.phases & PH_REMOVE) {
		if (shared) {
			ex_path(path, "%s/shared", root);
			x_rmdir(&st, path);
		}
		x_rmdir(&st, root);
	}
	ex_out("mdtest: %d threads, %ld files/thread, %s, %llu bytes per file", ex.threads, ex.count,
	       shared ? "shared directory" : "unique directories", (unsigned long long)bytes);
	ex_out("   %-14s: %14s  %10s  %9s", "Operation", "Rate (ops/s)", "ops", "seconds");
	for (int p = 0; p < NPHASES; p++) {
		double s;
		if (!((ex.phases >> p) & 1))
			continue;
		s = phase_end[p] - phase_start[p];
		ex_out("   %-14s: %14.3f  %10llu  %9.3f", phase_titles[p], s > 0 ? (double)phase_ops[p] / s : 0.0,
		       (unsigned long long)phase_ops[p], s);
	}
	snprintf(extra, sizeof extra, "threads=%d files=%ld layout=%s order=%s", ex.threads,
		 ex.count * ex.threads, shared ? "shared" : "unique", random_order ? "random" : "sequential");
	ex_summary(&st, extra, ex_now() - t0);
	pthread_barrier_destroy(&barrier);
	free(rk);
	return 0;
}
