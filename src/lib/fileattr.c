/*
 * fileattr.c: the file attribute ioctls of a trace (include/fstap/fileattr.h):
 * which commands they are, their argument sizes, and the mapping between an
 * argument and an ioctl record's fields.
 */
#include <linux/fs.h>
#include <stddef.h>

#include "fstap/fileattr.h"

_Static_assert(sizeof(((union fstap_fileattr_arg *)0)->fsx) == sizeof(struct fsxattr),
	       "struct fsxattr");
_Static_assert(offsetof(struct fsxattr, fsx_projid) == 12 &&
	       offsetof(struct fsxattr, fsx_cowextsize) == 16, "struct fsxattr layout");

size_t fstap_fileattr_size(uint64_t cmd)
{
	switch (cmd) {
	case FS_IOC_GETFLAGS:
	case FS_IOC_SETFLAGS:
		return sizeof(int);
	case FS_IOC_FSGETXATTR:
	case FS_IOC_FSSETXATTR:
		return sizeof(struct fsxattr);
	default:
		return 0;
	}
}

bool fstap_fileattr_sets(uint64_t cmd)
{
	return cmd == FS_IOC_SETFLAGS || cmd == FS_IOC_FSSETXATTR;
}

bool fstap_fileattr_is_flags(uint64_t cmd)
{
	return cmd == FS_IOC_GETFLAGS || cmd == FS_IOC_SETFLAGS;
}

/* What chattr(1) can set; the rest of the flags are the file system's own. */
#define SETTABLE_FLAGS (FS_SECRM_FL | FS_UNRM_FL | FS_COMPR_FL | FS_SYNC_FL | FS_IMMUTABLE_FL | \
			FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL | FS_JOURNAL_DATA_FL | \
			FS_NOTAIL_FL | FS_DIRSYNC_FL | FS_TOPDIR_FL | FS_NOCOMP_FL | \
			FS_NOCOW_FL | FS_DAX_FL | FS_PROJINHERIT_FL | FS_CASEFOLD_FL)

int fstap_fileattr_merge_flags(int cur, int rec)
{
	return (int)(((unsigned)cur & ~(unsigned)SETTABLE_FLAGS) |
		     ((unsigned)rec & (unsigned)SETTABLE_FLAGS));
}

void fstap_fileattr_to_rec(struct fstap_rec *rec, uint64_t cmd,
			   const union fstap_fileattr_arg *a)
{
	if (fstap_fileattr_is_flags(cmd)) {
		rec->flags_arg = (uint32_t)a->flags;
		return;
	}
	rec->flags_arg = a->fsx.xflags;
	rec->projid = a->fsx.projid;
	rec->extsize = a->fsx.extsize;
	rec->cowextsize = a->fsx.cowextsize;
}

void fstap_fileattr_from_rec(union fstap_fileattr_arg *a, const struct fstap_rec *rec)
{
	if (fstap_fileattr_is_flags(rec->cmd)) {
		a->flags = (int)(uint32_t)rec->flags_arg;
		return;
	}
	a->fsx.xflags = (uint32_t)rec->flags_arg;
	a->fsx.projid = (uint32_t)rec->projid;
	a->fsx.extsize = (uint32_t)rec->extsize;
	a->fsx.cowextsize = (uint32_t)rec->cowextsize;
}
