/*
 * cgroup.c: the environment around a run. --drop-caches (sync, then drop
 * the page, dentry and inode caches) and --cache-limit (the run happens in
 * a cgroup v2 memory cgroup whose memory.max bounds the page cache the
 * replay can use, as on a loaded server). The cgroup is created at the
 * top of the cgroup v2 hierarchy, the process moves in for the run and
 * back out after it, and the cgroup is removed. A replay killed in its run
 * (SIGKILL, or the cgroup's own OOM kill) cannot remove its cgroup: the
 * next one removes every fstap-replay-PID cgroup whose PID is gone.
 *
 * Not here: anything that measures (run.c and its stages).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/log.h"
#include "replay.h"

struct rp_cgroup {
	char dir[PATH_MAX];	/* the cgroup we made */
	char home[PATH_MAX];	/* the cgroup we came from */
	int version;		/* 1 or 2 */
	uint64_t limit;
};

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	size_t len = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

int rp_drop_caches(void)
{
	int ret;

	sync();
	ret = write_file("/proc/sys/vm/drop_caches", "3");
	if (ret)
		return fstap_error(ret, "cannot drop caches: '/proc/sys/vm/drop_caches': %s%s",
				   strerror(-ret), ret == -EACCES || ret == -EPERM ?
				   " (it needs root)" : "");
	return 0;
}

static bool has_word(const char *list, const char *w);

/*
 * The mount point of the cgroup v2 hierarchy (v1 false), or of the cgroup
 * v1 hierarchy that has the memory controller (v1 true), from
 * /proc/self/mountinfo.
 */
static int cgroup_mount(bool v1, char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], opts[1024], *sep = strstr(line, " - ");

		/* id parent major:minor root mountpoint ... - fstype source opts */
		if (!sep || strncmp(sep + 3, v1 ? "cgroup " : "cgroup2 ", v1 ? 7 : 8))
			continue;
		if (v1) {
			char *c;

			if (sscanf(sep + 3, "%*s %*s %1023s", opts) != 1)
				continue;
			for (c = opts; *c; c++)
				if (*c == ',')
					*c = ' ';
			if (!has_word(opts, "memory"))
				continue;
		}
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && strlen(mnt) < cap) {
			strcpy(out, mnt);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;

	while ((p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/* Removes the cgroups under MNT that replays killed in their run left behind. */
static void cgroup_sweep(const char *mnt)
{
	DIR *d = opendir(mnt);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX + 64], *end;
		long pid;

		if (strncmp(e->d_name, "fstap-replay-", 13))
			continue;
		pid = strtol(e->d_name + 13, &end, 10);
		if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", mnt, e->d_name);
		if (rmdir(path) == 0)
			fstap_info("removed cgroup '%s', left by a replay that was killed", path);
	}
	closedir(d);
}

/* Makes cg->dir, sets its limit and moves the process in; 0 or -errno (logged). */
static int cgroup_make(struct rp_cgroup *cg, const char *limit_file)
{
	char path[PATH_MAX + 64], buf[64];
	int ret;

	if (mkdir(cg->dir, 0755) && errno != EEXIST) {
		ret = -errno;
		return fstap_error(ret, "cannot create cgroup '%s': %s", cg->dir, strerror(-ret));
	}
	snprintf(path, sizeof(path), "%s/%s", cg->dir, limit_file);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)cg->limit);
	if ((ret = write_file(path, buf))) {
		fstap_error(ret, "cannot set '%s': %s", path, strerror(-ret));
		rmdir(cg->dir);
		return ret;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	snprintf(buf, sizeof(buf), "%ld", (long)getpid());
	if ((ret = write_file(path, buf))) {
		fstap_error(ret, "cannot move into cgroup '%s': %s", cg->dir, strerror(-ret));
		rmdir(cg->dir);
		return ret;
	}
	return 0;
}

/* Where this process is in hierarchy ID ("0" for v2, the "memory" line for v1). */
static int cgroup_home(bool v1, const char *mnt, char *out, size_t cap)
{
	char buf[8192], *line, *save = NULL;

	if (read_file("/proc/self/cgroup", buf, sizeof(buf)))
		return -ENOENT;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctl = strchr(line, ':'), *path;

		if (!ctl || !(path = strchr(ctl + 1, ':')))
			continue;
		*path++ = '\0';
		ctl++;
		if (v1 ? !has_word(ctl, "memory") && !strstr(ctl, "memory")
		       : strcmp(line, "0") || *ctl)
			continue;
		if ((size_t)snprintf(out, cap, "%s%s", mnt, path) >= cap)
			return -ENAMETOOLONG;
		return 0;
	}
	return -ENOENT;
}

static int cgroup_v1_enter(uint64_t limit, struct rp_cgroup **out)
{
	struct rp_cgroup *cg;
	char mnt[PATH_MAX - 64];
	int ret;

	if (cgroup_mount(true, mnt, sizeof(mnt)))
		return fstap_error(-ENOTSUP, "--cache-limit needs a memory cgroup, and neither "
				   "cgroup v2 with its memory controller nor the cgroup v1 "
				   "memory controller is mounted");
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->version = 1;
	cg->limit = limit;
	if (cgroup_home(true, mnt, cg->home, sizeof(cg->home))) {
		free(cg);
		return fstap_error(-ENOTSUP, "--cache-limit: this process is in no cgroup v1 "
				   "memory group");
	}
	cgroup_sweep(mnt);
	snprintf(cg->dir, sizeof(cg->dir), "%s/fstap-replay-%ld", mnt, (long)getpid());
	if ((ret = cgroup_make(cg, "memory.limit_in_bytes"))) {
		free(cg);
		return ret;
	}
	*out = cg;
	return 0;
}

int rp_cgroup_enter(uint64_t limit, struct rp_cgroup **out)
{
	struct rp_cgroup *cg;
	char mnt[PATH_MAX - 64], buf[4096], path[PATH_MAX + 64];
	int ret;

	if (cgroup_mount(false, mnt, sizeof(mnt)))
		return cgroup_v1_enter(limit, out);
	snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
	if (read_file(path, buf, sizeof(buf)) || !has_word(buf, "memory"))
		return cgroup_v1_enter(limit, out);	/* hybrid: memory is on v1 */
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", mnt);
	if (read_file(path, buf, sizeof(buf)) || !has_word(buf, "memory")) {
		if ((ret = write_file(path, "+memory")))
			return fstap_error(ret, "cannot enable the memory controller in '%s': %s",
					   path, strerror(-ret));
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->version = 2;
	cg->limit = limit;
	if (cgroup_home(false, mnt, cg->home, sizeof(cg->home))) {
		free(cg);
		return fstap_error(-ENOTSUP, "--cache-limit: this process is in no cgroup v2 group");
	}
	cgroup_sweep(mnt);
	snprintf(cg->dir, sizeof(cg->dir), "%s/fstap-replay-%ld", mnt, (long)getpid());
	if ((ret = cgroup_make(cg, "memory.max"))) {
		free(cg);
		return ret;
	}
	*out = cg;
	return 0;
}

void rp_cgroup_leave(struct rp_cgroup *cg)
{
	char path[PATH_MAX + 64], buf[32], peak[64];
	int ret;

	if (!cg)
		return;
	/* the highest use the cgroup saw, page cache included */
	snprintf(path, sizeof(path), "%s/%s", cg->dir,
		 cg->version == 1 ? "memory.max_usage_in_bytes" : "memory.peak");
	if (!read_file(path, peak, sizeof(peak)))
		fstap_info("cache limit %llu bytes (cgroup v%d '%s'): peak memory use %llu bytes",
			   (unsigned long long)cg->limit, cg->version, cg->dir,
			   strtoull(peak, NULL, 10));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->home);
	snprintf(buf, sizeof(buf), "%ld", (long)getpid());
	if ((ret = write_file(path, buf)))
		fstap_warn("cannot move back to cgroup '%s': %s", cg->home, strerror(-ret));
	if (rmdir(cg->dir))
		fstap_warn("cannot remove cgroup '%s': %s", cg->dir, strerror(errno));
	free(cg);
}
