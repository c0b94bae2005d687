/*
 * nsmodel.h: what a trace says about each of its objects beyond its names
 * (those are fstap_pathmap's): the directory it is in and what kind of
 * object it is, as far as the records applied so far tell. A lookup,
 * create, mkdir, mknod or symlink names its object's directory; a link
 * moves it to the directory of the new name (the latest name wins); a
 * rename moves the object it renamed (fstap_nsmodel_moved: which object
 * that is, only the names know); an initial name (state_dentry) names it
 * too. The kind comes from the initial state's mode (state_inode), mkdir,
 * mknod's mode, create and symlink (neither a directory nor a device).
 * Failed requests say nothing. Object ids are never reused in a trace, so
 * the order in which records are applied does not change an object's kind.
 *
 * Memory grows with the objects named or typed; nothing is forgotten.
 */
#ifndef FSTAP_NSMODEL_H
#define FSTAP_NSMODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "fstap/ops.h"
#include "fstap/trace.h"
#include "fstap/util.h"

enum fstap_kind {
	FSTAP_KIND_UNKNOWN = 0,
	FSTAP_KIND_DIR,
	FSTAP_KIND_OTHER,	/* a file, symlink, fifo or socket */
	FSTAP_KIND_DEVICE,	/* a character or block device node */
};

struct fstap_nsmodel {
	struct fstap_map parents;	/* obj -> its directory */
	struct fstap_map kinds;		/* obj -> enum fstap_kind */
};

/* The kind of an object of mode (its file type bits). */
enum fstap_kind fstap_kind_of_mode(uint64_t mode);

void fstap_nsmodel_init(struct fstap_nsmodel *m);
void fstap_nsmodel_release(struct fstap_nsmodel *m);
/* fstap_nsmodel_apply's work, for the records that tell something. */
int fstap_nsmodel_learn(struct fstap_nsmodel *m, const struct fstap_rec *rec);

#define FSTAP_NSMODEL_OPS (1ull << FSTAP_OP_LOOKUP | 1ull << FSTAP_OP_CREATE | \
			   1ull << FSTAP_OP_MKDIR | 1ull << FSTAP_OP_MKNOD | \
			   1ull << FSTAP_OP_SYMLINK | 1ull << FSTAP_OP_LINK)

/* Learns from one record (of any type). 0 or -ENOMEM. Inline: the replay applies every record. */
static inline int fstap_nsmodel_apply(struct fstap_nsmodel *m, const struct fstap_rec *rec)
{
	if (rec->op < 64 ? !(FSTAP_NSMODEL_OPS >> rec->op & 1) :
	    rec->op != FSTAP_OP_STATE_INODE && rec->op != FSTAP_OP_STATE_DENTRY)
		return 0;
	return fstap_nsmodel_learn(m, rec);
}
/* Forgets obj (dead: no later record names it, the path map says). */
void fstap_nsmodel_forget(struct fstap_nsmodel *m, uint64_t obj);
/* A rename moved obj into directory dir. 0 or -ENOMEM. */
int fstap_nsmodel_moved(struct fstap_nsmodel *m, uint64_t obj, uint64_t dir);

/* The directory of obj, 0 if not known. */
static inline uint64_t fstap_nsmodel_parent(const struct fstap_nsmodel *m, uint64_t obj)
{
	const uint64_t *v = fstap_map_get(&m->parents, obj);

	return v ? *v : 0;
}

static inline enum fstap_kind fstap_nsmodel_kind(const struct fstap_nsmodel *m, uint64_t obj)
{
	const uint64_t *v = fstap_map_get(&m->kinds, obj);

	return v ? (enum fstap_kind)*v : FSTAP_KIND_UNKNOWN;
}

/*
 * Whether dir is above obj (its directory, or one further up). Bounded
 * (FSTAP_NSMODEL_DEPTH directories up): a hostile trace can make a loop.
 * m NULL: nothing is known.
 */
#define FSTAP_NSMODEL_DEPTH 64
bool fstap_nsmodel_below(const struct fstap_nsmodel *m, uint64_t obj, uint64_t dir);

#endif
