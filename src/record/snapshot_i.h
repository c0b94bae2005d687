/*
 * snapshot_i.h: the recorder's walk of the backing tree (snapshot.c); the
 * records of one object and one name are libfstap's (fstap/state.h).
 */
#ifndef FSTAP_SNAPSHOT_I_H
#define FSTAP_SNAPSHOT_I_H

#include "fstap/state.h"
#include "record/record_i.h"

/* Walks the backing tree: every object and name. *count: objects described. */
int snap_walk(struct pt_fs *fs, uint32_t value_max, fstap_state_emit_fn emit, void *arg,
	      uint64_t *count);

#endif
