/* index-update: a Xapian-like search index under update and query load.
 *
 * The database is a directory of a few large "table" files (postlist,
 * position, termlist, docdata, record: NAME.glass), a small version file
 * (iamglass) and per-table base files (NAME.baseA / NAME.baseB). One writer
 * thread applies updates: each writes new versions of some tables
 * sequentially into NAME.glass.tmp, fsyncs it and renames it over the old
 * table, writes the other base file, fsyncs it and unlinks the stale one, and
 * finally replaces iamglass the same way. Meanwhile the query threads run
 * sessions: open iamglass and every table, run queries of random preads of
 * 4-16 KiB blocks across the tables (weighted by table size), close.
 * Tables keep their size across versions, so every pread is a full block and
 * the summary is exact.
 */
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phases[] = { "setup", "run", "cleanup", NULL };
enum { PH_SETUP = 1, PH_RUN = 2, PH_CLEANUP = 4 };

#define NTABLES 5
static const char *const table_names[NTABLES] = { "postlist", "position", "termlist", "docdata", "record" };
static const unsigned table_pct[NTABLES] = { 40, 25, 20, 10, 5 };

static uint64_t db_size, block_size = 8192;
static long updates, reopen_every = 16;
static uint64_t table_size[NTABLES];
static char root[EX_PATH_MAX];
static unsigned char *wbuf; /* one block of table data */

static void sizes(void)
{
	for (int t = 0; t < NTABLES; t++) {
		uint64_t s = db_size / 100 * table_pct[t] / block_size * block_size;
		table_size[t] = s < 65536 ? 65536 : s; /* a multiple of any block size */
	}
}

static void tpath(char *buf, int t, const char *suffix)
{
	ex_path(buf, "%s/%s.%s", root, table_names[t], suffix);
}

/* Writes a whole table file sequentially, one block per write, then fsync. */
static void write_table(struct ex_stats *st, const char *path, int t, uint64_t revision)
{
	int fd = x_open(st, path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	for (uint64_t off = 0; off < table_size[t]; off += block_size) {
		/* A block header: table, revision, block number. */
		uint64_t hdr[3] = { (uint64_t)t, revision, off / block_size };
		memcpy(wbuf, hdr, sizeof hdr);
		x_write_full(st, fd, wbuf, (size_t)block_size, path);
	}
	x_fsync(st, fd, path);
	x_close(st, fd, path);
}

static void write_small(struct ex_stats *st, const char *path, size_t len, uint64_t revision)
{
	char buf[4096];
	int fd = x_open(st, path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (len > sizeof buf)
		len = sizeof buf;
	memset(buf, 0, sizeof buf);
	snprintf(buf, sizeof buf, "IAmGlass revision %llu\n", (unsigned long long)revision);
	x_write_full(st, fd, buf, len, path);
	x_fsync(st, fd, path);
	x_close(st, fd, path);
}

static size_t base_len(int t)
{
	/* A free-block bitmap: one bit per block, plus a header. */
	size_t n = 64 + (size_t)(table_size[t] / block_size / 8);
	return n > 4096 ? 4096 : n;
}

static void setup(struct ex_stats *st)
{
	char path[EX_PATH_MAX];

	x_mkdir(st, root, 0755, false);
	for (int t = 0; t < NTABLES; t++) {
		tpath(path, t, "glass");
		write_table(st, path, t, 0);
		tpath(path, t, "baseA");
		write_small(st, path, base_len(t), 0);
	}
	ex_path(path, "%s/iamglass", root);
	write_small(st, path, 256, 0);
}

/* ---- run ---- */
struct writer {
	pthread_t thread;
	struct ex_stats st;
	long tables_written;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct ex_rng rng;
	char path[EX_PATH_MAX], tmp[EX_PATH_MAX], old[EX_PATH_MAX];
	char letter[NTABLES];

	ex_rng_seed(&rng, ex.seed, 1);
	/* Which base file is current: found on disk, since runs may repeat. */
	for (int t = 0; t < NTABLES; t++) {
		tpath(path, t, "baseA");
		letter[t] = x_exists(&w->st, path) ? 'A' : 'B';
	}
	for (long u = 1; u <= updates; u++) {
		for (int t = 0; t < NTABLES; t++) {
			/* The postlist changes in every update, the others half the time. */
			if (t != 0 && ex_rng_below(&rng, 2))
				continue;
			tpath(tmp, t, "glass.tmp");
			tpath(path, t, "glass");
			write_table(&w->st, tmp, t, (uint64_t)u);
			x_rename(&w->st, tmp, path);
			w->tables_written++;
			ex_path(tmp, "%s/%s.base%c", root, table_names[t], letter[t] == 'A' ? 'B' : 'A');
			ex_path(old, "%s/%s.base%c", root, table_names[t], letter[t]);
			write_small(&w->st, tmp, base_len(t), (uint64_t)u);
			x_unlink(&w->st, old);
			letter[t] = letter[t] == 'A' ? 'B' : 'A';
		}
		ex_path(tmp, "%s/iamglass.tmp", root);
		ex_path(path, "%s/iamglass", root);
		write_small(&w->st, tmp, 256, (uint64_t)u);
		x_rename(&w->st, tmp, path);
		ex_verbose("update %ld done", u);
	}
	return NULL;
}

struct querier {
	pthread_t thread;
	int index;
	struct ex_stats st;
	long queries;
};

static void *querier_main(void *arg)
{
	struct querier *q = arg;
	struct ex_rng rng;
	char paths[NTABLES][EX_PATH_MAX], vpath[EX_PATH_MAX];
	int fds[NTABLES];
	char *buf = ex_malloc(16384);
	uint64_t total = 0;

	ex_rng_seed(&rng, ex.seed, 100 + (uint64_t)q->index);
	for (int t = 0; t < NTABLES; t++) {
		tpath(paths[t], t, "glass");
		total += table_size[t];
	}
	ex_path(vpath, "%s/iamglass", root);
	for (long done = 0; done < ex.count;) {
		/* A session: the database is opened at its current revision. */
		int vfd = x_open(&q->st, vpath, O_RDONLY, 0);
		x_read_all(&q->st, vfd, buf, 16384, vpath);
		x_close(&q->st, vfd, vpath);
		for (int t = 0; t < NTABLES; t++)
			fds[t] = x_open(&q->st, paths[t], O_RDONLY, 0);
		for (long k = 0; k < reopen_every && done < ex.count; k++, done++) {
			long reads = (long)ex_rng_range(&rng, 2, 8);
			for (long r = 0; r < reads; r++) {
				/* A table weighted by size, a 4, 8 or 16 KiB block. */
				uint64_t x = ex_rng_below(&rng, total);
				int t = 0;
				size_t len = (size_t)4096 << ex_rng_below(&rng, 3);
				uint64_t off;
				while (x >= table_size[t]) {
					x -= table_size[t];
					t++;
				}
				off = ex_rng_below(&rng, (table_size[t] - len) / 4096 + 1) * 4096;
				if (x_pread_full(&q->st, fds[t], buf, len, (off_t)off, paths[t]) != len)
					ex_die("pread '%s': short read at %llu (was the table changed by "
					       "someone else?)", paths[t], (unsigned long long)off);
			}
			q->queries++;
		}
		for (int t = 0; t < NTABLES; t++)
			x_close(&q->st, fds[t], paths[t]);
	}
	free(buf);
	return NULL;
}

static void run(struct ex_stats *st, long *tables_written, long *queries)
{
	struct writer w;
	struct querier *q = ex_calloc((size_t)ex.threads, sizeof *q);

	memset(&w, 0, sizeof w);
	ex_thread_start(&w.thread, writer_main, &w);
	for (int i = 0; i < ex.threads; i++) {
		q[i].index = i;
		ex_thread_start(&q[i].thread, querier_main, &q[i]);
	}
	ex_thread_join(w.thread);
	ex_stats_add(st, &w.st);
	*tables_written = w.tables_written;
	for (int i = 0; i < ex.threads; i++) {
		ex_thread_join(q[i].thread);
		ex_stats_add(st, &q[i].st);
		*queries += q[i].queries;
	}
	free(q);
}

static void cleanup(struct ex_stats *st)
{
	char path[EX_PATH_MAX];
	static const char *const suffixes[] = { "glass", "glass.tmp", "baseA", "baseB" };

	for (int t = 0; t < NTABLES; t++)
		for (int s = 0; s < 4; s++) {
			tpath(path, t, suffixes[s]);
			x_unlink_if_exists(st, path);
		}
	ex_path(path, "%s/iamglass", root);
	x_unlink_if_exists(st, path);
	ex_path(path, "%s/iamglass.tmp", root);
	x_unlink_if_exists(st, path);
	x_rmdir_if_exists(st, root);
}

/* ---- command line ---- */
/* --block-size: a size that must also be a power of two. */
static int parse_block_size(const char *opt, const char *arg)
{
	uint64_t b;

	if (ex_parse_bytes(opt, arg, 2048, 65536, &b))
		return -1;
	if (b & (b - 1)) {
		ex_usage_error("%s: '%s' is not a power of two", opt, arg);
		return -1;
	}
	block_size = b;
	return 0;
}

static const struct ex_option options[] = {
	EX_OPT_BYTES("db-size", &db_size, 1 << 20, 1ULL << 42),
	EX_OPT_LONG("updates", &updates, 0, 1000000),
	EX_OPT_CUSTOM("block-size", parse_block_size),
	EX_OPT_LONG("reopen", &reopen_every, 1, 1000000000L),
	EX_OPT_END,
};

static void apply_size(enum ex_size size)
{
	static const uint64_t db[] = { 16ULL << 20, 1ULL << 30, 25ULL << 30 };
	static const long upd[] = { 4, 20, 50 }, thr[] = { 2, 4, 8 }, cnt[] = { 1000, 20000, 200000 };

	db_size = db[size];
	updates = upd[size];
	if (!ex.threads_set)
		ex.threads = (int)thr[size];
	if (!ex.count_set)
		ex.count = cnt[size];
}

static const struct ex_prog prog = {
	.name = "index-update",
	.help = "\n"
		"A Xapian-like index in DIR/xapian-db: a few large tables (NAME.glass), base files\n"
		"and a version file. One writer thread updates the index (new table versions\n"
		"written sequentially, fsync, rename over the old, stale base files\n"
		"unlinked) while THREADS query threads do random 4-16 KiB preads across\n"
		"the tables, reopening the database every --reopen queries.\n"
		"\n"
		"Phases (default: setup run cleanup; name some to run only those):\n"
		"  setup      write the database (--db-size bytes in 5 tables)\n"
		"  run        the writer's --updates updates alongside the queries\n"
		"  cleanup    remove the database files and directory\n"
		"\n"
		"Options:\n"
		"  -d DIR            where DIR/xapian-db is made (default .)\n"
		"  -t THREADS        query threads, besides the writer (small 2, medium 4,\n"
		"                    large 8)\n"
		"  -n COUNT          queries per query thread (small 1000, medium 20000,\n"
		"                    large 200000)\n"
		"  -s SEED           PRNG seed (default 1)\n"
		"  --size=SIZE       small (default), medium or large preset\n"
		"  --db-size=B       database size (small 16M, medium 1G, large 25G)\n"
		"  --updates=N       updates by the writer (small 4, medium 20, large 50)\n"
		"  --block-size=B    table block size, the writer's write size (default 8K)\n"
		"  --reopen=N        queries per database session (default 16)\n"
		"  -v                progress on stderr\n"
		"\n"
		"Output: one summary line (ops by type, bytes), then the time.\n"
		"Example: index-update -d /mnt/test --db-size=256M --updates=10 -t 4 -n 5000\n",
	.phases = phases,
	.default_phases = PH_SETUP | PH_RUN | PH_CLEANUP,
	.options = options,
	.apply_size = apply_size,
};

int main(int argc, char **argv)
{
	struct ex_stats st = { { 0 }, 0, 0 };
	long tables_written = 0, queries = 0;
	char extra[256];
	double t0;

	ex_parse(&prog, argc, argv);
	sizes();
	ex_path(root, "%s/xapian-db", ex.dir);
	wbuf = ex_malloc((size_t)block_size);
	{
		struct ex_rng r;
		ex_rng_seed(&r, ex.seed, 2);
		ex_rng_fill(&r, wbuf, (size_t)block_size);
	}
	t0 = ex_now();
	if (ex_phase("setup"))
		setup(&st);
	if (ex_phase("run"))
		run(&st, &tables_written, &queries);
	if (ex_phase("cleanup"))
		cleanup(&st);
	snprintf(extra, sizeof extra,
		 "threads=%d db_size=%llu updates=%ld tables_written=%ld queries=%ld",
		 ex.threads, (unsigned long long)(table_size[0] + table_size[1] + table_size[2] +
						  table_size[3] + table_size[4]),
		 ex_phase("run") ? updates : 0, tables_written, queries);
	free(wbuf);
	ex_summary(&st, extra, ex_now() - t0);
	return 0;
}
