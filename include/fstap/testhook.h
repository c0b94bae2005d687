/*
 * testhook.h: crashes that the tests ask for through the environment, so
 * that they can watch the crash handler and the recorder's last-chunk save
 * at work. Kept here, out of the commands' code: each production path makes
 * one call, which does nothing unless the variable is set.
 */
#ifndef FSTAP_TESTHOOK_H
#define FSTAP_TESTHOOK_H

#include <stdatomic.h>

/* FSTAP_TEST_CRASH=segv|abort: crashes the calling thread now that way. */
void fstap_testhook_crash(void);

/*
 * FSTAP_TEST_RECORD_CRASH_MS=N makes a new thread fault N ms after the call;
 * N:overflow makes it overflow its stack instead (a thread other than main
 * reporting that needs its own alternate signal stack).
 * FSTAP_TEST_RECORD_CRASH_REQS=R also waits, after the N ms, until *served
 * is at least R: a crash after a given amount of work, however slow the
 * machine.
 */
void fstap_testhook_crash_later(const atomic_ullong *served);

#endif
