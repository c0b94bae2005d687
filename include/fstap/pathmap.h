/*
 * pathmap.h: resolves the objects of a trace to paths. Fed every record in
 * trace order, it learns names from the initial state (state_dentry) and
 * from lookup, create, mkdir, mknod, symlink, link, rename and readdir
 * entries. An object keeps every name it has (hard links); its path uses
 * one of them: the one the latest lookup or create went through, else its
 * oldest name (a link adds a name after the others). Unlinking one name
 * leaves the others, and the path moves to the next one; when the last name
 * goes, the object keeps it as its path (as an open but unlinked file
 * does). A directory has one name.
 *
 * An object is dead once its last name is removed, no handle is open on it
 * (open, create and opendir less release and releasedir) and no name is in
 * it. A dead object is forgotten FSTAP_PATHMAP_GRACE_NS of trace time (the
 * start of the latest operation record) after it died, unless a record
 * brings it back (a name, a handle) before: until then its path stays, for
 * the records that still name it (a forget, a state record that came late).
 * A forgotten object comes out as an unknown one. Memory grows with the
 * objects alive and those dead within the grace period, not with the
 * number of records. Shared by export, replay and analysis.
 *
 * It also knows what kind of object each one is (fstap_pathmap_learn_kind,
 * which the reader calls for each record: an object id is never reused in a
 * trace, so kinds can be learned ahead of the records applied, as the
 * replay does). These say it, the latest winning: the initial mode
 * (state_inode), mkdir (a directory), mknod's mode, create (a regular
 * file), symlink (neither a directory nor a device), and a name in a
 * directory, opendir or readdir (the directory). These say it only of an object whose kind
 * is not known: open (not a directory) and a readdir entry's type. Failed
 * requests say nothing.
 */
#ifndef FSTAP_PATHMAP_H
#define FSTAP_PATHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fstap/trace.h"

struct fstap_pathmap;

#define FSTAP_PATHMAP_GRACE_NS 2000000000ull	/* a dead object's path stays that long */

int fstap_pathmap_new(struct fstap_pathmap **out);
void fstap_pathmap_free(struct fstap_pathmap *pm);

/*
 * Writes the path of obj ("/" is the root, "/a/b" below it) to buf,
 * NUL-terminated. An object whose name is not known comes out as
 * "<obj:N>" (or "<obj:N>/b" below it). Returns the length, or -ENAMETOOLONG
 * if cap is too small (or the parents form a loop: a hostile trace).
 */
int fstap_pathmap_path(const struct fstap_pathmap *pm, uint64_t obj, char *buf, size_t cap);
/* The same for the entry name of directory dir. */
int fstap_pathmap_entry_path(const struct fstap_pathmap *pm, uint64_t dir,
			     struct fstap_bytes name, char *buf, size_t cap);
/* The object named name in dir, or 0 if not known. */
uint64_t fstap_pathmap_lookup(const struct fstap_pathmap *pm, uint64_t dir, struct fstap_bytes name);
/*
 * The name obj's path uses: its directory in *parent, its name in *name
 * (valid until the next fstap_pathmap_apply). 1 if the name exists, 0 if it
 * is the object's last name and was removed, -ENOENT if none is known.
 */
int fstap_pathmap_name(const struct fstap_pathmap *pm, uint64_t obj, uint64_t *parent,
		       struct fstap_bytes *name);
/* The directory of the name obj's path uses (as fstap_pathmap_name), 0 if none is known. */
uint64_t fstap_pathmap_parent(const struct fstap_pathmap *pm, uint64_t obj);
/* Objects known (alive, or dead within the grace period). */
size_t fstap_pathmap_objects(const struct fstap_pathmap *pm);
/*
 * Calls fn(arg, obj) when pm is about to forget obj, from within
 * fstap_pathmap_apply: obj's path still resolves then; fn must not apply
 * records. NULL: no call.
 */
void fstap_pathmap_on_forget(struct fstap_pathmap *pm, void (*fn)(void *arg, uint64_t obj),
			     void *arg);
/*
 * Calls fn(arg, obj) when obj dies (the record just applied removed its
 * last name, its last handle or the last name in it), from within
 * fstap_pathmap_apply, once per death: obj may still come back within the
 * grace period, and die again. fn must not apply records. NULL: no call.
 */
void fstap_pathmap_on_death(struct fstap_pathmap *pm, void (*fn)(void *arg, uint64_t obj),
			    void *arg);
/* Learns from one record (after its paths were taken). 0 or -ENOMEM. */
int fstap_pathmap_apply(struct fstap_pathmap *pm, const struct fstap_rec *rec);

enum fstap_kind {
	FSTAP_KIND_UNKNOWN = 0,
	FSTAP_KIND_DIR,
	FSTAP_KIND_OTHER,	/* a symlink, fifo or socket, or a file not known to be regular */
	FSTAP_KIND_DEVICE,	/* a character or block device node */
	FSTAP_KIND_FILE,	/* a regular file */
};

/* The kind of an object of mode (its file type bits). */
enum fstap_kind fstap_kind_of_mode(uint64_t mode);
/* The kind of obj as far as the records learned tell (the root is a directory). */
enum fstap_kind fstap_pathmap_kind(const struct fstap_pathmap *pm, uint64_t obj);
/*
 * obj if it is a directory (fstap_pathmap_kind), else the directory of the
 * name its path uses (fstap_pathmap_parent; 0 if none is known): one
 * lookup for both.
 */
uint64_t fstap_pathmap_dir_of(const struct fstap_pathmap *pm, uint64_t obj);
/*
 * Learns the kinds rec (of any type, applied or not yet) gives, and calls
 * fn(arg, obj, kind) (if fn is not NULL) for each object it gives one, or
 * lists (a readdir entry without a type), with the kind pm then holds; fn
 * returns 0 or -errno. 0, -ENOMEM or fn's error.
 */
typedef int (*fstap_kind_fn)(void *arg, uint64_t obj, enum fstap_kind kind);
int fstap_pathmap_learn_kind(struct fstap_pathmap *pm, const struct fstap_rec *rec,
			     fstap_kind_fn fn, void *arg);
/*
 * Whether dir is above obj on obj's path (its directory, or one further
 * up). Bounded (FSTAP_PATHMAP_BELOW_DEPTH directories up): a hostile trace
 * can make a loop. pm NULL: nothing is known.
 */
#define FSTAP_PATHMAP_BELOW_DEPTH 64
bool fstap_pathmap_below(const struct fstap_pathmap *pm, uint64_t obj, uint64_t dir);

#endif
