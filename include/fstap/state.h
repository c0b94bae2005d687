/*
 * state.h: the initial-state records (STATE_INODE, STATE_DENTRY) of what a
 * real file system holds: type, mode, owner, size, times, inode number,
 * link count, device number, symlink target, xattrs, data extents (the rest
 * of a file is holes), file attribute flags and project id, so that
 * `prepare` can rebuild it. Shared by the recorder's snapshot and the
 * strace importer.
 */
#ifndef FSTAP_STATE_H
#define FSTAP_STATE_H

#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "fstap/trace.h"

#define FSTAP_STATE_XATTRS_MAX 256
#define FSTAP_STATE_EXTENTS_MAX 1024

/* Scratch space for one state record (about 200 KiB): one per thread. */
struct fstap_statebuf {
	char target[PATH_MAX];
	char xlist[65536];
	char xvals[65536];
	struct fstap_xattr xattrs[FSTAP_STATE_XATTRS_MAX];
	uint64_t xattr_sizes[FSTAP_STATE_XATTRS_MAX];
	struct fstap_extent extents[FSTAP_STATE_EXTENTS_MAX];
};

typedef void (*fstap_state_emit_fn)(const struct fstap_rec *rec, void *arg);

/*
 * Emits the STATE_INODE record of (dirfd, name), whose stat is st, as obj;
 * xattr values under fstap_xattr_value_kept's rule with value_max (a value
 * left out is recorded empty, with its size in the record's xattr_sizes).
 */
int fstap_state_inode(struct fstap_statebuf *sb, int dirfd, const char *name,
		      const struct stat *st, uint64_t obj, uint32_t value_max,
		      fstap_state_emit_fn emit, void *arg);
/* Emits a STATE_DENTRY record: name in directory parent is child. */
void fstap_state_dentry(uint64_t parent, const char *name, uint64_t child,
			fstap_state_emit_fn emit, void *arg);

#endif
