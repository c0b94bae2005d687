/*
 * require.h: a unit test's precondition (root, user xattrs where the test
 * runs). Unmet, it fails the test under CI=true, where every test can run;
 * elsewhere it says so on stderr ("SKIP: test: why") and ends the test.
 */
#ifndef FSTAP_TEST_REQUIRE_H
#define FSTAP_TEST_REQUIRE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int require_in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && !strcmp(ci, "true");
}

#define REQUIRE(cond, why)                                                        \
	do {                                                                      \
		if (!(cond)) {                                                    \
			if (require_in_ci())                                      \
				ck_abort_msg("cannot run under CI: %s", (why));   \
			fprintf(stderr, "SKIP: %s: %s\n", __func__, (why));      \
			return;                                                   \
		}                                                                 \
	} while (0)

#endif
