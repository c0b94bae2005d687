/*
 * log.h: error and warning messages, in git's style: "fstap: error: ...",
 * lowercase, no full stop, the subject in quotes. fstap_error() returns its
 * code so that callers write `return fstap_error(-EINVAL, "...")`.
 */
#ifndef FSTAP_LOG_H
#define FSTAP_LOG_H

#include <stdarg.h>

extern int fstap_verbosity;	/* 0 normal, -1 quiet, 1+ verbose */

int fstap_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fstap_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fstap_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fstap_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message and exits 1; for the CLI and startup only. */
void fstap_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* A broken invariant: prints where, then aborts (the crash handler adds a backtrace). */
#define BUG(msg) fstap_bug(__FILE__, __LINE__, (msg))
void fstap_bug(const char *file, int line, const char *msg) __attribute__((noreturn));

#endif
