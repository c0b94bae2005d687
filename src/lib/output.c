/*
 * output.c: safe output files (include/fstap/output.h): the check that an
 * output is not an input, the temporary file next to the final path, its
 * commit (fsync, rename, directory fsync) or removal, and the signal
 * handler that removes the temporaries of a command killed midway.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/util.h"

struct fstap_output {
	char *path;		/* as given, for messages */
	char *target;		/* the file replaced: path, its symlink followed */
	char *dir;		/* target's directory */
	char *tmp;		/* NULL: written directly (stdout, a device, a FIFO) */
	int fd;
	bool own_fd;
	FILE *stream;
	int slot;		/* in pending[], -1 if none */
};

/* ---- removal on a fatal signal ------------------------------------------ */

#define PENDING_MAX 8

/* The temporaries being written, for the signal handler (async-signal-safe). */
static struct {
	volatile sig_atomic_t used;
	char path[PATH_MAX];
} pending[PENDING_MAX];

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void remove_pending(int sig)
{
	int i;

	for (i = 0; i < PENDING_MAX; i++)
		if (pending[i].used)
			unlink(pending[i].path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Installs remove_pending where the signal would kill the process anyway. */
static void install_cleanup(void)
{
	static bool installed;
	struct sigaction sa, old;
	size_t i;

	if (installed)
		return;
	installed = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_pending;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(cleanup_signals); i++)
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(cleanup_signals[i], &sa, NULL);
}

static int register_pending(const char *tmp)
{
	int i;

	if (strlen(tmp) >= PATH_MAX)
		return -1;
	install_cleanup();
	for (i = 0; i < PENDING_MAX; i++) {
		if (pending[i].used)
			continue;
		memcpy(pending[i].path, tmp, strlen(tmp) + 1);
		atomic_signal_fence(memory_order_seq_cst);
		pending[i].used = 1;
		return i;
	}
	return -1;
}

static void unregister_pending(struct fstap_output *o)
{
	if (o->slot >= 0)
		pending[o->slot].used = 0;
	atomic_signal_fence(memory_order_seq_cst);
	o->slot = -1;
}

/* ---- the input check ----------------------------------------------------- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static const char *how_same(const char *path, const char *input, const struct stat *st)
{
	struct stat l;

	if (!strcmp(path, "-"))
		return ", standard output is redirected to it";
	if (lstat(path, &l) == 0 && S_ISLNK(l.st_mode))
		return ", through a symlink";
	if (strcmp(path, input) && st->st_nlink > 1)
		return ", through a hard link";
	return "";
}

int fstap_output_check(const char *path, const char *const *inputs)
{
	struct stat so, si;
	size_t i;

	if (!strcmp(path, "-")) {
		if (fstat(STDOUT_FILENO, &so) < 0 || !S_ISREG(so.st_mode))
			return 0;
	} else if (stat(path, &so) < 0) {
		return 0;	/* nothing there yet: it cannot be an input */
	}
	for (i = 0; inputs && inputs[i]; i++) {
		const char *in = inputs[i];

		if (strcmp(in, "-") ? stat(in, &si) < 0 : fstat(STDIN_FILENO, &si) < 0)
			continue;
		if (same_file(&so, &si))
			return fstap_error(-EEXIST, "the output '%s' is the input '%s' (the same "
					   "file%s): write to another file", path, in,
					   how_same(path, in, &so));
	}
	return 0;
}

/* ---- the temporary ------------------------------------------------------- */

static void output_free(struct fstap_output *o)
{
	unregister_pending(o);
	if (o->stream && o->stream != stdout)
		fclose(o->stream);
	else if (!o->stream && o->own_fd)
		close(o->fd);
	free(o->path);
	free(o->target);
	free(o->dir);
	free(o->tmp);
	free(o);
}

/* Fills o->target (symlink followed), o->dir and o->tmp. */
static int temp_paths(struct fstap_output *o)
{
	struct stat st;
	const char *base;
	char *slash;

	o->target = NULL;
	if (lstat(o->path, &st) == 0 && S_ISLNK(st.st_mode))
		o->target = realpath(o->path, NULL);
	if (!o->target)
		o->target = strdup(o->path);
	if (!o->target)
		return -ENOMEM;
	slash = strrchr(o->target, '/');
	base = slash ? slash + 1 : o->target;
	if (!*base)
		return -EISDIR;
	o->dir = slash ? strndup(o->target, (size_t)(slash - o->target)) : strdup(".");
	if (!o->dir)
		return -ENOMEM;
	if (!*o->dir) {
		free(o->dir);
		o->dir = strdup("/");
		if (!o->dir)
			return -ENOMEM;
	}
	if (asprintf(&o->tmp, "%s/.%s.XXXXXX", o->dir, base) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* New files get 0666 less the umask; a replaced file keeps its permissions. */
static mode_t new_mode(const char *target)
{
	struct stat st;
	mode_t mask;

	if (stat(target, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 0777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* A device or a FIFO is written as it is: there is nothing to rename over it. */
static int open_direct(struct fstap_output **out, struct fstap_output *o)
{
	int ret;

	o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0) {
		ret = -errno;
		fstap_error(ret, "cannot open '%s': %s", o->path, strerror(-ret));
		output_free(o);
		return ret;
	}
	o->own_fd = true;
	*out = o;
	return 0;
}

int fstap_output_open(struct fstap_output **out, const char *path,
		      const char *const *inputs)
{
	struct fstap_output *o;
	struct stat st;
	int ret;

	*out = NULL;
	if ((ret = fstap_output_check(path, inputs)))
		return ret;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path))) {
		free(o);
		return fstap_error(-ENOMEM, "out of memory");
	}
	o->slot = -1;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		*out = o;
		return 0;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		output_free(o);
		return fstap_error(-EISDIR, "cannot write '%s': it is a directory", path);
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return open_direct(out, o);
	ret = temp_paths(o);
	if (ret) {
		output_free(o);
		return fstap_error(ret, "cannot write '%s': %s", path, strerror(-ret));
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		ret = -errno;
		free(o->tmp);
		o->tmp = NULL;
		fstap_error(ret, "cannot create '%s': %s", path, strerror(-ret));
		output_free(o);
		return ret;
	}
	o->own_fd = true;
	o->slot = register_pending(o->tmp);
	if (fchmod(o->fd, new_mode(o->target)) < 0) {
		ret = -errno;
		fstap_error(ret, "cannot write '%s': %s", path, strerror(-ret));
		fstap_output_abort(o);
		return ret;
	}
	*out = o;
	return 0;
}

int fstap_output_fd(const struct fstap_output *o)
{
	return o->fd;
}

FILE *fstap_output_stream(struct fstap_output *o)
{
	if (!o->stream)
		o->stream = o->own_fd ? fdopen(o->fd, "w") : stdout;
	return o->stream;
}

const char *fstap_output_path(const struct fstap_output *o)
{
	return o->path;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
	return ret;
}

/* Flushes and closes the temporary (or standard output): 0 or -errno. */
static int finish_file(struct fstap_output *o)
{
	int ret = 0;

	if (o->stream && (fflush(o->stream) == EOF || ferror(o->stream)))
		ret = errno ? -errno : -EIO;
	if (!o->own_fd)
		return ret;
	if (!ret && o->tmp && fsync(o->fd) < 0)
		ret = -errno;
	if (o->stream) {
		if (fclose(o->stream) == EOF && !ret)
			ret = -errno;
		o->stream = NULL;
	} else if (close(o->fd) < 0 && !ret) {
		ret = -errno;
	}
	o->fd = -1;
	o->own_fd = false;
	return ret;
}

int fstap_output_commit(struct fstap_output *o)
{
	int ret;

	errno = 0;
	ret = finish_file(o);
	if (ret) {
		fstap_error(ret, "cannot write '%s': %s", o->path, strerror(-ret));
		fstap_output_abort(o);
		return ret;
	}
	if (!o->tmp) {
		output_free(o);
		return 0;
	}
	if (rename(o->tmp, o->target) < 0) {
		ret = -errno;
		fstap_error(ret, "cannot replace '%s': %s", o->path, strerror(-ret));
		fstap_output_abort(o);
		return ret;
	}
	unregister_pending(o);
	ret = sync_dir(o->dir);
	if (ret)
		fstap_error(ret, "cannot sync the directory of '%s': %s", o->path,
			    strerror(-ret));
	output_free(o);
	return ret;
}

int fstap_output_write(const char *path, const char *const *inputs,
		       int (*fn)(FILE *f, void *arg), void *arg)
{
	struct fstap_output *o;
	FILE *f;
	int ret;

	if ((ret = fstap_output_open(&o, path, inputs)))
		return ret;
	f = fstap_output_stream(o);
	errno = 0;
	ret = f ? fn(f, arg) : -ENOMEM;
	/* a stream error says only EIO: the write that failed left the cause in errno */
	if (ret == -EIO && f && ferror(f) && errno > 0)
		ret = -errno;
	if (ret) {
		fstap_error(ret, "cannot write '%s': %s", path, strerror(-ret));
		fstap_output_abort(o);
		return ret;
	}
	return fstap_output_commit(o);
}

void fstap_output_abort(struct fstap_output *o)
{
	if (!o)
		return;
	if (o->tmp) {
		unregister_pending(o);
		unlink(o->tmp);
	}
	output_free(o);
}
