/* mixed: the mixed load admins run on RAID: many small-file copies (cp -r of
 * a source tree) alongside a streaming writer (a backup or video stream:
 * large sequential writes) and an fsync-heavy writer (a database or mail
 * journal: small appends, fdatasync after each), as threads.
 *
 * setup writes the source tree (DIR/mixed/src/dNNN/fNNNNN, COUNT files of
 * 1..--max-file-size bytes). run starts THREADS copier threads (file i goes
 * to copier i % THREADS: check the target is absent, open the source, fstat,
 * create the copy, read/write 128 KiB at a time, close both), one streaming
 * writer (DIR/mixed/stream.dat, --stream-size bytes in --stream-write
 * writes, fsync at the end) and one journal writer (DIR/mixed/journal.log,
 * --records appends of 64..4096 bytes, fdatasync after each).
 */
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phases[] = { "setup", "run", "cleanup", NULL };
enum { PH_SETUP = 1, PH_RUN = 2, PH_CLEANUP = 4 };

#define PER_DIR 100

static uint64_t max_file_size = 32 * 1024;
static uint64_t stream_size, stream_write = 1 << 20;
static long records;
static char root[EX_PATH_MAX];

static long ndirs(void)
{
	return (ex.count + PER_DIR - 1) / PER_DIR;
}

static void file_path(char *buf, const char *tree, long i)
{
	ex_path(buf, "%s/%s/d%03ld/f%05ld", root, tree, i / PER_DIR, i);
}

static void setup(struct ex_stats *st)
{
	struct ex_rng rng;
	char path[EX_PATH_MAX];
	unsigned char *buf = ex_malloc((size_t)max_file_size);

	ex_rng_seed(&rng, ex.seed, 1);
	ex_rng_fill(&rng, buf, (size_t)max_file_size);
	x_mkdir(st, root, 0755, false);
	ex_path(path, "%s/src", root);
	x_mkdir(st, path, 0755, false);
	for (long d = 0; d < ndirs(); d++) {
		ex_path(path, "%s/src/d%03ld", root, d);
		x_mkdir(st, path, 0755, false);
	}
	for (long i = 0; i < ex.count; i++) {
		int fd;
		size_t len = (size_t)ex_rng_range(&rng, 1, max_file_size);

		file_path(path, "src", i);
		fd = x_open(st, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		x_write_full(st, fd, buf, len, path);
		x_close(st, fd, path);
	}
	free(buf);
}

/* ---- run ---- */
struct worker {
	pthread_t thread;
	int index;
	struct ex_stats st;
	long done;
};

static void *copier_main(void *arg)
{
	struct worker *w = arg;
	char src[EX_PATH_MAX], dst[EX_PATH_MAX];
	size_t bufsize = 128 * 1024;
	char *buf = ex_malloc(bufsize);

	for (long i = w->index; i < ex.count; i += ex.threads) {
		struct stat sb;
		int in, out;
		size_t n;

		file_path(src, "src", i);
		file_path(dst, "dst", i);
		if (x_exists(&w->st, dst))
			ex_die("'%s' exists already", dst);
		in = x_open(&w->st, src, O_RDONLY, 0);
		x_fstat(&w->st, in, &sb, src);
		out = x_open(&w->st, dst, O_WRONLY | O_CREAT | O_EXCL, sb.st_mode & 0777);
		while ((n = x_read(&w->st, in, buf, bufsize, src)) > 0)
			x_write_full(&w->st, out, buf, n, dst);
		x_close(&w->st, out, dst);
		x_close(&w->st, in, src);
		w->done++;
	}
	free(buf);
	return NULL;
}

static void *streamer_main(void *arg)
{
	struct worker *w = arg;
	char path[EX_PATH_MAX];
	struct ex_rng rng;
	char *buf = ex_malloc((size_t)stream_write);
	int fd;

	ex_rng_seed(&rng, ex.seed, 2);
	ex_rng_fill(&rng, buf, (size_t)stream_write);
	ex_path(path, "%s/stream.dat", root);
	fd = x_open(&w->st, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	for (uint64_t off = 0; off < stream_size; off += stream_write) {
		size_t len = stream_size - off < stream_write ? (size_t)(stream_size - off) : (size_t)stream_write;
		x_write_full(&w->st, fd, buf, len, path);
		w->done++;
	}
	x_fsync(&w->st, fd, path);
	x_close(&w->st, fd, path);
	free(buf);
	return NULL;
}

static void *journal_main(void *arg)
{
	struct worker *w = arg;
	char path[EX_PATH_MAX];
	struct ex_rng rng;
	char buf[4096];
	int fd;

	ex_rng_seed(&rng, ex.seed, 3);
	ex_rng_fill(&rng, buf, sizeof buf);
	ex_path(path, "%s/journal.log", root);
	fd = x_open(&w->st, path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
	for (long r = 0; r < records; r++) {
		size_t len = (size_t)ex_rng_range(&rng, 64, sizeof buf);
		x_write_full(&w->st, fd, buf, len, path);
		x_fdatasync(&w->st, fd, path);
		w->done++;
	}
	x_close(&w->st, fd, path);
	return NULL;
}

static void run(struct ex_stats *st, long *copies, long *stream_writes, long *appends)
{
	struct worker *w = ex_calloc((size_t)ex.threads + 2, sizeof *w);
	char path[EX_PATH_MAX];

	/* The copy's directories, made before the copiers start (cp -r). */
	ex_path(path, "%s/dst", root);
	x_mkdir(st, path, 0755, false);
	for (long d = 0; d < ndirs(); d++) {
		ex_path(path, "%s/dst/d%03ld", root, d);
		x_mkdir(st, path, 0755, false);
	}
	ex_thread_start(&w[0].thread, streamer_main, &w[0]);
	ex_thread_start(&w[1].thread, journal_main, &w[1]);
	for (int i = 0; i < ex.threads; i++) {
		w[2 + i].index = i;
		ex_thread_start(&w[2 + i].thread, copier_main, &w[2 + i]);
	}
	for (int i = 0; i < ex.threads + 2; i++) {
		ex_thread_join(w[i].thread);
		ex_stats_add(st, &w[i].st);
	}
	*stream_writes = w[0].done;
	*appends = w[1].done;
	for (int i = 0; i < ex.threads; i++)
		*copies += w[2 + i].done;
	free(w);
}

static void cleanup(struct ex_stats *st)
{
	char path[EX_PATH_MAX];
	static const char *const trees[] = { "dst", "src" };

	for (int t = 0; t < 2; t++) {
		for (long i = 0; i < ex.count; i++) {
			file_path(path, trees[t], i);
			x_unlink_if_exists(st, path);
		}
		for (long d = 0; d < ndirs(); d++) {
			ex_path(path, "%s/%s/d%03ld", root, trees[t], d);
			x_rmdir_if_exists(st, path);
		}
		ex_path(path, "%s/%s", root, trees[t]);
		x_rmdir_if_exists(st, path);
	}
	ex_path(path, "%s/stream.dat", root);
	x_unlink_if_exists(st, path);
	ex_path(path, "%s/journal.log", root);
	x_unlink_if_exists(st, path);
	x_rmdir_if_exists(st, root);
}

/* ---- command line ---- */
static const struct ex_option options[] = {
	EX_OPT_BYTES("max-file-size", &max_file_size, 1, 64 << 20),
	EX_OPT_BYTES("stream-size", &stream_size, 0, 1ULL << 42),
	EX_OPT_BYTES("stream-write", &stream_write, 512, 64 << 20),
	EX_OPT_LONG("records", &records, 0, 100000000),
	EX_OPT_END,
};

static void apply_size(enum ex_size size)
{
	static const long cnt[] = { 1000, 50000, 500000 }, rec[] = { 200, 10000, 100000 };
	static const long thr[] = { 2, 4, 8 };
	static const uint64_t stream[] = { 32ULL << 20, 1ULL << 30, 8ULL << 30 };

	if (!ex.threads_set)
		ex.threads = (int)thr[size];
	if (!ex.count_set)
		ex.count = cnt[size];
	stream_size = stream[size];
	records = rec[size];
}

static const struct ex_prog prog = {
	.name = "mixed",
	.help = "\n"
		"A mixed load in DIR/mixed: THREADS copier threads copy a tree of COUNT small\n"
		"files (src/ to dst/) while a streaming writer writes stream.dat sequentially\n"
		"and a journal writer appends small records to journal.log with an\n"
		"fdatasync after each.\n"
		"\n"
		"Phases (default: setup run cleanup; name some to run only those):\n"
		"  setup      write the source tree (COUNT files)\n"
		"  run        the copies, the stream and the journal, concurrently\n"
		"  cleanup    remove everything setup and run made\n"
		"\n"
		"Options:\n"
		"  -d DIR               where DIR/mixed is made (default .)\n"
		"  -t THREADS           copier threads (small 2, medium 4, large 8)\n"
		"  -n COUNT             small files (small 1000, medium 50000, large 500000)\n"
		"  -s SEED              PRNG seed (default 1)\n"
		"  --size=SIZE          small (default), medium or large preset\n"
		"  --max-file-size=B    small file sizes are uniform in 1..B (default 32K)\n"
		"  --stream-size=B      streamed bytes (small 32M, medium 1G, large 8G)\n"
		"  --stream-write=B     size of each streaming write (default 1M)\n"
		"  --records=N          journal appends, each followed by fdatasync (small\n"
		"                       200, medium 10000, large 100000)\n"
		"  -v                   progress on stderr\n"
		"\n"
		"Output: one summary line (ops by type, bytes), then the time.\n"
		"Example: mixed -d /mnt/test -t 4 -n 20000 --stream-size=4G --records=5000\n",
	.phases = phases,
	.default_phases = PH_SETUP | PH_RUN | PH_CLEANUP,
	.options = options,
	.apply_size = apply_size,
};

int main(int argc, char **argv)
{
	struct ex_stats st = { { 0 }, 0, 0 };
	long copies = 0, stream_writes = 0, appends = 0;
	char extra[256];
	double t0;

	ex_parse(&prog, argc, argv);
	ex_path(root, "%s/mixed", ex.dir);
	t0 = ex_now();
	if (ex_phase("setup"))
		setup(&st);
	if (ex_phase("run"))
		run(&st, &copies, &stream_writes, &appends);
	if (ex_phase("cleanup"))
		cleanup(&st);
	snprintf(extra, sizeof extra, "threads=%d files=%ld copies=%ld stream_writes=%ld appends=%ld", ex.threads,
		 ex.count, copies, stream_writes, appends);
	ex_summary(&st, extra, ex_now() - t0);
	return 0;
}
