/*
 * trace_reader.c: streams a trace file back, one chunk in memory at a time
 * (at most FSTAP_CHUNK_MAX_PAYLOAD bytes). It tells three endings apart:
 *  - complete: the footer chunk was read;
 *  - incomplete: the file ends at a chunk boundary without a footer, or in
 *    the middle of a chunk (a torn tail: a crash mid-write); the records
 *    before it are all delivered and the message says where it ends;
 *  - corrupt: a checksum, magic or length that is wrong in bytes that are
 *    all present; -EBADMSG with the byte offset of the chunk.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/trace.h"
#include "lib/codec_i.h"

struct fstap_reader {
	FILE *f;
	bool own_file;
	char *path;
	struct fstap_trace_info info;
	uint64_t offset;		/* of the next chunk header */
	uint64_t chunk_offset;		/* of the chunk being decoded */
	uint32_t chunk_nrec, chunk_flags;
	bool in_chunk, ended, complete;
	int error;
	char msg[512];
	struct fstap_footer footer;
	uint8_t *payload;
	size_t payload_cap;
	struct chunk_dec dec;		/* large: keep last */
};

static void set_msg(struct fstap_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_msg(struct fstap_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

/* Reads up to len bytes; returns how many (short only at end of file). */
static size_t read_some(struct fstap_reader *r, void *buf, size_t len)
{
	size_t n = fread(buf, 1, len, r->f);

	if (n < len && ferror(r->f))
		r->error = -EIO;
	return n;
}

static int open_fail(char **errmsg, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int open_fail(char **errmsg, int ret, const char *fmt, ...)
{
	va_list ap;

	if (errmsg) {
		va_start(ap, fmt);
		if (vasprintf(errmsg, fmt, ap) < 0)
			*errmsg = NULL;
		va_end(ap);
	}
	return ret;
}

int fstap_reader_open(struct fstap_reader **out, const char *path, char **errmsg)
{
	uint8_t hdr[FSTAP_FILE_HEADER_SIZE];
	struct fstap_reader *r;
	uint32_t hsize, meta_len, crc;
	size_t n;
	int ret;

	*out = NULL;
	if (errmsg)
		*errmsg = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = strdup(path);
	if (!strcmp(path, "-")) {
		r->f = stdin;
	} else {
		r->f = fopen(path, "rbe");
		r->own_file = true;
	}
	if (!r->f || !r->path) {
		ret = r->path ? -errno : -ENOMEM;
		ret = open_fail(errmsg, ret, "cannot open trace '%s': %s", path, strerror(-ret));
		goto fail;
	}
	setvbuf(r->f, NULL, _IOFBF, 1 << 20);
	n = read_some(r, hdr, sizeof(hdr));
	if (n >= 8 && memcmp(hdr, FSTAP_FILE_MAGIC, 8)) {
		ret = open_fail(errmsg, -EBADMSG, "'%s' is not an fstap trace (bad magic)", path);
		goto fail;
	}
	if (n < sizeof(hdr)) {
		ret = open_fail(errmsg, -EBADMSG, "'%s' is not an fstap trace (%zu bytes, shorter than a header)",
				path, n);
		goto fail;
	}
	r->info.version_major = get_le16(hdr + 8);
	r->info.version_minor = get_le16(hdr + 10);
	if (r->info.version_major != FSTAP_VERSION_MAJOR) {
		ret = open_fail(errmsg, -EPROTONOSUPPORT,
				"trace '%s' has format version %u.%u; this fstap reads %d.x",
				path, r->info.version_major, r->info.version_minor,
				FSTAP_VERSION_MAJOR);
		goto fail;
	}
	hsize = get_le32(hdr + 12);
	r->info.flags = get_le32(hdr + 16);
	meta_len = get_le32(hdr + 20);
	r->info.start_realtime_ns = get_le64(hdr + 24);
	r->info.start_monotonic_ns = get_le64(hdr + 32);
	if (hsize != FSTAP_FILE_HEADER_SIZE || meta_len > FSTAP_METADATA_MAX) {
		ret = open_fail(errmsg, -EBADMSG, "trace '%s' has a corrupt header (sizes %u, %u)",
				path, hsize, meta_len);
		goto fail;
	}
	r->info.metadata_json = malloc(meta_len + 1);
	if (!r->info.metadata_json) {
		ret = -ENOMEM;
		goto fail;
	}
	if (read_some(r, r->info.metadata_json, meta_len) != meta_len) {
		ret = open_fail(errmsg, -EBADMSG, "trace '%s' ends inside its metadata block", path);
		goto fail;
	}
	r->info.metadata_json[meta_len] = '\0';
	crc = fstap_crc32c(0, hdr, 60);
	crc = fstap_crc32c(crc, r->info.metadata_json, meta_len);
	if (crc != get_le32(hdr + 60)) {
		ret = open_fail(errmsg, -EBADMSG, "trace '%s' has a corrupt header (checksum mismatch)",
				path);
		goto fail;
	}
	r->offset = FSTAP_FILE_HEADER_SIZE + meta_len;
	*out = r;
	return 0;
fail:
	fstap_reader_close(r);
	return ret;
}

const struct fstap_trace_info *fstap_reader_info(const struct fstap_reader *r)
{
	return &r->info;
}

static int corrupt(struct fstap_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int corrupt(struct fstap_reader *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	set_msg(r, "trace '%s' is corrupt at byte offset %llu: %s", r->path,
		(unsigned long long)r->chunk_offset, what);
	r->error = -EBADMSG;
	r->ended = true;
	return -EBADMSG;
}

static int end_incomplete(struct fstap_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int end_incomplete(struct fstap_reader *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->error == -EIO)
		return corrupt(r, "read error");
	set_msg(r, "trace '%s' is incomplete: %s", r->path, what);
	r->ended = true;
	return 0;
}

/*
 * Whether buf and everything after it in the file are zero bytes: what a
 * crash leaves when the file's size reached the disk but its data did not.
 */
static bool rest_is_zero(struct fstap_reader *r, const uint8_t *buf, size_t n)
{
	uint8_t tmp[4096];
	size_t i, k;

	for (i = 0; i < n; i++)
		if (buf[i])
			return false;
	while ((k = read_some(r, tmp, sizeof(tmp))) > 0)
		for (i = 0; i < k; i++)
			if (tmp[i])
				return false;
	return true;
}

/* Loads the next chunk: 1 loaded, 0 end of trace, -EBADMSG. */
static int load_chunk(struct fstap_reader *r)
{
	uint8_t h[FSTAP_CHUNK_HEADER_SIZE];
	uint32_t payload_len;
	size_t n;

	r->chunk_offset = r->offset;
	n = read_some(r, h, sizeof(h));
	if (n == 0)
		return end_incomplete(r, "it ends at byte offset %llu without a footer",
				      (unsigned long long)r->offset);
	if (n < sizeof(h))
		return end_incomplete(r, "torn chunk header at byte offset %llu (%zu of %d bytes)",
				      (unsigned long long)r->offset, n, FSTAP_CHUNK_HEADER_SIZE);
	if (get_le32(h) != FSTAP_CHUNK_MAGIC) {
		if (rest_is_zero(r, h, sizeof(h)))
			return end_incomplete(r, "zero-filled tail from byte offset %llu "
					      "(a crash before the data reached the disk)",
					      (unsigned long long)r->offset);
		return corrupt(r, "bad chunk magic");
	}
	if (fstap_crc32c(0, h, 28) != get_le32(h + 28))
		return corrupt(r, "chunk header checksum mismatch");
	r->chunk_flags = get_le32(h + 4);
	payload_len = get_le32(h + 8);
	r->chunk_nrec = get_le32(h + 12);
	if (payload_len > FSTAP_CHUNK_MAX_PAYLOAD)
		return corrupt(r, "chunk of %u bytes exceeds the limit", payload_len);
	if (payload_len > r->payload_cap || !r->payload) {
		uint8_t *p = realloc(r->payload, payload_len ? payload_len : 1);

		if (!p)
			return -ENOMEM;
		r->payload = p;
		r->payload_cap = payload_len ? payload_len : 1;
	}
	n = read_some(r, r->payload, payload_len);
	if (n < payload_len)
		return end_incomplete(r, "torn chunk at byte offset %llu (%zu of %u bytes)",
				      (unsigned long long)r->offset, n, payload_len);
	if (fstap_crc32c(0, r->payload, payload_len) != get_le32(h + 24))
		return corrupt(r, "chunk checksum mismatch");
	r->offset += sizeof(h) + payload_len;
	chunk_dec_start(&r->dec, r->payload, payload_len, get_le64(h + 16));
	r->in_chunk = true;
	return 1;
}

int fstap_reader_next(struct fstap_reader *r, struct fstap_rec *rec)
{
	int ret;

	for (;;) {
		if (r->ended)
			return r->error;
		if (!r->in_chunk) {
			if (r->complete) {
				uint8_t c;

				if (read_some(r, &c, 1) != 0) {
					r->chunk_offset = r->offset;
					return corrupt(r, "data after the footer");
				}
				r->ended = true;
				return 0;
			}
			ret = load_chunk(r);
			if (ret <= 0)
				return ret;
		}
		ret = chunk_dec_next(&r->dec, rec);
		if (ret == 1) {
			if (rec->op == FSTAP_OP_FOOTER) {
				if (!(r->chunk_flags & FSTAP_CHUNK_FOOTER))
					return corrupt(r, "footer record outside the footer chunk");
				r->footer.records = rec->records;
				r->footer.lost = rec->lost;
				r->footer.bytes_read = rec->bytes_read;
				r->footer.bytes_written = rec->bytes_written;
				r->footer.end_ns = rec->time_ns;
				r->complete = true;
			}
			return 1;
		}
		if (ret < 0) {
			if (ret == -EBADMSG)
				return corrupt(r, "%s", r->dec.why);
			return ret;
		}
		/* End of this chunk's payload. */
		r->in_chunk = false;
		if (r->dec.nrec_seen != r->chunk_nrec)
			return corrupt(r, "chunk holds %u records, its header says %u",
				       r->dec.nrec_seen, r->chunk_nrec);
		if ((r->chunk_flags & FSTAP_CHUNK_FOOTER) && !r->complete)
			return corrupt(r, "footer chunk without a footer");
	}
}

bool fstap_reader_complete(const struct fstap_reader *r)
{
	return r->complete;
}

const struct fstap_footer *fstap_reader_footer(const struct fstap_reader *r)
{
	return &r->footer;
}

const char *fstap_reader_errmsg(const struct fstap_reader *r)
{
	return r->msg;
}

uint64_t fstap_reader_skipped(const struct fstap_reader *r)
{
	return r->dec.skipped;
}

uint64_t fstap_reader_offset(const struct fstap_reader *r)
{
	return r->chunk_offset;
}

void fstap_reader_close(struct fstap_reader *r)
{
	if (!r)
		return;
	if (r->own_file && r->f)
		fclose(r->f);
	chunk_dec_release(&r->dec);
	free(r->payload);
	free(r->info.metadata_json);
	free(r->path);
	free(r);
}
