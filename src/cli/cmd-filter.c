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

int cmd_filter(int argc, char **argv)
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
	struct an_filter_opts o = { 0 };
	struct an_filter_stats st;
	char **pid_args = NULL, **comms = NULL, **op_args = NULL, *args = NULL;
	size_t npid_args = 0, ncomms = 0, nop_args = 0, len = 0, i;
	uint32_t *pids = NULL;
	uint16_t *ops = NULL;
	const char *out = NULL;
	int c, status = 2;

	/* the command line, for the metadata: before the lists are split in place */
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
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'p':
			if (cmd_split_list(optarg, &pid_args, &npid_args)) {
				cmd_usage_error("filter", "--pid wants a list of process ids");
				goto done;
			}
			break;
		case 'c':
			if (cmd_split_list(optarg, &comms, &ncomms)) {
				cmd_usage_error("filter", "--comm wants a list of process names");
				goto done;
			}
			break;
		case 'O':
			if (cmd_split_list(optarg, &op_args, &nop_args)) {
				cmd_usage_error("filter", "--op wants a list of operation names");
				goto done;
			}
			break;
		case 'P':
			if (optarg[0] != '/') {
				cmd_usage_error("filter", "--path wants an absolute path in the trace, "
						"like /dir, not '%s'", optarg);
				goto done;
			}
			o.path = optarg;
			break;
		case 'f':
		case 't':
			if (an_parse_time(optarg, c == 'f' ? &o.from_ns : &o.to_ns)) {
				cmd_usage_error("filter", "--%s wants a time like 1.5s, 200ms or 1000 (ns), not '%s'",
						c == 'f' ? "from" : "to", optarg);
				goto done;
			}
			break;
		case 'h': fputs(filter_usage, stdout); status = 0; goto done;
		default: cmd_usage_error("filter", "unknown option"); goto done;
		}
	}
	if (argc - optind != 1) {
		cmd_usage_error("filter", "expected one TRACE argument");
		goto done;
	}
	if (!out) {
		cmd_usage_error("filter", "-o OUT is required");
		goto done;
	}
	if (o.to_ns && o.to_ns <= o.from_ns) {
		cmd_usage_error("filter", "--to must be later than --from");
		goto done;
	}
	pids = calloc(npid_args + 1, sizeof(*pids));
	ops = calloc(nop_args + 1, sizeof(*ops));
	if (!pids || !ops)
		fstap_die("out of memory");
	for (i = 0; i < npid_args; i++) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(pid_args[i], &end, 10);
		if (errno || end == pid_args[i] || *end || v > UINT32_MAX || pid_args[i][0] == '-') {
			cmd_usage_error("filter", "'%s' is not a process id", pid_args[i]);
			goto done;
		}
		pids[i] = (uint32_t)v;
	}
	for (i = 0; i < nop_args; i++) {
		enum fstap_op op = fstap_op_by_name(op_args[i]);

		if (op == FSTAP_OP_NONE || fstap_op_is_meta(op)) {
			cmd_usage_error("filter", "'%s' is not an operation (see docs/trace-format.md)",
					op_args[i]);
			goto done;
		}
		ops[i] = (uint16_t)op;
	}
	o.pids = pids;
	o.npids = npid_args;
	o.comms = (const char *const *)comms;
	o.ncomms = ncomms;
	o.ops = ops;
	o.nops = nop_args;
	o.args = args;
	if (an_filter(argv[optind], out, &o, &st)) {
		status = 1;
		goto done;
	}
	fstap_info("kept %llu of %llu operation records (%llu selected, %llu added for path resolution)",
		   (unsigned long long)(st.selected + st.added), (unsigned long long)st.read,
		   (unsigned long long)st.selected, (unsigned long long)st.added);
	status = 0;
done:
	free(pid_args);
	free(comms);
	free(op_args);
	free(pids);
	free(ops);
	free(args);
	return status;
}
