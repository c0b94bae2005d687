/*
 * crash.c: the crash handler. On a fatal signal it runs the hook (the
 * recorder saves its trace), prints the signal and a backtrace of the
 * crashing thread, symbolized by libunwind, with write(2) only (no stdio),
 * then restores the default action and re-raises so the exit status and
 * core dump are those of the original signal.
 *
 * libunwind's symbol lookup reads ELF images and may allocate: if the
 * crash happened inside malloc with its lock held, that deadlocks. So the
 * hook runs first, and an alarm ends a handler stuck for CRASH_WATCHDOG_S
 * by re-raising the original signal.
 */
#define UNW_LOCAL_ONLY
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libunwind.h>

#include "fstap/crash.h"
#include "fstap/util.h"

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static void (*crash_hook)(void *);
static void *crash_hook_arg;
static volatile sig_atomic_t in_crash;
static volatile sig_atomic_t crash_signal;

#define CRASH_WATCHDOG_S 5

static void out(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t k = write(STDERR_FILENO, s, n);

		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static void out_hex(uintptr_t v)
{
	char buf[2 + 2 * sizeof(v) + 1], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	out(p);
}

static void out_dec(unsigned long v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out(p);
}

static void print_backtrace(void *ucontext)
{
	unw_cursor_t cursor;
	unw_context_t uc;
	unsigned frame = 0;
	int ret;

	unw_getcontext(&uc);
	/* Start from the interrupted frame when the kernel gave us its context. */
	if (ucontext)
		ret = unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME);
	else
		ret = unw_init_local(&cursor, &uc);
	if (ret < 0) {
		out("  (no backtrace: libunwind could not start)\n");
		return;
	}
	do {
		char name[256];
		unw_word_t ip = 0, off = 0;

		unw_get_reg(&cursor, UNW_REG_IP, &ip);
		out("  #");
		out_dec(frame);
		out(" ");
		out_hex((uintptr_t)ip);
		if (unw_get_proc_name(&cursor, name, sizeof(name), &off) == 0) {
			out(" in ");
			out(name);
			out("+");
			out_hex((uintptr_t)off);
		}
		out("\n");
	} while (++frame < 64 && unw_step(&cursor) > 0);
}

/* The backtrace got stuck (see the top): die of the original signal. */
static void watchdog_handler(int sig)
{
	(void)sig;
	out("fstap: the backtrace did not finish\n");
	signal(crash_signal, SIG_DFL);
	raise(crash_signal);
}

static void crash_handler(int sig, siginfo_t *si, void *ucontext)
{
	if (!in_crash) {
		in_crash = 1;
		crash_signal = sig;
		if (crash_hook)
			crash_hook(crash_hook_arg);
		signal(SIGALRM, watchdog_handler);
		alarm(CRASH_WATCHDOG_S);
		out("fstap: fatal signal ");
		out_dec((unsigned long)sig);
		out(" (");
		out(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGILL ? "SIGILL"
		    : sig == SIGFPE ? "SIGFPE" : "SIGABRT");
		out(") in thread ");
		out_dec((unsigned long)gettid());
		if (sig != SIGABRT) {
			out(", address ");
			out_hex((uintptr_t)si->si_addr);
		}
		out("\nbacktrace:\n");
		print_backtrace(ucontext);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void fstap_crash_set_hook(void (*fn)(void *arg), void *arg)
{
	crash_hook = fn;
	crash_hook_arg = arg;
}

#define ALTSTACK_SIZE (64 * 1024)

static __thread void *thread_altstack;

int fstap_crash_thread_init(void)
{
	stack_t ss = { .ss_size = ALTSTACK_SIZE }, old;

	if (thread_altstack)
		return 0;
	/* one set up by someone else (AddressSanitizer does, per thread) serves */
	if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE))
		return 0;
	ss.ss_sp = malloc(ALTSTACK_SIZE);	/* once per thread */
	if (!ss.ss_sp)
		return -ENOMEM;
	if (sigaltstack(&ss, NULL) < 0) {
		int ret = -errno;

		free(ss.ss_sp);
		return ret;
	}
	thread_altstack = ss.ss_sp;
	return 0;
}

void fstap_crash_thread_exit(void)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	if (thread_altstack && sigaltstack(&ss, NULL) == 0) {
		free(thread_altstack);
		thread_altstack = NULL;
	}
}

int fstap_crash_handler_install(void)
{
	struct sigaction sa;
	size_t i;
	int ret;

	/* An overflowed stack must still be able to report itself. */
	ret = fstap_crash_thread_init();
	if (ret < 0)
		return ret;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(crash_signals); i++)
		if (sigaction(crash_signals[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}
