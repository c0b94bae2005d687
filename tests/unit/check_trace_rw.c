/*
 * check_trace_rw.c: the trace file: writer to reader over many chunks,
 * footer totals, an oversized record, a full disk, a wrong version, a file
 * that is not a trace, and every truncation and every bit flip of a small
 * trace (incomplete or corrupt, never a crash and never silent); the cut of
 * an incomplete trace at its last watermark (or two flush intervals before
 * its end without watermarks), and none with a footer, from a file or a pipe.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/fixtures.h"
#include "fstap/trace.h"

static char *path, *copy;

static void setup(void)
{
	path = fixture_tmpname("rw");
	copy = fixture_tmpname("rw-copy");
	ck_assert(path && copy);
}

static void teardown(void)
{
	unlink(path);
	unlink(copy);
	free(path);
	free(copy);
}

static size_t slurp(const char *p, uint8_t **out)
{
	struct stat st;
	int fd = open(p, O_RDONLY);
	ssize_t n;

	ck_assert(fd >= 0 && fstat(fd, &st) == 0);
	*out = malloc((size_t)st.st_size + 1);
	n = read(fd, *out, (size_t)st.st_size);
	ck_assert_int_eq(n, st.st_size);
	close(fd);
	return (size_t)n;
}

static void spit(const char *p, const uint8_t *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_TRUNC | O_CREAT, 0600);

	ck_assert(fd >= 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* Reads a whole trace; returns the last next() result and counts records. */
static int read_all(const char *p, unsigned *nrec, bool *complete, int *open_ret)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	char *msg = NULL;
	int ret;

	*nrec = 0;
	*complete = false;
	*open_ret = fstap_reader_open(&r, p, &msg);
	if (*open_ret) {
		ck_assert_msg(msg && *msg, "open failed without a message");
		free(msg);
		return *open_ret;
	}
	while ((ret = fstap_reader_next(r, &rec)) == 1)
		(*nrec)++;
	*complete = fstap_reader_complete(r);
	if (ret < 0)
		ck_assert_msg(strstr(fstap_reader_errmsg(r), "byte offset"),
			      "corruption message without offset: %s", fstap_reader_errmsg(r));
	fstap_reader_close(r);
	return ret;
}

static uint32_t get_len(const uint8_t *h)
{
	return (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
}

static int find_watermark(const struct fstap_rec *rec, void *arg)
{
	if (rec->op == FSTAP_OP_WATERMARK)
		*(uint64_t *)arg = rec->time_ns;
	return 0;
}

/* The watermark a chunk (header at h) holds, 0 if none. */
static uint64_t watermark_of(const uint8_t *h)
{
	uint64_t t = 0;

	fstap_chunk_decode(h + 32, get_len(h), 0, find_watermark, &t);
	return t;
}


START_TEST(test_trace_rw_many_chunks_round_trip)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	struct fixture f;
	unsigned i = 0, op = 1;
	int ret;

	ck_assert_int_eq(fixture_write_trace(path, 3000, 4096, true), 0);
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	ck_assert_str_eq(fstap_reader_info(r)->metadata_json, "{\"test\":true}");
	ck_assert_uint_eq(fstap_reader_info(r)->start_monotonic_ns, 2);
	while ((ret = fstap_reader_next(r, &rec)) == 1 && rec.op != FSTAP_OP_FOOTER) {
		const char *diff;

		while (!fstap_op_info(op) || op == FSTAP_OP_FOOTER)
			op = (op + 1) % FSTAP_OP_NR;
		fixture_fill(&f, op, i);
		diff = fixture_diff(&f.rec, &rec);
		ck_assert_msg(!diff, "record %u differs in %s", i, diff);
		op = (op + 1) % FSTAP_OP_NR;
		i++;
	}
	ck_assert_int_eq(ret, 1);	/* the footer */
	ck_assert_int_eq(fstap_reader_next(r, &rec), 0);
	ck_assert_uint_eq(i, 3000);
	ck_assert(fstap_reader_complete(r));
	ck_assert_uint_eq(fstap_reader_footer(r)->end_ns, 12345);
	ck_assert_uint_gt(fstap_reader_footer(r)->records, 2500);
	ck_assert_uint_lt(fstap_reader_footer(r)->records, 3000);
	fstap_reader_close(r);
}
END_TEST

START_TEST(test_trace_rw_footer_totals)
{
	struct fstap_rec w_rec = { .op = FSTAP_OP_WRITE, .tid = 1, .pid = 1, .obj = 2,
				   .result = 4096, .size = 4096 };
	struct fstap_rec r_rec = { .op = FSTAP_OP_READ, .tid = 1, .pid = 1, .obj = 2,
				   .result = 100, .size = 4096 };
	struct fstap_writer *w;
	struct fstap_reader *r;
	struct fstap_rec rec;
	int i;

	ck_assert_int_eq(fstap_writer_open(&w, path, NULL, 0), 0);
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(fstap_writer_add(w, &w_rec), 0);
		ck_assert_int_eq(fstap_writer_add(w, &r_rec), 0);
	}
	fstap_writer_count_lost(w, 7);
	ck_assert_int_eq(fstap_writer_close(w, 99, false), 0);
	fstap_writer_free(w);
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	while (fstap_reader_next(r, &rec) == 1)
		;
	ck_assert(fstap_reader_complete(r));
	ck_assert_uint_eq(fstap_reader_footer(r)->records, 20);
	ck_assert_uint_eq(fstap_reader_footer(r)->lost, 7);
	ck_assert_uint_eq(fstap_reader_footer(r)->bytes_written, 40960);
	ck_assert_uint_eq(fstap_reader_footer(r)->bytes_read, 1000);
	ck_assert_uint_eq(fstap_reader_footer(r)->end_ns, 99);
	fstap_reader_close(r);
}
END_TEST

START_TEST(test_trace_rw_oversized_record)
{
	static struct fstap_dirent ents[20000];
	static char names[20000][16];
	struct fstap_rec rec = { .op = FSTAP_OP_READDIR, .tid = 1, .pid = 1, .obj = 1 };
	struct fstap_writer *w;
	struct fstap_reader *r;
	struct fstap_rec out;
	unsigned i;

	for (i = 0; i < 20000; i++) {
		int n = snprintf(names[i], sizeof(names[i]), "f%05u", i);

		ents[i] = (struct fstap_dirent){ { (uint8_t *)names[i], (uint32_t)n }, i + 2, 1000 + i, 8 };
	}
	rec.entries = ents;
	rec.nentries = 20000;
	ck_assert_int_eq(fstap_writer_open(&w, path, NULL, 4096), 0);
	ck_assert_int_eq(fstap_writer_add(w, &rec), 0);
	ck_assert_int_eq(fstap_writer_close(w, 0, false), 0);
	fstap_writer_free(w);
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	ck_assert_int_eq(fstap_reader_next(r, &out), 1);
	ck_assert_uint_eq(out.nentries, 20000);
	ck_assert_uint_eq(out.entries[19999].ino, 1000 + 19999);
	ck_assert_int_eq(memcmp(out.entries[12345].name.ptr, "f12345", 6), 0);
	fstap_reader_close(r);
}
END_TEST

START_TEST(test_trace_rw_disk_full_is_an_error)
{
	struct fstap_writer *w = NULL;

	ck_assert_int_eq(fstap_writer_open(&w, "/dev/full", NULL, 0), -ENOSPC);
	ck_assert_ptr_null(w);
}
END_TEST

START_TEST(test_trace_rw_wrong_version_and_not_a_trace)
{
	struct fstap_reader *r;
	uint8_t *buf;
	char *msg;
	size_t n;

	ck_assert_int_eq(fixture_write_trace(path, 10, 0, true), 0);
	n = slurp(path, &buf);
	buf[8] = 2;	/* major version 2.0 */
	buf[10] = 0;
	spit(copy, buf, n);
	ck_assert_int_eq(fstap_reader_open(&r, copy, &msg), -EPROTONOSUPPORT);
	ck_assert_msg(strstr(msg, "version 2.0") != NULL, "%s", msg);
	free(msg);
	spit(copy, (const uint8_t *)"hello, world\n", 13);
	ck_assert_int_eq(fstap_reader_open(&r, copy, &msg), -EBADMSG);
	ck_assert_msg(strstr(msg, "not an fstap trace") != NULL, "%s", msg);
	free(msg);
	ck_assert_int_eq(fstap_reader_open(&r, "/nonexistent/trace", &msg), -ENOENT);
	ck_assert_msg(strstr(msg, "cannot open trace") != NULL, "%s", msg);
	free(msg);
	free(buf);
}
END_TEST

START_TEST(test_trace_rw_every_truncation_is_incomplete)
{
	unsigned full, nrec;
	bool complete;
	int open_ret, ret;
	uint8_t *buf;
	size_t n, cut;

	ck_assert_int_eq(fixture_write_trace(path, 150, 4096, true), 0);
	n = slurp(path, &buf);
	ck_assert_int_eq(read_all(path, &full, &complete, &open_ret), 0);
	ck_assert(complete);
	for (cut = 0; cut < n; cut++) {
		spit(copy, buf, cut);
		ret = read_all(copy, &nrec, &complete, &open_ret);
		if (open_ret) {
			ck_assert_int_eq(open_ret, -EBADMSG);
			continue;
		}
		ck_assert_msg(ret == 0, "truncation at %zu gave %d", cut, ret);
		ck_assert_msg(!complete, "truncation at %zu reads as complete", cut);
		ck_assert_uint_lt(nrec, full);
	}
	free(buf);
}
END_TEST

START_TEST(test_trace_rw_every_bit_flip_is_detected)
{
	unsigned nrec;
	bool complete;
	int open_ret, ret;
	uint8_t *buf;
	size_t n, pos;
	unsigned bit;

	ck_assert_int_eq(fixture_write_trace(path, 60, 4096, true), 0);
	n = slurp(path, &buf);
	for (pos = 0; pos < n; pos++) {
		for (bit = 0; bit < 8; bit += 3) {
			buf[pos] ^= (uint8_t)(1u << bit);
			spit(copy, buf, n);
			ret = read_all(copy, &nrec, &complete, &open_ret);
			ck_assert_msg(ret < 0, "flip of bit %u at %zu not detected", bit, pos);
			buf[pos] ^= (uint8_t)(1u << bit);
		}
	}
	/* Data after the footer is corruption too. */
	buf = realloc(buf, n + 1);
	buf[n] = 0;
	spit(copy, buf, n + 1);
	ck_assert_int_eq(read_all(copy, &nrec, &complete, &open_ret), -EBADMSG);
	free(buf);
}
END_TEST

START_TEST(test_trace_rw_zero_filled_tail_is_incomplete)
{
	unsigned full, nrec;
	bool complete;
	int open_ret;
	uint8_t *buf;
	size_t n;

	/* A crash after the size reached the disk but not the data: zeros. */
	ck_assert_int_eq(fixture_write_trace(path, 100, 4096, false), 0);
	ck_assert_int_eq(read_all(path, &full, &complete, &open_ret), 0);
	n = slurp(path, &buf);
	buf = realloc(buf, n + 8192);
	memset(buf + n, 0, 8192);
	spit(copy, buf, n + 8192);
	ck_assert_int_eq(read_all(copy, &nrec, &complete, &open_ret), 0);
	ck_assert(!complete);
	ck_assert_uint_eq(nrec, full);
	/* But a zero chunk header followed by data is corruption. */
	buf[n + 4000] = 1;
	spit(copy, buf, n + 8192);
	ck_assert_int_eq(read_all(copy, &nrec, &complete, &open_ret), -EBADMSG);
	free(buf);
}
END_TEST

START_TEST(test_trace_rw_buffered_records_precede_put_chunks)
{
	static struct fstap_chunk_enc enc;
	static uint8_t buf[4096];
	struct fstap_rec state = { .op = FSTAP_OP_STATE_INODE, .obj = 1, .mode = 040755 };
	struct fstap_rec op = { .op = FSTAP_OP_GETATTR, .tid = 3, .pid = 3, .obj = 1 };
	struct fstap_writer *w;
	struct fstap_reader *r;
	struct fstap_rec rec;

	/* The recorder's snapshot goes through add, its requests through put_chunk. */
	ck_assert_int_eq(fstap_writer_open(&w, path, NULL, 0), 0);
	ck_assert_int_eq(fstap_writer_add(w, &state), 0);
	fstap_chunk_enc_init(&enc, buf, sizeof(buf), 0);
	ck_assert_int_eq(fstap_chunk_enc_add(&enc, &op), 0);
	fstap_chunk_enc_finish(&enc, 0);
	ck_assert_int_eq(fstap_writer_put_chunk(w, &enc), 0);
	ck_assert_int_eq(fstap_writer_close(w, 0, false), 0);
	fstap_writer_free(w);
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	ck_assert_int_eq(fstap_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.op, FSTAP_OP_STATE_INODE);
	ck_assert_int_eq(fstap_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.op, FSTAP_OP_GETATTR);
	ck_assert_uint_eq(fstap_reader_footer(r)->records, 0);	/* not read yet */
	while (fstap_reader_next(r, &rec) == 1)
		;
	ck_assert_uint_eq(fstap_reader_footer(r)->records, 1);
	fstap_reader_close(r);
}
END_TEST

/*
 * The recorder's shape: two threads' chunks interleaved in the file, each
 * thread's records later than the other's last ones, and a watermark after
 * each round. Thread A's records take 100 ns, B's 300 ns; round k holds the
 * records of [k * 1000, k * 1000 + 1000) and states the watermark of the
 * round before (as recbuf.c does).
 */
#define TWO_THREAD_META "{\"recorder\":{\"flush_interval_ns\":1000},\"tool\":\"fstap record\"}"

static void write_trace_as(const char *p, bool footer, uint32_t flags, const char *meta)
{
	static struct fstap_chunk_enc enc;
	static uint8_t buf[4096];
	struct fstap_trace_info info = { .flags = flags, .metadata_json = (char *)meta };
	struct fstap_writer *w;
	unsigned k, i, t;

	ck_assert_int_eq(fstap_writer_open(&w, p, &info, 4096), 0);
	for (k = 0; k < 8; k++) {
		for (t = 0; t < 2; t++) {
			fstap_chunk_enc_init(&enc, buf, sizeof(buf), 0);
			for (i = 0; i < 5; i++) {
				struct fstap_rec r = { .op = FSTAP_OP_GETATTR, .tid = 10 + t,
						       .pid = 10, .obj = 1 };

				r.start_ns = k * 1000 + i * 200 + t * 50;
				r.dur_ns = t ? 300 : 100;
				ck_assert_int_eq(fstap_chunk_enc_add(&enc, &r), 0);
			}
			fstap_chunk_enc_finish(&enc, 0);
			ck_assert_int_eq(fstap_writer_put_chunk(w, &enc), 0);
		}
		if ((flags & FSTAP_TF_WATERMARKS) && k)
			ck_assert_int_eq(fstap_writer_watermark(w, k * 1000), 0);
	}
	ck_assert_int_eq(fstap_writer_close(w, 8000, !footer), 0);
	fstap_writer_free(w);
}

static void write_two_thread_trace(const char *p, bool footer, uint32_t flags)
{
	write_trace_as(p, footer, flags, TWO_THREAD_META);
}

/* How many records of write_two_thread_trace ended before mark. */
static unsigned two_thread_before(uint64_t mark)
{
	unsigned i, n = 0;

	for (i = 0; i < 8 * 10; i++) {
		unsigned k = i / 10, t = i / 5 % 2, j = i % 5;

		if (k * 1000 + j * 200 + t * 50 + (t ? 300 : 100) < mark)
			n++;
	}
	return n;
}

/* Reads p with the cut; the op records' end times, in delivery order. */
static unsigned read_cut(const char *p, uint64_t *ends, struct fstap_cut *cut)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	unsigned n = 0;

	ck_assert_int_eq(fstap_reader_open(&r, p, NULL), 0);
	while (fstap_reader_next(r, &rec) == 1)
		if (!fstap_op_is_meta(rec.op))
			ends[n++] = rec.start_ns + rec.dur_ns;
	*cut = *fstap_reader_cut(r);
	fstap_reader_close(r);
	return n;
}

START_TEST(test_trace_rw_every_cut_ends_at_the_watermark)
{
	uint64_t ends[128], mark, last_mark = 0;
	struct fstap_cut cut;
	unsigned n, i, want;
	uint8_t *buf;
	size_t len, pos, at, first = FSTAP_FILE_HEADER_SIZE + strlen(TWO_THREAD_META);

	write_two_thread_trace(path, true, FSTAP_TF_WATERMARKS);
	len = slurp(path, &buf);
	ck_assert_uint_eq(read_cut(path, ends, &cut), 80);
	ck_assert(!cut.cut);
	for (pos = 0; pos < len; pos++) {
		if (pos < first)
			continue;	/* inside the header: an error, tested elsewhere */
		spit(copy, buf, pos);
		/* The last watermark in a chunk wholly in the prefix. */
		mark = 0;
		for (at = first; at + 32 <= pos && at + 32 + get_len(buf + at) <= pos;
		     at += 32 + get_len(buf + at))
			if (watermark_of(buf + at))
				mark = watermark_of(buf + at);
		n = read_cut(copy, ends, &cut);
		want = two_thread_before(mark);
		ck_assert_msg(cut.cut && cut.by_watermark, "cut at %zu not reported", pos);
		ck_assert_msg(n == want && cut.records == want && cut.cutoff_ns == mark,
			      "cut at %zu: %u records up to %llu, want %u up to %llu", pos, n,
			      (unsigned long long)cut.cutoff_ns, want, (unsigned long long)mark);
		for (i = 0; i < n; i++)
			ck_assert_uint_lt(ends[i], mark);
		ck_assert_uint_ge(mark, last_mark);
		last_mark = mark;
	}
	ck_assert_uint_eq(last_mark, 7000);
	free(buf);
}
END_TEST

START_TEST(test_trace_rw_recorder_cut_without_watermarks_lags_two_flush_intervals)
{
	uint64_t ends[128], last_end;
	struct fstap_cut cut;
	unsigned n, i;
	uint8_t *buf;
	size_t len;

	/* Not the recorder's, no watermarks: written in order, read whole. */
	write_trace_as(path, false, 0, "{\"tool\":\"fstap import\"}");
	ck_assert_uint_eq(read_cut(path, ends, &cut), 80);
	ck_assert(!cut.cut);
	/* The recorder's of format 1.0: no watermarks. */
	write_two_thread_trace(path, false, 0);
	len = slurp(path, &buf);
	ck_assert_uint_eq(read_cut(path, ends, &cut), two_thread_before(8150 - 2 * 1000));
	ck_assert(cut.cut && !cut.by_watermark);
	ck_assert_uint_eq(cut.end_ns, 7000 + 800 + 50 + 300);
	ck_assert_uint_eq(cut.cutoff_ns, cut.end_ns - 2 * 1000);
	ck_assert_uint_eq(cut.records, 60);
	ck_assert_uint_eq(cut.records_read, 80);
	spit(copy, buf, len / 2);
	n = read_cut(copy, ends, &cut);
	last_end = cut.end_ns;
	ck_assert_uint_eq(cut.cutoff_ns, last_end - 2000);
	ck_assert_uint_eq(cut.records, n);
	ck_assert_uint_eq(n, two_thread_before(cut.cutoff_ns));
	for (i = 0; i < n; i++)
		ck_assert_uint_lt(ends[i], cut.cutoff_ns);
	ck_assert_uint_gt(cut.records_read, n);
	free(buf);
}
END_TEST

/* The records of p, all fields, as the reader gives them (file or pipe). */
static unsigned read_records(const char *p, bool via_pipe, bool keep_torn, char *out, size_t cap)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	unsigned n = 0;
	size_t o = 0;
	int fds[2], saved = -1;
	pid_t pid = 0;

	if (via_pipe) {
		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		if (pid == 0) {
			uint8_t *buf;
			size_t len = slurp(p, &buf);

			close(fds[0]);
			ck_assert_int_eq(write(fds[1], buf, len), (ssize_t)len);
			_exit(0);
		}
		close(fds[1]);
		saved = dup(0);
		dup2(fds[0], 0);
		close(fds[0]);
	}
	clearerr(stdin);
	ck_assert_int_eq(fstap_reader_open(&r, via_pipe ? "-" : p, NULL), 0);
	if (keep_torn)
		fstap_reader_keep_torn(r);
	while (fstap_reader_next(r, &rec) == 1) {
		o += (size_t)snprintf(out + o, cap - o, "%u %llu %llu %u;", rec.op,
				      (unsigned long long)rec.start_ns,
				      (unsigned long long)rec.time_ns, rec.tid);
		ck_assert_uint_lt(o, cap);
		n++;
	}
	fstap_reader_close(r);
	if (via_pipe) {
		dup2(saved, 0);
		close(saved);
		waitpid(pid, NULL, 0);
	}
	return n;
}

/* The metadata keys fstap acts on, parsed once; what a reader exposes. */
START_TEST(test_trace_rw_metadata_parsed_once)
{
	struct fstap_meta m;
	struct fstap_reader *r;
	const struct fstap_trace_info *info;

	fstap_meta_parse(NULL, &m);
	ck_assert(!m.from_recorder && !m.attrs_stale && !m.syncs_flagged);
	ck_assert_uint_eq(m.flush_interval_ns, FSTAP_DEFAULT_FLUSH_NS);
	fstap_meta_parse("not json", &m);
	ck_assert_uint_eq(m.flush_interval_ns, FSTAP_DEFAULT_FLUSH_NS);
	fstap_meta_parse("{\"tool\":\"fstap import\",\"recorder\":{\"flush_interval_ns\":0,"
			 "\"attr_timeout\":1.0,\"direct_io\":false}}", &m);
	ck_assert(!m.from_recorder && !m.attrs_stale && !m.syncs_flagged);
	ck_assert_uint_eq(m.flush_interval_ns, FSTAP_DEFAULT_FLUSH_NS);
	fstap_meta_parse("{\"flush_interval_ns\":5,\"recorder\":{\"attr_timeout\":0,"
			 "\"writeback_cache\":true}}", &m);
	ck_assert(m.attrs_stale && m.syncs_flagged);
	ck_assert_uint_eq(m.flush_interval_ns, FSTAP_DEFAULT_FLUSH_NS);
	fstap_meta_parse("{\"recorder\":{\"sync_writes_flagged\":true,\"attr_timeout\":\"0\"}}",
			 &m);
	ck_assert(!m.attrs_stale && m.syncs_flagged);
	ck_assert(!m.writeback_cache && !m.calibrated);
	/* the calibration's round trips: the data figure defaults to the metadata one */
	fstap_meta_parse("{\"recorder\":{\"writeback_cache\":true,\"calibration\":"
			 "{\"meta_round_trip_ns\":15000,\"data_round_trip_ns\":20000}}}", &m);
	ck_assert(m.writeback_cache && m.calibrated);
	ck_assert_uint_eq(m.meta_round_trip_ns, 15000);
	ck_assert_uint_eq(m.data_round_trip_ns, 20000);
	fstap_meta_parse("{\"recorder\":{\"calibration\":{\"meta_round_trip_ns\":0,"
			 "\"data_round_trip_ns\":-1}}}", &m);
	ck_assert(m.calibrated);
	ck_assert_uint_eq(m.data_round_trip_ns, 0);
	fstap_meta_parse("{\"recorder\":{\"calibration\":{\"meta_round_trip_ns\":-5}}}", &m);
	ck_assert(!m.calibrated);

	write_trace_as(path, true, 0, TWO_THREAD_META);
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	info = fstap_reader_info(r);
	ck_assert(info->meta.from_recorder);
	ck_assert_uint_eq(info->meta.flush_interval_ns, 1000);
	fstap_reader_close(r);
}
END_TEST

START_TEST(test_trace_rw_complete_trace_is_not_cut)
{
	static char a[16384], b[16384];
	unsigned n;

	/* With the footer, from a file (found at open) or a pipe (at the end). */
	write_two_thread_trace(path, true, FSTAP_TF_WATERMARKS);
	n = read_records(path, false, false, a, sizeof(a));
	ck_assert_uint_eq(n, 80 + 7 + 1);
	ck_assert_uint_eq(read_records(path, true, false, b, sizeof(b)), n);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(read_records(path, false, true, b, sizeof(b)), n);
	ck_assert_str_eq(a, b);
	/* Without it, keep_torn gives every record in file order. */
	write_two_thread_trace(copy, false, FSTAP_TF_WATERMARKS);
	ck_assert_uint_eq(read_records(copy, false, true, b, sizeof(b)), n - 1);
	ck_assert_int_eq(strncmp(a, b, strlen(b)), 0);
	ck_assert_uint_lt(read_records(copy, true, false, b, sizeof(b)), n - 1);
}
END_TEST

START_TEST(test_trace_rw_cut_notice)
{
	struct fstap_cut c = { .cut = true, .cutoff_ns = 12345678901ull, .end_ns = 14960000000ull,
			       .records = 41200, .records_read = 52000 };
	char line[256];

	ck_assert_int_eq(fstap_cut_notice(&c, "replayed", line, sizeof(line)), 0);
	ck_assert_str_eq(line, "incomplete trace: replayed the first 12.3 s of 15.0 s, "
			 "41 200 of 52 000 records");
	c = (struct fstap_cut){ .cut = true, .end_ns = 800000000, .records_read = 1234567 };
	ck_assert_int_eq(fstap_cut_notice(&c, "reported", line, sizeof(line)), 0);
	ck_assert_str_eq(line, "incomplete trace: reported the first 0.0 s of 0.8 s, "
			 "0 of 1 234 567 records");
	c.cut = false;
	ck_assert_int_eq(fstap_cut_notice(&c, "reported", line, sizeof(line)), -EINVAL);
}
END_TEST

static Suite *trace_rw_suite(void)
{
	Suite *s = suite_create("trace_rw");
	TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_set_timeout(limits, 120);
	tcase_add_test(core, test_trace_rw_many_chunks_round_trip);
	tcase_add_test(core, test_trace_rw_footer_totals);
	tcase_add_test(core, test_trace_rw_oversized_record);
	tcase_add_test(core, test_trace_rw_buffered_records_precede_put_chunks);
	tcase_add_test(limits, test_trace_rw_disk_full_is_an_error);
	tcase_add_test(limits, test_trace_rw_wrong_version_and_not_a_trace);
	tcase_add_test(limits, test_trace_rw_every_truncation_is_incomplete);
	tcase_add_test(limits, test_trace_rw_every_bit_flip_is_detected);
	tcase_add_test(limits, test_trace_rw_zero_filled_tail_is_incomplete);
	tcase_add_test(limits, test_trace_rw_every_cut_ends_at_the_watermark);
	tcase_add_test(limits, test_trace_rw_recorder_cut_without_watermarks_lags_two_flush_intervals);
	tcase_add_test(core, test_trace_rw_complete_trace_is_not_cut);
	tcase_add_test(core, test_trace_rw_cut_notice);
	tcase_add_test(core, test_trace_rw_metadata_parsed_once);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_rw_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
