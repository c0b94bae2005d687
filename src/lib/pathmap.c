/*
 * pathmap.c: object id -> (parent, name) and (parent, name) -> object id,
 * two open-addressing hash tables over one array of nodes. See pathmap.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/pathmap.h"

struct node {
	uint64_t obj;
	uint64_t parent;	/* 0: name unknown */
	char *name;		/* owned */
	uint32_t name_len;
	bool linked;		/* (parent, name) is in the entry table */
};

struct fstap_pathmap {
	struct node *nodes;
	size_t nnodes, cap_nodes;
	uint32_t *by_obj;	/* slot -> node index + 1 */
	uint32_t *by_entry;	/* slot -> node index + 1; 0 empty, UINT32_MAX deleted */
	size_t nslots;		/* power of two, > 2 * (nnodes + ntomb) */
	size_t ntomb;		/* deleted entry slots, cleared by rehash */
};

#define TOMB UINT32_MAX

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t entry_hash(uint64_t parent, const uint8_t *name, uint32_t len)
{
	uint64_t h = mix(parent) ^ 1469598103934665603ULL;

	while (len--)
		h = (h ^ *name++) * 1099511628211ULL;
	return mix(h);
}

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
	for (i = 0; i < pm->nnodes; i++)
		free(pm->nodes[i].name);
	free(pm->nodes);
	free(pm->by_obj);
	free(pm->by_entry);
	free(pm);
}

static struct node *find_obj(const struct fstap_pathmap *pm, uint64_t obj)
{
	size_t mask = pm->nslots - 1, i = mix(obj) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = pm->by_obj[i];

		if (!v)
			return NULL;
		if (pm->nodes[v - 1].obj == obj)
			return &pm->nodes[v - 1];
	}
}

static bool entry_is(const struct node *n, uint64_t parent, const uint8_t *name, uint32_t len)
{
	return n->linked && n->parent == parent && n->name_len == len &&
	       (!len || !memcmp(n->name, name, len));
}

/* The slot holding (parent, name), or -1. */
static long find_entry_slot(const struct fstap_pathmap *pm, uint64_t parent,
			    const uint8_t *name, uint32_t len)
{
	size_t mask = pm->nslots - 1, i = entry_hash(parent, name, len) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = pm->by_entry[i];

		if (!v)
			return -1;
		if (v != TOMB && entry_is(&pm->nodes[v - 1], parent, name, len))
			return (long)i;
	}
}

static void insert_obj_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	size_t mask = pm->nslots - 1, i = mix(pm->nodes[idx].obj) & mask;

	while (pm->by_obj[i])
		i = (i + 1) & mask;
	pm->by_obj[i] = idx + 1;
}

static void insert_entry_slot(struct fstap_pathmap *pm, uint32_t idx)
{
	struct node *n = &pm->nodes[idx];
	size_t mask = pm->nslots - 1;
	size_t i = entry_hash(n->parent, (const uint8_t *)n->name, n->name_len) & mask;

	while (pm->by_entry[i] && pm->by_entry[i] != TOMB)
		i = (i + 1) & mask;
	pm->by_entry[i] = idx + 1;
	n->linked = true;
}

static void unlink_node(struct fstap_pathmap *pm, struct node *n)
{
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
	size_t n = pm->nslots, i;
	if (2 * pm->nnodes + 8 > n)
		n *= 2;
	uint32_t *a = calloc(n, sizeof(uint32_t)), *b = calloc(n, sizeof(uint32_t));

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
	for (i = 0; i < pm->nnodes; i++) {
		insert_obj_slot(pm, (uint32_t)i);
		if (pm->nodes[i].linked)
			insert_entry_slot(pm, (uint32_t)i);
	}
	return 0;
}

static struct node *get_node(struct fstap_pathmap *pm, uint64_t obj)
{
	struct node *n = find_obj(pm, obj);

	if (n)
		return n;
	if (pm->nnodes >= UINT32_MAX - 2)
		return NULL;
	/* Tombstones count as load: rehashing clears them. */
	if (2 * (pm->nnodes + pm->ntomb) + 8 > pm->nslots && rehash(pm))
		return NULL;
	if (pm->nnodes == pm->cap_nodes) {
		size_t c = pm->cap_nodes ? 2 * pm->cap_nodes : 256;
		struct node *p = realloc(pm->nodes, c * sizeof(*p));

		if (!p)
			return NULL;
		pm->nodes = p;
		pm->cap_nodes = c;
	}
	n = &pm->nodes[pm->nnodes];
	memset(n, 0, sizeof(*n));
	n->obj = obj;
	insert_obj_slot(pm, (uint32_t)pm->nnodes++);
	return n;
}

/* Gives obj the name (parent, name), replacing what that name meant before. */
static int set_name(struct fstap_pathmap *pm, uint64_t obj, uint64_t parent,
		    struct fstap_bytes name)
{
	struct node *n;
	long s;
	char *copy;

	if (!obj || obj == FSTAP_ROOT_OBJ)
		return 0;
	s = find_entry_slot(pm, parent, name.ptr, name.len);
	if (s >= 0)
		unlink_node(pm, &pm->nodes[pm->by_entry[s] - 1]);
	n = get_node(pm, obj);
	if (!n)
		return -ENOMEM;
	copy = malloc(name.len + 1);
	if (!copy)
		return -ENOMEM;
	if (name.len)
		memcpy(copy, name.ptr, name.len);
	copy[name.len] = '\0';
	unlink_node(pm, n);
	free(n->name);
	n->name = copy;
	n->name_len = name.len;
	n->parent = parent;
	/* The rehash above may have run: recompute the node's index. */
	insert_entry_slot(pm, (uint32_t)(n - pm->nodes));
	if (2 * (pm->nnodes + pm->ntomb) + 8 > pm->nslots)
		return rehash(pm);
	return 0;
}

uint64_t fstap_pathmap_lookup(const struct fstap_pathmap *pm, uint64_t dir, struct fstap_bytes name)
{
	long s = find_entry_slot(pm, dir, name.ptr, name.len);

	return s < 0 ? 0 : pm->nodes[pm->by_entry[s] - 1].obj;
}

static void remove_name(struct fstap_pathmap *pm, uint64_t dir, struct fstap_bytes name)
{
	long s = find_entry_slot(pm, dir, name.ptr, name.len);

	if (s >= 0)
		unlink_node(pm, &pm->nodes[pm->by_entry[s] - 1]);
}

int fstap_pathmap_apply(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint64_t a, b;

	if (rec->result < 0)
		return 0;
	switch (rec->op) {
	case FSTAP_OP_STATE_DENTRY:
		/* A second name of the initial tree (a hard link) keeps the first. */
		if (find_obj(pm, rec->child) && find_obj(pm, rec->child)->linked)
			return 0;
		return set_name(pm, rec->child, rec->obj, rec->name);
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
		return set_name(pm, rec->child, rec->obj, rec->name);
	case FSTAP_OP_LINK:
		/* A new name for obj: keep its first name as its path. */
		if (find_obj(pm, rec->obj) && find_obj(pm, rec->obj)->linked)
			return 0;
		return set_name(pm, rec->obj, rec->newparent, rec->newname);
	case FSTAP_OP_READDIR: {
		uint32_t i;

		/* Entries name objects the trace may never look up. */
		for (i = 0; i < rec->nentries; i++) {
			const struct fstap_dirent *e = &rec->entries[i];
			const struct node *n = e->obj ? find_obj(pm, e->obj) : NULL;
			int ret;

			if (!e->obj || (n && n->linked) ||
			    (e->name.len == 1 && e->name.ptr[0] == '.') ||
			    (e->name.len == 2 && !memcmp(e->name.ptr, "..", 2)))
				continue;
			if ((ret = set_name(pm, e->obj, rec->obj, e->name)))
				return ret;
		}
		return 0;
	}
	case FSTAP_OP_UNLINK:
	case FSTAP_OP_RMDIR:
		remove_name(pm, rec->obj, rec->name);
		return 0;
	case FSTAP_OP_RENAME:
		a = fstap_pathmap_lookup(pm, rec->obj, rec->name);
		b = fstap_pathmap_lookup(pm, rec->newparent, rec->newname);
		if (rec->flags_arg & 2 /* RENAME_EXCHANGE */) {
			int ret = 0;

			if (a)
				remove_name(pm, rec->obj, rec->name);
			if (b)
				remove_name(pm, rec->newparent, rec->newname);
			if (a)
				ret = set_name(pm, a, rec->newparent, rec->newname);
			if (!ret && b)
				ret = set_name(pm, b, rec->obj, rec->name);
			return ret;
		}
		if (b)
			remove_name(pm, rec->newparent, rec->newname);
		if (a)
			return set_name(pm, a, rec->newparent, rec->newname);
		return 0;
	default:
		return 0;
	}
}

/* Writes the path of obj right-aligned ending at buf+end; returns its start or -1. */
static long build(const struct fstap_pathmap *pm, uint64_t obj, char *buf, size_t end)
{
	size_t depth = 0;

	if (obj == FSTAP_ROOT_OBJ)
		return (long)end;	/* the root contributes "" before "/name" */
	while (obj != FSTAP_ROOT_OBJ) {
		const struct node *n = find_obj(pm, obj);

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
