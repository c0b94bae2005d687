/*
 * record_i.h: private structures of the recorder (src/record/).
 *
 * Three layers, each in its own file:
 *  - inode.c: the table of known inodes (nodeid <-> backing inode), stable
 *    object ids, and a bounded cache of O_PATH descriptors opened from file
 *    handles, so that no descriptor is held per known inode;
 *  - passthrough.c: pt_* functions that do the file-system work with *at()
 *    system calls and return 0 or -errno. They never talk to FUSE and never
 *    record, so tests call them on a temporary directory;
 *  - rec_ops.c: the fuse_lowlevel_ops table: time, call pt_*, reply once,
 *    record. recbuf.c: the per-thread chunks and the writer thread.
 * record.c ties them together (options, mount, loop, teardown).
 *
 * Not a public API: only src/record/ and its tests include this.
 */
#ifndef FSTAP_RECORD_I_H
#define FSTAP_RECORD_I_H

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include "fstap/trace.h"
#include "fstap/util.h"
#include "record/record.h"

struct fuse_lowlevel_ops;

/* ---- inode table (inode.c) ---------------------------------------------- */

/*
 * One backing inode the kernel knows (nlookup > 0). Its address is the FUSE
 * nodeid, except for the root whose nodeid is FUSE_ROOT_ID.
 */
struct rinode {
	struct rinode *hnext;	/* chain in the (dev, ino) hash; table lock */
	uint64_t obj;		/* stable object id in the trace; immutable */
	dev_t dev;		/* immutable */
	ino_t ino;		/* immutable */
	mode_t type;		/* S_IFMT bits; immutable */
	uint64_t nlookup;	/* table lock */
	bool hashed;		/* in the hash (false once unlinked); table lock */
	struct rinode *uprev, *unext;	/* the unhashed list while !hashed; table lock */
	int pinned_fd;		/* O_PATH fd held for life when handles are
				 * unsupported, else -1; immutable */
	int slot;		/* fd cache slot, or -1; cache lock */
	struct file_handle *handle;	/* NULL when pinned; immutable */
	/*
	 * The name it was first found under and its directory's identity, to
	 * stat it by name when its descriptor is not cached (see
	 * itable_stat_by_name); NULL if unknown. Immutable.
	 */
	char *name;
	dev_t pdev;
	ino_t pino;
};

/* A descriptor borrowed from the cache; give it back with fdc_put. */
struct fdlease {
	int fd;
	int slot;		/* -1: private fd, closed by fdc_put */
};

struct fdslot {
	struct rinode *owner;	/* cache lock */
	int fd;
	uint32_t refs;
	bool referenced;	/* clock bit */
	bool reused;		/* hit since the owner was put in */
};

struct itable {
	pthread_mutex_t lock;
	struct rinode **hash;	/* lock */
	size_t nbuckets;	/* lock */
	size_t count;		/* lock */
	struct rinode *unhashed;	/* deleted inodes the kernel still knows; lock */

	/* object ids: backing ino -> obj, kept after forget so ids are stable */
	struct fstap_map objs;	/* obj_key(dev, ino) -> obj; lock */
	uint64_t next_obj;	/* lock */

	struct rinode root;
	int mount_fd;		/* the backing root, for open_by_handle_at */
	bool use_handles;
	dev_t dev;		/* backing root's device */

	pthread_mutex_t cache_lock;
	struct fdslot *slots;	/* cache_lock */
	unsigned nslots, hand, admit;	/* cache_lock */
	atomic_ulong cache_opens, cache_hits, cache_evictions;
};

/* Sets up the table over the backing root directory fd (borrowed). */
int itable_init(struct itable *t, int root_fd, unsigned cache_slots);
void itable_release(struct itable *t);
/*
 * Finds or adds the inode of (parent fd, name) whose stat is st, adds one
 * lookup; *newobj tells whether its object id is new to the trace. Remembers
 * parent and name for itable_stat_by_name. -EAGAIN if name is no longer
 * st's inode (renamed over meanwhile): stat it again and retry.
 */
int itable_get_at(struct itable *t, const struct rinode *parent, int parent_fd,
		  const char *name, const struct stat *st, struct rinode **out, bool *newobj);
/*
 * Stats ri through its parent's cached descriptor and its first name,
 * without opening it; 0 if that name is still ri (same dev and ino), else
 * -errno (-ESTALE: renamed, removed, or no cached parent descriptor).
 */
int itable_stat_by_name(struct itable *t, struct rinode *ri, struct stat *st);
/*
 * Puts fd (an O_PATH descriptor of ri) in the cache, bypassing scan
 * resistance; the cache owns it afterwards. *victim gets a descriptor for
 * the caller to close, outside its locks: the one evicted, or fd itself
 * when ri has one already or every slot is busy (-EBUSY); else -1.
 */
int fdc_install(struct itable *t, struct rinode *ri, int fd, int *victim);
/* A descriptor of ri only if one is cached (or pinned): no open. 0 or -ENOENT. */
int fdc_get_cached(struct itable *t, struct rinode *ri, struct fdlease *out);
/* Adds one lookup to a known inode (link, or the kernel re-using a nodeid). */
void itable_ref(struct itable *t, struct rinode *ri);
/* Drops n lookups; frees the inode at zero. */
void itable_forget(struct itable *t, struct rinode *ri, uint64_t n);
/* The backing inode (dev, ino) was deleted: forget its name and object id. */
void itable_unhash(struct itable *t, dev_t dev, ino_t ino);
/*
 * unlinkat(parent_fd, name, flags), then forget (dev, ino)'s identity,
 * atomically with respect to lookups. 0 or -errno.
 */
int itable_remove_name(struct itable *t, int parent_fd, const char *name, int flags,
		       dev_t dev, ino_t ino);
/* renameat2 over an inode (dev, ino) that it replaces, likewise. */
int itable_rename_over(struct itable *t, int fd, const char *name, int newfd,
		       const char *newname, unsigned flags, dev_t dev, ino_t ino);
/*
 * The object id of backing inode (dev, ino), assigning one (for readdir and
 * snapshots). dev is that of the file system it is on: the backing tree's,
 * or one mounted below it.
 */
uint64_t itable_obj_of(struct itable *t, dev_t dev, ino_t ino, bool assign, bool *newobj);
/*
 * The object ids of n entries listed from a directory on dev (0: not known
 * yet), under one lock. A mount point's entry is the directory it covers
 * (getdents reports that inode), not the mounted root a lookup finds.
 */
void itable_dirent_objs(struct itable *t, dev_t dev, struct fstap_dirent *ents, uint32_t n);

int fdc_get(struct itable *t, struct rinode *ri, struct fdlease *out);
void fdc_put(struct itable *t, struct fdlease *l);

/* ---- passthrough (passthrough.c) ---------------------------------------- */

/* Who asks: files are created with these ids. */
struct pt_cred {
	uid_t uid;
	gid_t gid;
	pid_t pid;		/* for the supplementary groups, 0: none */
	mode_t umask;
	/* fills list with the caller's groups, returns their count or -errno */
	int (*getgroups)(void *arg, int size, gid_t *list);
	void *getgroups_arg;
};

struct pt_fs {
	struct itable it;
	int root_fd;		/* the backing directory, O_RDONLY|O_DIRECTORY */
	int proc_fd;		/* /proc/self/fd, O_PATH */
	bool writeback;		/* kernel writeback cache on: no O_APPEND, O_WRONLY->O_RDWR */
	atomic_ullong next_fh;	/* handle ids */
};

/* A new entry: its inode and attributes. */
struct pt_entry {
	struct rinode *ri;
	struct stat st;
	bool newobj;		/* its object id is new to the trace */
};

/*
 * An open file: fi->fh. The fd, and O_DIRECT in bit 23, in the low 24 bits;
 * the handle id (unique for the session) above.
 */
#define PT_FH_FD(fh)	((int)((fh) & 0x7fffff))
#define PT_FH_DIRECT(fh)	(((fh) >> 23) & 1)
#define PT_FH_ID(fh)	((fh) >> 24)

/* An open directory: fi->fh points to it. */
struct pt_dir {
	DIR *dp;
	dev_t dev;		/* the file system the directory is on */
	uint64_t id;
	off_t offset;		/* the stream's position */
	struct dirent *pending;	/* read but not yet returned */
};

struct pt_dirent_out {
	const char *name;
	ino_t ino;
	unsigned char type;
	off_t next_off;
};

int pt_fs_init(struct pt_fs *fs, int root_fd, unsigned cache_slots);
void pt_fs_release(struct pt_fs *fs);
struct rinode *pt_root(struct pt_fs *fs);

int pt_lookup(struct pt_fs *fs, struct rinode *parent, const char *name, struct pt_entry *e);
void pt_forget(struct pt_fs *fs, struct rinode *ri, uint64_t n);
int pt_getattr(struct pt_fs *fs, struct rinode *ri, struct stat *st);
/* Attributes of an open file. */
int pt_fgetattr(uint64_t fh, struct stat *st);
int pt_setattr(struct pt_fs *fs, struct rinode *ri, int fd, const struct stat *attr,
	       int valid, struct stat *st);
int pt_readlink(struct pt_fs *fs, struct rinode *ri, char *buf, size_t size);
int pt_mknod(struct pt_fs *fs, const struct pt_cred *c, struct rinode *parent,
	     const char *name, mode_t mode, dev_t rdev, struct pt_entry *e);
int pt_mkdir(struct pt_fs *fs, const struct pt_cred *c, struct rinode *parent,
	     const char *name, mode_t mode, struct pt_entry *e);
int pt_symlink(struct pt_fs *fs, const struct pt_cred *c, const char *target,
	       struct rinode *parent, const char *name, struct pt_entry *e);
int pt_link(struct pt_fs *fs, struct rinode *ri, struct rinode *newparent,
	    const char *newname, struct pt_entry *e);
int pt_unlink(struct pt_fs *fs, struct rinode *parent, const char *name);
int pt_rmdir(struct pt_fs *fs, struct rinode *parent, const char *name);
int pt_rename(struct pt_fs *fs, struct rinode *parent, const char *name,
	      struct rinode *newparent, const char *newname, unsigned flags);
/* Opens ri; *fh gets the handle (see PT_FH_*). */
int pt_open(struct pt_fs *fs, struct rinode *ri, int flags, uint64_t *fh);
int pt_create(struct pt_fs *fs, const struct pt_cred *c, struct rinode *parent,
	      const char *name, mode_t mode, int flags, struct pt_entry *e, uint64_t *fh);
/* Reads into buf (aligned for O_DIRECT); returns bytes or -errno. */
ssize_t pt_read(uint64_t fh, void *buf, size_t size, off_t off);
/*
 * Reads size bytes at off into the pipe pipe_wr with splice: the backing
 * file's page-cache pages go into the pipe by reference, uncopied. Returns
 * the bytes put in the pipe (fewer than size only at the end of the file)
 * or -errno; then the pipe may hold part of the data, and a pread of the
 * same range gives the result to reply. The pipe must have room for size
 * bytes at off (-EAGAIN if it is non-blocking and fills up).
 */
ssize_t pt_read_pipe(uint64_t fh, int pipe_wr, size_t size, off_t off);
/* Writes buf; bounce (>= size bytes, page aligned) is used for O_DIRECT. */
ssize_t pt_write(uint64_t fh, const void *buf, size_t size, off_t off, void *bounce);
/*
 * What a write by c (a caller without CAP_FSETID) does to the mode of the
 * open file fh on the backing file system before its data: the setuid bit
 * goes, and the setgid bit when group execute is set or c is not in the
 * file's group. 0 or -errno.
 */
int pt_write_drop_privs(uint64_t fh, const struct pt_cred *c);
int pt_flush(uint64_t fh);
int pt_release(uint64_t fh);
int pt_fsync(uint64_t fh, int datasync);
int pt_opendir(struct pt_fs *fs, struct rinode *ri, struct pt_dir **out);
/*
 * Reads the next entry at off into *de; 1 if there is one, 0 at the end,
 * -errno. The entry stays pending until pt_readdir_consume.
 */
int pt_readdir_next(struct pt_dir *d, off_t off, struct pt_dirent_out *de);
void pt_readdir_consume(struct pt_dir *d);
int pt_releasedir(struct pt_dir *d);
int pt_fsyncdir(struct pt_dir *d, int datasync);
int pt_statfs(struct pt_fs *fs, struct rinode *ri, struct statvfs *sv);
int pt_access(struct pt_fs *fs, const struct pt_cred *c, struct rinode *ri, int mask);
int pt_setxattr(struct pt_fs *fs, struct rinode *ri, const char *name, const void *value,
		size_t size, int flags);
/* Returns the value's size (size 0: only the size) or -errno. */
ssize_t pt_getxattr(struct pt_fs *fs, struct rinode *ri, const char *name, void *value,
		    size_t size);
/* c: the caller; trusted.* names are listed only to root, as the backing FS does. */
ssize_t pt_listxattr(struct pt_fs *fs, const struct pt_cred *c, struct rinode *ri,
		     char *list, size_t size);
int pt_removexattr(struct pt_fs *fs, struct rinode *ri, const char *name);
int pt_fallocate(uint64_t fh, int mode, off_t off, off_t len);
/*
 * One file attribute ioctl on the open descriptor fd, arg as the command
 * takes it. A set is made with c's fsuid and fsgid, so that the backing
 * file system checks ownership (EPERM for another user) and
 * CAP_LINUX_IMMUTABLE (chattr +a, +i) as it would for c. -ENOTTY for other
 * commands (fstap/fileattr.h lists the four).
 */
int pt_fileattr(int fd, const struct pt_cred *c, unsigned int cmd, void *arg);
ssize_t pt_copy_file_range(uint64_t fh_in, off_t off_in, uint64_t fh_out, off_t off_out,
			   size_t len, unsigned flags);
int pt_lseek(uint64_t fh, off_t off, int whence, off_t *out);

/* ---- recording (recbuf.c) ------------------------------------------------ */

struct recbuf;

struct recbuf_opts {
	size_t chunk_size;	/* payload bytes per chunk */
	unsigned nchunks;	/* pool size */
	unsigned flush_ms;	/* a partial chunk is written after this long */
};

/* Starts the writer thread on w (borrowed until recbuf_stop). */
int recbuf_start(struct recbuf **out, struct fstap_writer *w, uint64_t start_mono_ns,
		 const struct recbuf_opts *o);
/* Adds one record from a request thread; never blocks, drops and counts when full. */
void recbuf_add(struct recbuf *rb, const struct fstap_rec *rec);
/* Notes a requesting thread id: resolves its process once, returns the pid (tgid). */
uint32_t recbuf_pid_of(struct recbuf *rb, uint32_t tid);
/*
 * From the crash handler (async-signal-safe): has the writer write the
 * chunks it can reach without a lock wait, waits for it up to 2 s.
 */
void recbuf_crash_flush(struct recbuf *rb);
/* Flushes every thread's chunk, stops the writer. Returns records lost. */
uint64_t recbuf_stop(struct recbuf *rb);
uint64_t recbuf_lost(const struct recbuf *rb);
uint64_t recbuf_records(const struct recbuf *rb);

/* ---- the FUSE side (rec_ops.c, record.c) ---------------------------------- */

/*
 * The FSYNC and FDATASYNC requests the kernel makes after a synchronous
 * write (syncw.c). A NULL table knows of none.
 */
struct rec_syncw;

int rec_syncw_new(struct rec_syncw **out);
void rec_syncw_free(struct rec_syncw *w);
/* A WRITE of thread tid on handle fh_id, with the write's flags, succeeded. */
void rec_syncw_wrote(struct rec_syncw *w, uint32_t tid, uint64_t fh_id, int write_flags);
/*
 * Thread tid's next request (op, on handle fh_id or 0): whether it is the
 * sync the kernel makes after the thread's synchronous write just before.
 */
bool rec_syncw_take(struct rec_syncw *w, uint32_t tid, unsigned op, uint64_t fh_id);

struct rec_session {
	struct pt_fs fs;
	struct recbuf *rb;	/* NULL: --no-trace */
	struct rec_syncw *syncw;	/* NULL: --no-trace */
	uint64_t start_mono;
	enum rec_cache cache;
	enum rec_snapshot snapshot;
	double entry_timeout, attr_timeout, neg_timeout;
	double dir_attr_timeout;	/* attr_timeout of directories */
	bool direct_io, keep_cache, writeback;
	bool flush_read_only;	/* false: read-only opens get FOPEN_NOFLUSH */
	bool splice_reply;	/* FUSE_CAP_SPLICE_WRITE: reads are replied from a pipe */
	uint32_t xattr_value_max;	/* user.* values recorded up to this (REC_XATTR_VALUES_*) */
	atomic_ullong nreq;	/* requests served, for the status line */
};

/* The fuse_lowlevel_ops of the recorder; userdata is a struct rec_session. */
extern const struct fuse_lowlevel_ops rec_ops;
/* Sets the session's timeouts and flags from its cache mode. */
void rec_session_set_cache(struct rec_session *s, enum rec_cache mode);

#endif
