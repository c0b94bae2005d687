/*
 * anonymize.c: `fstap anonymize`: a copy of a trace whose strings no longer
 * say whose it was, with the workload kept.
 *
 * One pass, record by record, in file order (every record, watermarks
 * included, so a torn input's output is cut the same way when read); with
 * keep_order a first pass gathers every name, whose tokens then keep their
 * sort order (anon_sorted.c) instead of being keyed:
 *  - entry names (lookup, create, mkdir, mknod, symlink, unlink, rmdir,
 *    rename, link, state_dentry, readdir entries) become tokens of the same
 *    length (anon_token.c); leading dots stay, and with keep_extensions a
 *    last ".ext" of up to 8 letters or digits; ".", "..", "lost+found" and
 *    the user's keep_names stay as they are;
 *  - symlink targets (symlink, readlink, state_inode) are mapped component
 *    by component with the same tokens, so a target still names its file;
 *  - xattr names keep their namespace ("user.") and the known names
 *    (user.DOSATTRIB, system.posix_acl_*); the rest is a token;
 *  - xattr values become tokens of the same size (equal values stay
 *    equal), but for values the kernel checks (system.*, and
 *    security.capability), which stay as recorded; a left-out value stays
 *    left out;
 *  - process names become tokens (keep_comm keeps them), command lines are
 *    dropped;
 *  - with map_ids, every uid and gid but 0 (the requester's, owners, the
 *    ids in POSIX ACL values) is renumbered AN_ID_BASE, AN_ID_BASE + 1, ...
 *    in the order of first appearance, users and groups apart;
 *  - the metadata keeps only what describes the recording setup (tool,
 *    version, kernel release and machine, backing file system type and
 *    block size, the recorder's options) and gets a "transform" step with
 *    the options and the key's id (never the key).
 * Everything else (times, sizes, offsets, flags, modes, ids, results) is
 * copied. The footer is recomputed by the writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "analysis/anonymize.h"
#include "fstap/log.h"
#include "fstap/name.h"
#include "fstap/output.h"

#define EXT_MAX 8

/* Allocations for one record's strings, released after it is written. */
struct arena {
	void **p;
	size_t n, cap;
};

/* An id renumbering: from[i] became AN_ID_BASE + i. */
struct idmap {
	uint64_t *from;
	size_t n, cap;
};

struct anon {
	const struct an_anon_opts *o;
	struct idmap uids, gids;
	struct an_tokens *tok;
	struct an_sorted *order;		/* with keep_order */
	bool collecting;		/* the first pass of keep_order: names only */
	struct arena arena;
	const char *in;
};

static void *arena_alloc(struct arena *a, size_t size)
{
	void *p;

	if (FSTAP_GROW(a->p, a->n + 1, a->cap))
		return NULL;
	p = malloc(size ? size : 1);
	if (p)
		a->p[a->n++] = p;
	return p;
}

static void arena_clear(struct arena *a)
{
	while (a->n)
		free(a->p[--a->n]);
}

static bool bytes_is(struct fstap_bytes b, const char *s)
{
	return strlen(s) == b.len && !memcmp(b.ptr, s, b.len);
}

static bool kept_name(const struct anon *an, struct fstap_bytes name)
{
	size_t i;

	if (fstap_name_dots(name.ptr, name.len) || bytes_is(name, "lost+found"))
		return true;
	for (i = 0; i < an->o->nkeep_names; i++)
		if (bytes_is(name, an->o->keep_names[i]))
			return true;
	return false;
}

static bool alnum(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* The part of a name that is mapped: [*stem, *stem_end), leading dots and extension kept. */
static void name_parts(const struct anon *an, struct fstap_bytes name, size_t *stem,
		       size_t *stem_end)
{
	size_t s = 0, e = name.len, i;

	while (s < name.len && name.ptr[s] == '.')
		s++;
	if (an->o->keep_extensions) {
		for (i = name.len; i > s && name.ptr[i - 1] != '.'; i--)
			if (!alnum(name.ptr[i - 1]))
				break;
		if (i > s + 1 && name.ptr[i - 1] == '.' && name.len - i >= 1 &&
		    name.len - i <= EXT_MAX)
			e = i - 1;
	}
	*stem = s;
	*stem_end = e;
}

static int tokens_failed(struct anon *an, int ret, const char *what)
{
	if (ret == -ENOSPC)
		return fstap_error(ret, "cannot anonymize '%s': %s: %s", an->in, what,
				   an_tokens_errmsg(an->tok));
	return fstap_error(ret, "cannot anonymize '%s': %s", an->in, strerror(-ret));
}

/*
 * With keep_order: the first pass adds the name to the order's names (kept
 * parts [0, s) and [e, len)), the second takes its token.
 */
static int order_name(struct anon *an, struct fstap_bytes name, size_t s, size_t e,
		      struct fstap_bytes *out)
{
	const uint8_t *tok;
	int ret;

	if (an->collecting) {
		if ((ret = an_sorted_add(an->order, name.ptr, name.len, s, e)))
			return fstap_error(ret, "cannot anonymize '%s': %s", an->in, strerror(-ret));
		return 0;
	}
	if (s == e)
		return 0;
	if (an_sorted_lookup(an->order, name.ptr, name.len, &tok))
		return fstap_error(-EPROTO, "cannot anonymize '%s': a name the first reading did "
				   "not hold (did the trace change?)", an->in);
	out->ptr = tok;
	return 0;
}

/* A name component's token, into *out (the arena's, or the name itself). */
static int map_name(struct anon *an, struct fstap_bytes name, struct fstap_bytes *out)
{
	const uint8_t *tok;
	size_t s, e;
	uint8_t *p;
	int ret;

	*out = name;
	if (!name.len || fstap_name_dots(name.ptr, name.len))
		return 0;
	if (kept_name(an, name))
		s = e = name.len;
	else
		name_parts(an, name, &s, &e);
	if (an->order)
		return order_name(an, name, s, e, out);
	if (s == e)
		return 0;
	if ((ret = an_tokens_map(an->tok, AN_DOM_NAME, name.ptr + s, e - s, &tok)))
		return tokens_failed(an, ret, "file names");
	if (!(p = arena_alloc(&an->arena, name.len)))
		return fstap_error(-ENOMEM, "out of memory");
	memcpy(p, name.ptr, s);
	memcpy(p + s, tok, e - s);
	memcpy(p + e, name.ptr + e, name.len - e);
	out->ptr = p;
	return 0;
}

/* A symlink target, component by component; "/" and empty components stay. */
static int map_target(struct anon *an, struct fstap_bytes target, struct fstap_bytes *out)
{
	uint8_t *p;
	size_t i = 0;
	int ret;

	*out = target;
	if (!target.len)
		return 0;
	if (!(p = arena_alloc(&an->arena, target.len)))
		return fstap_error(-ENOMEM, "out of memory");
	while (i < target.len) {
		size_t j = i;
		struct fstap_bytes c, m;

		while (j < target.len && target.ptr[j] != '/')
			j++;
		c = (struct fstap_bytes){ target.ptr + i, (uint32_t)(j - i) };
		if ((ret = map_name(an, c, &m)))
			return ret;
		memcpy(p + i, m.ptr, m.len);
		if (j < target.len)
			p[j] = '/';
		i = j + 1;
	}
	out->ptr = p;
	return 0;
}

static const char *const xattr_namespaces[] = { "user.", "trusted.", "security.", "system.", NULL };
static const char *const xattr_known[] = {
	"user.DOSATTRIB", "user.SAMBA_PAI", "system.posix_acl_access", "system.posix_acl_default",
	"system.nfs4_acl", "security.capability", "security.selinux", "security.ima",
	"security.evm", "security.SMACK64", NULL
};

static bool xattr_structural(struct fstap_bytes name)
{
	return (name.len > 7 && !memcmp(name.ptr, "system.", 7)) ||
	       bytes_is(name, "security.capability");
}

static int map_xattr_name(struct anon *an, struct fstap_bytes name, struct fstap_bytes *out)
{
	const uint8_t *tok;
	size_t ns = 0, i;
	uint8_t *p;
	int ret;

	*out = name;
	for (i = 0; xattr_known[i]; i++)
		if (bytes_is(name, xattr_known[i]))
			return 0;
	for (i = 0; xattr_namespaces[i]; i++) {
		size_t l = strlen(xattr_namespaces[i]);

		if (name.len >= l && !memcmp(name.ptr, xattr_namespaces[i], l)) {
			ns = l;
			break;
		}
	}
	if (ns == name.len)
		return 0;
	if ((ret = an_tokens_map(an->tok, AN_DOM_XATTR, name.ptr + ns, name.len - ns, &tok)))
		return tokens_failed(an, ret, "xattr names");
	if (!(p = arena_alloc(&an->arena, name.len)))
		return fstap_error(-ENOMEM, "out of memory");
	memcpy(p, name.ptr, ns);
	memcpy(p + ns, tok, name.len - ns);
	out->ptr = p;
	return 0;
}

static int map_acl_ids(struct anon *an, struct fstap_bytes name, struct fstap_bytes *value);

/* An xattr value of attribute name (original): a token, or as it is. */
static int map_value(struct anon *an, struct fstap_bytes name, struct fstap_bytes value,
		     struct fstap_bytes *out)
{
	const uint8_t *tok;
	int ret;

	*out = value;
	if (!value.len)
		return 0;
	if (xattr_structural(name))
		return map_acl_ids(an, name, out);
	if ((ret = an_tokens_map(an->tok, AN_DOM_VALUE, value.ptr, value.len, &tok)))
		return tokens_failed(an, ret, "xattr values");
	out->ptr = tok;
	return 0;
}

static int map_entries(struct anon *an, struct fstap_rec *r)
{
	struct fstap_dirent *e;
	uint32_t i;
	int ret;

	if (!r->nentries)
		return 0;
	if (!(e = arena_alloc(&an->arena, r->nentries * sizeof(*e))))
		return fstap_error(-ENOMEM, "out of memory");
	for (i = 0; i < r->nentries; i++) {
		e[i] = r->entries[i];
		if ((ret = map_name(an, r->entries[i].name, &e[i].name)))
			return ret;
	}
	r->entries = e;
	return 0;
}

static int map_xattrs(struct anon *an, struct fstap_rec *r)
{
	struct fstap_xattr *x;
	uint32_t i;
	int ret;

	if (!r->nxattrs)
		return 0;
	if (!(x = arena_alloc(&an->arena, r->nxattrs * sizeof(*x))))
		return fstap_error(-ENOMEM, "out of memory");
	for (i = 0; i < r->nxattrs; i++) {
		const struct fstap_xattr *in = &r->xattrs[i];

		if ((ret = map_xattr_name(an, in->name, &x[i].name)) ||
		    (ret = map_value(an, in->name, in->value, &x[i].value)))
			return ret;
	}
	r->xattrs = x;
	return 0;
}

static bool is_xattr_op(uint16_t op)
{
	return op == FSTAP_OP_SETXATTR || op == FSTAP_OP_GETXATTR || op == FSTAP_OP_REMOVEXATTR;
}

/* The new number of id (0 and the "no id" value -1 stay). */
static int map_id(struct idmap *m, uint64_t *id)
{
	size_t i;

	if (!*id || *id == UINT32_MAX || *id == UINT64_MAX)
		return 0;
	for (i = 0; i < m->n && m->from[i] != *id; i++)
		;
	if (i == m->n) {
		if (FSTAP_GROW(m->from, m->n + 1, m->cap))
			return fstap_error(-ENOMEM, "out of memory");
		m->from[m->n++] = *id;
	}
	*id = AN_ID_BASE + i;
	return 0;
}

static int map_id32(struct idmap *m, uint32_t *id)
{
	uint64_t v = *id;
	int ret = map_id(m, &v);

	*id = (uint32_t)v;
	return ret;
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * A POSIX ACL xattr value with its user and group ids renumbered: version
 * 2, then entries of tag (u16), perm (u16), id (u32), little-endian; tag 2
 * is ACL_USER, 8 ACL_GROUP. Another layout is left as it is.
 */
static int map_acl_ids(struct anon *an, struct fstap_bytes name, struct fstap_bytes *value)
{
	uint8_t *p;
	size_t i;
	int ret;

	if (!an->o->map_ids || !(bytes_is(name, "system.posix_acl_access") ||
				 bytes_is(name, "system.posix_acl_default")) ||
	    value->len < 4 || (value->len - 4) % 8 || get_le32(value->ptr) != 2)
		return 0;
	if (!(p = arena_alloc(&an->arena, value->len)))
		return fstap_error(-ENOMEM, "out of memory");
	memcpy(p, value->ptr, value->len);
	for (i = 4; i < value->len; i += 8) {
		unsigned tag = p[i] | p[i + 1] << 8;
		uint32_t id = get_le32(p + i + 4);

		if (tag != 2 && tag != 8)
			continue;
		if ((ret = map_id32(tag == 2 ? &an->uids : &an->gids, &id)))
			return ret;
		p[i + 4] = (uint8_t)id;
		p[i + 5] = (uint8_t)(id >> 8);
		p[i + 6] = (uint8_t)(id >> 16);
		p[i + 7] = (uint8_t)(id >> 24);
	}
	value->ptr = p;
	return 0;
}

static int map_ids(struct anon *an, struct fstap_rec *r)
{
	int ret;

	if (!an->o->map_ids)
		return 0;
	if ((ret = map_id32(&an->uids, &r->uid)) || (ret = map_id32(&an->gids, &r->gid)) ||
	    (ret = map_id(&an->uids, &r->owner_uid)) || (ret = map_id(&an->gids, &r->owner_gid)))
		return ret;
	return 0;
}

/* Anonymizes *r in place (its strings then point into an's arena or tokens). */
static int map_record(struct anon *an, struct fstap_rec *r)
{
	const uint8_t *tok;
	struct fstap_bytes xname = r->name;
	int ret;

	if (is_xattr_op(r->op)) {
		if (!an->collecting && ((ret = map_xattr_name(an, xname, &r->name)) ||
		    (ret = map_value(an, xname, r->value, &r->value))))
			return ret;
	} else {
		if ((ret = map_name(an, r->name, &r->name)))
			return ret;
		if (r->value.len && !an->collecting)	/* a value of no xattr op */
			if ((ret = map_value(an, (struct fstap_bytes){ 0 }, r->value, &r->value)))
				return ret;
	}
	if ((ret = map_name(an, r->newname, &r->newname)) ||
	    (ret = map_target(an, r->target, &r->target)) || (ret = map_entries(an, r)))
		return ret;
	if (an->collecting)
		return 0;
	if ((ret = map_xattrs(an, r)) || (ret = map_ids(an, r)))
		return ret;
	r->cmdline = (struct fstap_bytes){ 0 };
	if (r->comm.len && !an->o->keep_comm) {
		if ((ret = an_tokens_map(an->tok, AN_DOM_COMM, r->comm.ptr, r->comm.len, &tok)))
			return tokens_failed(an, ret, "process names");
		r->comm.ptr = tok;
	}
	return 0;
}

/* The metadata keys that describe the setup, not the site. */
static const char *const safe_keys[] = {
	"tool", "fstap_version", "in_place", "backing_fs", "backing_fs_bsize", "recorder", NULL
};

static json_t *transform_step(struct anon *an)
{
	json_t *step = json_object();
	char id[17];

	an_tokens_key_id(an->tok, id);
	json_object_set_new(step, "tool", json_string("fstap anonymize"));
	json_object_set_new(step, "key_id", json_string(id));
	json_object_set_new(step, "keep_extensions", json_boolean(an->o->keep_extensions));
	json_object_set_new(step, "keep_comm", json_boolean(an->o->keep_comm));
	json_object_set_new(step, "map_ids", json_boolean(an->o->map_ids));
	json_object_set_new(step, "keep_order", json_boolean(an->o->keep_order));
	json_object_set_new(step, "keep_names", json_integer((json_int_t)an->o->nkeep_names));
	return step;
}

/* The anonymized metadata block: a JSON text the caller frees, NULL on ENOMEM. */
static char *anon_metadata(struct anon *an, const char *metadata_json)
{
	static const char *const kernel_keys[] = { "sysname", "release", "machine", NULL };
	json_t *md = json_loads(metadata_json ? metadata_json : "{}", JSON_ALLOW_NUL, NULL);
	json_t *out = json_object(), *kernel, *v;
	char *text = NULL;
	size_t i;

	if (!out)
		goto done;
	for (i = 0; json_is_object(md) && safe_keys[i]; i++)
		if ((v = json_object_get(md, safe_keys[i])))
			json_object_set(out, safe_keys[i], v);
	kernel = json_is_object(md) ? json_object_get(md, "kernel") : NULL;
	if (json_is_object(kernel)) {
		json_t *k = json_object();

		for (i = 0; kernel_keys[i]; i++)
			if (json_is_string(v = json_object_get(kernel, kernel_keys[i])))
				json_object_set(k, kernel_keys[i], v);
		json_object_set_new(out, "kernel", k);
	}
	v = json_array();
	json_array_append_new(v, transform_step(an));
	json_object_set_new(out, "transform", v);
	text = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
done:
	json_decref(out);
	json_decref(md);
	return text;
}

/* Makes the kept names their own tokens, so that no other name becomes one. */
static int reserve_kept(struct anon *an)
{
	size_t i, s, e;
	int ret;

	for (i = 0; i < an->o->nkeep_names; i++) {
		struct fstap_bytes n = { (const uint8_t *)an->o->keep_names[i],
					 (uint32_t)strlen(an->o->keep_names[i]) };

		name_parts(an, n, &s, &e);
		if (s < e && (ret = an_tokens_reserve(an->tok, AN_DOM_NAME, n.ptr + s, e - s)) &&
		    ret != -EEXIST)
			return fstap_error(ret, "out of memory");
	}
	return 0;
}

/* The first pass of keep_order: every name of the trace, then their tokens. */
static int collect_names(struct anon *an)
{
	struct fstap_reader *r = NULL;
	struct fstap_rec rec;
	char *msg = NULL;
	int ret;

	if (!strcmp(an->in, "-"))
		return fstap_error(-EINVAL, "--keep-order reads the trace twice: give a file, "
				   "not standard input");
	if ((ret = an_sorted_new(&an->order)))
		return fstap_error(ret, "out of memory");
	if ((ret = fstap_reader_open(&r, an->in, &msg))) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return ret;
	}
	fstap_reader_keep_torn(r);
	an->collecting = true;
	while ((ret = fstap_reader_next(r, &rec)) == 1) {
		int err = rec.op == FSTAP_OP_FOOTER ? 0 : map_record(an, &rec);

		arena_clear(&an->arena);
		if (err) {
			ret = err;	/* printed */
			goto out;
		}
	}
	if (ret < 0)
		fstap_error(ret, "%s", fstap_reader_errmsg(r));
out:
	an->collecting = false;
	fstap_reader_close(r);
	if (ret)
		return ret;
	ret = an_sorted_assign(an->order, an->o->alphabet);
	if (ret == -ENOSPC)
		return fstap_error(ret, "cannot anonymize '%s' with --keep-order: %s", an->in,
				   an_sorted_errmsg(an->order));
	return ret ? fstap_error(ret, "out of memory") : 0;
}

static int copy_records(struct anon *an, struct fstap_reader *r, struct fstap_writer *w,
			const char *out, struct an_anon_stats *st)
{
	struct fstap_rec rec;
	uint64_t end_ns = 0;
	bool has_footer = false;
	int ret;

	while ((ret = fstap_reader_next(r, &rec)) == 1) {
		if (rec.op == FSTAP_OP_FOOTER) {
			has_footer = true;
			end_ns = rec.time_ns;
			fstap_writer_count_lost(w, rec.lost);
			continue;
		}
		ret = map_record(an, &rec);
		if (!ret && (ret = fstap_writer_add(w, &rec)))
			fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(w));
		arena_clear(&an->arena);
		if (ret)
			return ret;
		st->records++;
	}
	if (ret < 0)
		return fstap_error(ret, "%s", fstap_reader_errmsg(r));
	ret = fstap_writer_close(w, end_ns, !has_footer);
	if (ret)
		fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(w));
	return ret;
}

int an_anonymize(const char *in, const char *out, const struct an_anon_opts *o,
		 struct an_anon_stats *stp)
{
	struct anon an = { .o = o, .in = in };
	const char *inputs[] = { in, o->key_file, NULL };
	struct an_anon_stats st = { 0 };
	struct fstap_reader *r = NULL;
	struct fstap_writer *w = NULL;
	struct fstap_output *dst = NULL;
	struct fstap_trace_info info = { 0 };
	char line[256], *msg = NULL;
	int ret;

	ret = an_tokens_new(&an.tok, o->key, o->keylen, o->alphabet ? o->alphabet : 62);
	if (ret)
		return fstap_error(ret, ret == -EINVAL ? "the key has fewer than %d bytes"
				   : "out of memory", AN_KEY_MIN);
	if ((ret = o->keep_order ? collect_names(&an) : reserve_kept(&an)))
		goto done;
	if ((ret = fstap_reader_open(&r, in, &msg))) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		goto done;
	}
	fstap_reader_keep_torn(r);
	info = *fstap_reader_info(r);
	info.metadata_json = anon_metadata(&an, fstap_reader_info(r)->metadata_json);
	if (!info.metadata_json) {
		ret = fstap_error(-ENOMEM, "out of memory");
		goto done;
	}
	if ((ret = an_open_trace_output(out, inputs, &info, &dst, &w)) ||
	    (ret = copy_records(&an, r, w, out, &st)))
		goto done;
	if (fstap_reader_notice(r, "anonymized", line, sizeof(line)))
		fstap_warn("%s; the output has no footer either", line);
	ret = fstap_output_commit(dst);
	dst = NULL;
	st.names = an.order ? an_sorted_count(an.order) : an_tokens_count(an.tok, AN_DOM_NAME);
	st.xattr_names = an_tokens_count(an.tok, AN_DOM_XATTR);
	st.values = an_tokens_count(an.tok, AN_DOM_VALUE);
	st.comms = an_tokens_count(an.tok, AN_DOM_COMM);
	if (stp)
		*stp = st;
done:
	fstap_writer_free(w);
	fstap_output_abort(dst);
	free(info.metadata_json);
	free(msg);
	fstap_reader_close(r);
	an_tokens_free(an.tok);
	an_sorted_free(an.order);
	arena_clear(&an.arena);
	free(an.arena.p);
	free(an.uids.from);
	free(an.gids.from);
	return ret;
}
