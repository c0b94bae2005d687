/*
 * cmd-replay.c: `fstap replay [options] TRACE DIR`: options, the runs, and
 * where the report goes. The replay itself is replay/ (libreplay.a).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "replay/prepare.h"
#include "replay/replay.h"

#define DIVLOG_DEFAULT_MAX 100

static const char usage[] =
	"usage: fstap replay [options] TRACE DIR\n"
	"\n"
	"Re-execute the operations of TRACE with real system calls beneath DIR\n"
	"(prepared with 'fstap prepare', or --prepare), and report time, throughput, latency\n"
	"per operation and divergences from the recorded results. A trace without\n"
	"its footer (a crash, a cut) is replayed up to where it is complete for\n"
	"every thread, and one line says how much.\n"
	"\n"
	"  --order=MODE       strict (one thread, global order), thread (one thread\n"
	"                     per recorded thread, cross-thread happens-before kept;\n"
	"                     the default), resource (per-object order kept; the\n"
	"                     default with --pace=native), none\n"
	"  --pace=PACE        afap (as fast as possible, the default), orig (keep\n"
	"                     the recorded think time), N% of it, or native (the\n"
	"                     think time less the recorder's share of it, estimated\n"
	"                     from the trace and its calibration: the application's\n"
	"                     pace without the recorder)\n"
	"  --runs=N           replay N times (on the same DIR: prepare it again\n"
	"                     between runs for identical starting states)\n"
	"  --prepare          first prepare DIR (empty) from TRACE as 'fstap prepare'\n"
	"                     does with its defaults, quietly: with --clone=N its N\n"
	"                     clones; with --mpi --split=clone each rank its own\n"
	"                     DIR/clone-K, with --split=process|thread rank 0 DIR;\n"
	"                     not with --runs\n"
	"  --json=FILE        write the results as JSON to FILE ('-': stdout, no table)\n"
	"  --csv=FILE         write the per-operation results as CSV to FILE\n"
	"  --drop-caches      sync and drop page, dentry and inode caches before each run\n"
	"  --sync-at-end      syncfs the target's file system after each run and report\n"
	"                     its time and the time until durable (elapsed + sync)\n"
	"  --cache-limit=SIZE run in a memory cgroup (v2, or v1 on hybrid systems)\n"
	"                     limited to SIZE (e.g. 512M)\n"
	"  --plan-ahead=SIZE  read and dispatch up to SIZE of packed tasks (e.g. 64M;\n"
	"                     default 256M) before the run's clock starts, and hold\n"
	"                     that much at most ahead of the workers: a trace within\n"
	"                     it is replayed with the dispatcher idle; 0: dispatch as\n"
	"                     the run goes\n"
	"  --window=NS        reorder window in ns (default: the trace's flush interval\n"
	"                     plus 250 ms)\n"
	"  --divergences=FILE write each divergence as one JSON object a line to FILE\n"
	"                     ('-': stdout, no table): record number, time, thread,\n"
	"                     process, op, paths, recorded and replayed results,\n"
	"                     readdir's missing and extra names; the first N of each\n"
	"                     kind (op, kind, errno) per run\n"
	"  --divergences-max=N  N for --divergences (default 100)\n"
	"  --devices          give device nodes their recorded numbers and open them\n"
	"                     (by default mknod makes them with a number that reaches\n"
	"                     no device, as fstap prepare does, and their opens are\n"
	"                     refused: 'device' divergences; a recorded number in DIR\n"
	"                     reaches the device: only for traces you trust)\n"
	"  --clone=N          replay N copies of the workload at once, copy K beneath\n"
	"                     DIR/clone-K (K from 0; 'fstap prepare --clone=N' makes\n"
	"                     them): the results merged, and a line per clone\n"
	"  --mpi              one process per MPI rank, started by mpirun (needs a\n"
	"                     build with Open MPI); each rank replays its share,\n"
	"                     rank 0 reports the results reduced over the ranks\n"
	"  --split=HOW        what each rank replays with --mpi: clone (rank K\n"
	"                     replays DIR/clone-K, the default), process or thread\n"
	"                     (the recorded processes or threads shared out among\n"
	"                     the ranks, all on DIR; an operation waits for those it\n"
	"                     depends on to end on their ranks)\n"
	"  --map=FILE         with --split=process|thread: lines 'ID RANK' (a pid, a\n"
	"                     tid) saying which rank replays what; the ids not listed\n"
	"                     go round-robin\n"
	"  --no-progress      no progress line on a terminal\n"
	"  -h, --help         this help\n"
	"\n"
	"The files of --json, --csv and --divergences are renamed into place when\n"
	"complete (an existing one stays as it was after an error); one that is\n"
	"TRACE (also through a link) is refused before the replay runs.\n"
	"\n"
	"Exit status: 0 when the replay ran (divergences are results, not failures),\n"
	"1 on errors, 2 on usage errors.\n";

typedef int report_fn(FILE *, struct rp_result *const *, unsigned, const struct rp_options *);

struct report {
	report_fn *fn;
	struct rp_result *const *runs;
	unsigned n;
	const struct rp_options *o;
};

static int report_write(FILE *f, void *arg)
{
	const struct report *r = arg;

	return r->fn(f, r->runs, r->n, r->o);
}

/* Writes path ('-': stdout) with fn, through a temporary renamed into place. */
static int write_report(const char *path, report_fn *fn, struct rp_result *const *runs,
			unsigned n, const struct rp_options *o)
{
	const char *inputs[] = { o->trace, NULL };
	struct report r = { fn, runs, n, o };

	return fstap_output_write(path, inputs, report_write, &r);
}

/* Refuses a report file that is the trace, before the replay runs. */
static int check_reports(const char *trace, const char *const *paths, size_t n)
{
	const char *inputs[] = { trace, NULL };
	size_t i;

	for (i = 0; i < n; i++)
		if (paths[i] && fstap_output_check(paths[i], inputs))
			return -EEXIST;
	return 0;
}

static int csv_fn(FILE *f, struct rp_result *const *runs, unsigned n, const struct rp_options *o)
{
	(void)o;
	return rp_report_csv(f, runs, n);
}

static int divlog_fn(FILE *f, struct rp_result *const *runs, unsigned n,
		     const struct rp_options *o)
{
	(void)o;
	return rp_report_divergences(f, runs, n);
}

/* What the command line asks for. */
struct replay_cli {
	struct rp_options o;
	const char *json, *csv, *divlog, *map;	/* report files ('-': stdout) */
	unsigned divmax;
	unsigned long long limit;		/* --cache-limit; 0: none */
	unsigned long runs;
	enum rp_split split;
	unsigned clones;
	bool drop, progress, mpi, split_set, sync_end, prepare;
	bool order_set;		/* --order was given */
};

enum { OPT_ORDER = 256, OPT_PACE, OPT_RUNS, OPT_JSON, OPT_CSV, OPT_DROP, OPT_LIMIT,
       OPT_WINDOW, OPT_NOPROG, OPT_DEVICES, OPT_DIVLOG, OPT_DIVMAX, OPT_CLONE, OPT_MPI,
       OPT_SPLIT, OPT_MAP, OPT_SYNC, OPT_PREPARE, OPT_PLAN };

static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

/* The options whose value is a number: 0, or the usage exit code. */
static int parse_number(int c, const char *arg, struct replay_cli *cli)
{
	unsigned long long v;
	char *end;

	switch (c) {
	case OPT_RUNS:
		errno = 0;
		cli->runs = strtoul(arg, &end, 10);
		if (errno || *end || !*arg || cli->runs < 1 || cli->runs > 10000)
			return cmd_usage_error("replay", "--runs must be 1 to 10000, not '%s'", arg);
		break;
	case OPT_LIMIT:
		if (cmd_parse_size(arg, &cli->limit) || cli->limit < 4096)
			return cmd_usage_error("replay", "--cache-limit must be a size of at "
					       "least 4k (e.g. 512M), not '%s'", arg);
		break;
	case OPT_WINDOW:
		if (cmd_parse_size(arg, &v) || !v)
			return cmd_usage_error("replay", "--window must be a number of ns, "
					       "not '%s'", arg);
		cli->o.window_ns = v;
		break;
	case OPT_PLAN:
		if (cmd_parse_size(arg, &v))
			return cmd_usage_error("replay", "--plan-ahead must be a size (e.g. 64M, "
					       "or 0), not '%s'", arg);
		cli->o.plan_bytes = v;
		break;
	case OPT_DIVMAX:
		if (cmd_parse_size(arg, &v) || !v || v > 1000000)
			return cmd_usage_error("replay", "--divergences-max must be a number "
					       "from 1 to 1000000, not '%s'", arg);
		cli->divmax = (unsigned)v;
		break;
	case OPT_CLONE:
		if (cmd_parse_size(arg, &v) || !v || v > RP_CLONES_MAX)
			return cmd_usage_error("replay", "--clone must be a number from 1 to "
					       "%u, not '%s'", RP_CLONES_MAX, arg);
		cli->clones = (unsigned)v;
		break;
	}
	return 0;
}

/* One option of getopt_long: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_option(int c, char *arg, struct replay_cli *cli)
{
	switch (c) {
	case OPT_ORDER:
		if (rp_order_parse(arg, &cli->o.order))
			return cmd_usage_error("replay", "--order must be strict, thread, "
					       "resource or none, not '%s'", arg);
		cli->order_set = true;
		return 0;
	case OPT_PACE:
		if (rp_pace_parse(arg, &cli->o.pace_pct, &cli->o.pace_native))
			return cmd_usage_error("replay", "--pace must be afap, orig, native or N%% "
					       "(1%% to 100000%%), not '%s'", arg);
		return 0;
	case OPT_SPLIT:
		if (rp_split_parse(arg, &cli->split))
			return cmd_usage_error("replay", "--split must be clone, process or "
					       "thread, not '%s'", arg);
		cli->split_set = true;
		return 0;
	case OPT_RUNS:
	case OPT_LIMIT:
	case OPT_WINDOW:
	case OPT_PLAN:
	case OPT_DIVMAX:
	case OPT_CLONE:
		return parse_number(c, arg, cli);
	case OPT_JSON: cli->json = arg; return 0;
	case OPT_CSV: cli->csv = arg; return 0;
	case OPT_DIVLOG: cli->divlog = arg; return 0;
	case OPT_MAP: cli->map = arg; return 0;
	case OPT_DROP: cli->drop = true; return 0;
	case OPT_SYNC: cli->sync_end = true; return 0;
	case OPT_PREPARE: cli->prepare = true; return 0;
	case OPT_NOPROG: cli->progress = false; return 0;
	case OPT_DEVICES: cli->o.devices = true; return 0;
	case OPT_MPI: cli->mpi = true; return 0;
	case 'h':
		fputs(usage, stdout);
		return CMD_HELP;
	default:
		return cmd_usage_error("replay", "unknown option");
	}
}

/* The options that go together or exclude each other: 0, or the usage exit code. */
static int check_combinations(const struct replay_cli *cli)
{
	if (is_stdout(cli->json) + is_stdout(cli->csv) + is_stdout(cli->divlog) > 1)
		return cmd_usage_error("replay", "only one of --json, --csv and --divergences "
				       "can go to stdout");
	if (cli->split_set && !cli->mpi)
		return cmd_usage_error("replay", "--split needs --mpi");
	if (cli->map && cli->split == RP_SPLIT_CLONE)
		return cmd_usage_error("replay", "--map needs --split=process or --split=thread");
	if (cli->split != RP_SPLIT_CLONE && cli->o.order == RP_ORDER_STRICT)
		return cmd_usage_error("replay", "--order=strict replays on one thread: not with "
				       "--split=process or --split=thread");
	if (cli->prepare && cli->runs > 1)
		return cmd_usage_error("replay", "--prepare prepares DIR once: not with --runs "
				       "(run 'fstap prepare' before each run)");
	if (cli->clones && cli->mpi)
		return cmd_usage_error("replay", "--clone and --mpi exclude each other "
				       "(--mpi --split=clone: a clone per rank)");
	return 0;
}

/* The command line into *cli: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_options(int argc, char **argv, struct replay_cli *cli)
{
	static const struct option longopts[] = {
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "pace", required_argument, NULL, OPT_PACE },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "drop-caches", no_argument, NULL, OPT_DROP },
		{ "sync-at-end", no_argument, NULL, OPT_SYNC },
		{ "cache-limit", required_argument, NULL, OPT_LIMIT },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "plan-ahead", required_argument, NULL, OPT_PLAN },
		{ "no-progress", no_argument, NULL, OPT_NOPROG },
		{ "devices", no_argument, NULL, OPT_DEVICES },
		{ "divergences", required_argument, NULL, OPT_DIVLOG },
		{ "divergences-max", required_argument, NULL, OPT_DIVMAX },
		{ "clone", required_argument, NULL, OPT_CLONE },
		{ "mpi", no_argument, NULL, OPT_MPI },
		{ "split", required_argument, NULL, OPT_SPLIT },
		{ "map", required_argument, NULL, OPT_MAP },
		{ "prepare", no_argument, NULL, OPT_PREPARE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	cli->o.order = RP_ORDER_THREAD;
	cli->o.plan_bytes = RP_PLAN_DEFAULT;
	cli->divmax = DIVLOG_DEFAULT_MAX;
	cli->runs = 1;
	cli->split = RP_SPLIT_CLONE;
	cli->progress = true;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
		if ((ret = parse_option(c, optarg, cli)))
			return ret;
	if (argc - optind != 2)
		return cmd_usage_error("replay", "expected TRACE and DIR arguments");
	if ((ret = check_combinations(cli)))
		return ret;
	/* the recording's order between threads is the recorder's (docs/replay.md, "Pacing") */
	if (cli->o.pace_native && !cli->order_set)
		cli->o.order = RP_ORDER_RESOURCE;
	cli->o.divlog_max = cli->divlog ? cli->divmax : 0;
	cli->o.trace = argv[optind];
	cli->o.dir = argv[optind + 1];
	cli->o.progress = cli->progress && fstap_verbosity >= 0 && isatty(STDERR_FILENO);
	return 0;
}

/*
 * --prepare: DIR (or its clones) prepared from the trace; with --mpi, every
 * rank's part (rank K's clone, or DIR by rank 0), then every rank learns
 * whether all of them succeeded. 0 or -errno (said).
 */
static int prepare_target(const struct replay_cli *cli, int rank)
{
	struct prep_dir_opts po = {
		.po = { .data = PREP_DATA_RANDOM, .seed = 1, .devices = cli->o.devices },
		.order = PREP_ORDER_CREATION,
		.quiet = true,
		.clones = cli->clones,
		.only_clone = -1,
	};
	uint64_t skipped;
	int ret = 0;

	if (cli->mpi && cli->split == RP_SPLIT_CLONE)
		po.only_clone = rank;
	if (!cli->mpi || cli->split == RP_SPLIT_CLONE || rank == 0)
		ret = prep_dir(cli->o.trace, cli->o.dir, &po, &skipped);
	if (cli->mpi)
		ret = rp_mpi_agree(ret, "--prepare");
	return ret;
}

/* --cache-limit: the cgroup a run enters when it starts (after its plan). */
struct run_cgroup {
	unsigned long long limit;
	struct rp_cgroup *cg;
};

static int enter_cgroup(void *arg)
{
	struct run_cgroup *c = arg;

	return rp_cgroup_enter(c->limit, &c->cg) ? -EIO : 0;
}

/*
 * The runs, each into res[i]: 0 or -errno (said). With --cache-limit each
 * run enters the cgroup at its start, once its plan is made (the plan's
 * memory is not the replay's page cache), and leaves it at its end.
 */
static int run_all(struct replay_cli *cli, struct rp_result **res)
{
	struct run_cgroup cg = { .limit = cli->limit };
	unsigned long i;
	int ret = 0;

	if (cli->limit) {
		cli->o.at_start = enter_cgroup;
		cli->o.at_start_arg = &cg;
	}
	for (i = 0; i < cli->runs && !ret; i++) {
		if (cli->drop && (ret = rp_drop_caches()))
			break;
		if (cli->mpi)
			ret = rp_mpi_run(&cli->o, cli->split, cli->map, &res[i]);
		else if (cli->clones)
			ret = rp_run_clones(&cli->o, cli->clones, &res[i]);
		else
			ret = rp_run(&cli->o, &res[i]);
		if (!ret && cli->sync_end)
			ret = rp_sync_at_end(cli->o.dir, res[i]);
		rp_cgroup_leave(cg.cg);
		cg.cg = NULL;
		cli->o.notes_said = true;
	}
	return ret;
}

/* The table on stdout (unless a report file is '-'), then the report files. 0 or -errno. */
static int write_reports(const struct replay_cli *cli, struct rp_result *const *res)
{
	unsigned n = (unsigned)cli->runs;
	int ret = 0;

	if (!is_stdout(cli->json) && !is_stdout(cli->csv) && !is_stdout(cli->divlog) &&
	    rp_report_text(stdout, res, n))
		ret = -EIO;
	if (!ret && cli->json)
		ret = write_report(cli->json, rp_report_json, res, n, &cli->o);
	if (!ret && cli->csv)
		ret = write_report(cli->csv, csv_fn, res, n, &cli->o);
	if (!ret && cli->divlog)
		ret = write_report(cli->divlog, divlog_fn, res, n, &cli->o);
	return ret;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_cli cli = { 0 };
	struct rp_result **res;
	int ret, rank = 0, nranks = 1;
	unsigned long i;

	ret = parse_options(argc, argv, &cli);
	if (ret)
		return ret == CMD_HELP ? 0 : ret;
	{
		const char *reports[] = { cli.json, cli.csv, cli.divlog };

		if (check_reports(cli.o.trace, reports, 3))
			return 1;
	}
	if (cli.mpi && rp_mpi_init(&rank, &nranks))
		return 1;
	res = calloc(cli.runs, sizeof(*res));
	if (!res)
		fstap_die("out of memory");
	/* prepared outside the cgroup: the tree's pages are not the replay's */
	ret = cli.prepare ? prepare_target(&cli, rank) : 0;
	if (!ret)
		ret = run_all(&cli, res);
	if (!ret && rank == 0)
		ret = write_reports(&cli, res);
	for (i = 0; i < cli.runs; i++)
		rp_result_free(res[i]);
	free(res);
	if (cli.mpi)
		rp_mpi_finalize();
	return ret ? 1 : 0;
}
