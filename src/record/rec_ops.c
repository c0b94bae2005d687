/*
 * rec_ops.c: the recorder's fuse_lowlevel_ops table, its init, and what its
 * handlers share (rec_ops_i.h); the handlers are in rec_entries.c,
 * rec_files.c, rec_dirs.c and rec_attrs.c. Every handler has one shape:
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
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/state.h"
#include "record/rec_ops_i.h"

#define IOBUF_MIN (1u << 20)

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

struct scratch *rec_scratch_get(size_t iosize)
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

/* ---- helpers ------------------------------------------------------------ */

static int getgroups_cb(void *arg, int size, gid_t *list)
{
	return fuse_req_getgroups((fuse_req_t)arg, size, list);
}

void rec_cred_of(fuse_req_t req, struct pt_cred *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	c->uid = ctx->uid;
	c->gid = ctx->gid;
	c->pid = ctx->pid;
	c->umask = ctx->umask;
	c->getgroups = getgroups_cb;
	c->getgroups_arg = req;
}

void rec_emit_state(const struct fstap_rec *r, void *arg)
{
	struct rec_session *s = arg;

	recbuf_add(s->rb, r);
}

/* --snapshot=touched: describe an existing object the first time it is seen. */
void rec_snap_touched(struct rec_session *s, struct rinode *parent, const char *name,
		      const struct stat *st, uint64_t obj)
{
	struct scratch *sc = rec_scratch_get(0);
	struct fdlease l;

	if (!sc)
		return;
	if (!sc->snap && !(sc->snap = malloc(sizeof(*sc->snap))))
		return;
	if (fdc_get(&s->fs.it, parent, &l) < 0)
		return;
	fstap_state_inode(sc->snap, l.fd, name, st, obj, s->xattr_value_max, rec_emit_state, s);
	fdc_put(&s->fs.it, &l);
	fstap_state_dentry(parent->obj, name, obj, rec_emit_state, s);
}

void rec_reply_entry(fuse_req_t req, struct rec_session *s, struct pt_entry *e)
{
	struct fuse_entry_param fe;

	memset(&fe, 0, sizeof(fe));
	fe.ino = nodeid_of(s, e->ri);
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
void rec_fill_open(struct rec_session *s, struct fuse_file_info *fi, uint64_t fh)
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
