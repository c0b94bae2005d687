/*
 * divlog.c: the divergence log (fstap replay --divergences=FILE): for each
 * kind of divergence, keyed as the report's table is (op, kind, errno), the
 * first N in the order the workers met them, each as one JSON object with
 * where it happened in the trace and what differed. Written at the end as
 * JSON Lines in record order (docs/replay.md has the fields).
 *
 * Shared by the workers of a run, behind one mutex taken only on a
 * divergence: a replay without divergences never touches it. Bounded: at
 * most N entries per key, whatever the trace.
 *
 * Not here: deciding what diverges (stats.c, exec.c).
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay_i.h"

struct divlog_entry {
	uint64_t recno;
	char *line;		/* one JSON object, no newline */
};

struct rp_divlog {
	pthread_mutex_t mu;
	unsigned max;			/* entries per key */
	struct fstap_map counts;		/* key + 1 -> entries taken */
	struct divlog_entry *e;
	size_t n, cap;
};

int rp_divlog_new(unsigned max, struct rp_divlog **out)
{
	struct rp_divlog *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->mu, NULL);
	l->max = max;
	fstap_map_init(&l->counts);
	*out = l;
	return 0;
}

void rp_divlog_free(struct rp_divlog *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->e[i].line);
	free(l->e);
	fstap_map_release(&l->counts);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

static uint64_t div_key(unsigned op, enum rp_div_kind kind, unsigned err)
{
	return ((uint64_t)op << 40 | (uint64_t)kind << 32 | err) + 1;
}

bool rp_divlog_want(struct rp_divlog *l, unsigned op, enum rp_div_kind kind, unsigned err)
{
	uint64_t key = div_key(op, kind, err), *v;
	bool want = false;

	pthread_mutex_lock(&l->mu);
	v = fstap_map_get(&l->counts, key);
	if (!v)
		want = fstap_map_put(&l->counts, key, 1) == 0;
	else if (*v < l->max)
		want = ++*v > 0;
	pthread_mutex_unlock(&l->mu);
	return want;
}

static const char *errno_str(int64_t res, char *buf, size_t cap)
{
	const char *n = strerrorname_np((int)-res);

	if (n)
		return n;
	snprintf(buf, cap, "%lld", (long long)-res);
	return buf;
}

/* "dir/name" (the root: "/name"); NULL if the directory is not known. */
static json_t *entry_path(const char *dir, struct fstap_bytes name)
{
	size_t len = dir ? strlen(dir) : 0;
	char *p;
	json_t *j;

	if (!dir)
		return json_null();
	p = malloc(len + name.len + 2);
	if (!p)
		return json_null();
	memcpy(p, dir, len);
	if (len == 1)
		len = 0;
	p[len] = '/';
	memcpy(p + len + 1, name.ptr, name.len);
	p[len + 1 + name.len] = '\0';
	j = json_stringn_nocheck(p, len + 1 + name.len);
	free(p);
	return j;
}

static json_t *bytes_json(struct fstap_bytes b)
{
	return b.ptr ? json_stringn_nocheck((const char *)b.ptr, b.len) : json_null();
}

/* A result as the trace has it: bytes or 0, or -errno (its name besides). */
static void result_json(json_t *o, const char *key, int64_t res)
{
	char k[32], eb[24];

	if (res <= RP_E_UNKNOWN && res >= RP_E_DEVICE_IO) {
		json_object_set_new(o, key, json_null());	/* nothing the kernel said */
		return;
	}
	json_object_set_new(o, key, json_integer((json_int_t)res));
	if (res < 0) {
		snprintf(k, sizeof(k), "%s_errno", key);
		json_object_set_new(o, k, json_string(errno_str(res, eb, sizeof(eb))));
	}
}

static json_t *entry_json(const struct rp_task *t, enum rp_div_kind kind, unsigned err,
			  int64_t replayed, json_t *missing, json_t *extra)
{
	const struct fstap_rec *r = &t->rec;
	const struct fstap_op_info *oi = fstap_op_info(r->op);
	json_t *o = json_object();
	char eb[24];

	json_object_set_new(o, "record", json_integer((json_int_t)t->recno));
	json_object_set_new(o, "t", json_integer((json_int_t)r->start_ns));
	json_object_set_new(o, "tid", json_integer(r->tid));
	json_object_set_new(o, "pid", json_integer(r->pid));
	json_object_set_new(o, "comm", t->comm ? json_string_nocheck(t->comm) : json_null());
	json_object_set_new(o, "op", json_string(oi ? oi->name : "?"));
	if (oi && (oi->props & FSTAP_OPP_DIRENT))
		json_object_set_new(o, "path", entry_path(t->path, r->name));
	else
		json_object_set_new(o, "path", t->path ? json_string_nocheck(t->path) : json_null());
	if (r->op == FSTAP_OP_RENAME || r->op == FSTAP_OP_LINK)
		json_object_set_new(o, "path2", entry_path(t->path2, r->newname));
	if (!(oi && (oi->props & FSTAP_OPP_DIRENT)) && r->name.len)
		json_object_set_new(o, "name", bytes_json(r->name));	/* an xattr's */
	json_object_set_new(o, "kind", json_string(rp_div_kind_name(kind)));
	if (kind == RP_DIV_ERRNO || kind == RP_DIV_SUCCEEDED)
		json_object_set_new(o, "errno", json_string(errno_str(-(int64_t)err, eb, sizeof(eb))));
	result_json(o, "recorded", r->result);
	result_json(o, "replayed", replayed);
	if (missing)
		json_object_set_new(o, "missing", missing);
	if (extra)
		json_object_set_new(o, "extra", extra);
	return o;
}

int rp_divlog_add(struct rp_divlog *l, const struct rp_task *t, enum rp_div_kind kind,
		  unsigned err, int64_t replayed, json_t *missing, json_t *extra)
{
	json_t *o = entry_json(t, kind, err, replayed, missing, extra);
	char *line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	int ret = 0;

	json_decref(o);
	if (!line)
		return -ENOMEM;
	pthread_mutex_lock(&l->mu);
	if (!FSTAP_GROW(l->e, l->n + 1, l->cap))
		l->e[l->n++] = (struct divlog_entry){ t->recno, line };
	else
		ret = -ENOMEM;
	pthread_mutex_unlock(&l->mu);
	if (ret)
		free(line);
	return ret;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct divlog_entry *x = a, *y = b;

	return x->recno < y->recno ? -1 : x->recno > y->recno;
}

int rp_divlog_write(struct rp_divlog *l, FILE *f, unsigned run, const char *part_kind,
		    unsigned part)
{
	size_t i;

	if (!l)
		return 0;
	if (l->n)
		qsort(l->e, l->n, sizeof(*l->e), cmp_entry);
	for (i = 0; i < l->n; i++) {
		if (part_kind)
			fprintf(f, "{\"run\":%u,\"%s\":%u,%s\n", run, part_kind, part,
				l->e[i].line + 1);
		else
			fprintf(f, "{\"run\":%u,%s\n", run, l->e[i].line + 1);
	}
	return ferror(f) ? -EIO : 0;
}

/* A received log (mpi.c): lines of entries without their opening brace. */
static int write_lines(FILE *f, const char *lines, unsigned run, const char *kind,
		       unsigned part)
{
	const char *nl;

	for (; lines && *lines; lines = nl + 1) {
		if (!(nl = strchr(lines, '\n')))
			break;
		fprintf(f, "{\"run\":%u,\"%s\":%u,%.*s\n", run, kind, part,
			(int)(nl - lines), lines);
	}
	return ferror(f) ? -EIO : 0;
}

int rp_report_divergences(FILE *f, struct rp_result *const *runs, unsigned n)
{
	unsigned i, k;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const struct rp_result *r = runs[i];

		ret = rp_divlog_write(r->divlog, f, i + 1, NULL, 0);
		for (k = 0; k < r->nparts && !ret; k++) {
			ret = rp_divlog_write(r->parts[k]->divlog, f, i + 1, r->part_kind, k);
			if (!ret)
				ret = write_lines(f, r->parts[k]->divlog_lines, i + 1,
						  r->part_kind, k);
		}
	}
	return ret;
}
