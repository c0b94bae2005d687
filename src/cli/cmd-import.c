/*
 * cmd-import.c: fstap import: JSON Lines (from export, by hand, or from a
 * converter) or an strace log (--from=strace: src/import/) to a binary trace.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "fstap/jsonl.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/util.h"
#include "import/strace_import.h"

static const char import_usage[] =
	"usage: fstap import -o TRACE [--chunk-size=SIZE] FILE.jsonl\n"
	"       fstap import --from=strace [--root=DIR] [--state=DIR] [--skip-bad-lines]\n"
	"                    -o TRACE LOG...\n"
	"\n"
	"Write the binary trace TRACE from JSON Lines (FILE '-' is standard input).\n"
	"The first line is the header ({\"fstap\":\"trace\", ...}), then one record a\n"
	"line; the schema is in docs/trace-format.md. Keys are checked strictly: an\n"
	"unknown op or key is an error naming its line. The trace gets a footer only\n"
	"if the input ends with a {\"op\":\"footer\"} line, as exported traces do.\n"
	"\n"
	"With --from=strace, LOG is the output of `strace -f -tt -T -yy -v -o LOG CMD`\n"
	"(-ttt, --absolute-timestamps=unix,ns, --syscall-times=ns and no -f work\n"
	"too; the per-pid files LOG.PID of -ff are read when LOG is their prefix\n"
	"or when they are given one by one, merged by time stamp): the calls on\n"
	"paths below --root (default /)\n"
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

/* The pid of a per-pid file NAME.PID of strace -ff, or 0. */
static uint32_t ff_pid(const char *path)
{
	const char *dot = strrchr(path, '.'), *p;
	unsigned long v;

	if (!dot || !dot[1] || strchr(dot, '/'))
		return 0;
	for (p = dot + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	v = strtoul(dot + 1, NULL, 10);
	return v > 0 && v < (1ul << 31) ? (uint32_t)v : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files PREFIX.PID of strace -ff -o PREFIX, sorted: their count (0: none), -1 ENOMEM. */
static int ff_files(const char *prefix, char ***out)
{
	const char *slash = strrchr(prefix, '/');
	char *dir = slash ? strndup(prefix, (size_t)(slash - prefix + 1)) : strdup("./");
	const char *base = slash ? slash + 1 : prefix;
	size_t blen = strlen(base), n = 0, cap = 0;
	char **v = NULL;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	if (!dir)
		return -1;
	if (!(d = opendir(dir))) {
		free(dir);
		return 0;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, base, blen) || e->d_name[blen] != '.' ||
		    !ff_pid(e->d_name + blen))
			continue;
		if (FSTAP_GROW(v, n + 1, cap))
			break;
		if (asprintf(&v[n], "%s%s", slash ? dir : "", e->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	free(dir);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return (int)n;
}

/*
 * fstap import --from=strace LOG...: one log, the per-pid files of a
 * prefix, or per-pid files one by one.
 */
static int import_strace(char **args, int nargs, const char *out_path,
			 const struct strace_import_opts *so)
{
	struct strace_import_stats stats;
	struct strace_log *logs = calloc((size_t)nargs, sizeof(*logs));
	char **files = NULL, *msg = NULL;
	const char **inputs = NULL;
	struct fstap_output *out = NULL;
	int i, n = nargs, ret = -1;

	if (!logs)
		return fstap_error(1, "out of memory");
	if (nargs == 1 && strcmp(args[0], "-") && access(args[0], F_OK) &&
	    (n = ff_files(args[0], &files)) > 0) {
		free(logs);
		if (!(logs = calloc((size_t)n, sizeof(*logs))))
			goto done;
	} else {
		n = nargs;	/* one log (a missing one is said by fopen), or -ff files */
	}
	if (!(inputs = calloc((size_t)n + 1, sizeof(*inputs))))
		goto done;
	for (i = 0; i < n; i++) {
		const char *path = files ? files[i] : args[i];

		logs[i].name = inputs[i] = path;
		logs[i].pid = n > 1 ? ff_pid(path) : 0;
		if (n > 1 && !logs[i].pid) {
			fstap_error(1, "'%s' is not a per-pid file of strace -ff (NAME.PID): "
				    "give one log, or the files of one -ff run", path);
			goto done;
		}
		logs[i].f = strcmp(path, "-") ? fopen(path, "re") : stdin;
		if (!logs[i].f) {
			fstap_error(1, "cannot open '%s': %s", path, strerror(errno));
			goto done;
		}
	}
	if ((ret = fstap_output_open(&out, out_path, inputs)))
		goto done;
	ret = strace_import_logs(logs, (size_t)n, args[0], fstap_output_fd(out),
				 out_path, so, stderr, &stats, &msg);
	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		fstap_output_abort(out);
	} else {
		ret = fstap_output_commit(out);
	}
done:
	for (i = 0; i < n; i++)
		if (logs && logs[i].f && logs[i].f != stdin)
			fclose(logs[i].f);
	for (i = 0; files && i < n; i++)
		free(files[i]);
	free(files);
	free(inputs);
	free(logs);
	free(msg);
	return ret ? 1 : 0;
}

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
	if (argc - optind != 1 && !(strace && argc > optind))
		return cmd_usage_error("import", strace ? "expected a LOG argument"
				       : "expected one FILE argument");
	if (!out_path)
		return cmd_usage_error("import", "-o TRACE is required");
	if (!strace && (so.root || so.state || so.skip_bad_lines))
		return cmd_usage_error("import", "--root, --state and --skip-bad-lines need --from=strace");
	so.chunk_size = (size_t)chunk_size;
	if (strace)
		return import_strace(argv + optind, argc - optind, out_path, &so);
	in_path = argv[optind];
	inputs[0] = in_path;
	in = strcmp(in_path, "-") ? fopen(in_path, "re") : stdin;
	if (!in)
		return fstap_error(1, "cannot open '%s': %s", in_path, strerror(errno));
	ret = fstap_output_open(&out, out_path, inputs);
	if (!ret) {
		so.chunk_size = (size_t)chunk_size;
		ret = fstap_jsonl_import_fd(in, in_path, fstap_output_fd(out), out_path,
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
