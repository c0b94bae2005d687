/*
 * pathmap_i.h: the inside of struct fstap_pathmap (fstap/pathmap.h). Every
 * object keeps the list of its names, (directory, name) pairs; the first
 * one is the one its path uses. Two open-addressing hash tables, one from
 * object id to its node and one from (directory, name) to the name, index
 * two arrays. The dead waiting for the grace period to pass are a queue
 * linked through their nodes, so that a death costs no memory of its own.
 * The store of nodes and names is pathmap_table.c; open
 * handles, deaths and forgetting are pathmap_forget.c; pathmap.c learns
 * from records and builds paths.
 *
 * Not a public API: src/lib/pathmap*.c include this.
 */
#ifndef FSTAP_LIB_PATHMAP_I_H
#define FSTAP_LIB_PATHMAP_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fstap/pathmap.h"
#include "fstap/util.h"

#define PM_INLINE 16	/* a name shorter than this is kept in its pm_name */

struct pm_name {
	uint64_t obj;
	uint64_t parent;
	union {			/* NUL-terminated: pm_name_str */
		char *heap;		/* name_len >= PM_INLINE: owned */
		char inl[PM_INLINE];	/* shorter */
	};
	uint32_t name_len;
	uint32_t next;		/* the object's next name, or the next free one: index + 1 */
	uint32_t hash;		/* of (parent, name), pm_entry_hash: its home in the entry table */
	bool linked;		/* in the entry table; false: the last name, removed */
};

struct pm_node {
	uint64_t obj;
	uint64_t died_ns;	/* when it was last found dead (+ 1), 0: never */
	uint32_t names;		/* its first name (index + 1); 0: none known */
	uint32_t open;		/* handles open on it (open, create, opendir less releases) */
	uint32_t kids;		/* names in it (an unlinked one kept as a path included) */
	uint32_t grave_prev;	/* buried: the nodes queued before and after it (index + 1) */
	uint32_t grave_next;
	bool dir;		/* known to be a directory: it has one name */
	bool renamed;		/* a record removed or moved one of its names */
	uint8_t kind;		/* enum fstap_kind */
	bool buried;		/* queued at its latest death, waiting for the grace period */
};

struct fstap_pathmap {
	struct pm_node *nodes;
	size_t nnodes, cap_nodes;
	struct pm_name *names;
	size_t nnames, cap_names;	/* slots used, live or on the free list */
	uint32_t free_names;	/* head of the free list (index + 1) */
	uint32_t *by_obj;	/* slot -> node index + 1 */
	uint32_t *by_entry;	/* slot -> name index + 1; 0 empty */
	size_t nslots;		/* power of two, > 2 * max(nnodes, nnames) */
	uint64_t *dying;	/* objects that may have died during a record */
	size_t ndying, cap_dying;
	uint32_t grave_first;	/* the buried nodes in order of death (index + 1; 0: none) */
	uint32_t grave_last;
	uint64_t now_ns;	/* the latest start of an operation record */
	/*
	 * The node made or looked up by pm_get_node last, a guess that
	 * pm_find_node tries first: a record names the same object several
	 * times (its kind, its handle, its name). Right when that node's obj
	 * is the one looked for.
	 */
	uint32_t found;
	void (*on_forget)(void *arg, uint64_t obj);
	void *forget_arg;
	void (*on_death)(void *arg, uint64_t obj);
	void *death_arg;
	bool oom;		/* a push to dying failed */
};

#define PM_NONE UINT32_MAX

/* Where pm_add_name puts a new name in the object's list. */
enum pm_place { PM_NAME_FIRST, PM_NAME_LAST };

/* ---- looking up the two tables ------------------------------------------- */

/* The node (index) of obj, or PM_NONE. */
static inline uint32_t pm_find_node(const struct fstap_pathmap *pm, uint64_t obj)
{
	size_t mask = pm->nslots - 1, i;

	if (pm->found < pm->nnodes && pm->nodes[pm->found].obj == obj)
		return pm->found;
	for (i = fstap_id_home(obj, mask);; i = (i + FSTAP_ID_STEP) & mask) {
		uint32_t v = pm->by_obj[i];

		if (!v)
			return PM_NONE;
		if (pm->nodes[v - 1].obj == obj)
			return v - 1;
	}
}

static inline const char *pm_name_str(const struct pm_name *n)
{
	return n->name_len < PM_INLINE ? n->inl : n->heap;
}

static inline bool pm_name_is(const struct pm_name *n, uint64_t parent, const uint8_t *name,
			      uint32_t len)
{
	return n->parent == parent && n->name_len == len &&
	       (!len || !memcmp(pm_name_str(n), name, len));
}

/*
 * The hash of the entry (parent, name), kept in its pm_name: the table's
 * slots are found, moved and rehashed without hashing names again. 32 bits:
 * a table of more than 2^32 slots hashes the names (pm_entry_home).
 */
static inline uint32_t pm_entry_hash(uint64_t parent, const uint8_t *name, uint32_t len)
{
	return (uint32_t)fstap_hash_bytes(parent, name, len);
}

static inline size_t pm_entry_home(const struct fstap_pathmap *pm, const struct pm_name *n)
{
	size_t mask = pm->nslots - 1;

	if (mask > UINT32_MAX)
		return fstap_hash_bytes(n->parent, pm_name_str(n), n->name_len) & mask;
	return n->hash & mask;
}

/* The slot of the entry (parent, name) of hash h (pm_entry_hash), or -1. */
static inline long pm_find_entry_slot(const struct fstap_pathmap *pm, uint64_t parent,
				      const uint8_t *name, uint32_t len, uint32_t h)
{
	size_t mask = pm->nslots - 1;
	size_t i = mask > UINT32_MAX ? fstap_hash_bytes(parent, name, len) & mask : h & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = pm->by_entry[i];

		if (!v)
			return -1;
		if (pm->names[v - 1].hash == h && pm_name_is(&pm->names[v - 1], parent, name, len))
			return (long)i;
	}
}

/* The name (index) that the entry (parent, name) is, or PM_NONE. */
static inline uint32_t pm_find_entry(const struct fstap_pathmap *pm, uint64_t parent,
				     struct fstap_bytes name)
{
	long s = pm_find_entry_slot(pm, parent, name.ptr, name.len,
				    pm_entry_hash(parent, name.ptr, name.len));

	return s < 0 ? PM_NONE : pm->by_entry[s] - 1;
}

/* ---- the store of nodes and names (pathmap_table.c) ---------------------- */

/* Sets n's name (its old one freed) to a copy of name. 0 or -ENOMEM (n unchanged). */
int pm_set_name(struct pm_name *n, struct fstap_bytes name);
/* Frees n's name; it is empty again. */
void pm_free_name(struct pm_name *n);
/* Room in both tables for two more nodes (an object and its directory) and one more name. */
int pm_ensure_room(struct fstap_pathmap *pm);
/* The node of obj, made if new (the tables have room: pm_ensure_room); PM_NONE on ENOMEM. */
uint32_t pm_get_node(struct fstap_pathmap *pm, uint64_t obj);
/* Takes node ni out of the object table and the array (its names gone already, not buried). */
void pm_remove_node(struct fstap_pathmap *pm, uint32_t ni);
/* Whether node ni (PM_NONE: none) has a name in the namespace. */
bool pm_has_linked_name(const struct fstap_pathmap *pm, uint32_t ni);
/*
 * Gives obj the name (parent, name), taking it from whatever it named
 * before. A directory has one name: a new one replaces it. place says where
 * the name goes in the object's list (first: paths use it). 0 or -ENOMEM.
 */
int pm_add_name(struct fstap_pathmap *pm, uint64_t obj, uint64_t parent,
		struct fstap_bytes name, enum pm_place place, bool dir);
/*
 * Removes name idx from the namespace. The object keeps it as its last path
 * (as an open, unlinked file does) if it was its only name.
 */
void pm_drop_name(struct fstap_pathmap *pm, uint32_t idx);
/* Frees the names of node ni that are not in the namespace (or all of them). */
void pm_drop_names(struct fstap_pathmap *pm, uint32_t ni, bool all);
/* Renames name idx to (parent, name) in place: its rank in the list stays. 0 or -ENOMEM. */
int pm_move_name(struct fstap_pathmap *pm, uint32_t idx, uint64_t parent, struct fstap_bytes name);
/* RENAME_EXCHANGE: names a and b trade places (each object keeps its list). */
void pm_swap_names(struct fstap_pathmap *pm, uint32_t a, uint32_t b);

/* ---- handles, deaths and forgetting (pathmap_forget.c) ------------------- */

/* Notes that obj may have died: checked once the record is applied (pm_bury). */
void pm_maybe_dying(struct fstap_pathmap *pm, uint64_t obj);
/* One handle more on obj (open, create, opendir). 0 or -ENOMEM. */
int pm_open_handle(struct fstap_pathmap *pm, uint64_t obj);
/* One handle fewer (release, releasedir); one without its open is ignored. */
void pm_close_handle(struct fstap_pathmap *pm, uint64_t obj);
/* Queues the objects that died in the record; 0 or -ENOMEM. */
int pm_bury(struct fstap_pathmap *pm);
/* Forgets the objects dead for longer than the grace period (and still dead). */
void pm_reap(struct fstap_pathmap *pm);
/* A buried node moved to index to (pm_remove_node): its neighbours in the queue follow. */
void pm_grave_moved(struct fstap_pathmap *pm, uint32_t to);

#endif
