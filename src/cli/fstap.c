/*
 * fstap.c: main. Global options, the table of subcommands, dispatch, and the
 * final check that stdout was written in full (output is often piped).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cli/cmd.h"
#include "fstap/crash.h"
#include "fstap/log.h"
#include "fstap/testhook.h"
#include "fstap/util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "anonymize", cmd_anonymize, "replace a trace's names, values and command lines by keyed tokens" },
	{ "compare", cmd_compare, "run a trace on several file systems and compare them" },
	{ "disk", cmd_disk, "serve an image file with the timing of a modeled disk" },
	{ "export", cmd_export, "write a trace as JSON Lines, paths resolved" },
	{ "filter", cmd_filter, "keep the operations of some processes, paths, types or times" },
	{ "import", cmd_import, "write a trace from JSON Lines or an strace log" },
	{ "info", cmd_info, "show a trace's header, metadata and totals; verify it" },
	{ "prepare", cmd_prepare, "recreate a trace's initial tree in an empty directory" },
	{ "record", cmd_record, "mount a recording passthrough of a directory" },
	{ "reorder", cmd_reorder, "visit the files of each directory in another order" },
	{ "replay", cmd_replay, "re-execute a trace in a directory, with timing" },
	{ "report", cmd_report, "summarize a trace's workload: op mix, sizes, access order" },
};

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: fstap [--version] [--help] [-q|-v] COMMAND [ARGS]\n\n"
		   "Record the file-system workload of an application and replay it on\n"
		   "candidate file systems.\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'fstap help COMMAND' or 'fstap COMMAND --help' shows a command's options.\n");
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fstap %s: %s\nTry 'fstap %s --help'.\n", cmd, msg, cmd);
	return 2;
}

int cmd_split_list(char *arg, char ***list, size_t *n)
{
	char *save = NULL, *tok;

	if (!*arg || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,"))
		return -EINVAL;
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **p = realloc(*list, (*n + 1) * sizeof(*p));

		if (!p)
			fstap_die("out of memory");
		*list = p;
		p[(*n)++] = tok;
	}
	return 0;
}

int cmd_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end)
		return -EINVAL;
	if (shift && v > (~0ULL >> shift))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* git.c's rule: a command that succeeded but could not write its output failed. */
static int finish_stdout(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "fstap: error: cannot write to standard output: %s\n",
				strerror(errno));
		return ret ? ret : 1;
	}
	if (fclose(stdout) && ret == 0) {
		fprintf(stderr, "fstap: error: cannot close standard output: %s\n", strerror(errno));
		return 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int i;

	fstap_crash_handler_install();
	fstap_testhook_crash();
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--version")) {
			printf("fstap %s (trace format %d.%d)\n", PACKAGE_VERSION, 1, 0);
			return finish_stdout(0);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_usage(stdout);
			return finish_stdout(0);
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			fstap_verbosity = -1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			fstap_verbosity++;
		} else {
			fprintf(stderr, "fstap: unknown option '%s'\n", a);
			print_usage(stderr);
			return 2;
		}
	}
	if (i == argc) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 == argc) {
			print_usage(stdout);
			return finish_stdout(0);
		}
		cmd = find_command(argv[i + 1]);
		if (!cmd) {
			fprintf(stderr, "fstap: '%s' is not an fstap command; see 'fstap help'\n",
				argv[i + 1]);
			return 2;
		}
		{
			char *hargv[] = { argv[i + 1], (char *)"--help", NULL };

			optind = 0;
			return finish_stdout(cmd->fn(2, hargv));
		}
	}
	cmd = find_command(argv[i]);
	if (!cmd) {
		fprintf(stderr, "fstap: '%s' is not an fstap command; see 'fstap help'\n", argv[i]);
		return 2;
	}
	optind = 0;
	return finish_stdout(cmd->fn(argc - i, argv + i));
}
