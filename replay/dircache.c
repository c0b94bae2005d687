/*
 * dircache.c: directory O_PATH descriptors (openat2 beneath the root) keyed
 * by path and namespace generation, shared by all workers, so that each
 * directory is opened once however many workers use it (a
 * cache per worker would open it once per worker, and the replay would
 * issue more opens than the application). The generation moves at an rmdir
 * and at a rename that moves or replaces a directory (learn.c): what a path
 * names may have changed, so a task finds only entries of its own
 * generation. The dispatcher lists what each generation changes
 * (rp_shared_ns_change: the removed, moved and replaced entries' paths),
 * and the first task of a newer generation drops the entries at and below
 * those paths; every other path walks the same directories as in the
 * generation before, so its entry is kept (a rename of a directory does
 * not make every other directory be opened again), and serves the tasks
 * of every generation since it was opened: a worker that runs behind
 * another that removed a directory finds its own directories still open.
 * A task of a generation older than the table's (its worker behind another
 * that removed or moved the very directory it uses) opens the directory
 * and caches it for the tasks of its own generation. Bounded: at most
 * DIRCACHE_MAX descriptors in the table (least recently used goes), plus
 * the few an executor holds while it runs. An entry is reference counted:
 * an executor holds a reference on every directory it uses until it
 * returns (rp_exec_run), so a descriptor is never closed, nor its number
 * reused, under a system call of another worker.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fstap/list.h"
#include "fstap/name.h"
#include "exec_i.h"

FSTAP_QUEUE_DEFINE(lru, struct rp_dir, lprev, lnext)
uint64_t rp_shared_dir_opens(struct rp_shared *sh)
{
	uint64_t n;

	pthread_mutex_lock(&sh->dmu);
	n = sh->dir_opens;
	pthread_mutex_unlock(&sh->dmu);
	return n;
}

void rp_dir_unref(struct rp_dir *d)
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
	lru_unlink(&sh->lru_head, &sh->lru_tail, d);
	d->cached = false;
	sh->ndirs--;
	rp_dir_unref(d);
}

void rp_dircache_clear(struct rp_shared *sh)
{
	while (sh->lru_head)
		dir_uncache(sh, sh->lru_head);
}

/* Whether generation a is newer than b (wrapping). */
static bool gen_newer(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* A cached entry for path in generation gen, with a reference taken, or NULL. */
static struct rp_dir *dircache_get(struct rp_shared *sh, const char *path, uint64_t hash,
				   uint32_t gen)
{
	struct rp_dir *d;

	for (d = sh->dbucket[hash % DIRCACHE_BUCKETS]; d; d = d->hnext) {
		if (d->hash != hash || gen_newer(d->since, gen) || gen_newer(gen, d->gen) ||
		    strcmp(d->path, path))
			continue;
		d->refs++;
		if (sh->lru_head != d) {	/* to the head */
			lru_unlink(&sh->lru_head, &sh->lru_tail, d);
			lru_push_head(&sh->lru_head, &sh->lru_tail, d);
		}
		return d;
	}
	return NULL;
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
		rp_dircache_clear(sh);
	for (d = sh->lru_head; d; d = d->lnext)
		if (d->gen == sh->dgen)
			d->gen = gen;	/* (an older generation's entry stays its own) */
	sh->dgen = gen;
}

/*
 * A descriptor of directory dpath beneath the root, or < 0. The executor
 * holds it until it returns (rp_exec_run drops the reference).
 */
int rp_dir_hold(struct rp_exec *x, const struct rp_task *t, const char *dpath)
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
	if (dpath[0] == '/' && !dpath[1])
		return sh->root_fd;	/* most entries' directory: no walk to check */
	if (x->nheld == EXEC_HELD)
		return -EMFILE;		/* an executor uses at most two */
	hash = fstap_hash_bytes(0, dpath, strlen(dpath));
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
	*d = (struct rp_dir){ .hash = hash, .serial = ++sh->dserial, .since = t->ns_gen,
			      .gen = t->ns_gen, .refs = 1, .fd = fd };
	memcpy(d->path, dpath, len + 1);
	/* (a task of a generation older than the table's caches it for its
	 * generation only: since and gen are its, which advances leave) */
	if (sh->ndirs >= DIRCACHE_MAX)
		dir_uncache(sh, sh->lru_tail);
	d->cached = true;
	d->refs++;
	d->hnext = sh->dbucket[hash % DIRCACHE_BUCKETS];
	sh->dbucket[hash % DIRCACHE_BUCKETS] = d;
	lru_push_head(&sh->lru_head, &sh->lru_tail, d);
	sh->ndirs++;
	pthread_mutex_unlock(&sh->dmu);
held:
	x->held[x->nheld++] = d;
	return d->fd;
}

/* Drops the references the executor took on directories. */
void rp_exec_drop_dirs(struct rp_exec *x)
{
	unsigned i;

	if (!x->nheld)
		return;
	pthread_mutex_lock(&x->sh->dmu);
	for (i = 0; i < x->nheld; i++)
		rp_dir_unref(x->held[i]);
	pthread_mutex_unlock(&x->sh->dmu);
	x->nheld = 0;
}
