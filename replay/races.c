/*
 * races.c: races in the recording. Per object, the latest recorded ends of
 * its operations (in a struct fstap_map), to tell a result that differs
 * because the recording had two threads racing on an object from a
 * divergence.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay_i.h"

struct obj_ends {
	uint64_t mod_end, any_end;	/* latest recorded ends: of a change, of any op */
	uint32_t mod_tid, any_tid;
};

/* Operations that change their object (for entry operations, the directory). */
static bool op_changes(unsigned op)
{
	switch (op) {
	case FSTAP_OP_SETATTR: case FSTAP_OP_WRITE: case FSTAP_OP_FALLOCATE:
	case FSTAP_OP_COPY_FILE_RANGE: case FSTAP_OP_SETXATTR: case FSTAP_OP_REMOVEXATTR:
	case FSTAP_OP_CREATE: case FSTAP_OP_MKNOD: case FSTAP_OP_MKDIR: case FSTAP_OP_SYMLINK:
	case FSTAP_OP_LINK: case FSTAP_OP_UNLINK: case FSTAP_OP_RMDIR: case FSTAP_OP_RENAME:
		return true;
	default:
		return false;
	}
}

int rp_race_check(struct fstap_map *races, const struct fstap_rec *rec, bool *raced)
{
	uint64_t start = rec->start_ns, end = start + rec->dur_ns;
	bool changes = op_changes(rec->op);
	struct obj_ends *e;

	*raced = false;
	if (!rec->obj)
		return 0;
	e = fstap_map_get_ptr(races, rec->obj);
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		if (fstap_map_put_ptr(races, rec->obj, e)) {
			free(e);
			return -ENOMEM;
		}
	}
	*raced = (e->mod_end > start && e->mod_tid != rec->tid) ||
		 (changes && e->any_end > start && e->any_tid != rec->tid);
	if (changes && end >= e->mod_end) {
		e->mod_end = end;
		e->mod_tid = rec->tid;
	}
	if (end >= e->any_end) {
		e->any_end = end;
		e->any_tid = rec->tid;
	}
	return 0;
}

void rp_races_release(struct fstap_map *races)
{
	size_t pos = 0;
	uint64_t v;

	while (fstap_map_next(races, &pos, NULL, &v))
		free((struct obj_ends *)(uintptr_t)v);
	fstap_map_release(races);
}
