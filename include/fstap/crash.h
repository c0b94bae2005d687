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
 * Gives the calling thread its own alternate signal stack, so that a stack
 * overflow in it can report itself too (the stack is per thread; the
 * install gives one to the thread that calls it). Once per thread.
 */
int fstap_crash_thread_init(void);
/* Frees the calling thread's alternate stack, before the thread exits. */
void fstap_crash_thread_exit(void);

/*
 * Runs fn(arg) when a crash is caught, before the backtrace (whose symbol
 * lookup may deadlock in malloc); fn must be async-signal-safe (the
 * recorder uses it to have its writer save the trace's last records).
 */
void fstap_crash_set_hook(void (*fn)(void *arg), void *arg);

#endif
