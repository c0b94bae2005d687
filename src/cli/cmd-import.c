/*
 * cmd-import.c: fstap import: JSON Lines (from export, by hand, or from a
 * converter) or an strace log (--from=strace: src/import/) to a binary trace.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "fstap/jsonl.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "import/strace_import.h"

static const char import_usage[] =
	"usage: fstap import -o TRACE [--chunk-size=SIZE] FILE.jsonl\n"
	"       fstap import --from=strace [--root=DIR] [--state=DIR] [--skip-bad-lines]\n"
	"                    -o TRACE LOG\n"
	"\n"
	"Write the binary trace TRACE from JSON Lines (FILE '-' is standard input).\n"
	"The first line is the header ({\"fstap\":\"trace\", ...}), then one record a\n"
	"line; the schema is in docs/trace-format.md. Keys are checked strictly: an\n"
	"unknown op or key is an error naming its line. The trace gets a footer only\n"
	"if the input ends with a {\"op\":\"footer\"} line, as exported traces do.\n"
	"\n"
	"With --from=strace, LOG is the output of `strace -f -tt -T -yy -v -o LOG CMD`\n"
	"(-ttt and no -f work too): the calls on paths below --root (default /)\n"
	"become operations (open, read, write, close, stat, getdents64, mkdir,\n"
	"unlink, rename, link, symlink, chmod, chown, utimensat, truncate, xattrs,\n"
	"fsync, fallocate, copy_file_range, statfs...), paths relative to --root;\n"
	"<unfinished ...> calls are joined with their <... resumed> lines.\n"
	"The calls outside --root and those with no fstap operation are counted,\n"
	"by name, in a summary on standard error. A malformed line is an error\n"
	"naming it. See docs/sharing.md for the whole recipe.\n"
	"\n"
	"  -o, --output TRACE     the trace to write (required)\n"
	"      --from=FORMAT      jsonl (the default) or strace\n"
	"      --root=DIR         strace: import the calls below DIR (the trace's root)\n"
	"      --state=DIR        strace: describe DIR's tree, now, as the initial\n"
	"                         state (a copy of --root taken before the run)\n"
	"      --skip-bad-lines   strace: count malformed lines instead of failing\n"
	"      --chunk-size=SIZE  payload bytes per chunk (default 256k)\n"
	"  -h, --help             show this help\n"
	"\n"
	"TRACE is written next to itself and renamed into place when complete:\n"
	"after an error (a full disk) or a signal, an existing TRACE is as it was.\n"
	"A TRACE that is FILE (also through a link) is refused.\n";

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "chunk-size", required_argument, NULL, 'C' },
		{ "from", required_argument, NULL, 'F' },
		{ "root", required_argument, NULL, 'R' },
		{ "state", required_argument, NULL, 'S' },
		{ "skip-bad-lines", no_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct strace_import_opts so = { 0 };
	struct strace_import_stats stats;
	bool strace = false;
	unsigned long long chunk_size = 0;
	const char *out_path = NULL, *in_path, *inputs[2] = { NULL, NULL };
	struct fstap_output *out;
	char *msg = NULL;
	FILE *in;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'C':
			if (cmd_parse_size(optarg, &chunk_size) || chunk_size < 4096 ||
			    chunk_size > (16u << 20))
				return cmd_usage_error("import", "--chunk-size must be between 4k and 16M");
			break;
		case 'F':
			if (strcmp(optarg, "strace") && strcmp(optarg, "jsonl"))
				return cmd_usage_error("import", "--from must be jsonl or strace");
			strace = !strcmp(optarg, "strace");
			break;
		case 'R': so.root = optarg; break;
		case 'S': so.state = optarg; break;
		case 'B': so.skip_bad_lines = true; break;
		case 'h': fputs(import_usage, stdout); return 0;
		default: return cmd_usage_error("import", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("import", "expected one FILE argument");
	if (!out_path)
		return cmd_usage_error("import", "-o TRACE is required");
	if (!strace && (so.root || so.state || so.skip_bad_lines))
		return cmd_usage_error("import", "--root, --state and --skip-bad-lines need --from=strace");
	in_path = argv[optind];
	inputs[0] = in_path;
	in = strcmp(in_path, "-") ? fopen(in_path, "re") : stdin;
	if (!in)
		return fstap_error(1, "cannot open '%s': %s", in_path, strerror(errno));
	ret = fstap_output_open(&out, out_path, inputs);
	if (!ret) {
		so.chunk_size = (size_t)chunk_size;
		ret = strace
			? strace_import(in, in_path, fstap_output_fd(out), out_path, &so, stderr,
					&stats, &msg)
			: fstap_jsonl_import_fd(in, in_path, fstap_output_fd(out), out_path,
						(size_t)chunk_size, &msg);
		if (ret) {
			fstap_error(ret, "%s", msg ? msg : strerror(-ret));
			fstap_output_abort(out);
		} else {
			ret = fstap_output_commit(out);
		}
	}
	if (in != stdin)
		fclose(in);
	free(msg);
	return ret ? 1 : 0;
}
