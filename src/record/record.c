/*
 * record.c: one recording session from start to end: check the directories,
 * open the backing directory (before the mount covers it, for an in-place
 * mount), open the trace and write its metadata, take the snapshot, mount,
 * run the multi-threaded FUSE loop (and the command, if any), and on the
 * way out unmount, stop the writer, write the footer and report.
 *
 * Errors the user can fix get one clear line: a missing backing directory,
 * a stale FUSE mount and how to clear it, /dev/fuse missing, permissions,
 * an unwritable trace path.
 *
 * Not here: the handlers (rec_ops.c), the file-system work (passthrough.c),
 * the writer thread (recbuf.c), stopping and unmounting (fstap/stop.h), the
 * command line (src/cli/cmd-record.c).
 */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "fstap/crash.h"
#include "fstap/log.h"
#include "fstap/stop.h"
#include "fstap/testhook.h"
#include "fstap/trace.h"
#include "fstap/util.h"
#include "record/calibrate_i.h"
#include "record/record.h"
#include "record/record_i.h"
#include "record/snapshot_i.h"

const char *const rec_cache_names[REC_CACHE_NR] = { "all", "calls", "direct", "kernel" };
const char *const rec_snapshot_names[REC_SNAP_NR] = { "full", "touched", "none" };

#define CHUNK_SIZE (256u * 1024)
#define CHUNKS 64
#define FLUSH_MS 1000		/* a partial chunk reaches the trace after this long */

/* ---- checks ------------------------------------------------------------- */

static int dir_error(const char *role, const char *path, int err)
{
	if (err == ENOTCONN)
		return fstap_error(-err, "%s '%s' is a stale FUSE mount (Transport endpoint is "
				   "not connected): clear it with 'fusermount3 -u %s'",
				   role, path, path);
	if (err == ENOENT)
		return fstap_error(-err, "%s '%s' does not exist", role, path);
	if (err == ENOTDIR)
		return fstap_error(-err, "%s '%s' is not a directory", role, path);
	return fstap_error(-err, "cannot open %s '%s': %s", role, path, strerror(err));
}

static int open_dir(const char *role, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return dir_error(role, path, errno);
	return fd;
}

static const char *fs_type_name(unsigned long t, char *buf, size_t size)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} types[] = {
		{ 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" },
		{ 0x01021994, "tmpfs" }, { 0x65735546, "fuse" }, { 0x6969, "nfs" },
		{ 0x794c7630, "overlay" }, { 0xF2F52010, "f2fs" }, { 0x2fc12fc1, "zfs" },
		{ 0x858458f6, "ramfs" }, { 0x4d44, "vfat" }, { 0x5346544e, "ntfs" },
		{ 0xFF534D42, "cifs" }, { 0x01161970, "gfs2" }, { 0x6a656a63, "virtiofs" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].magic == t)
			return types[i].name;
	snprintf(buf, size, "0x%lx", t);
	return buf;
}

/* ---- metadata ----------------------------------------------------------- */

static json_t *argv_json(int argc, char **argv)
{
	json_t *a = json_array();
	int i;

	for (i = 0; argv && i < argc && argv[i]; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

/* --xattr-values as the metadata says it: "all", "none" or the byte limit. */
static json_t *xattr_values_json(uint32_t max)
{
	if (max == REC_XATTR_VALUES_ALL)
		return json_string("all");
	if (max == 0)
		return json_string("none");
	return json_integer((json_int_t)max);
}

static char *metadata(const struct record_opts *o, const struct rec_session *s,
		      int root_fd, const char *mntopts, unsigned threads)
{
	struct utsname u;
	struct statfs sf;
	char host[256] = "", tbuf[32], path[PATH_MAX];
	json_t *root = json_object(), *k = json_object(), *rec = json_object();
	char *text;
	int n = 0;

	gethostname(host, sizeof(host) - 1);
	json_object_set_new(root, "tool", json_string("fstap record"));
	json_object_set_new(root, "fstap_version", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "host", json_string(host));
	if (uname(&u) == 0) {
		json_object_set_new(k, "sysname", json_string(u.sysname));
		json_object_set_new(k, "release", json_string(u.release));
		json_object_set_new(k, "version", json_string(u.version));
		json_object_set_new(k, "machine", json_string(u.machine));
	}
	json_object_set_new(root, "kernel", k);
	json_object_set_new(root, "backing", json_string(realpath(o->backing, path) ? path
							 : o->backing));
	json_object_set_new(root, "mountpoint", json_string(realpath(o->mountpoint, path) ? path
							    : o->mountpoint));
	json_object_set_new(root, "in_place", json_boolean(!strcmp(o->backing, o->mountpoint)));
	if (fstatfs(root_fd, &sf) == 0) {
		json_object_set_new(root, "backing_fs",
				    json_string(fs_type_name((unsigned long)sf.f_type, tbuf,
							     sizeof(tbuf))));
		json_object_set_new(root, "backing_fs_bsize", json_integer(sf.f_bsize));
	}
	json_object_set_new(root, "mount_options", json_string(mntopts));
	json_object_set_new(rec, "cache", json_string(rec_cache_names[o->cache]));
	json_object_set_new(rec, "snapshot", json_string(rec_snapshot_names[o->snapshot]));
	json_object_set_new(rec, "entry_timeout", json_real(s->entry_timeout));
	json_object_set_new(rec, "attr_timeout", json_real(s->attr_timeout));
	json_object_set_new(rec, "dir_attr_timeout", json_real(s->dir_attr_timeout));
	json_object_set_new(rec, "negative_timeout", json_real(s->neg_timeout));
	json_object_set_new(rec, "direct_io", json_boolean(s->direct_io));
	json_object_set_new(rec, "keep_cache", json_boolean(s->keep_cache));
	json_object_set_new(rec, "writeback_cache", json_boolean(s->writeback));
	json_object_set_new(rec, "flush_read_only", json_boolean(s->flush_read_only));
	/* FSYNC/FDATASYNC after a synchronous write carry the kernel flag (syncw.c) */
	json_object_set_new(rec, "sync_writes_flagged", json_true());
	json_object_set_new(rec, "threads", json_integer(threads));
	json_object_set_new(rec, "xattr_values", xattr_values_json(s->xattr_value_max));
	json_object_set_new(rec, "chunk_size", json_integer(CHUNK_SIZE));
	/* Readers size their reorder window from it (include/fstap/sort.h). */
	json_object_set_new(rec, "flush_interval_ns",
			    json_integer((json_int_t)FLUSH_MS * 1000000));
	rec_calibrate_add(rec, threads);	/* for replay --pace=native */
	json_object_set_new(root, "recorder", rec);
	json_object_set_new(root, "command_line", argv_json(o->argc, o->argv));
	if (o->command) {
		while (o->command[n])
			n++;
		json_object_set_new(root, "command", argv_json(n, o->command));
	}
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(root);
	return text;
}

/* ---- the command -------------------------------------------------------- */

static mode_t app_umask = 022;	/* the umask fstap was started with */

struct runner {
	pid_t pid;
	int status;
	struct fstap_stop *stop;
	pthread_t thread;
};

/* Waits for the command, then unmounts, which ends the FUSE loop. */
static void *runner_main(void *arg)
{
	struct runner *r = arg;

	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	fstap_stop_request(r->stop);
	return NULL;
}

static int start_command(struct runner *r, char **cmd, struct fstap_stop *stop)
{
	char cwd[PATH_MAX];
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return fstap_error(-errno, "cannot run '%s': %s", cmd[0], strerror(errno));
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		umask(app_umask);
		/* an in-place mount covers the directory we are in: step onto it */
		if (getcwd(cwd, sizeof(cwd)) && chdir(cwd) < 0)
			_exit(126);
		execvp(cmd[0], cmd);
		fprintf(stderr, "fstap: error: cannot run '%s': %s\n", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	r->pid = pid;
	r->stop = stop;
	fstap_stop_set_command(stop, pid);
	if (pthread_create(&r->thread, NULL, runner_main, r)) {
		waitpid(pid, &r->status, 0);
		return fstap_error(-EAGAIN, "cannot start a thread");
	}
	return 0;
}

/* ---- status line -------------------------------------------------------- */

struct status {
	struct rec_session *s;
	const char *trace;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, shown;
};

static void *status_main(void *arg)
{
	struct status *st = arg;
	unsigned long long last = 0;

	pthread_mutex_lock(&st->lock);
	while (!st->stop) {
		struct timespec ts;
		struct stat sb;
		unsigned long long n;

		fstap_deadline_ms(&ts, 1000);
		pthread_cond_timedwait(&st->cond, &st->lock, &ts);
		if (st->stop)
			break;
		n = atomic_load(&st->s->nreq);
		if (st->trace && stat(st->trace, &sb) < 0)
			sb.st_size = 0;
		fprintf(stderr, "\rfstap: %llu requests/s, %llu total, trace %.1f MiB, lost %llu   ",
			n - last, n, st->trace ? (double)sb.st_size / 1048576.0 : 0.0,
			st->s->rb ? (unsigned long long)recbuf_lost(st->s->rb) : 0ull);
		st->shown = true;
		last = n;
	}
	if (st->shown)
		fputc('\n', stderr);
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

/* ---- crash ------------------------------------------------------------- */

/* The crash handler's hook: the completed and partial chunks reach the trace. */
static void crash_hook(void *arg)
{
	struct rec_session *s = arg;

	recbuf_crash_flush(s->rb);
}

/* ---- the summary -------------------------------------------------------- */

/*
 * The line a complete recording ends with (not with -q), and the warning
 * about lost records (even with -q: never silent).
 */
static void summary(const char *trace, const struct fstap_writer *w, uint64_t ns,
		    uint64_t lost, int sig)
{
	const struct fstap_footer *t = fstap_writer_totals(w);
	char how[32] = "";

	if (sig && sigabbrev_np(sig))
		snprintf(how, sizeof(how), ", stopped by SIG%s", sigabbrev_np(sig));
	if (fstap_verbosity >= 0)
		fprintf(stderr, "fstap: trace '%s': %" PRIu64 " records, %" PRIu64 " bytes, "
			"%.3f s, %" PRIu64 " lost%s\n", trace, t->records, fstap_writer_bytes(w),
			(double)ns / 1e9, lost, how);
	if (lost)
		fprintf(stderr, "fstap: warning: %" PRIu64 " records were lost (the trace "
			"could not keep up); the trace counts them\n", lost);
}

/* ---- the session -------------------------------------------------------- */

static void writer_emit(const struct fstap_rec *r, void *arg)
{
	fstap_writer_add(arg, r);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * The O_PATH descriptor cache: half of the descriptor limit (raised to the
 * hard limit first), less a margin, so that the other half stays for the
 * application's open files and directories and the recorder's own. Every
 * miss costs an open_by_handle_at, so the larger the better (9 872 slots
 * under a limit of 20 000). Capped at 65 536 (kernel memory).
 */
static unsigned cache_slots(void)
{
	struct rlimit rl;
	unsigned long n = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		n = rl.rlim_cur == RLIM_INFINITY ? 65536 : rl.rlim_cur / 2;
	n = n > 128 ? n - 128 : 0;
	if (n > 65536)
		n = 65536;
	return (unsigned)(n < 64 ? 64 : n);
}

/* One recording, from its checks to its teardown. */
struct run {
	const struct record_opts *o;
	struct rec_session *s;
	struct fstap_writer *w;
	struct fuse_session *se;
	struct fstap_stop *stop;
	struct runner runner;
	char mntopts[PATH_MAX + 128];
	char *meta;
	unsigned threads;
	int root_fd;
	bool fs_up;		/* s->fs is initialised */
	bool served;		/* the FUSE loop ran */
	int exit_code, stop_sig;
	uint64_t lost;
};

/*
 * Opens the backing directory, checks the mount point and /dev/fuse, and
 * starts the passthrough on the backing directory. 0, or -1 after a message.
 */
static int preflight(struct run *r)
{
	const struct record_opts *o = r->o;
	struct rec_session *s = r->s;
	const char *fsname = o->backing;
	struct stat sb;
	int mfd, ret;

	r->root_fd = open_dir("backing directory", o->backing);
	if (r->root_fd < 0)
		return -1;
	if (strcmp(o->backing, o->mountpoint)) {
		mfd = open_dir("mount point", o->mountpoint);
		if (mfd < 0)
			return -1;
		close(mfd);
	}
	if (stat("/dev/fuse", &sb) < 0) {
		fstap_error(-errno, "/dev/fuse is missing: load the fuse module (modprobe fuse) "
			    "or run where FUSE is available");
		return -1;
	}
	if (access("/dev/fuse", R_OK | W_OK) < 0) {
		fstap_error(-errno, "cannot use /dev/fuse: %s", strerror(errno));
		return -1;
	}
	/* the kernel has applied the caller's umask already; the command gets ours back */
	app_umask = umask(0);
	raise_nofile();
	ret = pt_fs_init(&s->fs, r->root_fd, cache_slots());
	if (ret < 0) {
		fstap_error(ret, "cannot serve '%s': %s", o->backing, strerror(-ret));
		return -1;
	}
	r->fs_up = true;
	if (!s->fs.it.use_handles && geteuid() != 0)
		fstap_warn("not root: file handles need CAP_DAC_READ_SEARCH, so one descriptor "
			   "is kept per known file (at most about %u files)", cache_slots());
	else if (!s->fs.it.use_handles)
		fstap_warn("'%s' does not support file handles: one descriptor is kept per "
			   "known file", o->backing);

	if (strpbrk(fsname, ",\\"))
		fsname = "fstap";
	snprintf(r->mntopts, sizeof(r->mntopts), "%sdefault_permissions,fsname=%s,subtype=fstap",
		 geteuid() == 0 ? "allow_other," : "", fsname);
	return 0;
}

/* Opens the trace: its header and metadata. 0, or -1 after a message. */
static int open_trace(struct run *r)
{
	const struct record_opts *o = r->o;
	struct rec_session *s = r->s;
	struct fstap_trace_info info;
	int ret;

	memset(&info, 0, sizeof(info));
	s->start_mono = fstap_now_ns();
	info.version_major = FSTAP_VERSION_MAJOR;
	info.version_minor = FSTAP_VERSION_MINOR;
	info.start_realtime_ns = fstap_realtime_ns();
	info.start_monotonic_ns = s->start_mono;
	info.flags = FSTAP_TF_WATERMARKS;	/* recbuf.c writes them */
	r->meta = metadata(o, s, r->root_fd, r->mntopts, r->threads);
	info.metadata_json = r->meta;
	ret = fstap_writer_open(&r->w, o->trace, &info, CHUNK_SIZE);
	if (ret < 0) {
		fstap_error(ret, "cannot write trace '%s': %s", o->trace, strerror(-ret));
		r->w = NULL;
		return -1;
	}
	return 0;
}

/* The initial state: the whole tree, or the root only (--snapshot=touched). */
static void snapshot(struct run *r)
{
	const struct record_opts *o = r->o;
	struct rec_session *s = r->s;
	struct stat sb_root;
	int ret;

	if (o->snapshot == REC_SNAP_FULL) {
		uint64_t n = 0, t0 = fstap_now_ns();

		ret = snap_walk(&s->fs, s->xattr_value_max, writer_emit, r->w, &n);
		if (ret < 0)
			fstap_warn("snapshot of '%s' is incomplete: %s", o->backing,
				   strerror(-ret));
		fstap_debug("snapshot: %" PRIu64 " objects in %.3f s", n,
			    (double)(fstap_now_ns() - t0) / 1e9);
	} else if (o->snapshot == REC_SNAP_TOUCHED) {
		struct fstap_statebuf *snapb = malloc(sizeof(*snapb));

		/* the root is touched by every path */
		if (snapb && fstat(r->root_fd, &sb_root) == 0)
			fstap_state_inode(snapb, r->root_fd, ".", &sb_root, FSTAP_ROOT_OBJ,
					  s->xattr_value_max, writer_emit, r->w);
		free(snapb);
	}
}

/* Starts the per-thread chunks and the writer thread. 0, or -1 after a message. */
static int start_writer(struct run *r)
{
	struct rec_session *s = r->s;
	struct recbuf_opts ro = { CHUNK_SIZE, CHUNKS, FLUSH_MS };
	int ret;

	ret = recbuf_start(&s->rb, r->w, s->start_mono, &ro);
	if (!ret)
		ret = rec_syncw_new(&s->syncw);
	if (ret < 0) {
		fstap_error(ret, "cannot start the trace writer: %s", strerror(-ret));
		return -1;
	}
	fstap_crash_set_hook(crash_hook, s);
	return 0;
}

/* The trace: its header, the initial state, the writer. 0, or -1 after a message. */
static int start_trace(struct run *r)
{
	if (open_trace(r))
		return -1;
	snapshot(r);
	return start_writer(r);
}

/* Creates the FUSE session, the stop signals' handlers, and mounts. 0 or -1. */
static int mount_session(struct run *r)
{
	const struct record_opts *o = r->o;
	char *args[] = { (char *)"fstap", (char *)"-o", r->mntopts, (char *)"-d", NULL };
	struct fuse_args fa = FUSE_ARGS_INIT(o->fuse_debug ? 4 : 3, args);
	int ret;

	r->se = fuse_session_new(&fa, &rec_ops, sizeof(rec_ops), r->s);
	fuse_opt_free_args(&fa);
	if (!r->se) {
		fstap_error(-EINVAL, "cannot create the FUSE session");
		return -1;
	}
	ret = fstap_stop_start(&r->stop, o->mountpoint);
	if (ret < 0) {
		fstap_error(ret, "cannot set signal handlers: %s", strerror(-ret));
		return -1;
	}
	if (fuse_session_mount(r->se, o->mountpoint) != 0) {
		fstap_error(-EIO, "cannot mount on '%s' (see the message above)", o->mountpoint);
		return -1;
	}
	fstap_debug("mounted '%s' on '%s' (cache=%s)", o->backing, o->mountpoint,
		    rec_cache_names[o->cache]);
	return 0;
}

/* The status line on a terminal, while recording without a command. */
static bool status_start(struct run *r, struct status *status)
{
	const struct record_opts *o = r->o;

	if (!o->trace || !isatty(2) || fstap_verbosity < 0 || o->command)
		return false;
	memset(status, 0, sizeof(*status));
	status->s = r->s;
	status->trace = strcmp(o->trace, "-") ? o->trace : NULL;
	pthread_mutex_init(&status->lock, NULL);
	pthread_cond_init(&status->cond, NULL);
	return !pthread_create(&status->thread, NULL, status_main, status);
}

static void status_stop(struct status *status)
{
	pthread_mutex_lock(&status->lock);
	status->stop = true;
	pthread_cond_signal(&status->cond);
	pthread_mutex_unlock(&status->lock);
	pthread_join(status->thread, NULL);
}

/* The FUSE loop on threads threads. 0 or an error of the loop. */
static int loop(struct run *r)
{
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	int ret;

	if (!cfg) {
		fstap_error(-ENOMEM, "out of memory");
		return -1;
	}
	fuse_loop_cfg_set_clone_fd(cfg, 0);
	fuse_loop_cfg_set_max_threads(cfg, r->threads);
	fuse_loop_cfg_set_idle_threads(cfg, r->threads);
	ret = fuse_session_loop_mt(r->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

/*
 * Serves the mount until it is unmounted (by the command's end, a stop
 * signal or fusermount3 -u), then unmounts; the exit code is the
 * command's, else the loop's.
 */
static void serve(struct run *r)
{
	const struct record_opts *o = r->o;
	struct status status;
	bool status_on;
	int ret;

	fstap_testhook_crash_later(&r->s->nreq);
	if (o->command && start_command(&r->runner, o->command, r->stop) < 0) {
		fuse_session_unmount(r->se);
		return;
	}
	status_on = status_start(r, &status);
	ret = loop(r);
	if (status_on)
		status_stop(&status);
	r->served = true;
	r->exit_code = ret == 0 ? 0 : 1;
	if (ret != 0)
		fstap_error(-EIO, "the FUSE session ended with an error: %s",
			    strerror(ret < 0 ? -ret : EIO));
	fuse_session_unmount(r->se);
	if (r->runner.pid && pthread_join(r->runner.thread, NULL) == 0) {
		if (WIFEXITED(r->runner.status))
			r->exit_code = WEXITSTATUS(r->runner.status);
		else if (WIFSIGNALED(r->runner.status))
			r->exit_code = 128 + WTERMSIG(r->runner.status);
	}
}

/* Stops the writer thread: every record reaches the writer. */
static void stop_writer(struct run *r)
{
	struct rec_session *s = r->s;
	uint64_t records = recbuf_records(s->rb);

	fstap_crash_set_hook(NULL, NULL);
	r->lost = recbuf_stop(s->rb);
	s->rb = NULL;
	rec_syncw_free(s->syncw);
	s->syncw = NULL;
	fstap_debug("%" PRIu64 " records, %" PRIu64 " lost", records, r->lost);
}

/* Writes the footer and closes the trace, with the summary line. */
static void close_trace(struct run *r)
{
	const struct record_opts *o = r->o;
	uint64_t ns = fstap_now_ns() - r->s->start_mono;
	int ret = fstap_writer_close(r->w, ns, false);

	if (ret < 0) {
		const char *m = fstap_writer_errmsg(r->w);

		fstap_error(ret, "the trace '%s' is incomplete: %s (%" PRIu64 " records lost)",
			    o->trace, m && *m ? m : strerror(-ret), r->lost);
		if (r->exit_code == 0)
			r->exit_code = 1;
	} else if (r->served) {
		summary(o->trace, r->w, fstap_now_ns() - r->s->start_mono, r->lost, r->stop_sig);
	}
	fstap_writer_free(r->w);
	r->w = NULL;
}

/* Undoes what was set up, in reverse order. */
static void teardown(struct run *r)
{
	struct rec_session *s = r->s;

	r->stop_sig = fstap_stop_finish(r->stop);
	if (r->se)
		fuse_session_destroy(r->se);
	if (s->rb)
		stop_writer(r);
	if (r->w)
		close_trace(r);
	if (r->fs_up) {
		fstap_debug("descriptor cache: %u slots, %lu hits, %lu opens, %lu evictions",
			    s->fs.it.nslots, atomic_load(&s->fs.it.cache_hits),
			    atomic_load(&s->fs.it.cache_opens), atomic_load(&s->fs.it.cache_evictions));
		pt_fs_release(&s->fs);
	}
	if (r->root_fd >= 0)
		close(r->root_fd);
	free(r->meta);
	free(s);
}

int record_run(const struct record_opts *o)
{
	struct run r = { .o = o, .root_fd = -1, .exit_code = 1 };

	r.threads = o->threads ? o->threads : 16;
	r.s = calloc(1, sizeof(*r.s));
	if (!r.s)
		return fstap_error(1, "out of memory");
	rec_session_set_cache(r.s, o->cache);
	r.s->snapshot = o->trace ? o->snapshot : REC_SNAP_NONE;
	r.s->xattr_value_max = o->xattr_value_max;

	if (!preflight(&r) && (!o->trace || !start_trace(&r)) && !mount_session(&r))
		serve(&r);
	teardown(&r);
	return r.exit_code;
}
