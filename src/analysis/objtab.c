/*
 * objtab.c: what the analysis commands know about each object of a trace
 * besides its place in the namespace: its inode number and a member per
 * command (counters, positions, a pointer). A map from object id to an
 * index into one array of entries. The namespace (names, parents, kinds)
 * is the pathmap's alone, the one export and replay read. Fed records in
 * time order with the pathmap (an_objtab_apply), the table can forget the
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
	if (!t)
		return;
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

/* The inode numbers of one record: state_inode's, else a readdir entry's d_ino. */
static int learn_inos(struct an_objtab *t, const struct fstap_rec *rec)
{
	struct an_obj *o;
	uint32_t i;

	if (rec->op == FSTAP_OP_STATE_INODE) {
		if (!(o = an_objtab_add(t, rec->obj)))
			return -ENOMEM;
		o->ino = rec->ino;
		o->ino_from_state = true;
	} else if (rec->op == FSTAP_OP_READDIR && rec->result >= 0) {
		for (i = 0; i < rec->nentries; i++) {
			const struct fstap_dirent *e = &rec->entries[i];

			if (!e->obj || !e->ino || fstap_name_dots(e->name.ptr, e->name.len))
				continue;
			if (!(o = an_objtab_add(t, e->obj)))
				return -ENOMEM;
			if (!o->ino_from_state)
				o->ino = e->ino;
		}
	}
	return 0;
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
	int ret;

	if (t->forget_dead)
		fstap_pathmap_on_forget(pm, forgot, t);
	if ((ret = fstap_pathmap_learn_kind(pm, rec, NULL, NULL)) || (ret = learn_inos(t, rec)))
		return ret;
	return fstap_pathmap_apply(pm, rec);
}

void an_objtab_each(struct an_objtab *t, void (*fn)(struct an_obj *o, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		fn(&t->objs[i], arg);
}
