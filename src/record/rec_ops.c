/*
 * rec_ops.c: the recorder's fuse_lowlevel_ops. Every handler has one shape:
 * take t0, call the pt_* function that does the work (passthrough.c), take
 * the end time, reply exactly once, then fill and emit the record (after the
 * reply, so the application does not wait for the encoding; the request's
 * buffers are still valid until the handler returns). The recorded result
 * is the same value that was replied: bytes or 0, or -errno.
 *
 * With --no-trace (s->rb == NULL) the handlers do the same work and reply
 * the same way without touching the clock or a record.
 *
 * Kernel-originated requests get FSTAP_RF_KERNEL: requests without a
 * process (pid 0: writeback, forgets; not RELEASE and RELEASEDIR, which
 * stand for the application's close), writepage writes, setattr with the
 * ctime bit (the kernel flushing times in writeback mode; no system call
 * sets ctime), the kernel's own GETXATTR of security.capability before
 * a write (a heuristic: an application asking for it is flagged too), and
 * the FSYNC or FDATASYNC that follows a synchronous write (O_SYNC, O_DSYNC)
 * in the same thread (syncw.c).
 *
 * Large reads are spliced (rec_read): the data goes from the backing file's
 * page cache through a per-thread pipe into /dev/fuse, copied once by the
 * kernel instead of twice through a buffer of ours.
 *
 * Not here: the file-system work (passthrough.c), chunks and the writer
 * (recbuf.c), the mount (record.c).
 */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <linux/fuse.h>	/* struct fuse_dirent: the layout of a readdir reply */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/fileattr.h"
#include "fstap/xattr.h"
#include "record/record_i.h"
#include "record/snapshot_i.h"

#define DBUF_SIZE 65536
#define DENTS_MAX (DBUF_SIZE / 24 + 1)
#define IOBUF_MIN (1u << 20)
/*
 * Reads of at least this size are replied from a pipe (see rec_read);
 * smaller ones are copied, which costs fewer system calls.
 */
#define SPLICE_MIN (32u * 1024)

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

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
	struct scratch *sc = p;

	if (sc->pipe[0] >= 0) {
		close(sc->pipe[0]);
		close(sc->pipe[1]);
	}
	free(sc->io);
	free(sc->snap);
	free(sc);
}

static void scratch_key_init(void)
{
	pthread_key_create(&scratch_key, scratch_free);
}

static struct scratch *scratch_get(size_t iosize)
{
	struct scratch *sc;

	pthread_once(&scratch_once, scratch_key_init);
	sc = pthread_getspecific(scratch_key);
	if (!sc) {
		sc = calloc(1, sizeof(*sc));
		if (!sc)
			return NULL;
		sc->pipe[0] = sc->pipe[1] = -1;
		pthread_setspecific(scratch_key, sc);
	}
	if (iosize > sc->iocap) {
		size_t cap = iosize < IOBUF_MIN ? IOBUF_MIN : (iosize + 4095) & ~(size_t)4095;
		void *p;

		if (posix_memalign(&p, 4096, cap))
			return NULL;
		free(sc->io);
		sc->io = p;
		sc->iocap = cap;
	}
	return sc;
}

/*
 * Gives sc a pipe that holds a read of size bytes at any offset plus what
 * libfuse puts before it (the reply header, its pipe-size margin of three
 * pages): false if it cannot, for instance past /proc/sys/fs/pipe-max-size
 * without CAP_SYS_RESOURCE. libfuse grows its own pipe to the same size under
 * the same limits, so a read this pipe can hold is spliced all the way.
 */
static bool scratch_pipe(struct scratch *sc, size_t size)
{
	size_t need = size + 4 * 4096;
	int cap;

	if (sc->pipe[0] < 0) {
		if (pipe2(sc->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
			sc->pipe[0] = sc->pipe[1] = -1;
			return false;
		}
		sc->pipecap = 0;
	}
	if (need <= sc->pipecap)
		return true;
	if (sc->pipe_refused && need >= sc->pipe_refused)
		return false;
	cap = need > INT_MAX ? -1 : fcntl(sc->pipe[0], F_SETPIPE_SZ, (int)need);
	if (cap < 0) {
		sc->pipe_refused = need;
		return false;
	}
	sc->pipecap = (size_t)cap;
	return true;
}

/* Closes sc's pipe and what it may still hold; the next read makes a new one. */
static void scratch_pipe_drop(struct scratch *sc)
{
	if (sc->pipe[0] < 0)
		return;
	close(sc->pipe[0]);
	close(sc->pipe[1]);
	sc->pipe[0] = sc->pipe[1] = -1;
	sc->pipecap = 0;
}

/* ---- helpers ------------------------------------------------------------ */

static inline struct rec_session *SES(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static inline struct rinode *RI(struct rec_session *s, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? pt_root(&s->fs) : (struct rinode *)(uintptr_t)ino;
}

static inline fuse_ino_t NODEID(struct rec_session *s, struct rinode *ri)
{
	return ri == pt_root(&s->fs) ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)ri;
}

static inline struct fstap_bytes B(const char *str)
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
	struct rec_session *s = SES(req);
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

static void rq_emit(struct rq *q)
{
	struct rec_session *s = q->s;

	if (!s->rb)
		return;
	/* RELEASE comes without a process but stands for the application's close */
	if (q->r.tid == 0 && q->r.op != FSTAP_OP_RELEASE && q->r.op != FSTAP_OP_RELEASEDIR)
		q->r.flags |= FSTAP_RF_KERNEL;
	recbuf_add(s->rb, &q->r);
}

static int getgroups_cb(void *arg, int size, gid_t *list)
{
	return fuse_req_getgroups((fuse_req_t)arg, size, list);
}

static void cred_of(fuse_req_t req, struct pt_cred *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	c->uid = ctx->uid;
	c->gid = ctx->gid;
	c->pid = ctx->pid;
	c->umask = ctx->umask;
	c->getgroups = getgroups_cb;
	c->getgroups_arg = req;
}

static void emit_cb(const struct fstap_rec *r, void *arg)
{
	struct rec_session *s = arg;

	recbuf_add(s->rb, r);
}

/* --snapshot=touched: describe an existing object the first time it is seen. */
static void snap_touched(struct rec_session *s, struct rinode *parent, const char *name,
			 const struct stat *st, uint64_t obj)
{
	struct scratch *sc = scratch_get(0);
	struct fdlease l;

	if (!sc)
		return;
	if (!sc->snap && !(sc->snap = malloc(sizeof(*sc->snap))))
		return;
	if (fdc_get(&s->fs.it, parent, &l) < 0)
		return;
	fstap_state_inode(sc->snap, l.fd, name, st, obj, s->xattr_value_max, emit_cb, s);
	fdc_put(&s->fs.it, &l);
	fstap_state_dentry(parent->obj, name, obj, emit_cb, s);
}

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
static double attr_tmo(const struct rec_session *s, mode_t mode)
{
	return S_ISDIR(mode) ? s->dir_attr_timeout : s->attr_timeout;
}

static void reply_entry(fuse_req_t req, struct rec_session *s, struct pt_entry *e)
{
	struct fuse_entry_param fe;

	memset(&fe, 0, sizeof(fe));
	fe.ino = NODEID(s, e->ri);
	fe.attr = e->st;
	fe.attr_timeout = attr_tmo(s, e->st.st_mode);
	fe.entry_timeout = s->entry_timeout;
	if (fuse_reply_entry(req, &fe) == -ENOENT)	/* interrupted: the kernel has no ref */
		pt_forget(&s->fs, e->ri, 1);
}

/*
 * Without flush_read_only (the calls and direct modes), a file opened
 * read-only is not flushed at close(): the application's close arrives as
 * the RELEASE alone, one request instead of two and one round trip less
 * that the application waits for. A FLUSH forwards write errors of the
 * backing file system, and a read-only descriptor has none. The kernel
 * ignores the flag with the writeback cache (kernel mode).
 */
static void fill_open(struct rec_session *s, struct fuse_file_info *fi, uint64_t fh)
{
	fi->fh = fh;
	fi->direct_io = s->direct_io;
	fi->keep_cache = s->keep_cache;
	fi->noflush = !s->flush_read_only && (fi->flags & O_ACCMODE) == O_RDONLY;
}

/* ---- init --------------------------------------------------------------- */

static void rec_init(void *userdata, struct fuse_conn_info *conn)
{
	struct rec_session *s = userdata;

	conn->want &= ~(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
	/*
	 * Without keep_cache the kernel drops a file's pages at each open, so
	 * checking the attributes before every read (auto_inval_data, which
	 * libfuse turns on) only adds a GETATTR the application did not ask for
	 * to each read() when attributes are not cached. Reads past the cached
	 * size still refresh them.
	 */
	if (!s->keep_cache)
		conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	if (s->writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
	else
		s->writeback = false;
	s->fs.writeback = s->writeback;
	if (s->cache == REC_CACHE_KERNEL && (conn->capable & FUSE_CAP_CACHE_SYMLINKS))
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* replies may be spliced into /dev/fuse (rec_read); not SPLICE_MOVE */
	s->splice_reply = conn->capable & FUSE_CAP_SPLICE_WRITE;
	/* the file attribute ioctls of directories too (lsattr -d, chattr on a directory) */
	if (conn->capable & FUSE_CAP_IOCTL_DIR)
		conn->want |= FUSE_CAP_IOCTL_DIR;
	if (s->splice_reply)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
}

/* ---- entries ------------------------------------------------------------ */

static void rec_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct rec_session *s = SES(req);
	struct rinode *pr = RI(s, parent);
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LOOKUP, pr);
	int ret = pt_lookup(&s->fs, pr, name, &e);

	rq_end(&q, ret);
	if (on && !ret) {
		/* before the reply: after it, the kernel may forget e.ri at once */
		q.r.child = e.ri->obj;
		if (e.newobj && s->snapshot == REC_SNAP_TOUCHED)
			snap_touched(s, pr, name, &e.st, e.ri->obj);
	}
	if (!ret) {
		reply_entry(req, s, &e);
	} else if (ret == -ENOENT && s->neg_timeout > 0) {
		struct fuse_entry_param fe;

		memset(&fe, 0, sizeof(fe));
		fe.entry_timeout = s->neg_timeout;
		fuse_reply_entry(req, &fe);
	} else {
		fuse_reply_err(req, -ret);
	}
	if (!on)
		return;
	q.r.name = B(name);
	rq_emit(&q);
}

static void forget_one(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FORGET, ri);

	if (on) {
		q.r.size = nlookup;
		q.r.flags |= FSTAP_RF_KERNEL;
	}
	pt_forget(&s->fs, ri, nlookup);	/* ri may be freed now */
	rq_end(&q, 0);
	if (on)
		rq_emit(&q);
}

static void rec_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(req, ino, nlookup);
	fuse_reply_none(req);
}

static void rec_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *f)
{
	size_t i;

	for (i = 0; i < count; i++)
		forget_one(req, f[i].ino, f[i].nlookup);
	fuse_reply_none(req);
}

static void rec_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct stat st;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_GETATTR, ri);
	bool byfh = fi && ri->type == S_IFREG;
	int ret = byfh ? pt_fgetattr(fi->fh, &st) : pt_getattr(&s->fs, ri, &st);

	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, attr_tmo(s, st.st_mode));
	if (!on)
		return;
	if (byfh)
		q.r.fh = PT_FH_ID(fi->fh);
	rq_emit(&q);
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

static void rec_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
			struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct stat st;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_SETATTR, ri);
	bool byfh = fi && ri->type == S_IFREG;
	int ret = pt_setattr(&s->fs, ri, byfh ? PT_FH_FD(fi->fh) : -1, attr, valid, &st);

	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, attr_tmo(s, st.st_mode));
	if (!on)
		return;
	if (byfh)
		q.r.fh = PT_FH_ID(fi->fh);
	q.r.valid = (uint64_t)valid;
	if (valid & FUSE_SET_ATTR_MODE)
		q.r.mode = attr->st_mode;
	if (valid & FUSE_SET_ATTR_UID)
		q.r.owner_uid = attr->st_uid;
	if (valid & FUSE_SET_ATTR_GID)
		q.r.owner_gid = attr->st_gid;
	if (valid & FUSE_SET_ATTR_SIZE)
		q.r.size = (uint64_t)attr->st_size;
	if ((valid & FUSE_SET_ATTR_ATIME) && !(valid & FUSE_SET_ATTR_ATIME_NOW))
		q.r.atime = ts_ns(&attr->st_atim);
	if ((valid & FUSE_SET_ATTR_MTIME) && !(valid & FUSE_SET_ATTR_MTIME_NOW))
		q.r.mtime = ts_ns(&attr->st_mtim);
	if (valid & FUSE_SET_ATTR_CTIME)
		q.r.flags |= FSTAP_RF_KERNEL;
	rq_emit(&q);
}

static void rec_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct scratch *sc = scratch_get(0);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_READLINK, ri);
	int ret = sc ? pt_readlink(&s->fs, ri, sc->link, sizeof(sc->link)) : -ENOMEM;

	if (ret == (int)sizeof(sc->link))
		ret = -ENAMETOOLONG;
	rq_end(&q, ret);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
	} else {
		sc->link[ret] = '\0';
		fuse_reply_readlink(req, sc->link);
	}
	if (!on)
		return;
	if (ret >= 0)
		q.r.target = B(sc->link);
	rq_emit(&q);
}

/* mknod, mkdir, symlink: an entry made by the caller. */
static void finish_make(fuse_req_t req, struct rq *q, bool on, int ret, struct pt_entry *e)
{
	struct rec_session *s = SES(req);

	rq_end(q, ret);
	if (on && !ret)
		q->r.child = e->ri->obj;
	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_entry(req, s, e);
	if (on)
		rq_emit(q);
}

static void rec_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      dev_t rdev)
{
	struct rec_session *s = SES(req);
	struct rinode *pr = RI(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_MKNOD, pr);
	int ret;

	cred_of(req, &c);
	ret = pt_mknod(&s->fs, &c, pr, name, mode, rdev, &e);
	if (on) {
		q.r.name = B(name);
		q.r.mode = mode;
		q.r.rdev = rdev;
		q.r.umask = c.umask;
	}
	finish_make(req, &q, on, ret, &e);
}

static void rec_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct rec_session *s = SES(req);
	struct rinode *pr = RI(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_MKDIR, pr);
	int ret;

	cred_of(req, &c);
	ret = pt_mkdir(&s->fs, &c, pr, name, mode, &e);
	if (on) {
		q.r.name = B(name);
		q.r.mode = mode;
		q.r.umask = c.umask;
	}
	finish_make(req, &q, on, ret, &e);
}

static void rec_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	struct rec_session *s = SES(req);
	struct rinode *pr = RI(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_SYMLINK, pr);
	int ret;

	cred_of(req, &c);
	ret = pt_symlink(&s->fs, &c, link, pr, name, &e);
	if (on) {
		q.r.name = B(name);
		q.r.target = B(link);
	}
	finish_make(req, &q, on, ret, &e);
}

static void rec_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino), *np = RI(s, newparent);
	struct pt_entry e;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LINK, ri);
	int ret = pt_link(&s->fs, ri, np, newname, &e);

	if (on) {
		q.r.newparent = np->obj;
		q.r.newname = B(newname);
	}
	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_entry(req, s, &e);
	if (on)
		rq_emit(&q);
}

/* unlink, rmdir: a name removed from its directory. */
static void remove_name(fuse_req_t req, fuse_ino_t parent, const char *name, unsigned op,
			int (*remove)(struct pt_fs *, struct rinode *, const char *))
{
	struct rec_session *s = SES(req);
	struct rinode *pr = RI(s, parent);
	struct rq q;
	bool on = rq_begin(&q, req, op, pr);
	int ret = remove(&s->fs, pr, name);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = B(name);
	rq_emit(&q);
}

static void rec_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, FSTAP_OP_UNLINK, pt_unlink);
}

static void rec_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, FSTAP_OP_RMDIR, pt_rmdir);
}

static void rec_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		       fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct rec_session *s = SES(req);
	struct rinode *pr = RI(s, parent), *np = RI(s, newparent);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_RENAME, pr);
	int ret = pt_rename(&s->fs, pr, name, np, newname, flags);

	rq_end(&q, ret);
	/* after the reply the new parent may be removed and forgotten */
	q.r.newparent = np->obj;
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = B(name);
	q.r.newname = B(newname);
	q.r.flags_arg = flags;
	rq_emit(&q);
}

/* ---- files -------------------------------------------------------------- */

static void rec_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	uint64_t fh = 0;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_OPEN, ri);
	int ret = pt_open(&s->fs, ri, fi->flags, &fh);

	rq_end(&q, ret);
	if (ret) {
		fuse_reply_err(req, -ret);
	} else {
		fill_open(s, fi, fh);
		if (fuse_reply_open(req, fi) == -ENOENT)
			pt_release(fh);
	}
	if (!on)
		return;
	q.r.flags_arg = (uint64_t)(unsigned)fi->flags;
	q.r.fh = PT_FH_ID(fh);
	rq_emit(&q);
}

static void rec_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		       struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct rinode *pr = RI(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	uint64_t fh = 0;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_CREATE, pr);
	int ret;

	cred_of(req, &c);
	ret = pt_create(&s->fs, &c, pr, name, mode, fi->flags, &e, &fh);
	rq_end(&q, ret);
	if (on && !ret) {
		q.r.child = e.ri->obj;
		q.r.fh = PT_FH_ID(fh);
	}
	if (ret) {
		fuse_reply_err(req, -ret);
	} else {
		struct fuse_entry_param fe;

		memset(&fe, 0, sizeof(fe));
		fe.ino = NODEID(s, e.ri);
		fe.attr = e.st;
		fe.attr_timeout = s->attr_timeout;
		fe.entry_timeout = s->entry_timeout;
		fill_open(s, fi, fh);
		if (fuse_reply_create(req, &fe, fi) == -ENOENT) {
			pt_release(fh);
			pt_forget(&s->fs, e.ri, 1);
		}
	}
	if (!on)
		return;
	q.r.name = B(name);
	q.r.mode = mode;
	q.r.umask = c.umask;
	q.r.flags_arg = (uint64_t)(unsigned)fi->flags;
	rq_emit(&q);
}

/*
 * Replies n bytes that are in sc's pipe: libfuse splices them behind the
 * reply header into /dev/fuse, and the kernel copies them from the backing
 * file's pages into the reader's. If the reply fails, what is left in the
 * pipe is dropped with it.
 */
static void reply_pipe(fuse_req_t req, struct scratch *sc, size_t n)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(n);

	bv.buf[0].flags = FUSE_BUF_IS_FD;
	bv.buf[0].fd = sc->pipe[0];
	if (fuse_reply_data(req, &bv, 0) != 0)
		scratch_pipe_drop(sc);
}

/*
 * A large read of a handle without O_DIRECT is spliced when the session
 * negotiated FUSE_CAP_SPLICE_WRITE: the backing file's pages go into a pipe
 * by reference and are copied once, into the reader's pages, where a pread
 * into a buffer and a writev out of it copy them twice. The result recorded
 * and replied is the same: the bytes read (short only at the end of the
 * file, as the kernel reads a short reply), or, when the splice fails, what
 * a pread of the same range gives.
 */
static void rec_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct scratch *sc = scratch_get(size);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_READ, RI(s, ino));
	bool piped = false;
	ssize_t ret;

	if (!sc) {
		ret = -ENOMEM;
	} else if (s->splice_reply && size >= SPLICE_MIN && !PT_FH_DIRECT(fi->fh) &&
		   scratch_pipe(sc, size)) {
		ret = pt_read_pipe(fi->fh, sc->pipe[1], size, off);
		if (ret < 0) {
			scratch_pipe_drop(sc);
			ret = pt_read(fi->fh, sc->io, size, off);
		} else {
			piped = ret > 0;	/* 0: end of file, an empty reply */
		}
	} else {
		ret = pt_read(fi->fh, sc->io, size, off);
	}

	rq_end(&q, ret);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else if (piped)
		reply_pipe(req, sc, (size_t)ret);
	else
		fuse_reply_buf(req, sc->io, (size_t)ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	q.r.offset = (uint64_t)off;
	q.r.size = size;
	rq_emit(&q);
}

/*
 * The setuid and setgid bits of a file written by a caller other than root
 * are cleared here, as the backing file system clears them for a write by
 * that caller (the daemon's own write, as root with CAP_FSETID, would keep
 * them), before the data is written. For writes through its page cache the
 * kernel clears them itself, but not the setgid bit of a file without group
 * execute whose group the caller is not in; in the direct mode
 * (FOPEN_DIRECT_IO) it leaves all of it to the file system. It costs an
 * fstat per write of such callers. The kernel's own writeback (writepage)
 * carries no caller: in the kernel mode that one case stays as FUSE leaves it.
 */
static void rec_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct scratch *sc = PT_FH_DIRECT(fi->fh) ? scratch_get(size) : NULL;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_WRITE, RI(s, ino));
	ssize_t ret = 0;

	if (size && fuse_req_ctx(req)->uid != 0 && !fi->writepage) {
		struct pt_cred c;

		cred_of(req, &c);
		ret = pt_write_drop_privs(fi->fh, &c);
	}
	if (!ret)
		ret = pt_write(fi->fh, buf, size, off, sc ? sc->io : NULL);

	rq_end(&q, ret);
	/*
	 * Before the reply: the kernel's sync comes as soon as it has it, on
	 * another of our threads. Not after writepage writes (no thread's)
	 * nor FOPEN_DIRECT_IO ones (the kernel does not sync them).
	 */
	if (on && ret > 0 && !fi->writepage && !s->direct_io)
		rec_syncw_wrote(s->syncw, q.r.tid, PT_FH_ID(fi->fh), fi->flags);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else
		fuse_reply_write(req, (size_t)ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	q.r.offset = (uint64_t)off;
	q.r.size = size;
	if (fi->writepage)
		q.r.flags |= FSTAP_RF_KERNEL;
	rq_emit(&q);
}

static void rec_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FLUSH, RI(SES(req), ino));
	int ret = pt_flush(fi->fh);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	rq_emit(&q);
}

static void rec_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_RELEASE, RI(SES(req), ino));
	int ret = pt_release(fi->fh);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	q.r.flags_arg = (uint64_t)(unsigned)fi->flags;
	rq_emit(&q);
}

static void rec_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, datasync ? FSTAP_OP_FDATASYNC : FSTAP_OP_FSYNC,
			   RI(SES(req), ino));
	int ret;

	/* before the reply, which lets the thread's next request come */
	if (on)
		rq_sync_after_write(&q, PT_FH_ID(fi->fh));
	ret = pt_fsync(fi->fh, datasync);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	rq_emit(&q);
}

/* ---- directories -------------------------------------------------------- */

static void rec_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct pt_dir *d = NULL;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_OPENDIR, ri);
	int ret = pt_opendir(&s->fs, ri, &d);

	rq_end(&q, ret);
	if (on && d)
		q.r.fh = d->id;
	if (ret) {
		fuse_reply_err(req, -ret);
	} else {
		fi->fh = (uint64_t)(uintptr_t)d;
		if (s->cache == REC_CACHE_KERNEL)
			fi->cache_readdir = 1;
		if (fuse_reply_open(req, fi) == -ENOENT)
			pt_releasedir(d);
	}
	if (!on)
		return;
	q.r.flags_arg = (uint64_t)(unsigned)fi->flags;
	rq_emit(&q);
}

/* Object ids of the listed entries; with --snapshot=touched, the state of new ones. */
static void readdir_objects(struct rec_session *s, struct pt_dir *d, const struct fstap_rec *r,
			    struct scratch *sc, uint32_t n, bool touched)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct fstap_dirent *ent = &sc->ents[i];
		bool newobj = false;

		if (ent->name.len <= 2 && ent->name.ptr[0] == '.' &&
		    (ent->name.len == 1 || ent->name.ptr[1] == '.')) {
			if (ent->name.len == 1)
				ent->obj = r->obj;
			continue;
		}
		ent->obj = itable_obj_of(&s->fs.it, d->dev, (ino_t)ent->ino, touched, &newobj);
		if (newobj) {
			struct stat st;
			char name[NAME_MAX + 1];

			memcpy(name, ent->name.ptr, ent->name.len);
			name[ent->name.len] = '\0';
			if (!sc->snap && !(sc->snap = malloc(sizeof(*sc->snap))))
				continue;
			if (!fstatat(dirfd(d->dp), name, &st, AT_SYMLINK_NOFOLLOW))
				fstap_state_inode(sc->snap, dirfd(d->dp), name, &st, ent->obj,
					   s->xattr_value_max, emit_cb, s);
			fstap_state_dentry(r->obj, name, ent->obj, emit_cb, s);
		}
	}
}

/* Object ids of the listed entries, without assigning new ones: one table lock for all. */
static void readdir_known_objects(struct rec_session *s, dev_t dev,
				  const struct fstap_rec *r, struct scratch *sc, uint32_t n)
{
	uint32_t i;

	itable_dirent_objs(&s->fs.it, dev, sc->ents, n);
	for (i = 0; i < n; i++) {	/* ".": the directory itself; "..": not named */
		struct fstap_dirent *ent = &sc->ents[i];

		if (ent->name.len <= 2 && ent->name.ptr[0] == '.' &&
		    (ent->name.len == 1 || ent->name.ptr[1] == '.'))
			ent->obj = ent->name.len == 1 ? r->obj : 0;
	}
}

static void rec_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct rec_session *s = SES(req);
	struct pt_dir *d = (struct pt_dir *)(uintptr_t)fi->fh;
	struct scratch *sc = scratch_get(0);
	struct pt_dirent_out de;
	size_t pos = 0;
	uint32_t n = 0;
	off_t o = off;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_READDIR, RI(s, ino));
	bool touched = s->snapshot == REC_SNAP_TOUCHED;
	dev_t dev = 0;
	int ret = 0;

	if (!sc) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (size > DBUF_SIZE)
		size = DBUF_SIZE;
	for (;;) {
		struct stat st;
		size_t len;

		ret = pt_readdir_next(d, o, &de);
		if (ret <= 0)
			break;
		memset(&st, 0, sizeof(st));
		st.st_ino = de.ino;
		st.st_mode = (mode_t)de.type << 12;
		len = fuse_add_direntry(req, sc->dbuf + pos, size - pos, de.name, &st, de.next_off);
		if (len > size - pos)
			break;
		if (on) {
			/*
			 * The record's names point into the reply, which holds
			 * each name after its length (struct fuse_dirent, the
			 * kernel's ABI) and stays in this thread's scratch until
			 * the record is encoded: no copy and no strlen per entry.
			 */
			struct fstap_dirent *ent = &sc->ents[n];
			uint32_t nl;

			memcpy(&nl, sc->dbuf + pos + offsetof(struct fuse_dirent, namelen), sizeof(nl));
			ent->name.ptr = (const uint8_t *)sc->dbuf + pos + FUSE_NAME_OFFSET;
			ent->name.len = nl;
			ent->ino = de.ino;
			ent->type = de.type;
			ent->obj = 0;
			n++;
		}
		pos += len;
		o = de.next_off;
		pt_readdir_consume(d);
	}
	if (ret < 0 && pos > 0)
		ret = 0;	/* return what was read; the error comes again next time */
	rq_end(&q, ret < 0 ? ret : (int64_t)n);
	/*
	 * What needs d is done before the reply: after it, a RELEASEDIR may
	 * free d. That is the id, the device its entries are on, and with
	 * --snapshot=touched the state of new entries (read through the
	 * directory's descriptor). Otherwise the entries' object ids are looked
	 * up after the reply, off the application's wait (the names are in
	 * this thread's scratch).
	 */
	if (on) {
		dev = d->dev;
		q.r.fh = d->id;
		q.r.offset = (uint64_t)off;
		q.r.size = size;
		if (ret >= 0 && touched)
			readdir_objects(s, d, &q.r, sc, n, true);
	}
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_buf(req, sc->dbuf, pos);
	if (!on)
		return;
	if (ret >= 0) {
		if (!touched)
			readdir_known_objects(s, dev, &q.r, sc, n);
		q.r.nentries = n;
		q.r.entries = sc->ents;
	}
	rq_emit(&q);
}

static void rec_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_dir *d = (struct pt_dir *)(uintptr_t)fi->fh;
	uint64_t id = d->id;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_RELEASEDIR, RI(SES(req), ino));
	int ret = pt_releasedir(d);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = id;
	rq_emit(&q);
}

static void rec_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			 struct fuse_file_info *fi)
{
	struct pt_dir *d = (struct pt_dir *)(uintptr_t)fi->fh;
	uint64_t id = d->id;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FSYNCDIR, RI(SES(req), ino));
	int ret = pt_fsyncdir(d, datasync);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = id;
	q.r.flags_arg = (uint64_t)datasync;
	rq_emit(&q);
}

/* ---- the rest ----------------------------------------------------------- */

static void rec_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct statvfs sv;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_STATFS, ri);
	int ret = pt_statfs(&s->fs, ri, &sv);

	rq_end(&q, ret);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_statfs(req, &sv);
	if (on)
		rq_emit(&q);
}

static void rec_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct pt_cred c;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_ACCESS, ri);
	int ret;

	cred_of(req, &c);
	ret = pt_access(&s->fs, &c, ri, mask);
	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.mode = (uint64_t)mask;
	rq_emit(&q);
}

static bool kernel_xattr(const char *name)
{
	return !strcmp(name, "security.capability");
}

static void rec_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			 size_t size, int flags)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_SETXATTR, ri);
	int ret = pt_setxattr(&s->fs, ri, name, value, size, flags);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = B(name);
	q.r.size = size;
	q.r.flags_arg = (uint64_t)(unsigned)flags;
	if (size && fstap_xattr_value_kept(name, size, s->xattr_value_max))
		q.r.value = (struct fstap_bytes){ (const uint8_t *)value, (uint32_t)size };
	rq_emit(&q);
}

static void rec_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct scratch *sc = scratch_get(size);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_GETXATTR, ri);
	ssize_t ret = sc ? pt_getxattr(&s->fs, ri, name, size ? sc->io : NULL, size) : -ENOMEM;

	rq_end(&q, ret);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)ret);
	else
		fuse_reply_buf(req, sc->io, (size_t)ret);
	if (!on)
		return;
	q.r.name = B(name);
	q.r.size = size;
	if (size && ret > 0 && fstap_xattr_value_kept(name, (size_t)ret, s->xattr_value_max))
		q.r.value = (struct fstap_bytes){ sc->io, (uint32_t)ret };
	if (kernel_xattr(name))
		q.r.flags |= FSTAP_RF_KERNEL;
	rq_emit(&q);
}

static void rec_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct scratch *sc = scratch_get(size);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LISTXATTR, ri);
	struct pt_cred c;
	ssize_t ret;

	cred_of(req, &c);
	ret = sc ? pt_listxattr(&s->fs, &c, ri, size ? sc->io : NULL, size) : -ENOMEM;

	rq_end(&q, ret);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)ret);
	else
		fuse_reply_buf(req, sc->io, (size_t)ret);
	if (!on)
		return;
	q.r.size = size;
	rq_emit(&q);
}

static void rec_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct rec_session *s = SES(req);
	struct rinode *ri = RI(s, ino);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_REMOVEXATTR, ri);
	int ret = pt_removexattr(&s->fs, ri, name);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.name = B(name);
	rq_emit(&q);
}

static void rec_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
			  struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FALLOCATE, RI(SES(req), ino));
	int ret = pt_fallocate(fi->fh, mode, off, len);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	q.r.flags_arg = (uint64_t)(unsigned)mode;
	q.r.offset = (uint64_t)off;
	q.r.size = (uint64_t)len;
	rq_emit(&q);
}

static void rec_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
				struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
				struct fuse_file_info *fi_out, size_t len, int flags)
{
	struct rec_session *s = SES(req);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_COPY_FILE_RANGE, RI(s, ino_in));
	ssize_t ret = pt_copy_file_range(fi_in->fh, off_in, fi_out->fh, off_out, len,
					 (unsigned)flags);

	rq_end(&q, ret);
	/* after the reply the output file may be closed, removed and forgotten */
	q.r.obj2 = RI(s, ino_out)->obj;
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else
		fuse_reply_write(req, (size_t)ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi_in->fh);
	q.r.offset = (uint64_t)off_in;
	q.r.fh2 = PT_FH_ID(fi_out->fh);
	q.r.offset2 = (uint64_t)off_out;
	q.r.size = len;
	q.r.flags_arg = (uint64_t)(unsigned)flags;
	rq_emit(&q);
}

static void rec_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		      struct fuse_file_info *fi)
{
	off_t res = 0;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LSEEK, RI(SES(req), ino));
	int ret = pt_lseek(fi->fh, off, whence, &res);

	rq_end(&q, ret < 0 ? ret : (int64_t)res);
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_lseek(req, res);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	q.r.offset = (uint64_t)off;
	q.r.whence = (uint64_t)whence;
	rq_emit(&q);
}

/*
 * ioctl: the four file attribute commands (lsattr, chattr, project ids),
 * which the kernel's VFS turns into its fileattr get and set and FUSE sends
 * here as FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_IOC_FSGETXATTR and
 * FS_IOC_FSSETXATTR on a handle it opens for them, with the sizes of its
 * own arguments (restricted ioctls: the kernel has copied the argument in
 * and copies the reply out). The VFS has checked ownership and
 * CAP_LINUX_IMMUTABLE for the caller on the FUSE inode; the backing file
 * system checks them again for the caller's fsuid (pt_fileattr). Any other
 * command gets ENOTTY, the answer of a FUSE file system without ioctls,
 * and is recorded with its number. FS_IOC_FIEMAP never comes here: FUSE has
 * no fiemap.
 */
static void rec_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		      struct fuse_file_info *fi, unsigned flags, const void *in_buf,
		      size_t in_bufsz, size_t out_bufsz)
{
	struct pt_dir *d = (flags & FUSE_IOCTL_DIR) ? (struct pt_dir *)(uintptr_t)fi->fh : NULL;
	size_t size = fstap_fileattr_size(cmd);
	bool sets = fstap_fileattr_sets(cmd);
	union fstap_fileattr_arg a;
	struct pt_cred c;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_IOCTL, RI(SES(req), ino));
	int ret;

	(void)arg;
	memset(&a, 0, sizeof(a));
	if (!size) {
		ret = -ENOTTY;
	} else if (sets ? in_bufsz < size : out_bufsz < size) {
		ret = -EINVAL;
	} else {
		if (sets)
			memcpy(&a, in_buf, size);
		cred_of(req, &c);
		ret = pt_fileattr(d ? dirfd(d->dp) : PT_FH_FD(fi->fh), &c, cmd, &a);
	}
	rq_end(&q, ret);
	/* before the reply: after it, a RELEASEDIR may free d */
	q.r.fh = d ? d->id : PT_FH_ID(fi->fh);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_ioctl(req, 0, sets ? NULL : &a, sets ? 0 : size);
	if (!on)
		return;
	q.r.cmd = cmd;
	if (size && (sets || !ret))
		fstap_fileattr_to_rec(&q.r, cmd, &a);
	rq_emit(&q);
}

void rec_session_set_cache(struct rec_session *s, enum rec_cache mode)
{
	s->cache = mode;
	s->entry_timeout = s->attr_timeout = s->neg_timeout = s->dir_attr_timeout = 0;
	s->direct_io = s->keep_cache = s->writeback = false;
	s->flush_read_only = true;
	switch (mode) {
	case REC_CACHE_ALL:
		break;
	case REC_CACHE_DIRECT:
		s->direct_io = true;
		/* fall through */
	case REC_CACHE_CALLS:
		s->entry_timeout = s->dir_attr_timeout = 86400;
		s->flush_read_only = false;
		break;
	case REC_CACHE_KERNEL:
		s->entry_timeout = s->attr_timeout = s->neg_timeout = 86400;
		s->dir_attr_timeout = 86400;
		s->keep_cache = true;
		s->writeback = true;
		break;
	default:
		break;
	}
}

const struct fuse_lowlevel_ops rec_ops = {
	.init = rec_init,
	.lookup = rec_lookup,
	.forget = rec_forget,
	.forget_multi = rec_forget_multi,
	.getattr = rec_getattr,
	.setattr = rec_setattr,
	.readlink = rec_readlink,
	.mknod = rec_mknod,
	.mkdir = rec_mkdir,
	.unlink = rec_unlink,
	.rmdir = rec_rmdir,
	.symlink = rec_symlink,
	.rename = rec_rename,
	.link = rec_link,
	.open = rec_open,
	.read = rec_read,
	.write = rec_write,
	.flush = rec_flush,
	.release = rec_release,
	.fsync = rec_fsync,
	.opendir = rec_opendir,
	.readdir = rec_readdir,
	.releasedir = rec_releasedir,
	.fsyncdir = rec_fsyncdir,
	.statfs = rec_statfs,
	.setxattr = rec_setxattr,
	.getxattr = rec_getxattr,
	.listxattr = rec_listxattr,
	.removexattr = rec_removexattr,
	.access = rec_access,
	.create = rec_create,
	.fallocate = rec_fallocate,
	.copy_file_range = rec_copy_file_range,
	.lseek = rec_lseek,
	.ioctl = rec_ioctl,
};
