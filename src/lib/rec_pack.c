/*
 * rec_pack.c: a record packed for holding many of them (the sorter's
 * window): a mask of its present fields, a word of their lengths, then
 * each present field as its least little-endian bytes (1 to 8) and its
 * byte strings inline. A field is present when nonzero, start_ns when it
 * differs from the base the caller gives (the sorter's key: an operation's
 * start). An operation record takes some 30 bytes plus its names this way,
 * against sizeof(struct fstap_rec) (456 bytes) plus names as a clone. A
 * record with arrays (readdir entries, the xattrs and extents of a state
 * record: few) or more present fields than the length word holds is held
 * as a clone after the mask.
 */
#include <endian.h>
#include <stddef.h>
#include <string.h>

#include "codec_i.h"
#include "fstap/sort.h"

/*
 * Every field of struct fstap_rec but the arrays and their counts: its mask
 * bit, its name, and how it is held (U: unsigned, S: signed (zigzag), B:
 * bytes, a length and the bytes; T: start_ns, present when not the base).
 */
#define FIELDS(X) HEAD_FIELDS(X) TAIL_FIELDS(X)
#define HEAD_FIELDS(X) \
	X(0, op, U) X(1, flags, U) X(2, tid, U) X(3, pid, U) X(4, uid, U) X(5, gid, U) \
	X(6, start_ns, T) X(7, dur_ns, U) X(8, result, S) X(9, obj, U) \
	X(10, name, B) X(11, newname, B) X(12, target, B) X(13, comm, B) \
	X(14, cmdline, B) X(15, value, B)
/* The tail: 8-byte fields one after the other in struct fstap_rec, from child on. */
#define TAIL_FIELDS(X) \
	X(16, child, U) X(17, newparent, U) X(18, fh, U) X(19, fh2, U) X(20, obj2, U) \
	X(21, offset, U) X(22, offset2, U) X(23, size, U) X(24, flags_arg, U) \
	X(25, whence, U) X(26, mode, U) X(27, umask, U) X(28, rdev, U) X(29, valid, U) \
	X(30, owner_uid, U) X(31, owner_gid, U) X(32, atime, S) X(33, mtime, S) \
	X(34, ctime, S) X(35, ino, U) X(36, nlink, U) X(37, ppid, U) X(38, time_ns, U) \
	X(39, records, U) X(40, lost, U) X(41, bytes_read, U) X(42, bytes_written, U) \
	X(43, cmd, U) X(44, projid, U) X(45, extsize, U) X(46, cowextsize, U)

#define CLONED UINT64_MAX	/* the mask of a record held as a clone */
#define HEADER (2 * sizeof(uint64_t))	/* the mask and the lengths */
#define LEN_BITS 3		/* a length of 1 to 8 bytes, less one */
#define MAX_PRESENT (64 / LEN_BITS)	/* present fields the length word holds */

/* A field added to struct fstap_rec must be added to FIELDS (and this size). */
_Static_assert(sizeof(struct fstap_rec) == 456, "struct fstap_rec changed: update FIELDS");

#define TAIL_FIRST 16
#define TAIL_N 31
#define TAIL_CHECK(bit, m) _Static_assert(offsetof(struct fstap_rec, m) == \
	offsetof(struct fstap_rec, child) + 8 * ((bit) - TAIL_FIRST) && \
	sizeof(((struct fstap_rec *)0)->m) == 8, "tail field " #m " out of place");
#define TAIL_CHECK_ONE(bit, m, k) TAIL_CHECK(bit, m)
TAIL_FIELDS(TAIL_CHECK_ONE)
/* The signed (zigzagged) fields of the tail, by bit. */
#define SIGN_U(bit) 0
#define SIGN_S(bit) (1ull << (bit))
#define SIGN(bit, m, k) | SIGN_##k(bit)
#define TAIL_SIGNED (0 TAIL_FIELDS(SIGN))

static bool has_arrays(const struct fstap_rec *rec)
{
	return rec->nentries || rec->nxattrs || rec->nextents || rec->xattr_sizes.n;
}

size_t fstap_rec_pack_bound(const struct fstap_rec *rec)
{
	size_t names;

	if (has_arrays(rec))
		return sizeof(uint64_t) + sizeof(*rec) + fstap_rec_clone_size(rec, FSTAP_CLONE_ALL);
	/*
	 * A clone's room (fstap_rec_clone_size without arrays), which is more
	 * than the fields take: 47 of at most 8 bytes after HEADER.
	 */
	names = (rec->name.len + rec->newname.len + rec->target.len + rec->value.len + 7) &
		~(size_t)7;
	return sizeof(uint64_t) + sizeof(*rec) + names + rec->comm.len + rec->cmdline.len;
}

/* The bytes that hold v: 1 to 8. */
static inline unsigned width(uint64_t v)
{
	return 8 - ((unsigned)__builtin_clzll(v | 1) >> 3);
}

/* Writes v in its width at *p (8 bytes stored), the width in the k-th slot of *lens. */
static inline void put_val(uint8_t **p, uint64_t *lens, unsigned *k, uint64_t v)
{
	unsigned n = width(v);

	v = htole64(v);		/* the low bytes first */
	memcpy(*p, &v, sizeof(v));
	*p += n;
	if (*k < MAX_PRESENT)
		*lens |= (uint64_t)(n - 1) << (LEN_BITS * *k);
	++*k;
}

#define PUT_U(bit, m) \
	if (rec->m) { mask |= 1ull << (bit); put_val(&p, &lens, &k, (uint64_t)rec->m); }
#define PUT_S(bit, m) \
	if (rec->m) { mask |= 1ull << (bit); put_val(&p, &lens, &k, zigzag(rec->m)); }
#define PUT_T(bit, m) \
	if (rec->m != base) { mask |= 1ull << (bit); put_val(&p, &lens, &k, rec->m); }
#define PUT_B(bit, m) \
	if (rec->m.len) { \
		mask |= 1ull << (bit); \
		put_val(&p, &lens, &k, rec->m.len); \
		memcpy(p, rec->m.ptr, rec->m.len); \
		p += rec->m.len; \
	}
#define PUT(bit, m, k) PUT_##k(bit, m)

static size_t pack_clone(void *dst, const struct fstap_rec *rec)
{
	uint64_t mask = CLONED;
	uint8_t *p = (uint8_t *)dst + sizeof(mask);

	memcpy(dst, &mask, sizeof(mask));
	fstap_rec_clone_into((struct fstap_rec *)p, p + sizeof(*rec), rec, FSTAP_CLONE_ALL);
	return fstap_rec_pack_bound(rec);
}

size_t fstap_rec_pack(void *dst, const struct fstap_rec *rec, uint64_t base)
{
	uint8_t *p = (uint8_t *)dst + HEADER;
	uint64_t mask = 0, lens = 0;
	unsigned k = 0;

	if (has_arrays(rec))
		return pack_clone(dst, rec);
	FIELDS(PUT)
	if (k > MAX_PRESENT)
		return pack_clone(dst, rec);
	memcpy(dst, &mask, sizeof(mask));
	memcpy((uint8_t *)dst + sizeof(mask), &lens, sizeof(lens));
	return (size_t)(p - (uint8_t *)dst);
}

/* The next value: 8 bytes read (FSTAP_REC_PACK_SLACK), its width kept. */
static inline uint64_t take_val(const uint8_t **p, uint64_t *lens)
{
	unsigned n = (unsigned)(*lens & 7) + 1;
	uint64_t v;

	memcpy(&v, *p, sizeof(v));
	*p += n;
	*lens >>= LEN_BITS;
	return le64toh(v) & (~0ull >> (64 - 8 * n));
}

/* Every field is written (no memset first): from the packed value if its bit is set, else 0. */
#define HAS(bit) (mask & (1ull << (bit)))
#define GET_U(bit, m) dst->m = HAS(bit) ? (__typeof__(dst->m))take_val(&p, &lens) : 0;
#define GET_S(bit, m) dst->m = HAS(bit) ? unzigzag(take_val(&p, &lens)) : 0;
#define GET_T(bit, m) dst->m = HAS(bit) ? take_val(&p, &lens) : base;
#define GET_B(bit, m) \
	if (HAS(bit)) { \
		uint32_t n = (uint32_t)take_val(&p, &lens); \
		dst->m = (struct fstap_bytes){ p, n }; \
		p += n; \
	} else { \
		dst->m = (struct fstap_bytes){ NULL, 0 }; \
	}
#define GET(bit, m, k) GET_##k(bit, m)

void fstap_rec_unpack(struct fstap_rec *dst, const void *src, uint64_t base)
{
	const uint8_t *p = (const uint8_t *)src + HEADER;
	uint64_t mask, lens;

	memcpy(&mask, src, sizeof(mask));
	if (mask == CLONED) {
		*dst = *(const struct fstap_rec *)((const uint8_t *)src + sizeof(mask));
		return;
	}
	memcpy(&lens, (const uint8_t *)src + sizeof(mask), sizeof(lens));
	/* in FIELDS order: the order fstap_rec_pack wrote them */
	HEAD_FIELDS(GET)
	/* the tail: few of its fields are set, found by their bits */
	memset(&dst->child, 0, 8 * TAIL_N);
	for (mask &= ((1ull << TAIL_N) - 1) << TAIL_FIRST; mask; mask &= mask - 1) {
		unsigned bit = (unsigned)__builtin_ctzll(mask);
		uint64_t v = take_val(&p, &lens);

		if (TAIL_SIGNED & (1ull << bit))
			v = (uint64_t)unzigzag(v);
		memcpy((uint8_t *)&dst->child + 8 * (bit - TAIL_FIRST), &v, sizeof(v));
	}
	dst->nentries = dst->nxattrs = dst->nextents = 0;
	dst->entries = NULL;
	dst->xattrs = NULL;
	dst->extents = NULL;
	dst->xattr_sizes = (struct fstap_u64_list){ 0 };
}
