/*
 * lifecycle.c: the life of one candidate under `fstap compare`: for each run
 * a fresh image (or the device, or a fresh subdirectory of a target), loop
 * device, mkfs, mount, `fstap prepare`, `fstap replay --drop-caches`, and
 * the way back. Every step is a child process (the fstap binary itself or a
 * system tool) in its own process group, with its output in the row's log;
 * what is set up is kept in one place (`live`) and cmp_cleanup() undoes it,
 * after each run, on failure, and after an interruption (the signal handler
 * only sets a flag; the waiting loop terminates the running child).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare/compare.h"
#include "fstap/log.h"
#include "fstap/util.h"
#include "replay/replay.h"

#define KILL_AFTER_NS 10000000000ull	/* a child told to stop is killed after 10 s */

volatile sig_atomic_t cmp_interrupted;

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction old_actions[3];

/* What is set up right now; cmp_cleanup() undoes it. */
static struct {
	char mnt[PATH_MAX];	/* a mount point we may have mounted on */
	char loopdev[64];	/* a loop device we attached */
	char rmtree[PATH_MAX];	/* a directory we made in a target */
	pid_t child;		/* the running child's process group */
} live;

static void on_signal(int sig)
{
	(void)sig;
	cmp_interrupted = 1;
}

void cmp_signals_install(void)
{
	struct sigaction sa;
	unsigned i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: waits end early */
	for (i = 0; i < 3; i++)
		sigaction(handled_signals[i], &sa, &old_actions[i]);
}

void cmp_signals_restore(void)
{
	unsigned i;

	for (i = 0; i < 3; i++)
		sigaction(handled_signals[i], &old_actions[i], NULL);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

char *cmp_which(const char *prog)
{
	const char *env = getenv("PATH");
	char *path, *dir, *save = NULL, *found = NULL;
	size_t len;

	if (strchr(prog, '/'))
		return access(prog, X_OK) ? NULL : strdup(prog);
	len = (env ? strlen(env) : 0) + 64;
	path = malloc(len);
	if (!path)
		return NULL;
	snprintf(path, len, "%s:/usr/local/sbin:/usr/sbin:/sbin", env ? env : "/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char cand[PATH_MAX];
		struct stat st;

		if (!*dir)
			continue;
		snprintf(cand, sizeof(cand), "%s/%s", dir, prog);
		if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK))
			found = strdup(cand);
	}
	free(path);
	return found;
}

/* The last non-empty line of path from offset on, or "" (into buf). */
static void last_line(const char *path, off_t from, char *buf, size_t len)
{
	char chunk[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *end, *start;
	struct stat st;

	buf[0] = '\0';
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_size - from > (off_t)sizeof(chunk) - 1)
		from = st.st_size - (off_t)sizeof(chunk) + 1;
	n = pread(fd, chunk, sizeof(chunk) - 1, from);
	close(fd);
	if (n <= 0)
		return;
	chunk[n] = '\0';
	end = chunk + n;
	while (end > chunk && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\r'))
		*--end = '\0';
	start = strrchr(chunk, '\n');
	start = start ? start + 1 : chunk;
	for (end = start; *end; end++)
		if (*end == '\r' || *end == '\t')
			*end = ' ';
	/* A progress line leaves only its last state. */
	if (strrchr(start, '\r'))
		start = strrchr(start, '\r') + 1;
	n = (ssize_t)strlen(start);
	if ((size_t)n >= len)
		n = (ssize_t)len - 1;
	memcpy(buf, start, (size_t)n);
	buf[n] = '\0';
}

static void log_line(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(const char *log, const char *fmt, ...)
{
	FILE *f = fopen(log, "ae");
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static const char *step_label(char *const argv[], char *buf, size_t len)
{
	const char *b = strrchr(argv[0], '/');

	b = b ? b + 1 : argv[0];
	if ((!strcmp(b, "exe") || !strcmp(b, "fstap")) && argv[1])
		snprintf(buf, len, "fstap %s", argv[1]);
	else
		snprintf(buf, len, "%s", b);
	return buf;
}

int cmp_spawn(char *const argv[], const char *log, const char *out_path, char *reason,
	      size_t rlen)
{
	char *prog = cmp_which(argv[0]), label[64], line[512];
	bool killed = false;
	uint64_t term_ns = 0;	/* when the child was told to stop */
	struct stat st;
	off_t start = 0;
	pid_t pid;
	int status, i;

	step_label(argv, label, sizeof(label));
	if (!prog) {
		snprintf(reason, rlen, "%s: command not found", argv[0]);
		return -1;
	}
	{
		FILE *f = fopen(log, "ae");

		if (f) {
			fputs("$", f);
			for (i = 0; argv[i]; i++)
				fprintf(f, " %s", argv[i]);
			fputc('\n', f);
			fclose(f);
		}
	}
	if (!stat(log, &st))
		start = st.st_size;
	pid = fork();
	if (pid < 0) {
		snprintf(reason, rlen, "%s: cannot fork: %s", label, strerror(errno));
		free(prog);
		return -1;
	}
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int err = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
		int out = out_path ? open(out_path, O_WRONLY | O_TRUNC | O_CREAT, 0644) : err;
		unsigned k;

		setpgid(0, 0);
		for (k = 0; k < 3; k++)
			signal(handled_signals[k], SIG_DFL);
		if (in < 0 || err < 0 || out < 0)
			_exit(126);
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		execv(prog, argv);
		dprintf(2, "%s: cannot run: %s\n", prog, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	live.child = pid;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			status = 0x7f00;
			break;
		}
		if (cmp_interrupted) {
			if (!killed) {
				kill(-pid, SIGTERM);
				killed = true;
				term_ns = fstap_now_ns();
			}
			if (fstap_now_ns() - term_ns > KILL_AFTER_NS)
				kill(-pid, SIGKILL);
		}
		sleep_ms(10);
	}
	live.child = 0;
	free(prog);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !killed)
		return 0;
	last_line(log, start, line, sizeof(line));
	if (killed)
		snprintf(reason, rlen, "interrupted during %s", label);
	else if (WIFSIGNALED(status))
		snprintf(reason, rlen, "%s killed by signal %d%s%s", label, WTERMSIG(status),
			 *line ? ": " : "", line);
	else
		snprintf(reason, rlen, "%s failed (exit %d)%s%s", label, WEXITSTATUS(status),
			 *line ? ": " : "", line);
	log_line(log, "# %s\n", reason);
	return -1;
}

/* ---- clean-up ----------------------------------------------------------- */

static bool is_mountpoint(const char *dir)
{
	char parent[PATH_MAX + 4];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", dir);
	if (stat(dir, &a) || stat(parent, &b))
		return false;
	return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

static void unmount(const char *mnt)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (!umount2(mnt, 0) || errno == EINVAL || errno == ENOENT)
			return;
		if (errno != EBUSY)
			break;
		sleep_ms(100);
	}
	fstap_warn("cannot unmount '%s' (%s); detaching it lazily", mnt, strerror(errno));
	if (umount2(mnt, MNT_DETACH))
		fstap_warn("cannot detach '%s': %s", mnt, strerror(errno));
}

void cmp_loop_detach(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC), i;

	if (fd < 0) {
		fstap_warn("cannot open '%s' to detach it: %s", dev, strerror(errno));
		return;
	}
	for (i = 0; i < 50; i++) {
		if (!ioctl(fd, LOOP_CLR_FD, 0) || errno == ENXIO)
			break;
		if (errno != EBUSY) {
			fstap_warn("cannot detach '%s': %s", dev, strerror(errno));
			break;
		}
		sleep_ms(100);
	}
	if (i == 50)
		fstap_warn("cannot detach '%s': %s", dev, strerror(EBUSY));
	close(fd);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

int cmp_remove_tree(const char *path)
{
	/* FTW_MOUNT: never into a file system mounted below (a mount left behind). */
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) ? -errno : 0;
}

void cmp_cleanup(void)
{
	if (live.child > 0) {
		kill(-live.child, SIGKILL);
		waitpid(live.child, NULL, 0);
		live.child = 0;
	}
	if (live.mnt[0]) {
		if (is_mountpoint(live.mnt))
			unmount(live.mnt);
		live.mnt[0] = '\0';
	}
	if (live.loopdev[0]) {
		cmp_loop_detach(live.loopdev);
		live.loopdev[0] = '\0';
	}
	if (live.rmtree[0]) {
		cmp_remove_tree(live.rmtree);
		live.rmtree[0] = '\0';
	}
	cmp_disk_down();
}

/* ---- one row ------------------------------------------------------------ */

static void progress(const struct cmp_env *env, const struct cmp_row *row, unsigned run,
		     unsigned runs, const char *step)
{
	if (!env->progress)
		return;
	fprintf(stderr, "\r\033[K[%u/%u] %s %s, run %u/%u: %s", env->row_no, env->nrows,
		row->cand->name, row->variant, run, runs, step);
	fflush(stderr);
}

/* Appends the blank-separated words of s to argv (at most max in all). */
static void split_words(char *s, char **argv, unsigned *n, unsigned max)
{
	char *save = NULL, *w;

	for (w = strtok_r(s, " \t", &save); w && *n < max; w = strtok_r(NULL, " \t", &save))
		argv[(*n)++] = w;
}

int cmp_make_image(const char *path, uint64_t size, char *reason, size_t rlen)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		snprintf(reason, rlen, "cannot create image '%.150s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Makes, formats and mounts the file system of one run on a fresh loop
 * image (or the device): its block device in dev, its mount point mnt.
 */
static int setup_fs(const struct cmp_env *env, struct cmp_row *row, const char *log,
		    const char *image, const char *mnt, unsigned run, unsigned runs, char *dev,
		    size_t devlen)
{
	const struct cmp_candidate *c = row->cand;
	char reason[sizeof(row->reason)], served[PATH_MAX], logdev[64];
	char *mopts;
	char mkfs[64], flags[32], *opts, *argv[64];
	unsigned n = 0;
	int rc;
	uint64_t size = env->image_size ? env->image_size : cmp_image_size(&env->size, c->fstype);

	if (c->kind == CMP_IMAGE) {
		struct cmp_loop loop;

		progress(env, row, run, runs, "loop image");
		if (cmp_make_image(image, size, reason, sizeof(reason)))
			goto fail;
		if (env->disk && cmp_disk_up(env, CMP_DISK_DATA, env->disk, image, log, served,
					     sizeof(served), reason, sizeof(reason)))
			goto fail;
		rc = cmp_loop_attach(env->disk ? served : image, log, env->workdir, &loop, reason,
				     sizeof(reason));
		snprintf(live.loopdev, sizeof(live.loopdev), "%s", loop.dev);
		if (rc)
			goto fail;
		snprintf(dev, devlen, "%s", loop.dev);
		row->direct_io = loop.direct_io ? 1 : -1;
		if (loop.note[0] && !row->device_note[0]) {
			snprintf(row->device_note, sizeof(row->device_note), "%s", loop.note);
			log_line(log, "# %s\n", loop.note);
		}
	} else {
		snprintf(dev, devlen, "%s", env->device);
	}
	logdev[0] = '\0';
	if (cmp_wants_log(c) && cmp_log_up(env, c, log, logdev, sizeof(logdev), reason,
					   sizeof(reason)))
		goto fail;

	progress(env, row, run, runs, "mkfs");
	n = 0;
	snprintf(mkfs, sizeof(mkfs), "mkfs.%s", c->fstype);
	snprintf(flags, sizeof(flags), "%s", cmp_mkfs_force_flags(c->fstype));
	opts = cmp_subst_log(c->mkfs_opts, logdev);
	if (!opts)
		fstap_die("out of memory");
	argv[n++] = mkfs;
	split_words(flags, argv, &n, 60);
	split_words(opts, argv, &n, 60);
	argv[n++] = dev;
	argv[n] = NULL;
	if (cmp_spawn(argv, log, NULL, reason, sizeof(reason))) {
		free(opts);
		goto fail;
	}
	free(opts);

	progress(env, row, run, runs, "mount");
	if (mkdir(mnt, 0700) && errno != EEXIST) {
		snprintf(reason, sizeof(reason), "cannot create '%.150s': %s", mnt, strerror(errno));
		goto fail;
	}
	snprintf(live.mnt, sizeof(live.mnt), "%s", mnt);
	n = 0;
	argv[n++] = (char *)"mount";
	argv[n++] = (char *)"-t";
	argv[n++] = c->fstype;
	mopts = cmp_subst_log(c->mount_opts, logdev);
	if (*mopts) {
		argv[n++] = (char *)"-o";
		argv[n++] = mopts;
	}
	argv[n++] = dev;
	argv[n++] = (char *)mnt;
	argv[n] = NULL;
	rc = cmp_spawn(argv, log, NULL, reason, sizeof(reason));
	free(mopts);
	if (rc)
		goto fail;
	if (logdev[0])
		cmp_log_describe(c, dev, mnt, log);
	return 0;
fail:
	cmp_row_fail(row, "%s", reason);
	return -1;
}

/*
 * Where a run replays: a fresh directory in a target (removed by
 * cmp_cleanup), else the file system set up on the image or device and
 * mounted at WORKDIR/mnt (dev its device).
 */
static int run_target(const struct cmp_env *env, struct cmp_row *row, const char *log,
		      const char *image, unsigned run, unsigned runs, char *target, size_t len,
		      char *dev, size_t devlen)
{
	const struct cmp_candidate *c = row->cand;
	char mnt[PATH_MAX];

	snprintf(mnt, sizeof(mnt), "%s/mnt", env->workdir);
	if (c->kind == CMP_TARGET) {
		snprintf(target, len, "%s/fstap-compare.XXXXXX", c->dir);
		if (!mkdtemp(target)) {
			cmp_row_fail(row, "cannot create a directory in '%s': %s", c->dir,
				     strerror(errno));
			return -1;
		}
		snprintf(live.rmtree, sizeof(live.rmtree), "%s", target);
	} else {
		if (setup_fs(env, row, log, image, mnt, run, runs, dev, devlen))
			return -1;
		snprintf(target, len, "%s", mnt);
	}
	return 0;
}

/*
 * `fstap prepare` of trace in target (--clone=N: N copies prepared in
 * TARGET/clone-K, replayed at once), then the row's variant if it is made
 * at each run (into vtrace): *replayed is the trace to replay.
 */
static int run_prepare(const struct cmp_env *env, struct cmp_row *row, const char *trace,
		       const char *target, const char *log, unsigned run, unsigned runs,
		       char *vtrace, size_t vlen, const char **replayed)
{
	char arg_clone[32], clone0[PATH_MAX + 16], reason[sizeof(row->reason)], *argv[8];
	unsigned n = 0;

	progress(env, row, run, runs, "prepare");
	snprintf(arg_clone, sizeof(arg_clone), "--clone=%u", env->clone);
	argv[n++] = (char *)env->self;
	argv[n++] = (char *)"prepare";
	argv[n++] = (char *)"-q";
	if (env->clone > 1)
		argv[n++] = arg_clone;
	argv[n++] = (char *)trace;
	argv[n++] = (char *)target;
	argv[n] = NULL;
	if (cmp_spawn(argv, log, NULL, reason, sizeof(reason))) {
		cmp_row_fail(row, "%s", reason);
		return -1;
	}
	*replayed = trace;
	if (cmp_variant_at_run(row->variant)) {
		/* with clones, from the first: each is prepared alike, in the same order */
		snprintf(clone0, sizeof(clone0), RP_CLONE_DIR_FMT, target, 0u);
		progress(env, row, run, runs, row->variant);
		if (cmp_variant_make(env, row->variant, trace, env->clone > 1 ? clone0 : target,
				     log, vtrace, vlen, reason, sizeof(reason))) {
			cmp_row_fail(row, "%s", reason);
			return -1;
		}
		*replayed = vtrace;
	}
	return 0;
}

/*
 * `fstap replay --json=WORKDIR/replay.json` of trace in target (the path
 * in json), with the device's I/O counters before (st0) and after (st1).
 */
static int run_replay(const struct cmp_env *env, struct cmp_row *row, const char *trace,
		      const char *target, const char *log, const char *dev, unsigned run,
		      unsigned runs, char *json, size_t jlen, struct cmp_blkstat *st0,
		      struct cmp_blkstat *st1)
{
	char arg_json[PATH_MAX + 8], divlog[PATH_MAX], arg_divlog[PATH_MAX + 16], arg_clone[32];
	char reason[sizeof(row->reason)], *argv[64];
	unsigned n = 0, i;

	progress(env, row, run, runs, "replay");
	snprintf(json, jlen, "%s/replay.json", env->workdir);
	unlink(json);
	snprintf(arg_json, sizeof(arg_json), "--json=%s", json);
	snprintf(arg_clone, sizeof(arg_clone), "--clone=%u", env->clone);
	argv[n++] = (char *)env->self;
	argv[n++] = (char *)"replay";
	argv[n++] = arg_json;
	/* each run's divergences, the first of each kind, kept with the logs */
	if (cmp_divlog_path(divlog, sizeof(divlog), env->logdir, row, run)) {
		snprintf(arg_divlog, sizeof(arg_divlog), "--divergences=%s", divlog);
		argv[n++] = arg_divlog;
	}
	argv[n++] = (char *)"--runs=1";
	argv[n++] = (char *)"--drop-caches";
	/* the writes count until durable: syncfs of the target after the last call */
	argv[n++] = (char *)"--sync-at-end";
	argv[n++] = (char *)"--no-progress";
	if (env->clone > 1)
		argv[n++] = arg_clone;
	for (i = 0; env->replay_args && env->replay_args[i] && n < 60; i++)
		argv[n++] = env->replay_args[i];
	argv[n++] = (char *)trace;
	argv[n++] = (char *)target;
	argv[n] = NULL;
	cmp_disk_mark(false);
	cmp_blkstat_read(dev[0] ? dev : NULL, st0);
	if (cmp_spawn(argv, log, NULL, reason, sizeof(reason))) {
		cmp_row_fail(row, "%s", reason);
		return -1;
	}
	cmp_disk_mark(true);
	cmp_blkstat_read(dev[0] ? dev : NULL, st1);
	return 0;
}

/*
 * The run of the replay's JSON added to the row, with what it depends on
 * and the device's I/O during the replay.
 */
static int run_add(const struct cmp_env *env, struct cmp_row *row, const char *json,
		   const char *target, const char *dev, const struct cmp_blkstat *st0,
		   const struct cmp_blkstat *st1)
{
	const struct cmp_candidate *c = row->cand;
	struct cmp_run r;
	json_error_t jerr;
	json_t *root, *runs_j, *device;
	int ret;

	root = json_load_file(json, 0, &jerr);
	runs_j = json_object_get(root, "runs");
	ret = cmp_run_from_json(json_array_get(runs_j, 0), &r);
	json_decref(root);
	if (ret) {
		cmp_row_fail(row, "fstap replay wrote no usable JSON ('%s': %s)", json,
			     root ? "no runs" : jerr.text);
		return -1;
	}
	device = cmp_device_info(dev[0] ? dev : NULL, target, c->kind == CMP_TARGET ? NULL
								       : c->fstype, env->workdir);
	if (row->direct_io < 0 && row->device_note[0])
		json_object_set_new(device, "direct_io_note", json_string(row->device_note));
	json_object_set_new(device, "stat", cmp_blkstat_delta_json(st0, st1));
	json_object_set_new(r.raw, "device", device);
	ret = cmp_row_add_run(row, &r);
	cmp_run_free(&r);
	if (ret)
		fstap_die("out of memory");
	return 0;
}

/* One run of a row: its target, prepare (and the variant), replay, the run added. */
static int one_run(const struct cmp_env *env, struct cmp_row *row, const char *trace,
		   const char *log, const char *image, unsigned run, unsigned runs)
{
	char target[PATH_MAX], vtrace[PATH_MAX], json[PATH_MAX], dev[64] = "";
	struct cmp_blkstat st0, st1;

	log_line(log, "# %s %s, run %u of %u\n", row->cand->name, row->variant, run, runs);
	if (run_target(env, row, log, image, run, runs, target, sizeof(target), dev, sizeof(dev)) ||
	    run_prepare(env, row, trace, target, log, run, runs, vtrace, sizeof(vtrace), &trace) ||
	    run_replay(env, row, trace, target, log, dev, run, runs, json, sizeof(json), &st0, &st1))
		return -1;
	return run_add(env, row, json, target, dev, &st0, &st1);
}

int cmp_run_once(const struct cmp_env *env, struct cmp_row *row, const char *trace,
		 unsigned run, unsigned runs)
{
	char log[PATH_MAX], image[PATH_MAX];

	snprintf(log, sizeof(log), "%s/%s-%s.log", env->logdir, row->cand->name, row->variant);
	snprintf(image, sizeof(image), "%s/%s.img", env->workdir, row->cand->name);
	if (!row->failed && !cmp_interrupted) {
		unsigned had = row->nruns;

		one_run(env, row, trace, log, image, run, runs);
		cmp_cleanup();
		cmp_disk_take(row->nruns > had ? row->runs[row->nruns - 1].raw : NULL);
		if (row->cand->kind == CMP_IMAGE)
			unlink(image);
	}
	if (env->progress)
		fputs("\r\033[K", stderr);
	if (cmp_interrupted) {
		if (!row->failed)
			cmp_row_fail(row, "interrupted");
		return -EINTR;
	}
	return 0;
}
