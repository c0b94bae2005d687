/*
 * fixtures.c: builds records for the unit tests by walking the field table,
 * so a field added to a record type is covered without touching the tests.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/fixtures.h"

static struct fstap_bytes text(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct fstap_bytes text(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, cap, fmt, ap);
	va_end(ap);

	return (struct fstap_bytes){ (const uint8_t *)buf, (uint32_t)n };
}

void fixture_fill(struct fixture *f, unsigned op, unsigned seed)
{
	const struct fstap_op_info *oi = fstap_op_info(op);
	struct fstap_rec *r = &f->rec;
	unsigned i, k;

	memset(f, 0, sizeof(*f));
	r->op = (uint16_t)op;
	if (!fstap_op_is_meta(op)) {
		r->start_ns = 1000 + 37 * seed;
		r->dur_ns = 5 + seed % 7;
		r->tid = 100 + seed % 3;
		r->pid = 100;
		r->uid = seed % 2 ? 1000 : 0;
		r->gid = r->uid;
		r->result = seed % 5 == 0 ? -2 : (int64_t)seed;
		r->flags = seed % 4 == 0 ? FSTAP_RF_KERNEL : 0;
		r->obj = 1 + seed;
	}
	for (i = 0; i < oi->nfields; i++) {
		const struct fstap_field_info *fi = fstap_field_info(oi->fields[i]);
		void *m = (char *)r + fi->offset;
		uint64_t v = 3 + seed * 11 + i * 1000003ull;

		switch (fi->type) {
		case FSTAP_FT_U64:
			if (fi->width == 4) {
				uint32_t v32 = (uint32_t)v;

				memcpy(m, &v32, 4);
			} else {
				/* Some values above 2^63 to exercise the full range. */
				if (i == 1 && seed % 3 == 0)
					v |= 1ull << 63;
				memcpy(m, &v, 8);
			}
			break;
		case FSTAP_FT_S64:
			*(int64_t *)m = seed % 2 ? -(int64_t)v : (int64_t)v * 1000000007;
			break;
		case FSTAP_FT_NAME:
		case FSTAP_FT_BYTES:
			*(struct fstap_bytes *)m = text(f->names[i % 4], sizeof(f->names[0]),
							"name-\xc3\xa9-%u", seed % 5 + i);
			break;
		case FSTAP_FT_ENTRIES:
			for (k = 0; k < 3; k++) {
				f->entries[k].name = text(f->names[k], sizeof(f->names[0]), "e%u", k + seed);
				f->entries[k].type = k == 0 ? 4 : 8;
				f->entries[k].obj = 10 + k;
				f->entries[k].ino = 5000 - 100 * k + seed;
			}
			r->entries = f->entries;
			r->nentries = 3;
			break;
		case FSTAP_FT_XATTRS:
			for (k = 0; k < sizeof(f->blob); k++)
				f->blob[k] = (uint8_t)(k * 37 + seed);
			f->xattrs[0].name = text(f->names[2], sizeof(f->names[0]), "user.x%u", seed);
			f->xattrs[0].value = (struct fstap_bytes){ f->blob, sizeof(f->blob) };
			f->xattrs[1].name = text(f->names[3], sizeof(f->names[0]), "security.s%u", seed);
			r->xattrs = f->xattrs;
			r->nxattrs = 2;
			break;
		case FSTAP_FT_EXTENTS:
			for (k = 0; k < 3; k++) {
				f->extents[k].offset = 4096 * (3 * k + seed % 2);
				f->extents[k].length = 4096 * (k + 1);
			}
			r->extents = f->extents;
			r->nextents = 3;
			break;
		case FSTAP_FT_U64_LIST:
			f->u64s[0] = v;
			f->u64s[1] = seed % 3 == 0 ? UINT64_MAX : 0;
			*(struct fstap_u64_list *)m = (struct fstap_u64_list){ f->u64s, 2 };
			break;
		}
	}
}

static int bytes_eq(struct fstap_bytes a, struct fstap_bytes b)
{
	return a.len == b.len && (!a.len || !memcmp(a.ptr, b.ptr, a.len));
}

/* The key of field fi if a and b differ in it, else NULL. */
static const char *field_diff(const struct fstap_rec *a, const struct fstap_rec *b,
			      const struct fstap_field_info *fi)
{
	const void *ma = (const char *)a + fi->offset, *mb = (const char *)b + fi->offset;
	unsigned k;

	switch (fi->type) {
	case FSTAP_FT_U64:
	case FSTAP_FT_S64:
		if (memcmp(ma, mb, fi->width))
			return fi->key;
		break;
	case FSTAP_FT_NAME:
	case FSTAP_FT_BYTES:
		if (!bytes_eq(*(const struct fstap_bytes *)ma, *(const struct fstap_bytes *)mb))
			return fi->key;
		break;
	case FSTAP_FT_ENTRIES:
		if (a->nentries != b->nentries)
			return fi->key;
		for (k = 0; k < a->nentries; k++)
			if (!bytes_eq(a->entries[k].name, b->entries[k].name) ||
			    a->entries[k].type != b->entries[k].type ||
			    a->entries[k].obj != b->entries[k].obj ||
			    a->entries[k].ino != b->entries[k].ino)
				return fi->key;
		break;
	case FSTAP_FT_XATTRS:
		if (a->nxattrs != b->nxattrs)
			return fi->key;
		for (k = 0; k < a->nxattrs; k++)
			if (!bytes_eq(a->xattrs[k].name, b->xattrs[k].name) ||
			    !bytes_eq(a->xattrs[k].value, b->xattrs[k].value))
				return fi->key;
		break;
	case FSTAP_FT_EXTENTS:
		if (a->nextents != b->nextents)
			return fi->key;
		for (k = 0; k < a->nextents; k++)
			if (a->extents[k].offset != b->extents[k].offset ||
			    a->extents[k].length != b->extents[k].length)
				return fi->key;
		break;
	case FSTAP_FT_U64_LIST: {
		const struct fstap_u64_list *la = ma, *lb = mb;

		if (la->n != lb->n || (la->n && memcmp(la->v, lb->v, la->n * sizeof(*la->v))))
			return fi->key;
		break;
	}
	}
	return NULL;
}

static const char *header_diff(const struct fstap_rec *a, const struct fstap_rec *b)
{
	if (a->start_ns != b->start_ns) return "start_ns";
	if (a->dur_ns != b->dur_ns) return "dur_ns";
	if (a->tid != b->tid || a->pid != b->pid) return "tid/pid";
	if (a->uid != b->uid || a->gid != b->gid) return "uid/gid";
	if (a->result != b->result) return "result";
	if (a->flags != b->flags) return "flags";
	if (a->obj != b->obj) return "obj";
	return NULL;
}

/* The first difference in the fields of a's type (all: in every field and the header). */
static const char *rec_diff(const struct fstap_rec *a, const struct fstap_rec *b, bool all)
{
	const struct fstap_op_info *oi;
	const char *d;
	unsigned i, n;

	if (a->op != b->op)
		return "op";
	oi = fstap_op_info(a->op);
	if ((all || !fstap_op_is_meta(a->op)) && (d = header_diff(a, b)))
		return d;
	n = all ? FSTAP_F_NR : oi->nfields;
	for (i = 0; i < n; i++)
		if ((d = field_diff(a, b, fstap_field_info(all ? i : oi->fields[i]))))
			return d;
	return NULL;
}

const char *fixture_diff(const struct fstap_rec *a, const struct fstap_rec *b)
{
	return rec_diff(a, b, false);
}

const char *fixture_diff_all(const struct fstap_rec *a, const struct fstap_rec *b)
{
	return rec_diff(a, b, true);
}

int fixture_write_trace(const char *path, unsigned n, size_t chunk_size, bool footer)
{
	struct fstap_trace_info info = { .start_realtime_ns = 1, .start_monotonic_ns = 2,
					 .metadata_json = (char *)"{\"test\":true}" };
	struct fstap_writer *w;
	struct fixture f;
	unsigned i, op = 1;
	int ret;

	ret = fstap_writer_open(&w, path, &info, chunk_size);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++) {
		while (!fstap_op_info(op) || op == FSTAP_OP_FOOTER)
			op = (op + 1) % FSTAP_OP_NR;
		fixture_fill(&f, op, i);
		ret = fstap_writer_add(w, &f.rec);
		op = (op + 1) % FSTAP_OP_NR;
	}
	if (!ret)
		ret = fstap_writer_close(w, 12345, !footer);
	fstap_writer_free(w);
	return ret;
}

char *fixture_tmpname(const char *tag)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p;
	int fd;

	if (asprintf(&p, "%s/fstap-%s-XXXXXX", dir, tag) < 0)
		return NULL;
	fd = mkstemp(p);
	if (fd < 0) {
		free(p);
		return NULL;
	}
	close(fd);
	return p;
}
