/*
 * log.c: the message sink for the CLI and the library (not for the
 * recorder's request path, which never formats). Messages go to stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fstap/log.h"

int fstap_verbosity;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "fstap: %s%s\n", prefix, msg);
}

int fstap_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return code;
}

void fstap_warn(const char *fmt, ...)
{
	va_list ap;

	if (fstap_verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void fstap_info(const char *fmt, ...)
{
	va_list ap;

	if (fstap_verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void fstap_debug(const char *fmt, ...)
{
	va_list ap;

	if (fstap_verbosity < 1)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}

void fstap_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(1);
}

void fstap_bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "fstap: BUG: %s:%d: %s\n", file, line, msg);
	abort();
}
