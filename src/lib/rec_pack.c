/*
 * rec_pack.c: a record packed for holding many of them (the sorter's
 * window): a mask of its nonzero fields, then those fields as varints and
 * its byte strings inline. An operation record takes some 30 bytes plus its
 * names this way, against sizeof(struct fstap_rec) (456 bytes) plus names
 * as a clone. A record with arrays (readdir entries, the xattrs and extents
 * of a state record: few) is held as a clone after the mask.
 */
#include <stddef.h>
#include <string.h>

#include "codec_i.h"
#include "fstap/sort.h"

/*
 * Every field of struct fstap_rec but the arrays and their counts: its mask
 * bit, its name, and how it is held (U: unsigned, S: signed (zigzag), B:
 * bytes, a length and the bytes).
 */
#define FIELDS(X) \
	X(0, op, U) X(1, flags, U) X(2, tid, U) X(3, pid, U) X(4, uid, U) X(5, gid, U) \
	X(6, start_ns, U) X(7, dur_ns, U) X(8, result, S) X(9, obj, U) \
	X(10, name, B) X(11, newname, B) X(12, target, B) X(13, comm, B) \
	X(14, cmdline, B) X(15, value, B) \
	X(16, child, U) X(17, newparent, U) X(18, fh, U) X(19, fh2, U) X(20, obj2, U) \
	X(21, offset, U) X(22, offset2, U) X(23, size, U) X(24, flags_arg, U) \
	X(25, whence, U) X(26, mode, U) X(27, umask, U) X(28, rdev, U) X(29, valid, U) \
	X(30, owner_uid, U) X(31, owner_gid, U) X(32, atime, S) X(33, mtime, S) \
	X(34, ctime, S) X(35, ino, U) X(36, nlink, U) X(37, ppid, U) X(38, time_ns, U) \
	X(39, records, U) X(40, lost, U) X(41, bytes_read, U) X(42, bytes_written, U) \
	X(43, cmd, U) X(44, projid, U) X(45, extsize, U) X(46, cowextsize, U)

#define CLONED UINT64_MAX	/* the mask of a record held as a clone */

/* A field added to struct fstap_rec must be added to FIELDS (and this size). */
_Static_assert(sizeof(struct fstap_rec) == 456, "struct fstap_rec changed: update FIELDS");

/* A field's value as packed: U as is, S zigzagged. */
#define VAL_U(x) ((uint64_t)(x))
#define VAL_S(x) zigzag(x)

static bool has_arrays(const struct fstap_rec *rec)
{
	return rec->nentries || rec->nxattrs || rec->nextents || rec->xattr_sizes.n;
}

/* A varint takes 10 bytes at most, a length 5 (names are shorter than 4 GiB). */
#define BOUND_U(bit, m) + 10
#define BOUND_S(bit, m) + 10
#define BOUND_B(bit, m) + 5 + (size_t)rec->m.len
#define BOUND(bit, m, k) BOUND_##k(bit, m)

size_t fstap_rec_pack_bound(const struct fstap_rec *rec)
{
	if (has_arrays(rec))
		return sizeof(uint64_t) + sizeof(*rec) + fstap_rec_clone_size(rec, FSTAP_CLONE_ALL);
	return sizeof(uint64_t) FIELDS(BOUND);
}

#define PUT_U(bit, m) if (rec->m) { mask |= 1ull << (bit); p = put_varint(p, VAL_U(rec->m)); }
#define PUT_S(bit, m) if (rec->m) { mask |= 1ull << (bit); p = put_varint(p, VAL_S(rec->m)); }
#define PUT_B(bit, m) if (rec->m.len) { \
		mask |= 1ull << (bit); \
		p = put_varint(p, rec->m.len); \
		memcpy(p, rec->m.ptr, rec->m.len); \
		p += rec->m.len; \
	}
#define PUT(bit, m, k) PUT_##k(bit, m)

size_t fstap_rec_pack(void *dst, const struct fstap_rec *rec)
{
	uint8_t *p = (uint8_t *)dst + sizeof(uint64_t);
	uint64_t mask = 0;

	if (has_arrays(rec)) {
		mask = CLONED;
		memcpy(dst, &mask, sizeof(mask));
		fstap_rec_clone_into((struct fstap_rec *)p, p + sizeof(*rec), rec, FSTAP_CLONE_ALL);
		return fstap_rec_pack_bound(rec);
	}
	FIELDS(PUT)
	memcpy(dst, &mask, sizeof(mask));
	return (size_t)(p - (uint8_t *)dst);
}

/* A varint fstap_rec_pack wrote (memory of ours: no bound to check). */
static uint64_t take_varint(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p & 0x80) {
		v |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	v |= (uint64_t)*p++ << shift;
	*pp = p;
	return v;
}

/* Every field is written (no memset first): from the packed value if its bit is set, else 0. */
#define HAS(bit) (mask & (1ull << (bit)))
#define GET_U(bit, m) dst->m = HAS(bit) ? (__typeof__(dst->m))take_varint(&p) : 0;
#define GET_S(bit, m) dst->m = HAS(bit) ? unzigzag(take_varint(&p)) : 0;
#define GET_B(bit, m) \
	if (HAS(bit)) { \
		uint32_t n = (uint32_t)take_varint(&p); \
		dst->m = (struct fstap_bytes){ p, n }; \
		p += n; \
	} else { \
		dst->m = (struct fstap_bytes){ NULL, 0 }; \
	}
#define GET(bit, m, k) GET_##k(bit, m)

void fstap_rec_unpack(struct fstap_rec *dst, const void *src)
{
	const uint8_t *p = (const uint8_t *)src + sizeof(uint64_t);
	uint64_t mask;

	memcpy(&mask, src, sizeof(mask));
	if (mask == CLONED) {
		*dst = *(const struct fstap_rec *)p;
		return;
	}
	/* in FIELDS order: the order fstap_rec_pack wrote them */
	FIELDS(GET)
	dst->nentries = dst->nxattrs = dst->nextents = 0;
	dst->entries = NULL;
	dst->xattrs = NULL;
	dst->extents = NULL;
	dst->xattr_sizes = (struct fstap_u64_list){ 0 };
}
