/*
 * jsonl_export.c: renders records as JSON Lines. Records are formatted here
 * directly (a fixed schema, no object tree per record), which keeps export
 * fast; the header line goes through jansson since it carries the metadata
 * object. The importer (jsonl_import.c) parses both with jansson.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fstap/jsonl.h"
#include "fstap/pathmap.h"
#include "fstap/util.h"

void fstap_jbuf_release(struct fstap_jbuf *jb)
{
	free(jb->buf);
	jb->buf = NULL;
	jb->len = jb->cap = 0;
}

static bool jb_grow(struct fstap_jbuf *jb, size_t more)
{
	if (more > SIZE_MAX - jb->len || FSTAP_GROW(jb->buf, jb->len + more, jb->cap)) {
		jb->oom = 1;
		return false;
	}
	return true;
}

/*
 * Room for n more bytes: where they go, or NULL (out of memory). A writer
 * fills them through the pointer it gets and ends with jb_end.
 */
static inline char *jb_room(struct fstap_jbuf *jb, size_t n)
{
	if (n > jb->cap - jb->len && !jb_grow(jb, n))
		return NULL;
	return jb->buf + jb->len;
}

static inline void jb_end(struct fstap_jbuf *jb, char *p)
{
	jb->len = (size_t)(p - jb->buf);
}

static void jb_put(struct fstap_jbuf *jb, const char *s, size_t n)
{
	char *p = n ? jb_room(jb, n) : NULL;

	if (!p)
		return;
	memcpy(p, s, n);
	jb_end(jb, p + n);
}

static void jb_puts(struct fstap_jbuf *jb, const char *s)
{
	jb_put(jb, s, strlen(s));
}

/* A string literal at p (its size known here: no call). */
#define PUT_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* The most a number takes: 20 digits and a sign, or the quotes of a string. */
#define NUM_MAX 22

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t pow10_tab[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* v in decimal at p; returns the end. */
static inline char *put_digits(char *p, uint64_t v)
{
	/* digits = floor(log10(v)) + 1, from the bit length (v | 1: 0 has one digit) */
	unsigned t = ((64 - (unsigned)__builtin_clzll(v | 1)) * 1233) >> 12;
	char *end = p + t + ((v | 1) >= pow10_tab[t]), *q = end;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, digit_pairs + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(q - 2, digit_pairs + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
	return end;
}

/* Above 2^63-1 a JSON reader may not take it as an integer: a string then. */
static inline char *put_u64(char *p, uint64_t v)
{
	if (v > INT64_MAX) {
		*p++ = '"';
		p = put_digits(p, v);
		*p++ = '"';
		return p;
	}
	return put_digits(p, v);
}

static inline char *put_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_digits(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_digits(p, (uint64_t)v);
}

static void jb_u64(struct fstap_jbuf *jb, uint64_t v)
{
	char *p = jb_room(jb, NUM_MAX);

	if (p)
		jb_end(jb, put_u64(p, v));
}

/* The same rule for the jansson-built header. */
static json_t *json_u64(uint64_t v)
{
	char tmp[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	return json_string(tmp);
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0. */
static unsigned utf8_seq(const uint8_t *p, size_t n)
{
	uint32_t c;
	unsigned len, i;

	if (p[0] < 0x80)
		return p[0] ? 1 : 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

static bool valid_text(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned k = utf8_seq(p + i, n - i);

		if (!k)
			return false;
		i += k;
	}
	return true;
}

/* The escaping writer: p[0..n) as a JSON string, room for 6 bytes each reserved. */
static char *put_escaped(char *q, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	*q++ = '"';
	for (i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c >= 0x20 && c != '"' && c != '\\') {
			*q++ = (char)c;
			continue;
		}
		*q++ = '\\';
		switch (c) {
		case '"': *q++ = '"'; break;
		case '\\': *q++ = '\\'; break;
		case '\n': *q++ = 'n'; break;
		case '\t': *q++ = 't'; break;
		default:
			q = PUT_LIT(q, "u00");
			*q++ = hex[c >> 4];
			*q++ = hex[c & 15];
		}
	}
	*q++ = '"';
	return q;
}

/* Printable ASCII but '"' and '\\': the bytes go out as they are. */
static inline bool plain_text(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] >= 0x80 || p[i] == '"' || p[i] == '\\')
			return false;
	return true;
}

/* A byte string: a JSON string if it is valid UTF-8 without NUL, else {"hex": "..."}. */
static void jb_bytes(struct fstap_jbuf *jb, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *q;
	size_t i;

	if (plain_text(p, n)) {
		if (!(q = jb_room(jb, n + 2)))
			return;
		*q++ = '"';
		if (n)	/* an empty string may have no bytes at all (p NULL) */
			memcpy(q, p, n);
		q += n;
		*q++ = '"';
		jb_end(jb, q);
		return;
	}
	if (valid_text(p, n)) {
		if (n > (SIZE_MAX - 2) / 6 || !(q = jb_room(jb, 6 * n + 2)))
			return;
		jb_end(jb, put_escaped(q, p, n));
		return;
	}
	if (n > (SIZE_MAX - 10) / 2 || !(q = jb_room(jb, 2 * n + 10)))
		return;
	q = PUT_LIT(q, "{\"hex\":\"");
	for (i = 0; i < n; i++) {
		*q++ = hex[p[i] >> 4];
		*q++ = hex[p[i] & 15];
	}
	jb_end(jb, PUT_LIT(q, "\"}"));
}

/* ,"key": at p, room for key_len + 4 bytes reserved. */
static inline char *put_key(char *p, const char *key, size_t key_len)
{
	p = PUT_LIT(p, ",\"");
	memcpy(p, key, key_len);
	p += key_len;
	return PUT_LIT(p, "\":");
}

static void jb_key(struct fstap_jbuf *jb, const struct fstap_field_info *fi)
{
	char *p = jb_room(jb, fi->key_len + 4u);

	if (p)
		jb_end(jb, put_key(p, fi->key, fi->key_len));
}

static void jb_path(struct fstap_jbuf *jb, const char *key, char *tmp, int n)
{
	if (n < 0)
		return;
	jb_put(jb, key, strlen(key));
	jb_bytes(jb, (const uint8_t *)tmp, (size_t)n);
}

int fstap_jsonl_header(struct fstap_jbuf *jb, const struct fstap_trace_info *info)
{
	json_t *meta, *root;
	json_error_t jerr;
	char *text;
	char version[32];

	meta = json_loads(info->metadata_json ? info->metadata_json : "{}", JSON_ALLOW_NUL, &jerr);
	if (!meta || !json_is_object(meta)) {
		json_decref(meta);
		return -EINVAL;
	}
	snprintf(version, sizeof(version), "%u.%u", info->version_major, info->version_minor);
	root = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "fstap", "trace", "version", version,
			 "flags", (json_int_t)info->flags,
			 "start_realtime_ns", json_u64(info->start_realtime_ns),
			 "start_monotonic_ns", json_u64(info->start_monotonic_ns),
			 "metadata", meta);
	if (!root)
		return -ENOMEM;
	text = json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return -ENOMEM;
	jb_puts(jb, text);
	jb_put(jb, "\n", 1);
	free(text);
	return jb->oom ? -ENOMEM : 0;
}

/* [{"name":N,"type":T,"obj":O,"ino":I},...] */
static void put_entries(struct fstap_jbuf *jb, const struct fstap_rec *rec)
{
	uint32_t i;

	jb_put(jb, "[", 1);
	for (i = 0; i < rec->nentries; i++) {
		const struct fstap_dirent *e = &rec->entries[i];

		jb_puts(jb, i ? ",{\"name\":" : "{\"name\":");
		jb_bytes(jb, e->name.ptr, e->name.len);
		jb_puts(jb, ",\"type\":");
		jb_u64(jb, e->type);
		jb_puts(jb, ",\"obj\":");
		jb_u64(jb, e->obj);
		jb_puts(jb, ",\"ino\":");
		jb_u64(jb, e->ino);
		jb_put(jb, "}", 1);
	}
	jb_put(jb, "]", 1);
}

/* [{"name":N,"value":V},...] */
static void put_xattrs(struct fstap_jbuf *jb, const struct fstap_rec *rec)
{
	uint32_t i;

	jb_put(jb, "[", 1);
	for (i = 0; i < rec->nxattrs; i++) {
		jb_puts(jb, i ? ",{\"name\":" : "{\"name\":");
		jb_bytes(jb, rec->xattrs[i].name.ptr, rec->xattrs[i].name.len);
		jb_puts(jb, ",\"value\":");
		jb_bytes(jb, rec->xattrs[i].value.ptr, rec->xattrs[i].value.len);
		jb_put(jb, "}", 1);
	}
	jb_put(jb, "]", 1);
}

/* [[offset,length],...] */
static void put_extents(struct fstap_jbuf *jb, const struct fstap_rec *rec)
{
	uint32_t i;

	jb_put(jb, "[", 1);
	for (i = 0; i < rec->nextents; i++) {
		jb_puts(jb, i ? ",[" : "[");
		jb_u64(jb, rec->extents[i].offset);
		jb_put(jb, ",", 1);
		jb_u64(jb, rec->extents[i].length);
		jb_put(jb, "]", 1);
	}
	jb_put(jb, "]", 1);
}

static void put_field(struct fstap_jbuf *jb, const struct fstap_rec *rec,
		      const struct fstap_field_info *fi)
{
	const void *m = (const char *)rec + fi->offset;
	uint32_t i;
	char *p;

	switch (fi->type) {
	case FSTAP_FT_U64: {
		uint64_t v;

		if (fi->width == 4) {
			uint32_t v32;

			memcpy(&v32, m, 4);
			v = v32;
		} else {
			memcpy(&v, m, 8);
		}
		if (v && (p = jb_room(jb, fi->key_len + 4u + NUM_MAX)))
			jb_end(jb, put_u64(put_key(p, fi->key, fi->key_len), v));
		break;
	}
	case FSTAP_FT_S64: {
		int64_t v;

		memcpy(&v, m, 8);
		if (v && (p = jb_room(jb, fi->key_len + 4u + NUM_MAX)))
			jb_end(jb, put_s64(put_key(p, fi->key, fi->key_len), v));
		break;
	}
	case FSTAP_FT_NAME:
	case FSTAP_FT_BYTES: {
		const struct fstap_bytes *b = m;

		if (b->len) {
			jb_key(jb, fi);
			jb_bytes(jb, b->ptr, b->len);
		}
		break;
	}
	case FSTAP_FT_ENTRIES:
		if (rec->nentries) {
			jb_key(jb, fi);
			put_entries(jb, rec);
		}
		break;
	case FSTAP_FT_XATTRS:
		if (rec->nxattrs) {
			jb_key(jb, fi);
			put_xattrs(jb, rec);
		}
		break;
	case FSTAP_FT_EXTENTS:
		if (rec->nextents) {
			jb_key(jb, fi);
			put_extents(jb, rec);
		}
		break;
	case FSTAP_FT_U64_LIST: {
		const struct fstap_u64_list *l = m;

		if (!l->n)
			break;
		jb_key(jb, fi);
		for (i = 0; i < l->n; i++) {
			jb_put(jb, i ? "," : "[", 1);
			jb_u64(jb, l->v[i]);
		}
		jb_put(jb, "]", 1);
		break;
	}
	}
}

/* {"op":"NAME" and an operation's common header: the most it takes. */
#define HEAD_MAX (8 + 255 + 7 * (8 + NUM_MAX) + sizeof(",\"kernel\":true") + 8 + NUM_MAX)

int fstap_jsonl_record(struct fstap_jbuf *jb, const struct fstap_rec *rec,
		       const struct fstap_pathmap *pm)
{
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	char path[8192], *p;
	unsigned i;

	if (!oi)
		return -EINVAL;
	if (!(p = jb_room(jb, HEAD_MAX)))
		return -ENOMEM;
	p = PUT_LIT(p, "{\"op\":\"");
	memcpy(p, oi->name, oi->name_len);
	p += oi->name_len;
	*p++ = '"';
	if (!(oi->props & FSTAP_OPP_META)) {
		p = put_u64(PUT_LIT(p, ",\"t\":"), rec->start_ns);
		p = put_u64(PUT_LIT(p, ",\"dur\":"), rec->dur_ns);
		p = put_u64(PUT_LIT(p, ",\"tid\":"), rec->tid);
		p = put_u64(PUT_LIT(p, ",\"pid\":"), rec->pid);
		p = put_u64(PUT_LIT(p, ",\"uid\":"), rec->uid);
		p = put_u64(PUT_LIT(p, ",\"gid\":"), rec->gid);
		p = put_s64(PUT_LIT(p, ",\"res\":"), rec->result);
		if (rec->flags & FSTAP_RF_KERNEL)
			p = PUT_LIT(p, ",\"kernel\":true");
		p = put_u64(PUT_LIT(p, ",\"obj\":"), rec->obj);
	}
	jb_end(jb, p);
	for (i = 0; i < oi->nfields; i++)
		put_field(jb, rec, fstap_field_info(oi->fields[i]));
	if (pm && rec->op != FSTAP_OP_PROCESS && rec->op != FSTAP_OP_LOSS &&
	    rec->op != FSTAP_OP_FOOTER && rec->op != FSTAP_OP_WATERMARK) {
		if ((oi->props & FSTAP_OPP_DIRENT) || rec->op == FSTAP_OP_STATE_DENTRY)
			jb_path(jb, ",\"path\":",
				path, fstap_pathmap_entry_path(pm, rec->obj, rec->name, path, sizeof(path)));
		else
			jb_path(jb, ",\"path\":", path,
				fstap_pathmap_path(pm, rec->obj, path, sizeof(path)));
		if (rec->op == FSTAP_OP_RENAME || rec->op == FSTAP_OP_LINK)
			jb_path(jb, ",\"newpath\":", path,
				fstap_pathmap_entry_path(pm, rec->newparent, rec->newname,
							 path, sizeof(path)));
		if (rec->op == FSTAP_OP_COPY_FILE_RANGE)
			jb_path(jb, ",\"path2\":", path,
				fstap_pathmap_path(pm, rec->obj2, path, sizeof(path)));
	}
	jb_put(jb, "}\n", 2);
	return jb->oom ? -ENOMEM : 0;
}
