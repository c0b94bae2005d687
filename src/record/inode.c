/*
 * inode.c: the recorder's table of known inodes and its descriptor cache.
 *
 * The kernel names inodes by nodeid; a nodeid here is the address of a
 * struct rinode (the root is FUSE_ROOT_ID). The table finds an inode again
 * by (dev, ino) through a hash table that grows, so lookups stay O(1) for
 * millions of files. An inode keeps no open descriptor: it keeps a file
 * handle (name_to_handle_at), and a bounded cache of O_PATH descriptors
 * (open_by_handle_at, clock eviction) serves the *at() calls. Only where
 * handles are unsupported (or on another file system below the backing
 * root) does an inode pin an O_PATH descriptor for its lifetime.
 *
 * Object ids, the names of objects in the trace, come from a second map
 * (backing ino -> id) that survives FORGET, so an object keeps its id while
 * it exists; it is dropped when the object is deleted, because the file
 * system may reuse the inode number.
 *
 * Not here: any system call on behalf of a request (passthrough.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record_i.h"

/*
 * The key of (dev, ino) in the object map: nonzero. Unique on the backing
 * root's own file system; for one mounted below it, the device is mixed in.
 */
static uint64_t obj_key(const struct itable *t, dev_t dev, ino_t ino)
{
	uint64_t k = (uint64_t)ino;

	if (dev != t->dev)	/* a file system mounted below the root */
		k ^= fstap_hash64((uint64_t)dev);
	return (k << 1) | 1;
}

/* The bucket of (dev, ino) in the inode hash table of n (a power of two) buckets. */
static size_t ihash(const struct itable *t, dev_t dev, ino_t ino, size_t n)
{
	return (size_t)(fstap_hash64(obj_key(t, dev, ino)) & (n - 1));
}

/* Object id of key, assigning one if asked. Table lock held. */
static uint64_t obj_of_key(struct itable *t, uint64_t key, bool assign, bool *newobj)
{
	uint64_t *obj = fstap_map_get(&t->objs, key);

	if (newobj)
		*newobj = false;
	if (obj)
		return *obj;
	if (!assign)
		return 0;
	if (fstap_map_put(&t->objs, key, t->next_obj) < 0)
		return t->next_obj++;	/* out of memory: an id, not a stable one */
	if (newobj)
		*newobj = true;
	return t->next_obj++;
}

int itable_init(struct itable *t, int root_fd, unsigned cache_slots)
{
	struct stat st;
	struct {
		struct file_handle fh;
		unsigned char buf[MAX_HANDLE_SZ];
	} h;
	int mount_id, i;

	memset(t, 0, sizeof(*t));
	if (fstat(root_fd, &st) < 0)
		return -errno;
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->cache_lock, NULL);
	t->nbuckets = 4096;
	t->hash = calloc(t->nbuckets, sizeof(*t->hash));
	fstap_map_init(&t->objs);
	if (cache_slots < 16)
		cache_slots = 16;
	t->nslots = cache_slots;
	t->slots = calloc(cache_slots, sizeof(*t->slots));
	if (!t->hash || !t->slots) {
		itable_release(t);
		return -ENOMEM;
	}
	for (i = 0; i < (int)cache_slots; i++)
		t->slots[i].fd = -1;
	t->next_obj = FSTAP_ROOT_OBJ + 1;
	t->mount_fd = root_fd;
	t->dev = st.st_dev;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	t->use_handles = name_to_handle_at(root_fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) == 0;
	if (t->use_handles) {
		/* opening a handle needs CAP_DAC_READ_SEARCH: a user's recorder has not */
		int fd = open_by_handle_at(root_fd, &h.fh, O_PATH | O_CLOEXEC);

		if (fd < 0)
			t->use_handles = false;
		else
			close(fd);
	}

	t->root.obj = FSTAP_ROOT_OBJ;
	t->root.dev = st.st_dev;
	t->root.ino = st.st_ino;
	t->root.type = S_IFDIR;
	t->root.nlookup = 2;
	t->root.slot = -1;
	t->root.pinned_fd = openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->root.pinned_fd < 0) {
		int err = -errno;

		itable_release(t);
		return err;
	}
	if (fstap_map_put(&t->objs, obj_key(t, st.st_dev, st.st_ino), FSTAP_ROOT_OBJ) < 0) {
		itable_release(t);
		return -ENOMEM;
	}
	return 0;
}

static void rinode_free(struct rinode *ri)
{
	if (ri->pinned_fd >= 0)
		close(ri->pinned_fd);
	free(ri->handle);
	free(ri->name);
	free(ri);
}

void itable_release(struct itable *t)
{
	size_t i;

	if (t->hash) {
		for (i = 0; i < t->nbuckets; i++) {
			struct rinode *ri = t->hash[i], *next;

			for (; ri; ri = next) {
				next = ri->hnext;
				rinode_free(ri);
			}
		}
	}
	while (t->unhashed) {
		struct rinode *ri = t->unhashed;

		t->unhashed = ri->unext;
		rinode_free(ri);
	}
	if (t->slots)
		for (i = 0; i < t->nslots; i++)
			if (t->slots[i].fd >= 0)
				close(t->slots[i].fd);
	if (t->root.pinned_fd > 0)
		close(t->root.pinned_fd);
	free(t->hash);
	fstap_map_release(&t->objs);
	free(t->slots);
	t->hash = NULL;
	t->slots = NULL;
	pthread_mutex_destroy(&t->lock);
	pthread_mutex_destroy(&t->cache_lock);
}

static struct rinode *hash_find(struct itable *t, dev_t dev, ino_t ino)
{
	struct rinode *ri;

	if (dev == t->root.dev && ino == t->root.ino)
		return &t->root;
	for (ri = t->hash[ihash(t, dev, ino, t->nbuckets)]; ri; ri = ri->hnext)
		if (ri->ino == ino && ri->dev == dev)
			return ri;
	return NULL;
}

static void hash_grow(struct itable *t)
{
	size_t n = fstap_grow_size(t->nbuckets, t->count + 1, 0), i;
	struct rinode **h = n ? calloc(n, sizeof(*h)) : NULL;

	if (!h)
		return;		/* longer chains, still correct */
	for (i = 0; i < t->nbuckets; i++) {
		struct rinode *ri = t->hash[i], *next;

		for (; ri; ri = next) {
			size_t b = ihash(t, ri->dev, ri->ino, n);

			next = ri->hnext;
			ri->hnext = h[b];
			h[b] = ri;
		}
	}
	free(t->hash);
	t->hash = h;
	t->nbuckets = n;
}

static void hash_remove(struct itable *t, struct rinode *ri)
{
	struct rinode **pp = &t->hash[ihash(t, ri->dev, ri->ino, t->nbuckets)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == ri) {
			*pp = ri->hnext;
			break;
		}
	}
	ri->hnext = NULL;
	ri->hashed = false;
	t->count--;
	ri->uprev = NULL;
	ri->unext = t->unhashed;
	if (t->unhashed)
		t->unhashed->uprev = ri;
	t->unhashed = ri;
}

static void unhashed_remove(struct itable *t, struct rinode *ri)
{
	if (ri->uprev)
		ri->uprev->unext = ri->unext;
	else
		t->unhashed = ri->unext;
	if (ri->unext)
		ri->unext->uprev = ri->uprev;
}

int itable_get_at(struct itable *t, const struct rinode *parent, int parent_fd,
		  const char *name, const struct stat *st, struct rinode **out, bool *newobj)
{
	struct rinode *ri, *found;
	struct {
		struct file_handle fh;
		unsigned char buf[MAX_HANDLE_SZ];
	} h;
	int mount_id;

	*newobj = false;
	pthread_mutex_lock(&t->lock);
	ri = hash_find(t, st->st_dev, st->st_ino);
	if (ri) {
		ri->nlookup++;
		pthread_mutex_unlock(&t->lock);
		*out = ri;
		return 0;
	}
	pthread_mutex_unlock(&t->lock);

	ri = calloc(1, sizeof(*ri));
	if (!ri)
		return -ENOMEM;
	ri->dev = st->st_dev;
	ri->ino = st->st_ino;
	ri->type = st->st_mode & S_IFMT;
	ri->slot = -1;
	ri->pinned_fd = -1;
	ri->nlookup = 1;
	if (parent && !S_ISDIR(st->st_mode)) {
		/* without it (out of memory) the inode is only reached by its handle */
		ri->name = strdup(name);
		ri->pdev = parent->dev;
		ri->pino = parent->ino;
	}
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (t->use_handles && st->st_dev == t->dev &&
	    name_to_handle_at(parent_fd, name, &h.fh, &mount_id, 0) == 0) {
		struct stat now;

		ri->handle = malloc(sizeof(struct file_handle) + h.fh.handle_bytes);
		if (!ri->handle) {
			rinode_free(ri);
			return -ENOMEM;
		}
		memcpy(ri->handle, &h.fh, sizeof(struct file_handle) + h.fh.handle_bytes);
		/*
		 * The name may have been renamed over since st was taken (a
		 * revalidating lookup does not lock the directory, and the
		 * backing tree may change under us): the handle must be st's.
		 */
		if (fstatat(parent_fd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
		    now.st_ino != st->st_ino || now.st_dev != st->st_dev) {
			rinode_free(ri);
			return -EAGAIN;
		}
	} else {
		struct stat now;

		ri->pinned_fd = openat(parent_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (ri->pinned_fd < 0) {
			int err = -errno;

			rinode_free(ri);
			return err;
		}
		if (fstat(ri->pinned_fd, &now) < 0 || now.st_ino != st->st_ino ||
		    now.st_dev != st->st_dev) {
			rinode_free(ri);
			return -EAGAIN;	/* renamed over meanwhile, as above */
		}
	}

	pthread_mutex_lock(&t->lock);
	found = hash_find(t, st->st_dev, st->st_ino);
	if (found) {		/* another thread was faster */
		found->nlookup++;
		pthread_mutex_unlock(&t->lock);
		rinode_free(ri);
		*out = found;
		return 0;
	}
	ri->obj = obj_of_key(t, obj_key(t, ri->dev, ri->ino), true, newobj);
	if (t->count >= t->nbuckets)
		hash_grow(t);
	{
		size_t b = ihash(t, ri->dev, ri->ino, t->nbuckets);

		ri->hnext = t->hash[b];
		t->hash[b] = ri;
	}
	ri->hashed = true;
	t->count++;
	pthread_mutex_unlock(&t->lock);
	*out = ri;
	return 0;
}

void itable_ref(struct itable *t, struct rinode *ri)
{
	pthread_mutex_lock(&t->lock);
	ri->nlookup++;
	pthread_mutex_unlock(&t->lock);
}

/*
 * Descriptors leave the cache under its lock and are closed after it: the
 * close of the last descriptor of an unlinked inode is where the backing
 * file system deletes it (ext4: 40-80 us of freeing blocks and journal),
 * which every other request would wait for on the lock: the FORGET of each
 * unlinked file with the kernel's caches (--cache=kernel).
 */
static void cache_drop(struct itable *t, struct rinode *ri)
{
	int fd = -1;

	pthread_mutex_lock(&t->cache_lock);
	if (ri->slot >= 0) {
		struct fdslot *s = &t->slots[ri->slot];

		s->owner = NULL;
		if (s->refs == 0) {
			fd = s->fd;
			s->fd = -1;
		}		/* else the last fdc_put closes it */
		ri->slot = -1;
	}
	pthread_mutex_unlock(&t->cache_lock);
	if (fd >= 0)
		close(fd);
}

void itable_forget(struct itable *t, struct rinode *ri, uint64_t n)
{
	bool gone = false;

	if (ri == &t->root)
		return;
	pthread_mutex_lock(&t->lock);
	ri->nlookup = n >= ri->nlookup ? 0 : ri->nlookup - n;
	if (ri->nlookup == 0) {
		if (ri->hashed)
			hash_remove(t, ri);
		unhashed_remove(t, ri);
		gone = true;
	}
	pthread_mutex_unlock(&t->lock);
	if (gone) {
		cache_drop(t, ri);
		rinode_free(ri);
	}
}

static void unhash_locked(struct itable *t, dev_t dev, ino_t ino)
{
	struct rinode *ri = hash_find(t, dev, ino);

	if (ri && ri != &t->root && ri->hashed)
		hash_remove(t, ri);
	fstap_map_del(&t->objs, obj_key(t, dev, ino), NULL);
}

void itable_unhash(struct itable *t, dev_t dev, ino_t ino)
{
	pthread_mutex_lock(&t->lock);
	unhash_locked(t, dev, ino);
	pthread_mutex_unlock(&t->lock);
}

/*
 * A file being unlinked (or replaced by a rename) is known to the kernel
 * (it looked the name up), which may still send requests for it (the
 * writeback cache's SETATTR of its times, then FORGET). With its descriptor
 * cached, the backing file system deletes it at the FORGET's close; without
 * one, it deleted it inside unlinkat, and the SETATTR's open_by_handle_at
 * failed with ESTALE (half of the files of a 20 000-file unlink with
 * --cache=kernel). Give it a cached O_PATH descriptor before the unlink so
 * that both cases behave as a descriptor kept per inode does: requests for
 * the unlinked inode succeed until the FORGET, which deletes it, off the
 * application's wait for its unlink(). Table lock held (it keeps ri from
 * being forgotten meanwhile). Returns a descriptor for the caller to close
 * after the lock (one evicted from the cache, or the one not kept), or -1.
 */
static int keep_victim(struct itable *t, int parent_fd, const char *name, dev_t dev, ino_t ino)
{
	struct rinode *ri = hash_find(t, dev, ino);
	struct stat st;
	bool cached;
	int fd, victim;

	if (!ri || ri == &t->root || ri->pinned_fd >= 0 || ri->type == S_IFDIR)
		return -1;
	pthread_mutex_lock(&t->cache_lock);
	cached = ri->slot >= 0;
	pthread_mutex_unlock(&t->cache_lock);
	if (cached)
		return -1;
	fd = openat(parent_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino)
		return fd;	/* renamed meanwhile: not ours to keep */
	fdc_install(t, ri, fd, &victim);
	return victim;
}

int itable_remove_name(struct itable *t, int parent_fd, const char *name, int flags,
		       dev_t dev, ino_t ino)
{
	int ret, drop;

	/*
	 * Under the table lock, so that no other thread can look up an inode
	 * that reuses this number (a mkdir right after the rmdir) between the
	 * removal and the unhash, and be given the old, stale identity.
	 */
	pthread_mutex_lock(&t->lock);
	drop = keep_victim(t, parent_fd, name, dev, ino);
	ret = unlinkat(parent_fd, name, flags) < 0 ? -errno : 0;
	if (!ret)
		unhash_locked(t, dev, ino);
	pthread_mutex_unlock(&t->lock);
	if (drop >= 0)
		close(drop);
	return ret;
}

int itable_rename_over(struct itable *t, int fd, const char *name, int newfd,
		       const char *newname, unsigned flags, dev_t dev, ino_t ino)
{
	int ret, drop;

	/* As itable_remove_name, for the inode a rename replaces. */
	pthread_mutex_lock(&t->lock);
	drop = keep_victim(t, newfd, newname, dev, ino);
	ret = renameat2(fd, name, newfd, newname, flags) < 0 ? -errno : 0;
	if (!ret)
		unhash_locked(t, dev, ino);
	pthread_mutex_unlock(&t->lock);
	if (drop >= 0)
		close(drop);
	return ret;
}

uint64_t itable_obj_of(struct itable *t, dev_t dev, ino_t ino, bool assign, bool *newobj)
{
	uint64_t obj;

	pthread_mutex_lock(&t->lock);
	obj = obj_of_key(t, obj_key(t, dev, ino), assign, newobj);
	pthread_mutex_unlock(&t->lock);
	return obj;
}

void itable_dirent_objs(struct itable *t, dev_t dev, struct fstap_dirent *ents, uint32_t n)
{
	uint32_t i;

	pthread_mutex_lock(&t->lock);
	/*
	 * The map is large and the entries' slots are random: fetch them all
	 * first, so that the cache misses overlap instead of following each
	 * other (the first listing of a large directory).
	 */
	for (i = 0; i < n; i++)
		fstap_map_prefetch(&t->objs, obj_key(t, dev, (ino_t)ents[i].ino));
	for (i = 0; i < n; i++) {
		uint64_t *obj = fstap_map_get(&t->objs, obj_key(t, dev, (ino_t)ents[i].ino));

		ents[i].obj = obj ? *obj : 0;
	}
	pthread_mutex_unlock(&t->lock);
}

/*
 * Gives fd a cache slot for ri (one reference taken), evicting by the
 * clock; the evicted descriptor goes to *victim, to be closed after the
 * lock. Returns the slot, or -1 when every slot is busy or, with admit,
 * when scan resistance turns the newcomer away. Cache lock held.
 */
static int slot_take(struct itable *t, struct rinode *ri, int fd, bool admit, int *victim)
{
	unsigned tries;

	*victim = -1;
	for (tries = 0; tries < 2 * t->nslots; tries++) {
		unsigned i = t->hand;
		struct fdslot *s = &t->slots[i];

		t->hand = (t->hand + 1) % t->nslots;
		if (s->refs)
			continue;
		if (s->referenced) {
			s->referenced = false;
			continue;
		}
		/*
		 * Scan resistance: the victim was never used again since it
		 * came in, so the cache is being swept by more inodes than it
		 * holds (a pass over a large tree). Replacing entries would then
		 * make every access a miss; admit only one newcomer in 8, and
		 * serve the others with a private descriptor, so that most of
		 * the cache stays and hits on the next pass.
		 */
		if (admit && s->owner && !s->reused && (t->admit++ & 7))
			return -1;
		*victim = s->fd;
		if (s->owner) {
			s->owner->slot = -1;
			atomic_fetch_add_explicit(&t->cache_evictions, 1, memory_order_relaxed);
		}
		s->owner = ri;
		s->fd = fd;
		s->refs = 1;
		s->referenced = true;
		s->reused = false;
		ri->slot = (int)i;
		return (int)i;
	}
	return -1;
}

/*
 * A GETATTR of a file whose descriptor is not cached costs an
 * open_by_handle_at and a close besides the stat; a pass over more files
 * than the cache holds (stat of every file of a large tree) pays them for
 * about every other file. Its directory's descriptor is almost always
 * cached (directories are few and used by every lookup), so a stat of its
 * name there is one system call, like passthrough_ll's fstatat of the
 * descriptor it keeps per inode. The result is used only if the name
 * still leads to this inode: otherwise (renamed, removed, a new file
 * there) the caller falls back to the handle. Unhashed inodes (removed
 * through the mount; the number may be reused) never take this path.
 */
int itable_stat_by_name(struct itable *t, struct rinode *ri, struct stat *st)
{
	struct rinode *p;
	struct fdlease l;
	int ret = -ESTALE;

	if (!ri->name)
		return -ESTALE;
	pthread_mutex_lock(&t->lock);
	p = ri->hashed ? hash_find(t, ri->pdev, ri->pino) : NULL;
	/* the parent cannot be freed while the table lock is held */
	if (p && fdc_get_cached(t, p, &l) == 0)
		ret = 0;
	pthread_mutex_unlock(&t->lock);
	if (ret)
		return ret;
	if (fstatat(l.fd, ri->name, st, AT_SYMLINK_NOFOLLOW) < 0)
		ret = -errno;
	else if (st->st_ino != ri->ino || st->st_dev != ri->dev)
		ret = -ESTALE;
	fdc_put(t, &l);
	return ret;
}

int fdc_get_cached(struct itable *t, struct rinode *ri, struct fdlease *out)
{
	if (ri->pinned_fd >= 0) {
		out->fd = ri->pinned_fd;
		out->slot = -2;
		return 0;
	}
	pthread_mutex_lock(&t->cache_lock);
	if (ri->slot >= 0) {
		struct fdslot *s = &t->slots[ri->slot];

		s->refs++;
		s->referenced = true;
		s->reused = true;
		out->fd = s->fd;
		out->slot = ri->slot;
		pthread_mutex_unlock(&t->cache_lock);
		atomic_fetch_add_explicit(&t->cache_hits, 1, memory_order_relaxed);
		return 0;
	}
	pthread_mutex_unlock(&t->cache_lock);
	return -ENOENT;
}

int fdc_get(struct itable *t, struct rinode *ri, struct fdlease *out)
{
	int fd, i, victim;

	if (fdc_get_cached(t, ri, out) == 0)
		return 0;
	fd = open_by_handle_at(t->mount_fd, ri->handle, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	atomic_fetch_add_explicit(&t->cache_opens, 1, memory_order_relaxed);

	pthread_mutex_lock(&t->cache_lock);
	if (ri->slot >= 0) {	/* raced with another thread */
		struct fdslot *s = &t->slots[ri->slot];

		s->refs++;
		out->fd = s->fd;
		out->slot = ri->slot;
		pthread_mutex_unlock(&t->cache_lock);
		close(fd);
		return 0;
	}
	i = slot_take(t, ri, fd, true, &victim);
	pthread_mutex_unlock(&t->cache_lock);
	if (victim >= 0)	/* outside the lock, as in cache_drop */
		close(victim);
	out->fd = fd;		/* i < 0: every slot busy, or not admitted: a private descriptor */
	out->slot = i;
	return 0;
}

int fdc_install(struct itable *t, struct rinode *ri, int fd, int *victim)
{
	int i = -1;

	*victim = -1;
	pthread_mutex_lock(&t->cache_lock);
	if (ri->pinned_fd < 0 && ri->slot < 0)
		i = slot_take(t, ri, fd, false, victim);
	if (i >= 0)
		t->slots[i].refs = 0;	/* held by the cache only */
	pthread_mutex_unlock(&t->cache_lock);
	if (i < 0) {
		*victim = fd;
		return -EBUSY;
	}
	return 0;
}

void fdc_put(struct itable *t, struct fdlease *l)
{
	int fd = -1;

	if (l->slot == -2)
		return;
	if (l->slot == -1) {
		close(l->fd);
		return;
	}
	pthread_mutex_lock(&t->cache_lock);
	{
		struct fdslot *s = &t->slots[l->slot];

		if (--s->refs == 0 && !s->owner && s->fd >= 0) {
			fd = s->fd;
			s->fd = -1;
		}
	}
	pthread_mutex_unlock(&t->cache_lock);
	if (fd >= 0)	/* outside the lock, as in cache_drop */
		close(fd);
}
