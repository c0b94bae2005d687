/*
 * jsonl.h: a trace as JSON Lines, the lossless text form of the binary
 * format (docs/trace-format.md, "JSON Lines"). The first line describes the
 * trace (header fields and metadata), then one object per record, in file
 * order. Byte strings are JSON strings when they are valid UTF-8 without
 * NUL, else {"hex": "..."}; integers above 2^63-1 are decimal strings.
 * Export adds "path" (and "newpath") resolved through a pathmap; import
 * ignores them.
 */
#ifndef FSTAP_JSONL_H
#define FSTAP_JSONL_H

#include <stdio.h>

#include "fstap/trace.h"

struct fstap_pathmap;

/* A growable output buffer for the exporter. */
struct fstap_jbuf {
	char *buf;
	size_t len, cap;
	int oom;
};

void fstap_jbuf_release(struct fstap_jbuf *jb);

/* Appends the header line (with '\n'); 0 or -EINVAL if the metadata is not JSON. */
int fstap_jsonl_header(struct fstap_jbuf *jb, const struct fstap_trace_info *info);
/* Appends one record's line; pm may be NULL (no paths). */
int fstap_jsonl_record(struct fstap_jbuf *jb, const struct fstap_rec *rec,
		       const struct fstap_pathmap *pm);

/*
 * Converts a JSON Lines file to a binary trace. On error returns -errno
 * with a one-line message naming the line (owned by the caller).
 */
int fstap_jsonl_import(FILE *in, const char *in_name, const char *out_path,
		       size_t chunk_size, char **errmsg);
/*
 * The same into a descriptor the caller owns (a safe output's temporary,
 * include/fstap/output.h); out_name names it in messages.
 */
int fstap_jsonl_import_fd(FILE *in, const char *in_name, int out_fd, const char *out_name,
			  size_t chunk_size, char **errmsg);

#endif
