/*
 * device.c: the block device under a run of `fstap compare`: attaching an
 * image to a loop device (with direct I/O where the image's file system
 * allows it, so that the image's pages do not sit in the host's page cache
 * as well), and what a result depends on, read from the kernel: the loop
 * device's direct-I/O state, the rotational flag and I/O scheduler of its
 * queue, the mount options in force (/proc/self/mountinfo), the mkfs
 * version, and the device's I/O counters (/sys/dev/block/MAJ:MIN/stat)
 * around the replay.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "compare/compare.h"
#include "fstap/util.h"

/* The first line of path (without its newline) into buf; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	buf[0] = '\0';
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Runs losetup --find --show [--direct-io=on] image; what it printed into dev. */
static int losetup(const char *image, bool dio, const char *log, const char *workdir,
		   char *dev, size_t dlen, char *reason, size_t rlen)
{
	char out[PATH_MAX], *argv[8];
	unsigned n = 0;
	FILE *f;
	int rc;

	snprintf(out, sizeof(out), "%s/losetup.out", workdir);
	argv[n++] = (char *)"losetup";
	argv[n++] = (char *)"--find";
	argv[n++] = (char *)"--show";
	argv[n++] = (char *)image;
	if (dio)
		argv[n++] = (char *)"--direct-io=on";
	argv[n] = NULL;
	rc = cmp_spawn(argv, log, out, reason, rlen);
	/* Even a killed losetup may have attached: read what it printed. */
	dev[0] = '\0';
	f = fopen(out, "re");
	if (f) {
		char line[64];

		if (fgets(line, sizeof(line), f) && !strncmp(line, "/dev/", 5)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(dev, dlen, "%s", line);
		}
		fclose(f);
	}
	unlink(out);
	if (!rc && !dev[0]) {
		snprintf(reason, rlen, "losetup printed no device");
		return -1;
	}
	return rc;
}

/* The sysfs directory of block device dev (/sys/dev/block/MAJ:MIN), from its node. */
static bool sysfs_dir(const char *dev, char *buf, size_t len)
{
	struct stat st;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return false;
	snprintf(buf, len, "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	return access(buf, F_OK) == 0;
}

/* The loop device's direct-I/O state: 1, 0, or -1 when it does not say. */
static int loop_dio(const char *dev)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], v[16];

	if (!sysfs_dir(dev, dir, sizeof(dir)))
		return -1;
	snprintf(path, sizeof(path), "%s/loop/dio", dir);
	if (!read_line(path, v, sizeof(v)))
		return -1;
	return v[0] == '1';
}

int cmp_loop_attach(const char *image, const char *log, const char *workdir,
		    struct cmp_loop *out, char *reason, size_t rlen)
{
	char why[256];

	memset(out, 0, sizeof(*out));
	if (!losetup(image, true, log, workdir, out->dev, sizeof(out->dev), why, sizeof(why))) {
		out->direct_io = loop_dio(out->dev) == 1;
		if (!out->direct_io)
			snprintf(out->note, sizeof(out->note), "the loop device does buffered I/O "
				 "(the image's file system does not support direct I/O)");
		return 0;
	}
	if (out->dev[0]) {	/* attached, then failed or interrupted */
		snprintf(reason, rlen, "%s", why);
		return -1;
	}
	if (cmp_interrupted) {
		snprintf(reason, rlen, "%s", why);
		return -1;
	}
	/* The image's file system refuses O_DIRECT (ramfs, some FUSE file systems). */
	snprintf(out->note, sizeof(out->note), "the loop device does buffered I/O (losetup "
		 "--direct-io=on failed: %.150s)", why);
	return losetup(image, false, log, workdir, out->dev, sizeof(out->dev), reason, rlen);
}

/* ---- what a run depends on ---------------------------------------------- */

/* Undoes mountinfo's octal escapes (\040 for a blank) in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* True when mount point mp holds path (mp is path or one of its parents). */
static bool holds(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (!strcmp(mp, "/"))
		return true;
	return !strncmp(mp, path, n) && (path[n] == '/' || path[n] == '\0');
}

/*
 * The mount options in force where path is mounted, from mountinfo: the
 * mount point's own (rw,relatime) and the file system's (the super block's).
 */
static void mount_options(const char *path, json_t *o)
{
	char real[PATH_MAX], line[8192], best_mnt[PATH_MAX] = "", *mnt_opts = NULL, *fs_opts = NULL;
	FILE *f;

	if (!realpath(path, real) || !(f = fopen("/proc/self/mountinfo", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *fld[6], *sep = strstr(line, " - "), *fs, *src, *sup;
		unsigned i;

		if (!sep)
			continue;
		*sep = '\0';
		for (i = 0; i < 6; i++)
			if (!(fld[i] = strtok_r(i ? NULL : line, " ", &save)))
				break;
		fs = strtok_r(sep + 3, " ", &save);
		src = fs ? strtok_r(NULL, " ", &save) : NULL;
		sup = src ? strtok_r(NULL, " \n", &save) : NULL;
		if (i < 6 || !sup)
			continue;
		unescape(fld[4]);
		/* The longest mount point that holds path; the last one mounted there. */
		if (!holds(fld[4], real) || strlen(fld[4]) < strlen(best_mnt))
			continue;
		snprintf(best_mnt, sizeof(best_mnt), "%s", fld[4]);
		free(mnt_opts);
		free(fs_opts);
		mnt_opts = strdup(fld[5]);
		fs_opts = strdup(sup);
	}
	fclose(f);
	if (mnt_opts && fs_opts) {
		json_object_set_new(o, "mount_options", json_string(mnt_opts));
		json_object_set_new(o, "fs_options", json_string(fs_opts));
	}
	free(mnt_opts);
	free(fs_opts);
}

/* The first line of path that is not cmp_spawn's own ("$ command", "# reason"). */
static void first_output_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[256];

	while (f && !buf[0] && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && strncmp(line, "$ ", 2) && strncmp(line, "# ", 2))
			snprintf(buf, len, "%s", line);
	}
	if (f)
		fclose(f);
}

/* mkfs.FSTYPE's version line ("mke2fs 1.47.0 (5-Feb-2023)"), asked once per type. */
static const char *mkfs_version(const char *fstype, const char *workdir)
{
	static struct {
		char fstype[32];
		char version[256];
	} cache[16];
	static unsigned ncache;
	char mkfs[64], out[PATH_MAX], log[PATH_MAX], reason[256], *argv[3];
	unsigned i;

	for (i = 0; i < ncache; i++)
		if (!strcmp(cache[i].fstype, fstype))
			return cache[i].version;
	if (ncache == ARRAY_SIZE(cache))
		return "";
	i = ncache++;
	snprintf(cache[i].fstype, sizeof(cache[i].fstype), "%s", fstype);
	snprintf(mkfs, sizeof(mkfs), "mkfs.%s", fstype);
	snprintf(out, sizeof(out), "%s/mkfs-version.out", workdir);
	snprintf(log, sizeof(log), "%s/mkfs-version.log", workdir);
	argv[0] = mkfs;
	argv[1] = (char *)"-V";
	argv[2] = NULL;
	/* mkfs.xfs and mkfs.btrfs say it on stdout, mke2fs on stderr */
	if (!cmp_spawn(argv, log, out, reason, sizeof(reason))) {
		first_output_line(out, cache[i].version, sizeof(cache[i].version));
		if (!cache[i].version[0])
			first_output_line(log, cache[i].version, sizeof(cache[i].version));
	}
	unlink(out);
	unlink(log);
	return cache[i].version;
}

/* The queue of a device (a partition's is its disk's): rotational and scheduler. */
static void queue_info(const char *dir, json_t *o)
{
	char path[PATH_MAX + 32], v[256], *open_b, *close_b;

	snprintf(path, sizeof(path), "%s/queue/rotational", dir);
	if (!read_line(path, v, sizeof(v))) {
		snprintf(path, sizeof(path), "%s/../queue/rotational", dir);
		if (!read_line(path, v, sizeof(v)))
			return;
	}
	json_object_set_new(o, "rotational", json_boolean(v[0] == '1'));
	*strrchr(path, '/') = '\0';
	strcat(path, "/scheduler");
	if (!read_line(path, v, sizeof(v)))
		return;
	/* "[none] mq-deadline kyber": the one in force is bracketed */
	open_b = strchr(v, '[');
	close_b = open_b ? strchr(open_b, ']') : NULL;
	if (close_b) {
		*close_b = '\0';
		json_object_set_new(o, "scheduler", json_string(open_b + 1));
	} else {
		json_object_set_new(o, "scheduler", json_string(v));
	}
}

json_t *cmp_device_info(const char *dev, const char *mnt, const char *fstype,
			const char *workdir)
{
	json_t *o = json_object();
	char dir[PATH_MAX];
	int dio;

	if (dev) {
		json_object_set_new(o, "device", json_string(dev));
		dio = loop_dio(dev);
		json_object_set_new(o, "direct_io", dio < 0 ? json_null() : json_boolean(dio));
		if (sysfs_dir(dev, dir, sizeof(dir)))
			queue_info(dir, o);
	}
	mount_options(mnt, o);
	if (fstype)
		json_object_set_new(o, "mkfs_version", json_string(mkfs_version(fstype, workdir)));
	return o;
}

/* ---- I/O counters ------------------------------------------------------- */

int cmp_blkstat_read(const char *dev, struct cmp_blkstat *s)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], line[512];
	unsigned long long v[CMP_BLKSTAT_N] = { 0 };
	int n;

	memset(s, 0, sizeof(*s));
	if (!dev || !sysfs_dir(dev, dir, sizeof(dir)))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/stat", dir);
	if (!read_line(path, line, sizeof(line)))
		return -errno;
	n = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		   "%llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
		   &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15], &v[16]);
	if (n < 11)
		return -EINVAL;
	for (n = 0; n < CMP_BLKSTAT_N; n++)
		s->v[n] = v[n];
	s->ok = true;
	return 0;
}

json_t *cmp_blkstat_delta_json(const struct cmp_blkstat *a, const struct cmp_blkstat *b)
{
	/* the fields of /sys/block/DEV/stat (Documentation/block/stat.rst) */
	static const struct {
		const char *key;
		unsigned idx;
	} keys[] = {
		{ "reads", 0 }, { "read_merges", 1 }, { "read_sectors", 2 }, { "read_ms", 3 },
		{ "writes", 4 }, { "write_merges", 5 }, { "write_sectors", 6 }, { "write_ms", 7 },
		{ "io_ms", 9 }, { "queue_ms", 10 }, { "flushes", 15 }, { "flush_ms", 16 },
	};
	json_t *o;
	unsigned i;

	if (!a->ok || !b->ok)
		return json_null();
	o = json_object();
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		unsigned k = keys[i].idx;

		json_object_set_new(o, keys[i].key, json_integer((json_int_t)(b->v[k] >= a->v[k] ?
							b->v[k] - a->v[k] : 0)));
	}
	return o;
}
