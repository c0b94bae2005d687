/*
 * pathmap_kind.c: what a pathmap knows of each object beyond its names
 * (pathmap.h has the rules): its kind, and whether it is below a directory.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "fstap/devnode.h"
#include "fstap/name.h"
#include "lib/pathmap_i.h"

enum fstap_kind fstap_kind_of_mode(uint64_t mode)
{
	return S_ISDIR((mode_t)mode) ? FSTAP_KIND_DIR :
	       S_ISREG((mode_t)mode) ? FSTAP_KIND_FILE :
	       fstap_is_devnode(mode) ? FSTAP_KIND_DEVICE : FSTAP_KIND_OTHER;
}

enum fstap_kind fstap_pathmap_kind(const struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni;

	if (obj == FSTAP_ROOT_OBJ)
		return FSTAP_KIND_DIR;
	ni = obj ? pm_find_node(pm, obj) : PM_NONE;
	return ni == PM_NONE ? FSTAP_KIND_UNKNOWN : (enum fstap_kind)pm->nodes[ni].kind;
}

uint64_t fstap_pathmap_dir_of(const struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni;

	if (obj == FSTAP_ROOT_OBJ)
		return obj;
	ni = obj ? pm_find_node(pm, obj) : PM_NONE;
	if (ni == PM_NONE)
		return 0;
	if (pm->nodes[ni].kind == FSTAP_KIND_DIR)
		return obj;
	return pm->nodes[ni].names ? pm->names[pm->nodes[ni].names - 1].parent : 0;
}

/* What fstap_pathmap_learn_kind is doing: the pathmap and whom to tell. */
struct teach {
	struct fstap_pathmap *pm;
	fstap_kind_fn fn;
	void *arg;
};

/* Gives obj kind k (force: whatever it had; else only if none), and tells. */
static int give(const struct teach *t, uint64_t obj, enum fstap_kind k, bool force)
{
	struct fstap_pathmap *pm = t->pm;
	uint32_t ni;

	if (!obj)
		return 0;
	if (!k || obj == FSTAP_ROOT_OBJ)
		return t->fn ? t->fn(t->arg, obj, fstap_pathmap_kind(pm, obj)) : 0;
	if (pm_ensure_room(pm) || (ni = pm_get_node(pm, obj)) == PM_NONE)
		return -ENOMEM;
	if (force || !pm->nodes[ni].kind)
		pm->nodes[ni].kind = (uint8_t)k;
	return t->fn ? t->fn(t->arg, obj, (enum fstap_kind)pm->nodes[ni].kind) : 0;
}

/* The kind a successful request making rec->child gives it (0: none). */
static enum fstap_kind made_kind(const struct fstap_rec *rec)
{
	switch (rec->op) {
	case FSTAP_OP_MKDIR:
		return FSTAP_KIND_DIR;
	case FSTAP_OP_MKNOD:
		return fstap_kind_of_mode(rec->mode);
	case FSTAP_OP_CREATE:
		return FSTAP_KIND_FILE;
	case FSTAP_OP_SYMLINK:
		return FSTAP_KIND_OTHER;
	default:
		return FSTAP_KIND_UNKNOWN;
	}
}

static int listed(const struct teach *t, const struct fstap_rec *rec)
{
	uint32_t i;
	int ret;

	if ((ret = give(t, rec->obj, FSTAP_KIND_DIR, true)))
		return ret;
	for (i = 0; i < rec->nentries; i++) {
		const struct fstap_dirent *e = &rec->entries[i];

		if (!fstap_name_dots(e->name.ptr, e->name.len) &&
		    (ret = give(t, e->obj, e->type ? fstap_kind_of_mode(DTTOIF(e->type)) :
				FSTAP_KIND_UNKNOWN, false)))
			return ret;
	}
	return 0;
}

int fstap_pathmap_learn_kind(struct fstap_pathmap *pm, const struct fstap_rec *rec,
			     fstap_kind_fn fn, void *arg)
{
	const struct teach t = { pm, fn, arg };
	enum fstap_kind k;
	int ret;

	if (rec->op == FSTAP_OP_STATE_INODE)
		return give(&t, rec->obj, fstap_kind_of_mode(rec->mode), true);
	if (rec->op == FSTAP_OP_STATE_DENTRY)
		return rec->child ? give(&t, rec->obj, FSTAP_KIND_DIR, true) : 0;
	if (fstap_op_is_meta(rec->op) || rec->result < 0)
		return 0;
	switch (rec->op) {
	case FSTAP_OP_OPENDIR:
		return give(&t, rec->obj, FSTAP_KIND_DIR, true);
	case FSTAP_OP_OPEN:
		return give(&t, rec->obj, FSTAP_KIND_OTHER, false);
	case FSTAP_OP_READDIR:
		return listed(&t, rec);
	default:
		break;
	}
	/* a lookup or a request making rec->child: its directory is one */
	k = made_kind(rec);
	if (!rec->child || !(k || rec->op == FSTAP_OP_LOOKUP))
		return 0;
	if ((ret = give(&t, rec->obj, FSTAP_KIND_DIR, true)) || !k)
		return ret;
	return give(&t, rec->child, k, true);
}

bool fstap_pathmap_below(const struct fstap_pathmap *pm, uint64_t obj, uint64_t dir)
{
	unsigned i;

	if (!pm || !dir)
		return false;
	for (i = 0; obj && obj != FSTAP_ROOT_OBJ && i < FSTAP_PATHMAP_BELOW_DEPTH; i++) {
		uint32_t ni = pm_find_node(pm, obj);

		if (ni == PM_NONE || !pm->nodes[ni].names)
			return false;
		obj = pm->names[pm->nodes[ni].names - 1].parent;
		if (obj == dir)
			return true;
	}
	return false;
}
