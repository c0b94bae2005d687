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

static void jb_put(struct fstap_jbuf *jb, const char *s, size_t n)
{
	if (!n || !jb_grow(jb, n))
		return;
	memcpy(jb->buf + jb->len, s, n);
	jb->len += n;
}

static void jb_puts(struct fstap_jbuf *jb, const char *s)
{
	jb_put(jb, s, strlen(s));
}

static void jb_digits(struct fstap_jbuf *jb, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jb_put(jb, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Above 2^63-1 a JSON reader may not take it as an integer: a string then. */
static void jb_u64(struct fstap_jbuf *jb, uint64_t v)
{
	if (v > INT64_MAX) {
		jb_put(jb, "\"", 1);
		jb_digits(jb, v);
		jb_put(jb, "\"", 1);
		return;
	}
	jb_digits(jb, v);
}

static void jb_s64(struct fstap_jbuf *jb, int64_t v)
{
	if (v < 0) {
		jb_put(jb, "-", 1);
		jb_digits(jb, (uint64_t)0 - (uint64_t)v);
	} else {
		jb_digits(jb, (uint64_t)v);
	}
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

static void jb_string(struct fstap_jbuf *jb, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	jb_put(jb, "\"", 1);
	for (i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		jb_put(jb, (const char *)p + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': jb_put(jb, "\\\"", 2); break;
		case '\\': jb_put(jb, "\\\\", 2); break;
		case '\n': jb_put(jb, "\\n", 2); break;
		case '\t': jb_put(jb, "\\t", 2); break;
		default: {
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			jb_put(jb, esc, 6);
		}
		}
	}
	jb_put(jb, (const char *)p + run, n - run);
	jb_put(jb, "\"", 1);
}

static void jb_bytes(struct fstap_jbuf *jb, struct fstap_bytes b)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t i;

	if (valid_text(b.ptr, b.len)) {
		jb_string(jb, b.ptr, b.len);
		return;
	}
	jb_puts(jb, "{\"hex\":\"");
	if (!jb_grow(jb, 2 * (size_t)b.len))
		return;
	for (i = 0; i < b.len; i++) {
		jb->buf[jb->len++] = hex[b.ptr[i] >> 4];
		jb->buf[jb->len++] = hex[b.ptr[i] & 15];
	}
	jb_puts(jb, "\"}");
}

static void jb_key(struct fstap_jbuf *jb, const char *key)
{
	jb_put(jb, ",\"", 2);
	jb_puts(jb, key);
	jb_put(jb, "\":", 2);
}

static void jb_path(struct fstap_jbuf *jb, const char *key, char *tmp, int n)
{
	if (n < 0)
		return;
	jb_key(jb, key);
	jb_bytes(jb, (struct fstap_bytes){ (const uint8_t *)tmp, (uint32_t)n });
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

static void put_field(struct fstap_jbuf *jb, const struct fstap_rec *rec,
		      const struct fstap_field_info *fi)
{
	const void *m = (const char *)rec + fi->offset;
	uint32_t i;

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
		if (v) {
			jb_key(jb, fi->key);
			jb_u64(jb, v);
		}
		break;
	}
	case FSTAP_FT_S64:
		if (*(const int64_t *)m) {
			jb_key(jb, fi->key);
			jb_s64(jb, *(const int64_t *)m);
		}
		break;
	case FSTAP_FT_NAME:
	case FSTAP_FT_BYTES:
		if (((const struct fstap_bytes *)m)->len) {
			jb_key(jb, fi->key);
			jb_bytes(jb, *(const struct fstap_bytes *)m);
		}
		break;
	case FSTAP_FT_ENTRIES:
		if (!rec->nentries)
			break;
		jb_key(jb, fi->key);
		jb_put(jb, "[", 1);
		for (i = 0; i < rec->nentries; i++) {
			const struct fstap_dirent *e = &rec->entries[i];

			jb_puts(jb, i ? ",{\"name\":" : "{\"name\":");
			jb_bytes(jb, e->name);
			jb_puts(jb, ",\"type\":");
			jb_u64(jb, e->type);
			jb_puts(jb, ",\"obj\":");
			jb_u64(jb, e->obj);
			jb_puts(jb, ",\"ino\":");
			jb_u64(jb, e->ino);
			jb_put(jb, "}", 1);
		}
		jb_put(jb, "]", 1);
		break;
	case FSTAP_FT_XATTRS:
		if (!rec->nxattrs)
			break;
		jb_key(jb, fi->key);
		jb_put(jb, "[", 1);
		for (i = 0; i < rec->nxattrs; i++) {
			jb_puts(jb, i ? ",{\"name\":" : "{\"name\":");
			jb_bytes(jb, rec->xattrs[i].name);
			jb_puts(jb, ",\"value\":");
			jb_bytes(jb, rec->xattrs[i].value);
			jb_put(jb, "}", 1);
		}
		jb_put(jb, "]", 1);
		break;
	case FSTAP_FT_EXTENTS:
		if (!rec->nextents)
			break;
		jb_key(jb, fi->key);
		jb_put(jb, "[", 1);
		for (i = 0; i < rec->nextents; i++) {
			jb_puts(jb, i ? ",[" : "[");
			jb_u64(jb, rec->extents[i].offset);
			jb_put(jb, ",", 1);
			jb_u64(jb, rec->extents[i].length);
			jb_put(jb, "]", 1);
		}
		jb_put(jb, "]", 1);
		break;
	case FSTAP_FT_U64_LIST: {
		const struct fstap_u64_list *l = m;

		if (!l->n)
			break;
		jb_key(jb, fi->key);
		for (i = 0; i < l->n; i++) {
			jb_put(jb, i ? "," : "[", 1);
			jb_u64(jb, l->v[i]);
		}
		jb_put(jb, "]", 1);
		break;
	}
	}
}

int fstap_jsonl_record(struct fstap_jbuf *jb, const struct fstap_rec *rec,
		       const struct fstap_pathmap *pm)
{
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	char path[8192];
	unsigned i;

	if (!oi)
		return -EINVAL;
	jb_puts(jb, "{\"op\":\"");
	jb_puts(jb, oi->name);
	jb_put(jb, "\"", 1);
	if (!(oi->props & FSTAP_OPP_META)) {
		jb_puts(jb, ",\"t\":");
		jb_u64(jb, rec->start_ns);
		jb_puts(jb, ",\"dur\":");
		jb_u64(jb, rec->dur_ns);
		jb_puts(jb, ",\"tid\":");
		jb_u64(jb, rec->tid);
		jb_puts(jb, ",\"pid\":");
		jb_u64(jb, rec->pid);
		jb_puts(jb, ",\"uid\":");
		jb_u64(jb, rec->uid);
		jb_puts(jb, ",\"gid\":");
		jb_u64(jb, rec->gid);
		jb_puts(jb, ",\"res\":");
		jb_s64(jb, rec->result);
		if (rec->flags & FSTAP_RF_KERNEL)
			jb_puts(jb, ",\"kernel\":true");
		jb_puts(jb, ",\"obj\":");
		jb_u64(jb, rec->obj);
	}
	for (i = 0; i < oi->nfields; i++)
		put_field(jb, rec, fstap_field_info(oi->fields[i]));
	if (pm && rec->op != FSTAP_OP_PROCESS && rec->op != FSTAP_OP_LOSS &&
	    rec->op != FSTAP_OP_FOOTER && rec->op != FSTAP_OP_WATERMARK) {
		if ((oi->props & FSTAP_OPP_DIRENT) || rec->op == FSTAP_OP_STATE_DENTRY)
			jb_path(jb, "path",
				path, fstap_pathmap_entry_path(pm, rec->obj, rec->name, path, sizeof(path)));
		else
			jb_path(jb, "path", path, fstap_pathmap_path(pm, rec->obj, path, sizeof(path)));
		if (rec->op == FSTAP_OP_RENAME || rec->op == FSTAP_OP_LINK)
			jb_path(jb, "newpath", path,
				fstap_pathmap_entry_path(pm, rec->newparent, rec->newname,
							 path, sizeof(path)));
		if (rec->op == FSTAP_OP_COPY_FILE_RANGE)
			jb_path(jb, "path2", path, fstap_pathmap_path(pm, rec->obj2, path, sizeof(path)));
	}
	jb_put(jb, "}\n", 2);
	return jb->oom ? -ENOMEM : 0;
}
