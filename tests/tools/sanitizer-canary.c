/*
 * sanitizer-canary.c: a test helper that makes one deliberate sanitizer
 * report on request, so that t0010 can prove that a report fails a test.
 *
 *   sanitizer-canary heap   reads one byte past a heap block (AddressSanitizer)
 *   sanitizer-canary int    overflows a signed int (UndefinedBehaviorSanitizer)
 *   sanitizer-canary ok     does nothing wrong
 *   sanitizer-canary check-heap, check-int
 *                           the same faults inside a check suite, the way a
 *                           unit test would meet them (exit 1 when a test
 *                           of the suite failed, as tests/unit's programs)
 *
 * Built for `make check` only, never installed. Without the sanitizers the
 * faults go unseen and each mode exits 0.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One byte past an 8-byte block (a volatile index, so that no compiler sees
 * it), left to ASan: UBSan's object-size check would report it first.
 */
__attribute__((no_sanitize_undefined)) static int heap_overflow(int argc)
{
	char *p = malloc(8);
	volatile size_t past = 6 + (size_t)argc;
	int v;

	if (!p)
		return 1;
	memset(p, 0, 8);
	v = p[past];
	free(p);
	return v == 0x7f;
}

static int int_overflow(int argc)
{
	volatile int big = INT_MAX - 2 + argc;
	int v = big + argc;

	return v == 0;
}

static int fault_argc;

START_TEST(test_heap_overflow)
{
	ck_assert_int_eq(heap_overflow(fault_argc), 0);
}
END_TEST

START_TEST(test_int_overflow)
{
	ck_assert_int_eq(int_overflow(fault_argc), 0);
}
END_TEST

/* Runs one fault in a check suite; the suite's verdict is the exit status. */
static int in_suite(const TTest *fault)
{
	Suite *s = suite_create("canary");
	TCase *tc = tcase_create("fault");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, fault);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	fault_argc = argc;
	if (argc != 2) {
		fprintf(stderr, "usage: sanitizer-canary heap|int|check-heap|check-int|ok\n");
		return 2;
	}
	if (!strcmp(argv[1], "heap"))
		return heap_overflow(argc);
	if (!strcmp(argv[1], "int"))
		return int_overflow(argc);
	if (!strcmp(argv[1], "check-heap"))
		return in_suite(test_heap_overflow);
	if (!strcmp(argv[1], "check-int"))
		return in_suite(test_int_overflow);
	if (!strcmp(argv[1], "ok"))
		return 0;
	fprintf(stderr, "sanitizer-canary: unknown mode '%s'\n", argv[1]);
	return 2;
}
