/*
 * jsonl_import.c: reads JSON Lines (as written by export, or by hand, or by
 * a converter from another tool) and writes a binary trace. Strict: an
 * unknown op or key, a wrong type or an out-of-range number is an error
 * naming the line, so a hand-written trace never means something else
 * silently. "path", "newpath" and "path2" are derived by export and ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "fstap/hex.h"
#include "fstap/jsonl.h"
#include "fstap/log.h"
#include "fstap/util.h"

/* Per-line allocations, freed together after the record is written. */
struct line_arena {
	void **ptrs;
	size_t n, cap;
};

static void *arena_alloc(struct line_arena *a, size_t size)
{
	void *p;

	if (FSTAP_GROW(a->ptrs, a->n + 1, a->cap))
		return NULL;
	p = calloc(1, size ? size : 1);
	if (p)
		a->ptrs[a->n++] = p;
	return p;
}

static void arena_clear(struct line_arena *a)
{
	while (a->n)
		free(a->ptrs[--a->n]);
}

struct importer {
	const char *in_name;
	unsigned long line;
	char **errmsg;
	struct line_arena arena;
};

static int fail(struct importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct importer *im, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (im->errmsg && !*im->errmsg &&
	    asprintf(im->errmsg, "%s:%lu: %s", im->in_name, im->line, what) < 0)
		*im->errmsg = NULL;
	return -EINVAL;
}

static int get_u64(struct importer *im, const char *key, json_t *v, uint64_t *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;

		errno = 0;
		if (*s >= '0' && *s <= '9') {
			*out = strtoull(s, &end, 10);
			if (!errno && !*end)
				return 0;
		}
	}
	return fail(im, "'%s' must be a non-negative integer", key);
}

static int get_s64(struct importer *im, const char *key, json_t *v, int64_t *out)
{
	if (!json_is_integer(v))
		return fail(im, "'%s' must be an integer", key);
	*out = json_integer_value(v);
	return 0;
}

static int get_u32(struct importer *im, const char *key, json_t *v, uint32_t *out)
{
	uint64_t x;
	int ret = get_u64(im, key, v, &x);

	if (ret)
		return ret;
	if (x > UINT32_MAX)
		return fail(im, "'%s' is out of range", key);
	*out = (uint32_t)x;
	return 0;
}

static int get_bytes_val(struct importer *im, const char *key, json_t *v, struct fstap_bytes *out)
{
	if (json_is_string(v)) {
		if (json_string_length(v) > UINT32_MAX)
			return fail(im, "'%s' is too long", key);
		out->ptr = (const uint8_t *)json_string_value(v);
		out->len = (uint32_t)json_string_length(v);
		return 0;
	}
	if (json_is_object(v) && json_object_size(v) == 1 && json_is_string(json_object_get(v, "hex"))) {
		json_t *h = json_object_get(v, "hex");
		const char *s = json_string_value(h);
		size_t n = json_string_length(h), i;
		uint8_t *buf;

		if (n % 2 || n / 2 > UINT32_MAX)
			return fail(im, "'%s': hex string of odd length", key);
		buf = arena_alloc(&im->arena, n / 2);
		if (!buf)
			return -ENOMEM;
		for (i = 0; i < n / 2; i++) {
			int hi = fstap_hex_digit(s[2 * i]), lo = fstap_hex_digit(s[2 * i + 1]);

			if (hi < 0 || lo < 0)
				return fail(im, "'%s': bad hex digit", key);
			buf[i] = (uint8_t)(hi << 4 | lo);
		}
		out->ptr = buf;
		out->len = (uint32_t)(n / 2);
		return 0;
	}
	return fail(im, "'%s' must be a string or {\"hex\": \"...\"}", key);
}

static int get_array(struct importer *im, const char *key, json_t *v, size_t elem,
		     void **out, uint32_t *count)
{
	size_t n;

	if (!json_is_array(v))
		return fail(im, "'%s' must be an array", key);
	n = json_array_size(v);
	if (n > UINT32_MAX / 2)
		return fail(im, "'%s' is too long", key);
	*out = arena_alloc(&im->arena, n * elem);
	if (!*out)
		return -ENOMEM;
	*count = (uint32_t)n;
	return 0;
}

static int check_keys(struct importer *im, json_t *obj, const char *what, const char *const *keys)
{
	const char *k;
	json_t *v;
	size_t i;

	json_object_foreach(obj, k, v) {
		for (i = 0; keys[i]; i++)
			if (!strcmp(k, keys[i]))
				break;
		if (!keys[i])
			return fail(im, "unknown key '%s' in %s", k, what);
	}
	return 0;
}

/* "entries": [{"name": N, "type": T, "obj": O, "ino": I}, ...], name required. */
static int get_entries(struct importer *im, const char *key, json_t *v, struct fstap_rec *rec)
{
	static const char *const keys[] = { "name", "type", "obj", "ino", NULL };
	struct fstap_dirent *e;
	size_t i;
	int ret;

	if ((ret = get_array(im, key, v, sizeof(*e), (void **)&e, &rec->nentries)))
		return ret;
	for (i = 0; i < rec->nentries; i++) {
		json_t *o = json_array_get(v, i), *x;

		if (!json_is_object(o))
			return fail(im, "'entries' items must be objects");
		if ((ret = check_keys(im, o, "an entry", keys)))
			return ret;
		if (!(x = json_object_get(o, "name")))
			return fail(im, "an entry without 'name'");
		if ((ret = get_bytes_val(im, "name", x, &e[i].name)))
			return ret;
		if ((x = json_object_get(o, "type")) && (ret = get_u32(im, "type", x, &e[i].type)))
			return ret;
		if ((x = json_object_get(o, "obj")) && (ret = get_u64(im, "obj", x, &e[i].obj)))
			return ret;
		if ((x = json_object_get(o, "ino")) && (ret = get_u64(im, "ino", x, &e[i].ino)))
			return ret;
	}
	rec->entries = e;
	return 0;
}

/* "xattrs": [{"name": N, "value": V}, ...], name required. */
static int get_xattrs(struct importer *im, const char *key, json_t *v, struct fstap_rec *rec)
{
	static const char *const keys[] = { "name", "value", NULL };
	struct fstap_xattr *x;
	size_t i;
	int ret;

	if ((ret = get_array(im, key, v, sizeof(*x), (void **)&x, &rec->nxattrs)))
		return ret;
	for (i = 0; i < rec->nxattrs; i++) {
		json_t *o = json_array_get(v, i), *y;

		if (!json_is_object(o) || (ret = check_keys(im, o, "an xattr", keys)))
			return json_is_object(o) ? ret : fail(im, "'xattrs' items must be objects");
		if (!(y = json_object_get(o, "name")))
			return fail(im, "an xattr without 'name'");
		if ((ret = get_bytes_val(im, "name", y, &x[i].name)))
			return ret;
		if ((y = json_object_get(o, "value")) &&
		    (ret = get_bytes_val(im, "value", y, &x[i].value)))
			return ret;
	}
	rec->xattrs = x;
	return 0;
}

/* "extents": [[offset, length], ...], sorted, not overlapping, below 2^64. */
static int get_extents(struct importer *im, const char *key, json_t *v, struct fstap_rec *rec)
{
	struct fstap_extent *x;
	uint64_t end = 0;
	size_t i;
	int ret;

	if ((ret = get_array(im, key, v, sizeof(*x), (void **)&x, &rec->nextents)))
		return ret;
	for (i = 0; i < rec->nextents; i++) {
		json_t *o = json_array_get(v, i);

		if (!json_is_array(o) || json_array_size(o) != 2)
			return fail(im, "'extents' items must be [offset, length]");
		if ((ret = get_u64(im, "extents", json_array_get(o, 0), &x[i].offset)) ||
		    (ret = get_u64(im, "extents", json_array_get(o, 1), &x[i].length)))
			return ret;
		if (x[i].offset < end)
			return fail(im, "'extents' must be sorted and not overlap");
		if (x[i].length > UINT64_MAX - x[i].offset)
			return fail(im, "'extents' reach past 2^64");
		end = x[i].offset + x[i].length;
	}
	rec->extents = x;
	return 0;
}

static int get_u64_list(struct importer *im, const char *key, json_t *v,
			struct fstap_u64_list *l)
{
	uint64_t *x;
	size_t i;
	int ret;

	if ((ret = get_array(im, key, v, sizeof(*x), (void **)&x, &l->n)))
		return ret;
	for (i = 0; i < l->n; i++)
		if ((ret = get_u64(im, key, json_array_get(v, i), &x[i])))
			return ret;
	l->v = x;
	return 0;
}

static int get_field(struct importer *im, struct fstap_rec *rec,
		     const struct fstap_field_info *fi, json_t *v)
{
	void *m = (char *)rec + fi->offset;

	switch (fi->type) {
	case FSTAP_FT_U64:
		if (fi->width == 4)
			return get_u32(im, fi->key, v, m);
		return get_u64(im, fi->key, v, m);
	case FSTAP_FT_S64:
		return get_s64(im, fi->key, v, m);
	case FSTAP_FT_NAME:
	case FSTAP_FT_BYTES:
		return get_bytes_val(im, fi->key, v, m);
	case FSTAP_FT_ENTRIES:
		return get_entries(im, fi->key, v, rec);
	case FSTAP_FT_XATTRS:
		return get_xattrs(im, fi->key, v, rec);
	case FSTAP_FT_EXTENTS:
		return get_extents(im, fi->key, v, rec);
	case FSTAP_FT_U64_LIST:
		return get_u64_list(im, fi->key, v, m);
	}
	return 0;
}

static const char *const common_keys[] = {
	"op", "t", "dur", "tid", "pid", "uid", "gid", "res", "obj", "kernel", NULL
};

static int parse_record(struct importer *im, json_t *o, struct fstap_rec *rec)
{
	const struct fstap_op_info *oi;
	const char *k;
	json_t *v;
	unsigned i;
	int ret;

	memset(rec, 0, sizeof(*rec));
	v = json_object_get(o, "op");
	if (!json_is_string(v))
		return fail(im, "a record without 'op'");
	rec->op = (uint16_t)fstap_op_by_name(json_string_value(v));
	oi = fstap_op_info(rec->op);
	if (!oi || rec->op == FSTAP_OP_NONE)
		return fail(im, "unknown op '%s'", json_string_value(v));
	json_object_foreach(o, k, v) {
		bool meta = oi->props & FSTAP_OPP_META;

		if (!strcmp(k, "op") || !strcmp(k, "path") || !strcmp(k, "newpath") ||
		    !strcmp(k, "path2"))
			continue;
		for (i = 0; i < oi->nfields; i++)
			if (!strcmp(k, fstap_field_info(oi->fields[i])->key))
				break;
		if (i < oi->nfields) {
			if ((ret = get_field(im, rec, fstap_field_info(oi->fields[i]), v)))
				return ret;
			continue;
		}
		if (meta)
			return fail(im, "unknown key '%s' for op '%s'", k, oi->name);
		for (i = 0; common_keys[i]; i++)
			if (!strcmp(k, common_keys[i]))
				break;
		if (!common_keys[i])
			return fail(im, "unknown key '%s' for op '%s'", k, oi->name);
		if (!strcmp(k, "t"))
			ret = get_u64(im, k, v, &rec->start_ns);
		else if (!strcmp(k, "dur"))
			ret = get_u64(im, k, v, &rec->dur_ns);
		else if (!strcmp(k, "tid"))
			ret = get_u32(im, k, v, &rec->tid);
		else if (!strcmp(k, "pid"))
			ret = get_u32(im, k, v, &rec->pid);
		else if (!strcmp(k, "uid"))
			ret = get_u32(im, k, v, &rec->uid);
		else if (!strcmp(k, "gid"))
			ret = get_u32(im, k, v, &rec->gid);
		else if (!strcmp(k, "res"))
			ret = get_s64(im, k, v, &rec->result);
		else if (!strcmp(k, "obj"))
			ret = get_u64(im, k, v, &rec->obj);
		else if (!json_is_boolean(v))
			ret = fail(im, "'kernel' must be true or false");
		else
			rec->flags = json_is_true(v) ? FSTAP_RF_KERNEL : 0;
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_header(struct importer *im, json_t *o, struct fstap_trace_info *info)
{
	static const char *const keys[] = {
		"fstap", "version", "flags", "start_realtime_ns", "start_monotonic_ns",
		"metadata", NULL
	};
	json_t *v;
	unsigned major = 0, minor = 0;
	uint64_t x;
	int ret;

	memset(info, 0, sizeof(*info));
	v = json_object_get(o, "fstap");
	if (!json_is_string(v) || strcmp(json_string_value(v), "trace"))
		return fail(im, "the first line must be the header ({\"fstap\": \"trace\", ...})");
	if ((ret = check_keys(im, o, "the header", keys)))
		return ret;
	v = json_object_get(o, "version");
	if (v && (!json_is_string(v) || sscanf(json_string_value(v), "%u.%u", &major, &minor) != 2))
		return fail(im, "'version' must be a string \"MAJOR.MINOR\"");
	if (v && major != FSTAP_VERSION_MAJOR)
		return fail(im, "format version %u.%u is not supported (this fstap writes %d.%d)",
			    major, minor, FSTAP_VERSION_MAJOR, FSTAP_VERSION_MINOR);
	if ((v = json_object_get(o, "flags"))) {
		if ((ret = get_u64(im, "flags", v, &x)))
			return ret;
		if (x > UINT32_MAX)
			return fail(im, "'flags' is out of range");
		info->flags = (uint32_t)x;
	}
	if ((v = json_object_get(o, "start_realtime_ns")) &&
	    (ret = get_u64(im, "start_realtime_ns", v, &info->start_realtime_ns)))
		return ret;
	if ((v = json_object_get(o, "start_monotonic_ns")) &&
	    (ret = get_u64(im, "start_monotonic_ns", v, &info->start_monotonic_ns)))
		return ret;
	v = json_object_get(o, "metadata");
	if (v && !json_is_object(v))
		return fail(im, "'metadata' must be an object");
	info->metadata_json = v ? json_dumps(v, JSON_COMPACT) : strdup("{}");
	if (!info->metadata_json)
		return -ENOMEM;
	return 0;
}

/* Into out_fd if it is >= 0 (the caller's), else into a file it creates at out_path. */
static int import_into(FILE *in, const char *in_name, int out_fd, const char *out_path,
		       size_t chunk_size, char **errmsg)
{
	struct importer im = { .in_name = in_name, .errmsg = errmsg };
	struct fstap_trace_info info = { 0 };
	struct fstap_writer *w = NULL;
	struct fstap_rec rec;
	bool have_footer = false;
	uint64_t end_ns = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (errmsg)
		*errmsg = NULL;
	while ((n = getline(&line, &cap, in)) >= 0) {
		json_error_t jerr;
		json_t *o;

		im.line++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (n == 0)
			continue;
		if (have_footer) {
			ret = fail(&im, "records after the footer");
			break;
		}
		o = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &jerr);
		if (!o || !json_is_object(o)) {
			ret = fail(&im, "not a JSON object%s%s", o ? "" : ": ", o ? "" : jerr.text);
			json_decref(o);
			break;
		}
		if (!w) {
			ret = parse_header(&im, o, &info);
			json_decref(o);
			if (ret)
				break;
			ret = out_fd >= 0
				? fstap_writer_open_fd(&w, out_fd, out_path, &info, chunk_size)
				: fstap_writer_open(&w, out_path, &info, chunk_size);
			if (ret) {
				fail(&im, "cannot create trace '%s': %s", out_path, strerror(-ret));
				break;
			}
			continue;
		}
		ret = parse_record(&im, o, &rec);
		if (!ret && rec.op == FSTAP_OP_FOOTER) {
			have_footer = true;
			end_ns = rec.time_ns;
			fstap_writer_count_lost(w, rec.lost);
		} else if (!ret) {
			ret = fstap_writer_add(w, &rec);
			if (ret)
				fail(&im, "%s", fstap_writer_errmsg(w)[0] ? fstap_writer_errmsg(w)
								      : strerror(-ret));
		}
		json_decref(o);
		arena_clear(&im.arena);
		if (ret)
			break;
	}
	free(line);
	free(im.arena.ptrs);
	if (!ret && ferror(in))
		ret = fail(&im, "read error");
	if (!ret && !w)
		ret = fail(&im, "no header line: not an fstap JSON Lines trace");
	if (w) {
		if (!ret) {
			ret = fstap_writer_close(w, end_ns, !have_footer);
			if (ret)
				fail(&im, "%s", fstap_writer_errmsg(w));
		}
		fstap_writer_free(w);
		if (ret && out_fd < 0 && strcmp(out_path, "-"))
			unlink(out_path);	/* never leave a half-imported trace */
	}
	free(info.metadata_json);
	return ret;
}

int fstap_jsonl_import(FILE *in, const char *in_name, const char *out_path,
		       size_t chunk_size, char **errmsg)
{
	return import_into(in, in_name, -1, out_path, chunk_size, errmsg);
}

int fstap_jsonl_import_fd(FILE *in, const char *in_name, int out_fd, const char *out_name,
			  size_t chunk_size, char **errmsg)
{
	return import_into(in, in_name, out_fd, out_name, chunk_size, errmsg);
}
