/*
 * cmd-report.c: fstap report: the workload a trace holds, for people
 * (src/analysis/report.c does the work; docs/analysis.md explains the numbers).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "cli/cmd.h"

static const char report_usage[] =
	"usage: fstap report [--json] [--top=N] TRACE\n"
	"\n"
	"Summarize the workload in TRACE: duration, operations by type and by\n"
	"process, bytes read and written, files and directories touched, request\n"
	"size histograms, sequential versus random access, the busiest directories,\n"
	"failed lookups, requests the kernel made on its own, and the access order:\n"
	"whether processes open the files of a directory in the readdir order of\n"
	"its latest listing (their own, else any process's: find | xargs cat), in\n"
	"name order or in inode order (Spearman rank correlation per directory,\n"
	"then a verdict and who listed and who read). docs/analysis.md explains\n"
	"every number.\n"
	"\n"
	"      --json    print one JSON object with the same numbers\n"
	"      --top=N   rows in the process, directory and access-order tables\n"
	"                (default 10)\n"
	"  -h, --help    show this help\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct an_report_opts o = { .json = false, .top = 10 };
	char *end;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': o.json = true; break;
		case 't':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 || v > 1000000)
				return cmd_usage_error("report", "--top wants a number from 1 to 1000000, not '%s'",
						       optarg);
			o.top = (unsigned)v;
			break;
		case 'h': fputs(report_usage, stdout); return 0;
		default: return cmd_usage_error("report", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("report", "expected one TRACE argument");
	return an_report(argv[optind], &o, stdout) ? 1 : 0;
}
