/*
 * cmd-compare.c: `fstap compare [options] TRACE`: runs a trace on several
 * candidates (loop images it makes, a block device, mounted directories),
 * each with each variant of the trace, and prints the table; writes
 * results.json, results.csv, chart.svg and summary.md with --out. Only the
 * options are here: the checks, the runs and the output are cmp_main()
 * (src/compare/session.c, preflight.c; libcompare.a).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "compare/compare.h"
#include "disk/disk.h"
#include "fstap/log.h"
#include "fstap/util.h"
#include "replay/replay.h"

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
	"                       name, inode, random (made with 'fstap reorder'),\n"
	"                       target-readdir (the candidate's own readdir order,\n"
	"                       made for each run after prepare)\n"
	"  --runs=N             runs per candidate and variant (default 3); the runs\n"
	"                       of all rows are interleaved in a shuffled order\n"
	"  --runs=auto          runs until every verdict is decided: first the runs\n"
	"                       that can decide, then one more per row per round\n"
	"  --max-runs=N         the cap of --runs=auto (default 10)\n"
	"  --time-budget=SECS   --runs=auto adds no round that would end after SECS\n"
	"                       seconds from the first run (estimated from the rounds\n"
	"                       so far)\n"
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
	"  --clone=N            N clients per run: 'fstap prepare --clone=N' makes N\n"
	"                       copies of the initial state and 'fstap replay\n"
	"                       --clone=N' replays them at once; a row's elapsed\n"
	"                       time is the whole N-client run, its ops/s and counts\n"
	"                       all N clients' (default 1)\n"
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

static int add_cand(struct cmp_config *o, struct cmp_candidate *c)
{
	unsigned i;

	for (i = 0; i < o->ncand; i++)
		if (!strcmp(o->cand[i].name, c->name)) {
			cmd_usage_error("compare", "two candidates are called '%s'; name them "
					"apart with --candidate=NAME:...", c->name);
			cmp_candidate_free(c);
			return -EINVAL;
		}
	if (o->ncand == CMP_MAX_CANDS) {
		cmd_usage_error("compare", "at most %d candidates", CMP_MAX_CANDS);
		cmp_candidate_free(c);
		return -EINVAL;
	}
	o->cand[o->ncand++] = *c;
	return 0;
}

static int add_fs_list(struct cmp_config *o, const char *list)
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

static int add_variants(struct cmp_config *o, const char *list)
{
	static const char *const known[] = { "recorded", "readdir", "name", "inode", "random",
					     "target-readdir" };
	const char *p = list;
	unsigned i, k;

	o->nvar = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		for (k = 0; k < ARRAY_SIZE(known) && (strlen(known[k]) != len ||
						      strncmp(known[k], p, len)); k++)
			;
		if (k == ARRAY_SIZE(known))
			return cmd_usage_error("compare", "--variant: '%.*s' is not one of recorded, "
					       "readdir, name, inode, random, target-readdir",
					       (int)len, p);
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

enum { OPT_FS = 256, OPT_CAND, OPT_TARGET, OPT_DEVICE, OPT_FORCE, OPT_IMGDIR, OPT_IMGSIZE,
       OPT_VARIANT, OPT_RUNS, OPT_ORDER, OPT_PACE, OPT_LIMIT, OPT_OUT, OPT_NOPROG,
       OPT_SEED, OPT_MAXDIV, OPT_MAXRUNS, OPT_INCOMPLETE, OPT_BUDGET, OPT_DISK, OPT_LOGDISK,
       OPT_CLONE };

/* The options that take a number: sizes, counts, seconds, a seed, a percentage. */
static int parse_number(int ch, const char *optarg, struct cmp_config *o)
{
	char *end;

	switch (ch) {
	case OPT_IMGSIZE:
		if (cmd_parse_size(optarg, &o->image_size) || o->image_size < (1 << 20))
			return cmd_usage_error("compare", "--image-size must be a size of at "
					       "least 1M (e.g. 512M, 2G), not '%s'", optarg);
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
	case OPT_CLONE:
		errno = 0;
		o->clone = strtoul(optarg, &end, 10);
		if (errno || *end || !*optarg || *optarg == '-' || o->clone < 1 ||
		    o->clone > RP_CLONES_MAX)
			return cmd_usage_error("compare", "--clone must be a number from 1 to %u, "
					       "not '%s'", RP_CLONES_MAX, optarg);
		break;
	case OPT_MAXRUNS:
		errno = 0;
		o->max_runs = strtoul(optarg, &end, 10);
		if (errno || *end || !*optarg || o->max_runs < 2 || o->max_runs > 1000)
			return cmd_usage_error("compare", "--max-runs must be 2 to 1000, not '%s'",
					       optarg);
		break;
	case OPT_BUDGET:
		errno = 0;
		o->time_budget = strtod(optarg, &end);
		if (errno || *end || !*optarg || !(o->time_budget > 0))
			return cmd_usage_error("compare", "--time-budget must be a number of "
					       "seconds above 0, not '%s'", optarg);
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
	}
	return 0;
}

/* The options passed through to each replay, checked here first. */
static int parse_replay_opt(int ch, const char *optarg, struct cmp_config *o)
{
	enum rp_order order;
	unsigned pace;

	switch (ch) {
	case OPT_ORDER:
		if (rp_order_parse(optarg, &order))
			return cmd_usage_error("compare", "--order must be strict, thread, "
					       "resource or none, not '%s'", optarg);
		o->replay_args[o->nreplay++] = cmp_xasprintf("--order=%s", optarg);
		break;
	case OPT_PACE:
		if (rp_pace_parse(optarg, &pace, NULL))
			return cmd_usage_error("compare", "--pace must be afap, orig or N%%, "
					       "not '%s'", optarg);
		o->replay_args[o->nreplay++] = cmp_xasprintf("--pace=%s", optarg);
		break;
	case OPT_LIMIT:
		if (cmd_parse_size(optarg, &o->cache_limit) || o->cache_limit < 4096)
			return cmd_usage_error("compare", "--cache-limit must be a size of at "
					       "least 4k (e.g. 512M), not '%s'", optarg);
		o->replay_args[o->nreplay++] = cmp_xasprintf("--cache-limit=%s", optarg);
		break;
	}
	return 0;
}

/* --disk models the loop images: not a --device, not a --target. */
static int check_disk(const struct cmp_config *o)
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

/* After the options: the TRACE argument, the defaults, and what goes together. */
static int check_combinations(int argc, char **argv, struct cmp_config *o)
{
	int ret;

	if (o->max_runs && !o->runs_auto)
		return cmd_usage_error("compare", "--max-runs only goes with --runs=auto");
	if (o->time_budget > 0 && !o->runs_auto)
		return cmd_usage_error("compare", "--time-budget only goes with --runs=auto");
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

/* --candidate, --target, --disk and --log-disk: 0, or the usage exit code. */
static int parse_device_opt(int ch, const char *arg, struct cmp_config *o)
{
	struct cmp_candidate c;
	struct disk_params dp;
	char err[256];

	switch (ch) {
	case OPT_CAND:
		if (cmp_candidate_parse(arg, &c, err, sizeof(err)))
			return cmd_usage_error("compare", "--candidate: %s", err);
		return add_cand(o, &c) ? 2 : 0;
	case OPT_TARGET:
		if (cmp_target_parse(arg, &c, err, sizeof(err)))
			return cmd_usage_error("compare", "--target: %s", err);
		return add_cand(o, &c) ? 2 : 0;
	case OPT_DISK:
	case OPT_LOGDISK:
		if (disk_params_parse(arg, &dp, err, sizeof(err)))
			return cmd_usage_error("compare", "--%s: %s", ch == OPT_DISK ? "disk"
					       : "log-disk", err);
		*(ch == OPT_DISK ? &o->disk : &o->log_disk) = arg;
		return 0;
	}
	return 0;
}

/* One option of getopt_long: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_option(int ch, char *arg, char **argv, struct cmp_config *o)
{
	switch (ch) {
	case OPT_FS:
		return add_fs_list(o, arg);
	case OPT_CAND:
	case OPT_TARGET:
	case OPT_DISK:
	case OPT_LOGDISK:
		return parse_device_opt(ch, arg, o);
	case OPT_IMGSIZE:
	case OPT_RUNS:
	case OPT_CLONE:
	case OPT_MAXRUNS:
	case OPT_BUDGET:
	case OPT_SEED:
	case OPT_MAXDIV:
		return parse_number(ch, arg, o);
	case OPT_ORDER:
	case OPT_PACE:
	case OPT_LIMIT:
		return parse_replay_opt(ch, arg, o);
	case OPT_VARIANT:
		return add_variants(o, arg);
	case OPT_DEVICE: o->device = arg; return 0;
	case OPT_FORCE: o->force = true; return 0;
	case OPT_IMGDIR: o->image_dir = arg; return 0;
	case OPT_OUT: o->out = arg; return 0;
	case OPT_NOPROG: o->progress = false; return 0;
	case OPT_INCOMPLETE: o->allow_incomplete = true; return 0;
	case 'h':
		fputs(usage, stdout);
		return CMD_HELP;
	case ':':
		return cmd_usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
	default:
		if (optopt)
			return cmd_usage_error("compare", "unknown option '-%c'", optopt);
		return cmd_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
	}
}

/* The command line into *o: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_options(int argc, char **argv, struct cmp_config *o)
{
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
		{ "time-budget", required_argument, NULL, OPT_BUDGET },
		{ "max-divergence", required_argument, NULL, OPT_MAXDIV },
		{ "allow-incomplete", no_argument, NULL, OPT_INCOMPLETE },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "pace", required_argument, NULL, OPT_PACE },
		{ "cache-limit", required_argument, NULL, OPT_LIMIT },
		{ "clone", required_argument, NULL, OPT_CLONE },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "no-progress", no_argument, NULL, OPT_NOPROG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, ret;

	o->runs = 3;
	o->clone = 1;
	o->max_runs = 0;
	o->max_divergence = CMP_MAX_DIVERGENCE;
	o->image_dir = "/var/tmp";
	o->progress = true;
	/* ":": getopt prints nothing, so that the one message is compare's own */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if ((ret = parse_option(ch, optarg, argv, o)))
			return ret;
		if (o->nreplay >= 7)
			return cmd_usage_error("compare", "--order, --pace and --cache-limit: once each");
	}
	return check_combinations(argc, argv, o);
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

int cmd_compare(int argc, char **argv)
{
	struct cmp_config o;
	char *cmdline = command_line(argc, argv);	/* before getopt reorders argv */
	unsigned i;
	int status;

	memset(&o, 0, sizeof(o));
	o.cmdline = cmdline;
	status = parse_options(argc, argv, &o);
	if (!status)
		status = cmp_main(&o);
	else if (status == CMD_HELP)
		status = 0;
	free(cmdline);
	for (i = 0; i < o.ncand; i++)
		cmp_candidate_free(&o.cand[i]);
	for (i = 0; i < o.nreplay; i++)
		free(o.replay_args[i]);
	return status;
}
