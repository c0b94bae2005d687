/*
 * trace_reader.c: streams a trace file back, one chunk in memory at a time
 * (at most FSTAP_CHUNK_MAX_PAYLOAD bytes). It tells three endings apart:
 *  - complete: the footer chunk was read;
 *  - incomplete: the file ends at a chunk boundary without a footer, or in
 *    the middle of a chunk (a torn tail: a crash mid-write); the records
 *    before it are all delivered and the message says where it ends;
 *  - corrupt: a checksum, magic or length that is wrong in bytes that are
 *    all present; -EBADMSG with the byte offset of the chunk.
 *
 * The cut of an incomplete trace: the recorder's threads reach the file in
 * chunks at different times, so a torn trace holds records of one thread
 * that are later than the last ones it holds of another. Unless the caller
 * asks for every record (fstap_reader_keep_torn), the reader delivers only
 * the complete prefix: the operation records that ended before the cutoff,
 * which is the last watermark record of a trace whose header has
 * FSTAP_TF_WATERMARKS, else, for a trace of fstap record (its metadata's
 * "tool") of format 1.0, the latest end time read minus the sort window
 * (two flush intervals). Other traces (imported, written by hand) were
 * written in one stream, in order: their torn tail is all they lose. A trace that ends with its footer needs no cut: a
 * regular file's footer is looked for when it is opened, and then records
 * go straight from the chunk to the caller. A regular file without it is
 * read once to find the cutoff, then again from its first chunk, dropping
 * what is not before it. A pipe is read once: the reader holds the records
 * not yet known to be before the cutoff, in file order (a few flush
 * intervals of records), until it knows where the trace ends.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/sort.h"
#include "fstap/trace.h"
#include "fstap/util.h"
#include "lib/codec_i.h"

/* The held records of an incomplete trace and what is known of its end. */
struct cutter {
	bool on;			/* the footer was not seen at open: cut */
	bool watermarks;		/* FSTAP_TF_WATERMARKS */
	bool source_ended;		/* raw reading returned 0 */
	bool fixed;			/* mark_ns is the final cutoff (found by a first pass) */
	uint64_t window_ns;		/* without watermarks: the cutoff's lag */
	uint64_t mark_ns;		/* records that ended before this are complete */
	struct fstap_rec **held;	/* FIFO in file order: held[head..tail) */
	size_t head, tail, cap;
	struct fstap_rec *out;		/* delivered, freed on the next call */
	struct fstap_cut stats;
};

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
	struct cutter cut;
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

/* The largest footer chunk looked for at the end of a file. */
#define FOOTER_PROBE 256

/*
 * Whether a regular file ends with a footer chunk whose checksums are right
 * (the records before it are checked as they are read). pread: the stream
 * position is not moved.
 */
static bool footer_at_end(struct fstap_reader *r)
{
	uint8_t buf[FOOTER_PROBE];
	struct stat st;
	int fd = fileno(r->f);
	ssize_t n;
	size_t want, p;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= r->offset)
		return false;
	want = (uint64_t)st.st_size - r->offset < sizeof(buf) ? (size_t)(st.st_size - r->offset)
								: sizeof(buf);
	n = pread(fd, buf, want, st.st_size - (off_t)want);
	if (n != (ssize_t)want || want < FSTAP_CHUNK_HEADER_SIZE)
		return false;
	for (p = want - FSTAP_CHUNK_HEADER_SIZE + 1; p-- > 0;) {
		const uint8_t *h = buf + p;
		uint32_t len = get_le32(h + 8);

		if (get_le32(h) != FSTAP_CHUNK_MAGIC || !(get_le32(h + 4) & FSTAP_CHUNK_FOOTER) ||
		    p + FSTAP_CHUNK_HEADER_SIZE + (uint64_t)len != want ||
		    fstap_crc32c(0, h, 28) != get_le32(h + 28))
			continue;
		return fstap_crc32c(0, h + FSTAP_CHUNK_HEADER_SIZE, len) == get_le32(h + 24);
	}
	return false;
}

static int raw_next(struct fstap_reader *r, struct fstap_rec *rec);
static void cut_learn(struct cutter *c, const struct fstap_rec *rec);

/*
 * A regular file without its footer: reads it once to learn its cutoff,
 * then goes back to its first chunk (-errno if it cannot). A footer found
 * after all (the file grew) turns the cut off.
 */
static int cut_prescan(struct fstap_reader *r)
{
	struct cutter *c = &r->cut;
	uint64_t first = r->offset;
	struct fstap_rec rec;

	while (raw_next(r, &rec) == 1)
		cut_learn(c, &rec);
	if (fseeko(r->f, (off_t)first, SEEK_SET))
		return -errno;
	c->on = !r->complete;
	c->fixed = true;
	r->offset = first;
	r->in_chunk = r->ended = r->complete = false;
	r->error = 0;
	r->msg[0] = '\0';
	r->dec.skipped = 0;
	memset(&r->footer, 0, sizeof(r->footer));
	return 0;
}

/* Decides whether this trace needs a cut; see the top of the file. */
static int cut_init(struct fstap_reader *r)
{
	struct cutter *c = &r->cut;
	struct stat st;

	c->watermarks = r->info.flags & FSTAP_TF_WATERMARKS;
	c->window_ns = fstap_sort_window_ns(&r->info);
	/* a trace one writer wrote in order is complete up to its tear */
	if (!c->watermarks && !r->info.meta.from_recorder)
		return 0;
	c->on = !footer_at_end(r);
	if (c->on && !fstat(fileno(r->f), &st) && S_ISREG(st.st_mode))
		return cut_prescan(r);
	return 0;
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
	fstap_meta_parse(r->info.metadata_json, &r->info.meta);
	if ((ret = cut_init(r))) {
		ret = open_fail(errmsg, ret, "cannot read trace '%s': %s", path, strerror(-ret));
		goto fail;
	}
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

/* The next record as the file has it: what fstap_reader_next does without a cut. */
static int raw_next(struct fstap_reader *r, struct fstap_rec *rec)
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

static uint64_t rec_end(const struct fstap_rec *rec)
{
	uint64_t end = rec->start_ns + rec->dur_ns;

	return end < rec->start_ns ? UINT64_MAX : end;
}

/* Whether rec is known to be in the complete prefix of the trace. */
static bool cut_keeps(const struct fstap_reader *r, const struct fstap_rec *rec)
{
	if (r->complete)
		return true;
	if (!fstap_op_is_meta(rec->op))
		return rec_end(rec) < r->cut.mark_ns;
	if (rec->op == FSTAP_OP_LOSS)
		return rec->time_ns < r->cut.mark_ns;
	return true;	/* initial state, processes, watermarks: not bound to a time */
}

/* Learns from a record read what is known to be complete. */
static void cut_learn(struct cutter *c, const struct fstap_rec *rec)
{
	uint64_t end;

	if (!fstap_op_is_meta(rec->op)) {
		c->stats.records_read++;
		end = rec_end(rec);
		if (end > c->stats.end_ns)
			c->stats.end_ns = end;
		if (!c->watermarks && end > c->window_ns && end - c->window_ns > c->mark_ns)
			c->mark_ns = end - c->window_ns;
	} else if (rec->op == FSTAP_OP_WATERMARK && c->watermarks) {
		if (rec->time_ns > c->mark_ns)
			c->mark_ns = rec->time_ns;
		if (rec->time_ns > c->stats.end_ns)
			c->stats.end_ns = rec->time_ns;
	}
}

static int cut_hold(struct cutter *c, const struct fstap_rec *rec)
{
	struct fstap_rec *copy;

	if (c->tail == c->cap) {
		if (c->head > c->cap / 2) {
			memmove(c->held, c->held + c->head, (c->tail - c->head) * sizeof(*c->held));
			c->tail -= c->head;
			c->head = 0;
		} else {
			if (FSTAP_GROW(c->held, c->cap + 1, c->cap))
				return -ENOMEM;
		}
	}
	copy = fstap_rec_clone(rec);
	if (!copy)
		return -ENOMEM;
	c->held[c->tail++] = copy;
	return 0;
}

static int cut_deliver(struct fstap_reader *r, struct fstap_rec *rec, struct fstap_rec *copy)
{
	struct cutter *c = &r->cut;

	free(c->out);
	c->out = copy;
	if (copy)
		*rec = *copy;
	if (!fstap_op_is_meta(rec->op))
		c->stats.records++;
	return 1;
}

/* The source ended: what the cut was, for fstap_reader_cut. */
static void cut_finish(struct fstap_reader *r)
{
	struct cutter *c = &r->cut;

	c->source_ended = true;
	if (r->complete || r->error)
		return;
	c->stats.cut = true;
	c->stats.by_watermark = c->watermarks;
	c->stats.cutoff_ns = c->mark_ns < c->stats.end_ns ? c->mark_ns : c->stats.end_ns;
}

/*
 * fstap_reader_next with the cut: delivers held records in file order as
 * they become known to be complete, and at the end of an incomplete trace
 * drops those that are not.
 */
static int cut_next(struct fstap_reader *r, struct fstap_rec *rec)
{
	struct cutter *c = &r->cut;
	struct fstap_rec in;
	int ret;

	if (c->fixed) {
		while ((ret = raw_next(r, rec)) == 1)
			if (cut_keeps(r, rec))
				return cut_deliver(r, rec, NULL);
		if (ret == 0)
			cut_finish(r);
		return ret;
	}
	for (;;) {
		if (c->head < c->tail) {
			struct fstap_rec *h = c->held[c->head];

			if (cut_keeps(r, h)) {
				c->head++;
				return cut_deliver(r, rec, h);
			}
			if (c->source_ended) {
				c->head++;
				free(h);
				continue;
			}
		} else if (c->source_ended) {
			return 0;
		}
		ret = raw_next(r, &in);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			cut_finish(r);
			continue;
		}
		cut_learn(c, &in);
		if (c->head == c->tail && cut_keeps(r, &in)) {
			*rec = in;
			return cut_deliver(r, rec, NULL);
		}
		if ((ret = cut_hold(c, &in)))
			return ret;
	}
}

int fstap_reader_next(struct fstap_reader *r, struct fstap_rec *rec)
{
	return r->cut.on ? cut_next(r, rec) : raw_next(r, rec);
}

void fstap_reader_keep_torn(struct fstap_reader *r)
{
	r->cut.on = false;
}

const struct fstap_cut *fstap_reader_cut(const struct fstap_reader *r)
{
	return &r->cut.stats;
}

/* v with a space between groups of three digits: 41 200. */
static void group_digits(uint64_t v, char *out, size_t len)
{
	char digits[24];
	size_t n, i, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ' ';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

int fstap_cut_notice(const struct fstap_cut *c, const char *verb, char *buf, size_t len)
{
	char kept[32], read[32];

	if (!c->cut)
		return -EINVAL;
	group_digits(c->records, kept, sizeof(kept));
	group_digits(c->records_read, read, sizeof(read));
	snprintf(buf, len, "incomplete trace: %s the first %.1f s of %.1f s, %s of %s records",
		 verb, (double)c->cutoff_ns / 1e9, (double)c->end_ns / 1e9, kept, read);
	return 0;
}

bool fstap_reader_notice(const struct fstap_reader *r, const char *verb, char *buf, size_t len)
{
	if (r->complete || r->error || !r->ended)
		return false;
	if (fstap_cut_notice(&r->cut.stats, verb, buf, len))
		snprintf(buf, len, "%s", r->msg);
	return true;
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
	while (r->cut.head < r->cut.tail)
		free(r->cut.held[r->cut.head++]);
	free(r->cut.held);
	free(r->cut.out);
	free(r->payload);
	free(r->info.metadata_json);
	free(r->path);
	free(r);
}
