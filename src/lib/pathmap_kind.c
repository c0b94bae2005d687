/*
 * pathmap_kind.c: what a pathmap knows of each object beyond its names
 * (pathmap.h has the rules): its kind, and whether it is below a directory.
 */
#include <errno.h>
#include <sys/stat.h>

#include "fstap/devnode.h"
#include "lib/pathmap_i.h"

enum fstap_kind fstap_kind_of_mode(uint64_t mode)
{
	return S_ISDIR((mode_t)mode) ? FSTAP_KIND_DIR :
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

/* The object rec gives a kind to, and that kind in *k (0: none). */
static uint64_t kind_given(const struct fstap_rec *rec, enum fstap_kind *k)
{
	*k = FSTAP_KIND_UNKNOWN;
	if (rec->result < 0)
		return 0;
	switch (rec->op) {
	case FSTAP_OP_STATE_INODE:
		*k = fstap_kind_of_mode(rec->mode);
		return rec->obj;
	case FSTAP_OP_MKDIR:
		*k = FSTAP_KIND_DIR;
		return rec->child;
	case FSTAP_OP_MKNOD:
		*k = fstap_kind_of_mode(rec->mode);
		return rec->child;
	case FSTAP_OP_CREATE:
	case FSTAP_OP_SYMLINK:
		*k = FSTAP_KIND_OTHER;
		return rec->child;
	default:
		return 0;
	}
}

int fstap_pathmap_learn_kind(struct fstap_pathmap *pm, const struct fstap_rec *rec)
{
	enum fstap_kind k;
	uint64_t obj = kind_given(rec, &k);
	uint32_t ni;

	if (!obj || obj == FSTAP_ROOT_OBJ)
		return 0;
	if (pm_ensure_room(pm) || (ni = pm_get_node(pm, obj)) == PM_NONE)
		return -ENOMEM;
	pm->nodes[ni].kind = (uint8_t)k;
	return 0;
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
