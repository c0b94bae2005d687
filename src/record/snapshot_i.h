/*
 * snapshot_i.h: the initial-state records of the recorder (snapshot.c).
 */
#ifndef FSTAP_SNAPSHOT_I_H
#define FSTAP_SNAPSHOT_I_H

#include <limits.h>

#include "record/record_i.h"

#define SNAP_XATTRS_MAX 256
#define SNAP_EXTENTS_MAX 1024

/* Scratch space for one state record (about 200 KiB): one per thread. */
struct snapbuf {
	char target[PATH_MAX];
	char xlist[65536];
	char xvals[65536];
	struct fstap_xattr xattrs[SNAP_XATTRS_MAX];
	uint64_t xattr_sizes[SNAP_XATTRS_MAX];
	struct fstap_extent extents[SNAP_EXTENTS_MAX];
};

typedef void (*snap_emit_fn)(const struct fstap_rec *rec, void *arg);

/*
 * Whether the value (len bytes) of xattr name is recorded: always, but for
 * user.* values longer than user_max (--xattr-values). The recorder's one
 * rule, for its operation records and its initial state alike.
 */
bool rec_xattr_value_kept(const char *name, size_t len, uint32_t user_max);

/*
 * Emits the STATE_INODE record of (dirfd, name), whose stat is st, as obj;
 * xattr values under rec_xattr_value_kept's rule with value_max.
 */
int snap_inode(struct snapbuf *sb, int dirfd, const char *name, const struct stat *st,
	       uint64_t obj, uint32_t value_max, snap_emit_fn emit, void *arg);
/* Emits a STATE_DENTRY record: name in directory parent is child. */
void snap_dentry(uint64_t parent, const char *name, uint64_t child, snap_emit_fn emit,
		 void *arg);
/* Walks the backing tree: every object and name. *count: objects described. */
int snap_walk(struct pt_fs *fs, uint32_t value_max, snap_emit_fn emit, void *arg,
	      uint64_t *count);

#endif
