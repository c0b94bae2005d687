/*
 * stop.h: how an fstap FUSE daemon stops (fstap record, fstap disk).
 * SIGINT, SIGTERM and SIGHUP, or the end of the command run on the mount,
 * ask for the unmount of the mount point; the kernel then ends the FUSE
 * session, whose loop returns, and the daemon finishes its work. A mount
 * point still in use is not torn away from the processes using it: the
 * unmount waits for them, saying so once, and a second signal detaches it
 * (lazy unmount) instead.
 */
#ifndef FSTAP_STOP_H
#define FSTAP_STOP_H

#include <sys/types.h>

struct fstap_stop;

/*
 * Installs the handlers of SIGINT, SIGTERM and SIGHUP (SIGPIPE ignored) and
 * starts the thread that unmounts mountpoint when asked. 0 or -errno.
 */
int fstap_stop_start(struct fstap_stop **out, const char *mountpoint);
/*
 * The command run on the mount: until it exits, a stop signal sent to
 * fstap alone (kill) goes on to it; one from the terminal reaches it anyway.
 */
void fstap_stop_set_command(struct fstap_stop *st, pid_t pid);
/* Asks for the unmount (the command has exited). Async-signal-safe. */
void fstap_stop_request(struct fstap_stop *st);
/*
 * After the FUSE loop: stops the thread, restores the signals, frees st.
 * Returns the signal that asked for the stop, 0 if none (NULL is fine).
 */
int fstap_stop_finish(struct fstap_stop *st);

/*
 * Unmounts mountpoint now, detaching it if it is in use: the kernel then
 * ends the FUSE session on it, whose loop returns. 0 or -errno.
 */
int fstap_unmount(const char *mountpoint);

#endif
