/*
 * options.c: the replay's option values: --order's names, --pace's forms.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_i.h"

static const char *const order_names[RP_ORDER_NR] = { "strict", "thread", "resource", "none" };

int rp_order_parse(const char *s, enum rp_order *out)
{
	unsigned i;

	for (i = 0; i < RP_ORDER_NR; i++) {
		if (!strcmp(s, order_names[i])) {
			*out = (enum rp_order)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rp_order_name(enum rp_order o)
{
	return (unsigned)o < RP_ORDER_NR ? order_names[o] : "?";
}

int rp_pace_parse(const char *s, unsigned *pct, bool *native)
{
	char *end;
	unsigned long v;

	if (native)
		*native = false;
	if (native && !strcmp(s, "native")) {
		*pct = 100;
		*native = true;
		return 0;
	}
	if (!strcmp(s, "afap")) {
		*pct = 0;
		return 0;
	}
	if (!strcmp(s, "orig")) {
		*pct = 100;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (strcmp(end, "%") || v < 1 || v > 100000)
		return -EINVAL;
	*pct = (unsigned)v;
	return 0;
}
