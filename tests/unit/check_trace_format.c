/*
 * check_trace_format.c: the record encoding: every record type round-trips
 * through a chunk, varint and zigzag edges, CRC32C, name interning, a full
 * chunk, and hostile payloads rejected without overruns. A varint with
 * fewer than FSTAP_VARINT_MAX bytes left (get_varint's short way): every
 * length at every distance from the end reads the same value and stops
 * after it, varints one after another, one cut by the end (bytes beyond
 * it not read) is the same error as ever (bad, at the end, 0), and a bad
 * cursor stays bad; in a payload, a varint cut by its record's end with
 * bytes of the payload after it is rejected. A type of a later version:
 * an operation's header is decoded (its body skipped), a meta type's body
 * skipped whole.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fixtures.h"
#include "fstap/trace.h"
#include "lib/codec_i.h"

static struct fstap_chunk_enc enc;
static uint8_t chunk[1 << 16];

struct expect {
	const struct fixture *fx;
	unsigned n, seen;
	const char *diff;
};

static int check_each(const struct fstap_rec *rec, void *arg)
{
	struct expect *e = arg;

	if (e->seen >= e->n) {
		e->diff = "extra record";
		return 1;
	}
	e->diff = fixture_diff(&e->fx[e->seen].rec, rec);
	e->seen++;
	return e->diff != NULL;
}

START_TEST(test_trace_format_every_type_round_trips)
{
	static struct fixture fx[FSTAP_OP_NR * 3];
	struct expect e = { fx, 0, 0, NULL };
	unsigned op, s;
	size_t len;
	int ret;

	fstap_chunk_enc_init(&enc, chunk, sizeof(chunk), 900);
	for (s = 0; s < 3; s++)
		for (op = 1; op < FSTAP_OP_NR; op++) {
			if (!fstap_op_info(op))
				continue;
			fixture_fill(&fx[e.n], op, op * 3 + s);
			ck_assert_int_eq(fstap_chunk_enc_add(&enc, &fx[e.n].rec), 0);
			e.n++;
		}
	len = fstap_chunk_enc_finish(&enc, 0);
	ck_assert_uint_eq(get_le32(chunk + 12), e.n);
	ret = fstap_chunk_decode(chunk + FSTAP_CHUNK_HEADER_SIZE, len - FSTAP_CHUNK_HEADER_SIZE,
				 900, check_each, &e);
	ck_assert_msg(e.diff == NULL, "record %u (%s) differs in %s", e.seen - 1,
		      fstap_op_info(fx[e.seen - 1].rec.op)->name, e.diff);
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(e.seen, e.n);
}
END_TEST

START_TEST(test_trace_format_every_type_has_name_and_is_found)
{
	unsigned op, known = 0;

	for (op = 0; op < FSTAP_OP_NR; op++) {
		const struct fstap_op_info *oi = fstap_op_info(op);

		if (!oi)
			continue;
		known++;
		ck_assert_uint_eq(fstap_op_by_name(oi->name), op);
		ck_assert_uint_le(oi->nfields, FSTAP_OP_MAX_FIELDS);
		ck_assert_int_eq(!!(oi->props & FSTAP_OPP_META), op >= FSTAP_OP_META_FIRST);
	}
	/* Every operation the BRIEF lists, plus forget, ioctl and six metadata types. */
	ck_assert_uint_eq(known, 34 + 6);
	ck_assert_uint_eq(fstap_op_by_name("no-such-op"), FSTAP_OP_NONE);
}
END_TEST

START_TEST(test_trace_format_varint_edges)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX,
					 (1ull << 63) - 1, 1ull << 63, UINT64_MAX };
	static const int64_t svals[] = { 0, 1, -1, 63, -64, INT64_MAX, INT64_MIN };
	uint8_t buf[16];
	unsigned i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint8_t *end = put_varint(buf, vals[i]);
		struct cursor c = { buf, end, false };

		ck_assert_uint_eq((size_t)(end - buf), varint_len(vals[i]));
		ck_assert_uint_eq(get_varint(&c), vals[i]);
		ck_assert(!c.bad && c.p == end);
		/* With room after it (the decoder's path without a bound per byte). */
		memset(end, 0xff, (size_t)(buf + sizeof(buf) - end));
		c = (struct cursor){ buf, buf + sizeof(buf), false };
		ck_assert_uint_eq(get_varint(&c), vals[i]);
		ck_assert(!c.bad && c.p == end);
		/* Cut short, it is an error, not a read past the end. */
		c = (struct cursor){ buf, end - 1, false };
		get_varint(&c);
		ck_assert(c.bad);
	}
	for (i = 0; i < sizeof(svals) / sizeof(svals[0]); i++)
		ck_assert_int_eq(unzigzag(zigzag(svals[i])), svals[i]);
	/* Eleven continuation bytes: overlong; a tenth byte over 1: past 64 bits. */
	memset(buf, 0xff, 11);
	for (i = 10; i <= 16; i += 6) {
		struct cursor c = { buf, buf + i, false };

		buf[9] = i == 10 ? 0xff : 0x02;
		get_varint(&c);
		ck_assert(c.bad);
		c = (struct cursor){ buf, buf + i, false };
		buf[9] = 0x01;
		ck_assert_uint_eq(get_varint(&c), UINT64_MAX);
		ck_assert(!c.bad && c.p == buf + 10);
	}
}
END_TEST

/* A varint with fewer than FSTAP_VARINT_MAX bytes left before the cursor's end. */
START_TEST(test_trace_format_varint_near_the_end)
{
	static const uint64_t vals[] = { 0, 127, 128, 300, 16383, 16384, 1ull << 35,
					 (1ull << 56) - 1, (1ull << 56), (1ull << 63) - 1 };
	uint8_t buf[32];
	unsigned i, len, left;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		len = (unsigned)(put_varint(buf, vals[i]) - buf);
		/* whatever follows within the end is the next field's, never this one's */
		memset(buf + len, 0x81, sizeof(buf) - len);
		for (left = len; left < FSTAP_VARINT_MAX; left++) {
			struct cursor c = { buf, buf + left, false };

			ck_assert_uint_eq(get_varint(&c), vals[i]);
			ck_assert_msg(!c.bad && c.p == buf + len, "value %u, %u bytes left", i, left);
		}
		/* cut by the end, with bytes of the same varint beyond it: bad, at the end, 0 */
		for (left = 0; left < len; left++) {
			struct cursor c = { buf, buf + left, false };

			put_varint(buf, vals[i]);
			ck_assert_uint_eq(get_varint(&c), 0);
			ck_assert_msg(c.bad && c.p == c.end, "value %u cut at %u", i, left);
		}
	}
	/* nine bytes, all continued: no end within the nine */
	memset(buf, 0xff, sizeof(buf));
	{
		struct cursor c = { buf, buf + 9, false };

		ck_assert_uint_eq(get_varint(&c), 0);
		ck_assert(c.bad && c.p == buf + 9);
		/* bad stays bad, and reads nothing */
		ck_assert_uint_eq(get_varint(&c), 0);
		ck_assert(c.bad && c.p == buf + 9);
	}
	/* varints one after another, each on the short way: 300, 0, 16384, 1 << 35, 5 */
	{
		uint8_t *p = buf;
		struct cursor c;

		p = put_varint(p, 300);
		p = put_varint(p, 0);
		p = put_varint(p, 16384);
		p = put_varint(p, 1ull << 35);
		p = put_varint(p, 5);
		ck_assert_uint_eq((size_t)(p - buf), 2 + 1 + 3 + 6 + 1);
		c = (struct cursor){ buf, p, false };
		ck_assert_uint_eq(get_varint(&c), 300);
		ck_assert_uint_eq(get_varint(&c), 0);
		ck_assert_uint_eq(get_varint(&c), 16384);
		ck_assert_uint_eq(get_varint(&c), 1ull << 35);
		ck_assert_uint_eq(get_varint(&c), 5);
		ck_assert(!c.bad && c.p == p);
		get_varint(&c);
		ck_assert(c.bad && c.p == p);
	}
}
END_TEST

START_TEST(test_trace_format_crc32c_check_value)
{
	static const char data[] = "123456789";
	uint32_t whole = fstap_crc32c(0, data, 9);

	ck_assert_uint_eq(whole, 0xe3069283u);
	/* Incremental equals whole. */
	ck_assert_uint_eq(fstap_crc32c(fstap_crc32c(0, data, 4), data + 4, 5), whole);
	ck_assert_uint_eq(fstap_crc32c(0, "", 0), 0);
}
END_TEST

START_TEST(test_trace_format_names_are_interned)
{
	struct fstap_rec r = { .op = FSTAP_OP_SETXATTR, .tid = 1, .pid = 1, .obj = 5 };
	size_t first, second;

	r.name = (struct fstap_bytes){ (const uint8_t *)"user.DOSATTRIB", 14 };
	fstap_chunk_enc_init(&enc, chunk, sizeof(chunk), 0);
	ck_assert_int_eq(fstap_chunk_enc_add(&enc, &r), 0);
	first = enc.len;
	ck_assert_int_eq(fstap_chunk_enc_add(&enc, &r), 0);
	second = enc.len - first;
	/* op, len, hdr, dt, dur, obj, name ref, size, flags, value length (0) */
	ck_assert_uint_le(second, 10);
	ck_assert_uint_gt(first - FSTAP_CHUNK_HEADER_SIZE, 14);
}
END_TEST

START_TEST(test_trace_format_full_chunk_is_unchanged)
{
	struct fixture f;
	size_t before;
	uint32_t n;

	fstap_chunk_enc_init(&enc, chunk, 256, 0);
	fixture_fill(&f, FSTAP_OP_READ, 1);
	while (fstap_chunk_enc_add(&enc, &f.rec) == 0)
		;
	before = enc.len;
	n = enc.nrec;
	ck_assert_int_eq(fstap_chunk_enc_add(&enc, &f.rec), -ENOSPC);
	ck_assert_uint_eq(enc.len, before);
	ck_assert_uint_eq(enc.nrec, n);
	ck_assert_uint_le(enc.len, 256);
}
END_TEST

START_TEST(test_trace_format_unknown_type_is_skipped)
{
	/*
	 * op 77 (unknown): an operation header (thread 9/9, uid 5, gid 5, obj 4)
	 * and 3 more bytes; then a statfs record that inherits thread and
	 * credentials from it, as records of a later version would.
	 */
	struct fstap_rec r = { .op = FSTAP_OP_STATFS, .tid = 9, .pid = 9, .uid = 5, .gid = 5,
			       .obj = 1, .start_ns = 7, .dur_ns = 2 };
	uint8_t payload[64] = { 77, 12, 0x03, 0, 0, 0, 9, 9, 5, 5, 4, 1, 2, 3,
				FSTAP_OP_STATFS, 4, 0, 14, 2, 1 };
	struct fixture fx;
	struct expect e = { &fx, 1, 0, NULL };

	fx.rec = r;
	ck_assert_int_eq(fstap_chunk_decode(payload, 20, 0, check_each, &e), 0);
	ck_assert_uint_eq(e.seen, 1);
	ck_assert(e.diff == NULL);
}
END_TEST

/*
 * A meta type of a later version (200) carries no operation header: its
 * body, though it reads like one (thread 8/8, uid 6), is skipped without
 * changing the state the next record inherits (thread 9/9, uid 5).
 */
START_TEST(test_trace_format_unknown_meta_type_is_skipped)
{
	struct fstap_rec r = { .op = FSTAP_OP_STATFS, .tid = 9, .pid = 9, .uid = 5, .gid = 5,
			       .obj = 1, .start_ns = 7, .dur_ns = 2 };
	uint8_t payload[64] = { 77, 12, 0x03, 0, 0, 0, 9, 9, 5, 5, 4, 1, 2, 3,
				200, 12, 0x03, 0, 0, 0, 8, 8, 6, 6, 4, 1, 2, 3,
				FSTAP_OP_STATFS, 4, 0, 14, 2, 1 };
	struct fixture fx;
	struct expect e = { &fx, 1, 0, NULL };

	ck_assert_int_ge(200, FSTAP_OP_META_FIRST);
	ck_assert_ptr_null(fstap_op_info(200));
	fx.rec = r;
	ck_assert_int_eq(fstap_chunk_decode(payload, 34, 0, check_each, &e), 0);
	ck_assert_uint_eq(e.seen, 1);
	ck_assert_msg(e.diff == NULL, "%s", e.diff);
}
END_TEST

/*
 * The xattr values of version 1.1: a binary setxattr value comes back
 * exactly, and a 1.0 record (the same body without its value, the field
 * 1.1 appended) reads with an empty value and its size intact.
 */
START_TEST(test_trace_format_xattr_value_and_older_record)
{
	static const uint8_t val[] = { 0x02, 0x00, 0x00, 0x00, 0xff, 0x00, 0x01 };
	struct fstap_rec r = { .op = FSTAP_OP_SETXATTR, .tid = 3, .pid = 3, .obj = 5,
			       .name = B("system.posix_acl_access"), .size = sizeof(val),
			       .flags_arg = 1, .value = { val, sizeof(val) } };
	struct fixture fx;
	struct expect e = { &fx, 1, 0, NULL };
	uint8_t *p = chunk + FSTAP_CHUNK_HEADER_SIZE;
	size_t len;

	fstap_chunk_enc_init(&enc, chunk, sizeof(chunk), 0);
	ck_assert_int_eq(fstap_chunk_enc_add(&enc, &r), 0);
	len = enc.len - FSTAP_CHUNK_HEADER_SIZE;
	fx.rec = r;
	ck_assert_int_eq(fstap_chunk_decode(p, len, 0, check_each, &e), 0);
	ck_assert_msg(e.diff == NULL && e.seen == 1, "%s", e.diff);

	r.value = (struct fstap_bytes){ NULL, 0 };
	fstap_chunk_enc_init(&enc, chunk, sizeof(chunk), 0);
	ck_assert_int_eq(fstap_chunk_enc_add(&enc, &r), 0);
	len = enc.len - FSTAP_CHUNK_HEADER_SIZE;
	ck_assert_uint_eq(p[0], FSTAP_OP_SETXATTR);
	ck_assert_uint_lt(p[1], 0x80);		/* a one-byte length */
	ck_assert_uint_eq(p[len - 1], 0);	/* the empty value's length, last */
	p[1]--;					/* drop it: a 1.0 writer's body */
	fx.rec = r;
	e = (struct expect){ &fx, 1, 0, NULL };
	ck_assert_int_eq(fstap_chunk_decode(p, len - 1, 0, check_each, &e), 0);
	ck_assert_msg(e.diff == NULL && e.seen == 1, "%s", e.diff);
}
END_TEST

static int count_rec(const struct fstap_rec *rec, void *arg)
{
	(*(unsigned *)arg)++;
	return 0;
}

START_TEST(test_trace_format_hostile_payloads_rejected)
{
	/* Each is a whole payload that must decode to an error, not a crash. */
	static const struct { uint8_t b[16]; size_t n; } bad[] = {
		{ { 1, 20 }, 2 },			/* length past the end */
		{ { 1, 2, 0, 0 }, 4 },			/* lookup without thread */
		{ { 1, 3, 1, 0, 0 }, 5 },		/* thread literal cut short */
		{ { 1, 4, 1, 0, 0, 3 }, 6 },		/* reference to unknown thread */
		{ { 1, 3, 0x80, 0, 0 }, 5 },		/* unknown header bits */
		{ { 128, 2, 0xff, 0xff }, 4 },		/* varint runs past the record */
		{ { 128, 2, 0xff, 0xff, 1, 0 }, 6 },	/* the same, more payload after it */
		{ { 130, 3, 1, 0x0b, 0 }, 5 },		/* name reference to unknown name */
		{ { 130, 3, 1, 0x40, 0 }, 5 },		/* name longer than the record */
	};
	unsigned i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 0;
		ck_assert_msg(fstap_chunk_decode(bad[i].b, bad[i].n, 0, count_rec, &n) == -EBADMSG,
			      "hostile payload %u accepted", i);
	}
}
END_TEST

static Suite *trace_format_suite(void)
{
	Suite *s = suite_create("trace_format");
	TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");

	tcase_add_test(core, test_trace_format_every_type_round_trips);
	tcase_add_test(core, test_trace_format_every_type_has_name_and_is_found);
	tcase_add_test(core, test_trace_format_crc32c_check_value);
	tcase_add_test(core, test_trace_format_names_are_interned);
	tcase_add_test(core, test_trace_format_xattr_value_and_older_record);
	tcase_add_test(limits, test_trace_format_varint_edges);
	tcase_add_test(limits, test_trace_format_varint_near_the_end);
	tcase_add_test(limits, test_trace_format_full_chunk_is_unchanged);
	tcase_add_test(limits, test_trace_format_unknown_type_is_skipped);
	tcase_add_test(limits, test_trace_format_unknown_meta_type_is_skipped);
	tcase_add_test(limits, test_trace_format_hostile_payloads_rejected);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_format_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
