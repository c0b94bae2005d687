/*
 * record.h: the recorder as the CLI sees it: its options and one call that
 * mounts, serves and records until unmounted, then finishes the trace.
 * (Internals are in record_i.h.)
 */
#ifndef FSTAP_RECORD_H
#define FSTAP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

enum rec_cache {
	REC_CACHE_ALL,		/* every request: all timeouts 0 */
	REC_CACHE_CALLS,	/* entries cached, attributes and negatives not */
	REC_CACHE_DIRECT,	/* CALLS + direct I/O: every read and write call */
	REC_CACHE_KERNEL,	/* timeouts, keep_cache, writeback cache */
	REC_CACHE_NR
};

enum rec_snapshot { REC_SNAP_FULL, REC_SNAP_TOUCHED, REC_SNAP_NONE, REC_SNAP_NR };

/*
 * --xattr-values: the values of user.* xattrs up to this many bytes are
 * recorded (setxattr, getxattr results, the initial state); the values of
 * every other namespace (system.*, security.*, trusted.*) always are.
 */
#define REC_XATTR_VALUES_ALL UINT32_MAX
#define REC_XATTR_VALUES_DEFAULT 4096u

extern const char *const rec_cache_names[REC_CACHE_NR];
extern const char *const rec_snapshot_names[REC_SNAP_NR];

struct record_opts {
	const char *backing;		/* the directory served */
	const char *mountpoint;		/* where (== backing: in place) */
	const char *trace;		/* NULL: --no-trace */
	enum rec_cache cache;
	enum rec_snapshot snapshot;
	char **command;			/* NULL-terminated argv to run, or NULL */
	int argc;			/* the fstap command line, for the metadata */
	char **argv;
	unsigned threads;		/* FUSE worker threads at most (0: default) */
	uint32_t xattr_value_max;	/* --xattr-values: user.* values kept up to this */
	bool fuse_debug;		/* -vv: libfuse's request log */
};

/*
 * Mounts, serves and records until unmounted (fusermount3 -u, SIGINT,
 * SIGTERM, or the end of o->command), then writes the footer. Prints its
 * own errors. Returns an exit status: 0, 1 on failure, or the command's
 * status (128 + signal if it was killed).
 */
int record_run(const struct record_opts *o);

#endif
