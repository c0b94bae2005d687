/*
 * cgroup.c: the environment around a run. --drop-caches (sync, then drop
 * the page, dentry and inode caches) and --cache-limit (the run happens in
 * a cgroup v2 memory cgroup whose memory.max bounds the page cache the
 * replay can use, as on a loaded server). The cgroup is created at the
 * top of the cgroup v2 hierarchy, the process moves in for the run and
 * back out after it, and the cgroup is removed.
 *
 * Not here: anything that measures (sched.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* The mount point of the cgroup v2 hierarchy, from /proc/self/mountinfo. */
static int cgroup2_mount(char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *sep = strstr(line, " - ");

		/* id parent major:minor root mountpoint ... - fstype source opts */
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
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

int rp_cgroup_enter(uint64_t limit, struct rp_cgroup **out)
{
	struct rp_cgroup *cg;
	char mnt[PATH_MAX], buf[4096], path[PATH_MAX + 64], *p;
	int ret;

	if (cgroup2_mount(mnt, sizeof(mnt)))
		return fstap_error(-ENOTSUP, "--cache-limit needs cgroup v2, and no cgroup2 "
				   "file system is mounted");
	snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
	if (read_file(path, buf, sizeof(buf)) || !has_word(buf, "memory"))
		return fstap_error(-ENOTSUP, "--cache-limit needs the cgroup v2 memory controller, "
				   "which is not available in '%s' (on a hybrid system it is "
				   "bound to cgroup v1)", mnt);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", mnt);
	if (read_file(path, buf, sizeof(buf)) || !has_word(buf, "memory")) {
		if ((ret = write_file(path, "+memory")))
			return fstap_error(ret, "cannot enable the memory controller in '%s': %s",
					   path, strerror(-ret));
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	/* Where we are now ("0::/path"), to come back after the run. */
	if (read_file("/proc/self/cgroup", buf, sizeof(buf)) || !(p = strstr(buf, "0::"))) {
		free(cg);
		return fstap_error(-ENOTSUP, "--cache-limit: this process is in no cgroup v2 group");
	}
	p += 3;
	p[strcspn(p, "\n")] = '\0';
	snprintf(cg->home, sizeof(cg->home), "%s%s", mnt, p);
	snprintf(cg->dir, sizeof(cg->dir), "%s/fstap-replay-%ld", mnt, (long)getpid());
	if (mkdir(cg->dir, 0755) && errno != EEXIST) {
		ret = -errno;
		free(cg);
		return fstap_error(ret, "cannot create cgroup '%s': %s", cg->dir, strerror(-ret));
	}
	snprintf(path, sizeof(path), "%s/memory.max", cg->dir);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)limit);
	if ((ret = write_file(path, buf))) {
		fstap_error(ret, "cannot set '%s': %s", path, strerror(-ret));
		rmdir(cg->dir);
		free(cg);
		return ret;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	snprintf(buf, sizeof(buf), "%ld", (long)getpid());
	if ((ret = write_file(path, buf))) {
		fstap_error(ret, "cannot move into cgroup '%s': %s", cg->dir, strerror(-ret));
		rmdir(cg->dir);
		free(cg);
		return ret;
	}
	*out = cg;
	return 0;
}

void rp_cgroup_leave(struct rp_cgroup *cg)
{
	char path[PATH_MAX + 64], buf[32];
	int ret;

	if (!cg)
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->home);
	snprintf(buf, sizeof(buf), "%ld", (long)getpid());
	if ((ret = write_file(path, buf)))
		fstap_warn("cannot move back to cgroup '%s': %s", cg->home, strerror(-ret));
	if (rmdir(cg->dir))
		fstap_warn("cannot remove cgroup '%s': %s", cg->dir, strerror(errno));
	free(cg);
}
