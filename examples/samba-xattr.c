/* samba-xattr: a Samba-like file server load. Samba keeps the DOS attributes
 * of every file and directory in an extended attribute, user.DOSATTRIB (a
 * small binary blob), reads it on most operations and writes it on creates
 * and modifications; the inode size given to mkfs decides whether it fits in
 * the inode, which changed ext3 and xfs performance by 6-7x.
 *
 * setup makes a share tree (DIR/samba-share/dirNN/subNN/fileNNNNN.EXT, each
 * file and directory with its user.DOSATTRIB). run starts THREADS clients,
 * each doing COUNT operations drawn from a fixed mix: stat storms (stat +
 * getxattr), opens and whole-file reads, in-place modifications (pwrite +
 * setxattr), directory listings with stat + getxattr per entry (Explorer),
 * attribute changes, and creates, renames and deletes of the client's own
 * files in DIR/samba-share/clientNN/. Shared files never change size and
 * shared directories never change, so the counts are exact.
 */
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phases[] = { "setup", "run", "cleanup", NULL };
enum { PH_SETUP = 1, PH_RUN = 2, PH_CLEANUP = 4 };

#define XATTR "user.DOSATTRIB"
#define NSUB 4

static long nfiles, ndirs;
static uint64_t max_file_size = 64 * 1024;
static char root[EX_PATH_MAX];
static const char *const exts[] = { "doc", "xls", "pdf", "txt", "jpg", "dat" };

static long nsubdirs(void)
{
	return ndirs * NSUB;
}

static void subdir_path(char *buf, long s)
{
	ex_path(buf, "%s/dir%02ld/sub%02ld", root, s / NSUB, s % NSUB);
}

static void file_path(char *buf, long i)
{
	long s = i % nsubdirs();

	ex_path(buf, "%s/dir%02ld/sub%02ld/file%05ld.%s", root, s / NSUB, s % NSUB, i,
		exts[i % (long)(sizeof exts / sizeof exts[0])]);
}

/* A DOSATTRIB blob like Samba's xattr_DosInfo: a version, the flags, the
 * attribute, an (optional) create time; 16 to 64 bytes. */
static size_t dosattrib(struct ex_rng *r, unsigned char *buf, unsigned attr)
{
	size_t len = (size_t)ex_rng_range(r, 16, 64);

	ex_rng_fill(r, buf, len);
	buf[0] = 0;
	buf[1] = 0;
	buf[2] = 4; /* version */
	buf[3] = 0;
	buf[4] = (unsigned char)attr;
	return len;
}

static size_t file_size(struct ex_rng *r)
{
	return (size_t)ex_rng_range(r, 1, max_file_size);
}

static void setup(struct ex_stats *st)
{
	struct ex_rng rng;
	char path[EX_PATH_MAX];
	unsigned char x[64];
	unsigned char *buf = ex_malloc((size_t)max_file_size);

	ex_rng_seed(&rng, ex.seed, 1);
	ex_rng_fill(&rng, buf, (size_t)max_file_size);
	x_mkdir(st, root, 0755, false);
	x_setxattr(st, root, XATTR, x, dosattrib(&rng, x, 0x10));
	for (long d = 0; d < ndirs; d++) {
		ex_path(path, "%s/dir%02ld", root, d);
		x_mkdir(st, path, 0755, false);
		x_setxattr(st, path, XATTR, x, dosattrib(&rng, x, 0x10));
		for (long s = 0; s < NSUB; s++) {
			subdir_path(path, d * NSUB + s);
			x_mkdir(st, path, 0755, false);
			x_setxattr(st, path, XATTR, x, dosattrib(&rng, x, 0x10));
		}
	}
	for (long i = 0; i < nfiles; i++) {
		int fd;

		file_path(path, i);
		fd = x_open(st, path, O_RDWR | O_CREAT | O_EXCL, 0644);
		x_fsetxattr(st, fd, XATTR, x, dosattrib(&rng, x, 0x20), path);
		x_write_full(st, fd, buf, file_size(&rng), path);
		x_close(st, fd, path);
	}
	free(buf);
}

/* ---- run ---- */
struct client {
	pthread_t thread;
	int index;
	struct ex_stats st;
	long created, renamed, deleted, listed;
	long *own;  /* numbers of the client's live files */
	long nown, next;
	struct ex_rng rng;
	unsigned char *buf;  /* max_file_size bytes of data to write */
	unsigned char x[64]; /* DOS attributes, read or to set */
};

static void own_path(char *buf, const struct client *c, long num)
{
	ex_path(buf, "%s/client%02d/new%06ld.doc", root, c->index, num);
}

/* stat storm: stat + get DOS attributes (of path, file f's) */
static void stat_file(struct client *c, long f, char *path)
{
	struct stat sb;

	file_path(path, f);
	x_stat(&c->st, path, &sb);
	x_getxattr(&c->st, path, XATTR, c->x, sizeof c->x);
}

/* open and read the whole file */
static void read_file(struct client *c, long f)
{
	char path[EX_PATH_MAX];
	struct stat sb;
	int fd;

	file_path(path, f);
	x_stat(&c->st, path, &sb);
	fd = x_open(&c->st, path, O_RDONLY, 0);
	x_fgetxattr(&c->st, fd, XATTR, c->x, sizeof c->x, path);
	x_read_all(&c->st, fd, c->buf, (size_t)max_file_size, path);
	x_close(&c->st, fd, path);
}

/* modify in place: the size never changes */
static void modify_file(struct client *c, long f)
{
	char path[EX_PATH_MAX];
	struct stat sb;
	size_t len;
	uint64_t off;
	int fd;

	file_path(path, f);
	x_stat(&c->st, path, &sb);
	fd = x_open(&c->st, path, O_RDWR, 0);
	x_fgetxattr(&c->st, fd, XATTR, c->x, sizeof c->x, path);
	len = sb.st_size < 4096 ? (size_t)sb.st_size : 4096;
	off = ex_rng_below(&c->rng, (uint64_t)sb.st_size - len + 1);
	x_pwrite_full(&c->st, fd, c->buf, len, (off_t)off, path);
	x_fsetxattr(&c->st, fd, XATTR, c->x, dosattrib(&c->rng, c->x, 0x20), path);
	x_close(&c->st, fd, path);
}

/* list a directory, stat + get DOS attributes of each entry */
static void list_subdir(struct client *c, long f)
{
	char path[EX_PATH_MAX], dir[EX_PATH_MAX];
	struct stat sb;
	char **names;
	size_t n;

	subdir_path(dir, f % nsubdirs());
	x_getxattr(&c->st, dir, XATTR, c->x, sizeof c->x);
	names = ex_list_dir(&c->st, dir, &n);
	for (size_t i = 0; i < n; i++) {
		ex_path(path, "%s/%s", dir, names[i]);
		x_stat(&c->st, path, &sb);
		x_getxattr(&c->st, path, XATTR, c->x, sizeof c->x);
	}
	ex_free_names(names, n);
	c->listed++;
}

/* create a new file: check it is absent, create, set DOS attributes, write */
static void create_own(struct client *c)
{
	char path[EX_PATH_MAX];
	long num = c->next++;
	int fd;

	own_path(path, c, num);
	if (x_exists(&c->st, path))
		ex_die("'%s' exists already", path);
	fd = x_open(&c->st, path, O_RDWR | O_CREAT | O_EXCL, 0644);
	x_fsetxattr(&c->st, fd, XATTR, c->x, dosattrib(&c->rng, c->x, 0x20), path);
	x_write_full(&c->st, fd, c->buf, file_size(&c->rng), path);
	x_close(&c->st, fd, path);
	c->own[c->nown++] = num;
	c->created++;
}

/* change attributes (hidden, read-only) of a shared file */
static void change_attributes(struct client *c, long f)
{
	char path[EX_PATH_MAX];

	stat_file(c, f, path);
	x_setxattr(&c->st, path, XATTR, c->x, dosattrib(&c->rng, c->x, 0x21));
}

/* rename one of its files */
static void rename_own(struct client *c)
{
	char path[EX_PATH_MAX], path2[EX_PATH_MAX];
	long k = (long)ex_rng_below(&c->rng, (uint64_t)c->nown), num = c->next++;
	struct stat sb;

	own_path(path, c, c->own[k]);
	own_path(path2, c, num);
	x_stat(&c->st, path, &sb);
	x_getxattr(&c->st, path, XATTR, c->x, sizeof c->x);
	if (x_exists(&c->st, path2))
		ex_die("'%s' exists already", path2);
	x_rename(&c->st, path, path2);
	c->own[k] = num;
	c->renamed++;
}

/* delete one of its files (DOS attributes checked first) */
static void delete_own(struct client *c)
{
	char path[EX_PATH_MAX];
	long k = (long)ex_rng_below(&c->rng, (uint64_t)c->nown);
	struct stat sb;

	own_path(path, c, c->own[k]);
	x_stat(&c->st, path, &sb);
	x_getxattr(&c->st, path, XATTR, c->x, sizeof c->x);
	x_unlink(&c->st, path);
	c->own[k] = c->own[--c->nown];
	c->deleted++;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	char path[EX_PATH_MAX];

	c->buf = ex_malloc((size_t)max_file_size);
	ex_rng_seed(&c->rng, ex.seed, 100 + (uint64_t)c->index);
	ex_rng_fill(&c->rng, c->buf, (size_t)max_file_size);
	c->own = ex_malloc((size_t)ex.count * sizeof *c->own);
	ex_path(path, "%s/client%02d", root, c->index);
	x_mkdir(&c->st, path, 0755, false);
	x_setxattr(&c->st, path, XATTR, c->x, dosattrib(&c->rng, c->x, 0x10));

	for (long op = 0; op < ex.count; op++) {
		unsigned w = (unsigned)ex_rng_below(&c->rng, 100);
		long f = (long)ex_rng_below(&c->rng, (uint64_t)nfiles);

		/* Operations on the client's own files fall back to a create
		 * when it has none. */
		if (w >= 85 && c->nown == 0)
			w = 80;
		if (w < 30)
			stat_file(c, f, path);
		else if (w < 55)
			read_file(c, f);
		else if (w < 65)
			modify_file(c, f);
		else if (w < 75)
			list_subdir(c, f);
		else if (w < 85)
			create_own(c);
		else if (w < 90)
			change_attributes(c, f);
		else if (w < 95)
			rename_own(c);
		else
			delete_own(c);
	}
	free(c->buf);
	return NULL;
}

static void run(struct ex_stats *st, long counts[4])
{
	struct client *c = ex_calloc((size_t)ex.threads, sizeof *c);

	for (int i = 0; i < ex.threads; i++) {
		c[i].index = i;
		ex_thread_start(&c[i].thread, client_main, &c[i]);
	}
	for (int i = 0; i < ex.threads; i++) {
		ex_thread_join(c[i].thread);
		ex_stats_add(st, &c[i].st);
		counts[0] += c[i].created;
		counts[1] += c[i].renamed;
		counts[2] += c[i].deleted;
		counts[3] += c[i].listed;
		free(c[i].own);
	}
	free(c);
}

/* The client's files are named newNNNNNN.doc: remove those, then the
 * directory (which fails if someone else put a file there). */
static void cleanup_client(struct ex_stats *st, const char *dir)
{
	size_t n;
	char **names = ex_list_dir(st, dir, &n);
	char path[EX_PATH_MAX];

	for (size_t i = 0; i < n; i++) {
		const char *s = names[i];
		if (strncmp(s, "new", 3) == 0 && strspn(s + 3, "0123456789") == 6 && strcmp(s + 9, ".doc") == 0) {
			ex_path(path, "%s/%s", dir, s);
			x_unlink(st, path);
		}
	}
	ex_free_names(names, n);
	x_rmdir(st, dir);
}

static void cleanup(struct ex_stats *st)
{
	char path[EX_PATH_MAX];

	if (!x_exists(st, root))
		return;
	for (long i = 0; i < nfiles; i++) {
		file_path(path, i);
		x_unlink_if_exists(st, path);
	}
	for (long d = 0; d < ndirs; d++) {
		for (long s = 0; s < NSUB; s++) {
			subdir_path(path, d * NSUB + s);
			x_rmdir_if_exists(st, path);
		}
		ex_path(path, "%s/dir%02ld", root, d);
		x_rmdir_if_exists(st, path);
	}
	/* Client directories: those of any earlier run, whatever its -t. */
	for (int i = 0; i < 1024; i++) {
		ex_path(path, "%s/client%02d", root, i);
		if (!x_exists(st, path))
			break;
		cleanup_client(st, path);
	}
	x_rmdir(st, root);
}

/* ---- command line ---- */
static const struct ex_option options[] = {
	EX_OPT_LONG("files", &nfiles, 1, 100000000),
	EX_OPT_LONG("dirs", &ndirs, 1, 99),
	EX_OPT_BYTES("max-file-size", &max_file_size, 1, 64 << 20),
	EX_OPT_END,
};

static void apply_size(enum ex_size size)
{
	static const long files[] = { 1000, 100000, 1000000 }, dirs[] = { 8, 32, 99 };
	static const long thr[] = { 4, 16, 64 }, cnt[] = { 1000, 50000, 200000 };

	nfiles = files[size];
	ndirs = dirs[size];
	if (!ex.threads_set)
		ex.threads = (int)thr[size];
	if (!ex.count_set)
		ex.count = cnt[size];
}

static const struct ex_prog prog = {
	.name = "samba-xattr",
	.help = "\n"
		"A Samba-like share in DIR/samba-share: files and directories carrying a\n"
		"binary user.DOSATTRIB xattr (16-64 bytes), read on most operations and\n"
		"written on creates and modifications, by THREADS client threads.\n"
		"\n"
		"Phases (default: setup run cleanup; name some to run only those):\n"
		"  setup      the share: --dirs x 4 directories, --files files\n"
		"  run        each client does COUNT operations: 30% stat, 25% open+read,\n"
		"             10% modify, 10% directory listing (stat+getxattr per entry),\n"
		"             10% create, 5% attribute change, 5% rename, 5% delete (of\n"
		"             its own files, in DIR/samba-share/clientNN)\n"
		"  cleanup    remove the share's files and directories\n"
		"\n"
		"Options:\n"
		"  -d DIR               where DIR/samba-share is made (default .); its file\n"
		"                       system must support user xattrs\n"
		"  -t THREADS           clients (small 4, medium 16, large 64)\n"
		"  -n COUNT             operations per client (small 1000, medium 50000,\n"
		"                       large 200000)\n"
		"  -s SEED              PRNG seed (default 1)\n"
		"  --size=SIZE          small (default), medium or large preset\n"
		"  --files=N            files in the share (small 1000, medium 100000,\n"
		"                       large 1000000)\n"
		"  --dirs=N             top directories, 4 subdirectories each (small 8,\n"
		"                       medium 32, large 99)\n"
		"  --max-file-size=B    file sizes are uniform in 1..B (default 64K)\n"
		"  -v                   progress on stderr\n"
		"\n"
		"Output: one summary line (ops by type, bytes), then the time.\n"
		"Example: samba-xattr -d /mnt/test -t 8 -n 10000 --files=20000\n",
	.phases = phases,
	.default_phases = PH_SETUP | PH_RUN | PH_CLEANUP,
	.options = options,
	.apply_size = apply_size,
};

int main(int argc, char **argv)
{
	struct ex_stats st = { { 0 }, 0, 0 };
	long counts[4] = { 0, 0, 0, 0 };
	char extra[256];
	double t0;

	ex_parse(&prog, argc, argv);
	ex_path(root, "%s/samba-share", ex.dir);
	t0 = ex_now();
	if (ex_phase("setup"))
		setup(&st);
	if (ex_phase("run"))
		run(&st, counts);
	if (ex_phase("cleanup"))
		cleanup(&st);
	snprintf(extra, sizeof extra,
		 "threads=%d files=%ld dirs=%ld client_ops=%ld created=%ld renamed=%ld deleted=%ld listed=%ld",
		 ex.threads, nfiles, nsubdirs() + ndirs, ex_phase("run") ? ex.count * ex.threads : 0,
		 counts[0], counts[1], counts[2], counts[3]);
	ex_summary(&st, extra, ex_now() - t0);
	return 0;
}
