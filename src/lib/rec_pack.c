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

/* A field's value as packed: U as is, S zigzagged, B its length. */
#define VAL_U(x) ((uint64_t)(x))
#define VAL_S(x) zigzag(x)
#define VAL_B(x) ((x).len)

static bool has_arrays(const struct fstap_rec *rec)
{
	return rec->nentries || rec->nxattrs || rec->nextents || rec->xattr_sizes.n;
}

#define SIZE_U(bit, m) if (rec->m) size += varint_len(VAL_U(rec->m));
#define SIZE_S(bit, m) if (rec->m) size += varint_len(VAL_S(rec->m));
#define SIZE_B(bit, m) if (rec->m.len) size += varint_len(rec->m.len) + rec->m.len;
#define SIZE(bit, m, k) SIZE_##k(bit, m)

size_t fstap_rec_pack_size(const struct fstap_rec *rec)
{
	size_t size = sizeof(uint64_t);

	if (has_arrays(rec))
		return size + sizeof(*rec) + fstap_rec_clone_size(rec, FSTAP_CLONE_ALL);
	FIELDS(SIZE)
	return size;
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

void fstap_rec_pack(void *dst, const struct fstap_rec *rec)
{
	uint8_t *p = (uint8_t *)dst + sizeof(uint64_t);
	uint64_t mask = 0;

	if (has_arrays(rec)) {
		mask = CLONED;
		memcpy(dst, &mask, sizeof(mask));
		fstap_rec_clone_into((struct fstap_rec *)p, p + sizeof(*rec), rec, FSTAP_CLONE_ALL);
		return;
	}
	FIELDS(PUT)
	memcpy(dst, &mask, sizeof(mask));
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

#define GET_U(bit, m) case bit: dst->m = (__typeof__(dst->m))v; break;
#define GET_S(bit, m) case bit: dst->m = unzigzag(v); break;
#define GET_B(bit, m) case bit: dst->m = (struct fstap_bytes){ p, (uint32_t)v }; p += v; break;
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
	memset(dst, 0, sizeof(*dst));
	while (mask) {
		unsigned bit = (unsigned)__builtin_ctzll(mask);
		uint64_t v = take_varint(&p);

		mask &= mask - 1;
		switch (bit) {
		FIELDS(GET)
		default:
			break;
		}
	}
}
