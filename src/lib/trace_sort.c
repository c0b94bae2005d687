/*
 * trace_sort.c: restores the time order of a trace's records with a
 * bounded reorder window (see sort.h): the window, a merge of the file's
 * sorted runs keyed by (start time, file position); the sorter, which
 * holds packed copies of the records in it (rec_pack.c) in slabs; and the
 * deep copy of a record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/sort.h"
#include "fstap/util.h"

uint64_t fstap_sort_window_ns(const struct fstap_trace_info *info)
{
	return 2 * info->meta.flush_interval_ns;
}

/* ---- the deep copy of a record ---------------------------------------------- */

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

size_t fstap_rec_clone_size(const struct fstap_rec *rec, enum fstap_clone_parts parts)
{
	size_t size, i;

	size = rec->nentries * sizeof(*rec->entries);
	size += rec->name.len + rec->newname.len + rec->target.len + rec->value.len;
	for (i = 0; i < rec->nentries; i++)
		size += rec->entries[i].name.len;
	if (parts == FSTAP_CLONE_OP)
		return size;
	size = ALIGN8(size) + rec->nxattrs * sizeof(*rec->xattrs) +
	       rec->nextents * sizeof(*rec->extents) +
	       rec->xattr_sizes.n * sizeof(*rec->xattr_sizes.v);
	size += rec->comm.len + rec->cmdline.len;
	for (i = 0; i < rec->nxattrs; i++)
		size += rec->xattrs[i].name.len + rec->xattrs[i].value.len;
	return size;
}

static void take_bytes(char **p, struct fstap_bytes *b)
{
	if (!b->len)
		return;
	memcpy(*p, b->ptr, b->len);
	b->ptr = (const uint8_t *)*p;
	*p += b->len;
}

/* n elements of size each from src at *p (aligned), or NULL if none. */
static void *take_array(char **p, const void *src, size_t n, size_t size)
{
	void *dst = *p;

	if (!n)
		return NULL;
	memcpy(dst, src, n * size);
	*p += n * size;
	return dst;
}

void fstap_rec_clone_into(struct fstap_rec *dst, void *data, const struct fstap_rec *rec,
			  enum fstap_clone_parts parts)
{
	struct fstap_dirent *ents;
	struct fstap_xattr *xattrs;
	char *p = data;
	size_t i;

	*dst = *rec;
	/* arrays first (aligned), then the bytes */
	ents = take_array(&p, rec->entries, rec->nentries, sizeof(*rec->entries));
	dst->entries = ents;
	if (parts == FSTAP_CLONE_OP) {
		dst->comm = dst->cmdline = (struct fstap_bytes){ 0 };
		dst->xattrs = NULL;
		dst->extents = NULL;
		dst->nxattrs = dst->nextents = 0;
		dst->xattr_sizes = (struct fstap_u64_list){ 0 };
	} else {
		xattrs = take_array(&p, rec->xattrs, rec->nxattrs, sizeof(*rec->xattrs));
		dst->xattrs = xattrs;
		dst->extents = take_array(&p, rec->extents, rec->nextents, sizeof(*rec->extents));
		dst->xattr_sizes.v = take_array(&p, rec->xattr_sizes.v, rec->xattr_sizes.n,
						sizeof(*rec->xattr_sizes.v));
		take_bytes(&p, &dst->comm);
		take_bytes(&p, &dst->cmdline);
		for (i = 0; i < rec->nxattrs; i++) {
			take_bytes(&p, &xattrs[i].name);
			take_bytes(&p, &xattrs[i].value);
		}
	}
	take_bytes(&p, &dst->name);
	take_bytes(&p, &dst->newname);
	take_bytes(&p, &dst->target);
	take_bytes(&p, &dst->value);
	for (i = 0; i < rec->nentries; i++)
		take_bytes(&p, &ents[i].name);
}

struct fstap_rec *fstap_rec_clone(const struct fstap_rec *rec)
{
	struct fstap_rec *c = malloc(sizeof(*c) + fstap_rec_clone_size(rec, FSTAP_CLONE_ALL));

	if (c)
		fstap_rec_clone_into(c, c + 1, rec, FSTAP_CLONE_ALL);
	return c;
}

/* ---- the window: a merge of sorted runs ------------------------------------- */

void fstap_window_init(struct fstap_window *w)
{
	memset(w, 0, sizeof(*w));
}

void fstap_window_release(struct fstap_window *w)
{
	free(w->heap);
	w->heap = NULL;
	w->n = w->cap = 0;
	w->tail = NULL;
}

static inline bool run_before(const struct fstap_wrun *a, const struct fstap_wrun *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return a->seq < b->seq;
}

static void sift_down(struct fstap_window *w, size_t i, struct fstap_wrun e)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= w->n)
			break;
		if (c + 1 < w->n && run_before(&w->heap[c + 1], &w->heap[c]))
			c++;
		if (!run_before(&w->heap[c], &e))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	w->heap[i] = e;
}

/* Adds it to the newest run if it comes no earlier than its tail, else starts a run. */
int fstap_window_push(struct fstap_window *w, struct fstap_witem *it)
{
	struct fstap_wrun e = { it->key, it->seq, it };
	struct fstap_witem *tail = w->tail;
	size_t i;

	it->next = NULL;
	if (tail && (it->key > tail->key || (it->key == tail->key && it->seq > tail->seq))) {
		tail->next = it;
		tail->next_key = it->key;
		tail->next_seq = it->seq;
		w->tail = it;
		return 0;
	}
	if (FSTAP_GROW(w->heap, w->n + 1, w->cap))
		return -ENOMEM;
	i = w->n++;
	while (i && run_before(&e, &w->heap[(i - 1) / 2])) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = e;
	w->tail = it;
	return 0;
}

struct fstap_witem *fstap_window_pop(struct fstap_window *w)
{
	struct fstap_witem *top, *next;

	if (!w->n)
		return NULL;
	top = w->heap[0].head;
	next = top->next;
	if (next) {
		/* the key of the next one is in top: next itself may not be in the cache */
		struct fstap_wrun e = { top->next_key, top->next_seq, next };

		if (w->prefetch)
			w->prefetch(next);
		sift_down(w, 0, e);
	} else {
		if (w->tail == top)
			w->tail = NULL;
		if (--w->n)
			sift_down(w, 0, w->heap[w->n]);
	}
	top->next = NULL;
	return top;
}

/* ---- the sorter --------------------------------------------------------------- */

/*
 * The sorter's copies are carved one after the other from slabs, in the
 * order they are read: no allocation per record, and a run's records lie
 * side by side. A slab goes back to the spares when the last record carved
 * from it is delivered; a record bigger than a quarter of a slab (a readdir
 * of many entries, a long cmdline) has an allocation of its own.
 */
#define SLAB_BYTES (64 * 1024)
#define SLAB_SPARES 8

struct slab {
	struct slab *next;	/* the next spare */
	size_t used;		/* bytes of data carved */
	size_t live;		/* records carved and not yet delivered */
	uint64_t data[];
};

/* What is carved; the slack past the last record stays readable (fstap_rec_unpack). */
#define SLAB_DATA (SLAB_BYTES - sizeof(struct slab) - FSTAP_REC_PACK_SLACK)

/* A record in the window: the item, its slab, then the record packed (fstap_rec_pack). */
struct held {
	struct fstap_witem it;	/* key: start_ns, or the latest start read before it */
	struct slab *slab;	/* NULL: an allocation of its own */
	uint64_t packed[];
};

struct fstap_sorter {
	struct fstap_reader *r;
	uint64_t window;
	uint64_t max_key;	/* the latest start time read so far */
	uint64_t last_out;	/* key of the last record delivered */
	uint64_t seq, late;
	bool eof;
	int error;
	struct fstap_window win;
	struct held *out;	/* delivered, released on the next call */
	struct slab *cur;	/* the slab records are carved from, or NULL */
	struct slab *spares;	/* empty slabs kept for reuse */
	unsigned nspares;
	fstap_sorter_read_fn *on_read;	/* or NULL */
	void *on_read_arg;
};

/* The packed record follows the item: fetch it as its run's head. */
static void prefetch_held(const struct fstap_witem *it)
{
	__builtin_prefetch(it);
	__builtin_prefetch((const char *)it + 64);
}

int fstap_sorter_new(struct fstap_sorter **out, struct fstap_reader *r, uint64_t window_ns)
{
	struct fstap_sorter *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->r = r;
	s->window = window_ns;
	fstap_window_init(&s->win);
	s->win.prefetch = prefetch_held;
	*out = s;
	return 0;
}

static void slab_drop(struct fstap_sorter *s, struct slab *sl)
{
	if (s->nspares >= SLAB_SPARES) {
		free(sl);
		return;
	}
	sl->next = s->spares;
	s->spares = sl;
	s->nspares++;
}

/* Room for a held record of size bytes (a multiple of 8), or NULL. */
static struct held *held_alloc(struct fstap_sorter *s, size_t size)
{
	struct slab *sl = s->cur;
	struct held *h;

	if (size > SLAB_DATA / 4) {
		h = malloc(size + FSTAP_REC_PACK_SLACK);
		if (h)
			h->slab = NULL;
		return h;
	}
	if (!sl || sl->used + size > SLAB_DATA) {
		if (sl && !sl->live)
			slab_drop(s, sl);
		if ((sl = s->spares)) {
			s->spares = sl->next;
			s->nspares--;
		} else if (!(sl = malloc(SLAB_BYTES))) {
			s->cur = NULL;
			return NULL;
		}
		sl->used = sl->live = 0;
		s->cur = sl;
	}
	h = (struct held *)((char *)sl->data + sl->used);
	sl->used += size;
	sl->live++;
	h->slab = sl;
	return h;
}

static void held_free(struct fstap_sorter *s, struct held *h)
{
	struct slab *sl;

	if (!h)
		return;
	if (!(sl = h->slab)) {
		free(h);
		return;
	}
	if (--sl->live)
		return;
	if (sl == s->cur)
		sl->used = 0;
	else
		slab_drop(s, sl);
}

#define HELD_SIZE(packed) ((sizeof(struct held) + (packed) + 7) & ~(size_t)7)

static int push(struct fstap_sorter *s, const struct fstap_rec *rec)
{
	size_t room = HELD_SIZE(fstap_rec_pack_bound(rec));
	struct held *h = held_alloc(s, room);
	int ret;

	if (!h)
		return -ENOMEM;
	if (!fstap_op_is_meta(rec->op) && rec->start_ns > s->max_key)
		s->max_key = rec->start_ns;
	h->it.key = fstap_op_is_meta(rec->op) ? s->max_key : rec->start_ns;
	/* the last carved from its slab: what the bound left over goes back */
	if (h->slab)
		h->slab->used -= room - HELD_SIZE(fstap_rec_pack(h->packed, rec, h->it.key));
	else
		fstap_rec_pack(h->packed, rec, h->it.key);
	h->it.seq = s->seq++;
	if ((ret = fstap_window_push(&s->win, &h->it)))
		held_free(s, h);
	return ret;
}

int fstap_sorter_next(struct fstap_sorter *s, struct fstap_rec *rec)
{
	struct fstap_rec in;
	struct held *top;
	int ret;

	held_free(s, s->out);
	s->out = NULL;
	/* Read until the oldest held record is older than the window. */
	while (!fstap_sorter_ready(s) && !s->eof && !s->error) {
		ret = fstap_reader_next(s->r, &in);
		if (ret < 0) {
			s->error = ret;
			break;
		}
		if (ret == 0) {
			s->eof = true;
			break;
		}
		if ((s->on_read && (ret = s->on_read(s->on_read_arg, &in))) || (ret = push(s, &in)))
			return ret;
	}
	if (fstap_window_empty(&s->win))
		return s->error;
	top = (struct held *)fstap_window_pop(&s->win);
	if (top->it.key < s->last_out)
		s->late++;
	else
		s->last_out = top->it.key;
	s->out = top;
	fstap_rec_unpack(rec, top->packed, top->it.key);
	return 1;
}

bool fstap_sorter_ready(const struct fstap_sorter *s)
{
	if (fstap_window_empty(&s->win))
		return false;
	return s->eof || s->error || fstap_window_min_key(&s->win) + s->window < s->max_key;
}

void fstap_sorter_on_read(struct fstap_sorter *s, fstap_sorter_read_fn *fn, void *arg)
{
	s->on_read = fn;
	s->on_read_arg = arg;
}

uint64_t fstap_sorter_seq(const struct fstap_sorter *s)
{
	return s->out ? s->out->it.seq : 0;
}

int fstap_sorter_error(const struct fstap_sorter *s)
{
	return s->error;
}

uint64_t fstap_sorter_late(const struct fstap_sorter *s)
{
	return s->late;
}

void fstap_sorter_free(struct fstap_sorter *s)
{
	struct fstap_witem *it;
	struct slab *sl;

	if (!s)
		return;
	while ((it = fstap_window_pop(&s->win)))
		held_free(s, (struct held *)it);
	held_free(s, s->out);
	fstap_window_release(&s->win);
	free(s->cur);
	while ((sl = s->spares)) {
		s->spares = sl->next;
		free(sl);
	}
	free(s);
}
