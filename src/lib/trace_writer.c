/*
 * trace_writer.c: writes a trace file: the header and metadata block, the
 * chunks (built here by fstap_writer_add, or elsewhere and handed over with
 * fstap_writer_put_chunk), and the footer chunk, then fsyncs (a file it
 * opened itself; a descriptor handed in is the caller's). Meant for one
 * thread (the recorder's writer thread); only the lost-record counter may be
 * touched by others. A write error (a full disk) is returned and kept: the
 * chunks already written stay readable. Watermark records (written by
 * fstap_writer_watermark) tell a reader of a torn trace where the records
 * of every thread are complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fstap/trace.h"
#include "lib/codec_i.h"

struct fstap_writer {
	int fd;
	bool own_fd;
	char *path;
	int error;			/* first write error, sticky */
	uint64_t written;		/* bytes written to fd */
	char errmsg[512];
	size_t chunk_size;
	uint8_t *buf;
	uint64_t last_ns;
	uint64_t watermark_ns;		/* the last watermark written */
	struct fstap_footer totals;
	_Atomic uint64_t lost;
	struct fstap_chunk_enc enc;	/* large: keep last */
};

static int werr(struct fstap_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int werr(struct fstap_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
	if (!w->error)
		w->error = err;
	return err;
}

static int write_all(struct fstap_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (w->error)
		return w->error;
	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			return werr(w, -e, "cannot write trace '%s': %s", w->path, strerror(e));
		}
		p += n;
		len -= (size_t)n;
		w->written += (uint64_t)n;
	}
	return 0;
}

static int writer_start(struct fstap_writer **out, int fd, bool own_fd, const char *path,
			const struct fstap_trace_info *info, size_t chunk_size)
{
	const char *meta = info && info->metadata_json ? info->metadata_json : "{}";
	size_t meta_len = strlen(meta);
	uint8_t hdr[FSTAP_FILE_HEADER_SIZE] = { 0 };
	struct fstap_writer *w;
	uint32_t crc;
	int ret;

	*out = NULL;
	if (meta_len > FSTAP_METADATA_MAX)
		return -E2BIG;
	if (!chunk_size)
		chunk_size = 256 << 10;
	if (chunk_size < 4096 || chunk_size > FSTAP_CHUNK_MAX_PAYLOAD)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->chunk_size = chunk_size;
	w->buf = malloc(FSTAP_CHUNK_HEADER_SIZE + chunk_size);
	w->path = strdup(path);
	if (!w->buf || !w->path) {
		ret = -ENOMEM;
		goto fail;
	}
	w->fd = fd;
	w->own_fd = own_fd;
	memcpy(hdr, FSTAP_FILE_MAGIC, 8);
	put_le16(hdr + 8, FSTAP_VERSION_MAJOR);
	put_le16(hdr + 10, FSTAP_VERSION_MINOR);
	put_le32(hdr + 12, FSTAP_FILE_HEADER_SIZE);
	put_le32(hdr + 16, info ? info->flags : 0);
	put_le32(hdr + 20, (uint32_t)meta_len);
	put_le64(hdr + 24, info ? info->start_realtime_ns : 0);
	put_le64(hdr + 32, info ? info->start_monotonic_ns : 0);
	put_le32(hdr + 40, 1 /* CLOCK_MONOTONIC */);
	crc = fstap_crc32c(0, hdr, 60);
	crc = fstap_crc32c(crc, meta, meta_len);
	put_le32(hdr + 60, crc);
	if ((ret = write_all(w, hdr, sizeof(hdr))) || (ret = write_all(w, meta, meta_len)))
		goto fail;
	fstap_chunk_enc_init(&w->enc, w->buf, FSTAP_CHUNK_HEADER_SIZE + chunk_size, 0);
	*out = w;
	return 0;
fail:
	free(w->buf);
	free(w->path);
	free(w);
	return ret;
}

int fstap_writer_open(struct fstap_writer **out, const char *path,
		      const struct fstap_trace_info *info, size_t chunk_size)
{
	int fd, ret;

	*out = NULL;
	if (!strcmp(path, "-"))
		return writer_start(out, STDOUT_FILENO, false, path, info, chunk_size);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = writer_start(out, fd, true, path, info, chunk_size);
	if (ret)
		close(fd);
	return ret;
}

int fstap_writer_open_fd(struct fstap_writer **out, int fd, const char *name,
			 const struct fstap_trace_info *info, size_t chunk_size)
{
	return writer_start(out, fd, false, name, info, chunk_size);
}

static void account(struct fstap_writer *w, const struct fstap_chunk_enc *enc)
{
	w->totals.records += enc->nops;
	w->totals.bytes_read += enc->bytes_read;
	w->totals.bytes_written += enc->bytes_written;
	if (enc->prev_ns > w->last_ns)
		w->last_ns = enc->prev_ns;
	w->totals.end_ns = w->last_ns;
}

int fstap_writer_put_chunk(struct fstap_writer *w, const struct fstap_chunk_enc *enc)
{
	int ret;

	if (!enc->nrec)
		return 0;
	/* Records added before this chunk come before it in the file. */
	if (enc != &w->enc && w->enc.nrec && (ret = fstap_writer_flush(w)))
		return ret;
	if ((ret = write_all(w, enc->buf, enc->len)))
		return ret;
	account(w, enc);
	return 0;
}

int fstap_writer_flush(struct fstap_writer *w)
{
	int ret;

	if (!w->enc.nrec)
		return w->error;
	fstap_chunk_enc_finish(&w->enc, 0);
	ret = fstap_writer_put_chunk(w, &w->enc);
	fstap_chunk_enc_init(&w->enc, w->buf, FSTAP_CHUNK_HEADER_SIZE + w->chunk_size,
			     w->enc.prev_ns);
	return ret;
}

/* A record too large for a normal chunk goes alone into a chunk of its size. */
static int write_oversized(struct fstap_writer *w, const struct fstap_rec *rec)
{
	size_t bound = fstap_rec_encoded_bound(rec);
	struct fstap_chunk_enc *enc;
	uint8_t *buf;
	int ret;

	if (bound > FSTAP_CHUNK_MAX_PAYLOAD)
		return werr(w, -E2BIG, "record of %zu bytes exceeds the chunk limit", bound);
	enc = calloc(1, sizeof(*enc));
	buf = malloc(FSTAP_CHUNK_HEADER_SIZE + bound);
	if (!enc || !buf) {
		free(enc);
		free(buf);
		return -ENOMEM;
	}
	fstap_chunk_enc_init(enc, buf, FSTAP_CHUNK_HEADER_SIZE + bound, w->enc.prev_ns);
	ret = fstap_chunk_enc_add(enc, rec);
	if (!ret) {
		fstap_chunk_enc_finish(enc, 0);
		ret = fstap_writer_put_chunk(w, enc);
	}
	free(buf);
	free(enc);
	return ret;
}

int fstap_writer_add(struct fstap_writer *w, const struct fstap_rec *rec)
{
	int ret;

	if (w->error)
		return w->error;
	ret = fstap_chunk_enc_add(&w->enc, rec);
	if (ret != -ENOSPC)
		return ret;
	if ((ret = fstap_writer_flush(w)))
		return ret;
	ret = fstap_chunk_enc_add(&w->enc, rec);
	if (ret == -ENOSPC)
		return write_oversized(w, rec);
	return ret;
}

int fstap_writer_watermark(struct fstap_writer *w, uint64_t t_ns)
{
	struct fstap_rec m = { .op = FSTAP_OP_WATERMARK, .time_ns = t_ns };
	int ret;

	if (t_ns <= w->watermark_ns)
		return w->error;
	if ((ret = fstap_writer_add(w, &m)) || (ret = fstap_writer_flush(w)))
		return ret;
	w->watermark_ns = t_ns;
	return 0;
}

void fstap_writer_count_lost(struct fstap_writer *w, uint64_t n)
{
	atomic_fetch_add_explicit(&w->lost, n, memory_order_relaxed);
}

const struct fstap_footer *fstap_writer_totals(const struct fstap_writer *w)
{
	return &w->totals;
}

uint64_t fstap_writer_bytes(const struct fstap_writer *w)
{
	return w->written;
}

const char *fstap_writer_errmsg(const struct fstap_writer *w)
{
	return w->errmsg;
}

static void writer_free(struct fstap_writer *w)
{
	if (w->own_fd)
		close(w->fd);
	free(w->buf);
	free(w->path);
	free(w);
}

void fstap_writer_free(struct fstap_writer *w)
{
	if (w)
		writer_free(w);
}

int fstap_writer_close(struct fstap_writer *w, uint64_t end_ns, bool without_footer)
{
	int ret = fstap_writer_flush(w);

	w->totals.lost = atomic_load(&w->lost);
	w->totals.end_ns = end_ns;
	if (!ret && !without_footer) {
		struct fstap_rec f = { .op = FSTAP_OP_FOOTER };

		f.time_ns = w->totals.end_ns;
		f.records = w->totals.records;
		f.lost = w->totals.lost;
		f.bytes_read = w->totals.bytes_read;
		f.bytes_written = w->totals.bytes_written;
		fstap_chunk_enc_init(&w->enc, w->buf, FSTAP_CHUNK_HEADER_SIZE + w->chunk_size,
				     w->last_ns);
		ret = fstap_chunk_enc_add(&w->enc, &f);
		if (!ret) {
			fstap_chunk_enc_finish(&w->enc, FSTAP_CHUNK_FOOTER);
			ret = write_all(w, w->enc.buf, w->enc.len);
		}
	}
	if (!ret && w->own_fd && fsync(w->fd) < 0 && errno != EINVAL && errno != EROFS) {
		int e = errno;

		ret = werr(w, -e, "cannot fsync trace '%s': %s", w->path, strerror(e));
	}
	if (w->own_fd) {
		if (close(w->fd) < 0 && !ret) {
			int e = errno;

			ret = werr(w, -e, "cannot close trace '%s': %s", w->path, strerror(e));
		}
		w->own_fd = false;
	}
	return ret;
}
