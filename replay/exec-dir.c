/*
 * exec-dir.c: the executor of readdir. A listing is compared as a set: the
 * live directory is read whole (getdents64) into sorted name hashes, each
 * recorded entry is looked up there, and at the end of the recorded
 * listing every live entry must have been named once. The root's entries
 * that the target came with and the trace never named are forgiven.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fstap/name.h"
#include "exec_i.h"
static uint64_t name_hash(const uint8_t *p, size_t len)
{
	uint64_t h = fstap_hash_bytes(0, p, len);

	return h ? h : 1;
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
 * listed (l->mu held).
 */
static void forgive_foreign(const struct rp_shared *sh, struct rp_listing *l)
{
	size_t i;

	for (i = 0; i < sh->nforeign; i++) {
		const uint64_t *p;

		if (atomic_load(&sh->foreign[i].known) ||
		    !(p = bsearch(&sh->foreign[i].hash, l->names, l->nnames, sizeof(*l->names),
				  cmp_u64)) ||
		    l->seen[p - l->names])
			continue;
		l->seen[p - l->names] = 1;
		l->unseen--;
		l->rec_total++;
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
			if (fstap_name_dots(d->d_name, len))
				continue;
			k = name_hash((const uint8_t *)d->d_name, len);
			if (fstap_grow(names, cap, *n + 1, sizeof(**names)))
				return -ENOMEM;
			(*names)[(*n)++] = k;
		}
	}
}

/* Lists the root as the replay finds it: sh->foreign. */
int rp_foreign_snapshot(struct rp_shared *sh)
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

/* Keeps name (len bytes) in l->name_buf; its offset, or -ENOMEM. */
static int64_t keep_name(struct rp_listing *l, const char *name, size_t len)
{
	size_t off = l->name_len;

	if (off > UINT32_MAX || FSTAP_GROW(l->name_buf, off + len + 1, l->name_cap))
		return -ENOMEM;
	memcpy(l->name_buf + off, name, len + 1);
	l->name_len += len + 1;
	return (int64_t)off;
}

/*
 * With a divergence log, the live names too: names[] and name_off[] in
 * hash order (sorted as pairs, then split).
 */
static int keep_live_names(struct rp_listing *l)
{
	struct live_name *v = malloc((l->nnames + 1) * sizeof(*v));
	uint32_t *off = realloc(l->name_off, (l->nnames + 1) * sizeof(*off));
	size_t i;

	if (off)
		l->name_off = off;
	if (!v || !off) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < l->nnames; i++)
		v[i] = (struct live_name){ l->names[i], l->name_off[i] };
	qsort(v, l->nnames, sizeof(*v), cmp_live);
	for (i = 0; i < l->nnames; i++) {
		l->names[i] = v[i].hash;
		l->name_off[i] = v[i].off;
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
	struct rp_listing *l = h->ls;
	size_t cap = l->nnames;
	bool keep = x->sh->divlog != NULL;
	uint8_t *seen;

	l->nnames = 0;
	l->name_len = 0;
	if (l->listed && lseek(h->fd, 0, SEEK_SET) < 0)
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
			if (fstap_name_dots(d->d_name, len))
				continue;
			if (l->nnames == cap) {
				size_t c = cap;	/* both arrays grow alike from cap */

				if (FSTAP_GROW(l->names, l->nnames + 1, c) ||
				    (keep && FSTAP_GROW(l->name_off, l->nnames + 1, cap)))
					return -ENOMEM;
				cap = c;
			}
			if (keep) {
				int64_t o = keep_name(l, d->d_name, len);

				if (o < 0)
					return (int)o;
				l->name_off[l->nnames] = (uint32_t)o;
			}
			l->names[l->nnames++] = name_hash((const uint8_t *)d->d_name, len);
		}
	}
	if (keep) {
		int ret = keep_live_names(l);

		if (ret)
			return ret;
	} else if (l->nnames) {
		qsort(l->names, l->nnames, sizeof(*l->names), cmp_u64);
	}
	seen = realloc(l->seen, l->nnames + 1);
	if (!seen)
		return -ENOMEM;
	l->seen = seen;
	memset(l->seen, 0, l->nnames);
	l->unseen = l->nnames;
	l->listed = true;
	l->consumed = false;
	l->rec_total = 0;
	return 0;
}

/* The live names of h no recorded entry of the listing named (l->mu held). */
static json_t *unseen_names(const struct rp_listing *l)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; l->name_off && i < l->nnames; i++)
		if (!l->seen[i])
			json_array_append_new(a, json_string_nocheck(l->name_buf + l->name_off[i]));
	return a;
}

int64_t rp_exec_readdir(struct rp_exec *x, const struct rp_task *t)
{
	const struct fstap_rec *r = &t->rec;
	struct rp_handle *h = rp_handle_use(t->h);
	struct rp_divlog *log = x->sh->divlog;
	json_t *missing = NULL, *extra = NULL;
	struct rp_listing *l;
	int64_t ret = 0;
	bool differs = false;
	uint32_t i;

	if (!h)
		return RP_E_UNKNOWN;
	if (!h->dir) {
		rp_handle_put(h);
		return -ENOTDIR;
	}
	l = h->ls;
	pthread_mutex_lock(&l->mu);
	/* A listing per opendir; offset 0 again (rewinddir) lists again. */
	if (!l->listed || (r->offset == 0 && l->consumed))
		ret = list_dir(x, h);
	if (!ret) {
		l->consumed = true;
		for (i = 0; i < r->nentries; i++) {
			const struct fstap_dirent *e = &r->entries[i];
			const uint64_t *p;
			uint64_t k;

			if (fstap_name_dots(e->name.ptr, e->name.len))
				continue;
			l->rec_total++;
			k = name_hash(e->name.ptr, e->name.len);
			p = bsearch(&k, l->names, l->nnames, sizeof(k), cmp_u64);
			if (!p) {
				differs = true;
				if (log && !missing)
					missing = json_array();
				if (missing)
					json_array_append_new(missing, json_stringn_nocheck(
						(const char *)e->name.ptr, e->name.len));
			} else if (!l->seen[p - l->names]) {
				l->seen[p - l->names] = 1;
				l->unseen--;
			}
		}
		/* The end of the recorded listing: did it name every live entry,
		 * once (but what the root came with and the trace never knew)? */
		if (r->result == 0 && !r->nentries && r->obj == FSTAP_ROOT_OBJ)
			forgive_foreign(x->sh, l);
		if (r->result == 0 && !r->nentries && (l->rec_total != l->nnames || l->unseen)) {
			differs = true;
			if (log)
				extra = unseen_names(l);
		}
		ret = r->result >= 0 ? r->result : 0;
	}
	pthread_mutex_unlock(&l->mu);
	rp_handle_put(h);
	if (differs)
		rp_note_div(x, t, RP_DIV_ENTRIES, 0, ret, log ? (missing ? missing : json_array()) : NULL,
			 log ? (extra ? extra : json_array()) : NULL);
	return ret;
}
