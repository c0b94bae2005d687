/*
 * calibrate.c: the recorder's own round-trip cost, measured at the start of
 * a recording and stored in the trace's metadata (recorder.calibration), so
 * that `fstap replay --pace=native` can take it out of the recorded gaps.
 *
 * A recorded duration is the daemon's time for a request (its handler's
 * start to its reply). The application waits longer: the system call enters
 * the kernel, the request is queued on /dev/fuse, a daemon thread wakes up
 * and reads it, and after the reply the kernel wakes the application. That
 * round trip lies in the recorded gaps between a thread's requests. Here a
 * private FUSE mount on a temporary directory, served by a loop of the same
 * kind and thread count as the session's, answers requests of this thread:
 * fstat(2) of a file with attribute timeout 0 (one GETATTR each) and 4 KiB
 * pread(2)s with direct I/O (one READ each). For each one the round trip is
 * the application-side latency minus the handler's own time, taken as the
 * session's handlers take it. The mean of each kind (of its fastest 99%)
 * goes in the metadata, with the median and the 90th percentile.
 *
 * A calibration that cannot mount (no FUSE, a failed fusermount3) leaves
 * the keys out; the replay then says so and keeps the recorded gaps.
 *
 * Not here: the session's mount (record.c), the replay's use (replay/timing.c).
 */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fstap/log.h"
#include "fstap/stop.h"
#include "fstap/util.h"
#include "record/calibrate_i.h"
#include "record/record_i.h"

#define CAL_WARMUP 16		/* requests not counted: the first wake-ups */
#define CAL_FILE_INO 2
#define CAL_FILE_NAME "f"
#define CAL_FILE_SIZE (1u << 20)
#define CAL_READ_SIZE 4096u
#define CAL_TIMEOUT_S 10	/* a calibration that takes longer is given up */

struct cal {
	_Atomic uint64_t handler_ns;	/* the latest request's handler time */
	struct fuse_session *se;
	char dir[64];
};

static void cal_stat(struct stat *st, fuse_ino_t ino)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	st->st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_size = ino == FUSE_ROOT_ID ? 0 : CAL_FILE_SIZE;
	st->st_uid = getuid();
	st->st_gid = getgid();
}

static void cal_done(fuse_req_t req, uint64_t t0)
{
	struct cal *c = fuse_req_userdata(req);

	atomic_store(&c->handler_ns, fstap_now_ns() - t0);
}

static void cal_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	if (parent != FUSE_ROOT_ID || strcmp(name, CAL_FILE_NAME)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	e.ino = CAL_FILE_INO;
	cal_stat(&e.attr, e.ino);
	fuse_reply_entry(req, &e);
}

static void cal_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	uint64_t t0 = fstap_now_ns();
	struct stat st;

	(void)fi;
	cal_stat(&st, ino);
	cal_done(req, t0);
	fuse_reply_attr(req, &st, 0.0);
}

static void cal_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != CAL_FILE_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

static void cal_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	static const char zeros[CAL_READ_SIZE];
	uint64_t t0 = fstap_now_ns();

	(void)ino;
	(void)fi;
	if (off >= CAL_FILE_SIZE)
		size = 0;
	if (size > sizeof(zeros))
		size = sizeof(zeros);
	cal_done(req, t0);
	fuse_reply_buf(req, zeros, size);
}

static void cal_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static const struct fuse_lowlevel_ops cal_ops = {
	.lookup = cal_lookup,
	.getattr = cal_getattr,
	.open = cal_open,
	.read = cal_read,
	.release = cal_release,
};

struct cal_loop {
	struct fuse_session *se;
	unsigned threads;
};

static void *cal_loop_main(void *arg)
{
	struct cal_loop *l = arg;
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();

	if (!cfg)
		return NULL;
	fuse_loop_cfg_set_clone_fd(cfg, 0);
	fuse_loop_cfg_set_max_threads(cfg, l->threads);
	fuse_loop_cfg_set_idle_threads(cfg, l->threads);
	fuse_session_loop_mt(l->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One kind of request, n times after the warm-up: out[i] the application's
 * latency minus the handler's time (0 if the handler took longer, as a
 * clock read may). Returns 0 or -errno.
 */
static int cal_measure(struct cal *c, int fd, bool read_kind, uint64_t *out, unsigned n)
{
	static char buf[CAL_READ_SIZE];
	unsigned i;

	for (i = 0; i < CAL_WARMUP + n; i++) {
		struct stat st;
		uint64_t t0, t1, h;
		ssize_t got;

		atomic_store(&c->handler_ns, 0);
		t0 = fstap_now_ns();
		if (read_kind) {
			got = pread(fd, buf, sizeof(buf), (off_t)(i % 64) * CAL_READ_SIZE);
			if (got != (ssize_t)sizeof(buf))
				return got < 0 ? -errno : -EIO;
		} else if (fstat(fd, &st) < 0) {
			return -errno;
		}
		t1 = fstap_now_ns();
		h = atomic_load(&c->handler_ns);
		if (i >= CAL_WARMUP)
			out[i - CAL_WARMUP] = t1 - t0 > h ? t1 - t0 - h : 0;
	}
	qsort(out, n, sizeof(*out), cmp_u64);
	return 0;
}

/* The mean of the fastest 99% of the sorted v[0..n), its median and 90th percentile. */
static void cal_figures(const uint64_t *v, unsigned n, uint64_t *mean, uint64_t *p50,
			uint64_t *p90)
{
	unsigned i, m = n - n / 100;
	uint64_t sum = 0;

	for (i = 0; i < m; i++)
		sum += v[i];
	*mean = sum / m;
	*p50 = v[n / 2];
	*p90 = v[n * 9 / 10];
}

static int cal_requests(struct cal *c, struct rec_calibration *cal)
{
	uint64_t *v = calloc(REC_CAL_REQUESTS, sizeof(*v));
	char path[96];
	int fd, ret;

	if (!v)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/" CAL_FILE_NAME, c->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = cal_measure(c, fd, false, v, REC_CAL_REQUESTS);
	if (!ret) {
		cal_figures(v, REC_CAL_REQUESTS, &cal->meta_ns, &cal->meta_p50_ns,
			    &cal->meta_p90_ns);
		ret = cal_measure(c, fd, true, v, REC_CAL_REQUESTS);
	}
	if (!ret)
		cal_figures(v, REC_CAL_REQUESTS, &cal->data_ns, &cal->data_p50_ns,
			    &cal->data_p90_ns);
	close(fd);
out:
	free(v);
	return ret;
}

/*
 * The requests run in a thread of their own, so that this thread can give
 * up on them: a loop that stopped serving would leave a request on the
 * private mount waiting for ever, and the recorder with it. Closing the
 * session's descriptor (fuse_session_unmount) then aborts the connection,
 * which ends the waiting request with ENOTCONN, and the thread is joined.
 * When the requests have ended, the mount is unmounted first instead and
 * the loop ends on that: its threads still read the descriptor until then.
 */
struct cal_client {
	struct cal *c;
	struct rec_calibration *cal;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started, done;
	int ret;
};

static void *cal_client_main(void *arg)
{
	struct cal_client *cl = arg;
	int ret = cal_requests(cl->c, cl->cal);

	pthread_mutex_lock(&cl->lock);
	cl->ret = ret;
	cl->done = true;
	pthread_cond_signal(&cl->cond);
	pthread_mutex_unlock(&cl->lock);
	return NULL;
}

/*
 * Starts the requests and waits at most CAL_TIMEOUT_S seconds for them:
 * 0, -ETIMEDOUT (the thread still runs: join it after the unmount) or
 * -errno.
 */
static int cal_client_wait(struct cal_client *cl)
{
	struct timespec until;
	int ret = 0;

	if (pthread_create(&cl->th, NULL, cal_client_main, cl))
		return -EAGAIN;
	cl->started = true;
	fstap_deadline_ms(&until, CAL_TIMEOUT_S * 1000);
	pthread_mutex_lock(&cl->lock);
	while (!cl->done && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&cl->cond, &cl->lock, &until);
	ret = cl->done ? cl->ret : -ETIMEDOUT;
	pthread_mutex_unlock(&cl->lock);
	return ret;
}

int rec_calibrate(unsigned threads, struct rec_calibration *cal)
{
	char *args[] = { (char *)"fstap", (char *)"-o",
			 (char *)"default_permissions,fsname=fstap-calibration,subtype=fstap", NULL };
	struct fuse_args fa = FUSE_ARGS_INIT(3, args);
	struct cal c = { .se = NULL };
	struct cal_client cl = { .c = &c, .cal = cal, .lock = PTHREAD_MUTEX_INITIALIZER,
				 .cond = PTHREAD_COND_INITIALIZER };
	struct cal_loop l;
	pthread_t th;
	int ret;

	memset(cal, 0, sizeof(*cal));
	snprintf(c.dir, sizeof(c.dir), "/tmp/fstap-calibration.XXXXXX");
	if (!mkdtemp(c.dir))
		return -errno;
	c.se = fuse_session_new(&fa, &cal_ops, sizeof(cal_ops), &c);
	fuse_opt_free_args(&fa);
	if (!c.se) {
		ret = -EINVAL;
		goto out_dir;
	}
	if (fuse_session_mount(c.se, c.dir) != 0) {
		ret = -EIO;
		goto out_se;
	}
	l.se = c.se;
	l.threads = threads ? threads : 1;
	if (pthread_create(&th, NULL, cal_loop_main, &l)) {
		fuse_session_unmount(c.se);
		ret = -EAGAIN;
		goto out_se;
	}
	ret = cal_client_wait(&cl);
	if (ret != -ETIMEDOUT && fstap_unmount(c.dir) == 0) {
		/* the loop ends on the unmount; its descriptor is closed after it */
		if (cl.started)
			pthread_join(cl.th, NULL);
		pthread_join(th, NULL);
		fuse_session_unmount(c.se);
	} else {
		/* closing the descriptor aborts the connection and a stuck request */
		fuse_session_exit(c.se);
		fuse_session_unmount(c.se);
		if (cl.started)
			pthread_join(cl.th, NULL);
		pthread_join(th, NULL);
	}
	if (!ret)
		cal->requests = REC_CAL_REQUESTS;
out_se:
	fuse_session_destroy(c.se);
out_dir:
	rmdir(c.dir);
	return ret;
}

void rec_calibrate_add(json_t *recorder, unsigned threads)
{
	struct rec_calibration cal;
	json_t *o;
	int ret = rec_calibrate(threads, &cal);

	if (ret < 0) {
		fstap_debug("round-trip calibration failed (%s): the trace has no "
			    "recorder.calibration", strerror(-ret));
		return;
	}
	o = json_object();
	json_object_set_new(o, "requests", json_integer(cal.requests));
	json_object_set_new(o, "meta_round_trip_ns", json_integer((json_int_t)cal.meta_ns));
	json_object_set_new(o, "meta_round_trip_p50_ns",
			    json_integer((json_int_t)cal.meta_p50_ns));
	json_object_set_new(o, "meta_round_trip_p90_ns",
			    json_integer((json_int_t)cal.meta_p90_ns));
	json_object_set_new(o, "data_round_trip_ns", json_integer((json_int_t)cal.data_ns));
	json_object_set_new(o, "data_round_trip_p50_ns",
			    json_integer((json_int_t)cal.data_p50_ns));
	json_object_set_new(o, "data_round_trip_p90_ns",
			    json_integer((json_int_t)cal.data_p90_ns));
	json_object_set_new(recorder, "calibration", o);
}
