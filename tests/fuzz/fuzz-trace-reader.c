/*
 * fuzz-trace-reader.c: libFuzzer targets for the trace reader (built with
 * --enable-fuzzing; docs/fuzzing.md says how to run them).
 *
 * fuzz-trace-reader: the input is a trace file. It is read to the end with
 * fstap_reader_next, and every record is exported with fstap_jsonl_record
 * through a pathmap (fstap_pathmap_apply), as `fstap export` does. When the
 * input reads without error, the JSON Lines round trip is checked too:
 * export (without paths) -> fstap_jsonl_import -> read -> export must give
 * the same text (the footer's totals aside, which import recomputes); a
 * difference aborts with both lines. Only traces of a format this fstap
 * writes (1.0 to its own minor version) are checked: a later minor version
 * may carry fields this fstap skips. FUZZ_NO_ROUNDTRIP=1 turns that off.
 * Both exports keep every record, as `fstap export` does
 * (fstap_reader_keep_torn); the first read is cut, as other commands read.
 *
 * Mutated inputs almost never keep their CRC32Cs right, so the reader would
 * reject them all at the first chunk and the fuzzer would never get past
 * the checksums. The harness therefore recomputes the header's and every
 * whole chunk's checksums before reading (FUZZ_KEEP_CRC=1: as given); the
 * checksum checks themselves are covered by the unit tests' bit flips.
 *
 * fuzz-chunk-decode (the same file, built with FUZZ_CHUNK_DECODE): the input
 * is one chunk's payload, fed to fstap_chunk_decode, each record exported.
 *
 * A rejected input is fine; a crash, a sanitizer report, a hang or a failed
 * round trip is a bug.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fstap/jsonl.h"
#include "fstap/pathmap.h"
#include "fstap/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct exporter {
	struct fstap_pathmap *pm;
	struct fstap_jbuf jb;
	unsigned long n;
};

/* Exports one record with paths and learns from it, as `fstap export` does. */
static int export_rec(const struct fstap_rec *rec, void *arg)
{
	struct exporter *x = arg;

	fstap_jsonl_record(&x->jb, rec, x->pm);
	if (fstap_pathmap_apply(x->pm, rec) < 0)
		return 1;
	if (x->jb.len > (64u << 10))
		x->jb.len = 0;
	x->n++;
	return 0;
}

#ifdef FUZZ_CHUNK_DECODE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exporter x = { 0 };

	if (fstap_pathmap_new(&x.pm))
		return 0;
	fstap_chunk_decode(data, size, 0, export_rec, &x);
	fstap_jbuf_release(&x.jb);
	fstap_pathmap_free(x.pm);
	return 0;
}

#else

/* A memory file that fstap_reader_open and fstap_writer_open can name. */
struct memfile {
	int fd;
	char path[64];
};

static struct memfile in_file = { .fd = -1 }, rt_file = { .fd = -1 };
static bool roundtrip = true, fix_crc = true;
static uint8_t *fixed;
static size_t fixed_cap;

static bool env_set(const char *name)
{
	const char *e = getenv(name);

	return e && *e && strcmp(e, "0");
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void set_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* A copy of the trace with its checksums made right (layout: trace.h). */
static const uint8_t *fix_checksums(const uint8_t *data, size_t size)
{
	size_t off;
	uint32_t meta;

	if (size < FSTAP_FILE_HEADER_SIZE)
		return data;
	if (size > fixed_cap) {
		uint8_t *p = realloc(fixed, size);

		if (!p)
			return data;
		fixed = p;
		fixed_cap = size;
	}
	memcpy(fixed, data, size);
	meta = le32(fixed + 20);
	if (meta > size - FSTAP_FILE_HEADER_SIZE)
		return fixed;
	set_le32(fixed + 60, fstap_crc32c(fstap_crc32c(0, fixed, 60),
					  fixed + FSTAP_FILE_HEADER_SIZE, meta));
	off = FSTAP_FILE_HEADER_SIZE + meta;
	while (size - off >= FSTAP_CHUNK_HEADER_SIZE) {
		uint8_t *h = fixed + off;
		uint32_t len = le32(h + 8);
		bool whole = len <= size - off - FSTAP_CHUNK_HEADER_SIZE;

		if (whole)
			set_le32(h + 24, fstap_crc32c(0, h + FSTAP_CHUNK_HEADER_SIZE, len));
		set_le32(h + 28, fstap_crc32c(0, h, 28));
		if (!whole)
			break;
		off += FSTAP_CHUNK_HEADER_SIZE + (size_t)len;
	}
	return fixed;
}

static bool memfile_init(struct memfile *m, const char *name)
{
	if (m->fd >= 0)
		return true;
	m->fd = memfd_create(name, MFD_CLOEXEC);
	if (m->fd < 0)
		return false;
	snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
	return true;
}

static void write_memfile(struct memfile *m, const uint8_t *data, size_t size)
{
	if (ftruncate(m->fd, 0) || lseek(m->fd, 0, SEEK_SET) < 0)
		abort();
	while (size) {
		ssize_t n = write(m->fd, data, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			abort();
		data += n;
		size -= (size_t)n;
	}
}

/*
 * Exports path (without paths, the form import reads) to jb, its header with
 * this fstap's minor version (what import writes). Returns 1 if it read to
 * the end without error, 0 if the reader rejected it.
 */
static int export_plain(const char *path, struct fstap_jbuf *jb)
{
	struct fstap_trace_info info;
	struct fstap_reader *r;
	struct fstap_rec rec;
	int ret;

	if (fstap_reader_open(&r, path, NULL))
		return 0;
	fstap_reader_keep_torn(r);
	info = *fstap_reader_info(r);
	info.version_minor = FSTAP_VERSION_MINOR;
	ret = fstap_jsonl_header(jb, &info) ? -EINVAL : 1;
	while (ret == 1 && (ret = fstap_reader_next(r, &rec)) == 1)
		if (fstap_jsonl_record(jb, &rec, NULL))
			ret = -ENOMEM;
	fstap_reader_close(r);
	return ret == 0 && !jb->oom;
}

/* The text without its footer line (import recomputes the footer's totals). */
static size_t strip_footer(struct fstap_jbuf *jb)
{
	static const char key[] = "{\"op\":\"footer\"";
	char *p = jb->buf;
	char *end = jb->buf + jb->len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *next = nl ? nl + 1 : end;

		if ((size_t)(next - p) >= sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1)) {
			memmove(p, next, (size_t)(end - next));
			end -= next - p;
			continue;
		}
		p = next;
	}
	jb->len = (size_t)(end - jb->buf);
	return jb->len;
}

/* Length of the line at start (the buffer is not NUL-terminated). */
static size_t line_len(const struct fstap_jbuf *jb, size_t start)
{
	const char *nl;

	if (start >= jb->len)
		return 0;
	nl = memchr(jb->buf + start, '\n', jb->len - start);
	return nl ? (size_t)(nl - (jb->buf + start)) : jb->len - start;
}

static void report_diff(const struct fstap_jbuf *a, const struct fstap_jbuf *b)
{
	size_t i = 0, line = 1, start = 0, la, lb;

	while (i < a->len && i < b->len && a->buf[i] == b->buf[i]) {
		if (a->buf[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	la = line_len(a, start);
	lb = line_len(b, start);
	fprintf(stderr, "fuzz-trace-reader: JSONL round trip differs at line %zu:\n", line);
	fprintf(stderr, "  first:  %.*s\n", (int)(la > 2000 ? 2000 : la), a->buf + start);
	fprintf(stderr, "  second: %.*s\n", (int)(lb > 2000 ? 2000 : lb), b->buf + start);
}

/* binary -> JSONL -> binary -> JSONL gives the same JSONL. */
static void check_roundtrip(void)
{
	struct fstap_jbuf a = { 0 }, b = { 0 };
	char *msg = NULL;
	FILE *in;
	int ret;

	if (!export_plain(in_file.path, &a) || !a.len)
		goto out;
	in = fmemopen(a.buf, a.len, "r");
	if (!in)
		goto out;
	ret = fstap_jsonl_import(in, "fuzz", rt_file.path, 4096, &msg);
	fclose(in);
	if (ret) {
		fprintf(stderr, "fuzz-trace-reader: import rejects the export of a trace the "
			"reader accepts: %s\n", msg ? msg : strerror(-ret));
		abort();
	}
	if (!export_plain(rt_file.path, &b)) {
		fprintf(stderr, "fuzz-trace-reader: the reader rejects the imported trace\n");
		abort();
	}
	strip_footer(&a);
	strip_footer(&b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len)) {
		report_diff(&a, &b);
		abort();
	}
out:
	free(msg);
	fstap_jbuf_release(&a);
	fstap_jbuf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exporter x = { 0 };
	struct fstap_reader *r;
	struct fstap_rec rec;
	char *msg = NULL;
	int ret;

	if (in_file.fd < 0) {
		roundtrip = !env_set("FUZZ_NO_ROUNDTRIP");
		fix_crc = !env_set("FUZZ_KEEP_CRC");
		if (!memfile_init(&in_file, "fuzz-in") || !memfile_init(&rt_file, "fuzz-rt"))
			abort();
	}
	write_memfile(&in_file, fix_crc ? fix_checksums(data, size) : data, size);
	ret = fstap_reader_open(&r, in_file.path, &msg);
	free(msg);
	if (ret)
		return 0;
	if (fstap_pathmap_new(&x.pm)) {
		fstap_reader_close(r);
		return 0;
	}
	fstap_jsonl_header(&x.jb, fstap_reader_info(r));
	while ((ret = fstap_reader_next(r, &rec)) == 1)
		if (export_rec(&rec, &x))
			break;
	/* The accessors must be safe whatever the ending. */
	(void)fstap_reader_complete(r);
	(void)fstap_reader_footer(r);
	(void)strlen(fstap_reader_errmsg(r));
	(void)fstap_reader_skipped(r);
	(void)fstap_reader_offset(r);
	fstap_reader_close(r);
	fstap_jbuf_release(&x.jb);
	fstap_pathmap_free(x.pm);
	/* Format 1.x up to this fstap's (header bytes 8-11: major, minor). */
	if (ret == 0 && roundtrip && size >= 12 && data[8] == 1 && data[9] == 0 && data[11] == 0 &&
	    data[10] <= FSTAP_VERSION_MINOR)
		check_roundtrip();
	return 0;
}

#endif
