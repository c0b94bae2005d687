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
#include "replay/replay.h"

#define DIVLOG_DEFAULT_MAX 100

static const char usage[] =
	"usage: fstap replay [options] TRACE DIR\n"
	"\n"
	"Re-execute the operations of TRACE with real system calls beneath DIR\n"
	"(prepared with 'fstap prepare'), and report time, throughput, latency\n"
	"per operation and divergences from the recorded results. A trace without\n"
	"its footer (a crash, a cut) is replayed up to where it is complete for\n"
	"every thread, and one line says how much.\n"
	"\n"
	"  --order=MODE       strict (one thread, global order), thread (one thread\n"
	"                     per recorded thread, cross-thread happens-before kept;\n"
	"                     the default), resource (per-object order kept), none\n"
	"  --pace=PACE        afap (as fast as possible, the default), orig (keep\n"
	"                     the recorded think time), N% of it, or native (the\n"
	"                     think time less the recorder's round trips, measured\n"
	"                     when the trace was recorded: the application's pace\n"
	"                     without the recorder)\n"
	"  --runs=N           replay N times (on the same DIR: prepare it again\n"
	"                     between runs for identical starting states)\n"
	"  --json=FILE        write the results as JSON to FILE ('-': stdout, no table)\n"
	"  --csv=FILE         write the per-operation results as CSV to FILE\n"
	"  --drop-caches      sync and drop page, dentry and inode caches before each run\n"
	"  --sync-at-end      syncfs the target's file system after each run and report\n"
	"                     its time and the time until durable (elapsed + sync)\n"
	"  --cache-limit=SIZE run in a memory cgroup (v2, or v1 on hybrid systems)\n"
	"                     limited to SIZE (e.g. 512M)\n"
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

int cmd_replay(int argc, char **argv)
{
	enum { OPT_ORDER = 256, OPT_PACE, OPT_RUNS, OPT_JSON, OPT_CSV, OPT_DROP, OPT_LIMIT,
	       OPT_WINDOW, OPT_NOPROG, OPT_DEVICES, OPT_DIVLOG, OPT_DIVMAX, OPT_CLONE, OPT_MPI,
	       OPT_SPLIT, OPT_MAP, OPT_SYNC };
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
		{ "no-progress", no_argument, NULL, OPT_NOPROG },
		{ "devices", no_argument, NULL, OPT_DEVICES },
		{ "divergences", required_argument, NULL, OPT_DIVLOG },
		{ "divergences-max", required_argument, NULL, OPT_DIVMAX },
		{ "clone", required_argument, NULL, OPT_CLONE },
		{ "mpi", no_argument, NULL, OPT_MPI },
		{ "split", required_argument, NULL, OPT_SPLIT },
		{ "map", required_argument, NULL, OPT_MAP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rp_options o = { .order = RP_ORDER_THREAD };
	const char *json = NULL, *csv = NULL, *divlog = NULL, *map = NULL;
	unsigned divmax = DIVLOG_DEFAULT_MAX;
	unsigned long long limit = 0, v;
	unsigned long runs = 1, i;
	struct rp_result **res;
	struct rp_cgroup *cg = NULL;
	bool drop = false, progress = true, mpi = false, split_set = false, sync_end = false;
	enum rp_split split = RP_SPLIT_CLONE;
	unsigned clones = 0;
	int c, ret = 0, rank = 0, nranks = 1;
	char *end;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ORDER:
			if (rp_order_parse(optarg, &o.order))
				return cmd_usage_error("replay", "--order must be strict, thread, "
						       "resource or none, not '%s'", optarg);
			break;
		case OPT_PACE:
			if (rp_pace_parse(optarg, &o.pace_pct, &o.pace_native))
				return cmd_usage_error("replay", "--pace must be afap, orig, native or N%% "
						       "(1%% to 100000%%), not '%s'", optarg);
			break;
		case OPT_RUNS:
			errno = 0;
			runs = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || runs < 1 || runs > 10000)
				return cmd_usage_error("replay", "--runs must be 1 to 10000, not '%s'",
						       optarg);
			break;
		case OPT_JSON:
			json = optarg;
			break;
		case OPT_CSV:
			csv = optarg;
			break;
		case OPT_DROP:
			drop = true;
			break;
		case OPT_SYNC:
			sync_end = true;
			break;
		case OPT_LIMIT:
			if (cmd_parse_size(optarg, &limit) || limit < 4096)
				return cmd_usage_error("replay", "--cache-limit must be a size of at "
						       "least 4k (e.g. 512M), not '%s'", optarg);
			break;
		case OPT_WINDOW:
			if (cmd_parse_size(optarg, &v) || !v)
				return cmd_usage_error("replay", "--window must be a number of ns, "
						       "not '%s'", optarg);
			o.window_ns = v;
			break;
		case OPT_NOPROG:
			progress = false;
			break;
		case OPT_DEVICES:
			o.devices = true;
			break;
		case OPT_DIVLOG:
			divlog = optarg;
			break;
		case OPT_DIVMAX:
			if (cmd_parse_size(optarg, &v) || !v || v > 1000000)
				return cmd_usage_error("replay", "--divergences-max must be a number "
						       "from 1 to 1000000, not '%s'", optarg);
			divmax = (unsigned)v;
			break;
		case OPT_CLONE:
			if (cmd_parse_size(optarg, &v) || !v || v > RP_CLONES_MAX)
				return cmd_usage_error("replay", "--clone must be a number from 1 to "
						       "%u, not '%s'", RP_CLONES_MAX, optarg);
			clones = (unsigned)v;
			break;
		case OPT_MPI:
			mpi = true;
			break;
		case OPT_SPLIT:
			if (rp_split_parse(optarg, &split))
				return cmd_usage_error("replay", "--split must be clone, process or "
						       "thread, not '%s'", optarg);
			split_set = true;
			break;
		case OPT_MAP:
			map = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cmd_usage_error("replay", "unknown option");
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error("replay", "expected TRACE and DIR arguments");
	if ((json && !strcmp(json, "-")) + (csv && !strcmp(csv, "-")) +
	    (divlog && !strcmp(divlog, "-")) > 1)
		return cmd_usage_error("replay", "only one of --json, --csv and --divergences "
				       "can go to stdout");
	if (split_set && !mpi)
		return cmd_usage_error("replay", "--split needs --mpi");
	if (map && split == RP_SPLIT_CLONE)
		return cmd_usage_error("replay", "--map needs --split=process or --split=thread");
	if (split != RP_SPLIT_CLONE && o.order == RP_ORDER_STRICT)
		return cmd_usage_error("replay", "--order=strict replays on one thread: not with "
				       "--split=process or --split=thread");
	if (clones && mpi)
		return cmd_usage_error("replay", "--clone and --mpi exclude each other "
				       "(--mpi --split=clone: a clone per rank)");
	o.divlog_max = divlog ? divmax : 0;
	o.trace = argv[optind];
	o.dir = argv[optind + 1];
	{
		const char *reports[] = { json, csv, divlog };

		if (check_reports(o.trace, reports, 3))
			return 1;
	}
	o.progress = progress && fstap_verbosity >= 0 && isatty(STDERR_FILENO);

	if (mpi && rp_mpi_init(&rank, &nranks))
		return 1;
	res = calloc(runs, sizeof(*res));
	if (!res)
		fstap_die("out of memory");
	if (limit && rp_cgroup_enter(limit, &cg)) {
		free(res);
		return 1;
	}
	for (i = 0; i < runs && !ret; i++) {
		if (drop && (ret = rp_drop_caches()))
			break;
		if (mpi)
			ret = rp_mpi_run(&o, split, map, &res[i]);
		else if (clones)
			ret = rp_run_clones(&o, clones, &res[i]);
		else
			ret = rp_run(&o, &res[i]);
		if (!ret && sync_end)
			ret = rp_sync_at_end(o.dir, res[i]);
		o.notes_said = true;
	}
	rp_cgroup_leave(cg);
	if (!ret && rank == 0) {
		bool quiet_text = (json && !strcmp(json, "-")) || (csv && !strcmp(csv, "-")) ||
				  (divlog && !strcmp(divlog, "-"));

		if (!quiet_text && rp_report_text(stdout, res, (unsigned)runs))
			ret = -EIO;
		if (!ret && json)
			ret = write_report(json, rp_report_json, res, (unsigned)runs, &o);
		if (!ret && csv)
			ret = write_report(csv, csv_fn, res, (unsigned)runs, &o);
		if (!ret && divlog)
			ret = write_report(divlog, divlog_fn, res, (unsigned)runs, &o);
	}
	for (i = 0; i < runs; i++)
		rp_result_free(res[i]);
	free(res);
	if (mpi)
		rp_mpi_finalize();
	return ret ? 1 : 0;
}
