/*
 * chunk_decode.c: decodes the records of one chunk's payload. Every length
 * and count is checked against the bytes that remain, so a hostile payload
 * yields -EBADMSG with a reason, never an overrun; arrays are bounded by the
 * payload's size. Records of unknown types are skipped by their length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/trace.h"
#include "fstap/util.h"
#include "lib/codec_i.h"

void chunk_dec_start(struct chunk_dec *d, const uint8_t *payload, size_t len, uint64_t base_ns)
{
	d->cur.p = payload;
	d->cur.end = payload + len;
	d->cur.bad = false;
	d->prev_ns = base_ns;
	d->nrec_seen = 0;
	d->have_thread = d->have_cred = false;
	d->nnames = d->nthreads = 0;
	d->why = NULL;
}

void chunk_dec_release(struct chunk_dec *d)
{
	free(d->entries);
	free(d->xattrs);
	free(d->extents);
	free(d->u64s);
	d->entries = NULL;
	d->xattrs = NULL;
	d->extents = NULL;
	d->u64s = NULL;
	d->entries_cap = d->xattrs_cap = d->extents_cap = d->u64s_cap = 0;
}

static int bad(struct chunk_dec *d, const char *why)
{
	d->why = why;
	return -EBADMSG;
}

static int get_name(struct chunk_dec *d, struct cursor *c, struct fstap_bytes *out)
{
	uint64_t v = get_varint(c);

	if (c->bad)
		return bad(d, "truncated name");
	if (v & 1) {
		v >>= 1;
		if (v >= d->nnames)
			return bad(d, "name reference to an unknown name");
		*out = d->names[v];
		return 0;
	}
	v >>= 1;
	out->ptr = get_bytes(c, v);
	if (!out->ptr)
		return bad(d, "name longer than its record");
	out->len = (uint32_t)v;
	if (d->nnames < FSTAP_CHUNK_NAMES_MAX)
		d->names[d->nnames++] = *out;
	return 0;
}

static int get_blob(struct chunk_dec *d, struct cursor *c, struct fstap_bytes *out)
{
	uint64_t n = get_varint(c);

	out->ptr = get_bytes(c, n);
	if (!out->ptr)
		return bad(d, "byte string longer than its record");
	out->len = (uint32_t)n;
	return 0;
}

/* A count of items that each take at least min_bytes: bounded by the record. */
static int get_count(struct chunk_dec *d, struct cursor *c, unsigned min_bytes, uint32_t *out)
{
	uint64_t n = get_varint(c);

	if (c->bad || n > (uint64_t)(c->end - c->p) / min_bytes)
		return bad(d, "item count larger than its record");
	*out = (uint32_t)n;
	return 0;
}

/* An unsigned field of width 4 or 8 bytes at m. */
static int get_uint(struct chunk_dec *d, struct cursor *c, void *m, unsigned width)
{
	uint64_t v = get_varint(c);

	if (width == 4) {
		uint32_t v32 = (uint32_t)v;

		if (v > UINT32_MAX)
			return bad(d, "32-bit field out of range");
		memcpy(m, &v32, 4);
	} else {
		memcpy(m, &v, 8);
	}
	return 0;
}

/* Directory entries: name, type, object, inode number as a delta from the last. */
static int get_entries(struct chunk_dec *d, struct cursor *c, struct fstap_rec *rec)
{
	uint64_t ino = 0;
	unsigned j;
	int ret;

	if ((ret = get_count(d, c, 4, &rec->nentries)))
		return ret;
	if (FSTAP_GROW(d->entries, rec->nentries, d->entries_cap))
		return -ENOMEM;
	for (j = 0; j < rec->nentries; j++) {
		struct fstap_dirent *e = &d->entries[j];

		if ((ret = get_name(d, c, &e->name)))
			return ret;
		uint64_t type = get_varint(c);

		if (type > UINT32_MAX)
			return bad(d, "entry type out of range");
		e->type = (uint32_t)type;
		e->obj = get_varint(c);
		ino += (uint64_t)unzigzag(get_varint(c));
		e->ino = ino;
	}
	rec->entries = d->entries;
	return 0;
}

static int get_xattrs(struct chunk_dec *d, struct cursor *c, struct fstap_rec *rec)
{
	unsigned j;
	int ret;

	if ((ret = get_count(d, c, 2, &rec->nxattrs)))
		return ret;
	if (FSTAP_GROW(d->xattrs, rec->nxattrs, d->xattrs_cap))
		return -ENOMEM;
	for (j = 0; j < rec->nxattrs; j++) {
		if ((ret = get_name(d, c, &d->xattrs[j].name)) ||
		    (ret = get_blob(d, c, &d->xattrs[j].value)))
			return ret;
	}
	rec->xattrs = d->xattrs;
	return 0;
}

/* Extents: each offset a delta from the last one's end, and its length. */
static int get_extents(struct chunk_dec *d, struct cursor *c, struct fstap_rec *rec)
{
	uint64_t end = 0;
	unsigned j;
	int ret;

	if ((ret = get_count(d, c, 2, &rec->nextents)))
		return ret;
	if (FSTAP_GROW(d->extents, rec->nextents, d->extents_cap))
		return -ENOMEM;
	for (j = 0; j < rec->nextents; j++) {
		d->extents[j].offset = end + get_varint(c);
		d->extents[j].length = get_varint(c);
		end = d->extents[j].offset + d->extents[j].length;
	}
	rec->extents = d->extents;
	return 0;
}

static int get_u64_list(struct chunk_dec *d, struct cursor *c, struct fstap_u64_list *l)
{
	unsigned j;
	int ret;

	if ((ret = get_count(d, c, 1, &l->n)))
		return ret;
	if (FSTAP_GROW(d->u64s, l->n, d->u64s_cap))
		return -ENOMEM;
	for (j = 0; j < l->n; j++)
		d->u64s[j] = get_varint(c);
	l->v = d->u64s;
	return 0;
}

static int get_fields(struct chunk_dec *d, struct cursor *c, struct fstap_rec *rec,
		      const struct fstap_op_info *oi)
{
	unsigned i;
	int ret = 0;

	/* A record may end early (older writer): the missing fields stay 0. */
	for (i = 0; i < oi->nfields && c->p < c->end; i++) {
		const struct fstap_field_info *fi = fstap_field_info(oi->fields[i]);
		void *m = (char *)rec + fi->offset;

		switch (fi->type) {
		case FSTAP_FT_U64:
			ret = get_uint(d, c, m, fi->width);
			break;
		case FSTAP_FT_S64:
			*(int64_t *)m = unzigzag(get_varint(c));
			break;
		case FSTAP_FT_NAME:
			ret = get_name(d, c, m);
			break;
		case FSTAP_FT_BYTES:
			ret = get_blob(d, c, m);
			break;
		case FSTAP_FT_ENTRIES:
			ret = get_entries(d, c, rec);
			break;
		case FSTAP_FT_XATTRS:
			ret = get_xattrs(d, c, rec);
			break;
		case FSTAP_FT_EXTENTS:
			ret = get_extents(d, c, rec);
			break;
		case FSTAP_FT_U64_LIST:
			ret = get_u64_list(d, c, m);
			break;
		}
		if (ret)
			return ret;
		if (c->bad)
			return bad(d, "field runs past the end of its record");
	}
	return 0;
}

static int get_op_header(struct chunk_dec *d, struct cursor *c, struct fstap_rec *rec)
{
	uint8_t bits = get_u8(c);

	if (bits & ~REC_KNOWN_BITS)
		return bad(d, "unknown record header bits");
	rec->start_ns = d->prev_ns + (uint64_t)unzigzag(get_varint(c));
	d->prev_ns = rec->start_ns;
	rec->dur_ns = get_varint(c);
	if (bits & REC_HAS_THREAD) {
		uint64_t v = get_varint(c);

		if (v & 1) {
			v >>= 1;
			if (v >= d->nthreads)
				return bad(d, "thread reference to an unknown thread");
			d->prev_tid = (uint32_t)(d->threads[v] >> 32);
			d->prev_pid = (uint32_t)d->threads[v];
		} else if (v == 0) {
			uint64_t tid = get_varint(c), pid = get_varint(c);

			if (tid > UINT32_MAX || pid > UINT32_MAX)
				return bad(d, "thread id out of range");
			d->prev_tid = (uint32_t)tid;
			d->prev_pid = (uint32_t)pid;
			if (d->nthreads < FSTAP_CHUNK_THREADS_MAX)
				d->threads[d->nthreads++] = tid << 32 | pid;
		} else {
			return bad(d, "malformed thread reference");
		}
		d->have_thread = true;
	} else if (!d->have_thread) {
		return bad(d, "first operation of a chunk without its thread");
	}
	if (bits & REC_HAS_CRED) {
		uint64_t uid = get_varint(c), gid = get_varint(c);

		if (uid > UINT32_MAX || gid > UINT32_MAX)
			return bad(d, "uid or gid out of range");
		d->prev_uid = (uint32_t)uid;
		d->prev_gid = (uint32_t)gid;
		d->have_cred = true;
	} else if (!d->have_cred) {
		return bad(d, "first operation of a chunk without its credentials");
	}
	rec->tid = d->prev_tid;
	rec->pid = d->prev_pid;
	rec->uid = d->prev_uid;
	rec->gid = d->prev_gid;
	rec->result = (bits & REC_HAS_RESULT) ? unzigzag(get_varint(c)) : 0;
	rec->flags = (bits & REC_KERNEL) ? FSTAP_RF_KERNEL : 0;
	rec->obj = get_varint(c);
	if (c->bad)
		return bad(d, "operation header runs past the end of its record");
	return 0;
}

int chunk_dec_next(struct chunk_dec *d, struct fstap_rec *rec)
{
	for (;;) {
		const struct fstap_op_info *oi;
		struct cursor c;
		uint8_t op;
		uint64_t len;
		int ret;

		if (d->cur.p == d->cur.end)
			return 0;
		op = get_u8(&d->cur);
		len = get_varint(&d->cur);
		c.p = get_bytes(&d->cur, len);
		if (d->cur.bad || !c.p)
			return bad(d, "record longer than its chunk");
		c.end = c.p + len;
		c.bad = false;
		d->nrec_seen++;
		oi = op == FSTAP_OP_NONE ? NULL : fstap_op_info(op);
		if (oi) {
			memset(rec, 0, sizeof(*rec));
			rec->op = op;
		}
		/*
		 * An operation type carries the operation header, which feeds
		 * the chunk's running state (time, thread, credentials): it is
		 * decoded for a type from a later version too (!oi), whose
		 * body is then skipped. One call: it is inlined.
		 */
		if (op != FSTAP_OP_NONE && !fstap_op_is_meta(op) && (ret = get_op_header(d, &c, rec)))
			return ret;
		if (!oi) {
			d->skipped++;
			continue;
		}
		if ((ret = get_fields(d, &c, rec, oi)))
			return ret;
		return 1;
	}
}

int fstap_chunk_decode(const uint8_t *payload, size_t len, uint64_t base_ns,
		       int (*fn)(const struct fstap_rec *rec, void *arg), void *arg)
{
	struct chunk_dec *d = calloc(1, sizeof(*d));
	struct fstap_rec rec;
	int ret;

	if (!d)
		return -ENOMEM;
	chunk_dec_start(d, payload, len, base_ns);
	while ((ret = chunk_dec_next(d, &rec)) == 1) {
		if ((ret = fn(&rec, arg)))
			break;
	}
	chunk_dec_release(d);
	free(d);
	return ret;
}
