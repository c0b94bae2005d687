/*
 * model.c: the pure parts of `fstap compare`: candidate specifications,
 * image sizing, parsing one replay run from replay's JSON, and the
 * statistics of the table (median, min, max, ratio to the best, the
 * operations that dominate the time) and the shuffled order of the runs.
 * No system state is touched here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "fstap/log.h"
#include "fstap/util.h"

#define MiB (1024ULL * 1024)

bool cmp_divlog_path(char *buf, size_t len, const char *logdir, const struct cmp_row *row,
		     unsigned run)
{
	int n = snprintf(buf, len, "%s/%s-%s-run%u.divergences.jsonl", logdir, row->cand->name,
			 row->variant, run);

	return n >= 0 && (size_t)n < len;
}

bool cmp_name_valid(const char *name)
{
	const char *p;

	if (!name || !*name || strlen(name) > 40 || name[0] == '.' || name[0] == '-')
		return false;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '+' ||
		      *p == '-'))
			return false;
	return true;
}

static bool fstype_valid(const char *t)
{
	const char *p;

	if (!*t || strlen(t) > 16)
		return false;
	for (p = t; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

void cmp_candidate_free(struct cmp_candidate *c)
{
	free(c->name);
	free(c->fstype);
	free(c->mkfs_opts);
	free(c->mount_opts);
	free(c->dir);
	memset(c, 0, sizeof(*c));
}

static int fill(struct cmp_candidate *c, enum cmp_kind kind, const char *name, const char *fstype,
		const char *mkfs, const char *mnt, const char *dir)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->name = strdup(name);
	c->fstype = fstype ? strdup(fstype) : NULL;
	c->mkfs_opts = strdup(mkfs ? mkfs : "");
	c->mount_opts = strdup(mnt ? mnt : "");
	c->dir = dir ? strdup(dir) : NULL;
	if (!c->name || (fstype && !c->fstype) || !c->mkfs_opts || !c->mount_opts ||
	    (dir && !c->dir)) {
		cmp_candidate_free(c);
		return -ENOMEM;
	}
	return 0;
}

int cmp_candidate_fs(const char *fstype, struct cmp_candidate *c, char *err, size_t errlen)
{
	if (!fstype_valid(fstype) || !cmp_name_valid(fstype)) {
		snprintf(err, errlen, "'%s' is not a file system type", fstype);
		return -EINVAL;
	}
	return fill(c, CMP_IMAGE, fstype, fstype, "", "", NULL);
}

int cmp_candidate_parse(const char *spec, struct cmp_candidate *c, char *err, size_t errlen)
{
	char *copy = strdup(spec), *f[4] = { NULL, NULL, NULL, NULL }, *p;
	unsigned n = 0;
	int ret = -EINVAL;

	if (!copy)
		return -ENOMEM;
	p = copy;
	f[n++] = p;
	while (n < 4 && (p = strchr(p, ':'))) {
		*p++ = '\0';
		f[n++] = p;
	}
	if (n < 2)
		snprintf(err, errlen, "candidate '%s' is not NAME:FSTYPE[:MKFS_OPTS[:MOUNT_OPTS]]",
			 spec);
	else if (!cmp_name_valid(f[0]))
		snprintf(err, errlen, "candidate name '%s' must be 1 to 40 of A-Z a-z 0-9 . _ + - "
			 "(not starting with . or -)", f[0]);
	else if (!fstype_valid(f[1]))
		snprintf(err, errlen, "candidate '%s': '%s' is not a file system type", f[0], f[1]);
	else if (f[3] && strpbrk(f[3], " \t\n"))
		snprintf(err, errlen, "candidate '%s': mount options '%s' contain blanks", f[0],
			 f[3]);
	else
		ret = fill(c, CMP_IMAGE, f[0], f[1], f[2], f[3], NULL);
	free(copy);
	return ret;
}

int cmp_target_parse(const char *spec, struct cmp_candidate *c, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	char name[64];

	if (!eq || eq == spec || !eq[1] || (size_t)(eq - spec) >= sizeof(name)) {
		snprintf(err, errlen, "target '%s' is not NAME=DIR", spec);
		return -EINVAL;
	}
	memcpy(name, spec, (size_t)(eq - spec));
	name[eq - spec] = '\0';
	if (!cmp_name_valid(name)) {
		snprintf(err, errlen, "target name '%s' must be 1 to 40 of A-Z a-z 0-9 . _ + - "
			 "(not starting with . or -)", name);
		return -EINVAL;
	}
	return fill(c, CMP_TARGET, name, NULL, "", "", eq + 1);
}

const char *cmp_mkfs_force_flags(const char *fstype)
{
	if (!strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") || !strcmp(fstype, "ext4"))
		return "-F -q";
	if (!strcmp(fstype, "xfs") || !strcmp(fstype, "btrfs"))
		return "-f -q";
	if (!strcmp(fstype, "f2fs"))
		return "-f -q";
	return "";
}

const char *cmp_mkfs_package(const char *fstype)
{
	if (!strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") || !strcmp(fstype, "ext4"))
		return "e2fsprogs";
	if (!strcmp(fstype, "xfs"))
		return "xfsprogs";
	if (!strcmp(fstype, "btrfs"))
		return "btrfs-progs";
	if (!strcmp(fstype, "f2fs"))
		return "f2fs-tools";
	if (!strcmp(fstype, "vfat") || !strcmp(fstype, "fat"))
		return "dosfstools";
	return NULL;
}

/* ---- image sizing ------------------------------------------------------- */

uint64_t cmp_fs_min_size(const char *fstype)
{
	if (!strcmp(fstype, "xfs"))
		return 300 * MiB;	/* mkfs.xfs refuses smaller since xfsprogs 5.19 */
	if (!strcmp(fstype, "btrfs"))
		return 128 * MiB;	/* mkfs.btrfs: at least 114 MiB with its defaults */
	return 64 * MiB;
}

uint64_t cmp_image_size(const struct cmp_trace_size *s, const char *fstype)
{
	uint64_t need, size, min = cmp_fs_min_size(fstype), copies = s->copies ? s->copies : 1;
	const uint64_t cap = 1ULL << 50;

	if (s->initial_bytes > cap || s->written_bytes > cap || s->inodes > cap / 8192)
		return cap;
	need = s->initial_bytes + s->written_bytes;
	need += s->inodes * 8192;
	if (need > cap / copies)
		return cap;
	size = 2 * need * copies + 64 * MiB;
	size = (size + 64 * MiB - 1) / (64 * MiB) * (64 * MiB);
	return size < min ? min : size;
}

const char *cmp_fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	unsigned u = 0;

	while (d >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
	else if (d == (double)(uint64_t)d)
		snprintf(buf, len, "%.0f %s", d, units[u]);
	else
		snprintf(buf, len, "%.1f %s", d, units[u]);
	return buf;
}

/* ---- runs and rows ------------------------------------------------------ */

static int get_u64(json_t *o, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v) && json_integer_value(v) >= 0)
		*out = (uint64_t)json_integer_value(v);
	else if (json_is_real(v) && json_real_value(v) >= 0)
		*out = (uint64_t)json_real_value(v);
	else
		return -EINVAL;
	return 0;
}

int cmp_run_from_json(json_t *run, struct cmp_run *out)
{
	json_t *by_op, *e;
	const char *key;
	uint64_t ns, sync_ns;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(run) || get_u64(run, "elapsed_ns", &ns) ||
	    get_u64(run, "ops", &out->ops))
		return -EINVAL;
	out->elapsed_s = out->last_call_s = (double)ns / 1e9;
	/* replay --sync-at-end: the measured time is until the writes were durable */
	if (!get_u64(run, "durable_ns", &ns) && !get_u64(run, "sync_ns", &sync_ns)) {
		out->elapsed_s = (double)ns / 1e9;
		out->sync_s = (double)sync_ns / 1e9;
		out->synced = true;
	}
	out->ops_per_s = out->elapsed_s > 0 ? (double)out->ops / out->elapsed_s : 0;
	get_u64(run, "bytes_read", &out->bytes_read);
	get_u64(run, "bytes_written", &out->bytes_written);
	get_u64(run, "divergences", &out->divergences);
	by_op = json_object_get(run, "by_op");
	n = json_is_object(by_op) ? json_object_size(by_op) : 0;
	if (n) {
		out->op = calloc(n, sizeof(*out->op));
		if (!out->op)
			return -ENOMEM;
		json_object_foreach(by_op, key, e) {
			struct cmp_opstat *s = &out->op[out->nop];
			json_t *lat = json_object_get(e, "lat_ns");
			uint64_t p99 = 0;

			snprintf(s->name, sizeof(s->name), "%s", key);
			get_u64(e, "count", &s->count);
			if (json_is_number(json_object_get(lat, "mean")))
				s->mean_ns = json_number_value(json_object_get(lat, "mean"));
			get_u64(lat, "p99", &p99);
			s->p99_ns = (double)p99;
			out->nop++;
		}
	}
	out->raw = json_incref(run);
	return 0;
}

void cmp_run_free(struct cmp_run *r)
{
	free(r->op);
	json_decref(r->raw);
	memset(r, 0, sizeof(*r));
}

int cmp_row_add_run(struct cmp_row *row, const struct cmp_run *run)
{
	struct cmp_run *n = realloc(row->runs, (row->nruns + 1) * sizeof(*n));
	struct cmp_run *d;

	if (!n)
		return -ENOMEM;
	row->runs = n;
	d = &n[row->nruns];
	*d = *run;
	d->op = NULL;
	if (run->nop) {
		d->op = malloc(run->nop * sizeof(*d->op));
		if (!d->op)
			return -ENOMEM;
		memcpy(d->op, run->op, run->nop * sizeof(*d->op));
	}
	d->raw = run->raw ? json_incref(run->raw) : NULL;
	row->nruns++;
	return 0;
}

void cmp_row_fail(struct cmp_row *row, const char *fmt, ...)
{
	va_list ap;
	char *p;

	row->failed = true;
	va_start(ap, fmt);
	vsnprintf(row->reason, sizeof(row->reason), fmt, ap);
	va_end(ap);
	for (p = row->reason; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

/* The median, min and max of one time of the runs (at offset off in cmp_run). */
static void time_summary(const struct cmp_row *row, size_t off, double *el, double *med,
			 double *min, double *max)
{
	unsigned i;

	for (i = 0; i < row->nruns; i++)
		el[i] = *(const double *)((const char *)&row->runs[i] + off);
	*med = cmp_median(el, row->nruns);
	*min = *max = el[0];
	for (i = 1; i < row->nruns; i++) {
		if (el[i] < *min)
			*min = el[i];
		if (el[i] > *max)
			*max = el[i];
	}
}

static void summarize_row(struct cmp_row *row)
{
	double *el, *ops, lo, hi;
	unsigned i, below;

	row->med_s = row->min_s = row->max_s = row->ops_per_s = row->ratio = 0;
	row->median_run = 0;
	if (row->failed || !row->nruns)
		return;
	el = malloc(row->nruns * sizeof(*el));
	ops = malloc(row->nruns * sizeof(*ops));
	if (!el || !ops) {
		free(el);
		free(ops);
		return;
	}
	for (i = 0; i < row->nruns; i++)
		ops[i] = row->runs[i].ops_per_s;
	row->ops_per_s = cmp_median(ops, row->nruns);
	time_summary(row, offsetof(struct cmp_run, last_call_s), el, &row->last_med_s,
		     &row->last_min_s, &row->last_max_s);
	time_summary(row, offsetof(struct cmp_run, sync_s), el, &row->sync_med_s, &lo, &hi);
	/* last: el holds the elapsed times for the median run below */
	time_summary(row, offsetof(struct cmp_run, elapsed_s), el, &row->med_s, &row->min_s,
		     &row->max_s);
	/* The median run: the lower middle one, as the (n-1)/2-th smallest. */
	for (i = 0; i < row->nruns; i++) {
		unsigned j;

		below = 0;
		for (j = 0; j < row->nruns; j++)
			if (el[j] < el[i] || (el[j] == el[i] && j < i))
				below++;
		if (below == (row->nruns - 1) / 2)
			row->median_run = i;
	}
	free(el);
	free(ops);
}

bool cmp_results_synced(const struct cmp_results *res)
{
	unsigned i, k;

	for (i = 0; i < res->nrows; i++)
		for (k = 0; k < res->rows[i].nruns; k++)
			if (res->rows[i].runs[k].synced)
				return true;
	return false;
}

int cmp_results_summarize(struct cmp_results *res)
{
	double best = 0;
	bool ranked = false;
	unsigned i;
	int ret;

	for (i = 0; i < res->nrows; i++)
		summarize_row(&res->rows[i]);
	ret = cmp_results_decide(res);
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];

		if (r->verdict == CMP_V_BEST) {
			best = r->med_s;
			ranked = true;
		}
	}
	for (i = 0; i < res->nrows && !ranked; i++) {	/* every row diverged */
		const struct cmp_row *r = &res->rows[i];

		if (!r->failed && r->nruns && (best == 0 || r->med_s < best))
			best = r->med_s;
	}
	for (i = 0; i < res->nrows; i++) {
		struct cmp_row *r = &res->rows[i];

		if (!r->failed && r->nruns)
			r->ratio = best > 0 ? r->med_s / best : 1;
	}
	return ret;
}

unsigned cmp_top_ops(const struct cmp_results *res, const char **names, unsigned max)
{
	struct tot { const char *name; double ns; } *t = NULL;
	unsigned nt = 0, i, j, k, out = 0;
	double all = 0;

	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];
		const struct cmp_run *run;

		if (r->failed || !r->nruns)
			continue;
		run = &r->runs[r->median_run];
		for (j = 0; j < run->nop; j++) {
			double ns = run->op[j].mean_ns * (double)run->op[j].count;

			for (k = 0; k < nt && strcmp(t[k].name, run->op[j].name); k++)
				;
			if (k == nt) {
				struct tot *n = realloc(t, (nt + 1) * sizeof(*t));

				if (!n)
					goto out;
				t = n;
				t[nt].name = run->op[j].name;
				t[nt++].ns = 0;
			}
			t[k].ns += ns;
			all += ns;
		}
	}
	while (out < max) {
		int bi = -1;

		for (k = 0; k < nt; k++)
			if (t[k].name && (bi < 0 || t[k].ns > t[bi].ns))
				bi = (int)k;
		if (bi < 0 || t[bi].ns <= 0 || t[bi].ns < 0.05 * all)
			break;
		names[out++] = t[bi].name;
		t[bi].name = NULL;
	}
out:
	free(t);
	return out;
}

int cmp_schedule(unsigned nrows, unsigned runs, unsigned long seed, unsigned **out)
{
	size_t n = (size_t)nrows * runs, i;
	uint64_t state = seed;
	unsigned *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s[i] = (unsigned)(i % (nrows ? nrows : 1));
	for (i = n; i > 1; i--) {
		size_t j = (size_t)(fstap_splitmix64(&state) % i);
		unsigned t = s[i - 1];

		s[i - 1] = s[j];
		s[j] = t;
	}
	*out = s;
	return 0;
}

bool cmp_budget_allows(double spent_s, unsigned runs, double budget_s)
{
	if (budget_s <= 0 || !runs)
		return true;
	return spent_s + spent_s / runs <= budget_s;
}

char *cmp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fstap_die("out of memory");
	va_end(ap);
	return s;
}
