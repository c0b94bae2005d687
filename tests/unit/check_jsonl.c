/*
 * check_jsonl.c: the JSON Lines form: every record type survives
 * record -> JSON line -> import -> binary -> record; byte strings that are
 * not UTF-8, values above 2^63; and import's errors name the line.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/fixtures.h"
#include "fstap/jsonl.h"
#include "fstap/trace.h"

static char *jpath, *tpath;

static void setup(void)
{
	jpath = fixture_tmpname("jsonl");
	tpath = fixture_tmpname("jsonl-trace");
}

static void teardown(void)
{
	unlink(jpath);
	unlink(tpath);
	free(jpath);
	free(tpath);
}

/* Writes jb's lines to jpath and imports them into tpath (4 KiB chunks). */
static void import_jbuf(const struct fstap_jbuf *jb)
{
	char *msg = NULL;
	FILE *f = fopen(jpath, "w");

	ck_assert_ptr_nonnull(f);
	fwrite(jb->buf, 1, jb->len, f);
	fclose(f);
	f = fopen(jpath, "r");
	ck_assert_msg(fstap_jsonl_import(f, jpath, tpath, 4096, &msg) == 0, "%s", msg);
	fclose(f);
}

static int import_text(const char *text, char **msg)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	ret = fstap_jsonl_import(f, "input", tpath, 0, msg);
	fclose(f);
	return ret;
}

START_TEST(test_jsonl_every_type_round_trips)
{
	static struct fixture fx[FSTAP_OP_NR * 2];
	struct fstap_trace_info info = { .version_major = 1, .start_realtime_ns = 5,
					 .start_monotonic_ns = 6,
					 .metadata_json = (char *)"{\"k\":[1,\"v\"]}" };
	struct fstap_jbuf jb = { 0 };
	struct fstap_reader *r;
	struct fstap_rec rec;
	unsigned n = 0, i, op, s;

	ck_assert_int_eq(fstap_jsonl_header(&jb, &info), 0);
	for (s = 0; s < 2; s++)
		for (op = 1; op < FSTAP_OP_NR; op++) {
			if (!fstap_op_info(op) || op == FSTAP_OP_FOOTER)
				continue;
			fixture_fill(&fx[n], op, op + 7 * s);
			if (s == 1 && fx[n].rec.name.len) {
				/* Not UTF-8: must come back as the same bytes. */
				static const uint8_t raw[] = { 'a', 0xff, 0, 'b' };

				fx[n].rec.name = (struct fstap_bytes){ raw, 4 };
			}
			ck_assert_int_eq(fstap_jsonl_record(&jb, &fx[n].rec, NULL), 0);
			n++;
		}
	import_jbuf(&jb);
	ck_assert_int_eq(fstap_reader_open(&r, tpath, NULL), 0);
	ck_assert_str_eq(fstap_reader_info(r)->metadata_json, "{\"k\":[1,\"v\"]}");
	ck_assert_uint_eq(fstap_reader_info(r)->start_monotonic_ns, 6);
	fstap_reader_keep_torn(r);	/* no footer: every record, not the cut */
	for (i = 0; i < n; i++) {
		const char *diff;

		ck_assert_int_eq(fstap_reader_next(r, &rec), 1);
		diff = fixture_diff(&fx[i].rec, &rec);
		ck_assert_msg(!diff, "record %u (%s) differs in %s", i,
			      fstap_op_info(fx[i].rec.op)->name, diff);
	}
	ck_assert_int_eq(fstap_reader_next(r, &rec), 0);
	ck_assert(!fstap_reader_complete(r));	/* no footer line: no footer */
	fstap_reader_close(r);
	fstap_jbuf_release(&jb);
}
END_TEST

START_TEST(test_jsonl_escapes_and_large_values)
{
	struct fstap_rec rec = { .op = FSTAP_OP_LSEEK, .tid = 1, .pid = 2, .obj = 3,
				 .offset = UINT64_MAX, .result = -22 };
	struct fstap_rec link = { .op = FSTAP_OP_SYMLINK, .tid = 1, .pid = 2, .obj = 1,
				  .child = 9 };
	struct fstap_jbuf jb = { 0 };

	link.name = (struct fstap_bytes){ (const uint8_t *)"q\"\\\n\x01", 5 };
	link.target = (struct fstap_bytes){ (const uint8_t *)"\xc3\xa9t\xc3\xa9", 5 };
	ck_assert_int_eq(fstap_jsonl_record(&jb, &rec, NULL), 0);
	ck_assert_int_eq(fstap_jsonl_record(&jb, &link, NULL), 0);
	ck_assert_int_eq(fstap_jsonl_record(&jb, &(struct fstap_rec){ .op = 999 }, NULL), -EINVAL);
	jb.buf[jb.len] = '\0';
	ck_assert_msg(strstr(jb.buf, "\"offset\":\"18446744073709551615\""), "%s", jb.buf);
	ck_assert_msg(strstr(jb.buf, "\"res\":-22"), "%s", jb.buf);
	ck_assert_msg(strstr(jb.buf, "\"name\":\"q\\\"\\\\\\n\\u0001\""), "%s", jb.buf);
	ck_assert_msg(strstr(jb.buf, "\"target\":\"\xc3\xa9t\xc3\xa9\""), "%s", jb.buf);
	fstap_jbuf_release(&jb);
}
END_TEST

/* xattr values are binary: NUL and non-UTF-8 bytes come back exactly through hex. */
START_TEST(test_jsonl_xattr_values_round_trip)
{
	static const uint8_t acl[] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x07, 0x00, 0xff };
	static const uint64_t sizes[] = { 0, 9000 };
	struct fstap_xattr xa[2] = { { B("system.posix_acl_access"), { acl, sizeof(acl) } },
				     { B("user.big"), { NULL, 0 } } };
	struct fstap_rec set = { .op = FSTAP_OP_SETXATTR, .tid = 1, .pid = 1, .obj = 2,
				 .name = B("system.posix_acl_access"), .size = sizeof(acl),
				 .value = { acl, sizeof(acl) } };
	struct fstap_rec get = { .op = FSTAP_OP_GETXATTR, .tid = 1, .pid = 1, .obj = 2,
				 .name = B("user.t"), .size = 64, .result = 4, .value = B("t\xc3\xa9") };
	struct fstap_rec ino = { .op = FSTAP_OP_STATE_INODE, .obj = 2, .mode = 040755,
				 .nxattrs = 2, .xattrs = xa, .xattr_sizes = { sizes, 2 } };
	struct fstap_rec *in[] = { &set, &get, &ino }, rec;
	struct fstap_trace_info info = { .version_major = 1 };
	struct fstap_jbuf jb = { 0 };
	struct fstap_reader *r;
	unsigned i;

	ck_assert_int_eq(fstap_jsonl_header(&jb, &info), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(fstap_jsonl_record(&jb, in[i], NULL), 0);
	jb.buf[jb.len] = '\0';
	ck_assert_msg(strstr(jb.buf, "\"value\":{\"hex\":\"0200000001000700ff\"}"), "%s", jb.buf);
	ck_assert_msg(strstr(jb.buf, "\"value\":\"t\xc3\xa9\""), "%s", jb.buf);
	ck_assert_msg(strstr(jb.buf, "\"xattr_sizes\":[0,9000]"), "%s", jb.buf);
	import_jbuf(&jb);
	ck_assert_int_eq(fstap_reader_open(&r, tpath, NULL), 0);
	for (i = 0; i < 3; i++) {
		const char *diff;

		ck_assert_int_eq(fstap_reader_next(r, &rec), 1);
		diff = fixture_diff(in[i], &rec);
		ck_assert_msg(!diff, "record %u differs in %s", i, diff);
	}
	fstap_reader_close(r);
	fstap_jbuf_release(&jb);
}
END_TEST

START_TEST(test_jsonl_import_errors_name_the_line)
{
	static const struct { const char *text, *expect; } cases[] = {
		{ "", "no header line" },
		{ "{\"op\":\"read\"}\n", "input:1: the first line must be the header" },
		{ "{\"fstap\":\"trace\",\"version\":\"2.0\"}\n", "format version 2.0 is not supported" },
		{ "{\"fstap\":\"trace\"}\n\n{\"op\":\"frobnicate\"}\n", "input:3: unknown op 'frobnicate'" },
		{ "{\"fstap\":\"trace\"}\n{\"op\":\"read\",\"colour\":1}\n", "input:2: unknown key 'colour'" },
		{ "{\"fstap\":\"trace\"}\n{\"op\":\"read\",\"size\":-1}\n", "'size' must be a non-negative integer" },
		{ "{\"fstap\":\"trace\"}\n{\"op\":\"read\",\"tid\":4294967296}\n", "'tid' is out of range" },
		{ "{\"fstap\":\"trace\"}\n{\"op\":\"read\"\n", "input:2: not a JSON object" },
		{ "{\"fstap\":\"trace\"}\n{\"op\":\"lookup\",\"name\":{\"hex\":\"0g\"}}\n", "bad hex digit" },
		{ "{\"fstap\":\"trace\"}\n{\"op\":\"footer\"}\n{\"op\":\"read\"}\n", "input:3: records after the footer" },
	};
	unsigned i;

	unlink(tpath);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *msg = NULL;

		ck_assert_int_ne(import_text(cases[i].text, &msg), 0);
		ck_assert_msg(msg && strstr(msg, cases[i].expect), "case %u: got '%s'", i,
			      msg ? msg : "(null)");
		free(msg);
		/* A failed import leaves no half-written trace behind. */
		ck_assert_int_ne(access(tpath, F_OK), 0);
	}
}
END_TEST

START_TEST(test_jsonl_footer_line_makes_a_complete_trace)
{
	struct fstap_reader *r;
	struct fstap_rec rec;
	char *msg = NULL;

	ck_assert_int_eq(import_text("{\"fstap\":\"trace\"}\n"
				     "{\"op\":\"write\",\"t\":5,\"tid\":1,\"pid\":1,\"res\":10,\"obj\":2,\"size\":10}\n"
				     "{\"op\":\"footer\",\"t\":77,\"lost\":3}\n", &msg), 0);
	ck_assert_int_eq(fstap_reader_open(&r, tpath, NULL), 0);
	while (fstap_reader_next(r, &rec) == 1)
		;
	ck_assert(fstap_reader_complete(r));
	ck_assert_uint_eq(fstap_reader_footer(r)->records, 1);
	ck_assert_uint_eq(fstap_reader_footer(r)->lost, 3);
	ck_assert_uint_eq(fstap_reader_footer(r)->end_ns, 77);
	ck_assert_uint_eq(fstap_reader_footer(r)->bytes_written, 10);
	fstap_reader_close(r);
}
END_TEST

static Suite *jsonl_suite(void)
{
	Suite *s = suite_create("jsonl");
	TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(core, test_jsonl_every_type_round_trips);
	tcase_add_test(core, test_jsonl_footer_line_makes_a_complete_trace);
	tcase_add_test(limits, test_jsonl_escapes_and_large_values);
	tcase_add_test(limits, test_jsonl_xattr_values_round_trip);
	tcase_add_test(limits, test_jsonl_import_errors_name_the_line);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(jsonl_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
