/*
 * fileattr.h: the file attribute ioctls an fstap trace records and replays.
 *
 * Four commands, the ones `lsattr`, `chattr` and the project-quota tools
 * use and the kernel passes to a FUSE file system: FS_IOC_GETFLAGS and
 * FS_IOC_SETFLAGS (the FS_*_FL flags, an int) and FS_IOC_FSGETXATTR and
 * FS_IOC_FSSETXATTR (struct fsxattr: xflags, extent size hints, project id).
 * An `ioctl` record (docs/trace-format.md) carries the command number and
 * the argument's fields: `flags` (the FS_*_FL flags, or fsx_xflags),
 * `projid`, `extsize` and `cowextsize`. The recorder fills them from the
 * argument, the replay builds the argument from them; both go through here.
 */
#ifndef FSTAP_FILEATTR_H
#define FSTAP_FILEATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fstap/trace.h"

/* The argument of any of the four commands (fstap_fileattr_size bytes of it). */
union fstap_fileattr_arg {
	int flags;			/* FS_IOC_GETFLAGS, FS_IOC_SETFLAGS */
	struct {			/* struct fsxattr of <linux/fs.h>, same layout */
		uint32_t xflags, extsize, nextents, projid, cowextsize;
		unsigned char pad[8];
	} fsx;
};

/*
 * The bytes of cmd's argument as the kernel passes it: 4 for the flags
 * commands (an int, although their number says long), 28 for the fsxattr
 * ones; 0 when cmd is none of the four.
 */
size_t fstap_fileattr_size(uint64_t cmd);
/* Whether cmd is FS_IOC_SETFLAGS or FS_IOC_FSSETXATTR. */
bool fstap_fileattr_sets(uint64_t cmd);
/* Whether cmd is one of the two flags commands (else fsxattr, if any). */
bool fstap_fileattr_is_flags(uint64_t cmd);
/*
 * The FS_*_FL flags to set on a file whose flags are cur, to give it the
 * recorded flags rec: those chattr can set (append-only, immutable,
 * nodump, noatime, sync, dirsync, nocow, project inheritance, ...) from
 * rec, the ones a file system keeps for itself (ext4's extents and inline
 * data, encryption, verity, ...) from cur, so that a trace recorded on one
 * file system can be replayed on another.
 */
int fstap_fileattr_merge_flags(int cur, int rec);
/* Copies the argument's fields into rec's ioctl fields. */
void fstap_fileattr_to_rec(struct fstap_rec *rec, uint64_t cmd,
			   const union fstap_fileattr_arg *a);
/* Sets the argument's fields from rec's (the others are left as they are). */
void fstap_fileattr_from_rec(union fstap_fileattr_arg *a, const struct fstap_rec *rec);

#endif
