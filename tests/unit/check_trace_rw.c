/*
 * check_trace_rw.c: the trace file: writer to reader over many chunks,
 * footer totals, an oversized record, a full disk, a wrong version, a file
 * that is not a trace, and every truncation and every bit flip of a small
 * trace (incomplete or corrupt, never a crash and never silent).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures.h"
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
