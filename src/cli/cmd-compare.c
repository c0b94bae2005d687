/*
 * cmd-compare.c: `fstap compare [options] TRACE`: runs a trace on several
 * candidates (loop images it makes, a block device, mounted directories),
 * each with each variant of the trace, and prints the table; writes
 * results.json, results.csv and chart.svg with --out. The options, the
 * checks made before anything is touched, and the order of the rows are
 * here; the lifecycle and the renderers are src/compare/ (libcompare.a).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cli/cmd.h"
#include "compare/compare.h"
#include "disk/disk.h"
#include "fstap/log.h"
#include "fstap/ops.h"
#include "fstap/output.h"
#include "fstap/trace.h"
#include "../../replay/replay.h"

static const char usage[] =
	"usage: fstap compare [options] TRACE\n"
	"\n"
	"Run TRACE on several candidate file systems and print a table of the\n"
	"elapsed times (median, min and max over the runs; lower is better),\n"
	"ops/s, the ratio to the best and the latency of the operations that\n"
	"dominate the time. Each run of each candidate gets a fresh file system:\n"
	"mkfs, mount, 'fstap prepare', sync and drop caches, 'fstap replay',\n"
	"unmount. Must run as root.\n"
	"\n"
	"Candidates (by default ext4, xfs and btrfs loop images):\n"
	"  --fs=LIST            file system types as loop images, e.g. ext4,xfs,btrfs\n"
	"  --candidate=NAME:FSTYPE[:MKFS_OPTS[:MOUNT_OPTS]]\n"
	"                       a loop image with mkfs and mount options, e.g.\n"
	"                       'ext4-i128:ext4:-I 128' or 'xfs-na:xfs::noatime'\n"
	"                       (repeatable)\n"
	"  --target=NAME=DIR    a directory already mounted: each run prepares a\n"
	"                       fresh subdirectory of DIR and removes it (repeatable)\n"
	"  --device=DEV         make the file systems on block device DEV instead of\n"
	"                       loop images; DEV is overwritten\n"
	"  --force              use DEV even if it holds a file system\n"
	"  --image-dir=DIR      where the loop images go (default /var/tmp)\n"
	"  --image-size=SIZE    size of each image (default: from the trace's initial\n"
	"                       state and growth, at least 300M for xfs, 128M for btrfs)\n"
	"  --disk=MODEL[,KEY=VALUE...]\n"
	"                       serve each image with 'fstap disk --model=MODEL' (hdd,\n"
	"                       ssd, raid5, none; docs/disk.md) and attach the loop\n"
	"                       device to it: the file systems run on a modeled\n"
	"                       device; the table and results.json add its figures\n"
	"  --log-disk=MODEL[,KEY=VALUE...]\n"
	"                       the model of the second image that the word @log in\n"
	"                       a candidate's mkfs or mount options stands for (its\n"
	"                       device; default: --disk's model, or a plain image)\n"
	"\n"
	"What runs:\n"
	"  --variant=LIST       trace variants: recorded (the default), readdir,\n"
	"                       name, inode, random (made with 'fstap reorder')\n"
	"  --runs=N             runs per candidate and variant (default 3); the runs\n"
	"                       of all rows are interleaved in a shuffled order\n"
	"  --runs=auto          runs until every verdict is decided: first the runs\n"
	"                       that can decide, then one more per row per round\n"
	"  --max-runs=N         the cap of --runs=auto (default 10)\n"
	"  --seed=N             the seed of that order (default: from the clock;\n"
	"                       printed, so that an order can be repeated)\n"
	"  --max-divergence=PCT a row whose run diverged in more than PCT%% of its\n"
	"                       operations is 'diverged' and not ranked (default 0.1)\n"
	"  --allow-incomplete   compare a trace without its footer (torn or cut:\n"
	"                       'fstap info' says) on its complete part; refused\n"
	"                       without it\n"
	"  --order=MODE         replay order: strict, thread (default), resource, none\n"
	"  --pace=PACE          replay pacing: afap (default), orig, N%\n"
	"  --cache-limit=SIZE   replay in a memory cgroup limited to SIZE\n"
	"\n"
	"Output:\n"
	"  --out=DIR            write DIR/results.json, results.csv, chart.svg,\n"
	"                       summary.md (environment, command line, table and\n"
	"                       conclusion in Markdown),\n"
	"                       the log of every step and each run's divergence\n"
	"                       log (DIR/logs/, named in the table); each result\n"
	"                       file is renamed into place when complete, and a DIR\n"
	"                       whose result file is the trace is refused\n"
	"  --no-progress        no progress line on a terminal\n"
	"  -h, --help           this help\n"
	"\n"
	"Verdicts: each row against the best one (the lowest median): best, same,\n"
	"slower (with the ratio's 95%% interval), inconclusive (too few runs, with\n"
	"how many could tell), diverged, failed; exact Mann-Whitney tests, Holm-\n"
	"corrected. docs/compare.md gives the method.\n"
	"\n"
	"Exit status: 0 when every candidate ran, 1 when one failed (it is in the\n"
	"table as FAILED with its reason; the others still ran) or on an error,\n"
	"2 on a usage error. docs/compare.md explains the table.\n";

#define MAX_CANDS 64
#define MAX_VARIANTS 5

struct opts {
	struct cmp_candidate cand[MAX_CANDS];
	unsigned ncand;
	const char *variants[MAX_VARIANTS];
	unsigned nvar;
	const char *image_dir, *device, *out, *trace, *disk, *log_disk;
	unsigned long long image_size, cache_limit;
	unsigned long runs, seed, max_runs;
	double max_divergence;	/* a share of the operations */
	bool force, progress, seeded, runs_auto, allow_incomplete;
	char *replay_args[8];
	unsigned nreplay;
};

static int add_cand(struct opts *o, struct cmp_candidate *c)
{
	unsigned i;

	for (i = 0; i < o->ncand; i++)
		if (!strcmp(o->cand[i].name, c->name)) {
			cmd_usage_error("compare", "two candidates are called '%s'; name them "
					"apart with --candidate=NAME:...", c->name);
			cmp_candidate_free(c);
			return -EINVAL;
		}
	if (o->ncand == MAX_CANDS) {
		cmd_usage_error("compare", "at most %d candidates", MAX_CANDS);
		cmp_candidate_free(c);
		return -EINVAL;
	}
	o->cand[o->ncand++] = *c;
	return 0;
}

static int add_fs_list(struct opts *o, const char *list)
{
	char *copy = strdup(list), *save = NULL, *t, err[256];
	struct cmp_candidate c;
	int ret = 0;

	if (!copy)
		fstap_die("out of memory");
	if (!*list)
		ret = cmd_usage_error("compare", "--fs needs a list, e.g. ext4,xfs");
	else if (*list == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		ret = cmd_usage_error("compare", "--fs: an empty item in '%s'", list);
	for (t = strtok_r(copy, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		if (cmp_candidate_fs(t, &c, err, sizeof(err)))
			ret = cmd_usage_error("compare", "--fs: %s", err);
		else if (add_cand(o, &c))
			ret = 2;
	}
	free(copy);
	return ret;
}

static int add_variants(struct opts *o, const char *list)
{
	static const char *const known[] = { "recorded", "readdir", "name", "inode", "random" };
	const char *p = list;
	unsigned i, k;

	o->nvar = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		for (k = 0; k < 5 && (strlen(known[k]) != len || strncmp(known[k], p, len)); k++)
			;
		if (k == 5)
			return cmd_usage_error("compare", "--variant: '%.*s' is not one of recorded, "
					       "readdir, name, inode, random", (int)len, p);
		for (i = 0; i < o->nvar; i++)
			if (o->variants[i] == known[k])
				return cmd_usage_error("compare", "--variant: '%s' given twice",
						       known[k]);
		o->variants[o->nvar++] = known[k];
		p += len;
		if (*p == ',')
			p++;
	}
	if (!o->nvar)
		return cmd_usage_error("compare", "--variant needs a list, e.g. recorded,name");
	return 0;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fstap_die("out of memory");
	va_end(ap);
	return s;
}

/* --disk models the loop images: not a --device, not a --target. */
static int check_disk(const struct opts *o)
{
	unsigned i;

	if (!o->disk)
		return 0;
	if (o->device)
		return cmd_usage_error("compare", "--disk puts the loop images on a modeled "
				       "device; it does not go with --device (a real one)");
	for (i = 0; i < o->ncand; i++)
		if (o->cand[i].kind == CMP_TARGET)
			return cmd_usage_error("compare", "--disk puts the loop images on a modeled "
					       "device; it does not go with --target ('%s' is a "
					       "mounted directory)", o->cand[i].name);
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_FS = 256, OPT_CAND, OPT_TARGET, OPT_DEVICE, OPT_FORCE, OPT_IMGDIR, OPT_IMGSIZE,
	       OPT_VARIANT, OPT_RUNS, OPT_ORDER, OPT_PACE, OPT_LIMIT, OPT_OUT, OPT_NOPROG,
	       OPT_SEED, OPT_MAXDIV, OPT_MAXRUNS, OPT_DISK, OPT_LOGDISK, OPT_INCOMPLETE };
	static const struct option longopts[] = {
		{ "fs", required_argument, NULL, OPT_FS },
		{ "candidate", required_argument, NULL, OPT_CAND },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "image-dir", required_argument, NULL, OPT_IMGDIR },
		{ "image-size", required_argument, NULL, OPT_IMGSIZE },
		{ "disk", required_argument, NULL, OPT_DISK },
		{ "log-disk", required_argument, NULL, OPT_LOGDISK },
		{ "variant", required_argument, NULL, OPT_VARIANT },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "max-runs", required_argument, NULL, OPT_MAXRUNS },
		{ "max-divergence", required_argument, NULL, OPT_MAXDIV },
		{ "allow-incomplete", no_argument, NULL, OPT_INCOMPLETE },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "pace", required_argument, NULL, OPT_PACE },
		{ "cache-limit", required_argument, NULL, OPT_LIMIT },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "no-progress", no_argument, NULL, OPT_NOPROG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cmp_candidate c;
	enum rp_order order;
	char err[256], *end;
	unsigned pace;
	int ch, ret;

	o->runs = 3;
	o->max_runs = 0;
	o->max_divergence = CMP_MAX_DIVERGENCE;
	o->image_dir = "/var/tmp";
	o->progress = true;
	/* ":": getopt prints nothing, so that the one message is compare's own */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_FS:
			if ((ret = add_fs_list(o, optarg)))
				return ret;
			break;
		case OPT_CAND:
			if (cmp_candidate_parse(optarg, &c, err, sizeof(err)))
				return cmd_usage_error("compare", "--candidate: %s", err);
			if (add_cand(o, &c))
				return 2;
			break;
		case OPT_TARGET:
			if (cmp_target_parse(optarg, &c, err, sizeof(err)))
				return cmd_usage_error("compare", "--target: %s", err);
			if (add_cand(o, &c))
				return 2;
			break;
		case OPT_DEVICE:
			o->device = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_IMGDIR:
			o->image_dir = optarg;
			break;
		case OPT_IMGSIZE:
			if (cmd_parse_size(optarg, &o->image_size) || o->image_size < (1 << 20))
				return cmd_usage_error("compare", "--image-size must be a size of at "
						       "least 1M (e.g. 512M, 2G), not '%s'", optarg);
			break;
		case OPT_DISK:
		case OPT_LOGDISK: {
			struct disk_params dp;

			if (disk_params_parse(optarg, &dp, err, sizeof(err)))
				return cmd_usage_error("compare", "--%s: %s", ch == OPT_DISK ? "disk"
						       : "log-disk", err);
			*(ch == OPT_DISK ? &o->disk : &o->log_disk) = optarg;
			break;
		}
		case OPT_VARIANT:
			if ((ret = add_variants(o, optarg)))
				return ret;
			break;
		case OPT_RUNS:
			errno = 0;
			if (!strcmp(optarg, "auto")) {
				o->runs_auto = true;
				break;
			}
			o->runs = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || o->runs < 1 || o->runs > 1000)
				return cmd_usage_error("compare", "--runs must be 1 to 1000 or auto, "
						       "not '%s'", optarg);
			break;
		case OPT_MAXRUNS:
			errno = 0;
			o->max_runs = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || o->max_runs < 2 || o->max_runs > 1000)
				return cmd_usage_error("compare", "--max-runs must be 2 to 1000, not '%s'",
						       optarg);
			break;
		case OPT_SEED:
			errno = 0;
			o->seed = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-')
				return cmd_usage_error("compare", "--seed must be a number, not '%s'",
						       optarg);
			o->seeded = true;
			break;
		case OPT_MAXDIV:
			errno = 0;
			o->max_divergence = strtod(optarg, &end) / 100;
			if (*end == '%')
				end++;
			if (errno || *end || !*optarg || !(o->max_divergence >= 0) ||
			    o->max_divergence > 1)
				return cmd_usage_error("compare", "--max-divergence must be a "
						       "percentage from 0 to 100, not '%s'", optarg);
			break;
		case OPT_ORDER:
			if (rp_order_parse(optarg, &order))
				return cmd_usage_error("compare", "--order must be strict, thread, "
						       "resource or none, not '%s'", optarg);
			o->replay_args[o->nreplay++] = xasprintf("--order=%s", optarg);
			break;
		case OPT_PACE:
			if (rp_pace_parse(optarg, &pace, NULL))
				return cmd_usage_error("compare", "--pace must be afap, orig or N%%, "
						       "not '%s'", optarg);
			o->replay_args[o->nreplay++] = xasprintf("--pace=%s", optarg);
			break;
		case OPT_LIMIT:
			if (cmd_parse_size(optarg, &o->cache_limit) || o->cache_limit < 4096)
				return cmd_usage_error("compare", "--cache-limit must be a size of at "
						       "least 4k (e.g. 512M), not '%s'", optarg);
			o->replay_args[o->nreplay++] = xasprintf("--cache-limit=%s", optarg);
			break;
		case OPT_OUT:
			o->out = optarg;
			break;
		case OPT_NOPROG:
			o->progress = false;
			break;
		case OPT_INCOMPLETE:
			o->allow_incomplete = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		case ':':
			return cmd_usage_error("compare", "option '%s' needs a value",
					       argv[optind - 1]);
		default:
			if (optopt)
				return cmd_usage_error("compare", "unknown option '-%c'", optopt);
			return cmd_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
		}
		if (o->nreplay >= 7)
			return cmd_usage_error("compare", "--order, --pace and --cache-limit: once each");
	}
	if (o->max_runs && !o->runs_auto)
		return cmd_usage_error("compare", "--max-runs only goes with --runs=auto");
	if (o->runs_auto && !o->max_runs)
		o->max_runs = 10;
	if (argc - optind != 1)
		return cmd_usage_error("compare", "expected one TRACE argument");
	o->trace = argv[optind];
	if (!o->ncand && (ret = add_fs_list(o, "ext4,xfs,btrfs")))
		return ret;
	if (!o->nvar)
		o->variants[o->nvar++] = "recorded";
	if (o->force && !o->device)
		return cmd_usage_error("compare", "--force only goes with --device");
	if ((ret = check_disk(o)))
		return ret;
	if (o->device) {
		unsigned i, nimg = 0;

		for (i = 0; i < o->ncand; i++)
			if (o->cand[i].kind == CMP_IMAGE) {
				o->cand[i].kind = CMP_DEVICE;
				nimg++;
			}
		if (!nimg)
			return cmd_usage_error("compare", "--device needs a --fs or --candidate");
		if (o->image_size)
			return cmd_usage_error("compare", "--image-size does not go with --device");
	}
	return 0;
}

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

static int check_tools(const struct opts *o)
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

static json_t *machine_json(void)
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

static json_t *options_json(const struct opts *o, const struct cmp_trace_size *s)
{
	json_t *j = json_object(), *v = json_array(), *ra = json_array(), *ts = json_object();
	json_t *sizes = json_object();
	unsigned i;

	json_object_set_new(j, "runs", o->runs_auto ? json_string("auto")
						     : json_integer((json_int_t)o->runs));
	if (o->runs_auto)
		json_object_set_new(j, "max_runs", json_integer((json_int_t)o->max_runs));
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

static const char *const result_files[] = { "results.json", "results.csv", "chart.svg",
					     "summary.md" };

/* Refuses an --out whose result files would replace the trace, before any run. */
static int check_out(const char *dir, const char *trace)
{
	const char *inputs[] = { trace, NULL };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(result_files) / sizeof(result_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, result_files[i]);
		if (fstap_output_check(path, inputs))
			return -EEXIST;
	}
	return 0;
}

struct result_file {
	const struct cmp_results *res;
	int (*fn)(FILE *, const struct cmp_results *);
};

static int result_fn(FILE *f, void *arg)
{
	const struct result_file *rf = arg;

	return rf->fn(f, rf->res);
}

/* Writes DIR/NAME with fn, through a temporary renamed into place. */
static int write_file(const char *dir, const char *name, const char *trace,
		      const struct cmp_results *res,
		      int (*fn)(FILE *, const struct cmp_results *))
{
	const char *inputs[] = { trace, NULL };
	struct result_file rf = { res, fn };
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fstap_output_write(path, inputs, result_fn, &rf);
}

static int json_fn(FILE *f, const struct cmp_results *res)
{
	json_t *j = cmp_results_json(res);
	int ret = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	json_decref(j);
	fputc('\n', f);
	return ret || ferror(f) ? -EIO : 0;
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* "fstap compare ARGS...", each argument quoted for a POSIX shell where it needs it. */
static char *command_line(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i;

	if (!f)
		fstap_die("out of memory");
	fputs("fstap compare", f);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *p;

		if (*a && !a[strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789-_=+:,./@%")]) {
			fprintf(f, " %s", a);
			continue;
		}
		fputs(" '", f);
		for (p = a; *p; p++)
			if (*p == '\'')
				fputs("'\\''", f);
			else
				fputc(*p, f);
		fputc('\'', f);
	}
	if (fclose(f))
		fstap_die("out of memory");
	return buf;
}

/* Makes the variant traces with `fstap reorder`; a failure fails that variant's rows. */
static void make_variants(const struct opts *o, const struct cmp_env *env,
			  char **vtrace, char **vfail)
{
	unsigned v;

	for (v = 0; v < o->nvar; v++) {
		char by[32], log[PATH_MAX], reason[256];
		char *argv[8];

		vtrace[v] = NULL;
		vfail[v] = NULL;
		if (!strcmp(o->variants[v], "recorded")) {
			vtrace[v] = strdup(o->trace);
			continue;
		}
		vtrace[v] = xasprintf("%s/%s.trace", env->workdir, o->variants[v]);
		snprintf(by, sizeof(by), "--by=%s", o->variants[v]);
		snprintf(log, sizeof(log), "%s/reorder-%s.log", env->logdir, o->variants[v]);
		argv[0] = (char *)env->self;
		argv[1] = (char *)"reorder";
		argv[2] = by;
		argv[3] = (char *)o->trace;
		argv[4] = (char *)"-o";
		argv[5] = vtrace[v];
		argv[6] = NULL;
		if (env->progress)
			fprintf(stderr, "\r\033[Kmaking the %s variant", o->variants[v]);
		if (cmp_spawn(argv, log, NULL, reason, sizeof(reason)))
			vfail[v] = xasprintf("%s", reason);
	}
	if (env->progress)
		fputs("\r\033[K", stderr);
}

/* The variant index of row (its trace in vtrace). */
static unsigned variant_of(const struct opts *o, const struct cmp_row *row)
{
	unsigned v;

	for (v = 0; v < o->nvar && o->variants[v] != row->variant; v++)
		;
	return v;
}

/*
 * One round: `runs` runs of every row that needs them, in a shuffled order
 * (seeded): the drift of the machine over time then favours no row. A row
 * that fails runs no more. done[] counts each row's runs so far.
 */
static void run_round(const struct opts *o, struct cmp_env *env, struct cmp_results *res,
		      char *const *vtrace, unsigned runs, unsigned long seed, unsigned *done,
		      unsigned runs_total)
{
	unsigned *order, i, total = res->nrows * runs;

	if (cmp_schedule(res->nrows, runs, seed, &order))
		fstap_die("out of memory");
	env->nrows = total;
	for (i = 0; i < total && !cmp_interrupted; i++) {
		struct cmp_row *row = &res->rows[order[i]];

		if (row->failed || row->verdict == CMP_V_DIVERGED)
			continue;
		env->row_no = i + 1;
		cmp_run_once(env, row, vtrace[variant_of(o, row)], ++done[order[i]], runs_total);
		if (row->failed && !cmp_interrupted)
			fstap_warn("candidate '%s' (%s) failed: %s", row->cand->name,
				   row->variant, row->reason);
	}
	free(order);
}

/*
 * Every run of every row: --runs=N in one shuffled round; --runs=auto
 * starts with the runs that can decide and adds a round of one run per
 * row while a verdict is inconclusive, up to --max-runs. A row cut short
 * by an interrupt says how far it got.
 */
static void run_all(const struct opts *o, struct cmp_env *env, struct cmp_results *res,
		    char *const *vtrace, char *const *vfail)
{
	unsigned *done = calloc(res->nrows, sizeof(*done)), i, runs = (unsigned)o->runs;
	unsigned round = 0;

	if (!done)
		fstap_die("out of memory");
	for (i = 0; i < res->nrows; i++) {
		unsigned v = variant_of(o, &res->rows[i]);

		if (vfail[v])
			cmp_row_fail(&res->rows[i], "no %s variant: %s", res->rows[i].variant,
				     vfail[v]);
	}
	if (o->runs_auto) {
		runs = cmp_runs_needed(res->nrows > 1 ? res->nrows - 1 : 1, CMP_ALPHA);
		if (runs < 3)
			runs = 3;
		if (runs > o->max_runs)
			runs = (unsigned)o->max_runs;
	}
	fstap_info("%u runs in a shuffled order, --seed=%lu", res->nrows * runs, o->seed);
	run_round(o, env, res, vtrace, runs, o->seed, done,
		  o->runs_auto ? (unsigned)o->max_runs : runs);
	res->runs = runs;
	while (o->runs_auto && !cmp_interrupted && res->runs < o->max_runs) {
		cmp_results_summarize(res);
		if (!cmp_results_undecided(res))
			break;
		round++;
		fstap_info("a verdict is inconclusive after %u runs per row: one more round",
			   res->runs);
		run_round(o, env, res, vtrace, 1, o->seed + round, done, (unsigned)o->max_runs);
		res->runs++;
	}
	for (i = 0; i < res->nrows && cmp_interrupted; i++) {
		struct cmp_row *row = &res->rows[i];

		if (!row->failed && !row->nruns)
			cmp_row_fail(row, "not run: interrupted");
		else if (!row->failed && row->nruns < res->runs)
			cmp_row_fail(row, "interrupted after %u of %u runs", row->nruns, res->runs);
	}
	free(done);
}

int cmd_compare(int argc, char **argv)
{
	struct opts o;
	struct cmp_env env;
	struct cmp_results res;
	struct cmp_trace_size size;
	struct statvfs sv;
	uint64_t trace_bytes, need = 0;
	char workdir[PATH_MAX], logdir[PATH_MAX + 8], self[PATH_MAX], sz1[32], sz2[32];
	char *vtrace[MAX_VARIANTS], *vfail[MAX_VARIANTS], *cmdline;
	unsigned i, v, nfailed = 0;
	ssize_t n;
	int ret, status = 0;

	memset(&o, 0, sizeof(o));
	memset(&env, 0, sizeof(env));
	memset(&res, 0, sizeof(res));
	cmdline = command_line(argc, argv);	/* before getopt reorders argv */
	ret = parse(argc, argv, &o);
	if (ret) {
		status = ret < 0 ? 0 : ret;
		goto out_opts;
	}
	if (o.out && check_out(o.out, o.trace)) {
		status = 1;
		goto out_opts;
	}
	if (geteuid() != 0) {
		fstap_error(-EPERM, "fstap compare must run as root: it makes and mounts file "
			    "systems and drops the page cache");
		status = 1;
		goto out_opts;
	}
	if (scan_trace(o.trace, o.allow_incomplete, &size, &trace_bytes) || check_tools(&o)) {
		status = 1;
		goto out_opts;
	}
	if (o.device && check_device(o.device, o.force)) {
		status = 1;
		goto out_opts;
	}
	for (i = 0; i < o.ncand; i++) {
		struct stat st;
		uint64_t s;

		if (o.cand[i].kind == CMP_TARGET) {
			if (stat(o.cand[i].dir, &st) || !S_ISDIR(st.st_mode)) {
				fstap_error(-ENOTDIR, "target '%s': '%s' is not a directory",
					    o.cand[i].name, o.cand[i].dir);
				status = 1;
				goto out_opts;
			}
			continue;
		}
		s = o.image_size ? o.image_size : cmp_image_size(&size, o.cand[i].fstype);
		if (o.cand[i].kind == CMP_IMAGE && s > need)
			need = s;
	}
	/* One image at a time (sparse, but it may fill), plus the variant traces. */
	need += trace_bytes * o.nvar + (16 << 20);
	if (statvfs(o.image_dir, &sv)) {
		fstap_error(-errno, "image dir '%s': %s", o.image_dir, strerror(errno));
		status = 1;
		goto out_opts;
	}
	/* A file system that reports no size (ramfs) cannot be checked. */
	if (sv.f_blocks && (uint64_t)sv.f_bavail * sv.f_frsize < need) {
		fstap_error(-ENOSPC, "image dir '%s' has %s free, compare needs %s (the largest "
			    "image plus the trace variants); choose another --image-dir or a "
			    "smaller --image-size", o.image_dir,
			    cmp_fmt_bytes((uint64_t)sv.f_bavail * sv.f_frsize, sz1, sizeof(sz1)),
			    cmp_fmt_bytes(need, sz2, sizeof(sz2)));
		status = 1;
		goto out_opts;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fstap_error(-errno, "cannot find the fstap binary (/proc/self/exe): %s",
			    strerror(errno));
		status = 1;
		goto out_opts;
	}
	self[n] = '\0';
	snprintf(workdir, sizeof(workdir), "%s/fstap-compare.XXXXXX", o.image_dir);
	if (!mkdtemp(workdir)) {
		fstap_error(-errno, "cannot create a directory in '%s': %s", o.image_dir,
			    strerror(errno));
		status = 1;
		goto out_opts;
	}
	if (o.out) {
		snprintf(logdir, sizeof(logdir), "%s/logs", o.out);
		if ((ret = mkdir_p(logdir))) {
			fstap_error(ret, "cannot create '%s': %s", logdir, strerror(-ret));
			status = 1;
			goto out_work;
		}
	} else {
		snprintf(logdir, sizeof(logdir), "%s/logs", workdir);
		mkdir(logdir, 0700);
	}

	env.self = self;
	env.workdir = workdir;
	env.logdir = logdir;
	env.image_size = o.image_size;
	env.size = size;
	env.device = o.device;
	env.disk = o.disk;
	env.log_disk = o.log_disk;
	env.replay_args = o.replay_args;
	env.progress = o.progress && fstap_verbosity >= 0 && isatty(STDERR_FILENO);

	if (!o.seeded)
		o.seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	res.trace = o.trace;
	res.runs = (unsigned)o.runs;
	res.shuffled = true;
	res.seed = o.seed;
	res.max_divergence = o.max_divergence;
	res.max_runs = o.runs_auto ? (unsigned)o.max_runs : 0;
	res.nrows = o.ncand * o.nvar;
	res.rows = calloc(res.nrows, sizeof(*res.rows));
	if (!res.rows)
		fstap_die("out of memory");
	res.options = options_json(&o, &size);
	res.machine = machine_json();
	res.logdir = o.out ? logdir : NULL;
	res.cmdline = cmdline;
	for (i = 0; i < o.ncand; i++)
		for (v = 0; v < o.nvar; v++) {
			res.rows[i * o.nvar + v].cand = &o.cand[i];
			res.rows[i * o.nvar + v].variant = o.variants[v];
		}

	cmp_signals_install();
	make_variants(&o, &env, vtrace, vfail);
	run_all(&o, &env, &res, vtrace, vfail);
	cmp_cleanup();
	cmp_signals_restore();

	cmp_results_summarize(&res);
	for (i = 0; i < res.nrows; i++)
		nfailed += res.rows[i].failed || !res.rows[i].nruns;
	if (cmp_render_table(stdout, &res) || fflush(stdout))
		status = 1;
	if (o.out) {
		if (write_file(o.out, result_files[0], o.trace, &res, json_fn) ||
		    write_file(o.out, result_files[1], o.trace, &res, cmp_render_csv) ||
		    write_file(o.out, result_files[2], o.trace, &res, cmp_render_svg) ||
		    write_file(o.out, result_files[3], o.trace, &res, cmp_render_summary))
			status = 1;
		else
			fstap_info("results in %s/: results.json, results.csv, chart.svg, summary.md",
				   o.out);
	}
	if (cmp_interrupted) {
		fstap_error(-EINTR, "interrupted; everything compare set up was undone");
		status = 1;
	} else if (nfailed) {
		status = 1;
	}

	for (i = 0; i < res.nrows; i++) {
		for (v = 0; v < res.rows[i].nruns; v++)
			cmp_run_free(&res.rows[i].runs[v]);
		free(res.rows[i].runs);
	}
	free(res.rows);
	json_decref(res.options);
	json_decref(res.machine);
	for (v = 0; v < o.nvar; v++) {
		free(vtrace[v]);
		free(vfail[v]);
	}
out_work:
	cmp_remove_tree(workdir);
out_opts:
	free(cmdline);
	for (i = 0; i < o.ncand; i++)
		cmp_candidate_free(&o.cand[i]);
	for (i = 0; i < o.nreplay; i++)
		free(o.replay_args[i]);
	cmp_interrupted = 0;
	return status;
}
