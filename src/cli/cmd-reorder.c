/*
 * cmd-reorder.c: fstap reorder: a variant of a trace in which each thread
 * reads the files of a directory in readdir, name, inode or random order, or
 * in the order of a prepared target's own readdir (src/analysis/reorder*.c
 * do the work).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "cli/cmd.h"
#include "fstap/log.h"

static const char reorder_usage[] =
	"usage: fstap reorder --by=readdir|name|inode|random [--seed=N] TRACE -o OUT\n"
	"       fstap reorder --by=target-readdir --target=DIR TRACE -o OUT\n"
	"\n"
	"Write to OUT a variant of TRACE in which, wherever a thread works through\n"
	"files of one directory one after the other (lookup, open, reads, writes,\n"
	"release of each file), it visits them in the chosen order:\n"
	"\n"
	"  readdir   the order of the directory's latest listing (readdir) before\n"
	"  name      byte-wise name order (strcmp, as 'ls' in the C locale)\n"
	"  inode     inode number order (from the initial state, else d_ino)\n"
	"  random    a shuffle seeded by --seed (default 1): the same seed gives\n"
	"            the same trace\n"
	"  target-readdir\n"
	"            the order in which DIR's own readdir returns the directory's\n"
	"            entries, DIR being TRACE prepared by 'fstap prepare' on the\n"
	"            file system to replay on (what the application would have\n"
	"            seen there)\n"
	"\n"
	"Each file's records stay together and in their order; records that are\n"
	"part of no such group stay where they are; only the start times change\n"
	"(durations are kept). The initial state and process records are copied;\n"
	"the metadata gets a \"transform\" entry. Replay the variants with\n"
	"'fstap replay' or 'fstap compare' to see whether the file system cares\n"
	"about the order; docs/analysis.md describes the experiment.\n"
	"\n"
	"  -o, --output=OUT   the trace to write ('-': standard output)\n"
	"      --by=ORDER     readdir, name, inode, random or target-readdir (required)\n"
	"      --seed=N       the seed of the random order (default 1)\n"
	"      --target=DIR   the prepared directory of --by=target-readdir\n"
	"  -h, --help         show this help\n"
	"\n"
	"OUT is written next to itself and renamed into place when complete: after\n"
	"an error (a full disk) or a signal, an existing OUT is as it was. An OUT\n"
	"that is TRACE (also through a link) is refused.\n";

int cmd_reorder(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "by", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "target", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct an_reorder_stats st = { 0 };
	const char *out = NULL, *target = NULL;
	int by = -1, c, i;
	uint64_t seed = 1;
	struct stat sb;
	char *end;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': target = optarg; break;
		case 'b':
			for (i = 0; i < AN_BY_NR && strcmp(optarg, an_order_names[i]); i++)
				;
			if (i == AN_BY_NR)
				return cmd_usage_error("reorder", "--by wants readdir, name, inode, random "
						       "or target-readdir, not '%s'", optarg);
			by = i;
			break;
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return cmd_usage_error("reorder", "--seed wants a number, not '%s'", optarg);
			break;
		case 'h': fputs(reorder_usage, stdout); return 0;
		default: return cmd_usage_error("reorder", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("reorder", "expected one TRACE argument");
	if (by < 0)
		return cmd_usage_error("reorder", "--by=readdir|name|inode|random|target-readdir is required");
	if (!out)
		return cmd_usage_error("reorder", "-o OUT is required");
	if ((by == AN_BY_TARGET) != !!target)
		return cmd_usage_error("reorder", target ? "--target only goes with --by=target-readdir"
				       : "--by=target-readdir needs --target=DIR (the prepared trace)");
	if (target && (stat(target, &sb) || access(target, R_OK | X_OK)))
		return fstap_error(1, "--target '%s': %s", target, strerror(errno));
	if (target && !S_ISDIR(sb.st_mode))
		return fstap_error(1, "--target '%s': not a directory", target);
	if (an_reorder(argv[optind], out, (enum an_order)by, seed, target, &st))
		return 1;
	fstap_info("%llu groups in %llu runs reordered by %s; %llu groups moved",
		   (unsigned long long)st.groups, (unsigned long long)st.runs,
		   an_order_names[by], (unsigned long long)st.moved);
	return 0;
}
