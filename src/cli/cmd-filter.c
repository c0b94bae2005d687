/*
 * cmd-filter.c: fstap filter: a trace with only the operations selected by
 * process, process name, path, operation type and time window
 * (src/analysis/filter.c does the work).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cmd.h"
#include "fstap/log.h"

static const char filter_usage[] =
	"usage: fstap filter [--pid=N,...] [--comm=NAME,...] [--path=PREFIX] [--op=NAME,...]\n"
	"                    [--from=TIME] [--to=TIME] TRACE -o OUT\n"
	"\n"
	"Write to OUT the operation records of TRACE that match every option given\n"
	"(each list matches any of its values; options may be repeated). The\n"
	"initial state, process and loss records are always kept, the footer is\n"
	"recomputed and the metadata gets a \"transform\" entry. Records that name\n"
	"the directories and files of the kept records (lookup, create, mkdir,\n"
	"rename, ...) are kept too when the selection dropped them, so that a\n"
	"replay can resolve every path.\n"
	"\n"
	"  -o, --output=OUT       the trace to write ('-': standard output)\n"
	"      --pid=N,...        operations of these process ids\n"
	"      --comm=NAME,...    operations of processes with these names (the\n"
	"                         trace's process records, as in /proc/PID/comm)\n"
	"      --path=PREFIX      operations on PREFIX or below it (paths as\n"
	"                         'fstap export' shows them, e.g. /news-spool/comp)\n"
	"      --op=NAME,...      operations of these types (lookup, read, write, ...)\n"
	"      --from=TIME        operations that start at TIME or later\n"
	"      --to=TIME          operations that start before TIME; TIME is in ns\n"
	"                         since the start of the trace, or with a unit:\n"
	"                         1.5s, 200ms, 30us, 12ns, 2m\n"
	"  -h, --help             show this help\n"
	"\n"
	"TRACE is read twice, so it must be a file, not standard input. OUT is\n"
	"written next to itself and renamed into place when complete: after an\n"
	"error (a full disk) or a signal, an existing OUT is as it was. An OUT that\n"
	"is TRACE (also through a link) is refused.\n";

/* What the command line asks for; the lists point into argv (split in place). */
struct filter_cli {
	struct an_filter_opts o;
	char **pid_args, **comms, **op_args;
	size_t npid_args, ncomms, nop_args;
	uint32_t *pids;
	uint16_t *ops;
	char *args;		/* the command line, for the metadata */
	const char *trace, *out;
};

static void filter_cli_release(struct filter_cli *cli)
{
	free(cli->pid_args);
	free(cli->comms);
	free(cli->op_args);
	free(cli->pids);
	free(cli->ops);
	free(cli->args);
}

/* argv joined by spaces (the caller frees it). */
static char *command_line(int argc, char **argv)
{
	size_t len = 0, i;
	char *args;

	for (i = 0; i < (size_t)argc; i++)
		len += strlen(argv[i]) + 1;
	args = calloc(1, len + 1);
	if (!args)
		fstap_die("out of memory");
	for (i = 0; i < (size_t)argc; i++) {
		if (i)
			strcat(args, " ");
		strcat(args, argv[i]);
	}
	return args;
}

/* One option of getopt_long: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_option(int c, char *arg, struct filter_cli *cli)
{
	switch (c) {
	case 'o': cli->out = arg; return 0;
	case 'p':
		if (cmd_split_list(arg, &cli->pid_args, &cli->npid_args))
			return cmd_usage_error("filter", "--pid wants a list of process ids");
		return 0;
	case 'c':
		if (cmd_split_list(arg, &cli->comms, &cli->ncomms))
			return cmd_usage_error("filter", "--comm wants a list of process names");
		return 0;
	case 'O':
		if (cmd_split_list(arg, &cli->op_args, &cli->nop_args))
			return cmd_usage_error("filter", "--op wants a list of operation names");
		return 0;
	case 'P':
		if (arg[0] != '/')
			return cmd_usage_error("filter", "--path wants an absolute path in the trace, "
					       "like /dir, not '%s'", arg);
		cli->o.path = arg;
		return 0;
	case 'f':
	case 't':
		if (an_parse_time(arg, c == 'f' ? &cli->o.from_ns : &cli->o.to_ns))
			return cmd_usage_error("filter", "--%s wants a time like 1.5s, 200ms or 1000 (ns), not '%s'",
					       c == 'f' ? "from" : "to", arg);
		return 0;
	case 'h': fputs(filter_usage, stdout); return CMD_HELP;
	default: return cmd_usage_error("filter", "unknown option");
	}
}

/* --pid's and --op's lists into cli->pids and cli->ops: 0, or the usage exit code. */
static int parse_lists(struct filter_cli *cli)
{
	size_t i;

	cli->pids = calloc(cli->npid_args + 1, sizeof(*cli->pids));
	cli->ops = calloc(cli->nop_args + 1, sizeof(*cli->ops));
	if (!cli->pids || !cli->ops)
		fstap_die("out of memory");
	for (i = 0; i < cli->npid_args; i++) {
		const char *a = cli->pid_args[i];
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(a, &end, 10);
		if (errno || end == a || *end || v > UINT32_MAX || a[0] == '-')
			return cmd_usage_error("filter", "'%s' is not a process id", a);
		cli->pids[i] = (uint32_t)v;
	}
	for (i = 0; i < cli->nop_args; i++) {
		enum fstap_op op = fstap_op_by_name(cli->op_args[i]);

		if (op == FSTAP_OP_NONE || fstap_op_is_meta(op))
			return cmd_usage_error("filter", "'%s' is not an operation (see docs/trace-format.md)",
					       cli->op_args[i]);
		cli->ops[i] = (uint16_t)op;
	}
	return 0;
}

/* The command line into *cli: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_options(int argc, char **argv, struct filter_cli *cli)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "path", required_argument, NULL, 'P' },
		{ "op", required_argument, NULL, 'O' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	/* the command line, for the metadata: before the lists are split in place */
	cli->args = command_line(argc, argv);
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1)
		if ((ret = parse_option(c, optarg, cli)))
			return ret;
	if (argc - optind != 1)
		return cmd_usage_error("filter", "expected one TRACE argument");
	if (!cli->out)
		return cmd_usage_error("filter", "-o OUT is required");
	if (cli->o.to_ns && cli->o.to_ns <= cli->o.from_ns)
		return cmd_usage_error("filter", "--to must be later than --from");
	if ((ret = parse_lists(cli)))
		return ret;
	cli->trace = argv[optind];
	cli->o.pids = cli->pids;
	cli->o.npids = cli->npid_args;
	cli->o.comms = (const char *const *)cli->comms;
	cli->o.ncomms = cli->ncomms;
	cli->o.ops = cli->ops;
	cli->o.nops = cli->nop_args;
	cli->o.args = cli->args;
	return 0;
}

int cmd_filter(int argc, char **argv)
{
	struct filter_cli cli = { 0 };
	struct an_filter_stats st;
	int status;

	status = parse_options(argc, argv, &cli);
	if (!status) {
		status = an_filter(cli.trace, cli.out, &cli.o, &st) ? 1 : 0;
		if (!status)
			fstap_info("kept %llu of %llu operation records (%llu selected, %llu added "
				   "for path resolution)",
				   (unsigned long long)(st.selected + st.added),
				   (unsigned long long)st.read, (unsigned long long)st.selected,
				   (unsigned long long)st.added);
	}
	filter_cli_release(&cli);
	return status == CMD_HELP ? 0 : status;
}
