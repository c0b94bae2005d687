/*
 * crash.h: on SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT, print a symbolized
 * backtrace of the crashing thread to stderr (libunwind, async-signal-safe:
 * write(2) only), then re-raise the signal with its default action.
 */
#ifndef FSTAP_CRASH_H
#define FSTAP_CRASH_H

/* Installs the handler (on an alternate stack). Returns 0 or -errno. */
int fstap_crash_handler_install(void);

/*
 * Runs fn(arg) when a crash is caught, before the backtrace (whose symbol
 * lookup may deadlock in malloc); fn must be async-signal-safe (the
 * recorder uses it to have its writer save the trace's last records).
 */
void fstap_crash_set_hook(void (*fn)(void *arg), void *arg);

#endif
