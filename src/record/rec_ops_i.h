/*
 * rec_ops_i.h: what the recorder's FUSE handlers share: the per-thread
 * scratch, the request being recorded (struct rq: rq_begin, rq_end,
 * rq_emit), the accessors of a request's session and inodes, and the
 * handlers of each family, which rec_ops.c puts in its table. Only
 * src/record/rec_*.c include it.
 */
#ifndef FSTAP_REC_OPS_I_H
#define FSTAP_REC_OPS_I_H

#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)

#include <fuse_lowlevel.h>
#include <limits.h>
#include <string.h>

#include "record/record_i.h"

#define DBUF_SIZE 65536
#define DENTS_MAX (DBUF_SIZE / 24 + 1)

/* Per-thread scratch, allocated once per thread. */
struct scratch {
	void *io;		/* page aligned: reads, O_DIRECT bounce, xattr values */
	size_t iocap;
	char dbuf[DBUF_SIZE];	/* readdir reply; the record's entry names point into it */
	struct fstap_dirent ents[DENTS_MAX];
	char link[PATH_MAX + 1];
	struct fstap_statebuf *snap;	/* touched snapshots */
	int pipe[2];		/* spliced reads (non-blocking); -1: none */
	size_t pipecap;		/* its capacity in bytes */
	size_t pipe_refused;	/* a capacity it could not grow to, 0: none yet */
};

/* This thread's scratch, its io buffer at least iosize bytes; NULL on ENOMEM. */
struct scratch *rec_scratch_get(size_t iosize);

static inline struct rec_session *session_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static inline struct rinode *inode_of(struct rec_session *s, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? pt_root(&s->fs) : (struct rinode *)(uintptr_t)ino;
}

static inline fuse_ino_t nodeid_of(struct rec_session *s, struct rinode *ri)
{
	return ri == pt_root(&s->fs) ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)ri;
}

static inline struct fstap_bytes bytes_of(const char *str)
{
	struct fstap_bytes b = { (const uint8_t *)str, (uint32_t)strlen(str) };

	return b;
}

/* One request being recorded. */
struct rq {
	struct fstap_rec r;
	uint64_t t0;
	struct rec_session *s;
};

static inline bool rq_begin(struct rq *q, fuse_req_t req, unsigned op, struct rinode *ri)
{
	struct rec_session *s = session_of(req);
	const struct fuse_ctx *ctx;

	q->s = s;
	atomic_fetch_add_explicit(&s->nreq, 1, memory_order_relaxed);
	if (!s->rb)
		return false;
	memset(&q->r, 0, sizeof(q->r));
	ctx = fuse_req_ctx(req);
	q->r.op = (uint16_t)op;
	q->r.tid = (uint32_t)ctx->pid;
	/*
	 * Before the reply, while the caller waits for it: a short-lived
	 * process may be gone as soon as it has its answer. Before t0, so that
	 * a thread's one /proc read is not part of its first request's time.
	 */
	q->r.pid = recbuf_pid_of(s->rb, q->r.tid);
	q->t0 = fstap_now_ns();
	q->r.uid = ctx->uid;
	q->r.gid = ctx->gid;
	q->r.obj = ri ? ri->obj : 0;
	/* another request after a synchronous write: its sync will not come */
	if (op != FSTAP_OP_FSYNC && op != FSTAP_OP_FDATASYNC)
		rec_syncw_take(s->syncw, q->r.tid, op, 0);
	return true;
}

/* Whether q, the request of a thread just after its synchronous write, is the kernel's sync. */
static inline void rq_sync_after_write(struct rq *q, uint64_t fh)
{
	if (rec_syncw_take(q->s->syncw, q->r.tid, q->r.op, fh))
		q->r.flags |= FSTAP_RF_KERNEL;
}

static inline void rq_end(struct rq *q, int64_t result)
{
	uint64_t t1;

	if (!q->s->rb)
		return;
	t1 = fstap_now_ns();
	q->r.start_ns = q->t0 - q->s->start_mono;
	q->r.dur_ns = t1 - q->t0;
	q->r.result = result;
}

static inline void rq_emit(struct rq *q)
{
	struct rec_session *s = q->s;

	if (!s->rb)
		return;
	/* RELEASE comes without a process but stands for the application's close */
	if (q->r.tid == 0 && q->r.op != FSTAP_OP_RELEASE && q->r.op != FSTAP_OP_RELEASEDIR)
		q->r.flags |= FSTAP_RF_KERNEL;
	recbuf_add(s->rb, &q->r);
}

/* The credentials of req's caller, for the passthrough's permission checks. */
void rec_cred_of(fuse_req_t req, struct pt_cred *c);
/* A state record (snapshot) into the session's buffer: arg is the session. */
void rec_emit_state(const struct fstap_rec *r, void *arg);
/* --snapshot=touched: describe an existing object the first time it is seen. */
void rec_snap_touched(struct rec_session *s, struct rinode *parent, const char *name,
		      const struct stat *st, uint64_t obj);

/*
 * The attribute timeout of an inode of this mode. In the calls and direct
 * modes directories keep their attributes: with default_permissions the
 * kernel checks search permission on every directory of a path, and asks for
 * its attributes first when they are not cached, so that with timeout 0 one
 * stat("d/f") would be 3 GETATTRs (root, d, f). The kernel drops a directory's
 * cached attributes itself when it changes one through the mount (create,
 * unlink, rename, mkdir, rmdir, link, symlink in it; its own setattr), so
 * they stay right; what is hidden is stat() of a directory that has not
 * changed since its attributes were last fetched.
 */
static inline double attr_tmo(const struct rec_session *s, mode_t mode)
{
	return S_ISDIR(mode) ? s->dir_attr_timeout : s->attr_timeout;
}

/* Replies to a lookup, create or make with e, which the reply gives the kernel. */
void rec_reply_entry(fuse_req_t req, struct rec_session *s, struct pt_entry *e);
/*
 * Without flush_read_only (the calls and direct modes), a file opened
 * read-only is not flushed at close(): the application's close arrives as
 * the RELEASE alone, one request instead of two and one round trip less
 * that the application waits for. A FLUSH forwards write errors of the
 * backing file system, and a read-only descriptor has none. The kernel
 * ignores the flag with the writeback cache (kernel mode).
 */
void rec_fill_open(struct rec_session *s, struct fuse_file_info *fi, uint64_t fh);

/* Names and attributes (rec_entries.c). */
void rec_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void rec_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void rec_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *f);
void rec_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void rec_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		 struct fuse_file_info *fi);
void rec_readlink(fuse_req_t req, fuse_ino_t ino);
void rec_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       dev_t rdev);
void rec_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void rec_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);
void rec_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void rec_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void rec_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void rec_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		fuse_ino_t newparent, const char *newname, unsigned int flags);

/* Files (rec_files.c). */
void rec_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void rec_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		struct fuse_file_info *fi);
void rec_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	      struct fuse_file_info *fi);
void rec_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
	       struct fuse_file_info *fi);
void rec_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void rec_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void rec_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void rec_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
		   struct fuse_file_info *fi);
void rec_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			 struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
			 struct fuse_file_info *fi_out, size_t len, int flags);
void rec_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
	       struct fuse_file_info *fi);
void rec_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
	       struct fuse_file_info *fi, unsigned flags, const void *in_buf,
	       size_t in_bufsz, size_t out_bufsz);

/* Directories (rec_dirs.c). */
void rec_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void rec_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi);
void rec_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void rec_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		  struct fuse_file_info *fi);

/* statfs, access and the xattrs (rec_attrs.c). */
void rec_statfs(fuse_req_t req, fuse_ino_t ino);
void rec_access(fuse_req_t req, fuse_ino_t ino, int mask);
void rec_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
		  size_t size, int flags);
void rec_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void rec_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void rec_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

#endif
