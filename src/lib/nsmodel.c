/*
 * nsmodel.c: each object's directory and kind as the records tell them
 * (fstap/nsmodel.h has the rules).
 */
#include <sys/stat.h>

#include "fstap/devnode.h"
#include "fstap/nsmodel.h"

enum fstap_kind fstap_kind_of_mode(uint64_t mode)
{
	return S_ISDIR((mode_t)mode) ? FSTAP_KIND_DIR :
	       fstap_is_devnode(mode) ? FSTAP_KIND_DEVICE : FSTAP_KIND_OTHER;
}

void fstap_nsmodel_init(struct fstap_nsmodel *m)
{
	fstap_map_init(&m->parents);
	fstap_map_init(&m->kinds);
}

void fstap_nsmodel_release(struct fstap_nsmodel *m)
{
	fstap_map_release(&m->parents);
	fstap_map_release(&m->kinds);
}

void fstap_nsmodel_forget(struct fstap_nsmodel *m, uint64_t obj)
{
	fstap_map_del(&m->parents, obj, NULL);
	fstap_map_del(&m->kinds, obj, NULL);
}

int fstap_nsmodel_moved(struct fstap_nsmodel *m, uint64_t obj, uint64_t dir)
{
	return obj && dir ? fstap_map_put(&m->parents, obj, dir) : 0;
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
	case FSTAP_OP_SYMLINK:
		return FSTAP_KIND_OTHER;
	default:
		return FSTAP_KIND_UNKNOWN;
	}
}

int fstap_nsmodel_learn(struct fstap_nsmodel *m, const struct fstap_rec *rec)
{
	enum fstap_kind k;
	int ret;

	switch (rec->op) {
	case FSTAP_OP_STATE_INODE:
		return rec->obj ? fstap_map_put(&m->kinds, rec->obj, fstap_kind_of_mode(rec->mode)) : 0;
	case FSTAP_OP_STATE_DENTRY:
		return rec->child ? fstap_map_put(&m->parents, rec->child, rec->obj) : 0;
	case FSTAP_OP_LOOKUP:
	case FSTAP_OP_CREATE:
	case FSTAP_OP_MKDIR:
	case FSTAP_OP_MKNOD:
	case FSTAP_OP_SYMLINK:
		if (rec->result < 0 || !rec->child)
			return 0;
		if (rec->obj && (ret = fstap_map_put(&m->parents, rec->child, rec->obj)))
			return ret;
		k = made_kind(rec);
		return k ? fstap_map_put(&m->kinds, rec->child, k) : 0;
	case FSTAP_OP_LINK:
		if (rec->result < 0 || !rec->obj || !rec->newparent)
			return 0;
		return fstap_map_put(&m->parents, rec->obj, rec->newparent);
	default:
		return 0;
	}
}

bool fstap_nsmodel_below(const struct fstap_nsmodel *m, uint64_t obj, uint64_t dir)
{
	const uint64_t *v;
	unsigned i;

	if (!m || !dir)
		return false;
	for (i = 0; obj && i < FSTAP_NSMODEL_DEPTH; i++) {
		v = fstap_map_get(&m->parents, obj);
		if (!v)
			return false;
		if (*v == dir)
			return true;
		obj = *v;
	}
	return false;
}
