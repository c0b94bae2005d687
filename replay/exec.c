/*
 * exec.c: the executors. One function per record type, in a table indexed
 * by the record type (libfuse's fuse_ll_ops shape), each issuing the real
 * system call(s) the recorded operation stands for, beneath the target
 * directory, and returning the result as the trace records it: bytes or 0,
 * or -errno. Types that are not re-issued (forget, flush) have an explicit
 * entry saying why; check_exec.c asserts that no type is forgotten.
 *
 * Confinement (the trace is untrusted): every directory is opened with
 * openat2(root, relpath, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), every
 * final name is a single plain component (no '/', not "." or "..") used
 * with an *at() call that does not follow a final symlink (O_NOFOLLOW,
 * AT_SYMLINK_NOFOLLOW, l*xattr after fchdir). A path that tries to leave
 * the directory is refused and counted (RP_DIV_REFUSED), an unknown object
 * or handle is counted (RP_DIV_UNKNOWN); neither is ever fatal. A device
 * node is made with a number that reaches no device and never opened
 * unless --devices (fstap/devnode.h): its open is counted (RP_DIV_DEVICE),
 * the I/O through it not issued. Divergences are also logged, with
 * --divergences (divlog.c), readdir's with the names missing and extra.
 *
 * Per-worker state (struct rp_exec, thread-local): the I/O buffers, the
 * directory descriptors the current executor holds, and a per-thread
 * working directory (unshare(CLONE_FS)) so that the path-based xattr calls
 * can be issued on single names.
 * Shared state (struct rp_shared): the recorded handle -> live descriptor
 * table, the --order=none reordering counter, and the directory cache.
 *
 * Directory cache: directory O_PATH descriptors (openat2 beneath the root)
 * keyed by path and namespace generation, shared by all workers, so that
 * each directory is opened once per generation however many workers use
 * it (a cache per worker would open it once per worker, and the replay
 * would issue more opens than the application). The generation moves at
 * an rmdir and at a rename that moves or replaces a directory (sched.c):
 * what a path names may have changed, so a task finds only entries of its
 * own generation. The dispatcher lists what each generation changes
 * (rp_shared_ns_change: the removed, moved and replaced entries' paths),
 * and the first task of a newer generation drops the entries at and below
 * those paths; every other path walks the same directories as in the
 * generation before, so its entry is kept (a rename of a directory does
 * not make every other directory be opened again). Bounded: at
 * most DIRCACHE_MAX descriptors in the table (least recently used goes),
 * plus the few an executor holds while it runs. An entry is reference
 * counted: an executor holds a reference on every directory it uses until
 * it returns (rp_exec_run), so a descriptor is never closed, nor its number
 * reused, under a system call of another worker. The working directory is
 * remembered by the entry's serial number, not by descriptor number.
 *
 * Not here: ordering, pacing, path resolution from the trace (sched.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>	/* FS_IOC_* */
#include <linux/openat2.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <linux/limits.h>
#include <time.h>
#include <unistd.h>

#include "fstap/devnode.h"
#include "fstap/fileattr.h"
#include "fstap/xattr.h"
#include "replay_i.h"

#define DIRCACHE_MAX 256		/* descriptors the shared table keeps */
#define DIRCACHE_BUCKETS 512
#define EXEC_HELD 4		/* directories one executor holds (rename: 2) */
#define NAME_BUF 1024
#define PATH_BUF 8192
#define DENTS_BUF 32768
#define RND_SIZE (1u << 20)

/* ---- shared: handles --------------------------------------------------- */

struct rp_handle {
	int fd;			/* -1: a device node's open, refused (no --devices) */
	bool dir;
	/* taken under rp_shared.mu, where the table's own reference keeps it
	 * alive; dropped without it (the last one closes) */
	atomic_int refs;
	/* readdir state, protected by mu */
	pthread_mutex_t mu;
	bool listed, consumed;
	uint64_t *names;	/* sorted hashes of the live listing ("." ".." left out) */
	size_t nnames;
	uint64_t rec_total;	/* recorded entries since the listing */
	uint8_t *seen;		/* seen[i]: names[i] was among the recorded entries */
	size_t unseen;		/* live names no recorded entry named yet */
	/* with a divergence log: the live names, in the order of names[] */
	uint32_t *name_off;	/* offset of names[i]'s name in name_buf */
	char *name_buf;		/* the names, each NUL-terminated */
	size_t name_len, name_cap;
};

/* A cached directory descriptor (see the top of the file). */
struct rp_dir {
	struct rp_dir *hnext;		/* bucket chain, while in the table */
	struct rp_dir *lprev, *lnext;	/* LRU list (head: most recent), in the table */
	uint64_t hash, serial;
	uint32_t gen;
	bool cached;			/* in the table (which holds one reference) */
	int refs;			/* protected by rp_shared.dmu */
	int fd;
	char path[];
};

/*
 * What entering generation gen changes: the paths at and below path name
 * other directories, or may (an rmdir, a directory renamed or replaced);
 * "" is everything (the path was not known).
 */
struct rp_nschange {
	struct rp_nschange *next;
	uint32_t gen;
	char path[];
};

struct rp_shared {
	int root_fd;
	pthread_mutex_t dmu;		/* the directory cache: */
	struct rp_dir *dbucket[DIRCACHE_BUCKETS];
	struct rp_dir *lru_head, *lru_tail;
	size_t ndirs;
	uint32_t dgen;			/* generation of the entries in the table */
	struct rp_nschange *nsq, *nsq_tail;	/* namespace changes not yet applied */
	uint64_t dserial;
	uint64_t dir_opens;		/* openat2 calls issued (tests, docs) */
	pthread_mutex_t mu;
	struct rp_map handles;	/* fh + 1 -> struct rp_handle *; protected by mu */
	pthread_mutex_t omu;
	bool track_order;	/* --order=none: count same-resource reorderings */
	bool devices;		/* --devices: mknod of character and block devices */
	struct rp_divlog *divlog;	/* --divergences, or NULL (borrowed) */
	struct rp_map order;	/* resource -> highest seq executed; protected by omu */
	struct rp_foreign *foreign;	/* the root's entries before the replay, by hash */
	size_t nforeign;
};

/*
 * An entry the target's root held when the replay started (a fresh ext4's
 * lost+found). The end of a listing of the root does not count it, unless
 * the trace knew its name by then (rp_shared_note_root_name): what the
 * target came with and the trace never touched is not a divergence. Only
 * the root: prepare fills an empty directory (but for lost+found), so no
 * other directory holds entries the trace does not describe.
 */
struct rp_foreign {
	uint64_t hash;
	atomic_bool known;	/* set by the dispatcher, read by the workers */
};

struct rp_exec {
	struct rp_shared *sh;
	struct rp_stats *st;
	struct rp_dir *held[EXEC_HELD];	/* directories the running executor uses */
	unsigned nheld;
	bool own_fs;		/* unshare(CLONE_FS) worked: cwd is ours */
	uint64_t cwd;		/* serial of the directory we fchdir'ed to (1: root), 0 none */
	uint8_t *buf;		/* reads, getdents, xattr values; page aligned */
	size_t bufcap;
	uint8_t *rnd;		/* write data: pseudo-random, page aligned */
	size_t rndcap;
	char name[NAME_BUF], name2[NAME_BUF];
	char pbuf[PATH_BUF];
	char link[PATH_MAX + 1];
};

static int foreign_snapshot(struct rp_shared *sh);

int rp_shared_new(int root_fd, struct rp_shared **out)
{
	struct rp_shared *sh = calloc(1, sizeof(*sh));
	int ret;

	if (!sh)
		return -ENOMEM;
	sh->root_fd = root_fd;
	if ((ret = foreign_snapshot(sh))) {
		free(sh);
		return ret;
	}
	sh->dserial = 1;	/* 1 is the root */
	pthread_mutex_init(&sh->dmu, NULL);
	pthread_mutex_init(&sh->mu, NULL);
	pthread_mutex_init(&sh->omu, NULL);
	rp_map_init(&sh->handles);
	rp_map_init(&sh->order);
	*out = sh;
	return 0;
}

void rp_shared_allow_devices(struct rp_shared *sh, bool on)
{
	sh->devices = on;
}

void rp_shared_set_divlog(struct rp_shared *sh, struct rp_divlog *log)
{
	sh->divlog = log;
}

void rp_shared_track_order(struct rp_shared *sh, bool on)
{
	sh->track_order = on;
}

static void handle_destroy(struct rp_handle *h)
{
	if (h->fd >= 0)
		close(h->fd);
	pthread_mutex_destroy(&h->mu);
	free(h->names);
	free(h->name_off);
	free(h->name_buf);
	free(h->seen);
	free(h);
}

static void dircache_clear(struct rp_shared *sh);

void rp_shared_free(struct rp_shared *sh)
{
	size_t i;

	if (!sh)
		return;
	dircache_clear(sh);
	while (sh->nsq) {
		struct rp_nschange *c = sh->nsq;

		sh->nsq = c->next;
		free(c);
	}
	pthread_mutex_destroy(&sh->dmu);
	for (i = 0; i < sh->handles.cap; i++)
		if (sh->handles.keys[i])
			handle_destroy((struct rp_handle *)(uintptr_t)sh->handles.vals[i]);
	rp_map_release(&sh->handles);
	rp_map_release(&sh->order);
	free(sh->foreign);
	pthread_mutex_destroy(&sh->mu);
	pthread_mutex_destroy(&sh->omu);
	free(sh);
}

size_t rp_shared_open_handles(const struct rp_shared *sh)
{
	return sh->handles.n;
}

uint64_t rp_shared_dir_opens(struct rp_shared *sh)
{
	uint64_t n;

	pthread_mutex_lock(&sh->dmu);
	n = sh->dir_opens;
	pthread_mutex_unlock(&sh->dmu);
	return n;
}

/* ---- shared: directory cache (dmu held unless said) -------------------- */

static void dir_unref(struct rp_dir *d)
{
	if (--d->refs == 0) {
		close(d->fd);
		free(d);
	}
}

/* Takes d out of the table and drops the table's reference. */
static void dir_uncache(struct rp_shared *sh, struct rp_dir *d)
{
	struct rp_dir **pp = &sh->dbucket[d->hash % DIRCACHE_BUCKETS];

	while (*pp != d)
		pp = &(*pp)->hnext;
	*pp = d->hnext;
	if (d->lprev)
		d->lprev->lnext = d->lnext;
	else
		sh->lru_head = d->lnext;
	if (d->lnext)
		d->lnext->lprev = d->lprev;
	else
		sh->lru_tail = d->lprev;
	d->cached = false;
	sh->ndirs--;
	dir_unref(d);
}

static void dircache_clear(struct rp_shared *sh)
{
	while (sh->lru_head)
		dir_uncache(sh, sh->lru_head);
}

static void lru_push_head(struct rp_shared *sh, struct rp_dir *d)
{
	d->lprev = NULL;
	d->lnext = sh->lru_head;
	if (sh->lru_head)
		sh->lru_head->lprev = d;
	else
		sh->lru_tail = d;
	sh->lru_head = d;
}

/* A cached entry for path in generation gen, with a reference taken, or NULL. */
static struct rp_dir *dircache_get(struct rp_shared *sh, const char *path, uint64_t hash,
				   uint32_t gen)
{
	struct rp_dir *d;

	for (d = sh->dbucket[hash % DIRCACHE_BUCKETS]; d; d = d->hnext) {
		if (d->hash != hash || d->gen != gen || strcmp(d->path, path))
			continue;
		d->refs++;
		if (sh->lru_head != d) {	/* to the head */
			d->lprev->lnext = d->lnext;
			if (d->lnext)
				d->lnext->lprev = d->lprev;
			else
				sh->lru_tail = d->lprev;
			lru_push_head(sh, d);
		}
		return d;
	}
	return NULL;
}

/* Whether generation a is newer than b (wrapping). */
static bool gen_newer(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

void rp_shared_ns_change(struct rp_shared *sh, uint32_t gen, const char *path)
{
	size_t len = path ? strlen(path) : 0;
	struct rp_nschange *c = malloc(sizeof(*c) + len + 1);

	if (!c)
		return;		/* gen has no change listed: it empties the table */
	c->next = NULL;
	c->gen = gen;
	memcpy(c->path, path ? path : "", len + 1);
	pthread_mutex_lock(&sh->dmu);
	if (sh->nsq_tail)
		sh->nsq_tail->next = c;
	else
		sh->nsq = c;
	sh->nsq_tail = c;
	pthread_mutex_unlock(&sh->dmu);
}

/* Drops the entries at and below path. */
static void dircache_drop_below(struct rp_shared *sh, const char *path)
{
	size_t len = strlen(path);
	struct rp_dir *d, *next;

	for (d = sh->lru_head; d; d = next) {
		next = d->lnext;
		if (!strncmp(d->path, path, len) && (!d->path[len] || d->path[len] == '/'))
			dir_uncache(sh, d);
	}
}

/*
 * Brings the table from generation sh->dgen to gen: applies the changes of
 * the generations in between, in order, dropping only the entries they
 * touch; the rest name the same directories in gen and are kept. A
 * generation without its changes in the list (out of memory, or a caller
 * that does not list them) empties the table, as does a change of unknown
 * path.
 */
static void dircache_advance(struct rp_shared *sh, uint32_t gen)
{
	uint32_t g = sh->dgen;
	bool all = false;
	struct rp_dir *d;

	while (sh->nsq && !gen_newer(sh->nsq->gen, gen)) {
		struct rp_nschange *c = sh->nsq;

		if (c->gen != g && c->gen != g + 1)
			all = true;	/* a generation in between without changes */
		g = c->gen;
		if (!c->path[0])
			all = true;
		else if (!all)
			dircache_drop_below(sh, c->path);
		sh->nsq = c->next;
		if (!sh->nsq)
			sh->nsq_tail = NULL;
		free(c);
	}
	if (all || g != gen)
		dircache_clear(sh);
	for (d = sh->lru_head; d; d = d->lnext)
		d->gen = gen;
	sh->dgen = gen;
}

/* Takes a reference to the live handle of recorded fh, or NULL. */
static struct rp_handle *handle_get(struct rp_shared *sh, uint64_t fh)
{
	struct rp_handle *h = NULL;
	uint64_t *v;

	pthread_mutex_lock(&sh->mu);
	v = rp_map_get(&sh->handles, fh + 1);
	if (v) {
		h = (struct rp_handle *)(uintptr_t)*v;
		atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&sh->mu);
	return h;
}

static void handle_put(struct rp_handle *h)
{
	if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) == 1)
		handle_destroy(h);
}

/* Maps recorded fh to fd (taken). A stale mapping of the same fh is dropped. */
static int handle_add(struct rp_shared *sh, uint64_t fh, int fd, bool dir)
{
	struct rp_handle *h = calloc(1, sizeof(*h)), *old = NULL;
	uint64_t v;
	int ret;

	if (!h || fh == UINT64_MAX) {
		free(h);
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	h->fd = fd;
	h->dir = dir;
	atomic_init(&h->refs, 1);
	pthread_mutex_init(&h->mu, NULL);
	pthread_mutex_lock(&sh->mu);
	if (rp_map_del(&sh->handles, fh + 1, &v))
		old = (struct rp_handle *)(uintptr_t)v;
	ret = rp_map_put(&sh->handles, fh + 1, (uint64_t)(uintptr_t)h);
	pthread_mutex_unlock(&sh->mu);
	if (old)
		handle_put(old);
	if (ret)
		handle_destroy(h);
	return ret;
}

/* Forgets recorded fh; the descriptor closes when its last user is done. */
static bool handle_remove(struct rp_shared *sh, uint64_t fh)
{
	uint64_t v;
	bool found;

	pthread_mutex_lock(&sh->mu);
	found = rp_map_del(&sh->handles, fh + 1, &v);
	pthread_mutex_unlock(&sh->mu);
	if (found)
		handle_put((struct rp_handle *)(uintptr_t)v);
	return found;
}

/*
 * The live handle of recorded fh for an executor that issues I/O on it
 * (reference taken), or NULL with *res the executor's result: RP_E_UNKNOWN
 * for a handle never opened, RP_E_DEVICE_IO for the open of a device node
 * the replay refused (what is done through it is not issued either).
 */
static struct rp_handle *io_handle(struct rp_shared *sh, uint64_t fh, int64_t *res)
{
	struct rp_handle *h = handle_get(sh, fh);

	if (!h) {
		*res = RP_E_UNKNOWN;
		return NULL;
	}
	if (h->fd < 0) {
		handle_put(h);
		*res = RP_E_DEVICE_IO;
		return NULL;
	}
	return h;
}

/* ---- per-worker context ----------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int grow_buf(uint8_t **buf, size_t *cap, size_t need, bool random)
{
	size_t c = *cap ? *cap : 65536;
	void *p;

	if (need <= *cap)
		return 0;
	if (need > RP_IO_MAX)
		return -EINVAL;
	while (c < need)
		c *= 2;
	if (posix_memalign(&p, 4096, c))
		return -ENOMEM;
	if (random) {
		uint64_t s = 0x9e3779b97f4a7c15ULL ^ (uint64_t)c, *q = p;
		size_t i;

		for (i = 0; i < c / 8; i++)
			q[i] = xorshift(&s);
	}
	free(*buf);
	*buf = p;
	*cap = c;
	return 0;
}

int rp_exec_new(struct rp_shared *sh, struct rp_stats *st, struct rp_exec **out)
{
	struct rp_exec *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->sh = sh;
	x->st = st;
	if (grow_buf(&x->buf, &x->bufcap, DENTS_BUF, false) ||
	    grow_buf(&x->rnd, &x->rndcap, RND_SIZE, true)) {
		rp_exec_free(x);
		return -ENOMEM;
	}
	/* A working directory of this thread's own, for the l*xattr calls. */
	x->own_fs = unshare(CLONE_FS) == 0;
	*out = x;
	return 0;
}

/* Drops the references the executor took on directories. */
static void exec_release_dirs(struct rp_exec *x)
{
	unsigned i;

	if (!x->nheld)
		return;
	pthread_mutex_lock(&x->sh->dmu);
	for (i = 0; i < x->nheld; i++)
		dir_unref(x->held[i]);
	pthread_mutex_unlock(&x->sh->dmu);
	x->nheld = 0;
}

void rp_exec_free(struct rp_exec *x)
{
	if (!x)
		return;
	exec_release_dirs(x);
	free(x->buf);
	free(x->rnd);
	free(x);
}

/* ---- names and paths ---------------------------------------------------- */

bool rp_name_ok(struct fstap_bytes name)
{
	if (!name.len || name.len >= NAME_BUF)
		return false;
	if (memchr(name.ptr, '/', name.len) || memchr(name.ptr, '\0', name.len))
		return false;
	if ((name.len == 1 && name.ptr[0] == '.') ||
	    (name.len == 2 && name.ptr[0] == '.' && name.ptr[1] == '.'))
		return false;
	return true;
}

bool rp_path_ok(const char *path)
{
	const char *p = path, *e;

	if (!path || path[0] != '/')
		return false;
	if (!path[1])
		return true;
	while (*p == '/') {
		p++;
		e = strchrnul(p, '/');
		if (e == p || (e - p == 1 && p[0] == '.') ||
		    (e - p == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p = e;
	}
	return *p == '\0';
}

static int cstr(struct fstap_bytes b, char *buf)
{
	if (!rp_name_ok(b))
		return RP_E_REFUSED;
	memcpy(buf, b.ptr, b.len);
	buf[b.len] = '\0';
	return 0;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

/*
 * A descriptor of directory dpath beneath the root, or < 0. The executor
 * holds it until it returns (rp_exec_run drops the reference).
 */
static int dir_fd(struct rp_exec *x, const struct rp_task *t, const char *dpath)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	struct rp_shared *sh = x->sh;
	struct rp_dir *d, *old;
	uint64_t hash;
	size_t len;
	int fd;

	if (!dpath)
		return RP_E_UNKNOWN;
	if (!rp_path_ok(dpath))
		return RP_E_REFUSED;
	if (!dpath[1])
		return sh->root_fd;
	if (x->nheld == EXEC_HELD)
		return -EMFILE;		/* an executor uses at most two */
	hash = str_hash(dpath);
	pthread_mutex_lock(&sh->dmu);
	if (gen_newer(t->ns_gen, sh->dgen))
		dircache_advance(sh, t->ns_gen);	/* the namespace changed */
	d = dircache_get(sh, dpath, hash, t->ns_gen);
	pthread_mutex_unlock(&sh->dmu);
	if (d)
		goto held;

	/* Opened without the lock (a cold path walk may read the disk). */
	fd = (int)syscall(SYS_openat2, sh->root_fd, dpath + 1, &how, sizeof(how));
	if (fd < 0)
		fd = errno == EXDEV ? RP_E_REFUSED : -errno;
	len = strlen(dpath);
	d = fd < 0 ? NULL : malloc(sizeof(*d) + len + 1);
	pthread_mutex_lock(&sh->dmu);
	sh->dir_opens++;
	if (fd < 0 || !d) {
		pthread_mutex_unlock(&sh->dmu);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? fd : -ENOMEM;
	}
	/* Another worker may have opened it meanwhile: use one. */
	old = dircache_get(sh, dpath, hash, t->ns_gen);
	if (old) {
		pthread_mutex_unlock(&sh->dmu);
		close(fd);
		free(d);
		d = old;
		goto held;
	}
	*d = (struct rp_dir){ .hash = hash, .serial = ++sh->dserial, .gen = t->ns_gen,
			      .refs = 1, .fd = fd };
	memcpy(d->path, dpath, len + 1);
	if (t->ns_gen == sh->dgen) {
		/* An older generation's task (other workers ran ahead) keeps its own. */
		if (sh->ndirs >= DIRCACHE_MAX)
			dir_uncache(sh, sh->lru_tail);
		d->cached = true;
		d->refs++;
		d->hnext = sh->dbucket[hash % DIRCACHE_BUCKETS];
		sh->dbucket[hash % DIRCACHE_BUCKETS] = d;
		lru_push_head(sh, d);
		sh->ndirs++;
	}
	pthread_mutex_unlock(&sh->dmu);
held:
	x->held[x->nheld++] = d;
	return d->fd;
}

/* The directory and name of an entry operation's entry: dir path + rec name. */
static int entry_at(struct rp_exec *x, const struct rp_task *t, const char *dpath,
		    struct fstap_bytes name, char *nbuf, int *dfd)
{
	int ret = cstr(name, nbuf);

	if (ret)
		return ret;
	*dfd = dir_fd(x, t, dpath);
	return *dfd < 0 ? *dfd : 0;
}

/* The directory and name of the object at t->path ("." in the root for "/"). */
static int obj_at(struct rp_exec *x, const struct rp_task *t, const char *path, char *nbuf,
		  int *dfd)
{
	const char *slash;
	size_t len;

	if (!path)
		return RP_E_UNKNOWN;
	if (!rp_path_ok(path))
		return RP_E_REFUSED;
	if (!path[1]) {
		strcpy(nbuf, ".");
		strcpy(x->pbuf, "/");
		*dfd = dir_fd(x, t, "/");
		return *dfd < 0 ? *dfd : 0;
	}
	slash = strrchr(path, '/');
	len = strlen(slash + 1);
	if (len >= NAME_BUF || (size_t)(slash - path) >= PATH_BUF)
		return -ENAMETOOLONG;
	memcpy(nbuf, slash + 1, len + 1);
	if (slash == path) {
		strcpy(x->pbuf, "/");
	} else {
		memcpy(x->pbuf, path, (size_t)(slash - path));
		x->pbuf[slash - path] = '\0';
	}
	*dfd = dir_fd(x, t, x->pbuf);
	return *dfd < 0 ? *dfd : 0;
}

/*
 * Makes dfd (the root or a directory the executor holds) this thread's
 * working directory, for the l*xattr calls.
 */
static int enter_dir(struct rp_exec *x, int dfd)
{
	uint64_t serial = 0;
	unsigned i;

	if (!x->own_fs)
		return -ENOTSUP;
	if (dfd == x->sh->root_fd)
		serial = 1;
	for (i = 0; !serial && i < x->nheld; i++)
		if (x->held[i]->fd == dfd)
			serial = x->held[i]->serial;
	if (serial && x->cwd == serial)
		return 0;
	if (fchdir(dfd)) {
		x->cwd = 0;
		return -errno;
	}
	x->cwd = serial;
	return 0;
}

/*
 * Counts a divergence of t and logs it if the log wants one more of its
 * kind; missing and extra (readdir's names, or NULL) are taken.
 */
static void note_div(struct rp_exec *x, const struct rp_task *t, enum rp_div_kind kind,
		     unsigned err, int64_t res, json_t *missing, json_t *extra)
{
	struct rp_divlog *log = x->sh->divlog;

	rp_stats_div(x->st, t->rec.op, kind, err);
	if (log && rp_divlog_want(log, t->rec.op, kind, err)) {
		rp_divlog_add(log, t, kind, err, res, missing, extra);
		return;
	}
	json_decref(missing);
	json_decref(extra);
}

#define SYSRET(expr) ((expr) < 0 ? -(int64_t)errno : 0)
#define SYSVAL(expr) ({ __typeof__(expr) v_ = (expr); v_ < 0 ? -(int64_t)errno : (int64_t)v_; })

/* Open flags a replay passes on: the access mode and the flags that change behaviour. */
static int open_flags(uint64_t f)
{
	uint64_t keep = O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_NONBLOCK |
			O_DSYNC | O_SYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOATIME;

	return (int)(f & keep) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
}

static mode_t umasked(const struct fstap_rec *r, unsigned bits)
{
	return (mode_t)((r->mode & bits) & ~(r->umask & 07777));
}

/* ---- executors: namespace ------------------------------------------------ */

static int64_t exec_lookup(struct rp_exec *x, const struct rp_task *t)
{
	struct stat st;
	int dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(fstatat(dfd, x->name, &st, AT_SYMLINK_NOFOLLOW));
}

static int64_t exec_getattr(struct rp_exec *x, const struct rp_task *t)
{
	struct stat st;
	int dfd, ret;

	if (t->rec.fh) {
		int64_t r;
		struct rp_handle *h = io_handle(x->sh, t->rec.fh, &r);

		if (!h)
			return r;
		/* the application's read at end of file (sched.c, track_handle) */
		if (t->eof_read) {
			r = grow_buf(&x->buf, &x->bufcap, t->rec.size, false);
			if (!r)
				r = SYSVAL(pread(h->fd, x->buf, t->rec.size, (off_t)t->rec.offset));
		} else {
			r = SYSRET(fstat(h->fd, &st));
		}
		handle_put(h);
		return r;
	}
	if ((ret = obj_at(x, t, t->path, x->name, &dfd)))
		return ret;
	return SYSRET(fstatat(dfd, x->name, &st, AT_SYMLINK_NOFOLLOW));
}

static int64_t exec_setattr(struct rp_exec *x, const struct rp_task *t)
{
	const struct fstap_rec *r = &t->rec;
	struct rp_handle *h = NULL;
	int64_t ret = 0;
	int dfd = -1, fd = -1;

	if (r->fh) {
		h = io_handle(x->sh, r->fh, &ret);
		if (!h)
			return ret;
		fd = h->fd;
	} else if ((ret = obj_at(x, t, t->path, x->name, &dfd))) {
		return ret;
	}
	if (r->valid & FSTAP_SET_MODE)
		ret = fd >= 0 ? SYSRET(fchmod(fd, (mode_t)(r->mode & 07777)))
			      : SYSRET(fchmodat(dfd, x->name, (mode_t)(r->mode & 07777),
						AT_SYMLINK_NOFOLLOW));
	if (!ret && (r->valid & (FSTAP_SET_UID | FSTAP_SET_GID))) {
		uid_t u = (r->valid & FSTAP_SET_UID) ? (uid_t)r->owner_uid : (uid_t)-1;
		gid_t g = (r->valid & FSTAP_SET_GID) ? (gid_t)r->owner_gid : (gid_t)-1;

		ret = fd >= 0 ? SYSRET(fchown(fd, u, g))
			      : SYSRET(fchownat(dfd, x->name, u, g, AT_SYMLINK_NOFOLLOW));
	}
	if (!ret && (r->valid & FSTAP_SET_SIZE)) {
		if (fd >= 0) {
			ret = SYSRET(ftruncate(fd, (off_t)r->size));
		} else {
			/* truncate(2) would follow a final symlink: open it ourselves. */
			int tfd = openat(dfd, x->name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
					 O_CLOEXEC | O_NOCTTY);

			ret = tfd < 0 ? -(int64_t)errno : SYSRET(ftruncate(tfd, (off_t)r->size));
			if (tfd >= 0)
				close(tfd);
		}
	}
	if (!ret && (r->valid & (FSTAP_SET_ATIME | FSTAP_SET_MTIME |
				 FSTAP_SET_ATIME_NOW | FSTAP_SET_MTIME_NOW))) {
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };

		if (r->valid & FSTAP_SET_ATIME_NOW)
			ts[0].tv_nsec = UTIME_NOW;
		else if (r->valid & FSTAP_SET_ATIME)
			ts[0] = (struct timespec){ r->atime / 1000000000, r->atime % 1000000000 };
		if (r->valid & FSTAP_SET_MTIME_NOW)
			ts[1].tv_nsec = UTIME_NOW;
		else if (r->valid & FSTAP_SET_MTIME)
			ts[1] = (struct timespec){ r->mtime / 1000000000, r->mtime % 1000000000 };
		for (int i = 0; i < 2; i++) {
			if (ts[i].tv_nsec < 0 && ts[i].tv_nsec != UTIME_OMIT &&
			    ts[i].tv_nsec != UTIME_NOW) {
				ts[i].tv_sec--;
				ts[i].tv_nsec += 1000000000;
			}
		}
		ret = fd >= 0 ? SYSRET(futimens(fd, ts))
			      : SYSRET(utimensat(dfd, x->name, ts, AT_SYMLINK_NOFOLLOW));
	}
	if (h)
		handle_put(h);
	return ret;
}

static int64_t exec_readlink(struct rp_exec *x, const struct rp_task *t)
{
	ssize_t n;
	int dfd, ret;

	if ((ret = obj_at(x, t, t->path, x->name, &dfd)))
		return ret;
	n = readlinkat(dfd, x->name, x->link, sizeof(x->link));
	if (n < 0)
		return -errno;
	/* The recorded result is 0; a different link text is a value divergence. */
	if ((size_t)n != t->rec.target.len || memcmp(x->link, t->rec.target.ptr, (size_t)n))
		note_div(x, t, RP_DIV_VALUE, 0, 0, NULL, NULL);
	return 0;
}

/* A device node gets its recorded number only with --devices (fstap/devnode.h). */
static int64_t exec_mknod(struct rp_exec *x, const struct rp_task *t)
{
	dev_t rdev = (dev_t)fstap_devnode_rdev(t->rec.mode, t->rec.rdev, x->sh->devices);
	int dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	if (mknodat(dfd, x->name, (mode_t)(t->rec.mode & S_IFMT) | umasked(&t->rec, 07777), rdev))
		return -errno;
	if (!x->sh->devices && fstap_is_devnode(t->rec.mode))
		x->st->devnodes++;
	return 0;
}

static int64_t exec_mkdir(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(mkdirat(dfd, x->name, umasked(&t->rec, 07777)));
}

static int64_t exec_unlink(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(unlinkat(dfd, x->name, 0));
}

static int64_t exec_rmdir(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(unlinkat(dfd, x->name, AT_REMOVEDIR));
}

static int64_t exec_symlink(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &dfd);
	size_t len = t->rec.target.len;

	if (ret)
		return ret;
	/* The link text is only stored, never followed by the replay. */
	if (!len || len > PATH_MAX || memchr(t->rec.target.ptr, '\0', len))
		return RP_E_REFUSED;
	memcpy(x->link, t->rec.target.ptr, len);
	x->link[len] = '\0';
	return SYSRET(symlinkat(x->link, dfd, x->name));
}

/* Both directories stay open until the executor returns (held references). */
static int64_t exec_rename(struct rp_exec *x, const struct rp_task *t)
{
	int sfd, dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &sfd);

	if (ret)
		return ret;
	ret = entry_at(x, t, t->path2, t->rec.newname, x->name2, &dfd);
	if (!ret)
		ret = (int)SYSRET(renameat2(sfd, x->name, dfd, x->name2,
					    (unsigned)(t->rec.flags_arg & 7)));
	return ret;
}

static int64_t exec_link(struct rp_exec *x, const struct rp_task *t)
{
	int sfd, dfd, ret = obj_at(x, t, t->path, x->name, &sfd);

	if (ret)
		return ret;
	ret = entry_at(x, t, t->path2, t->rec.newname, x->name2, &dfd);
	if (!ret)
		ret = (int)SYSRET(linkat(sfd, x->name, dfd, x->name2, 0));
	return ret;
}

/* ---- executors: open files ---------------------------------------------- */

static int64_t open_common(struct rp_exec *x, const struct rp_task *t, int dfd, int flags,
			   mode_t mode, bool dir)
{
	int fd = openat(dfd, x->name, flags, mode), ret;

	if (fd < 0)
		return -errno;
	ret = handle_add(x->sh, t->rec.fh, fd, dir);
	return ret ? ret : 0;
}

static int64_t exec_open(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	/* A device node is never opened without --devices: a handle that is no descriptor. */
	if (t->device && !x->sh->devices) {
		ret = handle_add(x->sh, t->rec.fh, -1, false);
		return ret ? ret : RP_E_DEVICE;
	}
	/* An open of an existing object: it never creates one. */
	return open_common(x, t, dfd, open_flags(t->rec.flags_arg) & ~(O_CREAT | O_EXCL), 0,
			   false);
}

static int64_t exec_create(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = entry_at(x, t, t->path, t->rec.name, x->name, &dfd);

	if (ret)
		return ret;
	return open_common(x, t, dfd, open_flags(t->rec.flags_arg) | O_CREAT,
			   umasked(&t->rec, 07777), false);
}

/*
 * glibc's opendir() opens with O_RDONLY | O_NDELAY | O_DIRECTORY and then
 * fstat()s the descriptor (opendir_tail(), to size its buffer); FUSE sees
 * that fstat only when the directory's attributes are not cached, as a
 * GETATTR right after the OPENDIR (sched.c absorbs it). So an OPENDIR with
 * O_NONBLOCK is an opendir(), and its fstat is issued here; one without
 * (open(O_DIRECTORY) by hand, musl's opendir) is an open alone.
 */
static int64_t exec_opendir(struct rp_exec *x, const struct rp_task *t)
{
	struct stat st;
	int dfd, fd, ret = obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	fd = openat(dfd, x->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if ((t->rec.flags_arg & O_NONBLOCK) && fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return handle_add(x->sh, t->rec.fh, fd, true);
}

static int64_t exec_read(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = io_handle(x->sh, t->rec.fh, &ret);

	if (!h)
		return ret;
	ret = grow_buf(&x->buf, &x->bufcap, t->rec.size, false);
	if (!ret)
		ret = SYSVAL(pread(h->fd, x->buf, t->rec.size, (off_t)t->rec.offset));
	handle_put(h);
	return ret;
}

static int64_t exec_write(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = io_handle(x->sh, t->rec.fh, &ret);

	if (!h)
		return ret;
	ret = grow_buf(&x->rnd, &x->rndcap, t->rec.size, true);
	if (!ret)
		ret = SYSVAL(pwrite(h->fd, x->rnd, t->rec.size, (off_t)t->rec.offset));
	handle_put(h);
	return ret;
}

static int64_t exec_release(struct rp_exec *x, const struct rp_task *t)
{
	return handle_remove(x->sh, t->rec.fh) ? 0 : RP_E_UNKNOWN;
}

static int64_t fsync_common(struct rp_exec *x, const struct rp_task *t, bool data)
{
	int64_t ret;
	struct rp_handle *h = io_handle(x->sh, t->rec.fh, &ret);

	if (!h)
		return ret;
	ret = data ? SYSRET(fdatasync(h->fd)) : SYSRET(fsync(h->fd));
	handle_put(h);
	return ret;
}

static int64_t exec_fsync(struct rp_exec *x, const struct rp_task *t)
{
	return fsync_common(x, t, false);
}

static int64_t exec_fdatasync(struct rp_exec *x, const struct rp_task *t)
{
	return fsync_common(x, t, true);
}

static int64_t exec_fsyncdir(struct rp_exec *x, const struct rp_task *t)
{
	return fsync_common(x, t, t->rec.flags_arg & 1);
}

static uint64_t name_hash(const uint8_t *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h ? h : 1;
}

static bool is_dot(const uint8_t *p, size_t len)
{
	return (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.');
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The root's entry with this name hash that the replay found, or NULL. */
static struct rp_foreign *foreign_find(const struct rp_shared *sh, uint64_t hash)
{
	size_t lo = 0, hi = sh->nforeign;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sh->foreign[mid].hash == hash)
			return &sh->foreign[mid];
		if (sh->foreign[mid].hash < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * At the end of a listing of the root: its live entries that were there
 * when the replay started and that the trace has not named by now count as
 * listed (h->mu held).
 */
static void forgive_foreign(const struct rp_shared *sh, struct rp_handle *h)
{
	size_t i;

	for (i = 0; i < sh->nforeign; i++) {
		const uint64_t *p;

		if (atomic_load(&sh->foreign[i].known) ||
		    !(p = bsearch(&sh->foreign[i].hash, h->names, h->nnames, sizeof(*h->names),
				  cmp_u64)) ||
		    h->seen[p - h->names])
			continue;
		h->seen[p - h->names] = 1;
		h->unseen--;
		h->rec_total++;
	}
}

/*
 * Appends the name hashes of directory fd's entries ("." and ".." left out)
 * to names[0..*n) (capacity *cap), from where fd is. 0 or -errno.
 */
static int read_names(int fd, uint8_t *buf, uint64_t **names, size_t *n, size_t *cap)
{
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, DENTS_BUF);
		long off = 0;

		if (got < 0)
			return -errno;
		if (got == 0)
			return 0;
		while (off < got) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			size_t len = strlen(d->d_name);
			uint64_t k;

			off += d->d_reclen;
			if (is_dot((const uint8_t *)d->d_name, len))
				continue;
			k = name_hash((const uint8_t *)d->d_name, len);
			if (*n == *cap) {
				size_t c = *cap ? 2 * *cap : 64;
				uint64_t *p = realloc(*names, c * sizeof(*p));

				if (!p)
					return -ENOMEM;
				*names = p;
				*cap = c;
			}
			(*names)[(*n)++] = k;
		}
	}
}

/* Lists the root as the replay finds it: sh->foreign. */
static int foreign_snapshot(struct rp_shared *sh)
{
	uint8_t *buf = malloc(DENTS_BUF);
	uint64_t *names = NULL;
	size_t n = 0, cap = 0, i;
	int fd = openat(sh->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (fd < 0) {
		free(buf);
		return -errno;
	}
	ret = buf ? read_names(fd, buf, &names, &n, &cap) : -ENOMEM;
	close(fd);
	free(buf);
	if (!ret && n && !(sh->foreign = calloc(n, sizeof(*sh->foreign))))
		ret = -ENOMEM;
	if (!ret && n) {
		qsort(names, n, sizeof(*names), cmp_u64);
		for (i = 0; i < n; i++)
			if (!sh->nforeign || sh->foreign[sh->nforeign - 1].hash != names[i])
				sh->foreign[sh->nforeign++].hash = names[i];
	}
	free(names);
	return ret;
}

void rp_shared_note_root_name(struct rp_shared *sh, struct fstap_bytes name)
{
	struct rp_foreign *f;

	if (sh->nforeign && (f = foreign_find(sh, name_hash(name.ptr, name.len))))
		atomic_store(&f->known, true);
}

struct live_name {
	uint64_t hash;
	uint32_t off;
};

static int cmp_live(const void *a, const void *b)
{
	return cmp_u64(&((const struct live_name *)a)->hash, &((const struct live_name *)b)->hash);
}

/* Keeps name (len bytes) in h->name_buf; its offset, or -ENOMEM. */
static int64_t keep_name(struct rp_handle *h, const char *name, size_t len)
{
	size_t off = h->name_len;

	if (off + len + 1 > h->name_cap || off > UINT32_MAX) {
		size_t c = h->name_cap ? 2 * h->name_cap : 4096;
		char *p;

		while (c < off + len + 1)
			c *= 2;
		if (off > UINT32_MAX || !(p = realloc(h->name_buf, c)))
			return -ENOMEM;
		h->name_buf = p;
		h->name_cap = c;
	}
	memcpy(h->name_buf + off, name, len + 1);
	h->name_len += len + 1;
	return (int64_t)off;
}

/*
 * With a divergence log, the live names too: names[] and name_off[] in
 * hash order (sorted as pairs, then split).
 */
static int keep_live_names(struct rp_handle *h)
{
	struct live_name *v = malloc((h->nnames + 1) * sizeof(*v));
	uint32_t *off = realloc(h->name_off, (h->nnames + 1) * sizeof(*off));
	size_t i;

	if (off)
		h->name_off = off;
	if (!v || !off) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < h->nnames; i++)
		v[i] = (struct live_name){ h->names[i], h->name_off[i] };
	qsort(v, h->nnames, sizeof(*v), cmp_live);
	for (i = 0; i < h->nnames; i++) {
		h->names[i] = v[i].hash;
		h->name_off[i] = v[i].off;
	}
	free(v);
	return 0;
}

/*
 * Reads the whole directory with getdents64 into h's sorted name hashes
 * (and, with a divergence log, the names: name_off[] first holds them in
 * listing order, keep_live_names sorts them with the hashes).
 */
static int list_dir(struct rp_exec *x, struct rp_handle *h)
{
	size_t cap = h->nnames;
	bool keep = x->sh->divlog != NULL;
	uint8_t *seen;

	h->nnames = 0;
	h->name_len = 0;
	if (h->listed && lseek(h->fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		long n = syscall(SYS_getdents64, h->fd, x->buf, DENTS_BUF);
		long off = 0;

		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		while (off < n) {
			struct dirent64 *d = (struct dirent64 *)(x->buf + off);
			size_t len = strlen(d->d_name);

			off += d->d_reclen;
			if (is_dot((const uint8_t *)d->d_name, len))
				continue;
			if (h->nnames == cap) {
				size_t c = cap ? 2 * cap : 64;
				uint64_t *p = realloc(h->names, c * sizeof(*p));

				if (!p)
					return -ENOMEM;
				h->names = p;
				if (keep) {
					uint32_t *q = realloc(h->name_off, c * sizeof(*q));

					if (!q)
						return -ENOMEM;
					h->name_off = q;
				}
				cap = c;
			}
			if (keep) {
				int64_t o = keep_name(h, d->d_name, len);

				if (o < 0)
					return (int)o;
				h->name_off[h->nnames] = (uint32_t)o;
			}
			h->names[h->nnames++] = name_hash((const uint8_t *)d->d_name, len);
		}
	}
	if (keep) {
		int ret = keep_live_names(h);

		if (ret)
			return ret;
	} else if (h->nnames) {
		qsort(h->names, h->nnames, sizeof(*h->names), cmp_u64);
	}
	seen = realloc(h->seen, h->nnames + 1);
	if (!seen)
		return -ENOMEM;
	h->seen = seen;
	memset(h->seen, 0, h->nnames);
	h->unseen = h->nnames;
	h->listed = true;
	h->consumed = false;
	h->rec_total = 0;
	return 0;
}

/* The live names of h no recorded entry of the listing named (h->mu held). */
static json_t *unseen_names(const struct rp_handle *h)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; h->name_off && i < h->nnames; i++)
		if (!h->seen[i])
			json_array_append_new(a, json_string_nocheck(h->name_buf + h->name_off[i]));
	return a;
}

static int64_t exec_readdir(struct rp_exec *x, const struct rp_task *t)
{
	const struct fstap_rec *r = &t->rec;
	struct rp_handle *h = handle_get(x->sh, r->fh);
	struct rp_divlog *log = x->sh->divlog;
	json_t *missing = NULL, *extra = NULL;
	int64_t ret = 0;
	bool differs = false;
	uint32_t i;

	if (!h)
		return RP_E_UNKNOWN;
	if (!h->dir) {
		handle_put(h);
		return -ENOTDIR;
	}
	pthread_mutex_lock(&h->mu);
	/* A listing per opendir; offset 0 again (rewinddir) lists again. */
	if (!h->listed || (r->offset == 0 && h->consumed))
		ret = list_dir(x, h);
	if (!ret) {
		h->consumed = true;
		for (i = 0; i < r->nentries; i++) {
			const struct fstap_dirent *e = &r->entries[i];
			const uint64_t *p;
			uint64_t k;

			if (is_dot(e->name.ptr, e->name.len))
				continue;
			h->rec_total++;
			k = name_hash(e->name.ptr, e->name.len);
			p = bsearch(&k, h->names, h->nnames, sizeof(k), cmp_u64);
			if (!p) {
				differs = true;
				if (log && !missing)
					missing = json_array();
				if (missing)
					json_array_append_new(missing, json_stringn_nocheck(
						(const char *)e->name.ptr, e->name.len));
			} else if (!h->seen[p - h->names]) {
				h->seen[p - h->names] = 1;
				h->unseen--;
			}
		}
		/* The end of the recorded listing: did it name every live entry,
		 * once (but what the root came with and the trace never knew)? */
		if (r->result == 0 && !r->nentries && r->obj == FSTAP_ROOT_OBJ)
			forgive_foreign(x->sh, h);
		if (r->result == 0 && !r->nentries && (h->rec_total != h->nnames || h->unseen)) {
			differs = true;
			if (log)
				extra = unseen_names(h);
		}
		ret = r->result >= 0 ? r->result : 0;
	}
	pthread_mutex_unlock(&h->mu);
	handle_put(h);
	if (differs)
		note_div(x, t, RP_DIV_ENTRIES, 0, ret, log ? (missing ? missing : json_array()) : NULL,
			 log ? (extra ? extra : json_array()) : NULL);
	return ret;
}

static int64_t exec_statfs(struct rp_exec *x, const struct rp_task *t)
{
	struct statfs sf;

	(void)t;
	return SYSRET(fstatfs(x->sh->root_fd, &sf));
}

static int64_t exec_access(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	return SYSRET(faccessat(dfd, x->name, (int)(t->rec.mode & 7), AT_SYMLINK_NOFOLLOW));
}

/* ---- executors: xattrs ---------------------------------------------------- */

/* Enters the object's directory; x->name is then the object's name there. */
static int xattr_at(struct rp_exec *x, const struct rp_task *t)
{
	int dfd, ret = obj_at(x, t, t->path, x->name, &dfd);

	if (ret)
		return ret;
	return enter_dir(x, dfd);
}

static int64_t exec_setxattr(struct rp_exec *x, const struct rp_task *t)
{
	int ret = cstr(t->rec.name, x->name2);

	if (ret || (ret = xattr_at(x, t)))
		return ret;
	if (t->rec.size > 65536)
		return -E2BIG;
	if (t->rec.value.len == t->rec.size)	/* the recorded value, or none (size 0) */
		return SYSRET(lsetxattr(x->name, x->name2, t->rec.value.ptr, t->rec.size,
					(int)(t->rec.flags_arg & 3)));
	/* left out by the recorder (or an older trace): pseudo-random bytes of its size */
	if ((ret = grow_buf(&x->rnd, &x->rndcap, t->rec.size, true)))
		return ret;
	return SYSRET(lsetxattr(x->name, x->name2, x->rnd, t->rec.size,
				(int)(t->rec.flags_arg & 3)));
}

static int64_t exec_getxattr(struct rp_exec *x, const struct rp_task *t)
{
	int ret = cstr(t->rec.name, x->name2);

	if (ret || (ret = xattr_at(x, t)))
		return ret;
	if ((ret = grow_buf(&x->buf, &x->bufcap, t->rec.size, false)))
		return ret;
	return SYSVAL(lgetxattr(x->name, x->name2, t->rec.size ? x->buf : NULL, t->rec.size));
}

/* What a listxattr of len bytes into the recorded buffer size returns. */
static int64_t list_result(const struct rp_task *t, size_t len)
{
	return t->rec.size && len > t->rec.size ? -ERANGE : (int64_t)len;
}

/*
 * The call as recorded. Only when its result differs from the recording
 * does the target's list get a second look, whole (a second call when the
 * first had no room for it): a target that lists names of its own (xfs's
 * copies of the ACLs, fstap/xattr.h) is not a divergence when the list
 * without them gives the recorded result for the recorded size.
 */
static int64_t exec_listxattr(struct rp_exec *x, const struct rp_task *t)
{
	size_t need = t->rec.size > XATTR_LIST_MAX ? t->rec.size : XATTR_LIST_MAX;
	int ret = xattr_at(x, t);
	int64_t n, whole, mine;

	if (ret)
		return ret;
	if ((ret = grow_buf(&x->buf, &x->bufcap, need, false)))
		return ret;
	n = SYSVAL(llistxattr(x->name, t->rec.size ? (char *)x->buf : NULL, t->rec.size));
	if (n == t->rec.result || (n < 0 && n != -ERANGE))
		return n;
	whole = n >= 0 && t->rec.size ? n
		: SYSVAL(llistxattr(x->name, (char *)x->buf, XATTR_LIST_MAX));
	if (whole < 0)
		return n;
	mine = list_result(t, fstap_xattr_list_len_without_fs_own((char *)x->buf, (size_t)whole));
	return mine == t->rec.result ? mine : n;
}

static int64_t exec_removexattr(struct rp_exec *x, const struct rp_task *t)
{
	int ret = cstr(t->rec.name, x->name2);

	if (ret || (ret = xattr_at(x, t)))
		return ret;
	return SYSRET(lremovexattr(x->name, x->name2));
}

/* ---- executors: ranges ---------------------------------------------------- */

static int64_t exec_fallocate(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = io_handle(x->sh, t->rec.fh, &ret);

	if (!h)
		return ret;
	ret = SYSRET(fallocate(h->fd, (int)(t->rec.flags_arg & 0x7f), (off_t)t->rec.offset,
			       (off_t)t->rec.size));
	handle_put(h);
	return ret;
}

static int64_t exec_copy_file_range(struct rp_exec *x, const struct rp_task *t)
{
	loff_t in = (loff_t)t->rec.offset, out = (loff_t)t->rec.offset2;
	int64_t ret = 0;
	struct rp_handle *a = io_handle(x->sh, t->rec.fh, &ret), *b = NULL;

	if (a)
		b = io_handle(x->sh, t->rec.fh2, &ret);
	if (a && b)
		ret = SYSVAL(copy_file_range(a->fd, &in, b->fd, &out, t->rec.size, 0));
	if (a)
		handle_put(a);
	if (b)
		handle_put(b);
	return ret;
}

static int64_t exec_lseek(struct rp_exec *x, const struct rp_task *t)
{
	int64_t ret;
	struct rp_handle *h = io_handle(x->sh, t->rec.fh, &ret);

	if (!h)
		return ret;
	ret = t->rec.whence > SEEK_HOLE ? -EINVAL
		: SYSVAL(lseek(h->fd, (off_t)t->rec.offset, (int)t->rec.whence));
	handle_put(h);
	return ret;
}

/* ---- executors: ioctls ---------------------------------------------------- */

/* The get command of a set command's attributes. */
static unsigned long fileattr_get_cmd(uint64_t cmd)
{
	return fstap_fileattr_is_flags(cmd) ? FS_IOC_GETFLAGS : FS_IOC_FSGETXATTR;
}

/*
 * The file attribute ioctls (fstap/fileattr.h) on the live handle. A get
 * is issued as recorded. A set first reads the target's attributes and
 * changes what the application could change: for FS_IOC_SETFLAGS the flags
 * chattr sets (fstap_fileattr_merge_flags), so that flags of the recording
 * file system's own (ext4's extents flag) are not imposed on another; for
 * FS_IOC_FSSETXATTR xflags, extent size hints and project id as recorded.
 * A set that failed when recorded is not issued: the replay runs as root,
 * and making a file append-only that the application could not would make
 * every later write diverge. Other commands were refused by the recording
 * FUSE mount (ENOTTY) and are not issued either: their recorded result
 * stands.
 */
static int64_t exec_ioctl(struct rp_exec *x, const struct rp_task *t)
{
	uint64_t cmd = t->rec.cmd;
	union fstap_fileattr_arg a, cur;
	struct rp_handle *h;
	int64_t ret;

	if (!fstap_fileattr_size(cmd) || (fstap_fileattr_sets(cmd) && t->rec.result < 0))
		return t->rec.result;
	h = handle_get(x->sh, t->rec.fh);
	if (!h)
		return RP_E_UNKNOWN;
	memset(&a, 0, sizeof(a));
	if (!fstap_fileattr_sets(cmd)) {
		ret = SYSRET(ioctl(h->fd, (unsigned long)cmd, &a));
	} else if (!(ret = SYSRET(ioctl(h->fd, fileattr_get_cmd(cmd), &cur)))) {
		a = cur;
		fstap_fileattr_from_rec(&a, &t->rec);
		if (fstap_fileattr_is_flags(cmd))
			a.flags = fstap_fileattr_merge_flags(cur.flags, a.flags);
		ret = SYSRET(ioctl(h->fd, (unsigned long)cmd, &a));
	}
	handle_put(h);
	return ret;
}

/* ---- the table ---------------------------------------------------------- */

#define EX(op, fn) [FSTAP_OP_##op] = { fn, NULL }
#define NOT(op, why) [FSTAP_OP_##op] = { NULL, why }

const struct rp_exec_op rp_exec_ops[FSTAP_OP_NR] = {
	NOT(NONE, "not an operation"),
	EX(LOOKUP, exec_lookup),
	EX(GETATTR, exec_getattr),
	EX(SETATTR, exec_setattr),
	EX(READLINK, exec_readlink),
	EX(MKNOD, exec_mknod),
	EX(MKDIR, exec_mkdir),
	EX(UNLINK, exec_unlink),
	EX(RMDIR, exec_rmdir),
	EX(SYMLINK, exec_symlink),
	EX(RENAME, exec_rename),
	EX(LINK, exec_link),
	EX(OPEN, exec_open),
	EX(CREATE, exec_create),
	EX(READ, exec_read),
	EX(WRITE, exec_write),
	NOT(FLUSH, "part of close(2): the close is issued at release"),
	EX(RELEASE, exec_release),
	EX(FSYNC, exec_fsync),
	EX(FDATASYNC, exec_fdatasync),
	EX(OPENDIR, exec_opendir),
	EX(READDIR, exec_readdir),
	EX(RELEASEDIR, exec_release),
	EX(FSYNCDIR, exec_fsyncdir),
	EX(STATFS, exec_statfs),
	EX(ACCESS, exec_access),
	EX(SETXATTR, exec_setxattr),
	EX(GETXATTR, exec_getxattr),
	EX(LISTXATTR, exec_listxattr),
	EX(REMOVEXATTR, exec_removexattr),
	EX(FALLOCATE, exec_fallocate),
	EX(COPY_FILE_RANGE, exec_copy_file_range),
	EX(LSEEK, exec_lseek),
	NOT(FORGET, "the kernel's cache bookkeeping, not a system call"),
	EX(IOCTL, exec_ioctl),
	NOT(PROCESS, "metadata record"),
	NOT(STATE_INODE, "initial state: fstap prepare"),
	NOT(STATE_DENTRY, "initial state: fstap prepare"),
	NOT(LOSS, "metadata record"),
	NOT(FOOTER, "metadata record"),
	NOT(WATERMARK, "metadata record"),
};

/* --order=none: counts an op that runs after a later-recorded op on a resource. */
static void track_order(struct rp_exec *x, const struct rp_task *t)
{
	struct rp_shared *sh = x->sh;
	uint32_t i;

	pthread_mutex_lock(&sh->omu);
	for (i = 0; i < t->nres; i++) {
		uint64_t *v = rp_map_get(&sh->order, t->res[i]);

		if (v && *v > t->seq)
			x->st->out_of_order++;
		else if (v)
			*v = t->seq;
		else
			rp_map_put(&sh->order, t->res[i], t->seq);
	}
	pthread_mutex_unlock(&sh->omu);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t rp_exec_run(struct rp_exec *x, const struct rp_task *t)
{
	unsigned op = t->rec.op, err;
	enum rp_div_kind kind;
	uint64_t t0, lat;
	int64_t res;

	if (op >= FSTAP_OP_NR || !rp_exec_ops[op].fn)
		return 0;
	if (x->sh->track_order)
		track_order(x, t);
	t0 = now_ns();
	res = rp_exec_ops[op].fn(x, t);
	lat = now_ns() - t0;
	exec_release_dirs(x);
	if (res == RP_E_DEVICE_IO) {
		x->st->device_io++;	/* through a device node's refused open: not issued */
		return res;
	}
	rp_stats_add(x->st, op, res, lat);
	if (rp_diverges(op, t->rec.result, res, &kind, &err)) {
		if (t->raced) {
			x->st->raced++;
		} else {
			note_div(x, t, kind, err, res, NULL, NULL);
		}
	}
	return res;
}
