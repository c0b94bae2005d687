/*
 * rec_files.c: the recorder's handlers of open files: open, create, read
 * (spliced when large), write, flush, release, fsync, fallocate,
 * copy_file_range, lseek, ioctl (the shape of a handler: rec_ops.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/fileattr.h"
#include "record/rec_ops_i.h"

/*
 * Reads of at least this size are replied from a pipe (see rec_read);
 * smaller ones are copied, which costs fewer system calls.
 */
#define SPLICE_MIN (32u * 1024)

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


void rec_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
	uint64_t fh = 0;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_OPEN, ri);
	int ret = pt_open(&s->fs, ri, fi->flags, &fh);

	rq_end(&q, ret);
	if (ret) {
		fuse_reply_err(req, -ret);
	} else {
		rec_fill_open(s, fi, fh);
		if (fuse_reply_open(req, fi) == -ENOENT)
			pt_release(fh);
	}
	if (!on)
		return;
	q.r.flags_arg = (uint64_t)(unsigned)fi->flags;
	q.r.fh = PT_FH_ID(fh);
	rq_emit(&q);
}

void rec_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct rinode *pr = inode_of(s, parent);
	struct pt_cred c;
	struct pt_entry e;
	uint64_t fh = 0;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_CREATE, pr);
	int ret;

	rec_cred_of(req, &c);
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
		fe.ino = nodeid_of(s, e.ri);
		fe.attr = e.st;
		fe.attr_timeout = s->attr_timeout;
		fe.entry_timeout = s->entry_timeout;
		rec_fill_open(s, fi, fh);
		if (fuse_reply_create(req, &fe, fi) == -ENOENT) {
			pt_release(fh);
			pt_forget(&s->fs, e.ri, 1);
		}
	}
	if (!on)
		return;
	q.r.name = bytes_of(name);
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
void rec_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	      struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct scratch *sc = rec_scratch_get(size);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_READ, inode_of(s, ino));
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
void rec_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
	       struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct scratch *sc = PT_FH_DIRECT(fi->fh) ? rec_scratch_get(size) : NULL;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_WRITE, inode_of(s, ino));
	ssize_t ret = 0;

	if (size && fuse_req_ctx(req)->uid != 0 && !fi->writepage) {
		struct pt_cred c;

		rec_cred_of(req, &c);
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

void rec_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FLUSH, inode_of(session_of(req), ino));
	int ret = pt_flush(fi->fh);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	rq_emit(&q);
}

void rec_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_RELEASE, inode_of(session_of(req), ino));
	int ret = pt_release(fi->fh);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = PT_FH_ID(fi->fh);
	q.r.flags_arg = (uint64_t)(unsigned)fi->flags;
	rq_emit(&q);
}

void rec_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, datasync ? FSTAP_OP_FDATASYNC : FSTAP_OP_FSYNC,
			   inode_of(session_of(req), ino));
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


void rec_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
		   struct fuse_file_info *fi)
{
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FALLOCATE, inode_of(session_of(req), ino));
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

void rec_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			 struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
			 struct fuse_file_info *fi_out, size_t len, int flags)
{
	struct rec_session *s = session_of(req);
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_COPY_FILE_RANGE, inode_of(s, ino_in));
	ssize_t ret = pt_copy_file_range(fi_in->fh, off_in, fi_out->fh, off_out, len,
					 (unsigned)flags);

	rq_end(&q, ret);
	/* after the reply the output file may be closed, removed and forgotten */
	q.r.obj2 = inode_of(s, ino_out)->obj;
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

void rec_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
	       struct fuse_file_info *fi)
{
	off_t res = 0;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_LSEEK, inode_of(session_of(req), ino));
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
void rec_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
	       struct fuse_file_info *fi, unsigned flags, const void *in_buf,
	       size_t in_bufsz, size_t out_bufsz)
{
	struct pt_dir *d = (flags & FUSE_IOCTL_DIR) ? (struct pt_dir *)(uintptr_t)fi->fh : NULL;
	size_t size = fstap_fileattr_size(cmd);
	bool sets = fstap_fileattr_sets(cmd);
	union fstap_fileattr_arg a;
	struct pt_cred c;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_IOCTL, inode_of(session_of(req), ino));
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
		rec_cred_of(req, &c);
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
