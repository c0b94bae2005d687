/*
 * chunk_encode.c: encodes records into one chunk (docs/trace-format.md,
 * "Chunks" and "Records"). No allocation, no locks, no I/O: the recorder's
 * request threads call it on their own buffers. Names and (tid, pid) pairs
 * are interned per chunk, so every chunk decodes on its own.
 */
#include <errno.h>
#include <string.h>

#include "fstap/trace.h"
#include "fstap/util.h"
#include "lib/codec_i.h"

#define NAME_SLOTS (2 * FSTAP_CHUNK_NAMES_MAX)

/*
 * The name table is open addressing over name_slots[]: one 32-bit word
 * per slot holds the chunk's generation (12 bits), 8 more bits of the name's
 * hash and the name's index (12 bits). A probe thus reads one word, and
 * consecutive probes the same cache line; the name's length, offset and
 * bytes are read only when the hash bits match. Separate slot, hash and
 * generation arrays would cost three cache misses per probe, as the
 * kernel's work between two requests evicts them: with a readdir of 128
 * entries per request, interning the entries' names is the recorder's
 * largest cost per entry.
 *
 * Which names get interned (the first FSTAP_CHUNK_NAMES_MAX distinct names
 * of the chunk) and so the bytes written do not depend on the hash.
 */
#define SLOT_GEN_BITS 12
#define SLOT_TAG_BITS 8
#define SLOT_IDX_BITS 12
#define SLOT_GEN_MAX ((1u << SLOT_GEN_BITS) - 1)
#define SLOT_IDX_MASK ((1u << SLOT_IDX_BITS) - 1)
#define SLOT_TAG_MASK ((1u << SLOT_TAG_BITS) - 1)

_Static_assert(FSTAP_CHUNK_NAMES_MAX <= (1u << SLOT_IDX_BITS), "name index fits a slot");
_Static_assert(SLOT_GEN_BITS + SLOT_TAG_BITS + SLOT_IDX_BITS == 32, "a slot is 32 bits");

void fstap_chunk_enc_init(struct fstap_chunk_enc *enc, uint8_t *buf, size_t cap,
			  uint64_t base_ns)
{
	uint32_t gen = enc->generation + 1;

	/*
	 * The slot table is reset by bumping the generation, not by memset;
	 * a slot stores 12 bits of it, so every 4095 chunks (and on first
	 * use) the table is cleared and the generation starts again at 1.
	 */
	if (gen > SLOT_GEN_MAX || enc->buf == NULL) {
		memset(enc->name_slots, 0, sizeof(enc->name_slots));
		gen = 1;
	}
	enc->generation = gen;
	enc->buf = buf;
	enc->cap = cap;
	enc->len = FSTAP_CHUNK_HEADER_SIZE;
	enc->base_ns = enc->prev_ns = base_ns;
	enc->nrec = enc->nops = 0;
	enc->bytes_read = enc->bytes_written = 0;
	enc->have_thread = enc->have_cred = false;
	enc->nnames = enc->nthreads = 0;
}

/* The 32 bits of a name's hash that the name table uses. */
static inline uint32_t name_hash(struct fstap_bytes n)
{
	return (uint32_t)(fstap_hash_bytes(0, n.ptr, n.len) >> 32);
}

/* Copies a name; short ones without a call, with loads and stores that may overlap. */
static inline void copy_name(uint8_t *d, const uint8_t *s, uint32_t len)
{
	if (len >= 8 && len <= 16) {
		uint64_t a = fstap_load64(s), b = fstap_load64(s + len - 8);

		memcpy(d, &a, 8);
		memcpy(d + len - 8, &b, 8);
	} else if (len >= 4 && len < 8) {
		uint32_t a = fstap_load32(s), b = fstap_load32(s + len - 4);

		memcpy(d, &a, 4);
		memcpy(d + len - 4, &b, 4);
	} else if (len < 4) {
		uint32_t i;

		for (i = 0; i < len; i++)
			d[i] = s[i];
	} else {
		memcpy(d, s, len);
	}
}

/*
 * Writes a name as a back-reference when this chunk has it, else literally;
 * h is name_hash of the name.
 */
static inline __attribute__((always_inline)) uint8_t *
put_name_hashed(struct fstap_chunk_enc *enc, uint8_t *p, struct fstap_bytes n, uint32_t h)
{
	uint32_t slot = h, i;
	uint32_t gen = enc->generation << (SLOT_TAG_BITS + SLOT_IDX_BITS);
	uint32_t tagged = gen | ((h >> 24) & SLOT_TAG_MASK) << SLOT_IDX_BITS;

	for (i = 0; i < NAME_SLOTS; i++) {
		uint32_t w, idx;

		slot = (h + i) & (NAME_SLOTS - 1);
		w = enc->name_slots[slot];
		if ((w & ~(SLOT_TAG_MASK << SLOT_IDX_BITS | SLOT_IDX_MASK)) != gen)
			break;	/* empty in this chunk */
		if ((w & ~SLOT_IDX_MASK) != tagged)
			continue;
		idx = w & SLOT_IDX_MASK;
		if (enc->name_len[idx] == n.len &&
		    (!n.len || !memcmp(enc->buf + enc->name_off[idx], n.ptr, n.len)))
			return put_varint(p, (uint64_t)idx << 1 | 1);
	}
	p = put_varint(p, (uint64_t)n.len << 1);
	if (enc->nnames < FSTAP_CHUNK_NAMES_MAX && i < NAME_SLOTS) {
		enc->name_off[enc->nnames] = (uint32_t)(p - enc->buf);
		enc->name_len[enc->nnames] = n.len;
		enc->name_slots[slot] = tagged | enc->nnames;
		enc->nnames++;
	}
	copy_name(p, n.ptr, n.len);
	return p + n.len;
}

static uint8_t *put_name(struct fstap_chunk_enc *enc, uint8_t *p, struct fstap_bytes n)
{
	return put_name_hashed(enc, p, n, name_hash(n));
}

/* Directory entries hashed and their first slots fetched this many at a time. */
#define ENT_BATCH 32

/*
 * A READDIR's entries. The first slot of each name is a cache miss (the
 * table is cold again by the next request: the kernel's work in between
 * evicts it), so the slots of a batch of names are fetched first and their
 * misses overlap, instead of each name waiting for its own.
 */
static uint8_t *put_entries(struct fstap_chunk_enc *enc, uint8_t *p, const struct fstap_rec *rec)
{
	uint32_t hs[ENT_BATCH], j, k, m;
	uint64_t prev_ino = 0;

	p = put_varint(p, rec->nentries);
	for (j = 0; j < rec->nentries; j += m) {
		const struct fstap_dirent *e = &rec->entries[j];

		m = rec->nentries - j < ENT_BATCH ? rec->nentries - j : ENT_BATCH;
		for (k = 0; k < m; k++) {
			hs[k] = name_hash(e[k].name);
			__builtin_prefetch(&enc->name_slots[hs[k] & (NAME_SLOTS - 1)]);
		}
		for (k = 0; k < m; k++) {
			p = put_name_hashed(enc, p, e[k].name, hs[k]);
			p = put_varint(p, e[k].type);
			p = put_varint(p, e[k].obj);
			p = put_varint(p, zigzag((int64_t)(e[k].ino - prev_ino)));
			prev_ino = e[k].ino;
		}
	}
	return p;
}

static uint8_t *put_bytes(uint8_t *p, struct fstap_bytes b)
{
	p = put_varint(p, b.len);
	if (b.len)
		memcpy(p, b.ptr, b.len);
	return p + b.len;
}

static uint64_t member_u64(const struct fstap_rec *rec, const struct fstap_field_info *fi)
{
	const char *m = (const char *)rec + fi->offset;

	if (fi->width == 4) {
		uint32_t v;

		memcpy(&v, m, 4);
		return v;
	}
	uint64_t v;

	memcpy(&v, m, 8);
	return v;
}

size_t fstap_rec_encoded_bound(const struct fstap_rec *rec)
{
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	size_t n = 2 + FSTAP_VARINT_MAX * 8;
	unsigned i, j;

	if (!oi)
		return 0;
	for (i = 0; i < oi->nfields; i++) {
		const struct fstap_field_info *fi = fstap_field_info(oi->fields[i]);
		const struct fstap_bytes *b = (const void *)((const char *)rec + fi->offset);

		n += FSTAP_VARINT_MAX;
		switch (fi->type) {
		case FSTAP_FT_NAME:
		case FSTAP_FT_BYTES:
			n += b->len;
			break;
		case FSTAP_FT_ENTRIES:
			for (j = 0; j < rec->nentries; j++)
				n += 4 * FSTAP_VARINT_MAX + rec->entries[j].name.len;
			break;
		case FSTAP_FT_XATTRS:
			for (j = 0; j < rec->nxattrs; j++)
				n += 2 * FSTAP_VARINT_MAX + rec->xattrs[j].name.len +
				     rec->xattrs[j].value.len;
			break;
		case FSTAP_FT_EXTENTS:
			n += (size_t)rec->nextents * 2 * FSTAP_VARINT_MAX;
			break;
		case FSTAP_FT_U64_LIST:
			n += (size_t)((const struct fstap_u64_list *)b)->n * FSTAP_VARINT_MAX;
			break;
		default:
			break;
		}
	}
	return n;
}

static uint8_t *put_fields(struct fstap_chunk_enc *enc, uint8_t *p, const struct fstap_rec *rec,
			   const struct fstap_op_info *oi)
{
	unsigned i, j;

	for (i = 0; i < oi->nfields; i++) {
		const struct fstap_field_info *fi = fstap_field_info(oi->fields[i]);
		const void *m = (const char *)rec + fi->offset;

		switch (fi->type) {
		case FSTAP_FT_U64:
			p = put_varint(p, member_u64(rec, fi));
			break;
		case FSTAP_FT_S64:
			p = put_varint(p, zigzag(*(const int64_t *)m));
			break;
		case FSTAP_FT_NAME:
			p = put_name(enc, p, *(const struct fstap_bytes *)m);
			break;
		case FSTAP_FT_BYTES:
			p = put_bytes(p, *(const struct fstap_bytes *)m);
			break;
		case FSTAP_FT_ENTRIES:
			p = put_entries(enc, p, rec);
			break;
		case FSTAP_FT_XATTRS:
			p = put_varint(p, rec->nxattrs);
			for (j = 0; j < rec->nxattrs; j++) {
				p = put_name(enc, p, rec->xattrs[j].name);
				p = put_bytes(p, rec->xattrs[j].value);
			}
			break;
		case FSTAP_FT_EXTENTS: {
			uint64_t end = 0;

			p = put_varint(p, rec->nextents);
			for (j = 0; j < rec->nextents; j++) {
				/* Offsets as gaps from the previous extent's end. */
				p = put_varint(p, rec->extents[j].offset - end);
				p = put_varint(p, rec->extents[j].length);
				end = rec->extents[j].offset + rec->extents[j].length;
			}
			break;
		}
		case FSTAP_FT_U64_LIST: {
			const struct fstap_u64_list *l = m;

			p = put_varint(p, l->n);
			for (j = 0; j < l->n; j++)
				p = put_varint(p, l->v[j]);
			break;
		}
		}
	}
	return p;
}

static uint8_t *put_op_header(struct fstap_chunk_enc *enc, uint8_t *p, const struct fstap_rec *rec)
{
	uint8_t *hdr = p++;
	uint8_t bits = 0;

	p = put_varint(p, zigzag((int64_t)(rec->start_ns - enc->prev_ns)));
	enc->prev_ns = rec->start_ns;
	p = put_varint(p, rec->dur_ns);
	if (!enc->have_thread || rec->tid != enc->prev_tid || rec->pid != enc->prev_pid) {
		uint64_t key = (uint64_t)rec->tid << 32 | rec->pid;
		uint32_t i;

		bits |= REC_HAS_THREAD;
		for (i = 0; i < enc->nthreads; i++)
			if (enc->thread_key[i] == key)
				break;
		if (i < enc->nthreads) {
			p = put_varint(p, (uint64_t)i << 1 | 1);
		} else {
			p = put_varint(p, 0);
			p = put_varint(p, rec->tid);
			p = put_varint(p, rec->pid);
			if (enc->nthreads < FSTAP_CHUNK_THREADS_MAX)
				enc->thread_key[enc->nthreads++] = key;
		}
		enc->prev_tid = rec->tid;
		enc->prev_pid = rec->pid;
		enc->have_thread = true;
	}
	if (!enc->have_cred || rec->uid != enc->prev_uid || rec->gid != enc->prev_gid) {
		bits |= REC_HAS_CRED;
		p = put_varint(p, rec->uid);
		p = put_varint(p, rec->gid);
		enc->prev_uid = rec->uid;
		enc->prev_gid = rec->gid;
		enc->have_cred = true;
	}
	if (rec->result) {
		bits |= REC_HAS_RESULT;
		p = put_varint(p, zigzag(rec->result));
	}
	if (rec->flags & FSTAP_RF_KERNEL)
		bits |= REC_KERNEL;
	*hdr = bits;
	return put_varint(p, rec->obj);
}

int fstap_chunk_enc_add(struct fstap_chunk_enc *enc, const struct fstap_rec *rec)
{
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	uint8_t *start, *body, *p;
	size_t bound, body_len;
	unsigned len_bytes;
	uint32_t nnames0 = enc->nnames;

	if (!oi || rec->op == FSTAP_OP_NONE)
		return -EINVAL;
	/*
	 * The exact bound walks the op's fields through the field table, a
	 * fifth of the encoder's work for a short record. Unless the chunk is
	 * nearly full, a bound that holds for every op (every byte string the
	 * record may carry, the most fields an op has) is enough; the exact
	 * one decides only near the end, so which records fit a chunk, and
	 * the bytes written, do not change.
	 */
	bound = 2 + FSTAP_VARINT_MAX * (8 + FSTAP_OP_MAX_FIELDS) + (size_t)rec->name.len +
		rec->newname.len + rec->target.len + rec->comm.len + rec->cmdline.len +
		rec->value.len;
	if ((rec->nentries | rec->nxattrs | rec->nextents | rec->xattr_sizes.n) || bound > enc->cap - enc->len) {
		bound = fstap_rec_encoded_bound(rec);
		if (bound > enc->cap - enc->len)
			return -ENOSPC;
	}
	start = enc->buf + enc->len;
	start[0] = (uint8_t)rec->op;
	body = p = start + 2;	/* assume a one-byte length; moved below if not */
	if (!(oi->props & FSTAP_OPP_META))
		p = put_op_header(enc, p, rec);
	p = put_fields(enc, p, rec, oi);
	body_len = (size_t)(p - body);
	len_bytes = varint_len(body_len);
	if (len_bytes > 1) {
		uint32_t k;

		memmove(body + len_bytes - 1, body, body_len);
		/*
		 * Names interned by this record moved with the body; they are
		 * the last ones (earlier names lie before the body), so only
		 * those are adjusted, not the whole table on every long record.
		 */
		for (k = nnames0; k < enc->nnames; k++)
			enc->name_off[k] += len_bytes - 1;
	}
	put_varint(start + 1, body_len);
	enc->len += 1 + len_bytes + body_len;
	enc->nrec++;
	if (!(oi->props & FSTAP_OPP_META)) {
		enc->nops++;
		if (rec->result > 0 && rec->op == FSTAP_OP_READ)
			enc->bytes_read += (uint64_t)rec->result;
		else if (rec->result > 0 && rec->op == FSTAP_OP_WRITE)
			enc->bytes_written += (uint64_t)rec->result;
	}
	return 0;
}

size_t fstap_chunk_enc_finish(struct fstap_chunk_enc *enc, uint32_t chunk_flags)
{
	uint8_t *h = enc->buf;
	uint32_t payload = (uint32_t)(enc->len - FSTAP_CHUNK_HEADER_SIZE);

	put_le32(h, FSTAP_CHUNK_MAGIC);
	put_le32(h + 4, chunk_flags);
	put_le32(h + 8, payload);
	put_le32(h + 12, enc->nrec);
	put_le64(h + 16, enc->base_ns);
	put_le32(h + 24, fstap_crc32c(0, h + FSTAP_CHUNK_HEADER_SIZE, payload));
	put_le32(h + 28, fstap_crc32c(0, h, 28));
	return enc->len;
}
