/*
 * pathmap_table.c: the store of a pathmap (pathmap_i.h): the two hash
 * tables (object id -> node, (directory, name) -> name) and their growth,
 * the nodes, and each object's list of names with the changes a record
 * makes to it: a name added first or last, dropped, moved, or two traded.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/pathmap_i.h"

/* ---- the two tables ----------------------------------------------------- */

static void insert_obj_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	size_t mask = pm->nslots - 1, i = fstap_id_home(pm->nodes[idx].obj, mask);

	while (pm->by_obj[i])
		i = (i + FSTAP_ID_STEP) & mask;
	pm->by_obj[i] = idx + 1;
}

static void insert_entry_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	struct pm_name *n = &pm->names[idx];
	size_t mask = pm->nslots - 1, i = pm_entry_home(pm, n);

	while (pm->by_entry[i])
		i = (i + 1) & mask;
	pm->by_entry[i] = idx + 1;
	n->linked = true;
}

static void remove_entry_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	struct pm_name *n = &pm->names[idx];
	size_t mask = pm->nslots - 1, i, j;

	if (!n->linked)
		return;
	n->linked = false;
	for (i = pm_entry_home(pm, n); pm->by_entry[i] != idx + 1; i = (i + 1) & mask)
		if (!pm->by_entry[i])
			return;
	/* backward shift, as by_obj: no tombstones, so deaths never grow the table */
	for (j = (i + 1) & mask; pm->by_entry[j]; j = (j + 1) & mask) {
		size_t home = pm_entry_home(pm, &pm->names[pm->by_entry[j] - 1]);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			pm->by_entry[i] = pm->by_entry[j];
			i = j;
		}
	}
	pm->by_entry[i] = 0;
}

static int rehash(struct fstap_pathmap *pm)
{
	size_t most = pm->nnodes > pm->nnames ? pm->nnodes : pm->nnames;
	size_t n = fstap_grow_size(pm->nslots, 4 * most + 16, 16), i;
	uint32_t *a, *b;

	if (!n)
		return -ENOMEM;
	a = calloc(n, sizeof(uint32_t));
	b = calloc(n, sizeof(uint32_t));
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	free(pm->by_obj);
	free(pm->by_entry);
	pm->by_obj = a;
	pm->by_entry = b;
	pm->nslots = n;
	for (i = 0; i < pm->nnodes; i++)
		insert_obj_slot(pm, (uint32_t)i);
	for (i = 0; i < pm->nnames; i++)
		if (pm->names[i].linked)
			insert_entry_slot(pm, (uint32_t)i);
	return 0;
}

int pm_ensure_room(struct fstap_pathmap *pm)
{
	size_t most = pm->nnodes > pm->nnames ? pm->nnodes : pm->nnames;

	if (2 * (most + 2) + 8 > pm->nslots)
		return rehash(pm);
	return 0;
}

/* ---- nodes and their lists of names ------------------------------------- */

uint32_t pm_get_node(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t i = pm_find_node(pm, obj);

	if (i != PM_NONE)
		return pm->found = i;
	if (pm->nnodes >= UINT32_MAX - 2)
		return PM_NONE;
	if (FSTAP_GROW(pm->nodes, pm->nnodes + 1, pm->cap_nodes))
		return PM_NONE;
	i = (uint32_t)pm->nnodes++;
	memset(&pm->nodes[i], 0, sizeof(pm->nodes[i]));
	pm->nodes[i].obj = obj;
	insert_obj_slot(pm, i);
	return pm->found = i;
}

/* The slot of obj in by_obj (it is there). */
static size_t obj_slot(const struct fstap_pathmap *pm, uint64_t obj)
{
	size_t mask = pm->nslots - 1, i = fstap_id_home(obj, mask);

	while (pm->nodes[pm->by_obj[i] - 1].obj != obj)
		i = (i + FSTAP_ID_STEP) & mask;
	return i;
}

void pm_remove_node(struct fstap_pathmap *pm, uint32_t ni)
{
	size_t mask = pm->nslots - 1, i, j, last;

	/* the slot goes by backward shift, the node by moving the last one in */
	i = obj_slot(pm, pm->nodes[ni].obj);
	for (j = (i + FSTAP_ID_STEP) & mask; pm->by_obj[j]; j = (j + FSTAP_ID_STEP) & mask) {
		size_t home = fstap_id_home(pm->nodes[pm->by_obj[j] - 1].obj, mask);

		/* the entry at j may fill the hole at i if i is on its probe path */
		if (fstap_id_dist(home, j, mask) >= fstap_id_dist(i, j, mask)) {
			pm->by_obj[i] = pm->by_obj[j];
			i = j;
		}
	}
	pm->by_obj[i] = 0;
	last = --pm->nnodes;
	if (ni != last) {
		pm->nodes[ni] = pm->nodes[last];
		pm->by_obj[obj_slot(pm, pm->nodes[ni].obj)] = ni + 1;
		if (pm->nodes[ni].buried)
			pm_grave_moved(pm, ni);
	}
}

/*
 * One name more (d > 0) or fewer in directory dir: a directory that holds
 * a name (an open, unlinked file's last one too) lives on. For one more,
 * the tables have room for a node (pm_ensure_room).
 */
static void count_kid(struct fstap_pathmap *pm, uint64_t dir, int d)
{
	uint32_t ni;

	if (!dir || dir == FSTAP_ROOT_OBJ)
		return;
	ni = d > 0 ? pm_get_node(pm, dir) : pm_find_node(pm, dir);
	if (ni == PM_NONE) {
		pm->oom |= d > 0;
		return;
	}
	if (d > 0)
		pm->nodes[ni].kids++;
	else if (pm->nodes[ni].kids && !--pm->nodes[ni].kids)
		pm_maybe_dying(pm, dir);
}

static uint32_t alloc_name(struct fstap_pathmap *pm)
{
	uint32_t i = pm->free_names;

	if (i) {
		pm->free_names = pm->names[i - 1].next;
		return i - 1;
	}
	if (pm->nnames >= UINT32_MAX - 2)
		return PM_NONE;
	if (FSTAP_GROW(pm->names, pm->nnames + 1, pm->cap_names))
		return PM_NONE;
	return (uint32_t)pm->nnames++;
}

static void release_name(struct fstap_pathmap *pm, uint32_t idx)
{
	struct pm_name *n = &pm->names[idx];

	count_kid(pm, n->parent, -1);
	pm_free_name(n);
	memset(n, 0, sizeof(*n));
	n->next = pm->free_names;
	pm->free_names = idx + 1;
}

/* Takes name idx out of its node's list. */
static void list_remove(struct fstap_pathmap *pm, struct pm_node *nd, uint32_t idx)
{
	uint32_t *link = &nd->names;

	while (*link && *link != idx + 1)
		link = &pm->names[*link - 1].next;
	if (*link)
		*link = pm->names[idx].next;
	pm->names[idx].next = 0;
}

static void list_add(struct fstap_pathmap *pm, struct pm_node *nd, uint32_t idx,
		     enum pm_place place)
{
	uint32_t *link = &nd->names;

	if (place == PM_NAME_LAST)
		while (*link)
			link = &pm->names[*link - 1].next;
	pm->names[idx].next = *link;
	*link = idx + 1;
}

void pm_drop_name(struct fstap_pathmap *pm, uint32_t idx)
{
	uint32_t ni = pm_find_node(pm, pm->names[idx].obj);
	struct pm_node *nd = &pm->nodes[ni];

	remove_entry_slot(pm, idx);
	nd->renamed = true;
	if (nd->names == idx + 1 && !pm->names[idx].next) {
		pm_maybe_dying(pm, nd->obj);
		return;
	}
	list_remove(pm, nd, idx);
	release_name(pm, idx);
}

void pm_drop_names(struct fstap_pathmap *pm, uint32_t ni, bool all)
{
	uint32_t i = pm->nodes[ni].names;

	while (i) {
		uint32_t next = pm->names[i - 1].next;

		if (all || !pm->names[i - 1].linked) {
			remove_entry_slot(pm, i - 1);
			list_remove(pm, &pm->nodes[ni], i - 1);
			release_name(pm, i - 1);
		}
		i = next;
	}
}

bool pm_has_linked_name(const struct fstap_pathmap *pm, uint32_t ni)
{
	uint32_t i = ni == PM_NONE ? 0 : pm->nodes[ni].names;

	return i && pm->names[i - 1].linked;	/* a removed name is only ever alone */
}

static void mark_dir(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni = pm_find_node(pm, obj);

	if (ni != PM_NONE)
		pm->nodes[ni].dir = true;
}

int pm_set_name(struct pm_name *n, struct fstap_bytes name)
{
	char *p = n->inl;

	if (name.len >= PM_INLINE && !(p = malloc(name.len + 1)))
		return -ENOMEM;
	pm_free_name(n);
	if (name.len)
		memcpy(p, name.ptr, name.len);
	p[name.len] = '\0';
	if (name.len >= PM_INLINE)
		n->heap = p;
	n->name_len = name.len;
	return 0;
}

void pm_free_name(struct pm_name *n)
{
	if (n->name_len >= PM_INLINE)
		free(n->heap);
	n->name_len = 0;
	n->inl[0] = '\0';
}

/* Moves the name of src (which is left empty) and its hash into dst (whose own is freed). */
static void take_name(struct pm_name *dst, struct pm_name *src)
{
	pm_free_name(dst);
	memcpy(dst->inl, src->inl, PM_INLINE);
	dst->name_len = src->name_len;
	dst->hash = src->hash;
	src->name_len = 0;
}

int pm_add_name(struct fstap_pathmap *pm, uint64_t obj, uint64_t parent,
		struct fstap_bytes name, enum pm_place place, bool dir)
{
	struct pm_name copy = { .obj = obj, .parent = parent,
				.hash = pm_entry_hash(parent, name.ptr, name.len) };
	uint32_t old, ni, idx;
	long slot;

	if (!obj || obj == FSTAP_ROOT_OBJ)
		return 0;
	slot = pm_find_entry_slot(pm, parent, name.ptr, name.len, copy.hash);
	old = slot < 0 ? PM_NONE : pm->by_entry[slot] - 1;
	if (old != PM_NONE && pm->names[old].obj == obj) {
		ni = pm_find_node(pm, obj);
		if (place == PM_NAME_FIRST) {
			list_remove(pm, &pm->nodes[ni], old);
			list_add(pm, &pm->nodes[ni], old, PM_NAME_FIRST);
		}
		pm->nodes[ni].dir |= dir;
		return 0;
	}
	if (old != PM_NONE)
		pm_drop_name(pm, old);
	if (pm_ensure_room(pm) || pm_set_name(&copy, name))
		return -ENOMEM;
	if ((ni = pm_get_node(pm, obj)) == PM_NONE || (idx = alloc_name(pm)) == PM_NONE) {
		pm_free_name(&copy);
		return -ENOMEM;
	}
	pm->nodes[ni].dir |= dir;
	pm_drop_names(pm, ni, pm->nodes[ni].dir);
	pm->names[idx] = copy;
	insert_entry_slot(pm, idx);
	list_add(pm, &pm->nodes[ni], idx, place);
	count_kid(pm, parent, 1);
	mark_dir(pm, parent);
	return 0;
}

int pm_move_name(struct fstap_pathmap *pm, uint32_t idx, uint64_t parent, struct fstap_bytes name)
{
	struct pm_name copy = { .hash = pm_entry_hash(parent, name.ptr, name.len) };

	if (pm_ensure_room(pm) || pm_set_name(&copy, name))
		return -ENOMEM;
	count_kid(pm, parent, 1);
	count_kid(pm, pm->names[idx].parent, -1);
	remove_entry_slot(pm, idx);
	take_name(&pm->names[idx], &copy);
	pm->names[idx].parent = parent;
	insert_entry_slot(pm, idx);
	pm->nodes[pm_find_node(pm, pm->names[idx].obj)].renamed = true;
	mark_dir(pm, parent);
	return 0;
}

void pm_swap_names(struct fstap_pathmap *pm, uint32_t a, uint32_t b)
{
	struct pm_name *x = &pm->names[a], *y = &pm->names[b];
	struct pm_name t = { .parent = x->parent };

	remove_entry_slot(pm, a);
	remove_entry_slot(pm, b);
	take_name(&t, x);
	x->parent = y->parent;
	take_name(x, y);
	y->parent = t.parent;
	take_name(y, &t);
	insert_entry_slot(pm, a);
	insert_entry_slot(pm, b);
	pm->nodes[pm_find_node(pm, x->obj)].renamed = true;
	pm->nodes[pm_find_node(pm, y->obj)].renamed = true;
}
