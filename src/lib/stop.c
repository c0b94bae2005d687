/*
 * stop.c: stopping a FUSE daemon (fstap/stop.h): the handlers of the
 * stop signals, the thread that unmounts when asked, the wait for a mount
 * point still in use (and the count of the processes using it, found in
 * /proc without a request to the mount), and the unmount itself, with
 * umount2 as root and the set-uid fusermount3 otherwise, as libfuse does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fstap/log.h"
#include "fstap/util.h"
#include "fstap/stop.h"

#define RETRY_MS 200		/* between two unmount attempts of a busy mount */

struct fstap_stop {
	const char *mountpoint;
	sem_t sem;		/* posted for each stop request */
	pthread_t thread;
	_Atomic pid_t command;	/* signals go on to it while it runs */
	_Atomic int signo;
	_Atomic bool quit;
	struct sigaction old[3];
};

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct fstap_stop *_Atomic active;
static struct sigaction old_pipe;

/* ---- the unmount ------------------------------------------------------- */

/* fusermount3 -u; its exit status, or -errno if it cannot run. */
static int fusermount_unmount(const char *mountpoint, bool lazy)
{
	char *argv[] = { (char *)"fusermount3", (char *)(lazy ? "-uqz" : "-uq"), (char *)"--",
			 (char *)mountpoint, NULL };
	pid_t pid;
	int ret, status;

	ret = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (ret)
		return -ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The mount id of what path resolves to, 0 if unknown; never a FUSE request. */
static uint64_t mount_id(const char *path)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

/* 0 once unmounted (or detached), -EBUSY while in use, else -errno. */
static int try_unmount(const char *mountpoint, uint64_t mnt, bool lazy)
{
	int ret;

	if (geteuid() == 0) {
		if (umount2(mountpoint, lazy ? MNT_DETACH : 0) == 0 || errno == EINVAL ||
		    errno == ENOENT)
			return 0;
		return -errno;
	}
	ret = fusermount_unmount(mountpoint, lazy);
	if (ret < 0 || ret == 0)
		return ret;
	/* it says nothing with -q: still the same mount there means in use */
	return mnt && mount_id(mountpoint) == mnt ? -EBUSY : 0;
}

int fstap_unmount(const char *mountpoint)
{
	int ret = try_unmount(mountpoint, mount_id(mountpoint), false);

	return ret == -EBUSY ? try_unmount(mountpoint, 0, true) : ret;
}

/* ---- who still uses it --------------------------------------------------- */

static bool on_mount(const char *path, uint64_t mnt)
{
	return mount_id(path) == mnt;
}

static bool uses_mount(long pid, uint64_t mnt)
{
	char path[64];
	struct dirent *e;
	bool found;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/cwd", pid);
	if (on_mount(path, mnt))
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/root", pid);
	if (on_mount(path, mnt))
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
	d = opendir(path);
	if (!d)
		return false;
	found = false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fd/%.16s", pid, e->d_name);
		found = on_mount(path, mnt);
	}
	closedir(d);
	return found;
}

/* Processes other than fstap with a directory or an open file on the mount. */
static unsigned count_users(uint64_t mnt)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;
	char *end;
	long pid;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid = strtol(e->d_name, &end, 10);
		if (pid > 0 && !*end && pid != (long)getpid() && uses_mount(pid, mnt))
			n++;
	}
	closedir(d);
	return n;
}

/* ---- the thread ------------------------------------------------------------ */

static int wait_request(struct fstap_stop *st, long ms)
{
	struct timespec ts;

	fstap_deadline_ms(&ts, (unsigned long)ms);
	while (sem_timedwait(&st->sem, &ts) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static void tell_waiting(const char *mountpoint, uint64_t mnt)
{
	unsigned n = count_users(mnt);

	if (n)
		fstap_info("waiting for %u process%s still using '%s' (stop again to detach it)",
			   n, n == 1 ? "" : "es", mountpoint);
	else
		fstap_info("waiting for '%s' to be no longer in use (stop again to detach it)",
			   mountpoint);
}

/*
 * Unmounts; while the mount is in use, waits (saying so once, when it is
 * still busy at the second attempt: the kernel may hold it a moment after
 * a process exits) or detaches it on a new request.
 */
static void unmount_when_unused(struct fstap_stop *st)
{
	uint64_t mnt = mount_id(st->mountpoint);
	unsigned tries = 0;
	int ret;

	for (;;) {
		ret = try_unmount(st->mountpoint, mnt, false);
		if (ret != -EBUSY)
			break;
		if (++tries == 2)
			tell_waiting(st->mountpoint, mnt);
		if (wait_request(st, RETRY_MS) == 0) {
			if (atomic_load(&st->quit))
				return;
			fstap_warn("detaching '%s' (lazy unmount): the recording ends when its last "
				   "user lets go", st->mountpoint);
			ret = try_unmount(st->mountpoint, mnt, true);
			break;
		}
	}
	if (ret)
		fstap_warn("cannot unmount '%s': %s", st->mountpoint, strerror(-ret));
}

static void *stop_main(void *arg)
{
	struct fstap_stop *st = arg;

	while (sem_wait(&st->sem) < 0 && errno == EINTR)
		;
	if (!atomic_load(&st->quit))
		unmount_when_unused(st);
	return NULL;
}

/* ---- the signals ------------------------------------------------------------- */

static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	struct fstap_stop *st = atomic_load(&active);
	int saved = errno;
	pid_t cmd;

	(void)uc;
	if (!st)
		return;
	cmd = atomic_load(&st->command);
	if (cmd > 0) {
		/* the terminal signals the command itself; kill(2) reached fstap alone */
		if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
			kill(cmd, sig);
	} else {
		atomic_store(&st->signo, sig);
		sem_post(&st->sem);
	}
	errno = saved;
}

int fstap_stop_start(struct fstap_stop **out, const char *mountpoint)
{
	struct fstap_stop *st = calloc(1, sizeof(*st));
	struct sigaction sa, ign;
	size_t i;
	int ret;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->mountpoint = mountpoint;
	if (sem_init(&st->sem, 0, 0) < 0) {
		free(st);
		return -errno;
	}
	ret = pthread_create(&st->thread, NULL, stop_main, st);
	if (ret) {
		sem_destroy(&st->sem);
		free(st);
		return -ret;
	}
	atomic_store(&active, st);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, &st->old[i]);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);
	*out = st;
	return 0;
}

void fstap_stop_set_command(struct fstap_stop *st, pid_t pid)
{
	atomic_store(&st->command, pid);
}

void fstap_stop_request(struct fstap_stop *st)
{
	atomic_store(&st->command, 0);
	sem_post(&st->sem);
}

int fstap_stop_finish(struct fstap_stop *st)
{
	size_t i;
	int sig;

	if (!st)
		return 0;
	atomic_store(&st->quit, true);
	sem_post(&st->sem);
	pthread_join(st->thread, NULL);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &st->old[i], NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	atomic_store(&active, NULL);
	sig = atomic_load(&st->signo);
	sem_destroy(&st->sem);
	free(st);
	return sig;
}
