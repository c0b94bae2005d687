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

enum kind { K_U16, K_U32, K_U64, K_S64, K_BYTES };

struct field {
	uint16_t off;
	uint8_t kind;
};

#define F(m, k) { offsetof(struct fstap_rec, m), k }

/* Every field of struct fstap_rec but the arrays and their counts. */
static const struct field fields[] = {
	F(op, K_U16), F(flags, K_U16), F(tid, K_U32), F(pid, K_U32), F(uid, K_U32),
	F(gid, K_U32), F(start_ns, K_U64), F(dur_ns, K_U64), F(result, K_S64), F(obj, K_U64),
	F(name, K_BYTES), F(newname, K_BYTES), F(target, K_BYTES), F(comm, K_BYTES),
	F(cmdline, K_BYTES), F(value, K_BYTES),
	F(child, K_U64), F(newparent, K_U64), F(fh, K_U64), F(fh2, K_U64), F(obj2, K_U64),
	F(offset, K_U64), F(offset2, K_U64), F(size, K_U64), F(flags_arg, K_U64),
	F(whence, K_U64), F(mode, K_U64), F(umask, K_U64), F(rdev, K_U64), F(valid, K_U64),
	F(owner_uid, K_U64), F(owner_gid, K_U64), F(atime, K_S64), F(mtime, K_S64),
	F(ctime, K_S64), F(ino, K_U64), F(nlink, K_U64), F(ppid, K_U64), F(time_ns, K_U64),
	F(records, K_U64), F(lost, K_U64), F(bytes_read, K_U64), F(bytes_written, K_U64),
	F(cmd, K_U64), F(projid, K_U64), F(extsize, K_U64), F(cowextsize, K_U64),
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define CLONED UINT64_MAX	/* the mask of a record held as a clone */

_Static_assert(NFIELDS < 64, "a mask bit per field");
/* A field added to struct fstap_rec must be added to fields[] (and this size). */
_Static_assert(sizeof(struct fstap_rec) == 456, "struct fstap_rec changed: update fields[]");

static bool has_arrays(const struct fstap_rec *rec)
{
	return rec->nentries || rec->nxattrs || rec->nextents || rec->xattr_sizes.n;
}

/* Field f of rec as an unsigned value (a length for bytes); 0: not packed. */
static uint64_t value_of(const struct fstap_rec *rec, const struct field *f)
{
	const char *p = (const char *)rec + f->off;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	int64_t s64;

	switch (f->kind) {
	case K_U16:
		memcpy(&u16, p, sizeof(u16));
		return u16;
	case K_U32:
		memcpy(&u32, p, sizeof(u32));
		return u32;
	case K_U64:
		memcpy(&u64, p, sizeof(u64));
		return u64;
	case K_S64:
		memcpy(&s64, p, sizeof(s64));
		return zigzag(s64);
	default:
		return ((const struct fstap_bytes *)p)->len;
	}
}

size_t fstap_rec_pack_size(const struct fstap_rec *rec)
{
	size_t size = sizeof(uint64_t), i;

	if (has_arrays(rec))
		return size + sizeof(*rec) + fstap_rec_clone_size(rec, FSTAP_CLONE_ALL);
	for (i = 0; i < NFIELDS; i++) {
		uint64_t v = value_of(rec, &fields[i]);

		if (v)
			size += varint_len(v) + (fields[i].kind == K_BYTES ? v : 0);
	}
	return size;
}

void fstap_rec_pack(void *dst, const struct fstap_rec *rec)
{
	uint8_t *p = (uint8_t *)dst + sizeof(uint64_t);
	uint64_t mask = 0;
	size_t i;

	if (has_arrays(rec)) {
		mask = CLONED;
		memcpy(dst, &mask, sizeof(mask));
		fstap_rec_clone_into((struct fstap_rec *)p, p + sizeof(*rec), rec, FSTAP_CLONE_ALL);
		return;
	}
	for (i = 0; i < NFIELDS; i++) {
		uint64_t v = value_of(rec, &fields[i]);

		if (!v)
			continue;
		mask |= 1ull << i;
		p = put_varint(p, v);
		if (fields[i].kind == K_BYTES) {
			memcpy(p, ((const struct fstap_bytes *)((const char *)rec + fields[i].off))->ptr, v);
			p += v;
		}
	}
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
		const struct field *f = &fields[__builtin_ctzll(mask)];
		char *at = (char *)dst + f->off;
		uint64_t v = take_varint(&p);
		uint16_t u16 = (uint16_t)v;
		uint32_t u32 = (uint32_t)v;
		int64_t s64 = unzigzag(v);

		mask &= mask - 1;
		switch (f->kind) {
		case K_U16:
			memcpy(at, &u16, sizeof(u16));
			break;
		case K_U32:
			memcpy(at, &u32, sizeof(u32));
			break;
		case K_U64:
			memcpy(at, &v, sizeof(v));
			break;
		case K_S64:
			memcpy(at, &s64, sizeof(s64));
			break;
		default:
			*(struct fstap_bytes *)at = (struct fstap_bytes){ p, (uint32_t)v };
			p += v;
			break;
		}
	}
}
