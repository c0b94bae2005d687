/*
 * ops.h: the record types of an fstap trace and the fields each one carries.
 *
 * One table, indexed by record type, names every record type and lists its
 * fields in on-disk order (src/lib/ops.c). The encoder, the decoder, the JSON
 * Lines exporter and importer all walk that list, so adding a field to a
 * record type is one line in the table and one line in docs/trace-format.md.
 *
 * Record types below FSTAP_OP_META_FIRST are file-system operations: they
 * carry the common operation header (times, thread, credentials, result,
 * object). The others are metadata records (process names, initial state,
 * losses, footer) and carry only their fields.
 *
 * The numeric values are part of the on-disk format: never renumber.
 */
#ifndef FSTAP_OPS_H
#define FSTAP_OPS_H

#include <stddef.h>
#include <stdint.h>

enum fstap_op {
	FSTAP_OP_NONE = 0,
	FSTAP_OP_LOOKUP = 1,
	FSTAP_OP_GETATTR = 2,
	FSTAP_OP_SETATTR = 3,
	FSTAP_OP_READLINK = 4,
	FSTAP_OP_MKNOD = 5,
	FSTAP_OP_MKDIR = 6,
	FSTAP_OP_UNLINK = 7,
	FSTAP_OP_RMDIR = 8,
	FSTAP_OP_SYMLINK = 9,
	FSTAP_OP_RENAME = 10,
	FSTAP_OP_LINK = 11,
	FSTAP_OP_OPEN = 12,
	FSTAP_OP_CREATE = 13,
	FSTAP_OP_READ = 14,
	FSTAP_OP_WRITE = 15,
	FSTAP_OP_FLUSH = 16,
	FSTAP_OP_RELEASE = 17,
	FSTAP_OP_FSYNC = 18,
	FSTAP_OP_FDATASYNC = 19,
	FSTAP_OP_OPENDIR = 20,
	FSTAP_OP_READDIR = 21,
	FSTAP_OP_RELEASEDIR = 22,
	FSTAP_OP_FSYNCDIR = 23,
	FSTAP_OP_STATFS = 24,
	FSTAP_OP_ACCESS = 25,
	FSTAP_OP_SETXATTR = 26,
	FSTAP_OP_GETXATTR = 27,
	FSTAP_OP_LISTXATTR = 28,
	FSTAP_OP_REMOVEXATTR = 29,
	FSTAP_OP_FALLOCATE = 30,
	FSTAP_OP_COPY_FILE_RANGE = 31,
	FSTAP_OP_LSEEK = 32,
	FSTAP_OP_FORGET = 33,
	FSTAP_OP_IOCTL = 34,		/* since 1.1 */

	FSTAP_OP_META_FIRST = 128,
	FSTAP_OP_PROCESS = 128,		/* a process name, once per pid */
	FSTAP_OP_STATE_INODE = 129,	/* initial state: one object */
	FSTAP_OP_STATE_DENTRY = 130,	/* initial state: one name of an object */
	FSTAP_OP_LOSS = 131,		/* records the recorder had to drop */
	FSTAP_OP_FOOTER = 132,		/* totals; the last record of a complete trace */
	FSTAP_OP_WATERMARK = 133,	/* every record that ended before t is written (1.1) */

	FSTAP_OP_NR = 134
};

/* The fields a record type may carry; each has one encoding and one JSON key. */
enum fstap_field {
	FSTAP_F_NAME,		/* bytes, interned: entry name or xattr name */
	FSTAP_F_CHILD,		/* object found or created */
	FSTAP_F_NEWPARENT,	/* rename/link destination directory */
	FSTAP_F_NEWNAME,	/* bytes, interned: rename/link destination name */
	FSTAP_F_TARGET,		/* bytes: symlink target */
	FSTAP_F_FH,		/* recorder's handle id */
	FSTAP_F_OFFSET,
	FSTAP_F_SIZE,		/* requested size or length */
	FSTAP_F_FLAGS,		/* open, rename, xattr, fallocate flags (Linux values) */
	FSTAP_F_MODE,
	FSTAP_F_UMASK,
	FSTAP_F_RDEV,
	FSTAP_F_VALID,		/* setattr: which attributes are set (FSTAP_SET_*) */
	FSTAP_F_OWNER_UID,
	FSTAP_F_OWNER_GID,
	FSTAP_F_ATIME,		/* ns since the epoch, signed */
	FSTAP_F_MTIME,
	FSTAP_F_CTIME,
	FSTAP_F_OBJ2,		/* copy_file_range destination object */
	FSTAP_F_FH2,
	FSTAP_F_OFFSET2,
	FSTAP_F_WHENCE,
	FSTAP_F_ENTRIES,	/* readdir entries in returned order */
	FSTAP_F_INO,
	FSTAP_F_NLINK,
	FSTAP_F_XATTRS,		/* state: name and value pairs */
	FSTAP_F_EXTENTS,	/* state: data extents; the rest is holes */
	FSTAP_F_OBJ,		/* metadata records: the object described */
	FSTAP_F_PID,		/* process record: pid */
	FSTAP_F_PPID,
	FSTAP_F_COMM,		/* bytes: process name */
	FSTAP_F_CMDLINE,	/* bytes: NUL-separated argv */
	FSTAP_F_TIME,		/* metadata records: ns since trace start */
	FSTAP_F_RECORDS,	/* footer: operation records in the trace */
	FSTAP_F_LOST,		/* footer, loss: records dropped */
	FSTAP_F_BYTES_READ,
	FSTAP_F_BYTES_WRITTEN,
	FSTAP_F_CMD,		/* ioctl: the command number (1.1) */
	FSTAP_F_PROJID,		/* ioctl, fsxattr: the project id (1.1) */
	FSTAP_F_EXTSIZE,	/* ioctl, fsxattr: the extent size hint (1.1) */
	FSTAP_F_COWEXTSIZE,	/* ioctl, fsxattr: the CoW extent size hint (1.1) */
	FSTAP_F_VALUE,		/* bytes: setxattr's value, getxattr's result (1.1) */
	FSTAP_F_XATTR_SIZES,	/* state: each xattr's value size, if one is left out (1.1) */
	FSTAP_F_NR
};

/* How a field is encoded (see docs/trace-format.md, "Field encodings"). */
enum fstap_field_type {
	FSTAP_FT_U64,		/* unsigned LEB128 varint */
	FSTAP_FT_S64,		/* zigzag LEB128 varint */
	FSTAP_FT_NAME,		/* interned byte string */
	FSTAP_FT_BYTES,		/* length-prefixed byte string */
	FSTAP_FT_ENTRIES,
	FSTAP_FT_XATTRS,
	FSTAP_FT_EXTENTS,
	FSTAP_FT_U64_LIST,	/* a count, then that many varints */
};

/* setattr valid bits (FSTAP_F_VALID): the same values as FUSE_SET_ATTR_*. */
#define FSTAP_SET_MODE		(1u << 0)
#define FSTAP_SET_UID		(1u << 1)
#define FSTAP_SET_GID		(1u << 2)
#define FSTAP_SET_SIZE		(1u << 3)
#define FSTAP_SET_ATIME		(1u << 4)
#define FSTAP_SET_MTIME		(1u << 5)
#define FSTAP_SET_ATIME_NOW	(1u << 7)
#define FSTAP_SET_MTIME_NOW	(1u << 8)
#define FSTAP_SET_CTIME		(1u << 10)

/* Record type properties (struct fstap_op_info.props). */
#define FSTAP_OPP_META		(1u << 0)	/* no common operation header */
#define FSTAP_OPP_DIRENT	(1u << 1)	/* NAME is an entry of directory obj */
#define FSTAP_OPP_MUTATES	(1u << 2)	/* changes the file system */
#define FSTAP_OPP_HANDLE	(1u << 3)	/* acts on an open handle (FH) */

#define FSTAP_OP_MAX_FIELDS 20

struct fstap_op_info {
	const char *name;		/* JSON and CLI name, e.g. "copy_file_range" */
	uint8_t name_len;		/* strlen(name) */
	uint32_t props;			/* FSTAP_OPP_* */
	uint8_t nfields;
	uint8_t fields[FSTAP_OP_MAX_FIELDS];	/* enum fstap_field, in on-disk order */
};

struct fstap_field_info {
	const char *key;		/* JSON key */
	uint8_t key_len;		/* strlen(key) */
	enum fstap_field_type type;
	size_t offset;			/* of the member in struct fstap_rec */
	size_t width;			/* of that member: 4 or 8 for integers */
};

/* The tables behind fstap_op_info and fstap_field_info (ops.c). */
extern const struct fstap_op_info fstap_op_table[FSTAP_OP_NR];
extern const struct fstap_field_info fstap_field_table[FSTAP_F_NR];

/*
 * The info of a record type, or NULL if this fstap does not know it.
 * Inline, as fstap_field_info: the decoder and the replay ask per record.
 */
static inline const struct fstap_op_info *fstap_op_info(unsigned op)
{
	if (op >= FSTAP_OP_NR || !fstap_op_table[op].name)
		return NULL;
	return &fstap_op_table[op];
}

/* The record type called name, or FSTAP_OP_NONE. */
enum fstap_op fstap_op_by_name(const char *name);

static inline const struct fstap_field_info *fstap_field_info(enum fstap_field f)
{
	if ((unsigned)f >= FSTAP_F_NR)
		return NULL;
	return &fstap_field_table[f];
}

static inline int fstap_op_is_meta(unsigned op)
{
	return op >= FSTAP_OP_META_FIRST;
}

#endif
