/*
 * cmd-prepare.c: fstap prepare: recreates the initial state a trace carries
 * (its state records) in an empty directory, before a replay. Its options;
 * the work, with the checks on the target and the messages, is in
 * replay/prepare-dir.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "fstap/log.h"
#include "replay/prepare.h"
#include "replay/replay.h"

static const char prepare_usage[] =
	"usage: fstap prepare [--order=creation|name|random] [--data=random|zero]\n"
	"                     [--seed=N] [--devices] [--strict] [--clone=N] [-q]\n"
	"                     TRACE DIR\n"
	"\n"
	"Recreate in DIR the initial state that TRACE carries: directories, files\n"
	"with their size and holes, symlinks, hard links, FIFOs, sockets and device\n"
	"nodes, with their owners, modes, xattrs and times. DIR must\n"
	"exist and be empty (a lost+found directory is allowed). Nothing outside DIR\n"
	"is created or changed, whatever the trace says: invalid or hostile entries\n"
	"are skipped with a warning. Ends with syncfs(DIR).\n"
	"\n"
	"      --order=ORDER  creation order: 'creation' (default: by recorded inode\n"
	"                     number, as the objects were created), 'name' (depth\n"
	"                     first, in name order), 'random' (shuffled by --seed);\n"
	"                     parents always come before their entries\n"
	"      --data=KIND    file contents: 'random' (default, incompressible) or 'zero'\n"
	"      --seed=N       seed of --order=random and of the random contents (default 1)\n"
	"      --devices      give device nodes their recorded device numbers (by\n"
	"                     default they get one that reaches no device: the null\n"
	"                     device for character nodes, 0:0 for block nodes, as\n"
	"                     fstap replay does; a recorded number reaches the device,\n"
	"                     outside DIR: only for traces you trust)\n"
	"      --strict       exit 1 if anything was skipped\n"
	"      --clone=N      N copies of the initial state, copy K in DIR/clone-K\n"
	"                     (K from 0), for 'fstap replay --clone=N' or --mpi\n"
	"  -q, --quiet        no progress line and no summary\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 when done (skipped entries are warnings), 1 on an error (a\n"
	"corrupt trace, DIR missing or not empty, not enough space, a full disk,\n"
	"an I/O error), 2 on a usage error.\n";

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* What the command line asks for. */
struct prepare_cli {
	struct prep_dir_opts o;
	bool strict;
	uint64_t clones;	/* --clone=N; 0: none */
	const char *trace, *dir;
};

/* One option of getopt_long: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_option(int c, const char *arg, struct prepare_cli *cli)
{
	switch (c) {
	case 'O':
		if (!strcmp(arg, "creation"))
			cli->o.order = PREP_ORDER_CREATION;
		else if (!strcmp(arg, "name"))
			cli->o.order = PREP_ORDER_NAME;
		else if (!strcmp(arg, "random"))
			cli->o.order = PREP_ORDER_RANDOM;
		else
			return cmd_usage_error("prepare", "--order must be creation, name or random");
		return 0;
	case 'D':
		if (!strcmp(arg, "random"))
			cli->o.po.data = PREP_DATA_RANDOM;
		else if (!strcmp(arg, "zero"))
			cli->o.po.data = PREP_DATA_ZERO;
		else
			return cmd_usage_error("prepare", "--data must be random or zero");
		return 0;
	case 'S':
		if (parse_u64(arg, &cli->o.po.seed))
			return cmd_usage_error("prepare", "--seed must be a number");
		return 0;
	case 'C':
		if (parse_u64(arg, &cli->clones) || !cli->clones || cli->clones > RP_CLONES_MAX)
			return cmd_usage_error("prepare", "--clone must be a number from 1 "
					       "to %u", RP_CLONES_MAX);
		return 0;
	case 'V': cli->o.po.devices = true; return 0;
	case 'N': cli->o.po.devices = false; return 0;
	case 'T': cli->strict = true; return 0;
	case 'q': cli->o.quiet = true; return 0;
	case 'h': fputs(prepare_usage, stdout); return CMD_HELP;
	default: return cmd_usage_error("prepare", "unknown option");
	}
}

/* The command line into *cli: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_options(int argc, char **argv, struct prepare_cli *cli)
{
	static const struct option opts[] = {
		{ "order", required_argument, NULL, 'O' },
		{ "data", required_argument, NULL, 'D' },
		{ "seed", required_argument, NULL, 'S' },
		{ "devices", no_argument, NULL, 'V' },
		{ "no-devices", no_argument, NULL, 'N' },	/* the default; kept */
		{ "strict", no_argument, NULL, 'T' },
		{ "clone", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	cli->o.po.data = PREP_DATA_RANDOM;
	cli->o.po.seed = 1;
	cli->o.po.devices = false;
	cli->o.order = PREP_ORDER_CREATION;
	cli->o.quiet = fstap_verbosity < 0;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1)
		if ((ret = parse_option(c, optarg, cli)))
			return ret;
	if (argc - optind != 2)
		return cmd_usage_error("prepare", "expected TRACE and DIR");
	cli->trace = argv[optind];
	cli->dir = argv[optind + 1];
	cli->o.po.dir_name = cli->dir;
	cli->o.po.progress = !cli->o.quiet && isatty(STDERR_FILENO);
	return 0;
}

int cmd_prepare(int argc, char **argv)
{
	struct prepare_cli cli = { 0 };
	uint64_t skipped = 0;
	int status;

	status = parse_options(argc, argv, &cli);
	if (status)
		return status == CMD_HELP ? 0 : status;
	cli.o.clones = (unsigned)cli.clones;
	cli.o.only_clone = -1;
	if (prep_dir(cli.trace, cli.dir, &cli.o, &skipped))
		return 1;
	if (cli.strict && skipped)
		return fstap_error(1, "%llu entries of the trace were skipped (--strict)",
				   (unsigned long long)skipped);
	return 0;
}
