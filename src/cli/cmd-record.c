/*
 * cmd-record.c: fstap record: the command line of the recorder. Parses the
 * options and the three forms (BACKING MOUNTPOINT, DIR in place, DIR -- CMD)
 * and hands them to record_run (src/record/record.c), which prints its own
 * errors and returns the exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "fstap/log.h"
#include "record/record.h"

static const char record_usage[] =
	"usage: fstap record [options] BACKING MOUNTPOINT\n"
	"   or: fstap record [options] DIR\n"
	"   or: fstap record [options] DIR -- COMMAND [ARGS...]\n"
	"\n"
	"Mount a passthrough of a directory with FUSE and record every operation\n"
	"that reaches it into a trace, for replay on other file systems.\n"
	"\n"
	"  BACKING MOUNTPOINT   serve BACKING at MOUNTPOINT until 'fusermount3 -u\n"
	"                       MOUNTPOINT', SIGINT, SIGTERM or SIGHUP; then finish\n"
	"                       the trace and exit 0\n"
	"  DIR                  mount over DIR itself (in place): the application keeps\n"
	"                       its paths; processes already inside DIR stay below the\n"
	"                       mount and are not seen until they change directory\n"
	"  DIR -- COMMAND       mount over DIR, run COMMAND (in the current directory),\n"
	"                       unmount when it exits, and exit with its status; a\n"
	"                       SIGINT, SIGTERM or SIGHUP sent to fstap goes on to it\n"
	"\n"
	"options:\n"
	"  -o, --output=TRACE   write the trace to TRACE (default: fstap.trace; '-' is\n"
	"                       standard output). The file is opened before the mount\n"
	"                       and written in place while recording, replacing an\n"
	"                       existing TRACE: a killed recorder or a full disk\n"
	"                       leaves a trace that reads back up to its last chunk\n"
	"      --no-trace       serve the passthrough without recording (the baseline\n"
	"                       for measuring the recording's overhead)\n"
	"      --cache=MODE     what the kernel may cache in front of the recorder:\n"
	"                         all     nothing: every request the kernel makes is\n"
	"                                 seen (entry, attribute and negative timeouts 0)\n"
	"                         calls   (default) entries cached, attributes and\n"
	"                                 failed lookups not: the application's own\n"
	"                                 calls with the least amplification (no\n"
	"                                 FLUSH for files opened read-only)\n"
	"                         direct  calls + direct I/O: every read and write call\n"
	"                                 is seen with its own size; no shared writable\n"
	"                                 mmap, no page cache\n"
	"                         kernel  timeouts, keep_cache, writeback cache: the\n"
	"                                 lowest overhead; only what passes the caches\n"
	"                                 is seen, writes arrive merged from the kernel\n"
	"                       docs/recording.md says what each mode hides and costs\n"
	"      --snapshot=MODE  the initial state recorded for a replay's 'prepare':\n"
	"                         full     walk the whole tree at mount (default)\n"
	"                         touched  each object when first looked up or listed\n"
	"                         none     no initial state\n"
	"      --xattr-values=all|SIZE|none\n"
	"                       the xattr values recorded (setxattr values, getxattr\n"
	"                       results, the initial state): system.*, security.*\n"
	"                       and trusted.* always (ACLs, capabilities, labels);\n"
	"                       user.* values up to SIZE bytes (default 4096; K, M\n"
	"                       suffixes), all of them, or none. A value left out\n"
	"                       keeps its size: the replay writes that many\n"
	"                       pseudo-random bytes. Values are the application's\n"
	"                       data and can be private: share a trace with care\n"
	"      --threads=N      FUSE worker threads at most (default 16)\n"
	"  -q, --quiet          no status line, no summary, no waiting message,\n"
	"                       warnings off (lost records are still reported)\n"
	"  -v, --verbose        more messages; twice: libfuse's request log too\n"
	"  -h, --help           show this help\n"
	"\n"
	"Root is needed to mount for other users (allow_other) and to reach files\n"
	"by handle; permissions are enforced by the kernel (default_permissions)\n"
	"and files are created with the requesting process's uid and gid.\n"
	"\n"
	"Stopping: the recorder unmounts, writes the footer and prints one line:\n"
	"  fstap: trace 'TRACE': RECORDS records, BYTES bytes, SECONDS s, LOST lost\n"
	"(with ', stopped by SIGINT' when a signal stopped it). A mount point still\n"
	"in use is not torn away from the processes using it: the recorder says\n"
	"once \"waiting for N processes still using MOUNTPOINT\", keeps serving and\n"
	"recording, and stops when they leave; a second signal detaches it (lazy\n"
	"unmount: the mount point is free, those processes are served until they\n"
	"let go).\n"
	"\n"
	"Exit status: 0 when the trace is complete after a clean stop (unmount,\n"
	"SIGINT, SIGTERM, SIGHUP), the command's status with '--', 1 on a failure\n"
	"(the trace could not be written whole, the mount failed), 2 on a usage\n"
	"error.\n"
	"\n"
	"A stale mount ('Transport endpoint is not connected', after the recorder\n"
	"was killed) is cleared with 'fusermount3 -u MOUNTPOINT'.\n";

/* --cache or --snapshot: the mode's index in names, or -1 after the usage error. */
static int parse_mode(const char *what, const char *arg, const char *const *names, int n,
		      const char *modes)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	cmd_usage_error("record", "unknown %s mode '%s' (%s)", what, arg, modes);
	return -1;
}

/* --xattr-values=all|none|SIZE: the user.* value size limit, REC_XATTR_VALUES_ALL for all. */
static int parse_xattr_values(const char *arg, uint32_t *out)
{
	unsigned long long n;

	if (!strcmp(arg, "all")) {
		*out = REC_XATTR_VALUES_ALL;
		return 0;
	}
	if (!strcmp(arg, "none")) {
		*out = 0;
		return 0;
	}
	if (cmd_parse_size(arg, &n) || n >= REC_XATTR_VALUES_ALL)
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

/* What the command line asks for, besides record_opts. */
struct record_cli {
	const char *trace;	/* -o */
	bool no_trace, trace_given;
	int verbose;		/* how many -v */
};

enum { OPT_NO_TRACE = 256, OPT_CACHE, OPT_SNAPSHOT, OPT_THREADS, OPT_XATTR_VALUES };

/* One option of getopt_long: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_option(int c, const char *arg, struct record_opts *o, struct record_cli *cli)
{
	char *end;
	long n;
	int mode;

	switch (c) {
	case 'o':
		cli->trace = arg;
		cli->trace_given = true;
		return 0;
	case OPT_NO_TRACE: cli->no_trace = true; return 0;
	case OPT_CACHE:
		if ((mode = parse_mode("cache", arg, rec_cache_names, REC_CACHE_NR,
				       "all, calls, direct or kernel")) < 0)
			return 2;
		o->cache = (enum rec_cache)mode;
		return 0;
	case OPT_SNAPSHOT:
		if ((mode = parse_mode("snapshot", arg, rec_snapshot_names, REC_SNAP_NR,
				       "full, touched or none")) < 0)
			return 2;
		o->snapshot = (enum rec_snapshot)mode;
		return 0;
	case OPT_THREADS:
		n = strtol(arg, &end, 10);
		if (*end || n < 1 || n > 1024)
			return cmd_usage_error("record", "bad thread count '%s'", arg);
		o->threads = (unsigned)n;
		return 0;
	case OPT_XATTR_VALUES:
		if (parse_xattr_values(arg, &o->xattr_value_max))
			return cmd_usage_error("record", "bad --xattr-values '%s' (all, none "
					       "or a size in bytes)", arg);
		return 0;
	case 'q': fstap_verbosity = -1; return 0;
	case 'v': cli->verbose++; return 0;
	case 'h': fputs(record_usage, stdout); return CMD_HELP;
	default: return cmd_usage_error("record", "unknown option");
	}
}

/* The operands (npos of them at pos): the directories of the three forms. 0 or 2. */
static int parse_operands(char **pos, int npos, struct record_opts *o)
{
	if (o->command) {
		if (!o->command[0])
			return cmd_usage_error("record", "no command after '--'");
		if (npos != 1)
			return cmd_usage_error("record", "expected one DIR before '--'");
		o->backing = o->mountpoint = pos[0];
	} else if (npos == 1) {
		o->backing = o->mountpoint = pos[0];
	} else if (npos == 2) {
		o->backing = pos[0];
		o->mountpoint = pos[1];
	} else {
		return cmd_usage_error("record", npos ? "too many arguments"
				       : "expected a directory to record");
	}
	return 0;
}

/* The command line into *o: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_options(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-trace", no_argument, NULL, OPT_NO_TRACE },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "snapshot", required_argument, NULL, OPT_SNAPSHOT },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "xattr-values", required_argument, NULL, OPT_XATTR_VALUES },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct record_cli cli = { .trace = "fstap.trace" };
	int c, i, ret, nopt = argc;

	o->cache = REC_CACHE_CALLS;
	o->snapshot = REC_SNAP_FULL;
	o->xattr_value_max = REC_XATTR_VALUES_DEFAULT;
	o->argc = argc;
	o->argv = argv;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			nopt = i;
			o->command = argv + i + 1;
			break;
		}
	}
	while ((c = getopt_long(nopt, argv, "o:qvh", opts, NULL)) != -1)
		if ((ret = parse_option(c, optarg, o, &cli)))
			return ret;
	if (cli.verbose && fstap_verbosity >= 0)
		fstap_verbosity += cli.verbose;
	o->fuse_debug = cli.verbose >= 2;
	if (cli.no_trace && cli.trace_given)
		return cmd_usage_error("record", "-o and --no-trace exclude each other");
	o->trace = cli.no_trace ? NULL : cli.trace;
	return parse_operands(argv + optind, nopt - optind, o);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret == CMD_HELP ? 0 : ret;
	return record_run(&o);
}
