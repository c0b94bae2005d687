/*
 * daemon.c: one `fstap disk` session: check and lock the image (a regular
 * file, not attached to a loop device, not served by another fstap disk),
 * mount MOUNTPOINT with one file in it, named as the image, and serve reads,
 * writes and flushes of it with the image's data and the model's timing.
 * Each request is done on the image at once, then its reply waits until the
 * model's completion time (CLOCK_MONOTONIC), so requests queue as on the
 * device and the real I/O hides inside the modeled time. At the end (an
 * unmount, SIGINT, SIGTERM or SIGHUP: fstap/stop.h unmounts, waiting
 * for a loop device still attached) it prints what the model did and
 * writes it as JSON on request.
 *
 * The file is served with direct I/O (no page cache in front of the model)
 * and a fixed size: it cannot be truncated, extended, renamed or removed.
 * Beside it only DISK_STATS_NAME exists: the statistics so far, as JSON.
 */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <linux/loop.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "disk/daemon.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/stop.h"
#include "fstap/util.h"

#define FILE_INO 2
#define STATS_INO 3		/* STATS_NAME: the statistics so far, as JSON */
#define MAX_IO (1u << 20)	/* the largest request the kernel sends */

struct disk_session {
	const struct disk_opts *o;
	int fd;				/* the image */
	uint64_t size;			/* its size, fixed while served */
	const char *name;		/* the served file's name */
	struct disk_model *model;
	pthread_mutex_t lock;		/* protects model */
	atomic_uint inflight;
	uint64_t start_ns;
};

/* ---- the model around each request -------------------------------------- */

/* Arrival: the completion time the model gives the request. */
static uint64_t arrive(struct disk_session *s, enum disk_op op, uint64_t off, uint64_t len)
{
	unsigned depth = atomic_fetch_add(&s->inflight, 1) + 1;
	uint64_t due;

	pthread_mutex_lock(&s->lock);
	disk_model_count_depth(s->model, depth);
	due = disk_model_submit(s->model, op, off, len, fstap_now_ns());
	pthread_mutex_unlock(&s->lock);
	return due;
}

/*
 * Waits until the device completes the request; the reply follows. The
 * threads sleep with a timer slack of 1 ns (set in serve): the default
 * 50 us would add up to half an ssd request to every reply.
 */
static void complete(struct disk_session *s, uint64_t due)
{
	if (due > fstap_now_ns())
		fstap_sleep_until_ns(due);
	atomic_fetch_sub(&s->inflight, 1);
}

/*
 * The calling worker thread's buffer for read data, MAX_IO bytes, made on
 * its first read and kept for the thread's life (no allocation per
 * request); NULL when out of memory.
 */
static pthread_key_t buf_key;

static char *thread_buf(void)
{
	char *buf = pthread_getspecific(buf_key);

	if (!buf) {
		buf = malloc(MAX_IO);
		if (buf && pthread_setspecific(buf_key, buf)) {
			free(buf);
			buf = NULL;
		}
	}
	return buf;
}

/* ---- the file system: a root with the file and the statistics ------------ */

static char *stats_snapshot(struct disk_session *s);

static int file_stat(struct disk_session *s, fuse_ino_t ino, struct stat *st)
{
	if (ino == FUSE_ROOT_ID || ino == STATS_INO) {
		memset(st, 0, sizeof(*st));
		st->st_ino = ino;
		st->st_mode = ino == STATS_INO ? S_IFREG | 0444 : S_IFDIR | 0755;
		st->st_nlink = ino == STATS_INO ? 1 : 2;
		st->st_uid = getuid();
		st->st_gid = getgid();
		return 0;
	}
	if (ino != FILE_INO)
		return -ENOENT;
	if (fstat(s->fd, st) < 0)
		return -errno;
	st->st_ino = FILE_INO;
	st->st_nlink = 1;
	return 0;
}

static void d_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct disk_session *s = fuse_req_userdata(req);
	struct fuse_entry_param e;
	int ret;

	memset(&e, 0, sizeof(e));
	if (parent == FUSE_ROOT_ID && !strcmp(name, s->name))
		e.ino = FILE_INO;
	else if (parent == FUSE_ROOT_ID && !strcmp(name, DISK_STATS_NAME))
		e.ino = STATS_INO;
	if (!e.ino) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	ret = file_stat(s, e.ino, &e.attr);
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_entry(req, &e);
}

static void d_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct disk_session *s = fuse_req_userdata(req);
	struct stat st;
	int ret = file_stat(s, ino, &st);

	(void)fi;
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, 0);
}

/* The size is the device's: only times may change (touch). */
static void d_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		      struct fuse_file_info *fi)
{
	struct disk_session *s = fuse_req_userdata(req);
	struct stat st;
	int ret = file_stat(s, ino, &st);

	(void)fi;
	if (ret == 0 && (to_set & FUSE_SET_ATTR_SIZE) && attr->st_size != st.st_size)
		ret = -EPERM;
	if (ret == 0 && (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
		ret = -EPERM;
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, 0);
}

/* The statistics file: a snapshot made at its open, read from fh. */
static void stats_open(fuse_req_t req, struct fuse_file_info *fi)
{
	char *json;

	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EACCES);
		return;
	}
	json = stats_snapshot(fuse_req_userdata(req));
	if (!json) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fi->fh = (uintptr_t)json;
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

static void stats_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	const char *json = (const char *)(uintptr_t)fi->fh;
	size_t len = strlen(json);

	if ((size_t)off >= len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, json + off, len - (size_t)off < size ? len - (size_t)off : size);
}

static void d_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino == STATS_INO)
		free((char *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void d_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino == STATS_INO) {
		stats_open(req, fi);
		return;
	}
	if (ino != FILE_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (fi->flags & O_TRUNC) {
		fuse_reply_err(req, EPERM);
		return;
	}
	fi->direct_io = 1;	/* every read and write reaches the model */
	fi->keep_cache = 0;
	fuse_reply_open(req, fi);
}

/* The data is read at once, inside the modeled time, and answered when due. */
static void d_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct disk_session *s = fuse_req_userdata(req);
	uint64_t due;
	char *buf;
	ssize_t n;

	if (ino == STATS_INO) {
		stats_read(req, size, off, fi);
		return;
	}
	due = arrive(s, DISK_READ, (uint64_t)off, size);
	buf = size <= MAX_IO ? thread_buf() : NULL;
	n = buf ? pread(s->fd, buf, size, off) : -1;
	complete(s, due);
	if (n < 0)
		fuse_reply_err(req, !buf ? size > MAX_IO ? EINVAL : ENOMEM : errno);
	else
		fuse_reply_buf(req, buf, (size_t)n);
}

static void d_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct disk_session *s = fuse_req_userdata(req);
	uint64_t due = arrive(s, DISK_WRITE, (uint64_t)off, size);
	ssize_t n = -1;
	int err = 0;

	(void)ino;
	(void)fi;
	if ((uint64_t)off + size > s->size)
		err = ENOSPC;	/* past the end of the device */
	else if ((n = pwrite(s->fd, buf, size, off)) < 0)
		err = errno;
	complete(s, due);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_write(req, (size_t)n);
}

/* A cache flush of the device; the image's data reaches its own storage. */
static void d_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct disk_session *s = fuse_req_userdata(req);
	uint64_t due;
	int err;

	(void)datasync;
	(void)fi;
	if (ino != FILE_INO) {
		fuse_reply_err(req, 0);
		return;
	}
	due = arrive(s, DISK_FLUSH, 0, 0);
	err = fdatasync(s->fd) < 0 ? errno : 0;
	complete(s, due);
	fuse_reply_err(req, err);
}

static void d_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void d_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct disk_session *s = fuse_req_userdata(req);
	const char *names[] = { ".", "..", s->name, DISK_STATS_NAME };
	const fuse_ino_t inos[] = { FUSE_ROOT_ID, FUSE_ROOT_ID, FILE_INO, STATS_INO };
	struct stat st = { .st_mode = S_IFREG };
	char buf[1024];
	size_t used = 0, n;

	(void)fi;
	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	for (; off < 4; off++) {
		st.st_ino = inos[off];
		n = fuse_add_direntry(req, buf + used, sizeof(buf) - used, names[off], &st,
				      off + 1);
		if (used + n > size || n > sizeof(buf) - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
}

static void d_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct disk_session *s = fuse_req_userdata(req);
	struct statvfs sv;

	(void)ino;
	if (fstatvfs(s->fd, &sv) < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}

static void d_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	conn->max_write = MAX_IO;
	conn->max_read = MAX_IO;
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

static const struct fuse_lowlevel_ops disk_ops = {
	.init = d_init,
	.lookup = d_lookup,
	.getattr = d_getattr,
	.setattr = d_setattr,
	.open = d_open,
	.read = d_read,
	.write = d_write,
	.flush = d_flush,
	.release = d_release,
	.fsync = d_fsync,
	.readdir = d_readdir,
	.statfs = d_statfs,
};

/* ---- the image ---------------------------------------------------------- */

/* The loop device that has st's file attached, in dev (or ""): 0 or -errno. */
static int find_loop(const struct stat *st, const char *real, char *dev, size_t size)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;

	dev[0] = '\0';
	if (!d)
		return 0;
	while ((e = readdir(d)) && !dev[0]) {
		struct loop_info64 li;
		char path[PATH_MAX], back[PATH_MAX] = "";
		FILE *f;
		int fd;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;	/* not attached */
		if (fgets(back, sizeof(back), f))
			back[strcspn(back, "\n")] = '\0';
		fclose(f);
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
			if (li.lo_device == st->st_dev && li.lo_inode == st->st_ino)
				snprintf(dev, size, "%s", path);
		} else if (!strcmp(back, real)) {
			snprintf(dev, size, "%s", path);
		}
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return 0;
}

/* Opens and locks the image; the descriptor or -errno (with the message). */
static int open_image(const char *image)
{
	char real[PATH_MAX], loop[PATH_MAX];
	struct stat st;
	int fd = open(image, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 && errno == ELOOP)
		fd = open(image, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return fstap_error(-ENOENT, "image '%s' does not exist", image);
		return fstap_error(-errno, "cannot open image '%s': %s", image, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fstap_error(-EINVAL, "image '%s' is not a regular file", image);
	}
	if (st.st_size == 0) {
		close(fd);
		return fstap_error(-EINVAL, "image '%s' is empty: give it a size first "
				   "(truncate -s 256M '%s')", image, image);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return fstap_error(-EBUSY, "image '%s' is in use: another fstap disk serves it",
				   image);
	}
	if (!realpath(image, real))
		snprintf(real, sizeof(real), "%s", image);
	find_loop(&st, real, loop, sizeof(loop));
	if (loop[0]) {
		close(fd);
		return fstap_error(-EBUSY, "image '%s' is in use: it is attached to %s (mounted "
				   "or set up by losetup; detach it first)", image, loop);
	}
	return fd;
}

/* ---- the statistics ----------------------------------------------------- */

static const char *const op_names[DISK_NOPS] = { "read", "write", "flush" };

static void qd_label(unsigned b, char *buf, size_t size)
{
	unsigned lo = b < 2 ? b + 1 : (1u << (b - 1)) + 1, hi = 1u << b;

	if (b + 1 == DISK_QD_BUCKETS)
		snprintf(buf, size, "%u+", lo);
	else if (lo == hi)
		snprintf(buf, size, "%u", lo);
	else
		snprintf(buf, size, "%u-%u", lo, hi);
}

struct stats_view {
	const struct disk_opts *o;
	const struct disk_stats *st;
	uint64_t elapsed_ns;
};

static json_t *stats_json(const struct stats_view *v)
{
	json_t *root = json_object(), *req = json_object(), *bytes = json_object();
	json_t *qd = json_object();
	char label[16];
	unsigned i;

	json_object_set_new(root, "image", json_string(v->o->image));
	json_object_set_new(root, "model", json_string(disk_kind_name(v->o->params.kind)));
	json_object_set_new(root, "model_spec", json_string(v->o->model_spec));
	for (i = 0; i < DISK_NOPS; i++) {
		json_object_set_new(req, op_names[i], json_integer((json_int_t)v->st->requests[i]));
		json_object_set_new(bytes, op_names[i], json_integer((json_int_t)v->st->bytes[i]));
	}
	json_object_set_new(root, "requests", req);
	json_object_set_new(root, "bytes", bytes);
	json_object_set_new(root, "seeks", json_integer((json_int_t)v->st->seeks));
	json_object_set_new(root, "seek_cylinders", json_integer((json_int_t)v->st->seek_cylinders));
	json_object_set_new(root, "cache_hits", json_integer((json_int_t)v->st->cache_hits));
	json_object_set_new(root, "busy_ns", json_integer((json_int_t)v->st->busy_ns));
	json_object_set_new(root, "elapsed_ns", json_integer((json_int_t)v->elapsed_ns));
	for (i = 0; i < DISK_QD_BUCKETS; i++) {
		qd_label(i, label, sizeof(label));
		json_object_set_new(qd, label, json_integer((json_int_t)v->st->qd[i]));
	}
	json_object_set_new(root, "queue_depth", qd);
	if (v->o->params.kind == DISK_RAID5) {
		json_t *r = json_object();

		json_object_set_new(r, "member_reads", json_integer((json_int_t)v->st->member_reads));
		json_object_set_new(r, "member_writes",
				    json_integer((json_int_t)v->st->member_writes));
		json_object_set_new(r, "full_stripe_writes",
				    json_integer((json_int_t)v->st->full_stripe_writes));
		json_object_set_new(r, "rmw_stripes", json_integer((json_int_t)v->st->rmw_stripes));
		json_object_set_new(root, "raid5", r);
	}
	return root;
}

/* The statistics so far as a JSON text (malloc'd), or NULL. */
static char *stats_snapshot(struct disk_session *s)
{
	struct disk_stats st;
	struct stats_view v = { .o = s->o, .st = &st };
	json_t *root;
	char *text;

	pthread_mutex_lock(&s->lock);
	st = *disk_model_stats(s->model);
	pthread_mutex_unlock(&s->lock);
	v.elapsed_ns = fstap_now_ns() - s->start_ns;
	root = stats_json(&v);
	text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(root);
	return text;
}

static int write_json(FILE *f, void *arg)
{
	json_t *root = stats_json(arg);
	int ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	json_decref(root);
	if (ret < 0 || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

static void print_summary(const struct stats_view *v)
{
	const struct disk_stats *st = v->st;
	char label[16];
	unsigned i;

	fprintf(stderr, "fstap: disk '%s' (%s): %" PRIu64 " reads %.1f MiB, %" PRIu64
		" writes %.1f MiB, %" PRIu64 " flushes; %" PRIu64 " seeks over %" PRIu64
		" cylinders, %" PRIu64 " cache hits; busy %.3f s of %.3f s\n", v->o->image,
		v->o->model_spec, st->requests[DISK_READ],
		(double)st->bytes[DISK_READ] / 1048576.0, st->requests[DISK_WRITE],
		(double)st->bytes[DISK_WRITE] / 1048576.0, st->requests[DISK_FLUSH], st->seeks,
		st->seek_cylinders, st->cache_hits, (double)st->busy_ns / 1e9,
		(double)v->elapsed_ns / 1e9);
	if (v->o->params.kind == DISK_RAID5)
		fprintf(stderr, "fstap: raid5: %" PRIu64 " member reads, %" PRIu64 " member writes, "
			"%" PRIu64 " full-stripe writes, %" PRIu64 " read-modify-write stripes\n",
			st->member_reads, st->member_writes, st->full_stripe_writes, st->rmw_stripes);
	fprintf(stderr, "fstap: queue depth:");
	for (i = 0; i < DISK_QD_BUCKETS; i++) {
		qd_label(i, label, sizeof(label));
		fprintf(stderr, " %s: %" PRIu64 "%s", label, st->qd[i],
			i + 1 < DISK_QD_BUCKETS ? "," : "\n");
	}
}

/* ---- the session -------------------------------------------------------- */

static int serve(struct disk_session *s, const struct disk_opts *o)
{
	char *args[] = { (char *)"fstap", (char *)"-o", NULL, (char *)"-d", NULL };
	char mntopts[128];
	struct fuse_args fa;
	struct fuse_session *se;
	struct fuse_loop_config *cfg;
	struct fstap_stop *stop = NULL;
	int ret = 1;

	snprintf(mntopts, sizeof(mntopts), "%smax_read=%u,fsname=fstap-disk,subtype=fstap-disk",
		 geteuid() == 0 ? "allow_other," : "", MAX_IO);
	args[2] = mntopts;
	fa = (struct fuse_args)FUSE_ARGS_INIT(o->fuse_debug ? 4 : 3, args);
	se = fuse_session_new(&fa, &disk_ops, sizeof(disk_ops), s);
	fuse_opt_free_args(&fa);
	if (!se)
		return fstap_error(1, "cannot create the FUSE session");
	if (fstap_stop_start(&stop, o->mountpoint) < 0) {
		fstap_error(1, "cannot set signal handlers");
		goto out;
	}
	if (fuse_session_mount(se, o->mountpoint) != 0) {
		fstap_error(1, "cannot mount on '%s' (see the message above)", o->mountpoint);
		goto out_stop;
	}
	fstap_debug("serving '%s' as '%s/%s' (model %s)", o->image, o->mountpoint, s->name,
		    o->model_spec);
	s->start_ns = fstap_now_ns();
	/* inherited by the worker threads the loop creates */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	cfg = fuse_loop_cfg_create();
	if (cfg) {
		fuse_loop_cfg_set_clone_fd(cfg, 0);
		fuse_loop_cfg_set_max_threads(cfg, o->threads);
		fuse_loop_cfg_set_idle_threads(cfg, o->threads);
		ret = fuse_session_loop_mt(se, cfg) == 0 ? 0 : 1;
		fuse_loop_cfg_destroy(cfg);
	} else {
		fstap_error(1, "out of memory");
	}
	if (ret)
		fstap_error(1, "the FUSE session ended with an error");
	fuse_session_unmount(se);
out_stop:
	fstap_stop_finish(stop);
out:
	fuse_session_destroy(se);
	return ret;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

int disk_run(const struct disk_opts *o)
{
	const char *const inputs[] = { o->image, NULL };
	struct disk_session s = { .o = o, .fd = -1 };
	struct stats_view v = { .o = o };
	struct stat sb;
	int ret;

	if (o->json && fstap_output_check(o->json, inputs) < 0)
		return 1;
	if (stat(o->mountpoint, &sb) < 0)
		return fstap_error(1, "mount point '%s' does not exist", o->mountpoint);
	if (!S_ISDIR(sb.st_mode))
		return fstap_error(1, "mount point '%s' is not a directory", o->mountpoint);
	if (access("/dev/fuse", R_OK | W_OK) < 0)
		return fstap_error(1, "cannot use /dev/fuse: %s", strerror(errno));
	s.fd = open_image(o->image);
	if (s.fd < 0)
		return 1;
	s.name = base_name(o->image);
	if (!strcmp(s.name, DISK_STATS_NAME)) {
		close(s.fd);
		return fstap_error(1, "image '%s': its name is the statistics file's; rename it",
				   o->image);
	}
	s.size = (uint64_t)lseek(s.fd, 0, SEEK_END);
	pthread_mutex_init(&s.lock, NULL);
	if (pthread_key_create(&buf_key, free)) {
		close(s.fd);
		return fstap_error(1, "out of memory");
	}
	if (disk_model_new(&o->params, &s.model) < 0) {
		pthread_key_delete(buf_key);
		close(s.fd);
		return fstap_error(1, "out of memory");
	}
	ret = serve(&s, o);
	if (s.start_ns) {
		v.st = disk_model_stats(s.model);
		v.elapsed_ns = fstap_now_ns() - s.start_ns;
		if (fstap_verbosity >= 0)
			print_summary(&v);
		if (o->json && fstap_output_write(o->json, inputs, write_json, &v) < 0)
			ret = 1;
	}
	free(pthread_getspecific(buf_key));
	pthread_key_delete(buf_key);
	disk_model_free(s.model);
	pthread_mutex_destroy(&s.lock);
	close(s.fd);
	return ret;
}
