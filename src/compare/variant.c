/*
 * variant.c: the trace variant compare can only make during a run:
 * target-readdir, the recorded trace reordered so that each directory's
 * files are visited in the order the prepared target's own readdir returns
 * them (`fstap reorder --by=target-readdir --target=TARGET`), made after
 * `fstap prepare` and before the replay of each run.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compare/compare.h"

bool cmp_variant_at_run(const char *variant)
{
	return !strcmp(variant, "target-readdir");
}

int cmp_variant_make(const struct cmp_env *env, const char *variant, const char *trace,
		     const char *target, const char *log, char *out, size_t len, char *reason,
		     size_t rlen)
{
	char by[64], arg_target[PATH_MAX + 16], *argv[10];

	snprintf(out, len, "%s/%s.trace", env->workdir, variant);
	snprintf(by, sizeof(by), "--by=%s", variant);
	snprintf(arg_target, sizeof(arg_target), "--target=%s", target);
	unlink(out);
	argv[0] = (char *)env->self;
	argv[1] = (char *)"reorder";
	argv[2] = by;
	argv[3] = arg_target;
	argv[4] = (char *)trace;
	argv[5] = (char *)"-o";
	argv[6] = out;
	argv[7] = NULL;
	return cmp_spawn(argv, log, NULL, reason, rlen);
}
