/*
 * preflight.c: what `fstap compare` checks before it touches anything:
 * root, a trace that is complete (or --allow-incomplete) and holds an
 * operation, what it needs on disk, the mkfs tools, a --device that is
 * free, the targets, room in --image-dir; and the machine and options
 * objects of results.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "compare/compare.h"
#include "fstap/log.h"
#include "fstap/ops.h"
#include "fstap/trace.h"

/* The one-line error for a trace without its footer (torn by a crash, cut by hand). */
static int refuse_incomplete(const struct fstap_reader *r, const char *path)
{
	const struct fstap_cut *c = fstap_reader_cut(r);

	if (c->cut)
		return fstap_error(-EINVAL, "'%s' is incomplete (no footer: torn or cut): only "
				   "the first %.1f s of %.1f s, %llu of %llu records, are known to "
				   "be complete; give --allow-incomplete to compare that part", path,
				   (double)c->cutoff_ns / 1e9, (double)c->end_ns / 1e9,
				   (unsigned long long)c->records,
				   (unsigned long long)c->records_read);
	return fstap_error(-EINVAL, "'%s' is incomplete (%s); give --allow-incomplete to "
			   "compare it", path, fstap_reader_errmsg(r));
}

/* What the trace needs on disk: the initial files and what the workload adds. */
static int scan_trace(const char *path, bool allow_incomplete, struct cmp_trace_size *s,
		      uint64_t *file_size)
{
	struct fstap_reader *r = NULL;
	struct fstap_rec rec;
	struct stat st;
	char *msg = NULL, line[256];
	uint64_t nops = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = fstap_reader_open(&r, path, &msg);
	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return ret;
	}
	while ((ret = fstap_reader_next(r, &rec)) > 0) {
		nops += !fstap_op_is_meta(rec.op);
		switch (rec.op) {
		case FSTAP_OP_STATE_INODE:
			s->inodes++;
			if (S_ISREG(rec.mode))
				s->initial_bytes += rec.size;
			break;
		case FSTAP_OP_WRITE:
		case FSTAP_OP_COPY_FILE_RANGE:
			if (rec.result > 0)
				s->written_bytes += (uint64_t)rec.result;
			break;
		case FSTAP_OP_FALLOCATE:
			if (rec.result >= 0)
				s->written_bytes += rec.size;
			break;
		case FSTAP_OP_CREATE:
		case FSTAP_OP_MKDIR:
		case FSTAP_OP_MKNOD:
		case FSTAP_OP_SYMLINK:
			if (rec.result >= 0)
				s->inodes++;
			break;
		}
	}
	if (ret < 0)
		fstap_error(ret, "%s: %s", path, fstap_reader_errmsg(r));
	else if (!allow_incomplete && !fstap_reader_complete(r))
		ret = refuse_incomplete(r, path);
	else if (!nops)
		ret = fstap_error(-EINVAL, "'%s' holds no operation: nothing to compare", path);
	else if (fstap_reader_notice(r, "compared", line, sizeof(line)))
		fstap_warn("%s", line);
	fstap_reader_close(r);
	*file_size = stat(path, &st) ? 0 : (uint64_t)st.st_size;
	return ret < 0 ? ret : 0;
}

/* Runs argv quietly; its exit status, or -1 if it could not run. */
static int quiet_status(char *const argv[])
{
	char reason[256], *prog = cmp_which(argv[0]);
	int ret;

	if (!prog)
		return -1;
	free(prog);
	ret = cmp_spawn(argv, "/dev/null", "/dev/null", reason, sizeof(reason));
	if (!ret)
		return 0;
	if (strstr(reason, "(exit "))
		return atoi(strstr(reason, "(exit ") + 6);
	return -1;
}

static int check_device(const char *dev, bool force)
{
	char *findmnt[] = { (char *)"findmnt", (char *)"-rn", (char *)"-S", (char *)dev, NULL };
	char *blkid[] = { (char *)"blkid", (char *)"-p", (char *)dev, NULL };
	struct stat st;
	int st_b;

	if (stat(dev, &st))
		return fstap_error(-errno, "device '%s': %s", dev, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return fstap_error(-ENOTBLK, "'%s' is not a block device", dev);
	if (quiet_status(findmnt) == 0)
		return fstap_error(-EBUSY, "device '%s' is mounted; unmount it first (compare "
				   "makes new file systems on it)", dev);
	st_b = quiet_status(blkid);
	if (st_b < 0)
		return fstap_error(-ENOENT, "cannot run blkid to check '%s' (install util-linux)",
				   dev);
	if (st_b == 0 && !force)
		return fstap_error(-EEXIST, "device '%s' holds a file system or partition table "
				   "(blkid -p found a signature); compare would overwrite it: "
				   "give --force to do so", dev);
	return 0;
}

static int check_tools(const struct cmp_config *o)
{
	static const char *const base[][2] = { { "losetup", "mount" }, { "mount", "mount" } };
	unsigned i, j;

	for (i = 0; i < o->ncand; i++) {
		const struct cmp_candidate *c = &o->cand[i];
		char mkfs[64], *p;

		if (c->kind == CMP_TARGET)
			continue;
		for (j = 0; j < i && (o->cand[j].kind == CMP_TARGET ||
				      strcmp(o->cand[j].fstype, c->fstype)); j++)
			;
		if (j < i)
			continue;
		snprintf(mkfs, sizeof(mkfs), "mkfs.%s", c->fstype);
		p = cmp_which(mkfs);
		if (!p) {
			const char *pkg = cmp_mkfs_package(c->fstype);

			if (pkg)
				return fstap_error(-ENOENT, "%s not found: install the Debian package "
						   "'%s' (apt-get install %s)", mkfs, pkg, pkg);
			return fstap_error(-ENOENT, "unknown file system type '%s': %s not found "
					   "(fstap knows ext2, ext3, ext4, xfs, btrfs, f2fs, vfat)",
					   c->fstype, mkfs);
		}
		free(p);
		for (j = 0; j < 2; j++) {
			p = cmp_which(base[j][0]);
			if (!p)
				return fstap_error(-ENOENT, "%s not found: install the Debian "
						   "package '%s'", base[j][0], base[j][1]);
			free(p);
		}
	}
	return 0;
}

json_t *cmp_machine_json(void)
{
	json_t *m = json_object();
	struct utsname u;
	char line[512], when[32];
	long mem_kb = 0;
	time_t now = time(NULL);
	FILE *f;

	if (!uname(&u)) {
		json_object_set_new(m, "hostname", json_string(u.nodename));
		json_object_set_new(m, "kernel", json_string(u.release));
		json_object_set_new(m, "arch", json_string(u.machine));
	}
	json_object_set_new(m, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			char *v = strchr(line, ':') + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			json_object_set_new(m, "cpu", json_string(v));
			break;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/meminfo", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %ld kB", &mem_kb) == 1)
			break;
	if (f)
		fclose(f);
	if (mem_kb)
		json_object_set_new(m, "mem_bytes", json_integer((json_int_t)mem_kb * 1024));
	f = fopen("/proc/loadavg", "re");
	if (f) {
		double l[3];

		if (fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
			json_object_set_new(m, "loadavg", json_pack("[f,f,f]", l[0], l[1], l[2]));
		fclose(f);
	}
	json_object_set_new(m, "fstap_version", json_string(PACKAGE_VERSION));
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	json_object_set_new(m, "date", json_string(when));
	return m;
}

json_t *cmp_options_json(const struct cmp_config *o, const struct cmp_trace_size *s)
{
	json_t *j = json_object(), *v = json_array(), *ra = json_array(), *ts = json_object();
	json_t *sizes = json_object();
	unsigned i;

	json_object_set_new(j, "runs", o->runs_auto ? json_string("auto")
						     : json_integer((json_int_t)o->runs));
	if (o->runs_auto) {
		json_object_set_new(j, "max_runs", json_integer((json_int_t)o->max_runs));
		json_object_set_new(j, "time_budget_s", o->time_budget > 0 ?
				    json_real(o->time_budget) : json_null());
	}
	json_object_set_new(j, "clone", json_integer((json_int_t)o->clone));
	json_object_set_new(j, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(j, "max_divergence", json_real(o->max_divergence));
	for (i = 0; i < o->nvar; i++)
		json_array_append_new(v, json_string(o->variants[i]));
	json_object_set_new(j, "variants", v);
	for (i = 0; i < o->nreplay; i++)
		json_array_append_new(ra, json_string(o->replay_args[i]));
	json_object_set_new(j, "replay_args", ra);
	json_object_set_new(j, "image_dir", json_string(o->image_dir));
	json_object_set_new(j, "image_size", o->image_size ? json_integer((json_int_t)o->image_size)
							   : json_null());
	json_object_set_new(j, "device", o->device ? json_string(o->device) : json_null());
	json_object_set_new(j, "disk", o->disk ? json_string(o->disk) : json_null());
	json_object_set_new(j, "log_disk", o->log_disk ? json_string(o->log_disk) : json_null());
	for (i = 0; i < o->ncand; i++)
		if (o->cand[i].kind == CMP_IMAGE)
			json_object_set_new(sizes, o->cand[i].name, json_integer((json_int_t)(
				o->image_size ? o->image_size : cmp_image_size(s, o->cand[i].fstype))));
	json_object_set_new(j, "image_bytes", sizes);
	json_object_set_new(ts, "initial_bytes", json_integer((json_int_t)s->initial_bytes));
	json_object_set_new(ts, "written_bytes", json_integer((json_int_t)s->written_bytes));
	json_object_set_new(ts, "inodes", json_integer((json_int_t)s->inodes));
	json_object_set_new(j, "trace_size", ts);
	return j;
}

/* Targets are directories; --image-dir has room for the largest image and the variants. */
static int check_space(const struct cmp_config *o, const struct cmp_trace_size *size,
		       uint64_t trace_bytes)
{
	uint64_t need = 0;
	struct statvfs sv;
	char sz1[32], sz2[32];
	unsigned i;

	for (i = 0; i < o->ncand; i++) {
		struct stat st;
		uint64_t s;

		if (o->cand[i].kind == CMP_TARGET) {
			if (stat(o->cand[i].dir, &st) || !S_ISDIR(st.st_mode))
				return fstap_error(-ENOTDIR, "target '%s': '%s' is not a directory",
						   o->cand[i].name, o->cand[i].dir);
			continue;
		}
		s = o->image_size ? o->image_size : cmp_image_size(size, o->cand[i].fstype);
		if (o->cand[i].kind == CMP_IMAGE && s > need)
			need = s;
	}
	/* One image at a time (sparse, but it may fill), plus the variant traces. */
	need += trace_bytes * o->nvar + (16 << 20);
	if (statvfs(o->image_dir, &sv))
		return fstap_error(-errno, "image dir '%s': %s", o->image_dir, strerror(errno));
	/* A file system that reports no size (ramfs) cannot be checked. */
	if (sv.f_blocks && (uint64_t)sv.f_bavail * sv.f_frsize < need)
		return fstap_error(-ENOSPC, "image dir '%s' has %s free, compare needs %s (the "
				   "largest image plus the trace variants); choose another "
				   "--image-dir or a smaller --image-size", o->image_dir,
				   cmp_fmt_bytes((uint64_t)sv.f_bavail * sv.f_frsize, sz1,
						 sizeof(sz1)),
				   cmp_fmt_bytes(need, sz2, sizeof(sz2)));
	return 0;
}

int cmp_preflight(const struct cmp_config *o, struct cmp_trace_size *size)
{
	uint64_t trace_bytes;

	if (geteuid() != 0)
		return fstap_error(-EPERM, "fstap compare must run as root: it makes and mounts "
				   "file systems and drops the page cache");
	if (scan_trace(o->trace, o->allow_incomplete, size, &trace_bytes) || check_tools(o))
		return -EINVAL;
	size->copies = (unsigned)o->clone;
	if (o->device && check_device(o->device, o->force))
		return -EINVAL;
	return check_space(o, size, trace_bytes);
}
