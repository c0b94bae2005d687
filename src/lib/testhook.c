/*
 * testhook.c: the crashes the tests ask for (testhook.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fstap/crash.h"
#include "fstap/testhook.h"

static int *volatile test_null;
static volatile unsigned long test_depth_limit = ~0ul;	/* never reached */

static void __attribute__((noinline)) fstap_test_crash(const char *how)
{
	if (!strcmp(how, "abort"))
		abort();
	*test_null = 1;
}

void fstap_testhook_crash(void)
{
	const char *how = getenv("FSTAP_TEST_CRASH");

	if (how && *how)
		fstap_test_crash(how);
}

struct test_crash {
	const char *spec;		/* FSTAP_TEST_RECORD_CRASH_MS */
	unsigned long long reqs;	/* FSTAP_TEST_RECORD_CRASH_REQS */
	const atomic_ullong *served;
};

static unsigned long __attribute__((noinline)) test_overflow(unsigned long depth)
{
	volatile char pad[256];

	pad[0] = (char)depth;
	if (depth >= test_depth_limit)
		return 0;
	return test_overflow(depth + 1) + (unsigned long)pad[0];
}

static void *__attribute__((noinline)) test_crash_main(void *arg)
{
	static const struct timespec ms1 = { 0, 1000000L };
	struct test_crash *c = arg;
	char *end;
	unsigned long ms = strtoul(c->spec, &end, 10);
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	fstap_crash_thread_init();
	nanosleep(&ts, NULL);
	while (atomic_load(c->served) < c->reqs)
		nanosleep(&ms1, NULL);
	if (!strcmp(end, ":overflow"))
		test_overflow(0);
	*test_null = 1;
	return NULL;
}

void fstap_testhook_crash_later(const atomic_ullong *served)
{
	static struct test_crash c;
	const char *reqs = getenv("FSTAP_TEST_RECORD_CRASH_REQS");
	pthread_t t;

	c.spec = getenv("FSTAP_TEST_RECORD_CRASH_MS");
	c.reqs = reqs ? strtoull(reqs, NULL, 10) : 0;
	c.served = served;
	if (c.spec && *c.spec && !pthread_create(&t, NULL, test_crash_main, &c))
		pthread_detach(t);
}
