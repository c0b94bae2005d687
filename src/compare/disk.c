/*
 * disk.c: `fstap compare --disk=MODEL`: the image of a run served by a
 * modeled device. For each run the image file is served by an `fstap disk`
 * daemon (a child in its own process group) under WORKDIR/disk-TAG/, and the
 * loop device is attached to the served file instead of the image. The
 * statistics file of the daemon is read before and after the replay (the
 * replay's share of the device's work); the daemon's JSON at exit gives the
 * whole run's (mkfs and prepare included). A candidate whose options name
 * @log gets a second image for each run, on its own loop device (served by
 * a daemon of its own with --disk or --log-disk), whose path replaces the
 * word. cmp_disk_down() detaches that loop device and stops every daemon
 * once its loop device is detached; cmp_cleanup() calls it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare/compare.h"
#include "disk/daemon.h"
#include "fstap/log.h"

/* The daemons of the run in progress, by tag (CMP_DISK_DATA, CMP_DISK_LOG). */
static struct {
	pid_t pid;
	char mnt[PATH_MAX];	/* its mount point */
	char json[PATH_MAX];	/* its --json */
	char spec[256];		/* its model */
	json_t *before;		/* statistics before the replay */
	json_t *replay;		/* the replay's share */
	json_t *total;		/* the whole run's, once stopped */
} dk[CMP_DISK_TAGS];

static const char *const tag_names[CMP_DISK_TAGS] = { "disk", "log_disk" };

/* The @log image of the run in progress and its loop device. */
static char log_image[PATH_MAX], log_loop[64];

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void forget(unsigned tag)
{
	json_decref(dk[tag].before);
	json_decref(dk[tag].replay);
	json_decref(dk[tag].total);
	dk[tag].before = dk[tag].replay = dk[tag].total = NULL;
}

int cmp_disk_up(const struct cmp_env *env, unsigned tag, const char *spec, const char *image,
		const char *log, char *served, size_t len, char *reason, size_t rlen)
{
	const char *name = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;
	char model[300];
	pid_t pid;
	int i, status;

	forget(tag);
	snprintf(dk[tag].spec, sizeof(dk[tag].spec), "%s", spec);
	snprintf(dk[tag].mnt, sizeof(dk[tag].mnt), "%s/%s", env->workdir, tag_names[tag]);
	snprintf(dk[tag].json, sizeof(dk[tag].json), "%s/%s.json", env->workdir, tag_names[tag]);
	snprintf(model, sizeof(model), "--model=%s", spec);
	unlink(dk[tag].json);
	if (mkdir(dk[tag].mnt, 0700) && errno != EEXIST) {
		snprintf(reason, rlen, "cannot create '%.150s': %s", dk[tag].mnt, strerror(errno));
		return -1;
	}
	snprintf(served, len, "%s/%s", dk[tag].mnt, name);
	{
		FILE *f = fopen(log, "ae");

		if (f) {
			fprintf(f, "$ %s disk -q %s --json=%s %s %s &\n", env->self, model,
				dk[tag].json, image, dk[tag].mnt);
			fclose(f);
		}
	}
	pid = fork();
	if (pid < 0) {
		snprintf(reason, rlen, "fstap disk: cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char arg_json[PATH_MAX + 8];
		int in = open("/dev/null", O_RDONLY), err = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);

		/* its own group: a Ctrl-C reaches compare, which stops it in order */
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (in < 0 || err < 0)
			_exit(126);
		dup2(in, 0);
		dup2(err, 1);
		dup2(err, 2);
		snprintf(arg_json, sizeof(arg_json), "--json=%s", dk[tag].json);
		execl(env->self, env->self, "disk", "-q", model, arg_json, image, dk[tag].mnt,
		      (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	dk[tag].pid = pid;
	for (i = 0; i < 1000; i++) {
		struct stat st;

		if (!stat(served, &st) && S_ISREG(st.st_mode))
			return 0;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			dk[tag].pid = 0;
			snprintf(reason, rlen, "fstap disk failed (exit %d): see %.150s",
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
				 log);
			return -1;
		}
		if (cmp_interrupted)
			break;
		pause_ms(10);
	}
	snprintf(reason, rlen, cmp_interrupted ? "interrupted during fstap disk"
					       : "fstap disk did not serve '%.150s' within 10 s",
		 served);
	return -1;
}

/* The daemon's statistics so far (its statistics file), or NULL. */
static json_t *snapshot(unsigned tag)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dk[tag].mnt, DISK_STATS_NAME);
	return dk[tag].pid ? json_load_file(path, 0, NULL) : NULL;
}

/* after - before for every integer (recursively); strings as in after. */
static json_t *delta(json_t *before, json_t *after)
{
	json_t *d = json_object(), *v;
	const char *k;

	json_object_foreach(after, k, v) {
		json_t *b = json_object_get(before, k);

		if (json_is_integer(v))
			json_object_set_new(d, k, json_integer(json_integer_value(v) -
								json_integer_value(b)));
		else if (json_is_object(v))
			json_object_set_new(d, k, delta(b, v));
		else
			json_object_set(d, k, v);
	}
	return d;
}

void cmp_disk_mark(bool after)
{
	unsigned t;

	for (t = 0; t < CMP_DISK_TAGS; t++) {
		json_t *now;

		if (!dk[t].pid)
			continue;
		now = snapshot(t);
		if (!after) {
			json_decref(dk[t].before);
			dk[t].before = now;
		} else if (now && dk[t].before) {
			json_decref(dk[t].replay);
			dk[t].replay = delta(dk[t].before, now);
			json_decref(now);
		} else {
			json_decref(now);
		}
	}
}

void cmp_disk_down(void)
{
	unsigned t;
	int i;

	if (log_loop[0]) {
		cmp_loop_detach(log_loop);
		log_loop[0] = '\0';
	}
	for (t = 0; t < CMP_DISK_TAGS; t++) {
		if (dk[t].pid) {
			/* the loop device is detached: the daemon unmounts and exits */
			kill(dk[t].pid, SIGTERM);
			for (i = 0; i < 3000 && waitpid(dk[t].pid, NULL, WNOHANG) == 0; i++)
				pause_ms(10);
			if (i == 3000) {
				fstap_warn("fstap disk (pid %d) did not stop; killing it",
					   (int)dk[t].pid);
				kill(dk[t].pid, SIGKILL);
				waitpid(dk[t].pid, NULL, 0);
			}
			dk[t].pid = 0;
			json_decref(dk[t].total);
			dk[t].total = json_load_file(dk[t].json, 0, NULL);
			unlink(dk[t].json);
		}
		if (dk[t].mnt[0]) {
			/* a killed daemon leaves its mount behind */
			if (umount2(dk[t].mnt, MNT_DETACH) && errno != EINVAL && errno != ENOENT)
				fstap_warn("cannot unmount '%s': %s", dk[t].mnt, strerror(errno));
			rmdir(dk[t].mnt);
			dk[t].mnt[0] = '\0';
		}
	}
	if (log_image[0]) {
		unlink(log_image);
		log_image[0] = '\0';
	}
}

/* ---- @log ---------------------------------------------------------------- */

bool cmp_wants_log(const struct cmp_candidate *c)
{
	return (c->mkfs_opts && strstr(c->mkfs_opts, "@log")) ||
	       (c->mount_opts && strstr(c->mount_opts, "@log"));
}

char *cmp_subst_log(const char *opts, const char *dev)
{
	size_t n = 0, dl = strlen(dev);
	const char *p;
	char *out, *o;

	for (p = opts; (p = strstr(p, "@log")); p += 4)
		n++;
	out = malloc(strlen(opts) + n * dl + 1);
	if (!out)
		fstap_die("out of memory");
	for (o = out, p = opts; *p;) {
		if (!strncmp(p, "@log", 4) && dl) {
			memcpy(o, dev, dl);
			o += dl;
			p += 4;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

int cmp_log_up(const struct cmp_env *env, const struct cmp_candidate *c, const char *log,
	       char *dev, size_t len, char *reason, size_t rlen)
{
	const char *spec = env->log_disk ? env->log_disk : env->disk;
	char served[PATH_MAX], out[PATH_MAX + 16], *argv[8];
	int rc;
	FILE *f;

	snprintf(log_image, sizeof(log_image), "%s/%s-log.img", env->workdir, c->name);
	if (cmp_make_image(log_image, CMP_LOG_IMAGE_SIZE, reason, rlen))
		return -1;
	if (spec && cmp_disk_up(env, CMP_DISK_LOG, spec, log_image, log, served, sizeof(served),
				reason, rlen))
		return -1;
	snprintf(out, sizeof(out), "%s/losetup-log.out", env->workdir);
	argv[0] = (char *)"losetup";
	argv[1] = (char *)"--direct-io=on";
	argv[2] = (char *)"--find";
	argv[3] = (char *)"--show";
	argv[4] = spec ? served : log_image;
	argv[5] = NULL;
	rc = cmp_spawn(argv, log, out, reason, rlen);
	/* even a killed losetup may have attached: read what it printed */
	dev[0] = '\0';
	f = fopen(out, "re");
	if (f) {
		if (fgets(dev, (int)len, f))
			dev[strcspn(dev, "\n")] = '\0';
		fclose(f);
	}
	if (!strncmp(dev, "/dev/", 5))
		snprintf(log_loop, sizeof(log_loop), "%s", dev);
	if (!rc && !log_loop[0])
		snprintf(reason, rlen, "losetup printed no device for the @log image");
	return rc || !log_loop[0] ? -1 : 0;
}

void cmp_disk_take(json_t *run)
{
	unsigned t;

	for (t = 0; t < CMP_DISK_TAGS; t++) {
		json_t *o;

		if (!dk[t].spec[0])
			continue;
		if (run && (dk[t].replay || dk[t].total)) {
			o = json_object();
			json_object_set_new(o, "model", json_string(dk[t].spec));
			json_object_set(o, "replay", dk[t].replay ? dk[t].replay : json_null());
			json_object_set(o, "run", dk[t].total ? dk[t].total : json_null());
			json_object_set_new(run, tag_names[t], o);
		}
		forget(t);
		dk[t].spec[0] = '\0';
	}
}

/* The replay's figures of a run (its "disk" object), or NULL. */
static json_t *run_disk(const struct cmp_run *u)
{
	return json_object_get(json_object_get(u ? u->raw : NULL, "disk"), "replay");
}

static double jnum(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_is_number(v) ? json_number_value(v) : 0;
}

void cmp_disk_section(FILE *f, const struct cmp_results *res, int cw, int vw)
{
	const char *model = NULL;
	unsigned i;

	for (i = 0; i < res->nrows && !model; i++)
		if (res->rows[i].nruns)
			model = json_string_value(json_object_get(run_disk(res->rows[i].runs +
									   res->rows[i].median_run),
								  "model_spec"));
	if (!model)
		return;
	fprintf(f, "\nthe modeled disk (%s) during the replay of the median run\n\n", model);
	fprintf(f, "%-*s  %-*s  %9s  %9s  %9s  %9s  %8s  %11s  %8s\n", cw, "candidate", vw,
		"variant", "reads", "read MiB", "writes", "write MiB", "flushes", "seeks",
		"busy s");
	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];
		json_t *d = r->nruns && !r->failed ? run_disk(r->runs + r->median_run) : NULL;

		if (!d)
			continue;
		fprintf(f, "%-*s  %-*s  %9.0f  %9.1f  %9.0f  %9.1f  %8.0f  %11.0f  %8.3f\n", cw,
			r->cand->name, vw, r->variant, jnum(d, "requests", "read"),
			jnum(d, "bytes", "read") / 1048576.0, jnum(d, "requests", "write"),
			jnum(d, "bytes", "write") / 1048576.0, jnum(d, "requests", "flush"),
			jnum(d, "seeks", NULL), jnum(d, "busy_ns", NULL) / 1e9);
	}
}

void cmp_log_describe(const struct cmp_candidate *c, const char *dev, const char *mnt,
		      const char *log)
{
	char reason[256], *argv[4];

	if (!strcmp(c->fstype, "xfs")) {
		argv[0] = (char *)"xfs_info";
		argv[1] = (char *)mnt;
	} else if (!strncmp(c->fstype, "ext", 3)) {
		argv[0] = (char *)"dumpe2fs";
		argv[1] = (char *)"-h";
	} else {
		return;
	}
	argv[2] = !strcmp(c->fstype, "xfs") ? NULL : (char *)dev;
	argv[3] = NULL;
	if (cmp_spawn(argv, log, NULL, reason, sizeof(reason)))
		fstap_debug("%s", reason);
}
