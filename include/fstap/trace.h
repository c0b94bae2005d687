/*
 * trace.h: the fstap trace, as records in memory and as a file.
 *
 * A trace file is a fixed header, a JSON metadata block, then chunks of
 * compactly encoded records, each chunk checksummed (docs/trace-format.md is
 * the specification). This header is the API over it:
 *
 *  - struct fstap_rec: one decoded record. All of its pointers are borrowed.
 *  - struct fstap_chunk_enc: encodes records into a caller-owned buffer. It
 *    never allocates, so the recorder's request threads use it directly on
 *    their own buffers and hand finished chunks to a writer thread.
 *  - struct fstap_writer: the file: header, chunks, footer, with fsync.
 *  - struct fstap_reader: streams a file back with bounded memory; a torn
 *    tail ends the trace (reported as incomplete), corruption is an error
 *    that names the byte offset.
 *
 * Errors are returned as -errno: -EBADMSG for a corrupt trace,
 * -EPROTONOSUPPORT for a version this fstap cannot read, -E2BIG for a record
 * larger than a chunk can hold. Readers and writers keep a one-line message
 * for the last error (fstap_reader_errmsg, fstap_writer_errmsg).
 */
#ifndef FSTAP_TRACE_H
#define FSTAP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fstap/ops.h"

#define FSTAP_VERSION_MAJOR 1
#define FSTAP_VERSION_MINOR 1

#define FSTAP_FILE_HEADER_SIZE 64
#define FSTAP_CHUNK_HEADER_SIZE 32
#define FSTAP_CHUNK_MAX_PAYLOAD (16u << 20)	/* a reader's memory bound */
#define FSTAP_METADATA_MAX (1u << 20)
#define FSTAP_CHUNK_NAMES_MAX 4096	/* interned names per chunk */
#define FSTAP_CHUNK_THREADS_MAX 256	/* interned (tid, pid) per chunk */
#define FSTAP_ROOT_OBJ 1		/* object id of the traced root directory */

/*
 * File header flags (struct fstap_trace_info.flags). WATERMARKS: the writer
 * states watermark records, so a reader cuts an incomplete trace at the last
 * one (docs/trace-format.md, "How a reader ends").
 */
#define FSTAP_TF_WATERMARKS (1u << 0)

/* Record flags (struct fstap_rec.flags), operation records only. */
#define FSTAP_RF_KERNEL (1u << 0)	/* the kernel made this request on its own */

struct fstap_bytes {
	const uint8_t *ptr;	/* borrowed; not NUL-terminated */
	uint32_t len;
};

struct fstap_dirent {
	struct fstap_bytes name;
	uint64_t obj;		/* the entry's object, 0 if unknown */
	uint64_t ino;		/* d_ino as returned */
	uint32_t type;		/* d_type */
};

struct fstap_xattr {
	struct fstap_bytes name;
	struct fstap_bytes value;
};

/* A list of unsigned integers (FSTAP_FT_U64_LIST fields). */
struct fstap_u64_list {
	const uint64_t *v;	/* borrowed */
	uint32_t n;
};

struct fstap_extent {
	uint64_t offset;
	uint64_t length;
};

/*
 * One record. Operation records fill the common header (start_ns to obj);
 * each record type fills the fields its fstap_op_info lists and leaves the
 * rest zero. Times are ns since the trace's start_monotonic_ns.
 */
struct fstap_rec {
	uint16_t op;		/* enum fstap_op */
	uint16_t flags;		/* FSTAP_RF_* */
	uint32_t tid, pid, uid, gid;
	uint64_t start_ns, dur_ns;
	int64_t result;		/* >= 0: success (bytes where it applies), < 0: -errno */
	uint64_t obj;		/* object acted on (the directory for entry ops) */

	struct fstap_bytes name, newname, target, comm, cmdline;
	/*
	 * setxattr: the value set; getxattr: the value returned. Empty when
	 * the recorder left it out (size, or the result, says how long it was).
	 */
	struct fstap_bytes value;
	uint64_t child, newparent, fh, fh2, obj2;
	uint64_t offset, offset2, size, flags_arg, whence;
	uint64_t mode, umask, rdev, valid, owner_uid, owner_gid;
	int64_t atime, mtime, ctime;
	uint64_t ino, nlink, ppid;
	uint64_t time_ns;	/* metadata records: when (ns since start) */
	uint64_t records, lost, bytes_read, bytes_written;
	uint64_t cmd, projid, extsize, cowextsize;	/* ioctl */

	uint32_t nentries, nxattrs, nextents;
	const struct fstap_dirent *entries;
	const struct fstap_xattr *xattrs;
	const struct fstap_extent *extents;
	/*
	 * state_inode: the size of each xattr's value, in xattrs' order, when
	 * the recorder left a value out (that xattr's value is then empty);
	 * empty when every value is whole.
	 */
	struct fstap_u64_list xattr_sizes;
};

/*
 * The keys of the metadata block that fstap itself acts on, parsed once
 * (fstap_meta_parse; a reader does it when it opens a trace). A key that is
 * absent or of the wrong type takes the value given here.
 */
struct fstap_meta {
	bool from_recorder;		/* "tool" is "fstap record" */
	uint64_t flush_interval_ns;	/* recorder.flush_interval_ns > 0, else 1 s */
	/* recorder.attr_timeout is 0: attributes were refreshed before every check */
	bool attrs_stale;
	/*
	 * The kernel's syncs after synchronous writes are flagged, or there are
	 * none: recorder.sync_writes_flagged, direct_io or writeback_cache is true.
	 */
	bool syncs_flagged;
	bool writeback_cache;		/* recorder.writeback_cache is true */
	/*
	 * recorder.calibration's round trips (integers >= 0, ns): calibrated if
	 * meta_round_trip_ns is one; data_round_trip_ns, else the same figure.
	 */
	bool calibrated;
	uint64_t meta_round_trip_ns, data_round_trip_ns;
};

#define FSTAP_DEFAULT_FLUSH_NS 1000000000ull

/* Parses metadata_json (NULL or not an object: every key absent) into *m. */
void fstap_meta_parse(const char *metadata_json, struct fstap_meta *m);

/* What the file header and the metadata block say. */
struct fstap_trace_info {
	uint16_t version_major, version_minor;
	uint32_t flags;
	uint64_t start_realtime_ns;	/* CLOCK_REALTIME at start */
	uint64_t start_monotonic_ns;	/* CLOCK_MONOTONIC at start: time 0 of records */
	char *metadata_json;		/* the metadata block, NUL-terminated, owned */
	struct fstap_meta meta;		/* metadata_json parsed (a reader's; writers ignore it) */
};

/* Totals in the footer of a complete trace. */
struct fstap_footer {
	uint64_t records;	/* operation records */
	uint64_t lost;		/* records the recorder dropped */
	uint64_t bytes_read, bytes_written;	/* sum of read and write results */
	uint64_t end_ns;	/* ns since start */
};

/* ---- chunk encoder ------------------------------------------------------ */

/*
 * Encodes records into buf[0..cap). Holds interning tables (about 50 KiB), so
 * embed it in a long-lived object rather than on a small stack. Records must
 * be added with start_ns >= base_ns - 2^62 (any order within that works).
 */
struct fstap_chunk_enc {
	uint8_t *buf;
	size_t cap, len;	/* len includes the chunk header space */
	uint64_t base_ns, prev_ns;
	uint32_t nrec;
	uint32_t nops;		/* operation records */
	uint64_t bytes_read, bytes_written;
	uint32_t prev_tid, prev_pid, prev_uid, prev_gid;
	bool have_thread, have_cred;
	uint32_t nnames, nthreads;
	uint32_t generation;
	uint32_t name_off[FSTAP_CHUNK_NAMES_MAX];	/* interned names: offset in buf */
	uint32_t name_len[FSTAP_CHUNK_NAMES_MAX];
	/* open addressing: generation, hash bits and index per slot (chunk_encode.c) */
	uint32_t name_slots[2 * FSTAP_CHUNK_NAMES_MAX];
	uint64_t thread_key[FSTAP_CHUNK_THREADS_MAX];
};

/* Starts a chunk in buf (cap >= FSTAP_CHUNK_HEADER_SIZE + 64). */
void fstap_chunk_enc_init(struct fstap_chunk_enc *enc, uint8_t *buf, size_t cap,
			  uint64_t base_ns);
/* Appends one record: 0, -ENOSPC if it does not fit (chunk unchanged), -EINVAL. */
int fstap_chunk_enc_add(struct fstap_chunk_enc *enc, const struct fstap_rec *rec);
/* Writes the chunk header; returns the chunk's total size in bytes. */
size_t fstap_chunk_enc_finish(struct fstap_chunk_enc *enc, uint32_t chunk_flags);
/* Upper bound of the encoded size of rec, to size a chunk for it. */
size_t fstap_rec_encoded_bound(const struct fstap_rec *rec);

/* ---- writer ------------------------------------------------------------- */

struct fstap_writer;

/*
 * Creates path (or truncates it; "-" is stdout) and writes the header and
 * metadata (a JSON object as text, or NULL for {}). chunk_size is the
 * payload size of the chunks fstap_writer_add builds (0: 256 KiB).
 */
int fstap_writer_open(struct fstap_writer **out, const char *path,
		      const struct fstap_trace_info *info, size_t chunk_size);
/*
 * The same on a descriptor the caller owns (a safe output's temporary,
 * include/fstap/output.h): close writes the footer but neither fsyncs nor
 * closes fd. name is the file's name in messages.
 */
int fstap_writer_open_fd(struct fstap_writer **out, int fd, const char *name,
			 const struct fstap_trace_info *info, size_t chunk_size);
/* Buffers one record into the current chunk. */
int fstap_writer_add(struct fstap_writer *w, const struct fstap_rec *rec);
/*
 * Writes a chunk built elsewhere with fstap_chunk_enc_finish (whole), after
 * the records buffered by fstap_writer_add, which are flushed first.
 */
int fstap_writer_put_chunk(struct fstap_writer *w, const struct fstap_chunk_enc *enc);
/* Writes buffered records to the file (not fsync). */
int fstap_writer_flush(struct fstap_writer *w);
/*
 * Writes a watermark record after everything written so far, and flushes:
 * the caller states that every operation record that ended (start_ns +
 * dur_ns) before t_ns is in the file before it, or was counted lost. For
 * writers that interleave chunks from several producers (the recorder);
 * open with FSTAP_TF_WATERMARKS in the info flags. A t_ns not above the last
 * watermark is ignored.
 */
int fstap_writer_watermark(struct fstap_writer *w, uint64_t t_ns);
/* Records dropped upstream, reported in the footer. Thread-safe. */
void fstap_writer_count_lost(struct fstap_writer *w, uint64_t n);
/*
 * Flushes, writes the footer (unless without_footer) with end time end_ns,
 * fsyncs and closes the file. Free w afterwards with fstap_writer_free.
 */
int fstap_writer_close(struct fstap_writer *w, uint64_t end_ns, bool without_footer);
/* Frees w; without a close first, no footer is written (reads as incomplete). */
void fstap_writer_free(struct fstap_writer *w);
/* Totals so far; end_ns is the start of the latest record written. */
const struct fstap_footer *fstap_writer_totals(const struct fstap_writer *w);
/* Bytes written to the file so far (the header included). */
uint64_t fstap_writer_bytes(const struct fstap_writer *w);
const char *fstap_writer_errmsg(const struct fstap_writer *w);

/* ---- reader ------------------------------------------------------------- */

struct fstap_reader;

/*
 * Opens a trace ("-" is stdin) and reads its header and metadata. On error
 * returns -errno and, if errmsg is not NULL, a one-line message (owned by the
 * caller, free()).
 */
int fstap_reader_open(struct fstap_reader **out, const char *path, char **errmsg);
const struct fstap_trace_info *fstap_reader_info(const struct fstap_reader *r);
/*
 * Decodes the next record into rec: 1, 0 at the end of the trace, -EBADMSG
 * (or -EIO) on error. rec's pointers are valid until the next call. Records
 * of unknown types are skipped and counted.
 */
int fstap_reader_next(struct fstap_reader *r, struct fstap_rec *rec);
/*
 * A trace without its footer is cut: only the operation records known to be
 * in its complete prefix are delivered (docs/trace-format.md, "How a reader
 * ends"). Call before the first fstap_reader_next to get every record the
 * file holds instead (export, filter: they keep the watermarks, so the
 * output is cut the same way when it is read).
 */
void fstap_reader_keep_torn(struct fstap_reader *r);

/* What the cut of an incomplete trace kept; valid after the end. */
struct fstap_cut {
	bool cut;		/* the trace had no footer and was cut */
	bool by_watermark;	/* at its last watermark (else: end - sort window) */
	uint64_t cutoff_ns;	/* records that ended before this were delivered */
	uint64_t end_ns;	/* the latest end of a record (or watermark) read */
	uint64_t records;	/* operation records delivered */
	uint64_t records_read;	/* operation records the file holds */
};
const struct fstap_cut *fstap_reader_cut(const struct fstap_reader *r);
/*
 * The one-line notice of a cut, e.g. "incomplete trace: replayed the first
 * 12.3 s of 15.0 s, 41 200 of 52 000 records" (verb: "replayed"). -EINVAL if
 * c is not a cut.
 */
int fstap_cut_notice(const struct fstap_cut *c, const char *verb, char *buf, size_t len);

/*
 * After the end of an incomplete trace: the line to warn with (the cut's
 * notice, or why the trace is incomplete when it was read whole); false
 * when there is nothing to say (complete, or an error).
 */
bool fstap_reader_notice(const struct fstap_reader *r, const char *verb, char *buf, size_t len);

/* After the end: whether the footer was read, and its totals. */
bool fstap_reader_complete(const struct fstap_reader *r);
const struct fstap_footer *fstap_reader_footer(const struct fstap_reader *r);
/* Why the trace is incomplete ("" if it is not), or the last error. */
const char *fstap_reader_errmsg(const struct fstap_reader *r);
uint64_t fstap_reader_skipped(const struct fstap_reader *r);
/* Byte offset of the chunk being read. */
uint64_t fstap_reader_offset(const struct fstap_reader *r);
void fstap_reader_close(struct fstap_reader *r);

/*
 * Decodes one chunk's payload (the bytes after a chunk header); for tests and
 * fuzzing. Calls fn for each record; stops at fn's nonzero return.
 */
int fstap_chunk_decode(const uint8_t *payload, size_t len, uint64_t base_ns,
		       int (*fn)(const struct fstap_rec *rec, void *arg), void *arg);

/* CRC32C (Castagnoli), as in the chunk headers. */
uint32_t fstap_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
