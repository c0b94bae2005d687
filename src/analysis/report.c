/*
 * report.c: `fstap report`: what a trace says about its workload, for a
 * person choosing a file system: the operation mix, per process, bytes and
 * request sizes, sequential versus random access, the busiest directories,
 * failed lookups, what the kernel asked on its own, and whether processes
 * open the files of a directory in readdir, name or inode order (the access
 * order analysis, the reason `fstap reorder` exists).
 *
 * One pass over the trace in time order fills one model (struct rep,
 * report_i.h), here; the JSON renderer (report_json.c, with the access
 * order's section in report_order.c) and the text renderer (report_text.c)
 * print the same numbers from it. Requests flagged FSTAP_RF_KERNEL are
 * counted apart from the application's: they are in the "kernel" section
 * and in the byte totals, nowhere else. Not a replay and not a latency
 * study: durations here are the recorder's, FUSE included.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/report_i.h"
#include "fstap/log.h"
#include "fstap/pathmap.h"
#include "fstap/sort.h"

const char *const rep_io_names[IO_NR] = { "read", "write" };
const char *const rep_ord_names[ORD_NR] = { "readdir", "name", "inode" };

/* ---- processes ---------------------------------------------------------- */

/* Remembers pid at index idx (+ 1) as the one found last. */
static struct proc *proc_found(struct rep *r, uint32_t pid, size_t idx)
{
	r->last_pid[1] = r->last_pid[0];
	r->last_proc[1] = r->last_proc[0];
	r->last_pid[0] = pid;
	r->last_proc[0] = idx;
	return &r->procs[idx - 1];
}

static struct proc *proc_get(struct rep *r, uint32_t pid)
{
	const uint64_t *idx;
	struct proc *p;

	/* two: an application's records alternate with its releases (pid 0) */
	if (r->last_proc[0] && r->last_pid[0] == pid)
		return &r->procs[r->last_proc[0] - 1];
	if (r->last_proc[1] && r->last_pid[1] == pid)
		return proc_found(r, pid, r->last_proc[1]);
	idx = fstap_map_get(&r->proc_index, (uint64_t)pid + 1);
	if (idx)
		return proc_found(r, pid, *idx);
	if (FSTAP_GROW(r->procs, r->nprocs + 1, r->capprocs) ||
	    fstap_map_put(&r->proc_index, (uint64_t)pid + 1, r->nprocs + 1))
		return NULL;
	p = &r->procs[r->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return proc_found(r, pid, r->nprocs);
}

const char *rep_proc_comm(const struct rep *r, uint32_t pid)
{
	const uint64_t *idx = fstap_map_get(&r->proc_index, (uint64_t)pid + 1);

	if (idx && r->procs[*idx - 1].comm)
		return r->procs[*idx - 1].comm;
	return pid ? "?" : "(none)";	/* release and releasedir come without a process */
}

/* ---- sizes -------------------------------------------------------------- */

static unsigned size_bucket(uint64_t size)
{
	if (size <= 1)
		return (unsigned)size;
	/* the least b with size <= 2^(b-1): 1 + the bits of size - 1 */
	return 1 + 64 - (unsigned)__builtin_clzll(size - 1);
}

/* ---- the access order analysis (order.c) -------------------------------- */

/* The rows of the order analysis, with their directories' paths. */
static int order_rows(struct rep *r)
{
	const struct an_access_row *rows;
	char path[PATH_CAP];
	size_t i, n;
	int ret;

	if ((ret = an_access_finish(r->order, &rows, &n)))
		return ret;
	r->rows = calloc(n + 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct order_row *w = &r->rows[i];

		const uint64_t *gone = fstap_map_get(&r->gone_paths, rows[i].dir);

		if (gone)
			snprintf(path, sizeof(path), "%s", r->gone_path[*gone - 1]);
		else
			rep_obj_path(r, rows[i].dir, path, sizeof(path));
		if (!(w->path = strdup(path)))
			return -ENOMEM;
		r->nrows++;
		w->lister = rows[i].lister;
		w->readers = rows[i].readers;
		w->nreaders = rows[i].nreaders;
		w->files = rows[i].files;
		w->listed = rows[i].listed;
		memcpy(w->rho, rows[i].rho, sizeof(w->rho));
	}
	return 0;
}

static int opened(struct rep *r, const struct fstap_rec *rec)
{
	uint64_t dir = fstap_pathmap_parent(r->pm, rec->obj);

	if (!dir)
		return 0;
	return an_access_open(r->order, rec->pid, dir, rec->obj);
}

/* ---- objects the pathmap forgets ---------------------------------------- */

int rep_cmp_dir_row(const void *a, const void *b)
{
	const struct dir_row *x = a, *y = b;

	if (x->ops != y->ops)
		return x->ops < y->ops ? 1 : -1;
	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

void rep_obj_path(const struct rep *r, uint64_t obj, char *buf, size_t cap)
{
	if (fstap_pathmap_path(r->pm, obj, buf, cap) < 0)
		snprintf(buf, cap, "<obj:%" PRIu64 ">", obj);
}

static char *path_of(const struct rep *r, uint64_t obj)
{
	char path[PATH_CAP];

	rep_obj_path(r, obj, path, sizeof(path));
	return strdup(path);
}

/* A forgotten directory's row; only the top ones can be printed, so only they stay. */
static int keep_gone_dir(struct rep *r, const struct an_obj *o)
{
	size_t i;

	if (r->ngone >= 2 * (size_t)r->top + 64) {
		qsort(r->gone, r->ngone, sizeof(*r->gone), rep_cmp_dir_row);
		for (i = r->top; i < r->ngone; i++)
			free(r->gone[i].path);
		r->ngone = r->top;
	}
	if (FSTAP_GROW(r->gone, r->ngone + 1, r->capgone))
		return -ENOMEM;
	r->gone[r->ngone] = (struct dir_row){ o->obj, o->report.ops, path_of(r, o->obj) };
	return r->gone[r->ngone++].path ? 0 : -ENOMEM;
}

/* The path of a forgotten directory that has rows in the access order analysis. */
static int keep_gone_path(struct rep *r, uint64_t dir)
{
	char *p;

	if (fstap_map_get(&r->gone_paths, dir))
		return 0;
	if (FSTAP_GROW(r->gone_path, r->ngone_path + 1, r->capgone_path) || !(p = path_of(r, dir)))
		return -ENOMEM;
	r->gone_path[r->ngone_path++] = p;
	return fstap_map_put(&r->gone_paths, dir, r->ngone_path);
}

/* The pathmap forgets o (dead, pathmap.h): what the report's end needs of it, kept now. */
static void forgot(struct an_obj *o, void *arg)
{
	struct rep *r = arg;
	int ret;

	if (o->report.touched) {
		if (fstap_pathmap_kind(r->pm, o->obj) == FSTAP_KIND_DIR)
			r->gone_dirs++;
		else
			r->gone_files++;
	}
	fstap_map_del(&r->handles, o->obj | (1ull << 63), NULL);
	ret = an_access_forget(r->order, o->obj);
	if (ret > 0)
		ret = keep_gone_path(r, o->obj);
	if (!ret && o->report.ops)
		ret = keep_gone_dir(r, o);
	if (ret)
		r->oom = 1;
}

/*
 * A dead object's entry that holds only that it was touched: the table
 * keeps its id alone until the pathmap forgets it (an_objtab_settle_dead).
 */
static const struct an_obj touched_only = { .report.touched = true };

static bool is_touched_only(const struct an_obj *o)
{
	return o->report.touched && !o->report.ops && !o->ino && !o->ino_from_state && !o->priv;
}

/* ---- the pass over the trace -------------------------------------------- */

/* Marks obj touched; its entry (NULL for none or on ENOMEM, r->oom then set). */
static struct an_obj *touch(struct rep *r, uint64_t obj)
{
	struct an_obj *o;

	if (!obj)
		return NULL;
	o = an_objtab_add(r->objs, obj);
	if (!o)
		r->oom = 1;
	else
		o->report.touched = true;
	return o;
}

/* The directory an application record is counted for ("busiest directories"). */
static uint64_t busy_dir(const struct rep *r, const struct fstap_rec *rec)
{
	const struct fstap_op_info *oi = fstap_op_info(rec->op);

	if (oi && (oi->props & FSTAP_OPP_DIRENT))
		return rec->obj;
	return fstap_pathmap_dir_of(r->pm, rec->obj);
}

static void io_account(struct rep *r, const struct fstap_rec *rec, int which)
{
	struct iostat *io = &r->io[which];
	uint64_t key = rec->fh ? rec->fh : (rec->obj | (1ull << 63));
	uint64_t *next, end;

	io->ops++;
	io->hist[size_bucket(rec->size)]++;
	if (rec->result < 0)
		return;
	io->bytes += (uint64_t)rec->result;
	next = fstap_map_get(&r->handles, key);
	/* sequential: at the end of the previous transfer on the handle (0 at first) */
	if (rec->offset == (next ? *next : 0))
		io->seq++;
	else
		io->rnd++;
	end = rec->offset + (uint64_t)rec->result;
	if (next)
		*next = end;
	else if (fstap_map_put(&r->handles, key, end))
		r->oom = 1;
}

/* An application's record (not the kernel's own), after its names are learned. */
static int account_app(struct rep *r, const struct fstap_rec *rec)
{
	uint64_t dir;
	struct proc *p;
	int ret;

	r->app_ops++;
	r->ops[rec->op].count++;
	r->ops[rec->op].dur_sum += rec->dur_ns;
	if (rec->result < 0)
		r->ops[rec->op].errors++;
	p = proc_get(r, rec->pid);
	if (!p)
		return -ENOMEM;
	p->ops++;
	if (rec->tid && !fstap_map_get(&r->threads, rec->tid)) {
		if (fstap_map_put(&r->threads, rec->tid, 1))
			return -ENOMEM;
		r->nthreads++;
	}
	touch(r, rec->obj);
	if (rec->result >= 0 && (rec->child || rec->newparent || rec->obj2)) {
		touch(r, rec->child);
		touch(r, rec->newparent);
		touch(r, rec->obj2);
	}
	dir = busy_dir(r, rec);
	if (dir) {
		struct an_obj *d = an_objtab_add(r->objs, dir);

		if (!d)
			return -ENOMEM;
		d->report.ops++;
	}
	switch (rec->op) {
	case FSTAP_OP_READ:
		io_account(r, rec, IO_READ);
		if (rec->result > 0)
			p->bytes_read += (uint64_t)rec->result;
		break;
	case FSTAP_OP_WRITE:
		io_account(r, rec, IO_WRITE);
		if (rec->result > 0)
			p->bytes_written += (uint64_t)rec->result;
		break;
	case FSTAP_OP_LOOKUP:
		r->lookups++;
		if (rec->result < 0)
			r->lookups_failed++;
		break;
	case FSTAP_OP_READDIR:
		if (rec->result >= 0 && (ret = an_access_listing(r->order, rec, r->objs)))
			return ret;
		break;
	case FSTAP_OP_OPEN:
		if (rec->result >= 0 && (ret = opened(r, rec)))
			return ret;
		break;
	default:
		break;
	}
	return r->oom ? -ENOMEM : 0;
}

static int account(struct rep *r, const struct fstap_rec *rec)
{
	struct proc *p;
	int ret;

	switch (rec->op) {
	case FSTAP_OP_PROCESS:
		p = proc_get(r, (uint32_t)rec->pid);
		if (!p)
			return -ENOMEM;
		free(p->comm);
		p->comm = strndup((const char *)rec->comm.ptr, rec->comm.len);
		if (!p->comm)
			return -ENOMEM;
		return 0;
	case FSTAP_OP_LOSS:
		r->lost += rec->lost;
		return 0;
	case FSTAP_OP_FOOTER:
		r->end_ns = rec->time_ns;
		return 0;
	default:
		break;
	}
	if (fstap_op_is_meta(rec->op))
		return an_objtab_apply(r->objs, r->pm, rec);
	if (!r->any || rec->start_ns < r->first_ns)
		r->first_ns = rec->start_ns;
	r->any = true;
	if (rec->start_ns + rec->dur_ns > r->last_end_ns)
		r->last_end_ns = rec->start_ns + rec->dur_ns;
	if (rec->op == FSTAP_OP_READ && rec->result > 0)
		r->bytes_read += (uint64_t)rec->result;
	if (rec->op == FSTAP_OP_WRITE && rec->result > 0)
		r->bytes_written += (uint64_t)rec->result;
	/* learn names first: a lookup's child belongs to its directory at once */
	if ((ret = an_objtab_apply(r->objs, r->pm, rec)))
		return ret;
	if ((rec->op == FSTAP_OP_RELEASE || rec->op == FSTAP_OP_RELEASEDIR) && rec->fh)
		fstap_map_del(&r->handles, rec->fh, NULL);	/* its offsets end with it */
	if (rec->flags & FSTAP_RF_KERNEL) {
		r->kernel_ops++;
		r->ops[rec->op].kernel++;
		if (rec->op == FSTAP_OP_READ && rec->result > 0)
			r->kernel_bytes_read += (uint64_t)rec->result;
		if (rec->op == FSTAP_OP_WRITE && rec->result > 0)
			r->kernel_bytes_written += (uint64_t)rec->result;
		return 0;
	}
	return account_app(r, rec);
}

/* ---- the pass and the entry point ---------------------------------------- */

/* The model's tables, empty. 0 or -ENOMEM. */
static int rep_init(struct rep *r, const char *trace, unsigned top)
{
	memset(r, 0, sizeof(*r));
	r->trace = trace;
	r->top = top;
	if (an_objtab_new(&r->objs) || fstap_pathmap_new(&r->pm) || an_access_new(&r->order))
		return -ENOMEM;
	an_objtab_forget_dead(r->objs, forgot, r);
	an_objtab_settle_dead(r->objs, &touched_only, is_touched_only);
	return 0;
}

static void rep_release(struct rep *r)
{
	size_t i;

	an_access_free(r->order);
	an_objtab_free(r->objs);
	fstap_map_release(&r->handles);
	fstap_map_release(&r->threads);
	fstap_pathmap_free(r->pm);
	for (i = 0; i < r->nprocs; i++)
		free(r->procs[i].comm);
	free(r->procs);
	fstap_map_release(&r->proc_index);
	for (i = 0; i < r->nrows; i++)
		free(r->rows[i].path);
	free(r->rows);
	for (i = 0; i < r->ngone; i++)
		free(r->gone[i].path);
	free(r->gone);
	for (i = 0; i < r->ngone_path; i++)
		free(r->gone_path[i]);
	free(r->gone_path);
	fstap_map_release(&r->gone_paths);
}

#define OUT_OF_ORDER 1

/*
 * One pass over the trace in time order: through the sorter s, or, without
 * it, in the file's order for as long as that is time order (a trace one
 * writer wrote in order: every trace fstap writes but the recorder's). The
 * sorter would then give the same records in the same order, so the model
 * is the same, without the window's copies. OUT_OF_ORDER: an operation
 * record started before one read before it; the pass must be done again,
 * through the sorter. 0 at the end, or -errno.
 */
static int pass(struct rep *r, struct fstap_reader *rd, struct fstap_sorter *s)
{
	struct fstap_rec rec;
	uint64_t latest = 0;
	int ret;

	for (;;) {
		ret = s ? fstap_sorter_next(s, &rec) : fstap_reader_next(rd, &rec);
		if (ret != 1)
			return ret;
		if (!s && !fstap_op_is_meta(rec.op)) {
			if (rec.start_ns < latest)
				return OUT_OF_ORDER;
			latest = rec.start_ns;
		}
		if ((ret = account(r, &rec)))
			return ret;
	}
}

/* The report of the model filled by the pass, to out. 0 or -errno (printed). */
static int print_report(struct rep *r, struct fstap_reader *rd, struct fstap_sorter *s,
			const struct an_report_opts *opts, FILE *out)
{
	json_t *root;
	char line[256];
	int ret;

	r->complete = fstap_reader_complete(rd);
	if (r->complete)
		r->lost = fstap_reader_footer(rd)->lost;
	else if (fstap_reader_notice(rd, "reported", line, sizeof(line)))
		fstap_warn("%s", line);
	if (fstap_sorter_late(s))
		fstap_warn("%llu records came later than the reorder window and are out of time order",
			   (unsigned long long)fstap_sorter_late(s));
	if ((ret = order_rows(r)))
		return fstap_error(ret, "out of memory");
	root = rep_json(r, opts->top);
	ret = r->oom ? -ENOMEM : 0;
	if (!ret && opts->json) {
		char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));

		if (text)
			fprintf(out, "%s\n", text);
		else
			ret = -ENOMEM;
		free(text);
	} else if (!ret) {
		rep_print_text(r, root, out);
	}
	json_decref(root);
	return ret ? fstap_error(ret, "out of memory") : 0;
}

int an_report(const char *trace, const struct an_report_opts *opts, FILE *out)
{
	struct fstap_reader *rd = NULL;
	struct fstap_sorter *s = NULL;
	struct rep r;
	struct stat st;
	bool sorted;
	int ret;

	/* only a regular file can be read again (not "-", nor a pipe by name) */
	sorted = !strcmp(trace, "-") || stat(trace, &st) || !S_ISREG(st.st_mode);

	for (;;) {
		if ((ret = an_open_sorted(trace, &rd, &s)))
			return ret;
		if (rep_init(&r, trace, opts->top)) {
			ret = fstap_error(-ENOMEM, "out of memory");
			goto done;
		}
		ret = pass(&r, rd, sorted ? s : NULL);
		if (ret != OUT_OF_ORDER)
			break;
		rep_release(&r);
		fstap_sorter_free(s);
		fstap_reader_close(rd);
		sorted = true;
	}
	if (ret == -ENOMEM)
		fstap_error(ret, "out of memory");
	else if (ret < 0)
		fstap_error(ret, "%s", fstap_reader_errmsg(rd));
	else
		ret = print_report(&r, rd, s, opts, out);
done:
	rep_release(&r);
	fstap_sorter_free(s);
	fstap_reader_close(rd);
	return ret;
}
