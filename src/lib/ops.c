/*
 * ops.c: the table of record types and the table of fields. The order of a
 * record type's fields here is their order on disk; a later minor version
 * may only append fields to a record type (readers ignore trailing bytes).
 */
#include <stddef.h>
#include <string.h>

#include "fstap/ops.h"
#include "fstap/trace.h"

#define F(x) FSTAP_F_##x
#define OP(id, nm, pr, ...)						\
	[FSTAP_OP_##id] = { .name = nm, .name_len = sizeof(nm) - 1, .props = pr, \
		.nfields = sizeof((uint8_t[]){ __VA_ARGS__ }) - 1,	\
		.fields = { __VA_ARGS__ } }

/* The trailing 0xff in each list only lets the count work for empty lists. */
#define END 0xff
#define MUT FSTAP_OPP_MUTATES
#define DENT FSTAP_OPP_DIRENT
#define HND FSTAP_OPP_HANDLE
#define META FSTAP_OPP_META

const struct fstap_op_info fstap_op_table[FSTAP_OP_NR] = {
	OP(LOOKUP, "lookup", DENT, F(NAME), F(CHILD), END),
	OP(GETATTR, "getattr", 0, F(FH), END),
	OP(SETATTR, "setattr", MUT, F(FH), F(VALID), F(MODE), F(OWNER_UID), F(OWNER_GID),
	   F(SIZE), F(ATIME), F(MTIME), END),
	OP(READLINK, "readlink", 0, F(TARGET), END),
	OP(MKNOD, "mknod", DENT | MUT, F(NAME), F(MODE), F(RDEV), F(UMASK), F(CHILD), END),
	OP(MKDIR, "mkdir", DENT | MUT, F(NAME), F(MODE), F(UMASK), F(CHILD), END),
	OP(UNLINK, "unlink", DENT | MUT, F(NAME), END),
	OP(RMDIR, "rmdir", DENT | MUT, F(NAME), END),
	OP(SYMLINK, "symlink", DENT | MUT, F(NAME), F(TARGET), F(CHILD), END),
	OP(RENAME, "rename", DENT | MUT, F(NAME), F(NEWPARENT), F(NEWNAME), F(FLAGS), END),
	OP(LINK, "link", MUT, F(NEWPARENT), F(NEWNAME), END),
	OP(OPEN, "open", 0, F(FLAGS), F(FH), END),
	OP(CREATE, "create", DENT | MUT, F(NAME), F(MODE), F(UMASK), F(FLAGS), F(CHILD),
	   F(FH), END),
	OP(READ, "read", HND, F(FH), F(OFFSET), F(SIZE), END),
	OP(WRITE, "write", HND | MUT, F(FH), F(OFFSET), F(SIZE), END),
	OP(FLUSH, "flush", HND, F(FH), END),
	OP(RELEASE, "release", HND, F(FH), F(FLAGS), END),
	OP(FSYNC, "fsync", HND, F(FH), END),
	OP(FDATASYNC, "fdatasync", HND, F(FH), END),
	OP(OPENDIR, "opendir", 0, F(FLAGS), F(FH), END),
	OP(READDIR, "readdir", HND, F(FH), F(OFFSET), F(SIZE), F(FLAGS), F(ENTRIES), END),
	OP(RELEASEDIR, "releasedir", HND, F(FH), END),
	OP(FSYNCDIR, "fsyncdir", HND, F(FH), F(FLAGS), END),
	OP(STATFS, "statfs", 0, END),
	OP(ACCESS, "access", 0, F(MODE), END),
	OP(SETXATTR, "setxattr", MUT, F(NAME), F(SIZE), F(FLAGS), F(VALUE), END),
	OP(GETXATTR, "getxattr", 0, F(NAME), F(SIZE), F(VALUE), END),
	OP(LISTXATTR, "listxattr", 0, F(SIZE), END),
	OP(REMOVEXATTR, "removexattr", MUT, F(NAME), END),
	OP(FALLOCATE, "fallocate", HND | MUT, F(FH), F(FLAGS), F(OFFSET), F(SIZE), END),
	OP(COPY_FILE_RANGE, "copy_file_range", HND | MUT, F(FH), F(OFFSET), F(OBJ2), F(FH2),
	   F(OFFSET2), F(SIZE), F(FLAGS), END),
	OP(LSEEK, "lseek", HND, F(FH), F(OFFSET), F(WHENCE), END),
	OP(FORGET, "forget", 0, F(SIZE), END),
	OP(IOCTL, "ioctl", HND | MUT, F(FH), F(CMD), F(FLAGS), F(PROJID), F(EXTSIZE),
	   F(COWEXTSIZE), END),

	OP(PROCESS, "process", META, F(PID), F(PPID), F(COMM), F(CMDLINE), F(TIME), END),
	OP(STATE_INODE, "state_inode", META, F(OBJ), F(MODE), F(OWNER_UID), F(OWNER_GID),
	   F(SIZE), F(ATIME), F(MTIME), F(CTIME), F(INO), F(NLINK), F(RDEV), F(TARGET),
	   F(XATTRS), F(EXTENTS), F(XATTR_SIZES), F(FLAGS), F(PROJID), END),
	OP(STATE_DENTRY, "state_dentry", META, F(OBJ), F(NAME), F(CHILD), END),
	OP(LOSS, "loss", META, F(TIME), F(LOST), END),
	OP(FOOTER, "footer", META, F(TIME), F(RECORDS), F(LOST), F(BYTES_READ),
	   F(BYTES_WRITTEN), END),
	OP(WATERMARK, "watermark", META, F(TIME), END),
};

#define FI(id, k, t, m) [FSTAP_F_##id] = { k, sizeof(k) - 1, FSTAP_FT_##t,		\
					   offsetof(struct fstap_rec, m),		\
					   sizeof(((struct fstap_rec *)0)->m) }

const struct fstap_field_info fstap_field_table[FSTAP_F_NR] = {
	FI(NAME, "name", NAME, name),
	FI(CHILD, "child", U64, child),
	FI(NEWPARENT, "newparent", U64, newparent),
	FI(NEWNAME, "newname", NAME, newname),
	FI(TARGET, "target", BYTES, target),
	FI(FH, "fh", U64, fh),
	FI(OFFSET, "offset", U64, offset),
	FI(SIZE, "size", U64, size),
	FI(FLAGS, "flags", U64, flags_arg),
	FI(MODE, "mode", U64, mode),
	FI(UMASK, "umask", U64, umask),
	FI(RDEV, "rdev", U64, rdev),
	FI(VALID, "valid", U64, valid),
	FI(OWNER_UID, "owner_uid", U64, owner_uid),
	FI(OWNER_GID, "owner_gid", U64, owner_gid),
	FI(ATIME, "atime", S64, atime),
	FI(MTIME, "mtime", S64, mtime),
	FI(CTIME, "ctime", S64, ctime),
	FI(OBJ2, "obj2", U64, obj2),
	FI(FH2, "fh2", U64, fh2),
	FI(OFFSET2, "offset2", U64, offset2),
	FI(WHENCE, "whence", U64, whence),
	FI(ENTRIES, "entries", ENTRIES, entries),
	FI(INO, "ino", U64, ino),
	FI(NLINK, "nlink", U64, nlink),
	FI(XATTRS, "xattrs", XATTRS, xattrs),
	FI(EXTENTS, "extents", EXTENTS, extents),
	FI(OBJ, "obj", U64, obj),
	FI(PID, "pid", U64, pid),
	FI(PPID, "ppid", U64, ppid),
	FI(COMM, "comm", BYTES, comm),
	FI(CMDLINE, "cmdline", BYTES, cmdline),
	FI(TIME, "t", U64, time_ns),
	FI(RECORDS, "records", U64, records),
	FI(LOST, "lost", U64, lost),
	FI(BYTES_READ, "bytes_read", U64, bytes_read),
	FI(BYTES_WRITTEN, "bytes_written", U64, bytes_written),
	FI(CMD, "cmd", U64, cmd),
	FI(PROJID, "projid", U64, projid),
	FI(EXTSIZE, "extsize", U64, extsize),
	FI(COWEXTSIZE, "cowextsize", U64, cowextsize),
	FI(VALUE, "value", BYTES, value),
	FI(XATTR_SIZES, "xattr_sizes", U64_LIST, xattr_sizes),
};

enum fstap_op fstap_op_by_name(const char *name)
{
	unsigned i;

	for (i = 0; i < FSTAP_OP_NR; i++)
		if (fstap_op_table[i].name && !strcmp(fstap_op_table[i].name, name))
			return (enum fstap_op)i;
	return FSTAP_OP_NONE;
}
