/*
 * stop_i.h: how a recording stops (stop.c). SIGINT, SIGTERM and SIGHUP, or
 * the end of the command run with '--', ask for the unmount of the mount
 * point; the kernel then ends the FUSE session and the recorder finishes
 * the trace. A mount point still in use is not torn away from the
 * processes using it: the unmount waits for them, saying so once, and a
 * second signal detaches it (lazy unmount) instead.
 *
 * Not a public API: src/record/ and fstap disk's daemon (src/disk/daemon.c)
 * include this.
 */
#ifndef FSTAP_RECORD_STOP_I_H
#define FSTAP_RECORD_STOP_I_H

#include <sys/types.h>

struct rec_stop;

/*
 * Installs the handlers of SIGINT, SIGTERM and SIGHUP (SIGPIPE ignored) and
 * starts the thread that unmounts mountpoint when asked. 0 or -errno.
 */
int rec_stop_start(struct rec_stop **out, const char *mountpoint);
/*
 * The command run on the mount: until it exits, a stop signal sent to
 * fstap alone (kill) goes on to it; one from the terminal reaches it anyway.
 */
void rec_stop_set_command(struct rec_stop *st, pid_t pid);
/* Asks for the unmount (the command has exited). Async-signal-safe. */
void rec_stop_request(struct rec_stop *st);
/*
 * After the FUSE loop: stops the thread, restores the signals, frees st.
 * Returns the signal that asked for the stop, 0 if none (NULL is fine).
 */
int rec_stop_finish(struct rec_stop *st);

/*
 * Unmounts mountpoint now, detaching it if it is in use: the kernel then
 * ends the FUSE session on it, whose loop returns. 0 or -errno.
 */
int rec_unmount(const char *mountpoint);

#endif
