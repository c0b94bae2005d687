/*
 * filter.c: `fstap filter`: a trace with only the operation records the user
 * selects (by process id, process name, path prefix, operation type and time
 * window), plus what a replay needs to resolve the paths of the records
 * kept. The initial state, process and loss records are always kept; the
 * footer is recomputed; the metadata gets a "transform" step.
 *
 * Path resolution. Records name objects by id; a replay learns their names
 * from the initial state (state_dentry) and from the records that name
 * objects (lookup, create, mkdir, mknod, symlink, rename, readdir entries).
 * When a kept record refers to an object whose name, or an ancestor's name,
 * came from a record the selection dropped, that naming record is kept too
 * (and, recursively, what it needs). Nothing else is added: a selection that
 * keeps the reads of a file but not its open leaves reads that a replay
 * counts as divergences; select by process or path to keep whole sequences.
 *
 * Two passes over the input, both through the sorter (a deterministic
 * order): the first decides which records to keep (one bit per record, so a
 * naming record long before the record that needs it costs no memory), the
 * second writes them in time order. So the input must be a file, not a pipe.
 * The bits of the latest 2 M records are in memory, older ones in an
 * unlinked temporary file in $TMPDIR (else /tmp; 1/8 byte a record): memory
 * does not grow with the trace. Without a temporary file they stay in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "fstap/log.h"
#include "fstap/name.h"
#include "fstap/output.h"
#include "fstap/pathmap.h"
#include "fstap/sort.h"
#include "fstap/util.h"

#define PATH_CAP 4096
#define MAX_DEPTH 4096		/* ancestors followed; deeper means a loop */

/* A record that named an object, not kept (yet), and the directories it needs. */
struct need {
	uint64_t idx;
	uint64_t dir[2];
};

struct needs {
	size_t n, cap;
	struct need v[];
};

/*
 * The bitmap over the sorted record index: words [lo, lo + nmem) in mem,
 * those below lo in the temporary file fd (at their index times 8), read
 * back a block at a time through cache.
 */
#define KB_BLOCK 4096		/* words: 32 KiB, the bits of 262 144 records */
#define KB_MEM (8 * KB_BLOCK)	/* words kept in memory while there is a file */
#define KB_TEST_ENV "FSTAP_TEST_FILTER_MEM_WORDS"	/* the tests' KB_MEM (and block) */

struct keepbits {
	uint64_t *mem;
	size_t nmem;
	uint64_t lo;
	int fd;			/* -1: none yet */
	bool no_file;		/* none could be made: mem holds every word */
	int err;		/* the file's errno, once it failed */
	uint64_t *cache;	/* block cache_blk of the file, or NULL */
	uint64_t cache_blk;
	size_t block, mem_words;	/* KB_BLOCK, KB_MEM */
};

struct flt {
	const struct an_filter_opts *o;
	struct an_objtab *objs;		/* priv: struct needs * */
	struct fstap_pathmap *pm;
	struct keepbits keep;
	uint32_t *comm_pids;		/* pids whose process name is selected */
	size_t ncomm_pids, capcomm;
	uint64_t *stack;
	size_t nstack, capstack;
	struct an_filter_stats st;
	struct fstap_cut cut;		/* how pass 1 found the input cut */
};

/* A temporary file, unlinked: fd, or -errno. */
static int temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_CAP];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(path, sizeof(path), "%s/fstap-filter.XXXXXX", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

/* Fails k with the errno of a short or failed read or write. */
static int kb_fail(struct keepbits *k, ssize_t n)
{
	k->err = n < 0 ? errno : EIO;
	return -k->err;
}

/* Block blk of the file into k->cache (past its end: zeros). 0 or -errno. */
static int kb_load(struct keepbits *k, uint64_t blk)
{
	ssize_t n;

	if (k->cache && k->cache_blk == blk)
		return 0;
	if (!k->cache && !(k->cache = malloc(k->block * sizeof(uint64_t))))
		return -ENOMEM;
	n = pread(k->fd, k->cache, k->block * sizeof(uint64_t),
		  (off_t)(blk * k->block * sizeof(uint64_t)));
	if (n < 0)
		return kb_fail(k, n);
	memset((char *)k->cache + n, 0, k->block * sizeof(uint64_t) - (size_t)n);
	k->cache_blk = blk;
	return 0;
}

/* Word w of the bitmap into *v. 0 or -errno. */
static int kb_word(struct keepbits *k, uint64_t w, uint64_t *v)
{
	int ret;

	if (w >= k->lo) {
		*v = w - k->lo < k->nmem ? k->mem[w - k->lo] : 0;
		return 0;
	}
	if ((ret = kb_load(k, w / k->block)))
		return ret;
	*v = k->cache[w % k->block];
	return 0;
}

/* Room in mem for word w (>= lo): the oldest blocks go to the file first. 0 or -errno. */
static int kb_room(struct keepbits *k, uint64_t w)
{
	uint64_t *p;
	size_t n;
	ssize_t wr;

	if (k->fd < 0 && !k->no_file && w - k->lo >= k->mem_words) {
		k->fd = temp_file();
		k->no_file = k->fd < 0;
	}
	while (k->fd >= 0 && w - k->lo >= k->mem_words) {
		/* block lo goes to the file (what mem does not hold is zeros: a hole) */
		size_t m = k->nmem < k->block ? k->nmem : k->block;

		wr = m ? pwrite(k->fd, k->mem, m * sizeof(uint64_t),
				(off_t)(k->lo * sizeof(uint64_t))) : 0;
		if (wr != (ssize_t)(m * sizeof(uint64_t)))
			return kb_fail(k, wr);
		if (k->nmem) {	/* mem is NULL until the first word is held */
			memmove(k->mem, k->mem + m, (k->nmem - m) * sizeof(uint64_t));
			memset(k->mem + k->nmem - m, 0, m * sizeof(uint64_t));
		}
		k->lo += k->block;
	}
	if (w - k->lo < k->nmem)
		return 0;
	n = fstap_grow_size(k->nmem, w - k->lo + 1, 1024);
	if (!n)
		return -ENOMEM;
	if (k->fd >= 0 && n > k->mem_words)
		n = k->mem_words;
	p = realloc(k->mem, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + k->nmem, 0, (n - k->nmem) * sizeof(*p));
	k->mem = p;
	k->nmem = n;
	return 0;
}

/* Whether record idx is kept: 1, 0, or -errno (the file). */
static int kept(struct flt *f, uint64_t idx)
{
	uint64_t v;
	int ret = kb_word(&f->keep, idx / 64, &v);

	return ret ? ret : (int)((v >> (idx % 64)) & 1);
}

static int mark(struct flt *f, uint64_t idx)
{
	struct keepbits *k = &f->keep;
	uint64_t w = idx / 64, bit = 1ull << (idx % 64);
	ssize_t n;
	int ret;

	if (w >= k->lo) {
		if ((ret = kb_room(k, w)))
			return ret;
		k->mem[w - k->lo] |= bit;
		return 0;
	}
	/* a naming record long before the record that needs it */
	if ((ret = kb_load(k, w / k->block)))
		return ret;
	k->cache[w % k->block] |= bit;
	n = pwrite(k->fd, &k->cache[w % k->block], sizeof(uint64_t), (off_t)(w * sizeof(uint64_t)));
	return n == sizeof(uint64_t) ? 0 : kb_fail(k, n);
}

static void kb_free(struct keepbits *k)
{
	if (k->fd >= 0)
		close(k->fd);
	free(k->mem);
	free(k->cache);
}

static int push(struct flt *f, uint64_t obj)
{
	if (!obj)
		return 0;
	if (FSTAP_GROW(f->stack, f->nstack + 1, f->capstack))
		return -ENOMEM;
	f->stack[f->nstack++] = obj;
	return 0;
}

/*
 * Makes the names of obj and of its ancestors resolvable: keeps every
 * dropped record that named one of them, then what those records need.
 * Each need is taken once (then forgotten), so this ends on any input.
 */
static int keep_names(struct flt *f, uint64_t obj)
{
	int ret;

	if ((ret = push(f, obj)))
		return ret;
	while (f->nstack) {
		uint64_t x = f->stack[--f->nstack];
		unsigned depth;

		for (depth = 0; x && x != FSTAP_ROOT_OBJ && depth < MAX_DEPTH; depth++) {
			struct an_obj *o = an_objtab_get(f->objs, x);
			struct needs *nd = o ? o->priv : NULL;
			size_t i;

			for (i = 0; nd && i < nd->n; i++) {
				if ((ret = kept(f, nd->v[i].idx)) < 0)
					return ret;
				if (!ret) {
					if ((ret = mark(f, nd->v[i].idx)))
						return ret;
					f->st.added++;
				}
				if ((ret = push(f, nd->v[i].dir[0])) || (ret = push(f, nd->v[i].dir[1])))
					return ret;
			}
			if (nd)
				nd->n = 0;
			x = fstap_pathmap_parent(f->pm, x);
		}
	}
	return 0;
}

/* Records that obj got its name from record idx (replace: the old name is gone). */
static int add_need(struct flt *f, uint64_t obj, uint64_t idx, uint64_t d0, uint64_t d1,
		    bool replace)
{
	struct an_obj *o = an_objtab_add(f->objs, obj);
	struct needs *nd;

	if (!o)
		return -ENOMEM;
	nd = o->priv;
	if (replace && nd)
		nd->n = 0;
	if (!nd || nd->n == nd->cap) {
		size_t cap = fstap_grow_size(nd ? nd->cap : 0, nd ? nd->n + 1 : 1, 1);
		struct needs *p = cap ? realloc(nd, sizeof(*p) + cap * sizeof(p->v[0])) : NULL;

		if (!p)
			return -ENOMEM;
		if (!nd)
			p->n = 0;
		p->cap = cap;
		nd = p;
		o->priv = nd;
	}
	nd->v[nd->n].idx = idx;
	nd->v[nd->n].dir[0] = d0;
	nd->v[nd->n].dir[1] = d1;
	nd->n++;
	return 0;
}

static void clear_needs(struct an_objtab *t, uint64_t obj)
{
	struct an_obj *o = an_objtab_get(t, obj);

	if (o && o->priv)
		((struct needs *)o->priv)->n = 0;
}

/* Whether the name obj's path uses is known (to the pathmap, before this record). */
static bool has_name(const struct flt *f, uint64_t obj)
{
	uint64_t parent;
	struct fstap_bytes name;

	return fstap_pathmap_name(f->pm, obj, &parent, &name) >= 0;
}

/* Whether obj's path uses the name name in parent already. */
static bool same_name(const struct flt *f, uint64_t obj, uint64_t parent, struct fstap_bytes name)
{
	uint64_t p;
	struct fstap_bytes n;

	return fstap_pathmap_name(f->pm, obj, &p, &n) >= 0 && p == parent &&
	       n.len == name.len && !memcmp(n.ptr, name.ptr, name.len);
}

/* Notes which records name which objects (before an_objtab_apply). */
static int learn_names(struct flt *f, const struct fstap_rec *rec, uint64_t idx,
		       uint64_t renamed, bool is_kept)
{
	uint32_t i;
	int ret;

	if (rec->op == FSTAP_OP_STATE_DENTRY) {
		/* only an initial name that comes first names the object for replay */
		if (!has_name(f, rec->child))
			clear_needs(f->objs, rec->child);
		return 0;
	}
	if (fstap_op_is_meta(rec->op) || rec->result < 0)
		return 0;
	switch (rec->op) {
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
		if (!rec->child)
			return 0;
		if (same_name(f, rec->child, rec->obj, rec->name) && !is_kept)
			return 0;	/* already named so: nothing new to keep */
		if (is_kept) {
			clear_needs(f->objs, rec->child);
			return 0;
		}
		return add_need(f, rec->child, idx, rec->obj, 0, true);
	case FSTAP_OP_RENAME:
		/* the old name stays needed: the rename itself must resolve it */
		if (!renamed || is_kept)
			return 0;
		return add_need(f, renamed, idx, rec->obj, rec->newparent, false);
	case FSTAP_OP_READDIR:
		for (i = 0; i < rec->nentries; i++) {
			const struct fstap_dirent *e = &rec->entries[i];

			if (!e->obj || fstap_name_dots(e->name.ptr, e->name.len))
				continue;
			if (has_name(f, e->obj))
				continue;
			if (!is_kept && (ret = add_need(f, e->obj, idx, rec->obj, 0, true)))
				return ret;
		}
		return 0;
	default:
		return 0;
	}
}

static bool path_has_prefix(const char *path, const char *prefix, size_t plen)
{
	if (strncmp(path, prefix, plen))
		return false;
	return plen == 1 || path[plen] == '\0' || path[plen] == '/';
}

static bool path_selected(struct flt *f, const struct fstap_rec *rec)
{
	const struct fstap_op_info *oi = fstap_op_info(rec->op);
	const char *prefix = f->o->path;
	size_t plen = strlen(prefix);
	char path[PATH_CAP];

	while (plen > 1 && prefix[plen - 1] == '/')
		plen--;
	if (oi && (oi->props & FSTAP_OPP_DIRENT)) {
		if (fstap_pathmap_entry_path(f->pm, rec->obj, rec->name, path, sizeof(path)) >= 0 &&
		    path_has_prefix(path, prefix, plen))
			return true;
	} else if (fstap_pathmap_path(f->pm, rec->obj, path, sizeof(path)) >= 0 &&
		   path_has_prefix(path, prefix, plen)) {
		return true;
	}
	if ((rec->op == FSTAP_OP_RENAME || rec->op == FSTAP_OP_LINK) &&
	    fstap_pathmap_entry_path(f->pm, rec->newparent, rec->newname, path, sizeof(path)) >= 0 &&
	    path_has_prefix(path, prefix, plen))
		return true;
	if (rec->op == FSTAP_OP_COPY_FILE_RANGE &&
	    fstap_pathmap_path(f->pm, rec->obj2, path, sizeof(path)) >= 0 &&
	    path_has_prefix(path, prefix, plen))
		return true;
	return false;
}

static bool selected(struct flt *f, const struct fstap_rec *rec)
{
	const struct an_filter_opts *o = f->o;
	size_t i;

	if (rec->start_ns < o->from_ns || (o->to_ns && rec->start_ns >= o->to_ns))
		return false;
	if (o->nops) {
		for (i = 0; i < o->nops && o->ops[i] != rec->op; i++)
			;
		if (i == o->nops)
			return false;
	}
	if (o->npids) {
		for (i = 0; i < o->npids && o->pids[i] != rec->pid; i++)
			;
		if (i == o->npids)
			return false;
	}
	if (o->ncomms) {
		for (i = 0; i < f->ncomm_pids && f->comm_pids[i] != rec->pid; i++)
			;
		if (i == f->ncomm_pids)
			return false;
	}
	return !o->path || path_selected(f, rec);
}

/* Pass 0: the pids whose process record names a selected command. */
static int find_comm_pids(struct flt *f, const char *in)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	char *msg = NULL;
	size_t i;
	int ret = fstap_reader_open(&r, in, &msg);

	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return ret;
	}
	while ((ret = fstap_reader_next(r, &rec)) == 1) {
		if (rec.op != FSTAP_OP_PROCESS)
			continue;
		for (i = 0; i < f->o->ncomms; i++) {
			const char *c = f->o->comms[i];

			if (strlen(c) == rec.comm.len && !memcmp(c, rec.comm.ptr, rec.comm.len))
				break;
		}
		if (i == f->o->ncomms)
			continue;
		if (FSTAP_GROW(f->comm_pids, f->ncomm_pids + 1, f->capcomm)) {
			ret = -ENOMEM;
			break;
		}
		f->comm_pids[f->ncomm_pids++] = (uint32_t)rec.pid;
	}
	if (ret == -ENOMEM)
		fstap_error(ret, "out of memory");
	else if (ret < 0)
		fstap_error(ret, "%s", fstap_reader_errmsg(r));
	fstap_reader_close(r);
	return ret < 0 ? ret : 0;
}

/* Also when the pathmap forgets o: nothing can select a record of it any more. */
static void free_needs(struct an_obj *o, void *arg)
{
	(void)arg;
	free(o->priv);
	o->priv = NULL;
}

/* Pass 1: decide. */
static int decide(struct flt *f, const char *in)
{
	struct fstap_reader *r;
	struct fstap_sorter *s;
	struct fstap_rec rec;
	uint64_t idx = 0;
	int ret;

	if ((ret = an_open_sorted(in, &r, &s)))
		return ret;
	for (; (ret = fstap_sorter_next(s, &rec)) == 1; idx++) {
		uint64_t renamed = 0;
		bool sel = false;

		if (!fstap_op_is_meta(rec.op)) {
			f->st.read++;
			sel = selected(f, &rec);
			if (sel) {
				/* obj: the directory of an entry op, else the object itself */
				f->st.selected++;
				if ((ret = mark(f, idx)) || (ret = keep_names(f, rec.obj)) ||
				    (ret = keep_names(f, rec.newparent)) || (ret = keep_names(f, rec.obj2)))
					break;
			}
			if (rec.op == FSTAP_OP_RENAME && rec.result >= 0)
				renamed = fstap_pathmap_lookup(f->pm, rec.obj, rec.name);
		}
		if ((ret = learn_names(f, &rec, idx, renamed, sel)) ||
		    (ret = an_objtab_apply(f->objs, f->pm, &rec)))
			break;
	}
	if (f->keep.err)
		fstap_error(ret, "cannot write the temporary file: %s", strerror(f->keep.err));
	else if (ret == -ENOMEM)
		fstap_error(ret, "out of memory");
	else if (ret < 0)
		fstap_error(ret, "%s", fstap_reader_errmsg(r));
	f->cut = *fstap_reader_cut(r);
	fstap_sorter_free(s);
	fstap_reader_close(r);
	return ret < 0 ? ret : 0;
}

static char *transform_step(const char *in, const struct an_filter_opts *o,
			    const struct an_filter_stats *st)
{
	json_t *step = json_object(), *a;
	char *text;
	size_t i;

	json_object_set_new(step, "tool", json_string("fstap filter"));
	json_object_set_new(step, "source", json_string(in));
	if (o->args)
		json_object_set_new(step, "args", json_string(o->args));
	if (o->npids) {
		a = json_array();
		for (i = 0; i < o->npids; i++)
			json_array_append_new(a, json_integer(o->pids[i]));
		json_object_set_new(step, "pid", a);
	}
	if (o->ncomms) {
		a = json_array();
		for (i = 0; i < o->ncomms; i++)
			json_array_append_new(a, json_string(o->comms[i]));
		json_object_set_new(step, "comm", a);
	}
	if (o->path)
		json_object_set_new(step, "path", json_string(o->path));
	if (o->nops) {
		a = json_array();
		for (i = 0; i < o->nops; i++)
			json_array_append_new(a, json_string(fstap_op_info(o->ops[i])->name));
		json_object_set_new(step, "op", a);
	}
	if (o->from_ns)
		json_object_set_new(step, "from_ns", json_integer((json_int_t)o->from_ns));
	if (o->to_ns)
		json_object_set_new(step, "to_ns", json_integer((json_int_t)o->to_ns));
	json_object_set_new(step, "selected", json_integer((json_int_t)st->selected));
	json_object_set_new(step, "added_for_paths", json_integer((json_int_t)st->added));
	json_object_set_new(step, "dropped",
			    json_integer((json_int_t)(st->read - st->selected - st->added)));
	text = json_dumps(step, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(step);
	return text;
}

/* Pass 2: write the records kept, in time order. */
static int write_out(struct flt *f, const char *in, const char *out)
{
	struct fstap_reader *r;
	struct fstap_sorter *s;
	struct fstap_writer *w = NULL;
	struct fstap_output *dst = NULL;
	const char *inputs[] = { in, NULL };
	struct fstap_trace_info info;
	struct fstap_rec rec;
	uint64_t idx = 0, end_ns = 0;
	bool has_footer = false;
	char *step = NULL, line[256];
	int ret;

	if ((ret = an_open_sorted(in, &r, &s)))
		return ret;
	info = *fstap_reader_info(r);
	if (f->cut.cut)	/* the output ends where the input was cut */
		info.flags |= FSTAP_TF_WATERMARKS;
	step = transform_step(in, f->o, &f->st);
	info.metadata_json = step ? an_metadata_with_transform(fstap_reader_info(r), step) : NULL;
	if (!info.metadata_json) {
		ret = fstap_error(-ENOMEM, "out of memory");
		goto done;
	}
	if ((ret = an_open_trace_output(out, inputs, &info, &dst, &w)))
		goto done;
	for (; (ret = fstap_sorter_next(s, &rec)) == 1; idx++) {
		if (rec.op == FSTAP_OP_FOOTER) {
			has_footer = true;
			end_ns = rec.time_ns;
			continue;
		}
		if (!fstap_op_is_meta(rec.op) && (ret = kept(f, idx)) <= 0) {
			if (!ret)
				continue;
			fstap_error(ret, "cannot read the temporary file: %s", strerror(-ret));
			goto done;
		}
		if (!fstap_op_is_meta(rec.op) && rec.start_ns + rec.dur_ns > end_ns && !has_footer)
			end_ns = rec.start_ns + rec.dur_ns;
		if ((ret = fstap_writer_add(w, &rec))) {
			fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(w));
			goto done;
		}
	}
	if (ret < 0) {
		fstap_error(ret, "%s", fstap_reader_errmsg(r));
		goto done;
	}
	if (fstap_reader_notice(r, "filtered", line, sizeof(line)))
		fstap_warn("%s; the output has no footer either", line);
	if (f->cut.cut && (ret = fstap_writer_watermark(w, f->cut.cutoff_ns))) {
		fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(w));
		goto done;
	}
	ret = fstap_writer_close(w, end_ns, !fstap_reader_complete(r));
	if (ret) {
		fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(w));
		goto done;
	}
	ret = fstap_output_commit(dst);
	dst = NULL;
done:
	fstap_writer_free(w);
	fstap_output_abort(dst);
	free(info.metadata_json);
	free(step);
	fstap_sorter_free(s);
	fstap_reader_close(r);
	return ret;
}


int an_filter(const char *in, const char *out, const struct an_filter_opts *o,
	      struct an_filter_stats *st)
{
	struct flt f = { .o = o, .keep = { .fd = -1, .block = KB_BLOCK, .mem_words = KB_MEM } };
	const char *test_words = getenv(KB_TEST_ENV);
	int ret;

	if (test_words && atoi(test_words) > 0) {
		f.keep.mem_words = (size_t)atoi(test_words);
		f.keep.block = f.keep.mem_words < KB_BLOCK ? f.keep.mem_words : KB_BLOCK;
	}

	if (!strcmp(in, "-"))
		return fstap_error(-EINVAL, "filter reads its input twice: give a trace file, "
				   "not standard input");
	if (an_objtab_new(&f.objs) || fstap_pathmap_new(&f.pm)) {
		ret = fstap_error(-ENOMEM, "out of memory");
		goto done;
	}
	an_objtab_forget_dead(f.objs, free_needs, NULL);
	if (o->ncomms && (ret = find_comm_pids(&f, in)))
		goto done;
	if ((ret = decide(&f, in)))
		goto done;
	ret = write_out(&f, in, out);
	if (st)
		*st = f.st;
done:
	if (f.objs)
		an_objtab_each(f.objs, free_needs, NULL);
	an_objtab_free(f.objs);
	fstap_pathmap_free(f.pm);
	kb_free(&f.keep);
	free(f.comm_pids);
	free(f.stack);
	return ret;
}
