/*
 * check_sort.c: time order from per-thread chunks: the sorter restores the
 * order within its window, keeps metadata records in place and ties in file
 * order, counts what comes too late, shows a hook each record as it is read
 * and says where in the file each one it delivers was; deep copies of every record type, and
 * packed ones: every type, values of every width, the start as the base.
 */
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/fixtures.h"
#include "fstap/sort.h"
#include "fstap/trace.h"

static char *path;

static void setup(void)
{
	path = fixture_tmpname("sort");
}

static void teardown(void)
{
	unlink(path);
	free(path);
}

static void add_op(struct fstap_writer *w, uint32_t tid, uint64_t start)
{
	struct fstap_rec r = { .op = FSTAP_OP_GETATTR, .tid = tid, .pid = 1, .obj = start,
			       .start_ns = start };

	ck_assert_int_eq(fstap_writer_add(w, &r), 0);
}

/* Two threads, each chunk flushed whole: A's 0..9 us, B's 0.5..9.5 us, then A's 10..19. */
static void write_interleaved(void)
{
	struct fstap_trace_info info = { .metadata_json =
		(char *)"{\"recorder\":{\"flush_interval_ns\":10000}}" };
	struct fstap_rec p = { .op = FSTAP_OP_PROCESS, .pid = 1 };
	struct fstap_writer *w;
	int i;

	ck_assert_int_eq(fstap_writer_open(&w, path, &info, 0), 0);
	for (i = 0; i < 10; i++)
		add_op(w, 1, 1000 * i);
	ck_assert_int_eq(fstap_writer_flush(w), 0);
	ck_assert_int_eq(fstap_writer_add(w, &p), 0);
	for (i = 0; i < 10; i++)
		add_op(w, 2, 1000 * i + 500);
	ck_assert_int_eq(fstap_writer_flush(w), 0);
	for (i = 10; i < 20; i++)
		add_op(w, 1, 1000 * i);
	ck_assert_int_eq(fstap_writer_close(w, 0, false), 0);
	fstap_writer_free(w);
}

START_TEST(test_sort_restores_time_order)
{
	struct fstap_reader *r;
	struct fstap_sorter *s;
	struct fstap_rec rec;
	uint64_t last = 0, n = 0;
	int ret, saw_process = 0;

	write_interleaved();
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	ck_assert_uint_eq(fstap_sort_window_ns(fstap_reader_info(r)), 20000);
	ck_assert_int_eq(fstap_sorter_new(&s, r, fstap_sort_window_ns(fstap_reader_info(r))), 0);
	while ((ret = fstap_sorter_next(s, &rec)) == 1) {
		if (rec.op == FSTAP_OP_PROCESS) {
			/* Read after A's first chunk: it stays after 9 us. */
			ck_assert_uint_eq(last, 9000);
			saw_process = 1;
			continue;
		}
		if (rec.op == FSTAP_OP_FOOTER)
			continue;
		ck_assert_uint_ge(rec.start_ns, last);
		ck_assert_uint_eq(rec.obj, rec.start_ns);
		last = rec.start_ns;
		n++;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(n, 30);
	ck_assert(saw_process);
	ck_assert_uint_eq(fstap_sorter_late(s), 0);
	fstap_sorter_free(s);
	fstap_reader_close(r);
}
END_TEST

START_TEST(test_sort_counts_late_records)
{
	struct fstap_reader *r;
	struct fstap_sorter *s;
	struct fstap_rec rec;
	unsigned n = 0;

	write_interleaved();
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	/* A window of 1 us is too small for chunks that span 10 us. */
	ck_assert_int_eq(fstap_sorter_new(&s, r, 1000), 0);
	while (fstap_sorter_next(s, &rec) == 1)
		n++;
	ck_assert_uint_eq(n, 32);	/* nothing lost, only out of order */
	ck_assert_uint_gt(fstap_sorter_late(s), 0);
	fstap_sorter_free(s);
	fstap_reader_close(r);
}
END_TEST

/* What the read hook saw, in order: each record's start (its op's, or ~0 for others). */
struct seen {
	uint64_t start[64];
	unsigned n, fail_at;
};

static int note_read(void *arg, const struct fstap_rec *rec)
{
	struct seen *sn = arg;

	if (sn->n == sn->fail_at)
		return -EIO;
	ck_assert_uint_lt(sn->n, 64);
	sn->start[sn->n++] = fstap_op_is_meta(rec->op) ? ~0ull : rec->start_ns;
	return 0;
}

/*
 * The read hook sees the records in file order, before the window sorts
 * them; fstap_sorter_seq gives each delivered record's place in the file;
 * a hook's error stops the sorter with it.
 */
START_TEST(test_sort_on_read_in_file_order)
{
	struct seen sn = { .fail_at = ~0u };
	struct fstap_reader *r;
	struct fstap_sorter *s;
	struct fstap_rec rec;
	unsigned i, n = 0;
	int ret;

	write_interleaved();
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	ck_assert_int_eq(fstap_sorter_new(&s, r, 20000), 0);
	fstap_sorter_on_read(s, note_read, &sn);
	while (fstap_sorter_next(s, &rec) == 1) {
		uint64_t seq = fstap_sorter_seq(s);

		ck_assert_uint_lt(seq, sn.n);	/* read before it came out */
		ck_assert(fstap_op_is_meta(rec.op) ? sn.start[seq] == ~0ull
						   : sn.start[seq] == rec.start_ns);
		n++;
	}
	ck_assert_int_eq(fstap_sorter_error(s), 0);
	ck_assert_uint_eq(n, sn.n);
	/* A's first chunk, the process, B's chunk, A's second */
	for (i = 0; i < 10; i++) {
		ck_assert_uint_eq(sn.start[i], 1000 * i);
		ck_assert_uint_eq(sn.start[11 + i], 1000 * i + 500);
		ck_assert_uint_eq(sn.start[21 + i], 1000 * (i + 10));
	}
	ck_assert_uint_eq(sn.start[10], ~0ull);
	fstap_sorter_free(s);
	fstap_reader_close(r);

	sn = (struct seen){ .fail_at = 15 };
	ck_assert_int_eq(fstap_reader_open(&r, path, NULL), 0);
	ck_assert_int_eq(fstap_sorter_new(&s, r, 20000), 0);
	fstap_sorter_on_read(s, note_read, &sn);
	while ((ret = fstap_sorter_next(s, &rec)) == 1)
		;
	ck_assert_int_eq(ret, -EIO);
	ck_assert_uint_eq(sn.n, 15);
	fstap_sorter_free(s);
	fstap_reader_close(r);
}
END_TEST

START_TEST(test_sort_clone_every_type)
{
	struct fixture f;
	unsigned op;

	for (op = 1; op < FSTAP_OP_NR; op++) {
		struct fstap_rec *c;
		const char *diff;

		if (!fstap_op_info(op))
			continue;
		fixture_fill(&f, op, op);
		c = fstap_rec_clone(&f.rec);
		ck_assert_ptr_nonnull(c);
		memset(&f.names, 0, sizeof(f.names));	/* the copy must not share */
		memset(&f.blob, 0, sizeof(f.blob));
		fixture_fill(&f, op, op);
		diff = fixture_diff(&f.rec, c);
		ck_assert_msg(!diff, "%s: clone differs in %s", fstap_op_info(op)->name, diff);
		free(c);
	}
}
END_TEST

START_TEST(test_sort_pack_every_type)
{
	static uint64_t buf[4096];
	struct fstap_rec back = { 0 }, zero = { .op = FSTAP_OP_GETATTR };
	struct fixture f;
	const char *diff;
	unsigned op;

	for (op = 1; op < FSTAP_OP_NR; op++) {
		if (!fstap_op_info(op))
			continue;
		fixture_fill(&f, op, op);
		ck_assert_uint_le(fstap_rec_pack_bound(&f.rec), sizeof(buf));
		ck_assert_uint_le(fstap_rec_pack(buf, &f.rec, 7), fstap_rec_pack_bound(&f.rec));
		memset(&f.names, 0, sizeof(f.names));	/* the copy must not share */
		memset(&f.blob, 0, sizeof(f.blob));
		fixture_fill(&f, op, op);
		/* back still holds the last type's record: every field must be written */
		fstap_rec_unpack(&back, buf, 7);
		diff = fixture_diff_all(&f.rec, &back);
		ck_assert_msg(!diff, "%s: unpacked differs in %s", fstap_op_info(op)->name, diff);
	}
	/* Only what is set takes room: the mask and lengths, the type (start_ns is the base). */
	ck_assert_uint_eq(fstap_rec_pack(buf, &zero, 0), 16 + 1);
	zero.result = -2;
	zero.name = (struct fstap_bytes){ (const uint8_t *)"abc", 3 };
	zero.start_ns = 1000;
	ck_assert_uint_eq(fstap_rec_pack(buf, &zero, 1000), 16 + 1 + 1 + 1 + 3);
	fstap_rec_unpack(&back, buf, 1000);
	ck_assert_ptr_null(fixture_diff_all(&zero, &back));
	/* a start other than the base is kept, 0 too */
	zero.start_ns = 0;
	ck_assert_uint_eq(fstap_rec_pack(buf, &zero, 1000), 16 + 1 + 1 + 1 + 1 + 3);
	fstap_rec_unpack(&back, buf, 1000);
	ck_assert_uint_eq(back.start_ns, 0);
}
END_TEST

/* Values of every width, at the end of what was packed; more fields than the lengths hold. */
START_TEST(test_sort_pack_widths)
{
	static uint64_t buf[4096];
	struct fstap_rec r = { .op = FSTAP_OP_SETATTR }, back;
	unsigned w, i;

	for (w = 0; w <= 64; w++) {
		uint64_t v = w == 64 ? UINT64_MAX : (1ull << w) - 1;

		r.start_ns = v;
		r.cowextsize = v;
		r.atime = (int64_t)(v >> 1) * (w % 2 ? -1 : 1);
		r.result = w % 2 ? INT64_MIN : INT64_MAX;
		fstap_rec_pack(buf, &r, 12345);
		memset(&back, 0xa5, sizeof(back));
		fstap_rec_unpack(&back, buf, 12345);
		ck_assert_ptr_null(fixture_diff_all(&r, &back));
	}
	/* every scalar field set: held as a clone */
	memset(&r, 0, sizeof(r));
	for (i = 0; i < offsetof(struct fstap_rec, nentries); i++)
		((uint8_t *)&r)[i] = (uint8_t)(i | 1);
	memset(&r.name, 0, offsetof(struct fstap_rec, child) - offsetof(struct fstap_rec, name));
	ck_assert_uint_eq(fstap_rec_pack(buf, &r, 0), fstap_rec_pack_bound(&r));
	fstap_rec_unpack(&back, buf, 0);
	ck_assert_ptr_null(fixture_diff_all(&r, &back));
}
END_TEST

/* The window alone: interleaved runs, ties in seq order, empty at the end. */
START_TEST(test_window_merges_runs)
{
	/* pushed in file order: three runs (10 20 30 | 15 25 | 5 25 40) */
	static const uint64_t keys[] = { 10, 20, 30, 15, 25, 5, 25, 40 };
	static const uint64_t want[] = { 5, 10, 15, 20, 25, 25, 30, 40 };
	static const uint64_t want_seq[] = { 5, 0, 3, 1, 4, 6, 2, 7 };
	struct fstap_witem it[8], *p;
	struct fstap_window w;
	size_t i;

	fstap_window_init(&w);
	ck_assert_ptr_null(fstap_window_pop(&w));
	for (i = 0; i < 8; i++) {
		it[i].key = keys[i];
		it[i].seq = i;
		ck_assert_int_eq(fstap_window_push(&w, &it[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		ck_assert(!fstap_window_empty(&w));
		ck_assert_uint_eq(fstap_window_min_key(&w), want[i]);
		p = fstap_window_pop(&w);
		ck_assert_uint_eq(p->key, want[i]);
		ck_assert_uint_eq(p->seq, want_seq[i]);
	}
	ck_assert(fstap_window_empty(&w));
	ck_assert_ptr_null(fstap_window_pop(&w));
	fstap_window_release(&w);
}
END_TEST

/* An operation's copy keeps its names and entries and drops the rest. */
START_TEST(test_clone_op_parts)
{
	struct fixture f;
	unsigned op;

	for (op = 1; op < FSTAP_OP_NR; op++) {
		struct fstap_rec *c;

		if (!fstap_op_info(op))
			continue;
		fixture_fill(&f, op, op);
		c = malloc(sizeof(*c) + fstap_rec_clone_size(&f.rec, FSTAP_CLONE_OP));
		ck_assert_ptr_nonnull(c);
		fstap_rec_clone_into(c, c + 1, &f.rec, FSTAP_CLONE_OP);
		memset(&f.names, 0, sizeof(f.names));
		memset(&f.blob, 0, sizeof(f.blob));
		fixture_fill(&f, op, op);
		ck_assert_uint_eq(c->name.len, f.rec.name.len);
		ck_assert(!c->name.len || !memcmp(c->name.ptr, f.rec.name.ptr, c->name.len));
		ck_assert(!c->target.len || !memcmp(c->target.ptr, f.rec.target.ptr, c->target.len));
		ck_assert(!c->value.len || !memcmp(c->value.ptr, f.rec.value.ptr, c->value.len));
		ck_assert_uint_eq(c->nentries, f.rec.nentries);
		if (c->nentries)
			ck_assert(!memcmp(c->entries[0].name.ptr, f.rec.entries[0].name.ptr,
					  c->entries[0].name.len));
		ck_assert_uint_eq(c->comm.len, 0);
		ck_assert_uint_eq(c->nxattrs, 0);
		ck_assert_ptr_null(c->xattrs);
		free(c);
	}
}
END_TEST

static Suite *sort_suite(void)
{
	Suite *s = suite_create("sort");
	TCase *core = tcase_create("Core");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_sort_restores_time_order);
	tcase_add_test(core, test_sort_counts_late_records);
	tcase_add_test(core, test_sort_on_read_in_file_order);
	tcase_add_test(core, test_sort_clone_every_type);
	tcase_add_test(core, test_sort_pack_every_type);
	tcase_add_test(core, test_sort_pack_widths);
	tcase_add_test(core, test_window_merges_runs);
	tcase_add_test(core, test_clone_op_parts);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sort_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
