/*
 * prepare-plan.c: the pure half of `fstap prepare`: collects a trace's
 * state records into a model, validates them as untrusted input and orders
 * the creations (prepare.h). No system call is made here other than reading
 * the trace, so the unit tests drive it with synthetic records; the
 * execution against a real directory is replay/prepare.c.
 *
 * The plan is a topological order of the tree of names from the root: an
 * object becomes available when the directory holding its first valid name
 * has been created, and the next object created is the available one with
 * the smallest key (the recorded inode number, or a seeded hash for
 * --order=random), or, for --order=name, the top of a stack onto which each
 * created directory pushes its entries in reverse name order (which makes a
 * depth-first walk in name order). A directory is created through one name
 * only; its other names are skipped, which also breaks any loop. Objects
 * never reached from the root (orphans, a cycle of directories) are skipped.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fstap/name.h"
#include "fstap/util.h"
#include "fstap/xattr.h"
#include "prepare.h"

#define NONE UINT32_MAX

/* ---- arena: the copies of names, targets, xattrs and extents ------------ */

struct prep_arena {
	struct prep_arena *next;
	size_t used, cap;
	max_align_t data[];
};

static void *arena_alloc(struct prep_model *m, size_t len)
{
	struct prep_arena *a = m->arena;
	void *p;

	len = (len + 15) & ~(size_t)15;
	if (!a || a->cap - a->used < len) {
		size_t cap = len > (64u << 10) ? len : (64u << 10);

		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		a->next = m->arena;
		a->used = 0;
		a->cap = cap;
		m->arena = a;
	}
	p = (char *)a->data + a->used;
	a->used += len;
	return p;
}

static void *arena_dup(struct prep_model *m, const void *src, size_t len, bool nul)
{
	uint8_t *p = arena_alloc(m, len + (nul ? 1 : 0));

	if (!p)
		return NULL;
	if (len)
		memcpy(p, src, len);
	if (nul)
		p[len] = 0;
	return p;
}

/* ---- object table -------------------------------------------------------- */

/* The key of object id in the index (0 is an empty slot there). */
static uint64_t id_key(uint64_t id)
{
	return id + 1;
}

static uint32_t obj_find(const struct prep_model *m, uint64_t id)
{
	uint64_t *v = fstap_map_get(&m->index, id_key(id));

	return v ? (uint32_t)*v : NONE;
}

/* -EINVAL for the one id the index cannot hold (no recorder makes it). */
static int obj_add(struct prep_model *m, uint64_t id, uint32_t *out)
{
	struct prep_obj *o;
	int ret;

	if (m->nobjs >= (1u << 30) || FSTAP_GROW(m->objs, m->nobjs + 1, m->objs_cap))
		return -ENOMEM;
	if ((ret = fstap_map_put(&m->index, id_key(id), m->nobjs)))
		return ret;
	o = &m->objs[m->nobjs];
	memset(o, 0, sizeof(*o));
	o->id = id;
	o->via = NONE;
	*out = m->nobjs++;
	return 0;
}

int prep_model_new(struct prep_model **out)
{
	struct prep_model *m = calloc(1, sizeof(*m));
	uint32_t root;

	if (!m)
		return -ENOMEM;
	if (obj_add(m, FSTAP_ROOT_OBJ, &root)) {
		prep_model_free(m);
		return -ENOMEM;
	}
	m->objs[0].mode = S_IFDIR | 0755;
	*out = m;
	return 0;
}

void prep_model_free(struct prep_model *m)
{
	struct prep_arena *a, *next;

	if (!m)
		return;
	for (a = m->arena; a; a = next) {
		next = a->next;
		free(a);
	}
	free(m->objs);
	free(m->dents);
	free(m->name_list);
	free(m->steps);
	fstap_map_release(&m->index);
	free(m);
}

void prep_note(struct prep_model *m, enum prep_skip why, uint32_t obj, uint32_t dent, int err)
{
	m->skipped[why]++;
	if (m->nnotes < PREP_NOTES_MAX)
		m->notes[m->nnotes++] = (struct prep_note){ why, obj, dent, err };
}

const char *prep_skip_str(enum prep_skip why)
{
	static const char *const s[PREP_SKIP_NR] = {
		[PREP_SKIP_BAD_NAME] = "invalid name",
		[PREP_SKIP_NO_STATE] = "object without state record",
		[PREP_SKIP_NOT_DIR] = "parent is not a directory",
		[PREP_SKIP_DIR_LINK] = "second name of a directory",
		[PREP_SKIP_DUP_NAME] = "name already taken",
		[PREP_SKIP_DUP_STATE] = "duplicate state record",
		[PREP_SKIP_BAD_OBJECT] = "object cannot be created",
		[PREP_SKIP_UNREACHABLE] = "not reachable from the root",
		[PREP_SKIP_CREATE_FAILED] = "creation failed",
		[PREP_SKIP_PARENT_FAILED] = "parent not created",
	};

	return why < PREP_SKIP_NR ? s[why] : "?";
}

/*
 * Whether the recorder left out the value of xattr i (its size is in
 * xattr_sizes; a list that does not match the xattrs is ignored).
 */
static bool left_out(const struct fstap_rec *rec, uint32_t i)
{
	return rec->xattr_sizes.n == rec->nxattrs && !rec->xattrs[i].value.len &&
	       rec->xattr_sizes.v[i] > 0 && rec->xattr_sizes.v[i] <= UINT32_MAX;
}

static int add_inode(struct prep_model *m, const struct fstap_rec *rec)
{
	struct prep_xattr *xa = NULL;
	struct prep_obj *o;
	uint32_t idx, i, n;
	int ret;

	idx = obj_find(m, rec->obj);
	if (idx != NONE && (idx != 0 || m->root_has_state)) {
		prep_note(m, PREP_SKIP_DUP_STATE, idx, NONE, 0);
		return 0;
	}
	if (idx == NONE && (ret = obj_add(m, rec->obj, &idx)))
		return ret;
	if (idx == 0)
		m->root_has_state = true;
	o = &m->objs[idx];
	o->ino = rec->ino;
	o->size = rec->size;
	o->rdev = rec->rdev;
	o->uid = rec->owner_uid;
	o->gid = rec->owner_gid;
	o->nlink = rec->nlink;
	o->atime = rec->atime;
	o->mtime = rec->mtime;
	o->ctime = rec->ctime;
	o->attr_flags = (uint32_t)rec->flags_arg;
	o->projid = (uint32_t)rec->projid;
	o->mode = (uint32_t)rec->mode;
	if (rec->mode > UINT32_MAX)
		o->mode = 0;	/* an unknown type: skipped by the plan */
	if (rec->target.len) {
		o->target = arena_dup(m, rec->target.ptr, rec->target.len, true);
		if (!o->target)
			return -ENOMEM;
		o->ntarget = rec->target.len;
	}
	if (rec->nxattrs) {
		xa = arena_alloc(m, (size_t)rec->nxattrs * sizeof(*xa));
		if (!xa)
			return -ENOMEM;
		for (i = 0, n = 0; i < rec->nxattrs; i++) {
			const struct fstap_xattr *x = &rec->xattrs[i];

			if (fstap_xattr_fs_own((const char *)x->name.ptr, x->name.len))
				continue;	/* xfs's copy of an ACL: made with the ACL */
			xa[n].name = arena_dup(m, x->name.ptr, x->name.len, true);
			xa[n].value = arena_dup(m, x->value.ptr, x->value.len, false);
			if (!xa[n].name || (!xa[n].value && x->value.len))
				return -ENOMEM;
			xa[n].name_len = x->name.len;
			xa[n].value_len = x->value.len;
			if (left_out(rec, i)) {
				xa[n].value = NULL;
				xa[n].value_len = (uint32_t)rec->xattr_sizes.v[i];
			}
			n++;
		}
		o->xattrs = xa;
		o->nxattrs = n;
	}
	if (rec->nextents && S_ISREG(o->mode)) {
		struct fstap_extent *e = arena_dup(m, rec->extents,
						   (size_t)rec->nextents * sizeof(*e), false);

		if (!e)
			return -ENOMEM;
		o->extents = e;
		o->nextents = prep_extents_normalize(e, rec->nextents, o->size);
	}
	return 0;
}

static int extent_cmp(const void *pa, const void *pb)
{
	const struct fstap_extent *a = pa, *b = pb;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

uint32_t prep_extents_normalize(struct fstap_extent *e, uint32_t n, uint64_t size)
{
	uint32_t i, out = 0;

	qsort(e, n, sizeof(*e), extent_cmp);
	for (i = 0; i < n; i++) {
		uint64_t off = e[i].offset, end;

		if (off >= size || !e[i].length)
			continue;
		end = e[i].length > size - off ? size : off + e[i].length;
		if (out && off <= e[out - 1].offset + e[out - 1].length) {
			if (end > e[out - 1].offset + e[out - 1].length)
				e[out - 1].length = end - e[out - 1].offset;
			continue;
		}
		e[out].offset = off;
		e[out].length = end - off;
		out++;
	}
	return out;
}

static int add_dentry(struct prep_model *m, const struct fstap_rec *rec)
{
	struct prep_dent *d;

	if (m->ndents >= (1u << 30) || FSTAP_GROW(m->dents, m->ndents + 1, m->dents_cap))
		return -ENOMEM;
	d = &m->dents[m->ndents];
	memset(d, 0, sizeof(*d));
	d->parent = rec->obj;
	d->child = rec->child;
	d->seq = m->nrecs;
	d->name_len = rec->name.len;
	d->name = arena_dup(m, rec->name.ptr, rec->name.len, true);
	if (!d->name)
		return -ENOMEM;
	m->ndents++;
	return 0;
}

int prep_model_add(struct prep_model *m, const struct fstap_rec *rec)
{
	m->nrecs++;
	if (rec->op == FSTAP_OP_STATE_INODE)
		return add_inode(m, rec);
	if (rec->op == FSTAP_OP_STATE_DENTRY)
		return add_dentry(m, rec);
	return 0;
}

int prep_model_read(struct prep_model *m, const char *trace, char **errmsg)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	char *msg = NULL;
	int ret;

	*errmsg = NULL;
	ret = fstap_reader_open(&r, trace, &msg);
	if (ret) {
		if (!msg && asprintf(&msg, "cannot read '%s': %s", trace, strerror(-ret)) < 0)
			msg = NULL;
		*errmsg = msg;
		return ret;
	}
	while ((ret = fstap_reader_next(r, &rec)) == 1) {
		if (rec.op != FSTAP_OP_STATE_INODE && rec.op != FSTAP_OP_STATE_DENTRY)
			continue;
		if ((ret = prep_model_add(m, &rec)))
			break;
	}
	if (ret < 0) {
		const char *why = ret == -ENOMEM ? "out of memory" : fstap_reader_errmsg(r);

		*errmsg = strdup(why && *why ? why : strerror(-ret));
	} else {
		char line[256];

		/* Not an error: the state before the cut is whole. */
		if (fstap_reader_notice(r, "prepared", line, sizeof(line)))
			*errmsg = strdup(line);
	}
	fstap_reader_close(r);
	return ret < 0 ? ret : 0;
}

/* ---- validation ---------------------------------------------------------- */

static bool obj_is_dir(const struct prep_model *m, uint32_t idx)
{
	return idx == 0 || S_ISDIR(m->objs[idx].mode);
}

/* Whether the object itself can be made: a known type, a usable target. */
static bool obj_creatable(const struct prep_obj *o)
{
	switch (o->mode & S_IFMT) {
	case S_IFDIR: case S_IFREG: case S_IFIFO: case S_IFSOCK: case S_IFCHR: case S_IFBLK:
		return true;
	case S_IFLNK:
		return o->ntarget > 0 && o->ntarget < PATH_MAX &&
		       !memchr(o->target, '\0', o->ntarget);
	default:
		return false;
	}
}

static int dent_cmp(const void *pa, const void *pb)
{
	const struct prep_dent *a = pa, *b = pb;
	uint32_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int validate(struct prep_model *m)
{
	uint32_t i, *count;
	struct prep_dent *prev = NULL;

	for (i = 1; i < m->nobjs; i++)
		if (!obj_creatable(&m->objs[i]))
			prep_note(m, PREP_SKIP_BAD_OBJECT, i, NONE, 0);
	if (m->ndents)
		qsort(m->dents, m->ndents, sizeof(*m->dents), dent_cmp);
	for (i = 0; i < m->ndents; i++) {
		struct prep_dent *d = &m->dents[i];
		struct fstap_bytes name = { (const uint8_t *)d->name, d->name_len };

		d->parent_idx = obj_find(m, d->parent);
		d->child_idx = obj_find(m, d->child);
		if (!fstap_name_valid(name)) {
			prep_note(m, PREP_SKIP_BAD_NAME, NONE, i, 0);
		} else if (d->parent_idx == NONE) {
			prep_note(m, PREP_SKIP_NO_STATE, NONE, i, 0);
		} else if (!obj_is_dir(m, d->parent_idx)) {
			prep_note(m, PREP_SKIP_NOT_DIR, NONE, i, 0);
		} else if (d->child_idx == NONE) {
			prep_note(m, PREP_SKIP_NO_STATE, NONE, i, 0);
		} else if (d->child_idx == 0) {
			prep_note(m, PREP_SKIP_DIR_LINK, NONE, i, 0);
		} else if (prev && prev->parent == d->parent && prev->name_len == d->name_len &&
			   !memcmp(prev->name, d->name, d->name_len)) {
			/* The same record twice is harmless; another child is not. */
			if (prev->child != d->child)
				prep_note(m, PREP_SKIP_DUP_NAME, NONE, i, 0);
		} else if (obj_creatable(&m->objs[d->child_idx])) {
			d->valid = true;
		}
		if (d->valid)
			prev = d;
	}
	/* Each directory's entries, contiguous since sorted by parent. */
	for (i = 0; i < m->ndents; i++) {
		struct prep_dent *d = &m->dents[i];

		if (!d->valid)
			continue;
		if (!m->objs[d->parent_idx].nchildren)
			m->objs[d->parent_idx].children = i;
		m->objs[d->parent_idx].nchildren = i - m->objs[d->parent_idx].children + 1;
	}
	/* Each object's names, for hard links. */
	count = calloc(m->nobjs + 1, sizeof(*count));
	m->name_list = malloc(((size_t)m->ndents + 1) * sizeof(*m->name_list));
	if (!count || !m->name_list) {
		free(count);
		return -ENOMEM;
	}
	for (i = 0; i < m->ndents; i++)
		if (m->dents[i].valid)
			m->objs[m->dents[i].child_idx].nnames++;
	for (i = 0; i < m->nobjs; i++)
		count[i + 1] = count[i] + m->objs[i].nnames;
	for (i = 0; i < m->nobjs; i++)
		m->objs[i].names = count[i];
	for (i = 0; i < m->ndents; i++)
		if (m->dents[i].valid)
			m->name_list[count[m->dents[i].child_idx]++] = i;
	free(count);
	return 0;
}

/* ---- ordering ------------------------------------------------------------ */

struct frontier {
	uint32_t *v;		/* object indexes */
	uint32_t n;
	bool stack;		/* --order=name: last in, first out */
	const uint64_t *key;	/* heap key per object index */
};

static bool key_less(const struct frontier *f, const struct prep_model *m, uint32_t a, uint32_t b)
{
	if (f->key[a] != f->key[b])
		return f->key[a] < f->key[b];
	return m->objs[a].id < m->objs[b].id;
}

static void frontier_push(struct frontier *f, const struct prep_model *m, uint32_t obj)
{
	uint32_t i = f->n++;

	f->v[i] = obj;
	if (f->stack)
		return;
	while (i > 0 && key_less(f, m, f->v[i], f->v[(i - 1) / 2])) {
		uint32_t p = (i - 1) / 2, t = f->v[p];

		f->v[p] = f->v[i];
		f->v[i] = t;
		i = p;
	}
}

static uint32_t frontier_pop(struct frontier *f, const struct prep_model *m)
{
	uint32_t top, i = 0;

	if (f->stack)
		return f->v[--f->n];
	top = f->v[0];
	f->v[0] = f->v[--f->n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, s = i, t;

		if (l < f->n && key_less(f, m, f->v[l], f->v[s]))
			s = l;
		if (r < f->n && key_less(f, m, f->v[r], f->v[s]))
			s = r;
		if (s == i)
			break;
		t = f->v[s];
		f->v[s] = f->v[i];
		f->v[i] = t;
		i = s;
	}
	return top;
}

/* A seeded hash of x: the first number of the splitmix64 sequence from x. */
static uint64_t splitmix(uint64_t x)
{
	return fstap_splitmix64(&x);
}

static void add_step(struct prep_model *m, enum prep_step_kind kind, uint32_t obj, uint32_t dent)
{
	m->steps[m->nsteps++] = (struct prep_step){ kind, obj, dent };
}

/* A directory was created: its entries become available (or links). */
static void expand(struct prep_model *m, struct frontier *f, uint32_t dir)
{
	const struct prep_obj *p = &m->objs[dir];
	uint32_t k;

	for (k = 0; k < p->nchildren; k++) {
		/* In name order from the stack, the first name must come out first. */
		uint32_t i = f->stack ? p->children + p->nchildren - 1 - k : p->children + k;
		struct prep_dent *d = &m->dents[i];
		struct prep_obj *c;

		if (!d->valid)
			continue;
		c = &m->objs[d->child_idx];
		if (c->plan_state == 0) {
			c->plan_state = 1;
			c->via = i;
			frontier_push(f, m, d->child_idx);
		} else if (S_ISDIR(c->mode)) {
			prep_note(m, PREP_SKIP_DIR_LINK, NONE, i, 0);
		} else if (c->plan_state == 2) {
			add_step(m, PREP_STEP_LINK, d->child_idx, i);
		}
		/* Queued, not yet created: linked when it is created. */
	}
}

int prep_plan(struct prep_model *m, enum prep_order order, uint64_t seed)
{
	struct frontier f = { .stack = order == PREP_ORDER_NAME };
	uint64_t *key = NULL;
	uint32_t i;
	int ret;

	if (m->steps)
		return -EINVAL;
	if ((ret = validate(m)))
		return ret;
	m->steps = malloc(((size_t)m->nobjs + m->ndents + 1) * sizeof(*m->steps));
	f.v = malloc(((size_t)m->nobjs + 1) * sizeof(*f.v));
	if (!f.stack)
		key = malloc(((size_t)m->nobjs + 1) * sizeof(*key));
	if (!m->steps || !f.v || (!f.stack && !key)) {
		free(f.v);
		free(key);
		return -ENOMEM;
	}
	for (i = 0; !f.stack && i < m->nobjs; i++)
		key[i] = order == PREP_ORDER_RANDOM ? splitmix(seed ^ splitmix(m->objs[i].id))
						    : m->objs[i].ino;
	f.key = key;

	m->objs[0].plan_state = 2;
	expand(m, &f, 0);
	while (f.n) {
		uint32_t o = frontier_pop(&f, m), k;
		struct prep_obj *c = &m->objs[o];

		add_step(m, PREP_STEP_CREATE, o, c->via);
		c->plan_state = 2;
		if (S_ISDIR(c->mode)) {
			expand(m, &f, o);
			continue;
		}
		/* Its other names in directories that exist already. */
		for (k = 0; k < c->nnames; k++) {
			uint32_t d = m->name_list[c->names + k];

			if (d != c->via && m->objs[m->dents[d].parent_idx].plan_state == 2)
				add_step(m, PREP_STEP_LINK, o, d);
		}
	}
	for (i = 1; i < m->nobjs; i++)
		if (m->objs[i].plan_state != 2 && obj_creatable(&m->objs[i]))
			prep_note(m, PREP_SKIP_UNREACHABLE, i, NONE, 0);
	free(f.v);
	free(key);
	return 0;
}

/* ---- paths for messages -------------------------------------------------- */

static size_t put_escaped(char *buf, size_t cap, size_t pos, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && pos + 5 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[pos++] = (char)c;
		else
			pos += (size_t)snprintf(buf + pos, cap - pos, "\\x%02x", c);
	}
	buf[pos] = 0;
	return pos;
}

const char *prep_obj_path(const struct prep_model *m, uint32_t obj, char *buf, size_t cap)
{
	uint32_t chain[64], n = 0, cur = obj;
	size_t pos = 0;

	if (cap < 32)
		return "";
	buf[0] = 0;
	if (obj == 0)
		return ".";
	/* Up to the root through planned names (a plan has no loops). */
	while (cur != 0 && cur != NONE && m->objs[cur].via != NONE && n < 64) {
		chain[n++] = m->objs[cur].via;
		cur = m->dents[m->objs[cur].via].parent_idx;
	}
	if (cur != 0) {
		if (n == 64)
			pos = (size_t)snprintf(buf, cap, "...");
		else
			pos = (size_t)snprintf(buf, cap, "<obj:%llu>",
					       (unsigned long long)(cur == NONE ? 0 : m->objs[cur].id));
		if (n == 0)
			return buf;
	}
	while (n--) {
		const struct prep_dent *d = &m->dents[chain[n]];

		if (pos && pos + 1 < cap)
			buf[pos++] = '/';
		pos = put_escaped(buf, cap, pos, d->name, d->name_len);
	}
	return buf;
}

uint32_t prep_obj_first_dent(const struct prep_model *m, uint32_t obj)
{
	uint32_t i;

	for (i = 0; i < m->ndents; i++)
		if (m->dents[i].child_idx == obj)
			return i;
	return NONE;
}

const char *prep_dent_path(const struct prep_model *m, uint32_t dent, char *buf, size_t cap)
{
	const struct prep_dent *d = &m->dents[dent];
	size_t pos;

	if (cap < 32)
		return "";
	if (d->parent_idx == 0) {
		pos = 0;
		buf[0] = 0;
	} else if (d->parent_idx == NONE || m->objs[d->parent_idx].plan_state != 2) {
		pos = (size_t)snprintf(buf, cap, "<obj:%llu>/", (unsigned long long)d->parent);
	} else {
		prep_obj_path(m, d->parent_idx, buf, cap);
		pos = strlen(buf);
		if (pos + 1 < cap)
			buf[pos++] = '/';
	}
	put_escaped(buf, cap, pos, d->name, d->name_len);
	return buf;
}
