/*
 * order.c: the access order analysis of `fstap report`: in which order the
 * files of a listed directory are opened, compared with the listing's
 * readdir order, name order and inode order (Spearman's rho, rank.c).
 *
 * A *listing* is one process reading a directory from offset 0 (one handle,
 * over as many readdir calls as it takes). A *reading* is the first opens of
 * the listed entries, related to one listing:
 *
 * - a process that listed the directory itself reads its own latest
 *   listing, until it lists the directory again;
 * - the processes that did not list it read the directory's latest listing
 *   by anyone, all in one reading (a `find | sort | xargs cat` or `find
 *   -exec cat {} +` pipeline: find lists, cat opens, and xargs or find may
 *   start several cat processes one after the other); when the directory
 *   is listed again, their next open of one of its files starts a reading
 *   of the new listing.
 *
 * Each reading with at least one open gives a row: the directory, the
 * lister's pid, the readers' pids, and the three correlations. Listings are
 * shared by their readings and freed with the last of them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "fstap/name.h"

struct listing {
	uint64_t dir, fh;
	uint32_t pid;
	unsigned refs;			/* readings, and the directory while latest */
	struct an_objtab *index;	/* entry obj -> .listing.pos */
	struct ent {
		uint64_t obj, ino;
		uint8_t *name;
		uint32_t name_len;
	} *ent;
	size_t nent, cap;
};

struct reading {
	struct listing *ls;
	bool own;			/* by the lister; else by the others */
	uint32_t *readers;		/* pids, in the order of their first open */
	size_t nreaders, capreaders;
	struct an_objtab *seen;		/* entry obj -> .reading.opened */
	uint32_t *opened;		/* entry positions in first-open order */
	size_t nopened, capopened;
	struct reading *next;
};

struct dirstate {
	struct listing *latest;
	struct reading *readings;	/* own readings, one per lister pid */
	struct reading *others;		/* of the processes that did not list it */
};

struct an_access {
	struct an_objtab *dirs;		/* dir obj -> priv struct dirstate */
	struct an_access_row *rows;	/* their readers arrays are owned here */
	size_t nrows, caprows;
	int oom;
};

int an_access_new(struct an_access **out)
{
	struct an_access *o = calloc(1, sizeof(*o));

	if (!o || an_objtab_new(&o->dirs)) {
		free(o);
		return -ENOMEM;
	}
	*out = o;
	return 0;
}

static void listing_put(struct listing *ls)
{
	size_t i;

	if (!ls || --ls->refs)
		return;
	for (i = 0; i < ls->nent; i++)
		free(ls->ent[i].name);
	free(ls->ent);
	an_objtab_free(ls->index);
	free(ls);
}

static void reading_free(struct reading *rd)
{
	listing_put(rd->ls);
	free(rd->readers);
	an_objtab_free(rd->seen);
	free(rd->opened);
	free(rd);
}

/* qsort_r comparators over indexes into rd->opened */
static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const struct reading *rd = arg;
	const struct ent *x = &rd->ls->ent[rd->opened[*(const size_t *)a]];
	const struct ent *y = &rd->ls->ent[rd->opened[*(const size_t *)b]];

	return an_cmp_names(x->name, x->name_len, y->name, y->name_len);
}

static int cmp_by_ino(const void *a, const void *b, void *arg)
{
	const struct reading *rd = arg;
	uint64_t x = rd->ls->ent[rd->opened[*(const size_t *)a]].ino;
	uint64_t y = rd->ls->ent[rd->opened[*(const size_t *)b]].ino;

	return (x > y) - (x < y);
}

/*
 * Keys for an_spearman that order the opened entries by name or by inode:
 * the position in the sorted order, equal for equal names or inodes (hard
 * links), so that doubles hold them exactly whatever the inode numbers.
 */
static double *order_keys(const struct reading *rd,
			  int (*cmp)(const void *, const void *, void *))
{
	size_t n = rd->nopened, i, *idx = malloc(n * sizeof(*idx));
	double *k = malloc(n * sizeof(*k));

	if (!idx || !k) {
		free(idx);
		free(k);
		return NULL;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp, (void *)rd);
	for (i = 0; i < n; i++)
		k[idx[i]] = (i && !cmp(&idx[i - 1], &idx[i], (void *)rd)) ? k[idx[i - 1]] : (double)i;
	free(idx);
	return k;
}

static int reading_rho(const struct reading *rd, double rho[AN_ORD_NR])
{
	size_t i, n = rd->nopened, known;
	double *x = malloc(n * sizeof(*x)), *y = malloc(n * sizeof(*y));

	if (!x || !y)
		goto oom;
	for (i = 0; i < n; i++) {
		x[i] = (double)i;
		y[i] = (double)rd->opened[i];	/* listing position */
	}
	rho[AN_ORD_READDIR] = an_spearman(x, y, n);
	free(y);
	if (!(y = order_keys(rd, cmp_by_name)))
		goto oom;
	rho[AN_ORD_NAME] = an_spearman(x, y, n);
	free(y);
	if (!(y = order_keys(rd, cmp_by_ino)))
		goto oom;
	for (i = 0, known = 0; i < n; i++)
		known += rd->ls->ent[rd->opened[i]].ino != 0;
	/* an unknown inode number (0) would rank first: no inode order then */
	rho[AN_ORD_INODE] = known == n ? an_spearman(x, y, n) : NAN;
	free(x);
	free(y);
	return 0;
oom:
	free(x);
	free(y);
	return -ENOMEM;
}

static int add_row(struct an_access *o, const struct an_access_row *row)
{
	if (FSTAP_GROW(o->rows, o->nrows + 1, o->caprows))
		return -ENOMEM;
	o->rows[o->nrows++] = *row;
	return 0;
}

/* Ends a reading: its row if it opened anything, then frees it. */
static void reading_finish(struct an_access *o, struct reading *rd)
{
	struct an_access_row row = { .dir = rd->ls->dir, .lister = rd->ls->pid,
				    .readers = rd->readers, .nreaders = rd->nreaders,
				    .files = rd->nopened, .listed = rd->ls->nent };

	if (rd->nopened && (reading_rho(rd, row.rho) || add_row(o, &row)))
		o->oom = 1;
	else if (rd->nopened)
		rd->readers = NULL;	/* the row's now */
	reading_free(rd);
}

static struct dirstate *dir_state(struct an_access *o, uint64_t dir, bool create)
{
	struct an_obj *d = create ? an_objtab_add(o->dirs, dir) : an_objtab_get(o->dirs, dir);

	if (d && !d->priv && create)
		d->priv = calloc(1, sizeof(struct dirstate));
	return d ? d->priv : NULL;
}

/* The own reading of pid in ds (taken out of the list when unlink), or NULL. */
static struct reading *find_reading(struct dirstate *ds, uint32_t pid, bool unlink)
{
	struct reading **pp, *rd;

	for (pp = &ds->readings; (rd = *pp); pp = &rd->next) {
		if (rd->ls->pid != pid)
			continue;
		if (unlink) {
			*pp = rd->next;
			rd->next = NULL;
		}
		return rd;
	}
	return NULL;
}

/* A new reading of ls: the lister's own (linked in ds), or the others'. */
static struct reading *reading_new(struct dirstate *ds, struct listing *ls, bool own)
{
	struct reading *rd = calloc(1, sizeof(*rd));

	if (!rd || an_objtab_new(&rd->seen)) {
		free(rd);
		return NULL;
	}
	rd->ls = ls;
	ls->refs++;
	rd->own = own;
	if (own) {
		rd->next = ds->readings;
		ds->readings = rd;
	} else {
		ds->others = rd;
	}
	return rd;
}

static int add_reader(struct reading *rd, uint32_t pid)
{
	size_t i;

	for (i = rd->nreaders; i-- > 0;)
		if (rd->readers[i] == pid)
			return 0;
	if (FSTAP_GROW(rd->readers, rd->nreaders + 1, rd->capreaders))
		return -ENOMEM;
	rd->readers[rd->nreaders++] = pid;
	return 0;
}

static struct listing *listing_new(struct dirstate *ds, const struct fstap_rec *rec)
{
	struct listing *ls = calloc(1, sizeof(*ls));

	if (!ls || an_objtab_new(&ls->index)) {
		free(ls);
		return NULL;
	}
	ls->dir = rec->obj;
	ls->fh = rec->fh;
	ls->pid = rec->pid;
	ls->refs = 1;
	listing_put(ds->latest);
	ds->latest = ls;
	return ls;
}

static int listing_add(struct listing *ls, const struct fstap_dirent *d,
		       struct an_objtab *objs)
{
	struct an_obj *o = an_objtab_add(ls->index, d->obj);
	const struct an_obj *known;
	struct ent *e;

	if (!o)
		return -ENOMEM;
	if (o->listing.pos)
		return 0;	/* listed twice (a directory changing under it) */
	if (FSTAP_GROW(ls->ent, ls->nent + 1, ls->cap))
		return -ENOMEM;
	e = &ls->ent[ls->nent];
	e->obj = d->obj;
	known = an_objtab_get(objs, d->obj);
	e->ino = known && known->ino_from_state ? known->ino : d->ino;
	e->name = malloc(d->name.len + 1);
	if (!e->name)
		return -ENOMEM;
	memcpy(e->name, d->name.ptr, d->name.len);
	e->name[d->name.len] = 0;
	e->name_len = d->name.len;
	o->listing.pos = ++ls->nent;
	return 0;
}

int an_access_listing(struct an_access *o, const struct fstap_rec *rec,
		     struct an_objtab *objs)
{
	struct dirstate *ds = dir_state(o, rec->obj, true);
	struct reading *rd;
	struct listing *ls;
	uint32_t i;
	int ret;

	if (!ds)
		return -ENOMEM;
	rd = find_reading(ds, rec->pid, false);
	if (rec->offset != 0 && rd && rd->ls->pid == rec->pid && rd->ls->fh == rec->fh) {
		ls = rd->ls;
	} else {
		/* a new listing: this process's reading of the directory is over */
		if (rd)
			reading_finish(o, find_reading(ds, rec->pid, true));
		ls = listing_new(ds, rec);
		if (!ls || !reading_new(ds, ls, true))
			return -ENOMEM;
	}
	for (i = 0; i < rec->nentries; i++) {
		const struct fstap_dirent *d = &rec->entries[i];

		if (fstap_name_dots(d->name.ptr, d->name.len) || !d->obj)
			continue;
		if ((ret = listing_add(ls, d, objs)))
			return ret;
	}
	return o->oom ? -ENOMEM : 0;
}

int an_access_open(struct an_access *o, uint32_t pid, uint64_t dir, uint64_t file)
{
	struct dirstate *ds = dir_state(o, dir, false);
	struct reading *rd;
	struct an_obj *pos, *seen;

	if (!ds || !ds->latest)
		return 0;
	rd = find_reading(ds, pid, false);
	if (!rd && ds->others && ds->others->ls != ds->latest) {
		/* listed again since the others' reading began: a new reading */
		reading_finish(o, ds->others);
		ds->others = NULL;
	}
	if (!rd && !(rd = ds->others) && !(rd = reading_new(ds, ds->latest, false)))
		return -ENOMEM;
	pos = an_objtab_get(rd->ls->index, file);
	if (!pos)
		return o->oom ? -ENOMEM : 0;
	if (!(seen = an_objtab_add(rd->seen, file)))
		return -ENOMEM;
	if (seen->reading.opened)
		return 0;
	seen->reading.opened = true;
	if (add_reader(rd, pid))
		return -ENOMEM;
	if (FSTAP_GROW(rd->opened, rd->nopened + 1, rd->capopened))
		return -ENOMEM;
	rd->opened[rd->nopened++] = (uint32_t)(pos->listing.pos - 1);
	return o->oom ? -ENOMEM : 0;
}

static void end_dir(struct an_obj *d, void *arg)
{
	struct an_access *o = arg;
	struct dirstate *ds = d->priv;
	struct reading *rd;

	if (!ds)
		return;
	if (ds->others) {
		ds->others->next = ds->readings;
		ds->readings = ds->others;
	}
	while ((rd = ds->readings)) {
		ds->readings = rd->next;
		if (o)
			reading_finish(o, rd);
		else
			reading_free(rd);
	}
	listing_put(ds->latest);
	free(ds);
	d->priv = NULL;
}

int an_access_finish(struct an_access *o, const struct an_access_row **rows, size_t *n)
{
	an_objtab_each(o->dirs, end_dir, o);
	*rows = o->rows;
	*n = o->nrows;
	return o->oom ? -ENOMEM : 0;
}

int an_access_forget(struct an_access *o, uint64_t dir)
{
	struct an_obj *d = an_objtab_get(o->dirs, dir);
	size_t before = o->nrows;

	if (!d)
		return 0;
	end_dir(d, o);
	an_objtab_del(o->dirs, dir);
	return o->oom ? -ENOMEM : o->nrows > before;
}

void an_access_free(struct an_access *o)
{
	size_t i;

	if (!o)
		return;
	an_objtab_each(o->dirs, end_dir, NULL);
	an_objtab_free(o->dirs);
	for (i = 0; i < o->nrows; i++)
		free((uint32_t *)o->rows[i].readers);
	free(o->rows);
	free(o);
}
