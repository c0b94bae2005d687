/*
 * rec_dirs.c: the recorder's handlers of directories: opendir, readdir (with
 * its entries and their objects), releasedir, fsyncdir (the shape of a
 * handler: rec_ops.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>	/* struct fuse_dirent: the layout of a readdir reply */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/name.h"
#include "fstap/state.h"
#include "record/rec_ops_i.h"

void rec_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct rinode *ri = inode_of(s, ino);
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

		if (fstap_name_dots(ent->name.ptr, ent->name.len)) {
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
					   s->xattr_value_max, rec_emit_state, s);
			fstap_state_dentry(r->obj, name, ent->obj, rec_emit_state, s);
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

		if (fstap_name_dots(ent->name.ptr, ent->name.len))
			ent->obj = ent->name.len == 1 ? r->obj : 0;
	}
}

void rec_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	struct rec_session *s = session_of(req);
	struct pt_dir *d = (struct pt_dir *)(uintptr_t)fi->fh;
	struct scratch *sc = rec_scratch_get(0);
	struct pt_dirent_out de;
	size_t pos = 0;
	uint32_t n = 0;
	off_t o = off;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_READDIR, inode_of(s, ino));
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

void rec_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_dir *d = (struct pt_dir *)(uintptr_t)fi->fh;
	uint64_t id = d->id;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_RELEASEDIR, inode_of(session_of(req), ino));
	int ret = pt_releasedir(d);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = id;
	rq_emit(&q);
}

void rec_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		  struct fuse_file_info *fi)
{
	struct pt_dir *d = (struct pt_dir *)(uintptr_t)fi->fh;
	uint64_t id = d->id;
	struct rq q;
	bool on = rq_begin(&q, req, FSTAP_OP_FSYNCDIR, inode_of(session_of(req), ino));
	int ret = pt_fsyncdir(d, datasync);

	rq_end(&q, ret);
	fuse_reply_err(req, -ret);
	if (!on)
		return;
	q.r.fh = id;
	q.r.flags_arg = (uint64_t)datasync;
	rq_emit(&q);
}
