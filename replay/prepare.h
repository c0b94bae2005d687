/*
 * prepare.h: `fstap prepare`, recreating a trace's initial state (its
 * state_inode and state_dentry records) in an empty directory.
 *
 * Two halves, so that the ordering and the validation can be tested without
 * a file system:
 *
 *  - the model and the plan (replay/prepare-plan.c, no system calls): the
 *    state records are collected into a model; prep_plan() validates every
 *    name against the trace being hostile (bad names, names under
 *    non-directories, cycles, objects without state, second names of
 *    directories) and computes the creation order as a list of steps, each
 *    one "create object O through name D" or "link name D to the already
 *    created object". Parents always come before their children.
 *  - the execution (replay/prepare.c): runs the steps beneath a directory
 *    fd, confined (every directory opened with openat2 RESOLVE_BENEATH |
 *    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, one name at a time; files
 *    created with O_EXCL | O_NOFOLLOW; symlinks are created, never
 *    followed), writes the data extents, then sets owners, xattrs, modes and
 *    times, directories last.
 *
 * Anything in the trace that cannot be created is skipped and noted with a
 * reason (enum prep_skip); an attribute the target refuses (an xattr
 * namespace, chown as non-root) is counted. Both are warnings, not errors.
 * Errors (-errno, with a message) are what makes the result unusable: a
 * corrupt trace, a full disk, an I/O error.
 */
#ifndef FSTAP_REPLAY_PREPARE_H
#define FSTAP_REPLAY_PREPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fstap/trace.h"
#include "fstap/util.h"

enum prep_order {
	PREP_ORDER_CREATION,	/* ascending recorded inode number */
	PREP_ORDER_NAME,	/* depth-first, names in byte order */
	PREP_ORDER_RANDOM,	/* seeded shuffle, parents still first */
};

enum prep_data {
	PREP_DATA_RANDOM,	/* incompressible pseudo-random bytes */
	PREP_DATA_ZERO,
};

/* Why a name or an object was not created. */
enum prep_skip {
	PREP_SKIP_BAD_NAME,	/* empty, ".", "..", a '/' or a NUL, longer than NAME_MAX */
	PREP_SKIP_NO_STATE,	/* names an object, or is in a directory, without state_inode */
	PREP_SKIP_NOT_DIR,	/* its parent is not a directory */
	PREP_SKIP_DIR_LINK,	/* a second name of a directory (or a loop), a name of the root */
	PREP_SKIP_DUP_NAME,	/* the directory already has that name for another object */
	PREP_SKIP_DUP_STATE,	/* a second state_inode for an object (the first is kept) */
	PREP_SKIP_BAD_OBJECT,	/* unknown file type, bad symlink target */
	PREP_SKIP_UNREACHABLE,	/* no valid chain of names from the root (orphan, cycle) */
	PREP_SKIP_CREATE_FAILED, /* the target file system refused it (errno noted) */
	PREP_SKIP_PARENT_FAILED, /* its directory, or the linked object, was not created */
	PREP_SKIP_NR
};

/* One-word description of a reason, for messages. */
const char *prep_skip_str(enum prep_skip why);

/* The first few skips, kept with where they happened for the warnings. */
#define PREP_NOTES_MAX 20
struct prep_note {
	enum prep_skip why;
	uint32_t obj;		/* object index, or UINT32_MAX */
	uint32_t dent;		/* dentry index, or UINT32_MAX */
	int err;		/* errno for CREATE_FAILED, else 0 */
};

/* One entry of the initial state (a state_dentry record), as the plan sees it. */
struct prep_dent {
	uint64_t parent, child;	/* object ids */
	uint32_t parent_idx;	/* object index of parent, UINT32_MAX if none */
	uint32_t child_idx;	/* object index of child, UINT32_MAX if none */
	uint64_t seq;		/* position in the trace */
	const char *name;	/* NUL-terminated copy (a NUL inside makes it invalid) */
	uint32_t name_len;
	bool valid;		/* passed validation */
};

struct prep_xattr {
	const char *name;	/* NUL-terminated copy */
	uint32_t name_len;	/* a NUL inside the name makes it unusable */
	const uint8_t *value;	/* NULL: left out by the recorder, pseudo-random bytes */
	uint32_t value_len;	/* the value's size (recorded or not) */
};

/* One object (a state_inode record). */
struct prep_obj {
	uint64_t id;
	uint64_t ino, size, rdev, uid, gid, nlink;
	int64_t atime, mtime, ctime;
	uint32_t mode;
	uint32_t attr_flags, projid;	/* file attribute flags (FS_*_FL), project id */
	uint32_t ntarget, nxattrs, nextents;
	const uint8_t *target;
	const struct prep_xattr *xattrs;
	const struct fstap_extent *extents;
	/* Set by prep_plan: */
	uint32_t via;		/* dentry it is created through, UINT32_MAX if none */
	uint32_t children, nchildren;	/* directories: their dentries (sorted by name) */
	uint32_t names, nnames;	/* its valid dentries: m->name_list[names..] */
	uint8_t plan_state;	/* 0 not reached, 1 queued, 2 planned */
};

enum prep_step_kind { PREP_STEP_CREATE, PREP_STEP_LINK };

struct prep_step {
	enum prep_step_kind kind;
	uint32_t obj;		/* object index */
	uint32_t dent;		/* CREATE: the name it gets; LINK: the extra name */
};

/*
 * The model: every state record, then the plan. Arrays are public for the
 * execution and the tests; change them only through the functions.
 */
struct prep_model {
	struct prep_obj *objs;		/* objs[0] is the root (id 1), always */
	uint32_t nobjs;
	size_t objs_cap;
	struct prep_dent *dents;	/* sorted by (parent, name, seq) after prep_plan */
	uint32_t ndents;
	size_t dents_cap;
	uint32_t *name_list;		/* per-object valid dentries, see prep_obj.names */
	struct prep_step *steps;	/* the plan */
	uint32_t nsteps;
	bool root_has_state;

	uint64_t skipped[PREP_SKIP_NR];
	struct prep_note notes[PREP_NOTES_MAX];
	uint32_t nnotes;

	/* private */
	struct fstap_map index;		/* object id + 1 -> index in objs */
	uint64_t nrecs;
	struct prep_arena *arena;
};

int prep_model_new(struct prep_model **out);
void prep_model_free(struct prep_model *m);
/*
 * Takes one record: state_inode and state_dentry are copied (the record may
 * be reused afterwards), every other type is ignored. 0 or -ENOMEM.
 */
int prep_model_add(struct prep_model *m, const struct fstap_rec *rec);
/* Reads a whole trace into m. 0 or -errno, with *errmsg (caller frees). */
int prep_model_read(struct prep_model *m, const char *trace, char **errmsg);
/* Validates and orders (seed: for PREP_ORDER_RANDOM). 0 or -ENOMEM; once only. */
int prep_plan(struct prep_model *m, enum prep_order order, uint64_t seed);
/* Records a skip (counted; the first PREP_NOTES_MAX kept with their place). */
void prep_note(struct prep_model *m, enum prep_skip why, uint32_t obj, uint32_t dent, int err);

/*
 * Sorts extents by offset, clips them to [0, size), drops empty ones and
 * merges overlapping or touching ones, in place; returns how many remain.
 * (A hostile trace cannot make prepare write a range twice.)
 */
uint32_t prep_extents_normalize(struct fstap_extent *e, uint32_t n, uint64_t size);

/*
 * The path of an object or a dentry below the target, for messages (never
 * for system calls): "a/b", bytes outside printable ASCII as \xNN; objects
 * without a planned name as "<obj:N>". Returns buf.
 */
const char *prep_obj_path(const struct prep_model *m, uint32_t obj, char *buf, size_t cap);
const char *prep_dent_path(const struct prep_model *m, uint32_t dent, char *buf, size_t cap);
/* A dentry naming obj (valid or not), for messages; UINT32_MAX if none. O(dentries). */
uint32_t prep_obj_first_dent(const struct prep_model *m, uint32_t obj);

/* ---- execution ---------------------------------------------------------- */

struct prep_opts {
	enum prep_data data;
	uint64_t seed;		/* of the file contents */
	bool progress;		/* a progress line on stderr */
	bool devices;		/* device nodes with their recorded numbers (fstap/devnode.h) */
	const char *dir_name;	/* the target, for messages */
};

struct prep_stats {
	uint64_t objects;	/* created, the root not counted */
	uint64_t dirs, files, symlinks, specials, links;
	uint64_t devnodes_placeholder;	/* device nodes made with a placeholder number */
	uint64_t bytes;		/* data written */
	uint64_t total_objects, total_bytes;	/* what the plan asks for */
	uint64_t attr_failed;	/* owner, mode, times or file attributes the target refused */
	uint64_t xattr_failed;	/* xattrs the target refused */
	int first_attr_err, first_xattr_err;
	double seconds;
};

/*
 * Whether the directory dirfd is empty, a lost+found directory allowed:
 * 0 if it is, -ENOTEMPTY if not, another -errno if it cannot be read.
 */
int prep_check_empty(int dirfd);

/*
 * Runs m's plan beneath dirfd (the target; not closed). Fails early with
 * -ENOSPC if the data cannot fit. Returns 0 (skips noted in m, failures
 * counted in st) or -errno with *errmsg (caller frees).
 */
int prep_run(struct prep_model *m, int dirfd, const struct prep_opts *o,
	     struct prep_stats *st, char **errmsg);

/* ---- a target directory (prepare-dir.c) ------------------------------------ */

/* What prep_dir makes, and what it says. */
struct prep_dir_opts {
	struct prep_opts po;	/* dir_name: set by prep_dir */
	enum prep_order order;
	bool quiet;		/* no summary line on stdout (warnings still on stderr) */
	unsigned clones;	/* 0: DIR itself; N: DIR/clone-0 to DIR/clone-(N-1) */
	int only_clone;		/* -1, or K: DIR/clone-K alone (an MPI rank's), DIR need not be empty */
};

/*
 * Prepares dir from trace's initial state, as `fstap prepare` does: dir must
 * exist and be empty (but with only_clone), its warnings on stderr, the
 * summary line on stdout. *skipped: the entries skipped (in one copy).
 * 0, or -errno after the error line.
 */
int prep_dir(const char *trace, const char *dir, const struct prep_dir_opts *o,
	     uint64_t *skipped);

#endif
