/*
 * pathmap.c: the namespace of a trace as it is learned, record by record
 * (pathmap.h has the rules): what each record does to the names (the
 * store: pathmap_table.c) and to the handles (pathmap_forget.c), the
 * answers to lookups, and the paths built from the names. Kinds are
 * pathmap_kind.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fstap/name.h"
#include "lib/pathmap_i.h"

#define DT_DIR_TYPE 4	/* d_type of a directory */
#define RENAME_EXCHANGE_FLAG 2

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
		pm_free_name(&pm->names[i]);
	free(pm->names);
	free(pm->nodes);
	free(pm->by_obj);
	free(pm->by_entry);
	free(pm->dying);
	free(pm);
}

size_t fstap_pathmap_objects(const struct fstap_pathmap *pm)
{
	return pm->nnodes;
}

/* ---- names known -------------------------------------------------------- */

uint64_t fstap_pathmap_lookup(const struct fstap_pathmap *pm, uint64_t dir, struct fstap_bytes name)
{
	uint32_t i = pm_find_entry(pm, dir, name);

	return i == PM_NONE ? 0 : pm->names[i].obj;
}

int fstap_pathmap_name(const struct fstap_pathmap *pm, uint64_t obj, uint64_t *parent,
		       struct fstap_bytes *name)
{
	uint32_t ni = obj ? pm_find_node(pm, obj) : PM_NONE;
	const struct pm_name *n;

	if (ni == PM_NONE || !pm->nodes[ni].names)
		return -ENOENT;
	n = &pm->names[pm->nodes[ni].names - 1];
	*parent = n->parent;
	*name = (struct fstap_bytes){ (const uint8_t *)pm_name_str(n), n->name_len };
	return n->linked;
}

uint64_t fstap_pathmap_parent(const struct fstap_pathmap *pm, uint64_t obj)
{
	uint64_t parent;
	struct fstap_bytes name;

	return fstap_pathmap_name(pm, obj, &parent, &name) < 0 ? 0 : parent;
}

/* ---- learning from records ---------------------------------------------- */

/*
 * An initial name: state records may come after operation records that
 * changed the object's names (format section 10); such a late name must not
 * bring back a name the trace removed, nor take one it gave away.
 */
static int apply_state_dentry(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t ni = rec->child ? pm_find_node(pm, rec->child) : PM_NONE;

	if (pm_find_entry(pm, rec->obj, rec->name) != PM_NONE)
		return 0;
	if (ni != PM_NONE && pm->nodes[ni].names && (pm->nodes[ni].renamed || pm->nodes[ni].dir))
		return 0;
	return pm_add_name(pm, rec->child, rec->obj, rec->name, PM_NAME_LAST, false);
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

		if (!e->obj || fstap_name_dots(e->name.ptr, e->name.len))
			continue;
		ni = pm_find_node(pm, e->obj);
		if (pm_has_linked_name(pm, ni) && (dir || pm->nodes[ni].dir))
			continue;	/* a directory keeps the name it has */
		ret = pm_add_name(pm, e->obj, rec->obj, e->name,
			       pm_has_linked_name(pm, ni) ? PM_NAME_LAST : PM_NAME_FIRST, dir);
		if (ret)
			return ret;
	}
	return 0;
}

static int apply_rename(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t a = pm_find_entry(pm, rec->obj, rec->name);
	uint32_t b = pm_find_entry(pm, rec->newparent, rec->newname);

	if (rec->flags_arg & RENAME_EXCHANGE_FLAG) {
		if (a != PM_NONE && b != PM_NONE)
			pm_swap_names(pm, a, b);
		else if (a != PM_NONE)
			return pm_move_name(pm, a, rec->newparent, rec->newname);
		else if (b != PM_NONE)
			return pm_move_name(pm, b, rec->obj, rec->name);
		return 0;
	}
	if (a == PM_NONE) {
		if (b != PM_NONE)
			pm_drop_name(pm, b);
		return 0;
	}
	if (b != PM_NONE) {
		if (pm->names[b].obj == pm->names[a].obj)
			return 0;	/* two names of one object: rename does nothing */
		pm_drop_name(pm, b);
	}
	return pm_move_name(pm, a, rec->newparent, rec->newname);
}

static int apply_link(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t ni = pm_find_node(pm, rec->obj);

	/* A new name goes after the ones the object has: its path stays. */
	return pm_add_name(pm, rec->obj, rec->newparent, rec->newname,
			pm_has_linked_name(pm, ni) ? PM_NAME_LAST : PM_NAME_FIRST, false);
}

static int apply_state_inode(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	uint32_t ni;

	if (!S_ISDIR(rec->mode) || !rec->obj || rec->obj == FSTAP_ROOT_OBJ)
		return 0;
	if (pm_ensure_room(pm) || (ni = pm_get_node(pm, rec->obj)) == PM_NONE)
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
		ret = pm_add_name(pm, rec->child, rec->obj, rec->name, PM_NAME_FIRST, false);
		return ret ? ret : pm_open_handle(pm, rec->child);
	case FSTAP_OP_OPEN:
	case FSTAP_OP_OPENDIR:
		return pm_open_handle(pm, rec->obj);
	case FSTAP_OP_RELEASE:
	case FSTAP_OP_RELEASEDIR:
		pm_close_handle(pm, rec->obj);
		return 0;
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
		/* The name the request went through: paths use it from now on. */
		return pm_add_name(pm, rec->child, rec->obj, rec->name, PM_NAME_FIRST, false);
	case FSTAP_OP_MKDIR:
		return pm_add_name(pm, rec->child, rec->obj, rec->name, PM_NAME_FIRST, true);
	case FSTAP_OP_LINK:
		return apply_link(pm, rec);
	case FSTAP_OP_READDIR:
		return apply_entries(pm, rec);
	case FSTAP_OP_UNLINK:
	case FSTAP_OP_RMDIR:
		if ((i = pm_find_entry(pm, rec->obj, rec->name)) != PM_NONE)
			pm_drop_name(pm, i);
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
	if (pm->grave_first)
		pm_reap(pm);
	ret = rec->result < 0 ? 0 : apply_one(pm, rec);
	if (pm->ndying || pm->oom) {
		int r2 = pm_bury(pm);

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
		uint32_t ni = pm_find_node(pm, obj);
		const struct pm_name *n = ni != PM_NONE && pm->nodes[ni].names ?
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
		memcpy(buf + end, pm_name_str(n), n->name_len);
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
