/*
 * objtab.c: what the analysis commands know about each object of a trace
 * besides its place in the namespace: its inode number and a member per
 * command (counters, positions, a pointer). A map from object id to an
 * index into one array of entries. The namespace (names, parents, kinds)
 * is the pathmap's alone, the one export and replay read. Fed records in
 * time order with the pathmap (an_objtab_apply), the table can forget the
 * objects the pathmap forgets (an_objtab_forget_dead), so that its memory
 * follows the objects alive, not the trace's length, and keep the dead of
 * the grace period whose entries hold nothing of their own as ids alone
 * (an_objtab_settle_dead).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "fstap/name.h"
#include "fstap/pathmap.h"
#include "fstap/util.h"

#define RECENT 64		/* a power of two */

struct an_objtab {
	struct an_obj *objs;
	size_t n, cap;
	struct fstap_map index;	/* obj -> index + 1; 0: settled, no entry */
	/*
	 * obj -> index + 1 of objects found lately, in slot obj % RECENT: a
	 * record names the same few objects several times. A slot is a guess,
	 * right when the entry at that index is obj's.
	 */
	uint32_t recent[RECENT];
	uint32_t zero;		/* index + 1 of object 0, which the map cannot key */
	bool forget_dead;	/* an_objtab_forget_dead was called */
	struct fstap_pathmap *hooked;	/* the pathmap whose hooks are the table's */
	void (*on_forget)(struct an_obj *o, void *arg);
	void *forget_arg;
	const struct an_obj *bare;	/* what a settled entry holds; NULL: none settle */
	bool (*is_bare)(const struct an_obj *o);
	bool oom;		/* bringing a settled entry back failed */
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

/* A new entry at the end of the array, for obj: a copy of *from. NULL on ENOMEM. */
static struct an_obj *append(struct an_objtab *t, uint64_t obj, const struct an_obj *from)
{
	struct an_obj *o;

	if (t->n >= UINT32_MAX - 1 || FSTAP_GROW(t->objs, t->n + 1, t->cap))
		return NULL;
	o = &t->objs[t->n++];
	*o = *from;
	o->obj = obj;
	return o;
}

/*
 * The entry of obj if the guess in its slot of recent is right, else
 * NULL: the way of most calls, without a frame.
 */
static inline struct an_obj *guessed(struct an_objtab *t, uint64_t obj)
{
	uint32_t g = t->recent[obj & (RECENT - 1)];

	return g && g <= t->n && t->objs[g - 1].obj == obj ? &t->objs[g - 1] : NULL;
}

/*
 * The index + 1 of the entry of obj (not 0) from the map, a settled one
 * brought back, and guessed next time; 0: none; -ENOMEM: a settled one
 * could not be brought back.
 */
static long find(struct an_objtab *t, uint64_t obj)
{
	uint64_t *v = fstap_map_get(&t->index, obj);

	if (!v)
		return 0;
	if (!*v) {
		if (!append(t, obj, t->bare)) {
			t->oom = true;
			return -ENOMEM;
		}
		*v = t->n;
	}
	t->recent[obj & (RECENT - 1)] = (uint32_t)*v;
	return (long)*v;
}

/* an_objtab_get when the guess is wrong (apart: the guessed way needs no frame). */
static struct an_obj *__attribute__((noinline)) get_unguessed(struct an_objtab *t, uint64_t obj)
{
	long idx;

	if (!obj)
		return t->zero ? &t->objs[t->zero - 1] : NULL;
	idx = find(t, obj);
	return idx > 0 ? &t->objs[idx - 1] : NULL;
}

struct an_obj *an_objtab_get(struct an_objtab *t, uint64_t obj)
{
	struct an_obj *o = guessed(t, obj);

	return o ? o : get_unguessed(t, obj);
}

/* an_objtab_add when the guess is wrong (apart: the guessed way needs no frame). */
static struct an_obj *__attribute__((noinline)) add_unguessed(struct an_objtab *t, uint64_t obj)
{
	static const struct an_obj zero;
	struct an_obj *o;
	long idx;

	if (!obj) {
		if (t->zero)
			return &t->objs[t->zero - 1];
		if (!(o = append(t, obj, &zero)))
			return NULL;
		t->zero = (uint32_t)t->n;
		return o;
	}
	idx = find(t, obj);
	if (idx)
		return idx > 0 ? &t->objs[idx - 1] : NULL;
	if (!(o = append(t, obj, &zero)))
		return NULL;
	if (fstap_map_put(&t->index, obj, t->n)) {
		t->n--;
		return NULL;
	}
	t->recent[obj & (RECENT - 1)] = (uint32_t)t->n;
	return o;
}

struct an_obj *an_objtab_add(struct an_objtab *t, uint64_t obj)
{
	struct an_obj *o = guessed(t, obj);

	return o ? o : add_unguessed(t, obj);
}

/* The last entry fills the hole that entry idx leaves in the array. */
static void fill_hole(struct an_objtab *t, size_t idx)
{
	if (idx != --t->n) {
		uint64_t moved = t->objs[t->n].obj;

		t->objs[idx] = t->objs[t->n];
		if (!moved)
			t->zero = (uint32_t)(idx + 1);
		else
			*fstap_map_get(&t->index, moved) = idx + 1;
	}
}

void an_objtab_del(struct an_objtab *t, uint64_t obj)
{
	uint64_t v;

	if (!obj) {
		if (t->zero) {
			v = t->zero;
			t->zero = 0;
			fill_hole(t, (size_t)v - 1);
		}
	} else if (fstap_map_del(&t->index, obj, &v) && v) {
		fill_hole(t, (size_t)v - 1);
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
	const uint64_t *v = fstap_map_get(&t->index, obj);
	struct an_obj settled;

	if (!v)
		return;
	if (*v) {
		if (t->on_forget)
			t->on_forget(&t->objs[*v - 1], t->forget_arg);
		an_objtab_del(t, obj);
		return;
	}
	if (t->on_forget) {
		settled = *t->bare;
		settled.obj = obj;
		t->on_forget(&settled, t->forget_arg);
	}
	fstap_map_del(&t->index, obj, NULL);
}

/* The pathmap finds obj dead: its entry is settled if bare. */
static void died(void *arg, uint64_t obj)
{
	struct an_objtab *t = arg;
	uint64_t *v = fstap_map_get(&t->index, obj);
	size_t idx;

	if (!v || !*v || !t->is_bare(&t->objs[*v - 1]))
		return;
	idx = (size_t)*v - 1;
	*v = 0;
	fill_hole(t, idx);
}

void an_objtab_settle_dead(struct an_objtab *t, const struct an_obj *bare,
			   bool (*is_bare)(const struct an_obj *o))
{
	t->bare = bare;
	t->is_bare = is_bare;
	/* an_objtab_apply took the hooks already: it will not again */
	if (t->hooked)
		fstap_pathmap_on_death(t->hooked, bare ? died : NULL, t);
}

int an_objtab_apply(struct an_objtab *t, struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	int ret;

	if (t->forget_dead && t->hooked != pm) {
		fstap_pathmap_on_forget(pm, forgot, t);
		if (t->bare)
			fstap_pathmap_on_death(pm, died, t);
		t->hooked = pm;
	}
	if (t->oom) {
		t->oom = false;
		return -ENOMEM;
	}
	if ((ret = fstap_pathmap_learn_kind(pm, rec, NULL, NULL)) || (ret = learn_inos(t, rec)))
		return ret;
	return fstap_pathmap_apply(pm, rec);
}

void an_objtab_each(struct an_objtab *t, void (*fn)(struct an_obj *o, void *arg), void *arg)
{
	struct an_obj settled;
	uint64_t obj, v;
	size_t i, pos = 0;

	for (i = 0; i < t->n; i++)
		fn(&t->objs[i], arg);
	while (t->bare && fstap_map_next(&t->index, &pos, &obj, &v)) {
		if (!v) {
			settled = *t->bare;
			settled.obj = obj;
			fn(&settled, arg);
		}
	}
}
