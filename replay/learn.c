/*
 * learn.c: what the dispatcher learns from the records about the trace's
 * objects, beyond their paths and kinds (fstap_pathmap): which renames move
 * directories, which handle of an object is open, the names the root's
 * listing will hold, the syncs the kernel made after synchronous writes,
 * and the process names for the divergence log.
 *
 * The workers share a cache of directory descriptors by path (dircache.c);
 * a task uses only those of its namespace generation, which changes at an
 * rmdir, and at a rename that moves or replaces a directory (or an object
 * not known to be none). A rename of a file over a file, the common case
 * (write a temporary, rename it over), leaves every directory path naming
 * what it named.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/name.h"
#include "fstap/pathmap.h"
#include "run_i.h"

/* Whether obj is known to be a device node. */
bool rp_is_device(const struct run *r, uint64_t obj)
{
	return obj && fstap_pathmap_kind(r->pm, obj) == FSTAP_KIND_DEVICE;
}

static bool maybe_dir(const struct run *r, uint64_t obj)
{
	enum fstap_kind k = obj ? fstap_pathmap_kind(r->pm, obj) : FSTAP_KIND_UNKNOWN;

	return k == FSTAP_KIND_UNKNOWN || k == FSTAP_KIND_DIR;
}

bool rp_changes_dirs(const struct run *r, const struct fstap_rec *c)
{
	uint64_t src, dst;

	if (c->op == FSTAP_OP_RMDIR)
		return true;
	if (c->op != FSTAP_OP_RENAME)
		return false;
	src = fstap_pathmap_lookup(r->pm, c->obj, c->name);
	dst = fstap_pathmap_lookup(r->pm, c->newparent, c->newname);
	return !src || maybe_dir(r, src) || (dst && maybe_dir(r, dst));
}

/* The names rec gives in the root: the root's own entries compare then. */
void rp_note_root_names(struct run *r, const struct fstap_rec *c)
{
	const struct fstap_op_info *oi = fstap_op_info(c->op);
	uint32_t i;

	if (c->obj == FSTAP_ROOT_OBJ &&
	    ((oi && (oi->props & FSTAP_OPP_DIRENT)) || c->op == FSTAP_OP_STATE_DENTRY))
		rp_shared_note_root_name(r->sh, c->name);
	if (c->newparent == FSTAP_ROOT_OBJ && (c->op == FSTAP_OP_RENAME || c->op == FSTAP_OP_LINK))
		rp_shared_note_root_name(r->sh, c->newname);
	if (c->op == FSTAP_OP_READDIR && c->obj == FSTAP_ROOT_OBJ)
		for (i = 0; i < c->nentries; i++)
			rp_shared_note_root_name(r->sh, c->entries[i].name);
}

/* Which handle of each object is open, as the records are dispatched. */
static int learn_open_handle(struct run *r, const struct fstap_rec *c)
{
	uint64_t obj = c->op == FSTAP_OP_CREATE ? c->child : c->obj, *v;

	if (c->result < 0 || !obj || !c->fh)
		return 0;
	if (c->op == FSTAP_OP_OPEN || c->op == FSTAP_OP_CREATE)
		return fstap_map_put(&r->open_fh, obj, c->fh + 1);
	if (c->op == FSTAP_OP_RELEASE && (v = fstap_map_get(&r->open_fh, obj)) && *v == c->fh + 1)
		fstap_map_del(&r->open_fh, obj, NULL);
	return 0;
}

/*
 * A GETATTR without a handle of an object whose last name was removed (the
 * kernel asking about an open, unlinked file): no path reaches it any more,
 * its open handle does.
 */
void rp_getattr_by_handle(struct run *r, struct rp_task *t)
{
	uint64_t parent, *v;
	struct fstap_bytes name;

	if (t->rec.op != FSTAP_OP_GETATTR || t->rec.fh || t->rec.obj == FSTAP_ROOT_OBJ ||
	    fstap_pathmap_name(r->pm, t->rec.obj, &parent, &name) != 0)
		return;
	if ((v = fstap_map_get(&r->open_fh, t->rec.obj)))
		t->rec.fh = *v - 1;
}

/* Tells the directory cache which paths the new generation changes. */
static void ns_change_entry(struct run *r, const char *dir, struct fstap_bytes name)
{
	size_t len = dir ? strlen(dir) : 0;

	if (!dir || !fstap_name_valid(name) || len + 1 + name.len >= sizeof(r->p1)) {
		rp_shared_ns_change(r->sh, r->ns_gen, NULL);
		return;
	}
	memcpy(r->p1, dir, len);
	if (len == 1)
		len = 0;	/* the root: "/name" */
	r->p1[len] = '/';
	memcpy(r->p1 + len + 1, name.ptr, name.len);
	r->p1[len + 1 + name.len] = '\0';
	rp_shared_ns_change(r->sh, r->ns_gen, r->p1);
}

void rp_ns_changes(struct run *r, const struct rp_task *t)
{
	ns_change_entry(r, t->path, t->rec.name);
	if (t->rec.op == FSTAP_OP_RENAME)
		ns_change_entry(r, t->path2, t->rec.newname);
}

static uint64_t sync_key(uint64_t fh, unsigned op)
{
	return (fh + 1) << 6 | op;
}

/*
 * Traces whose recorder did not flag them (sync_writes_flagged absent from
 * the metadata): the FSYNC (FDATASYNC) of a thread right after its write on
 * a handle opened with O_SYNC (O_DSYNC) is the kernel's (generic_write_sync)
 * and left to the target's kernel, as the recorder now flags it. An
 * application's own fsync right after such a write is taken for the
 * kernel's too; its next one is not.
 */
int rp_sync_after_write(struct run *r, struct tstate *ts, struct rp_task *t)
{
	struct fstap_rec *c = &t->rec;
	uint64_t *v, armed = ts->sync_armed;

	if (c->flags & FSTAP_RF_KERNEL)
		return 0;	/* a write marker, the kernel's own requests */
	ts->sync_armed = 0;
	switch (c->op) {
	case FSTAP_OP_OPEN:
	case FSTAP_OP_CREATE:
		if (c->result < 0 || !(c->flags_arg & O_DSYNC))
			return 0;
		return fstap_map_put(&r->sync_fh, c->fh + 1, (c->flags_arg & O_SYNC) == O_SYNC ?
				  FSTAP_OP_FSYNC : FSTAP_OP_FDATASYNC);
	case FSTAP_OP_RELEASE:
		fstap_map_del(&r->sync_fh, c->fh + 1, NULL);
		return 0;
	case FSTAP_OP_WRITE:
		v = fstap_map_get(&r->sync_fh, c->fh + 1);
		if (v && c->result > 0)
			ts->sync_armed = sync_key(c->fh, (unsigned)*v);
		return 0;
	case FSTAP_OP_FSYNC:
	case FSTAP_OP_FDATASYNC:
		if (armed && armed == sync_key(c->fh, c->op)) {
			c->flags |= FSTAP_RF_KERNEL;
			r->res->syncs_unflagged++;
		}
		return 0;
	default:
		return 0;
	}
}

/* Keeps a process record's name for the divergence log. 0 or -ENOMEM. */
int rp_learn_comm(struct run *r, const struct fstap_rec *c)
{
	char *s;

	if (!c->pid || !c->comm.len)
		return 0;
	if (FSTAP_GROW(r->comms, r->ncomms + 1, r->capcomms))
		return -ENOMEM;
	s = strndup((const char *)c->comm.ptr, c->comm.len);
	if (!s)
		return -ENOMEM;
	r->comms[r->ncomms++] = s;
	return fstap_map_put(&r->comm_of, (uint64_t)c->pid + 1, (uint64_t)(uintptr_t)s);
}

const char *rp_comm_of(const struct run *r, uint32_t pid)
{
	const uint64_t *v = fstap_map_get(&r->comm_of, (uint64_t)pid + 1);

	return v ? (const char *)(uintptr_t)*v : NULL;
}

/*
 * Learns from c as it is dispatched (after its paths were taken): the
 * root's names, the paths, which handle is open. 0 or -ENOMEM.
 */
int rp_learn_dispatched(struct run *r, const struct fstap_rec *c)
{
	int ret;

	rp_note_root_names(r, c);
	if ((ret = fstap_pathmap_apply(r->pm, c)) || (ret = learn_open_handle(r, c)))
		return ret;
	return 0;
}
