/*
 * objtab.c: what the analysis commands know about each object of a trace:
 * its directory and name, whether it is a directory, and its inode number.
 * An open-addressing hash table from object id to an index into one array of
 * entries. The names are fstap_pathmap's (the name each object's path
 * uses), copied here as the pathmap learns them, so that report, reorder and
 * filter see the namespace export and replay see; this table adds the types
 * and inode numbers they need and pathmap does not keep. It is fed records
 * in time order, with the pathmap (an_objtab_apply).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "fstap/pathmap.h"

struct an_objtab {
	struct an_obj *objs;
	size_t n, cap;
	uint32_t *slots;	/* index + 1; 0 empty */
	size_t nslots;		/* power of two, > 2 * n */
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	return x ^ (x >> 33);
}

int an_objtab_new(struct an_objtab **out)
{
	struct an_objtab *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void an_objtab_free(struct an_objtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->objs[i].name);
	free(t->objs);
	free(t->slots);
	free(t);
}

static size_t find_slot(const struct an_objtab *t, uint64_t obj)
{
	size_t mask = t->nslots - 1, s = mix64(obj) & mask;

	while (t->slots[s] && t->objs[t->slots[s] - 1].obj != obj)
		s = (s + 1) & mask;
	return s;
}

struct an_obj *an_objtab_get(const struct an_objtab *t, uint64_t obj)
{
	size_t s = find_slot(t, obj);

	return t->slots[s] ? &t->objs[t->slots[s] - 1] : NULL;
}

static int grow_slots(struct an_objtab *t)
{
	size_t nslots = t->nslots * 2, i;
	uint32_t *old = t->slots;

	t->slots = calloc(nslots, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->nslots = nslots;
	for (i = 0; i < t->n; i++)
		t->slots[find_slot(t, t->objs[i].obj)] = (uint32_t)(i + 1);
	free(old);
	return 0;
}

struct an_obj *an_objtab_add(struct an_objtab *t, uint64_t obj)
{
	struct an_obj *o = an_objtab_get(t, obj);

	if (o)
		return o;
	if (t->n >= UINT32_MAX - 1)
		return NULL;
	if (2 * (t->n + 1) >= t->nslots && grow_slots(t))
		return NULL;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct an_obj *p = realloc(t->objs, cap * sizeof(*p));

		if (!p)
			return NULL;
		t->objs = p;
		t->cap = cap;
	}
	o = &t->objs[t->n];
	memset(o, 0, sizeof(*o));
	o->obj = obj;
	if (obj == FSTAP_ROOT_OBJ)
		o->type = AN_OT_DIR;
	t->slots[find_slot(t, obj)] = (uint32_t)(++t->n);
	return o;
}

void an_objtab_del(struct an_objtab *t, uint64_t obj)
{
	size_t mask = t->nslots - 1, s = find_slot(t, obj), j;
	uint32_t idx;

	if (!t->slots[s])
		return;
	idx = t->slots[s] - 1;
	free(t->objs[idx].name);
	/* backward shift: no entry after the hole may be left unreachable */
	t->slots[s] = 0;
	for (j = (s + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
		size_t home = mix64(t->objs[t->slots[j] - 1].obj) & mask;

		/* the entry at j stays if its home lies cyclically in (s, j] */
		if (s < j ? home > s && home <= j : home > s || home <= j)
			continue;
		t->slots[s] = t->slots[j];
		t->slots[j] = 0;
		s = j;
	}
	/* the last entry fills the hole in the array */
	if (idx != --t->n) {
		t->objs[idx] = t->objs[t->n];
		t->slots[find_slot(t, t->objs[idx].obj)] = idx + 1;
	}
}

int an_objtab_name(struct an_objtab *t, uint64_t obj, uint64_t parent, struct fstap_bytes name)
{
	struct an_obj *o = an_objtab_add(t, obj);
	uint8_t *copy;

	if (!o)
		return -ENOMEM;
	if (o->parent == parent && o->name && o->name_len == name.len &&
	    !memcmp(o->name, name.ptr, name.len))
		return 0;
	copy = malloc(name.len + 1);
	if (!copy)
		return -ENOMEM;
	if (name.len)
		memcpy(copy, name.ptr, name.len);
	copy[name.len] = 0;
	free(o->name);
	o->name = copy;
	o->name_len = name.len;
	o->parent = parent;
	return 0;
}

static int set_type(struct an_objtab *t, uint64_t obj, enum an_otype type, bool force)
{
	struct an_obj *o;

	if (!obj)
		return 0;
	o = an_objtab_add(t, obj);
	if (!o)
		return -ENOMEM;
	if (force || o->type == AN_OT_UNKNOWN)
		o->type = (uint8_t)type;
	return 0;
}

bool an_dot_name(struct fstap_bytes name)
{
	return (name.len == 1 && name.ptr[0] == '.') ||
	       (name.len == 2 && name.ptr[0] == '.' && name.ptr[1] == '.');
}

static int apply_entries(struct an_objtab *t, const struct fstap_rec *rec)
{
	uint32_t i;

	for (i = 0; i < rec->nentries; i++) {
		const struct fstap_dirent *e = &rec->entries[i];
		struct an_obj *o;

		if (!e->obj || an_dot_name(e->name))
			continue;
		o = an_objtab_add(t, e->obj);
		if (!o)
			return -ENOMEM;
		if (!o->ino_from_state && e->ino)
			o->ino = e->ino;
		if (e->type && o->type == AN_OT_UNKNOWN)
			o->type = e->type == 4 /* DT_DIR */ ? AN_OT_DIR : AN_OT_FILE;
	}
	return 0;
}

/* Types and inode numbers from one record. */
static int learn_types(struct an_objtab *t, const struct fstap_rec *rec)
{
	struct an_obj *o;
	int ret = 0;

	switch (rec->op) {
	case FSTAP_OP_STATE_INODE:
		o = an_objtab_add(t, rec->obj);
		if (!o)
			return -ENOMEM;
		o->ino = rec->ino;
		o->ino_from_state = true;
		o->type = S_ISDIR(rec->mode) ? AN_OT_DIR : AN_OT_FILE;
		return 0;
	case FSTAP_OP_STATE_DENTRY:
		return rec->child ? set_type(t, rec->obj, AN_OT_DIR, true) : 0;
	default:
		break;
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
		if ((ret = set_type(t, rec->obj, AN_OT_DIR, true)))
			return ret;
		if (rec->op == FSTAP_OP_MKDIR)
			return set_type(t, rec->child, AN_OT_DIR, true);
		if (rec->op != FSTAP_OP_LOOKUP)
			return set_type(t, rec->child, AN_OT_FILE, true);
		return 0;
	case FSTAP_OP_OPENDIR:
		return set_type(t, rec->obj, AN_OT_DIR, true);
	case FSTAP_OP_OPEN:
		return set_type(t, rec->obj, AN_OT_FILE, false);
	case FSTAP_OP_READDIR:
		if ((ret = set_type(t, rec->obj, AN_OT_DIR, true)))
			return ret;
		return apply_entries(t, rec);
	default:
		return 0;
	}
}

/* Copies the name pm gives obj's path (kept after its last name goes). */
static int take_name(struct an_objtab *t, const struct fstap_pathmap *pm, uint64_t obj)
{
	uint64_t parent;
	struct fstap_bytes name;

	if (!obj || obj == FSTAP_ROOT_OBJ || fstap_pathmap_name(pm, obj, &parent, &name) < 0)
		return 0;
	return an_objtab_name(t, obj, parent, name);
}

/* The objects whose names rec may change: up to two before it, the rest after. */
static void named_before(const struct fstap_pathmap *pm, const struct fstap_rec *rec,
			 uint64_t before[2])
{
	before[0] = before[1] = 0;
	if (fstap_op_is_meta(rec->op) || rec->result < 0)
		return;
	if (rec->op == FSTAP_OP_RENAME) {
		before[0] = fstap_pathmap_lookup(pm, rec->obj, rec->name);
		before[1] = fstap_pathmap_lookup(pm, rec->newparent, rec->newname);
	} else if (rec->op == FSTAP_OP_UNLINK || rec->op == FSTAP_OP_RMDIR) {
		before[0] = fstap_pathmap_lookup(pm, rec->obj, rec->name);
	}
}

static int take_names(struct an_objtab *t, const struct fstap_pathmap *pm,
		      const struct fstap_rec *rec, const uint64_t before[2])
{
	uint32_t i;
	int ret;

	if ((ret = take_name(t, pm, before[0])) || (ret = take_name(t, pm, before[1])))
		return ret;
	if (rec->op != FSTAP_OP_STATE_DENTRY && (fstap_op_is_meta(rec->op) || rec->result < 0))
		return 0;
	switch (rec->op) {
	case FSTAP_OP_STATE_DENTRY:
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
		return take_name(t, pm, rec->child);
	case FSTAP_OP_LINK:
		return take_name(t, pm, rec->obj);
	case FSTAP_OP_READDIR:
		for (i = 0; i < rec->nentries; i++)
			if (!an_dot_name(rec->entries[i].name) &&
			    (ret = take_name(t, pm, rec->entries[i].obj)))
				return ret;
		return 0;
	default:
		return 0;
	}
}

int an_objtab_apply(struct an_objtab *t, struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint64_t before[2];
	int ret;

	named_before(pm, rec, before);
	if ((ret = learn_types(t, rec)) || (ret = fstap_pathmap_apply(pm, rec)))
		return ret;
	return take_names(t, pm, rec, before);
}

void an_objtab_each(struct an_objtab *t, void (*fn)(struct an_obj *o, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		fn(&t->objs[i], arg);
}
