/* news-spool: a news server's traditional spool (one file per article, one
 * directory per group, comp.lang.c in comp/lang/c/) and a reader that reads
 * whole groups: list the group directory, then open, read and close every
 * article, in readdir order (the default), name order, article-number order or
 * a random order. Reading a spool in readdir order was 25x slower than in
 * name order on ext4 on a spinning disk: this is the order-sensitivity case.
 */
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phases[] = { "setup", "run", "cleanup", NULL };
enum { PH_SETUP = 1, PH_RUN = 2, PH_CLEANUP = 4 };

enum order { ORDER_READDIR, ORDER_NAME, ORDER_NUMBER, ORDER_RANDOM };
static const char *const order_names[] = { "readdir", "name", "number", "random", NULL };

static long ngroups;
static uint64_t article_size;
static int order = ORDER_READDIR; /* an enum order (an int for --order) */
static long passes = 1;
static char root[EX_PATH_MAX];

static const char *const top[] = { "comp", "sci", "rec", "alt", "news", "misc", "soc", "talk" };
static const char *const mid[] = { "lang", "os", "sys", "arch", "databases", "unix", "admin", "software",
				   "games", "music", "sport", "physics", "math", "bio", "crypt", "misc" };
static const char *const leaf[] = { "c", "linux", "perl", "python", "misc", "announce", "questions",
				    "hardware", "advocacy", "tcl", "java", "lisp", "bsd", "sun", "answers",
				    "moderated" };

/* Group g's path relative to the spool, e.g. "comp/lang/c"; the three levels
 * are a function of g alone, so every phase finds the same groups. */
static void group_rel(long g, char *buf, size_t len)
{
	long hi = g / 2048;

	if (hi)
		snprintf(buf, len, "%s/%s/%s%ld", top[g % 8], mid[(g / 8) % 16], leaf[(g / 128) % 16], hi);
	else
		snprintf(buf, len, "%s/%s/%s", top[g % 8], mid[(g / 8) % 16], leaf[(g / 128) % 16]);
}

static void group_path(long g, char *buf)
{
	char rel[256];

	group_rel(g, rel, sizeof rel);
	ex_path(buf, "%s/%s", root, rel);
}

/* The arrival of articles: article k goes to a random group and gets that
 * group's next number; its size is drawn around article_size (the sum of four
 * uniform draws: mean article_size, from 1/4 to 7/4 of it). Setup and cleanup
 * both replay this, so they agree on what exists. */
struct arrival {
	struct ex_rng rng;
	long *next; /* per group: the last article number given */
};

static void arrival_init(struct arrival *a)
{
	ex_rng_seed(&a->rng, ex.seed, 1);
	a->next = ex_calloc((size_t)ngroups, sizeof *a->next);
}

static long arrival_next(struct arrival *a, size_t *size)
{
	long g = (long)ex_rng_below(&a->rng, (uint64_t)ngroups);
	uint64_t quarter = article_size / 4, spread = article_size * 3 / 8;
	uint64_t s = quarter;

	for (int i = 0; i < 4; i++)
		s += ex_rng_range(&a->rng, 0, spread);
	*size = s ? (size_t)s : 1;
	a->next[g]++;
	return g;
}

static char body[1 << 16];

static void make_body(void)
{
	static const char *const words[] = { "the", "kernel", "pointer", "spool", "inode", "article", "of",
					     "a", "is", "undefined", "behaviour", "thread", "posting", "reply",
					     "directory", "readdir", "order", "disk", "seek", "cache" };
	struct ex_rng r;
	size_t i = 0, col = 0;

	ex_rng_seed(&r, ex.seed, 2);
	while (i < sizeof body) {
		const char *w = words[ex_rng_below(&r, sizeof words / sizeof words[0])];
		size_t l = strlen(w);
		for (size_t j = 0; j < l && i < sizeof body; j++)
			body[i++] = w[j];
		col += l + 1;
		if (i < sizeof body)
			body[i++] = col > 66 ? '\n' : ' ';
		if (col > 66)
			col = 0;
	}
}

static void setup(struct ex_stats *st)
{
	struct arrival a;
	size_t maxsize = (size_t)(article_size / 4 + 4 * (article_size * 3 / 8)) + 1;
	char *buf = ex_malloc(maxsize > 1024 ? maxsize : 1024);
	char path[EX_PATH_MAX];
	uint64_t written = 0;

	make_body();
	x_mkdir(st, root, 0755, false);
	for (long g = 0; g < ngroups; g++) {
		char rel[256], *p;

		group_rel(g, rel, sizeof rel);
		/* Each level: comp, comp/lang, comp/lang/c. */
		for (p = rel; (p = strchr(p, '/')); p++) {
			*p = '\0';
			ex_path(path, "%s/%s", root, rel);
			x_mkdir(st, path, 0755, true);
			*p = '/';
		}
		ex_path(path, "%s/%s", root, rel);
		x_mkdir(st, path, 0755, false);
	}
	arrival_init(&a);
	for (long k = 0; k < ex.count; k++) {
		size_t size;
		long g = arrival_next(&a, &size);
		char rel[256];
		int fd, h;

		group_rel(g, rel, sizeof rel);
		for (char *p = rel; (p = strchr(p, '/')); p++)
			*p = '.';
		h = snprintf(buf, maxsize,
			     "Path: news.example.org!not-for-mail\nFrom: poster%ld@example.org\n"
			     "Newsgroups: %s\nSubject: article %ld\nMessage-ID: <%ld.%llu@example.org>\n"
			     "Lines: %zu\n\n",
			     k % 97, rel, a.next[g], k, (unsigned long long)ex.seed, size / 60);
		if (h < 0)
			ex_die("internal: header");
		if ((size_t)h > size)
			h = (int)size;
		{
			size_t start = (size_t)(k * 131) % 4096;
			for (size_t off = (size_t)h; off < size;) {
				size_t l = size - off;
				if (l > sizeof body - start)
					l = sizeof body - start;
				memcpy(buf + off, body + start, l);
				off += l;
				start = 0;
			}
		}
		buf[size - 1] = '\n';
		group_path(g, path);
		ex_path(path + strlen(path), "/%ld", a.next[g]);
		fd = x_open(st, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		x_write_full(st, fd, buf, size, path);
		x_close(st, fd, path);
		written += size;
	}
	ex_verbose("setup: %ld articles in %ld groups, %llu bytes", ex.count, ngroups,
		   (unsigned long long)written);
	free(a.next);
	free(buf);
}

/* ---- run: read whole groups ---- */
struct reader {
	pthread_t thread;
	int index;
	struct ex_stats st;
	uint64_t articles;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_number(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strspn(x, "0123456789"), ly = strspn(y, "0123456789");

	/* Numbers by length then digits (no overflow); other names after. */
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char dir[EX_PATH_MAX], path[EX_PATH_MAX];
	size_t bufsize = 64 * 1024;
	char *buf = ex_malloc(bufsize);

	for (long pass = 0; pass < passes; pass++) {
		for (long g = r->index; g < ngroups; g += ex.threads) {
			size_t n;
			char **names;

			group_path(g, dir);
			names = ex_list_dir(&r->st, dir, &n);
			if (order == ORDER_NAME)
				qsort(names, n, sizeof *names, cmp_name);
			else if (order == ORDER_NUMBER)
				qsort(names, n, sizeof *names, cmp_number);
			else if (order == ORDER_RANDOM) {
				struct ex_rng rng;
				ex_rng_seed(&rng, ex.seed, 1000 + (uint64_t)g + (uint64_t)pass * (uint64_t)ngroups);
				ex_rng_shuffle(&rng, names, n, sizeof *names);
			}
			for (size_t i = 0; i < n; i++) {
				int fd;

				ex_path(path, "%s/%s", dir, names[i]);
				fd = x_open(&r->st, path, O_RDONLY, 0);
				x_read_all(&r->st, fd, buf, bufsize, path);
				x_close(&r->st, fd, path);
				r->articles++;
			}
			ex_free_names(names, n);
		}
	}
	free(buf);
	return NULL;
}

static uint64_t run(struct ex_stats *st)
{
	struct reader *rd = ex_calloc((size_t)ex.threads, sizeof *rd);
	uint64_t articles = 0;

	for (int t = 0; t < ex.threads; t++) {
		rd[t].index = t;
		ex_thread_start(&rd[t].thread, reader_main, &rd[t]);
	}
	for (int t = 0; t < ex.threads; t++) {
		ex_thread_join(rd[t].thread);
		ex_stats_add(st, &rd[t].st);
		articles += rd[t].articles;
	}
	free(rd);
	return articles;
}

static void cleanup(struct ex_stats *st)
{
	struct arrival a;
	char path[EX_PATH_MAX];

	/* Replay the arrivals to know every article's name; remove only those. */
	arrival_init(&a);
	for (long k = 0; k < ex.count; k++) {
		size_t size;
		arrival_next(&a, &size);
	}
	for (long g = 0; g < ngroups; g++) {
		char dir[EX_PATH_MAX];

		group_path(g, dir);
		for (long i = 1; i <= a.next[g]; i++) {
			ex_path(path, "%s/%ld", dir, i);
			x_unlink_if_exists(st, path);
		}
		x_rmdir_if_exists(st, dir);
	}
	/* Then the intermediate levels, deepest first. */
	for (int level = 1; level >= 0; level--) {
		for (long g = 0; g < ngroups; g++) {
			char rel[256], *p = rel;

			group_rel(g, rel, sizeof rel);
			for (int i = 0; i <= level; i++)
				p = strchr(p, '/') + 1;
			p[-1] = '\0';
			ex_path(path, "%s/%s", root, rel);
			x_rmdir_if_exists(st, path);
		}
	}
	x_rmdir_if_exists(st, root);
	free(a.next);
}

/* ---- command line ---- */
static const struct ex_option options[] = {
	EX_OPT_LONG("groups", &ngroups, 1, 1000000),
	EX_OPT_BYTES("article-size", &article_size, 16, 1 << 20),
	EX_OPT_CHOICE("order", &order, order_names),
	EX_OPT_LONG("passes", &passes, 1, 1000),
	EX_OPT_END,
};

static void apply_size(enum ex_size size)
{
	static const long groups[] = { 8, 100, 1000 }, count[] = { 2000, 100000, 3300000 };

	ngroups = groups[size];
	article_size = 8192;
	if (!ex.count_set)
		ex.count = count[size];
}

static const struct ex_prog prog = {
	.name = "news-spool",
	.help = "\n"
		"A news spool (one file per article, comp.lang.c in DIR/news-spool/comp/lang/c/)\n"
		"and a reader that reads whole groups: opendir/readdir the group, then\n"
		"open/read/close each article in the chosen order.\n"
		"\n"
		"Phases (default: setup run cleanup; name some to run only those):\n"
		"  setup      create the spool: GROUPS group directories, COUNT articles\n"
		"  run        read every group (threads take groups in turn)\n"
		"  cleanup    remove the articles and directories setup made (same -n, -s,\n"
		"             --groups as setup); --setup, --run, --cleanup also work\n"
		"\n"
		"Options:\n"
		"  -d DIR             where DIR/news-spool is made (default .)\n"
		"  -t THREADS         reader threads (default 1)\n"
		"  -n COUNT           articles in the spool (small 2000, medium 100000,\n"
		"                     large 3300000)\n"
		"  -s SEED            PRNG seed (default 1): groups, sizes, random order\n"
		"  --size=SIZE        small (default), medium or large preset\n"
		"  --groups=N         groups (small 8, medium 100, large 1000)\n"
		"  --article-size=B   mean article size (default 8K; from 1/4 to 7/4 of it)\n"
		"  --order=ORDER      readdir (default), name (strcmp), number (arrival\n"
		"                     order) or random\n"
		"  --passes=N         read the spool N times (default 1)\n"
		"  -v                 progress on stderr\n"
		"\n"
		"Output: one summary line (ops by type, bytes), then the time.\n"
		"Example: news-spool -d /mnt/test setup && news-spool -d /mnt/test --order=name run\n",
	.phases = phases,
	.default_phases = PH_SETUP | PH_RUN | PH_CLEANUP,
	.options = options,
	.apply_size = apply_size,
};

int main(int argc, char **argv)
{
	struct ex_stats st = { { 0 }, 0, 0 };
	uint64_t articles_read = 0;
	char extra[256];
	double t0;

	ex_parse(&prog, argc, argv);
	ex_path(root, "%s/news-spool", ex.dir);
	t0 = ex_now();
	if (ex_phase("setup"))
		setup(&st);
	if (ex_phase("run"))
		articles_read = run(&st);
	if (ex_phase("cleanup"))
		cleanup(&st);
	snprintf(extra, sizeof extra, "threads=%d groups=%ld articles=%ld order=%s passes=%ld articles_read=%llu",
		 ex.threads, ngroups, ex.count, order_names[order], passes, (unsigned long long)articles_read);
	ex_summary(&st, extra, ex_now() - t0);
	return 0;
}
