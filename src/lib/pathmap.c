/*
 * pathmap.c: the namespace of a trace as it is learned, record by record.
 * Every object keeps the list of its names, (directory, name) pairs; the
 * first one is the one its path uses. Two open-addressing hash tables, one
 * from object id to its node and one from (directory, name) to the name,
 * index two arrays. See pathmap.h for the rules.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fstap/pathmap.h"
#include "fstap/util.h"

#define DT_DIR_TYPE 4	/* d_type of a directory */
#define RENAME_EXCHANGE_FLAG 2

struct pm_name {
	uint64_t obj;
	uint64_t parent;
	char *name;		/* owned, NUL-terminated */
	uint32_t name_len;
	uint32_t next;		/* the object's next name, or the next free one: index + 1 */
	bool linked;		/* in the entry table; false: the last name, removed */
};

struct node {
	uint64_t obj;
	uint32_t names;		/* its first name (index + 1); 0: none known */
	uint32_t open;		/* handles open on it (open, create, opendir less releases) */
	uint32_t kids;		/* names in it (an unlinked one kept as a path included) */
	bool dir;		/* known to be a directory: it has one name */
	bool renamed;		/* a record removed or moved one of its names */
	uint64_t died_ns;	/* when it was last found dead (+ 1), 0: never */
};

/* A dead object waiting for the grace period to pass. */
struct grave {
	uint64_t obj;
	uint64_t died_ns;	/* the node's died_ns when it was queued */
};

struct fstap_pathmap {
	struct node *nodes;
	size_t nnodes, cap_nodes;
	struct pm_name *names;
	size_t nnames, cap_names;	/* slots used, live or on the free list */
	uint32_t free_names;	/* head of the free list (index + 1) */
	uint32_t *by_obj;	/* slot -> node index + 1 */
	uint32_t *by_entry;	/* slot -> name index + 1; 0 empty, TOMB deleted */
	size_t nslots;		/* power of two, > 2 * (max(nnodes, nnames) + ntomb) */
	size_t ntomb;		/* deleted entry slots, cleared by rehash */
	uint64_t *dying;	/* objects that may have died during a record */
	size_t ndying, cap_dying;
	struct grave *graves;	/* dead objects in order of death: [head, ngraves) */
	size_t head, ngraves, cap_graves;
	uint64_t now_ns;	/* the latest start of an operation record */
	void (*on_forget)(void *arg, uint64_t obj);
	void *forget_arg;
	bool oom;		/* a push to dying failed */
};

#define TOMB UINT32_MAX
#define NONE UINT32_MAX

/* Where add_name puts a new name in the object's list. */
enum place { NAME_FIRST, NAME_LAST };

int fstap_pathmap_new(struct fstap_pathmap **out)
{
	struct fstap_pathmap *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return -ENOMEM;
	pm->nslots = 1024;
	pm->by_obj = calloc(pm->nslots, sizeof(uint32_t));
	pm->by_entry = calloc(pm->nslots, sizeof(uint32_t));
	if (!pm->by_obj || !pm->by_entry) {
		fstap_pathmap_free(pm);
		return -ENOMEM;
	}
	*out = pm;
	return 0;
}

void fstap_pathmap_free(struct fstap_pathmap *pm)
{
	size_t i;

	if (!pm)
		return;
	for (i = 0; i < pm->nnames; i++)
		free(pm->names[i].name);
	free(pm->names);
	free(pm->nodes);
	free(pm->by_obj);
	free(pm->by_entry);
	free(pm->dying);
	free(pm->graves);
	free(pm);
}

size_t fstap_pathmap_objects(const struct fstap_pathmap *pm)
{
	return pm->nnodes;
}

void fstap_pathmap_on_forget(struct fstap_pathmap *pm, void (*fn)(void *arg, uint64_t obj),
			     void *arg)
{
	pm->on_forget = fn;
	pm->forget_arg = arg;
}

/* ---- the two tables ----------------------------------------------------- */

static uint32_t find_node(const struct fstap_pathmap *pm, uint64_t obj)
{
	size_t mask = pm->nslots - 1, i = fstap_hash64(obj) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = pm->by_obj[i];

		if (!v)
			return NONE;
		if (pm->nodes[v - 1].obj == obj)
			return v - 1;
	}
}

static bool name_is(const struct pm_name *n, uint64_t parent, const uint8_t *name, uint32_t len)
{
	return n->parent == parent && n->name_len == len && (!len || !memcmp(n->name, name, len));
}

/* The slot of the entry (parent, name), or -1. */
static long find_entry_slot(const struct fstap_pathmap *pm, uint64_t parent,
			    const uint8_t *name, uint32_t len)
{
	size_t mask = pm->nslots - 1, i = fstap_hash_bytes(parent, name, len) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = pm->by_entry[i];

		if (!v)
			return -1;
		if (v != TOMB && name_is(&pm->names[v - 1], parent, name, len))
			return (long)i;
	}
}

/* The name (index) that the entry (parent, name) is, or NONE. */
static uint32_t find_entry(const struct fstap_pathmap *pm, uint64_t parent, struct fstap_bytes name)
{
	long s = find_entry_slot(pm, parent, name.ptr, name.len);

	return s < 0 ? NONE : pm->by_entry[s] - 1;
}

static void insert_obj_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	size_t mask = pm->nslots - 1, i = fstap_hash64(pm->nodes[idx].obj) & mask;

	while (pm->by_obj[i])
		i = (i + 1) & mask;
	pm->by_obj[i] = idx + 1;
}

static void insert_entry_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	struct pm_name *n = &pm->names[idx];
	size_t mask = pm->nslots - 1;
	size_t i = fstap_hash_bytes(n->parent, n->name, n->name_len) & mask;

	while (pm->by_entry[i] && pm->by_entry[i] != TOMB)
		i = (i + 1) & mask;
	pm->by_entry[i] = idx + 1;
	n->linked = true;
}

static void remove_entry_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	struct pm_name *n = &pm->names[idx];
	long s;

	if (!n->linked)
		return;
	s = find_entry_slot(pm, n->parent, (const uint8_t *)n->name, n->name_len);
	if (s >= 0) {
		pm->by_entry[s] = TOMB;
		pm->ntomb++;
	}
	n->linked = false;
}

static int rehash(struct fstap_pathmap *pm)
{
	size_t most = pm->nnodes > pm->nnames ? pm->nnodes : pm->nnames;
	size_t n = pm->nslots, i;
	uint32_t *a, *b;

	while (n < 4 * most + 16)
		n *= 2;
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
	pm->ntomb = 0;
	for (i = 0; i < pm->nnodes; i++)
		insert_obj_slot(pm, (uint32_t)i);
	for (i = 0; i < pm->nnames; i++)
		if (pm->names[i].linked)
			insert_entry_slot(pm, (uint32_t)i);
	return 0;
}

/* Room in both tables for two more nodes (an object and its directory) and one more name. */
static int ensure_room(struct fstap_pathmap *pm)
{
	size_t most = pm->nnodes > pm->nnames ? pm->nnodes : pm->nnames;

	/* Tombstones count as load: rehashing clears them. */
	if (2 * (most + 2 + pm->ntomb) + 8 > pm->nslots)
		return rehash(pm);
	return 0;
}

/* ---- nodes and their lists of names ------------------------------------- */

/* The node of obj, made if new (the tables have room: ensure_room). */
static uint32_t get_node(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t i = find_node(pm, obj);

	if (i != NONE)
		return i;
	if (pm->nnodes >= UINT32_MAX - 2)
		return NONE;
	if (FSTAP_GROW(pm->nodes, pm->nnodes + 1, pm->cap_nodes))
		return NONE;
	i = (uint32_t)pm->nnodes++;
	memset(&pm->nodes[i], 0, sizeof(pm->nodes[i]));
	pm->nodes[i].obj = obj;
	insert_obj_slot(pm, i);
	return i;
}

/* Notes that obj may have died: checked once the record is applied (reap). */
static void maybe_dying(struct fstap_pathmap *pm, uint64_t obj)
{
	if (!obj || obj == FSTAP_ROOT_OBJ)
		return;
	if (FSTAP_GROW(pm->dying, pm->ndying + 1, pm->cap_dying)) {
		pm->oom = true;
		return;
	}
	pm->dying[pm->ndying++] = obj;
}

/*
 * One name more (d > 0) or fewer in directory dir: a directory that holds
 * a name (an open, unlinked file's last one too) lives on. For one more,
 * the tables have room for a node (ensure_room).
 */
static void count_kid(struct fstap_pathmap *pm, uint64_t dir, int d)
{
	uint32_t ni;

	if (!dir || dir == FSTAP_ROOT_OBJ)
		return;
	ni = d > 0 ? get_node(pm, dir) : find_node(pm, dir);
	if (ni == NONE) {
		pm->oom |= d > 0;
		return;
	}
	if (d > 0)
		pm->nodes[ni].kids++;
	else if (pm->nodes[ni].kids && !--pm->nodes[ni].kids)
		maybe_dying(pm, dir);
}

static uint32_t alloc_name(struct fstap_pathmap *pm)
{
	uint32_t i = pm->free_names;

	if (i) {
		pm->free_names = pm->names[i - 1].next;
		return i - 1;
	}
	if (pm->nnames >= UINT32_MAX - 2)
		return NONE;
	if (FSTAP_GROW(pm->names, pm->nnames + 1, pm->cap_names))
		return NONE;
	return (uint32_t)pm->nnames++;
}

static void release_name(struct fstap_pathmap *pm, uint32_t idx)
{
	struct pm_name *n = &pm->names[idx];

	count_kid(pm, n->parent, -1);
	free(n->name);
	memset(n, 0, sizeof(*n));
	n->next = pm->free_names;
	pm->free_names = idx + 1;
}

/* Takes name idx out of its node's list. */
static void list_remove(struct fstap_pathmap *pm, struct node *nd, uint32_t idx)
{
	uint32_t *link = &nd->names;

	while (*link && *link != idx + 1)
		link = &pm->names[*link - 1].next;
	if (*link)
		*link = pm->names[idx].next;
	pm->names[idx].next = 0;
}

static void list_add(struct fstap_pathmap *pm, struct node *nd, uint32_t idx, enum place place)
{
	uint32_t *link = &nd->names;

	if (place == NAME_LAST)
		while (*link)
			link = &pm->names[*link - 1].next;
	pm->names[idx].next = *link;
	*link = idx + 1;
}

/*
 * Removes name idx from the namespace. The object keeps it as its last path
 * (as an open, unlinked file does) if it was its only name.
 */
static void drop_name(struct fstap_pathmap *pm, uint32_t idx)
{
	uint32_t ni = find_node(pm, pm->names[idx].obj);
	struct node *nd = &pm->nodes[ni];

	remove_entry_slot(pm, idx);
	nd->renamed = true;
	if (nd->names == idx + 1 && !pm->names[idx].next) {
		maybe_dying(pm, nd->obj);
		return;
	}
	list_remove(pm, nd, idx);
	release_name(pm, idx);
}

/* Frees the names of node ni that are not in the namespace (or all of them). */
static void drop_names(struct fstap_pathmap *pm, uint32_t ni, bool all)
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

static bool has_linked_name(const struct fstap_pathmap *pm, uint32_t ni)
{
	uint32_t i = ni == NONE ? 0 : pm->nodes[ni].names;

	return i && pm->names[i - 1].linked;	/* a removed name is only ever alone */
}

static void mark_dir(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni = find_node(pm, obj);

	if (ni != NONE)
		pm->nodes[ni].dir = true;
}

static char *copy_name(struct fstap_bytes name)
{
	char *copy = malloc(name.len + 1);

	if (copy && name.len)
		memcpy(copy, name.ptr, name.len);
	if (copy)
		copy[name.len] = '\0';
	return copy;
}

/*
 * Gives obj the name (parent, name), taking it from whatever it named
 * before. A directory has one name: a new one replaces it. place says where
 * the name goes in the object's list (first: paths use it).
 */
static int add_name(struct fstap_pathmap *pm, uint64_t obj, uint64_t parent,
		    struct fstap_bytes name, enum place place, bool dir)
{
	uint32_t old, ni, idx;
	char *copy;

	if (!obj || obj == FSTAP_ROOT_OBJ)
		return 0;
	old = find_entry(pm, parent, name);
	if (old != NONE && pm->names[old].obj == obj) {
		ni = find_node(pm, obj);
		if (place == NAME_FIRST) {
			list_remove(pm, &pm->nodes[ni], old);
			list_add(pm, &pm->nodes[ni], old, NAME_FIRST);
		}
		pm->nodes[ni].dir |= dir;
		return 0;
	}
	if (old != NONE)
		drop_name(pm, old);
	if (ensure_room(pm) || !(copy = copy_name(name)))
		return -ENOMEM;
	if ((ni = get_node(pm, obj)) == NONE || (idx = alloc_name(pm)) == NONE) {
		free(copy);
		return -ENOMEM;
	}
	pm->nodes[ni].dir |= dir;
	drop_names(pm, ni, pm->nodes[ni].dir);
	pm->names[idx] = (struct pm_name){ .obj = obj, .parent = parent, .name = copy,
					   .name_len = name.len };
	insert_entry_slot(pm, idx);
	list_add(pm, &pm->nodes[ni], idx, place);
	count_kid(pm, parent, 1);
	mark_dir(pm, parent);
	return 0;
}

/* Renames name idx to (parent, name) in place: its rank in the list stays. */
static int move_name(struct fstap_pathmap *pm, uint32_t idx, uint64_t parent, struct fstap_bytes name)
{
	char *copy;

	if (ensure_room(pm) || !(copy = copy_name(name)))
		return -ENOMEM;
	count_kid(pm, parent, 1);
	count_kid(pm, pm->names[idx].parent, -1);
	remove_entry_slot(pm, idx);
	free(pm->names[idx].name);
	pm->names[idx].name = copy;
	pm->names[idx].name_len = name.len;
	pm->names[idx].parent = parent;
	insert_entry_slot(pm, idx);
	pm->nodes[find_node(pm, pm->names[idx].obj)].renamed = true;
	mark_dir(pm, parent);
	return 0;
}

/* RENAME_EXCHANGE: names a and b trade places (each object keeps its list). */
static void swap_names(struct fstap_pathmap *pm, uint32_t a, uint32_t b)
{
	struct pm_name *x = &pm->names[a], *y = &pm->names[b];
	uint64_t parent = x->parent;
	char *name = x->name;
	uint32_t len = x->name_len;

	remove_entry_slot(pm, a);
	remove_entry_slot(pm, b);
	x->parent = y->parent;
	x->name = y->name;
	x->name_len = y->name_len;
	y->parent = parent;
	y->name = name;
	y->name_len = len;
	insert_entry_slot(pm, a);
	insert_entry_slot(pm, b);
	pm->nodes[find_node(pm, x->obj)].renamed = true;
	pm->nodes[find_node(pm, y->obj)].renamed = true;
}

/* ---- open handles and dead objects -------------------------------------- */

static int open_handle(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni;

	if (!obj || obj == FSTAP_ROOT_OBJ)
		return 0;
	if (ensure_room(pm) || (ni = get_node(pm, obj)) == NONE)
		return -ENOMEM;
	if (pm->nodes[ni].open < UINT32_MAX)
		pm->nodes[ni].open++;
	return 0;
}

static void close_handle(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni = obj ? find_node(pm, obj) : NONE;

	/* a release without its open (a filtered trace) is ignored */
	if (ni != NONE && pm->nodes[ni].open && !--pm->nodes[ni].open)
		maybe_dying(pm, obj);
}

/*
 * Dead: its last name removed (or none ever known, for a file), no handle
 * open and no name in it; the trace cannot name it again.
 */
static bool dead(const struct fstap_pathmap *pm, uint32_t ni)
{
	const struct node *nd = &pm->nodes[ni];

	if (nd->open || nd->kids)
		return false;
	return nd->names ? !pm->names[nd->names - 1].linked : !nd->dir;
}

/* The slot of obj in by_obj (it is there). */
static size_t obj_slot(const struct fstap_pathmap *pm, uint64_t obj)
{
	size_t mask = pm->nslots - 1, i = fstap_hash64(obj) & mask;

	while (pm->nodes[pm->by_obj[i] - 1].obj != obj)
		i = (i + 1) & mask;
	return i;
}

/* Forgets node ni: its names, its slot (backward shift), its place in the array. */
static void forget(struct fstap_pathmap *pm, uint32_t ni)
{
	size_t mask = pm->nslots - 1, i, j, last;

	if (pm->on_forget)
		pm->on_forget(pm->forget_arg, pm->nodes[ni].obj);
	drop_names(pm, ni, true);
	i = obj_slot(pm, pm->nodes[ni].obj);
	for (j = (i + 1) & mask; pm->by_obj[j]; j = (j + 1) & mask) {
		size_t home = fstap_hash64(pm->nodes[pm->by_obj[j] - 1].obj) & mask;

		/* the entry at j may fill the hole at i if i is on its probe path */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			pm->by_obj[i] = pm->by_obj[j];
			i = j;
		}
	}
	pm->by_obj[i] = 0;
	last = --pm->nnodes;
	if (ni != last) {
		pm->nodes[ni] = pm->nodes[last];
		pm->by_obj[obj_slot(pm, pm->nodes[ni].obj)] = ni + 1;
	}
}

/* Queues the objects that died in the record; 0 or -ENOMEM. */
static int bury(struct fstap_pathmap *pm)
{
	while (pm->ndying) {
		uint32_t ni = find_node(pm, pm->dying[--pm->ndying]);

		if (ni == NONE || !dead(pm, ni))
			continue;
		if (pm->head > pm->ngraves / 2 && pm->head > 1024) {
			memmove(pm->graves, pm->graves + pm->head,
				(pm->ngraves - pm->head) * sizeof(*pm->graves));
			pm->ngraves -= pm->head;
			pm->head = 0;
		}
		if (FSTAP_GROW(pm->graves, pm->ngraves + 1, pm->cap_graves))
			return -ENOMEM;
		pm->nodes[ni].died_ns = pm->now_ns + 1;
		pm->graves[pm->ngraves++] = (struct grave){ pm->nodes[ni].obj, pm->now_ns + 1 };
	}
	if (pm->oom) {
		pm->oom = false;
		return -ENOMEM;
	}
	return 0;
}

/* Forgets the objects dead for longer than the grace period (and still dead). */
static void reap(struct fstap_pathmap *pm)
{
	while (pm->head < pm->ngraves &&
	       pm->graves[pm->head].died_ns - 1 + FSTAP_PATHMAP_GRACE_NS <= pm->now_ns) {
		const struct grave *g = &pm->graves[pm->head++];
		uint32_t ni = find_node(pm, g->obj);

		if (ni != NONE && pm->nodes[ni].died_ns == g->died_ns && dead(pm, ni))
			forget(pm, ni);
	}
	if (pm->head == pm->ngraves)
		pm->head = pm->ngraves = 0;
}

/* ---- learning from records ---------------------------------------------- */

uint64_t fstap_pathmap_lookup(const struct fstap_pathmap *pm, uint64_t dir, struct fstap_bytes name)
{
	uint32_t i = find_entry(pm, dir, name);

	return i == NONE ? 0 : pm->names[i].obj;
}

int fstap_pathmap_name(const struct fstap_pathmap *pm, uint64_t obj, uint64_t *parent,
		       struct fstap_bytes *name)
{
	uint32_t ni = obj ? find_node(pm, obj) : NONE;
	const struct pm_name *n;

	if (ni == NONE || !pm->nodes[ni].names)
		return -ENOENT;
	n = &pm->names[pm->nodes[ni].names - 1];
	*parent = n->parent;
	*name = (struct fstap_bytes){ (const uint8_t *)n->name, n->name_len };
	return n->linked;
}

static bool dot_name(struct fstap_bytes name)
{
	return (name.len == 1 && name.ptr[0] == '.') ||
	       (name.len == 2 && !memcmp(name.ptr, "..", 2));
}

/*
 * An initial name: state records may come after operation records that
 * changed the object's names (format section 10); such a late name must not
 * bring back a name the trace removed, nor take one it gave away.
 */
static int apply_state_dentry(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t ni = rec->child ? find_node(pm, rec->child) : NONE;

	if (find_entry(pm, rec->obj, rec->name) != NONE)
		return 0;
	if (ni != NONE && pm->nodes[ni].names && (pm->nodes[ni].renamed || pm->nodes[ni].dir))
		return 0;
	return add_name(pm, rec->child, rec->obj, rec->name, NAME_LAST, false);
}

/* Entries name objects the trace may never look up. */
static int apply_entries(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t i;

	for (i = 0; i < rec->nentries; i++) {
		const struct fstap_dirent *e = &rec->entries[i];
		bool dir = e->type == DT_DIR_TYPE;
		uint32_t ni;
		int ret;

		if (!e->obj || dot_name(e->name))
			continue;
		ni = find_node(pm, e->obj);
		if (has_linked_name(pm, ni) && (dir || pm->nodes[ni].dir))
			continue;	/* a directory keeps the name it has */
		ret = add_name(pm, e->obj, rec->obj, e->name,
			       has_linked_name(pm, ni) ? NAME_LAST : NAME_FIRST, dir);
		if (ret)
			return ret;
	}
	return 0;
}

static int apply_rename(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t a = find_entry(pm, rec->obj, rec->name);
	uint32_t b = find_entry(pm, rec->newparent, rec->newname);

	if (rec->flags_arg & RENAME_EXCHANGE_FLAG) {
		if (a != NONE && b != NONE)
			swap_names(pm, a, b);
		else if (a != NONE)
			return move_name(pm, a, rec->newparent, rec->newname);
		else if (b != NONE)
			return move_name(pm, b, rec->obj, rec->name);
		return 0;
	}
	if (a == NONE) {
		if (b != NONE)
			drop_name(pm, b);
		return 0;
	}
	if (b != NONE) {
		if (pm->names[b].obj == pm->names[a].obj)
			return 0;	/* two names of one object: rename does nothing */
		drop_name(pm, b);
	}
	return move_name(pm, a, rec->newparent, rec->newname);
}

static int apply_link(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t ni = find_node(pm, rec->obj);

	/* A new name goes after the ones the object has: its path stays. */
	return add_name(pm, rec->obj, rec->newparent, rec->newname,
			has_linked_name(pm, ni) ? NAME_LAST : NAME_FIRST, false);
}

static int apply_state_inode(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t ni;

	if (!S_ISDIR(rec->mode) || !rec->obj || rec->obj == FSTAP_ROOT_OBJ)
		return 0;
	if (ensure_room(pm) || (ni = get_node(pm, rec->obj)) == NONE)
		return -ENOMEM;
	pm->nodes[ni].dir = true;
	return 0;
}

static int apply_one(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t i;
	int ret;

	switch (rec->op) {
	case FSTAP_OP_STATE_INODE:
		return apply_state_inode(pm, rec);
	case FSTAP_OP_STATE_DENTRY:
		return apply_state_dentry(pm, rec);
	case FSTAP_OP_CREATE:
		ret = add_name(pm, rec->child, rec->obj, rec->name, NAME_FIRST, false);
		return ret ? ret : open_handle(pm, rec->child);
	case FSTAP_OP_OPEN:
	case FSTAP_OP_OPENDIR:
		return open_handle(pm, rec->obj);
	case FSTAP_OP_RELEASE:
	case FSTAP_OP_RELEASEDIR:
		close_handle(pm, rec->obj);
		return 0;
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
		/* The name the request went through: paths use it from now on. */
		return add_name(pm, rec->child, rec->obj, rec->name, NAME_FIRST, false);
	case FSTAP_OP_MKDIR:
		return add_name(pm, rec->child, rec->obj, rec->name, NAME_FIRST, true);
	case FSTAP_OP_LINK:
		return apply_link(pm, rec);
	case FSTAP_OP_READDIR:
		return apply_entries(pm, rec);
	case FSTAP_OP_UNLINK:
	case FSTAP_OP_RMDIR:
		if ((i = find_entry(pm, rec->obj, rec->name)) != NONE)
			drop_name(pm, i);
		return 0;
	case FSTAP_OP_RENAME:
		return apply_rename(pm, rec);
	default:
		return 0;
	}
}

int fstap_pathmap_apply(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	int ret;

	if (!fstap_op_is_meta(rec->op) && rec->start_ns > pm->now_ns)
		pm->now_ns = rec->start_ns;
	if (pm->head < pm->ngraves)
		reap(pm);
	ret = rec->result < 0 ? 0 : apply_one(pm, rec);
	if (pm->ndying || pm->oom) {
		int r2 = bury(pm);

		ret = ret ? ret : r2;
	}
	return ret;
}

/* ---- paths -------------------------------------------------------------- */

/* Writes the path of obj right-aligned ending at buf+end; returns its start or -1. */
static long build(const struct fstap_pathmap *pm, uint64_t obj, char *buf, size_t end)
{
	size_t depth = 0;

	if (obj == FSTAP_ROOT_OBJ)
		return (long)end;	/* the root contributes "" before "/name" */
	while (obj != FSTAP_ROOT_OBJ) {
		uint32_t ni = find_node(pm, obj);
		const struct pm_name *n = ni != NONE && pm->nodes[ni].names ?
					  &pm->names[pm->nodes[ni].names - 1] : NULL;

		if (!n || !n->parent) {
			char tmp[32];
			int k = snprintf(tmp, sizeof(tmp), "<obj:%llu>", (unsigned long long)obj);

			if ((size_t)k > end)
				return -1;
			end -= (size_t)k;
			memcpy(buf + end, tmp, (size_t)k);
			return (long)end;
		}
		if (n->name_len + 1 > end || ++depth > 65536)
			return -1;
		end -= n->name_len;
		memcpy(buf + end, n->name, n->name_len);
		buf[--end] = '/';
		obj = n->parent;
	}
	return (long)end;
}

static int finish(char *buf, size_t cap, long start, size_t end)
{
	size_t len;

	if (start < 0)
		return -ENAMETOOLONG;
	len = end - (size_t)start;
	if (len == 0) {
		buf[0] = '/';
		buf[1] = '\0';
		return 1;
	}
	memmove(buf, buf + start, len);
	buf[len] = '\0';
	return (int)len;
}

int fstap_pathmap_path(const struct fstap_pathmap *pm, uint64_t obj, char *buf, size_t cap)
{
	if (cap < 2)
		return -ENAMETOOLONG;
	return finish(buf, cap, build(pm, obj, buf, cap - 1), cap - 1);
}

int fstap_pathmap_entry_path(const struct fstap_pathmap *pm, uint64_t dir,
			     struct fstap_bytes name, char *buf, size_t cap)
{
	size_t end = cap - 1;

	if (cap < name.len + 3)
		return -ENAMETOOLONG;
	end -= name.len;
	if (name.len)
		memcpy(buf + end, name.ptr, name.len);
	buf[--end] = '/';
	return finish(buf, cap, build(pm, dir, buf, end), cap - 1);
}
