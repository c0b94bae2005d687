/*
 * codec_i.h: the byte-level primitives of the trace encoding, private to
 * libfstap: little-endian fixed-width integers, LEB128 varints and zigzag.
 * Encoders write into a buffer they have checked has room; decoders read
 * from a cursor that never passes its end and reports underflow.
 */
#ifndef FSTAP_CODEC_I_H
#define FSTAP_CODEC_I_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define FSTAP_VARINT_MAX 10

/* Bits of the per-record header byte of operation records. */
#define REC_HAS_THREAD	(1u << 0)	/* a thread reference follows */
#define REC_HAS_CRED	(1u << 1)	/* uid and gid follow */
#define REC_HAS_RESULT	(1u << 2)	/* a result follows (else 0) */
#define REC_KERNEL	(1u << 3)	/* FSTAP_RF_KERNEL */
#define REC_KNOWN_BITS	0x0fu

#define FSTAP_FILE_MAGIC "FSTAPTRC"
#define FSTAP_CHUNK_MAGIC 0x4b4e4843u	/* "CHNK" little-endian */
#define FSTAP_CHUNK_FOOTER 1u	/* chunk flag: holds the footer */

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v; p[1] = v >> 8;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes v as LEB128 at p (room for FSTAP_VARINT_MAX); returns the new end. */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline unsigned varint_len(uint64_t v)
{
	unsigned n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A bounded read cursor. `bad` is set on any overrun and stays set. */
struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

/* get_varint with FSTAP_VARINT_MAX bytes or more left: no bound to check a byte. */
static inline uint64_t get_varint_room(struct cursor *c)
{
	const uint8_t *p = c->p;
	uint64_t v = *p++ & 0x7f;
	unsigned shift;

	for (shift = 7; shift < 63; shift += 7) {
		uint8_t b = *p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			c->p = p;
			return v;
		}
	}
	/* the tenth byte holds the top bit only, and ends the varint */
	if (*p > 1) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	c->p = p + 1;
	return v | (uint64_t)*p << 63;
}

/*
 * get_varint with fewer than FSTAP_VARINT_MAX bytes left: each byte is
 * checked against the end, and there is no tenth byte to check.
 */
static inline uint64_t get_varint_short(struct cursor *c)
{
	const uint8_t *p = c->p;
	uint64_t v = 0;
	unsigned shift;

	for (shift = 0; p < c->end; shift += 7) {
		uint8_t b = *p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			c->p = p;
			return v;
		}
	}
	c->bad = true;
	c->p = c->end;
	return 0;
}

static inline uint64_t get_varint(struct cursor *c)
{
	if (c->p < c->end && *c->p < 0x80)
		return *c->p++;
	if (c->end - c->p >= FSTAP_VARINT_MAX)
		return get_varint_room(c);
	return get_varint_short(c);
}

static inline uint8_t get_u8(struct cursor *c)
{
	if (c->p < c->end)
		return *c->p++;
	c->bad = true;
	return 0;
}

/* Takes n bytes; NULL (and bad) if fewer remain. */
static inline const uint8_t *get_bytes(struct cursor *c, uint64_t n)
{
	const uint8_t *p = c->p;

	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return p;
}

#endif

/* ---- chunk decoder (chunk_decode.c), used by the reader ---------------- */

#include "fstap/trace.h"

struct chunk_dec {
	struct cursor cur;
	uint64_t prev_ns;
	uint32_t nrec_seen;
	uint32_t prev_tid, prev_pid, prev_uid, prev_gid;
	bool have_thread, have_cred;
	uint32_t nnames, nthreads;
	uint64_t skipped;		/* records of unknown types */
	const char *why;		/* what was wrong, when -EBADMSG */
	struct fstap_bytes names[FSTAP_CHUNK_NAMES_MAX];
	uint64_t threads[FSTAP_CHUNK_THREADS_MAX];
	/* Arrays that decoded records point into; grown as needed. */
	struct fstap_dirent *entries;
	struct fstap_xattr *xattrs;
	struct fstap_extent *extents;
	uint64_t *u64s;			/* the one U64_LIST field a record type has */
	size_t entries_cap, xattrs_cap, extents_cap, u64s_cap;
};

void chunk_dec_start(struct chunk_dec *d, const uint8_t *payload, size_t len, uint64_t base_ns);
/* 1: a record, 0: end of the chunk's payload, -EBADMSG (d->why), -ENOMEM. */
int chunk_dec_next(struct chunk_dec *d, struct fstap_rec *rec);
void chunk_dec_release(struct chunk_dec *d);
