/*
 * strace_ns.c: the objects and names of an strace import, and its initial
 * state. Object ids are given as the recorder gives them: the root is 1,
 * then one per inode in the order the import meets it (the --state walk
 * first, by (device, inode) so hard links share one), never reused. The
 * names are the path map's (fstap/pathmap.h), fed every record the import
 * writes (ns_emit), as export and replay read the trace: a path is walked
 * component by component, and a rename of a directory moves everything
 * below it. What the path map does not keep (types, sizes, symlink
 * targets) is here, per object.
 *
 * The state records are the recorder's (fstap_state_inode,
 * fstap_state_dentry: fstap/state.h); only the walk, keyed by this
 * importer's objects, is here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/name.h"
#include "fstap/pathmap.h"
#include "fstap/state.h"
#include "fstap/util.h"
#include "import/imp_i.h"

int ns_init(struct imp *im)
{
	int ret = fstap_pathmap_new(&im->pm);

	if (ret)
		return ret;
	im->nobjs = 1;		/* 0 is "none" */
	if (!ns_new_obj(im, S_IFDIR))
		return -ENOMEM;
	return 0;
}

void ns_free(struct imp *im)
{
	uint64_t i;

	fstap_pathmap_free(im->pm);
	im->pm = NULL;
	for (i = 0; i < im->nobjs; i++)
		free(im->objs[i].target);
	free(im->objs);
}

uint64_t ns_new_obj(struct imp *im, uint32_t type)
{
	if (im->nobjs >= im->capobjs) {
		bool first = !im->capobjs;

		if (FSTAP_GROW(im->objs, im->nobjs + 1, im->capobjs))
			return 0;
		if (first)
			memset(&im->objs[0], 0, sizeof(im->objs[0]));
	}
	memset(&im->objs[im->nobjs], 0, sizeof(im->objs[0]));
	im->objs[im->nobjs].type = type;
	return im->nobjs++;
}

uint64_t ns_get(const struct imp *im, uint64_t parent, const char *name)
{
	return fstap_pathmap_lookup(im->pm, parent, (struct fstap_bytes){
		(const uint8_t *)name, (uint32_t)strlen(name) });
}

uint64_t ns_parent(const struct imp *im, uint64_t dir)
{
	return dir == FSTAP_ROOT_OBJ ? 0 : fstap_pathmap_parent(im->pm, dir);
}

int ns_emit(struct imp *im, const struct fstap_rec *rec)
{
	int ret = fstap_writer_add(im->w, rec);

	return ret ? ret : fstap_pathmap_apply(im->pm, rec);
}

/* ---- the initial state --------------------------------------------------- */

struct walk {
	struct imp *im;
	struct fstap_statebuf *sb;
	int ret;
	/* (dev, ino) -> obj, for hard links: a sorted list is enough for a walk */
	struct { dev_t dev; ino_t ino; uint64_t obj; } *seen;
	size_t nseen, capseen;
};

static void walk_emit(const struct fstap_rec *rec, void *arg)
{
	struct walk *wk = arg;
	int ret = ns_emit(wk->im, rec);

	if (ret && !wk->ret)
		wk->ret = ret;
}

static uint64_t seen_obj(struct walk *wk, const struct stat *st, bool *newobj)
{
	size_t i;

	*newobj = false;
	if (st->st_nlink > 1 && !S_ISDIR(st->st_mode))
		for (i = 0; i < wk->nseen; i++)
			if (wk->seen[i].dev == st->st_dev && wk->seen[i].ino == st->st_ino)
				return wk->seen[i].obj;
	*newobj = true;
	if (st->st_nlink > 1 && !S_ISDIR(st->st_mode)) {
		if (FSTAP_GROW(wk->seen, wk->nseen + 1, wk->capseen))
			return 0;
		wk->seen[wk->nseen].dev = st->st_dev;
		wk->seen[wk->nseen].ino = st->st_ino;
		wk->seen[wk->nseen].obj = wk->im->nobjs;
		wk->nseen++;
	}
	return ns_new_obj(wk->im, st->st_mode & S_IFMT);
}

static void remember_target(struct imp *im, uint64_t obj, int dfd, const char *name)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);

	if (n > 0) {
		buf[n] = '\0';
		im->objs[obj].target = strdup(buf);
	}
}

static int walk_dir(struct walk *wk, int dfd, uint64_t dobj)
{
	DIR *dp = fdopendir(dfd);
	struct dirent *de = NULL;
	int ret = 0;

	if (!dp) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	while (!wk->ret && (errno = 0, de = readdir(dp))) {
		struct stat st;
		uint64_t obj;
		bool newobj;

		if (fstap_name_dots(de->d_name, strlen(de->d_name)))
			continue;
		if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		obj = seen_obj(wk, &st, &newobj);
		if (!obj) {
			ret = -ENOMEM;
			break;
		}
		wk->im->objs[obj].size = (uint64_t)st.st_size;
		if (newobj) {
			fstap_state_inode(wk->sb, dirfd(dp), de->d_name, &st, obj, UINT32_MAX,
					  walk_emit, wk);
			wk->im->st->state_objects++;
			if (S_ISLNK(st.st_mode))
				remember_target(wk->im, obj, dirfd(dp), de->d_name);
		}
		fstap_state_dentry(dobj, de->d_name, obj, walk_emit, wk);
		if (S_ISDIR(st.st_mode)) {
			int cfd = openat(dirfd(dp), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd >= 0 && (ret = walk_dir(wk, cfd, obj)) && ret != -EACCES)
				break;
			ret = 0;
		}
	}
	if (!ret && !de && errno)
		ret = -errno;
	closedir(dp);
	return ret ? ret : wk->ret;
}

int ns_state(struct imp *im, const char *dir)
{
	struct walk wk = { .im = im };
	struct stat st;
	int dfd, ret;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	wk.sb = malloc(sizeof(*wk.sb));
	if (!wk.sb) {
		close(dfd);
		return -ENOMEM;
	}
	if (fstat(dfd, &st) < 0) {
		ret = -errno;
	} else {
		fstap_state_inode(wk.sb, dfd, ".", &st, FSTAP_ROOT_OBJ, UINT32_MAX, walk_emit, &wk);
		im->st->state_objects++;
		ret = walk_dir(&wk, dfd, FSTAP_ROOT_OBJ);	/* closes dfd */
		dfd = -1;
	}
	if (dfd >= 0)
		close(dfd);
	free(wk.sb);
	free(wk.seen);
	return ret ? ret : wk.ret;
}
