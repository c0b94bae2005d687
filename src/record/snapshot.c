/*
 * snapshot.c: the recorder's initial state of the backing tree, as
 * STATE_INODE and STATE_DENTRY records (fstap/state.h makes them), so that
 * `prepare` can rebuild it.
 *
 * --snapshot=full walks the whole tree at mount, before the first request;
 * --snapshot=touched describes an object when the workload first looks it
 * up or lists it (rec_ops.c calls fstap_state_inode). Object ids come from
 * the inode table, so the state records and the operation records name
 * objects alike. xattr values follow the rule of --xattr-values
 * (fstap_xattr_value_kept).
 *
 * Not here: reading file contents (a trace records shapes, not data).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>	/* FS_IOC_GETFLAGS, FS_IOC_FSGETXATTR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fstap/name.h"
#include "fstap/xattr.h"
#include "record/record_i.h"
#include "record/snapshot_i.h"

static int walk_dir(struct itable *t, struct fstap_statebuf *sb, int dfd, uint64_t dobj,
		    uint32_t value_max, fstap_state_emit_fn emit, void *arg, uint64_t *count)
{
	DIR *dp;
	struct dirent *de;
	int ret = 0;

	dp = fdopendir(dfd);
	if (!dp) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	while ((errno = 0, de = readdir(dp))) {
		struct stat st;
		uint64_t obj;
		bool newobj;

		if (fstap_name_dots(de->d_name, strlen(de->d_name)))
			continue;
		if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* gone meanwhile */
		/* a file system mounted below the root is walked too: the
		 * passthrough serves it (st is the mounted root's) */
		obj = itable_obj_of(t, st.st_dev, st.st_ino, true, &newobj);
		if (newobj) {
			fstap_state_inode(sb, dirfd(dp), de->d_name, &st, obj, value_max, emit, arg);
			(*count)++;
		}
		fstap_state_dentry(dobj, de->d_name, obj, emit, arg);
		if (S_ISDIR(st.st_mode) && newobj) {
			int cfd = openat(dirfd(dp), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd >= 0) {
				ret = walk_dir(t, sb, cfd, obj, value_max, emit, arg, count);
				if (ret < 0 && ret != -EACCES)
					break;
				ret = 0;
			}
		}
	}
	if (!de && errno)
		ret = -errno;
	closedir(dp);
	return ret;
}

int snap_walk(struct pt_fs *fs, uint32_t value_max, fstap_state_emit_fn emit, void *arg,
	      uint64_t *count)
{
	struct fstap_statebuf *sb = malloc(sizeof(*sb));
	struct stat st;
	int dfd, ret;

	*count = 0;
	if (!sb)
		return -ENOMEM;
	if (fstat(fs->root_fd, &st) < 0) {
		ret = -errno;
		free(sb);
		return ret;
	}
	fstap_state_inode(sb, fs->root_fd, ".", &st, FSTAP_ROOT_OBJ, value_max, emit, arg);
	(*count)++;
	dfd = openat(fs->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		free(sb);
		return ret;
	}
	ret = walk_dir(&fs->it, sb, dfd, FSTAP_ROOT_OBJ, value_max, emit, arg, count);
	free(sb);
	return ret;
}
