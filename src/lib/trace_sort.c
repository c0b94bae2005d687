/*
 * trace_sort.c: restores the time order of a trace's records with a
 * bounded reorder window (see sort.h): a binary min-heap of deep-copied
 * records keyed by (start time, file position).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fstap/sort.h"

struct held {
	uint64_t key;		/* start_ns, or the latest start read before it */
	uint64_t seq;		/* position in the file: ties keep file order */
	struct fstap_rec *rec;
};

struct fstap_sorter {
	struct fstap_reader *r;
	uint64_t window;
	uint64_t max_key;	/* the latest start time read so far */
	uint64_t last_out;	/* key of the last record delivered */
	uint64_t seq, late;
	bool eof;
	int error;
	struct held *heap;
	size_t n, cap;
	struct fstap_rec *out;	/* delivered, freed on the next call */
};

uint64_t fstap_sort_window_ns(const struct fstap_trace_info *info)
{
	uint64_t flush = 1000000000ull;
	json_t *meta = json_loads(info->metadata_json ? info->metadata_json : "{}",
				  JSON_ALLOW_NUL, NULL);
	json_t *v = json_object_get(json_object_get(meta, "recorder"), "flush_interval_ns");

	if (json_is_integer(v) && json_integer_value(v) > 0)
		flush = (uint64_t)json_integer_value(v);
	json_decref(meta);
	return 2 * flush;
}

static size_t bytes_size(struct fstap_bytes b)
{
	return b.len;
}

struct fstap_rec *fstap_rec_clone(const struct fstap_rec *rec)
{
	size_t size = sizeof(*rec), i;
	struct fstap_rec *c;
	char *p;

	size += bytes_size(rec->name) + bytes_size(rec->newname) + bytes_size(rec->target) +
		bytes_size(rec->comm) + bytes_size(rec->cmdline) + bytes_size(rec->value);
	size += rec->nentries * sizeof(*rec->entries) + rec->nxattrs * sizeof(*rec->xattrs) +
		rec->nextents * sizeof(*rec->extents) +
		rec->xattr_sizes.n * sizeof(*rec->xattr_sizes.v);
	for (i = 0; i < rec->nentries; i++)
		size += rec->entries[i].name.len;
	for (i = 0; i < rec->nxattrs; i++)
		size += rec->xattrs[i].name.len + rec->xattrs[i].value.len;
	size += 16;	/* alignment slack for the arrays */
	c = malloc(size);
	if (!c)
		return NULL;
	*c = *rec;
	p = (char *)(c + 1);

	/* Arrays first (aligned after the struct), then the bytes. */
#define TAKE_ARRAY(field, n)							\
	do {									\
		if (n) {							\
			memcpy(p, rec->field, (n) * sizeof(*rec->field));	\
			c->field = (void *)p;					\
			p += (n) * sizeof(*rec->field);				\
		} else {							\
			c->field = NULL;					\
		}								\
	} while (0)
	TAKE_ARRAY(entries, rec->nentries);
	TAKE_ARRAY(xattrs, rec->nxattrs);
	TAKE_ARRAY(extents, rec->nextents);
	TAKE_ARRAY(xattr_sizes.v, rec->xattr_sizes.n);
#undef TAKE_ARRAY

#define TAKE_BYTES(b)								\
	do {									\
		if ((b).len) {							\
			memcpy(p, (b).ptr, (b).len);				\
			(b).ptr = (const uint8_t *)p;				\
			p += (b).len;						\
		}								\
	} while (0)
	TAKE_BYTES(c->name);
	TAKE_BYTES(c->newname);
	TAKE_BYTES(c->target);
	TAKE_BYTES(c->comm);
	TAKE_BYTES(c->cmdline);
	TAKE_BYTES(c->value);
	for (i = 0; i < rec->nentries; i++)
		TAKE_BYTES(((struct fstap_dirent *)c->entries)[i].name);
	for (i = 0; i < rec->nxattrs; i++) {
		TAKE_BYTES(((struct fstap_xattr *)c->xattrs)[i].name);
		TAKE_BYTES(((struct fstap_xattr *)c->xattrs)[i].value);
	}
#undef TAKE_BYTES
	return c;
}

int fstap_sorter_new(struct fstap_sorter **out, struct fstap_reader *r, uint64_t window_ns)
{
	struct fstap_sorter *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->r = r;
	s->window = window_ns;
	*out = s;
	return 0;
}

static bool before(const struct held *a, const struct held *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static void sift_up(struct fstap_sorter *s, size_t i)
{
	while (i) {
		size_t parent = (i - 1) / 2;
		struct held t;

		if (!before(&s->heap[i], &s->heap[parent]))
			break;
		t = s->heap[i];
		s->heap[i] = s->heap[parent];
		s->heap[parent] = t;
		i = parent;
	}
}

static void sift_down(struct fstap_sorter *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct held t;

		if (l < s->n && before(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->n && before(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			return;
		t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

static int push(struct fstap_sorter *s, const struct fstap_rec *rec)
{
	struct held h;

	if (s->n == s->cap) {
		size_t c = s->cap ? 2 * s->cap : 1024;
		struct held *p = realloc(s->heap, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->heap = p;
		s->cap = c;
	}
	if (!fstap_op_is_meta(rec->op) && rec->start_ns > s->max_key)
		s->max_key = rec->start_ns;
	h.key = fstap_op_is_meta(rec->op) ? s->max_key : rec->start_ns;
	h.seq = s->seq++;
	h.rec = fstap_rec_clone(rec);
	if (!h.rec)
		return -ENOMEM;
	s->heap[s->n] = h;
	sift_up(s, s->n++);
	return 0;
}

int fstap_sorter_next(struct fstap_sorter *s, struct fstap_rec *rec)
{
	struct fstap_rec in;
	struct held top;
	int ret;

	free(s->out);
	s->out = NULL;
	/* Read until the oldest held record is older than the window. */
	while (!s->eof && !s->error &&
	       (s->n == 0 || s->heap[0].key + s->window >= s->max_key)) {
		ret = fstap_reader_next(s->r, &in);
		if (ret < 0) {
			s->error = ret;
			break;
		}
		if (ret == 0) {
			s->eof = true;
			break;
		}
		if ((ret = push(s, &in)))
			return ret;
	}
	if (s->n == 0)
		return s->error;
	top = s->heap[0];
	s->heap[0] = s->heap[--s->n];
	sift_down(s, 0);
	if (top.key < s->last_out)
		s->late++;
	else
		s->last_out = top.key;
	s->out = top.rec;
	*rec = *top.rec;
	return 1;
}

uint64_t fstap_sorter_late(const struct fstap_sorter *s)
{
	return s->late;
}

void fstap_sorter_free(struct fstap_sorter *s)
{
	if (!s)
		return;
	while (s->n)
		free(s->heap[--s->n].rec);
	free(s->heap);
	free(s->out);
	free(s);
}
