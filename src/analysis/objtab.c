/*
 * objtab.c: what the analysis commands know about each object of a trace:
 * its directory and name, whether it is a directory, and its inode number.
 * A map from object id to an index into one array of entries. The names
 * are fstap_pathmap's (the name each object's path uses), copied here as the
 * pathmap learns them, so that report, reorder and filter see the namespace
 * export and replay see, and so are the types (the pathmap's kinds, taken
 * as it learns them); this table adds the inode numbers and the counters
 * they need and pathmap does not keep. It is fed records
 * in time order, with the pathmap (an_objtab_apply); it can forget the
 * objects the pathmap forgets (an_objtab_forget_dead), so that its memory
 * follows the objects alive, not the trace's length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "fstap/name.h"
#include "fstap/pathmap.h"
#include "fstap/util.h"

#define RECENT 64		/* a power of two */

struct an_objtab {
	struct an_obj *objs;
	size_t n, cap;
	struct fstap_map index;	/* obj -> index + 1 */
	/*
	 * obj -> index + 1 of objects found lately, in slot obj % RECENT: a
	 * record names the same few objects several times. A slot is a guess,
	 * right when the entry at that index is obj's.
	 */
	uint32_t recent[RECENT];
	bool no_names;		/* an_objtab_parents_only was called */
	uint32_t zero;		/* index + 1 of object 0, which the map cannot key */
	bool forget_dead;	/* an_objtab_forget_dead was called */
	void (*on_forget)(struct an_obj *o, void *arg);
	void *forget_arg;
};

int an_objtab_new(struct an_objtab **out)
{
	struct an_objtab *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
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
	fstap_map_release(&t->index);
	free(t);
}

struct an_obj *an_objtab_get(struct an_objtab *t, uint64_t obj)
{
	uint32_t *guess;
	const uint64_t *v;

	if (!obj)
		return t->zero ? &t->objs[t->zero - 1] : NULL;
	guess = &t->recent[obj & (RECENT - 1)];
	if (*guess && *guess <= t->n && t->objs[*guess - 1].obj == obj)
		return &t->objs[*guess - 1];
	v = fstap_map_get(&t->index, obj);
	if (!v)
		return NULL;
	*guess = (uint32_t)*v;
	return &t->objs[*v - 1];
}

struct an_obj *an_objtab_add(struct an_objtab *t, uint64_t obj)
{
	struct an_obj *o = an_objtab_get(t, obj);

	if (o)
		return o;
	if (t->n >= UINT32_MAX - 1)
		return NULL;
	if (FSTAP_GROW(t->objs, t->n + 1, t->cap))
		return NULL;
	if (!obj)
		t->zero = (uint32_t)(t->n + 1);
	else if (fstap_map_put(&t->index, obj, t->n + 1))
		return NULL;
	o = &t->objs[t->n++];
	memset(o, 0, sizeof(*o));
	o->obj = obj;
	if (obj == FSTAP_ROOT_OBJ)
		o->type = AN_OT_DIR;
	return o;
}

void an_objtab_del(struct an_objtab *t, uint64_t obj)
{
	uint64_t v;
	size_t idx;

	if (!obj) {
		if (!t->zero)
			return;
		idx = t->zero - 1;
		t->zero = 0;
	} else if (fstap_map_del(&t->index, obj, &v)) {
		idx = (size_t)v - 1;
	} else {
		return;
	}
	free(t->objs[idx].name);
	/* the last entry fills the hole in the array */
	if (idx != --t->n) {
		uint64_t moved = t->objs[t->n].obj;

		t->objs[idx] = t->objs[t->n];
		if (!moved)
			t->zero = (uint32_t)(idx + 1);
		else
			*fstap_map_get(&t->index, moved) = idx + 1;
	}
}

int an_objtab_name(struct an_objtab *t, uint64_t obj, uint64_t parent, struct fstap_bytes name)
{
	struct an_obj *o = an_objtab_add(t, obj);
	uint8_t *copy;

	if (!o)
		return -ENOMEM;
	if (t->no_names) {
		o->parent = parent;
		return 0;
	}
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

/* pm gives obj its kind: the table takes it as the object's type. */
static int took_kind(void *arg, uint64_t obj, enum fstap_kind kind)
{
	struct an_obj *o = an_objtab_add(arg, obj);

	if (!o)
		return -ENOMEM;
	if (kind)
		o->type = kind == FSTAP_KIND_DIR ? AN_OT_DIR : AN_OT_FILE;
	return 0;
}

/* Types (pm's kinds) and inode numbers (state_inode, else d_ino) from one record. */
static int learn_types(struct an_objtab *t, struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	struct an_obj *o;
	uint32_t i;
	int ret;

	if ((ret = fstap_pathmap_learn_kind(pm, rec, took_kind, t)))
		return ret;
	if (rec->op == FSTAP_OP_STATE_INODE) {
		if (!(o = an_objtab_add(t, rec->obj)))
			return -ENOMEM;
		o->ino = rec->ino;
		o->ino_from_state = true;
	} else if (rec->op == FSTAP_OP_READDIR && rec->result >= 0) {
		for (i = 0; i < rec->nentries; i++) {
			const struct fstap_dirent *e = &rec->entries[i];

			/* took_kind made the entry of each object listed */
			if (e->obj && e->ino && !fstap_name_dots(e->name.ptr, e->name.len) &&
			    (o = an_objtab_get(t, e->obj)) && !o->ino_from_state)
				o->ino = e->ino;
		}
	}
	return 0;
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
			if (!fstap_name_dots(rec->entries[i].name.ptr, rec->entries[i].name.len) &&
			    (ret = take_name(t, pm, rec->entries[i].obj)))
				return ret;
		return 0;
	default:
		return 0;
	}
}

void an_objtab_parents_only(struct an_objtab *t)
{
	t->no_names = true;
}

void an_objtab_forget_dead(struct an_objtab *t, void (*fn)(struct an_obj *o, void *arg), void *arg)
{
	t->forget_dead = true;
	t->on_forget = fn;
	t->forget_arg = arg;
}

/* The pathmap forgets obj: so does the table, after its user's fn. */
static void forgot(void *arg, uint64_t obj)
{
	struct an_objtab *t = arg;
	struct an_obj *o = an_objtab_get(t, obj);

	if (!o)
		return;
	if (t->on_forget)
		t->on_forget(o, t->forget_arg);
	an_objtab_del(t, obj);
}

int an_objtab_apply(struct an_objtab *t, struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint64_t before[2];
	int ret;

	if (t->forget_dead)
		fstap_pathmap_on_forget(pm, forgot, t);
	named_before(pm, rec, before);
	if ((ret = learn_types(t, pm, rec)) || (ret = fstap_pathmap_apply(pm, rec)))
		return ret;
	return take_names(t, pm, rec, before);
}

void an_objtab_each(struct an_objtab *t, void (*fn)(struct an_obj *o, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		fn(&t->objs[i], arg);
}
