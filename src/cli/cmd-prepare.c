/*
 * cmd-prepare.c: fstap prepare: recreates the initial state a trace carries
 * (its state records) in an empty directory, before a replay. Options, the
 * checks on the target, and the messages; the work is in replay/prepare*.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "fstap/devnode.h"
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

static void print_skips(const struct prep_model *m)
{
	uint64_t total = 0;
	uint32_t i;
	char path[1024];

	for (i = 0; i < PREP_SKIP_NR; i++)
		total += m->skipped[i];
	for (i = 0; i < m->nnotes; i++) {
		const struct prep_note *n = &m->notes[i];

		char what[1100];
		uint32_t d = n->dent;

		if (d != UINT32_MAX || m->objs[n->obj].via != UINT32_MAX) {
			/* An entry, or an object with its place in the tree. */
			if (d != UINT32_MAX)
				prep_dent_path(m, d, path, sizeof(path));
			else
				prep_obj_path(m, n->obj, path, sizeof(path));
			snprintf(what, sizeof(what), "'%s'", path);
		} else if ((d = prep_obj_first_dent(m, n->obj)) != UINT32_MAX) {
			snprintf(what, sizeof(what), "object %llu ('%s')",
				 (unsigned long long)m->objs[n->obj].id,
				 prep_dent_path(m, d, path, sizeof(path)));
		} else {
			snprintf(what, sizeof(what), "object %llu",
				 (unsigned long long)m->objs[n->obj].id);
		}
		if (n->err)
			fstap_warn("skipped %s: %s: %s", what, prep_skip_str(n->why), strerror(n->err));
		else
			fstap_warn("skipped %s: %s", what, prep_skip_str(n->why));
	}
	if (total > m->nnotes) {
		char by[1024];
		size_t pos = 0;

		by[0] = 0;
		for (i = 0; i < PREP_SKIP_NR; i++)
			if (m->skipped[i] && pos < sizeof(by))
				pos += (size_t)snprintf(by + pos, sizeof(by) - pos, "%s%llu %s",
							pos ? ", " : "",
							(unsigned long long)m->skipped[i],
							prep_skip_str(i));
		fstap_warn("%llu skipped in all: %s", (unsigned long long)total, by);
	}
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/*
 * Runs m's plan beneath fd (the directory dir), with its warnings and its
 * summary line; first: the first copy (the skips are said once). Adds the
 * skips of the first copy to *skipped. 0, or 1 after an error line.
 */
static int prepare_into(struct prep_model *m, int fd, const struct prep_opts *po,
			const char *dir, bool quiet, bool first, uint64_t *skipped)
{
	struct prep_stats st;
	char *msg = NULL;
	unsigned i;
	int ret;

	ret = prep_run(m, fd, po, &st, &msg);
	if (first)
		print_skips(m);
	if (ret) {
		fstap_error(1, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return 1;
	}
	if (st.xattr_failed)
		fstap_warn("%llu xattrs could not be set in '%s' (first error: %s)",
			   (unsigned long long)st.xattr_failed, dir, strerror(st.first_xattr_err));
	if (st.attr_failed)
		fstap_warn("%llu owners, modes or times could not be set in '%s' (first error: %s)",
			   (unsigned long long)st.attr_failed, dir, strerror(st.first_attr_err));
	for (i = 0; first && i < PREP_SKIP_NR; i++)
		*skipped += m->skipped[i];
	if (!quiet)
		printf("prepared '%s': %llu objects (%llu directories, %llu files, %llu symlinks, "
		       "%llu special), %llu hard links, %llu bytes of data in %.2f s; "
		       "%llu skipped\n", dir, (unsigned long long)st.objects,
		       (unsigned long long)st.dirs, (unsigned long long)st.files,
		       (unsigned long long)st.symlinks, (unsigned long long)st.specials,
		       (unsigned long long)st.links, (unsigned long long)st.bytes, st.seconds,
		       (unsigned long long)*skipped);
	if (!quiet && st.devnodes_placeholder)
		printf("device nodes: %llu " FSTAP_DEVNODE_WORDS "\n",
		       (unsigned long long)st.devnodes_placeholder);
	return 0;
}

/* --clone=N: N copies beneath dir (fd), in RP_CLONE_NAME_FMT. 0, or 1 after an error. */
static int prepare_clones(struct prep_model *m, int fd, const struct prep_opts *base,
			  const char *dir, bool quiet, unsigned n, uint64_t *skipped)
{
	struct prep_opts po = *base;
	unsigned i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		char sub[32], *path = NULL;
		int cfd;

		snprintf(sub, sizeof(sub), RP_CLONE_NAME_FMT, i);
		if (asprintf(&path, RP_CLONE_DIR_FMT, dir, i) < 0)
			fstap_die("out of memory");
		if (mkdirat(fd, sub, 0755) ||
		    (cfd = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			fstap_error(1, "cannot create '%s': %s", path, strerror(errno));
			free(path);
			return 1;
		}
		po.dir_name = path;
		ret = prepare_into(m, cfd, &po, path, quiet, i == 0, skipped);
		close(cfd);
		free(path);
	}
	return ret;
}

/* What the command line asks for. */
struct prepare_cli {
	struct prep_opts po;
	enum prep_order order;
	bool quiet, strict;
	uint64_t clones;	/* --clone=N; 0: none */
	const char *trace, *dir;
};

/* One option of getopt_long: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_option(int c, const char *arg, struct prepare_cli *cli)
{
	switch (c) {
	case 'O':
		if (!strcmp(arg, "creation"))
			cli->order = PREP_ORDER_CREATION;
		else if (!strcmp(arg, "name"))
			cli->order = PREP_ORDER_NAME;
		else if (!strcmp(arg, "random"))
			cli->order = PREP_ORDER_RANDOM;
		else
			return cmd_usage_error("prepare", "--order must be creation, name or random");
		return 0;
	case 'D':
		if (!strcmp(arg, "random"))
			cli->po.data = PREP_DATA_RANDOM;
		else if (!strcmp(arg, "zero"))
			cli->po.data = PREP_DATA_ZERO;
		else
			return cmd_usage_error("prepare", "--data must be random or zero");
		return 0;
	case 'S':
		if (parse_u64(arg, &cli->po.seed))
			return cmd_usage_error("prepare", "--seed must be a number");
		return 0;
	case 'C':
		if (parse_u64(arg, &cli->clones) || !cli->clones || cli->clones > RP_CLONES_MAX)
			return cmd_usage_error("prepare", "--clone must be a number from 1 "
					       "to %u", RP_CLONES_MAX);
		return 0;
	case 'V': cli->po.devices = true; return 0;
	case 'N': cli->po.devices = false; return 0;
	case 'T': cli->strict = true; return 0;
	case 'q': cli->quiet = true; return 0;
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

	cli->po.data = PREP_DATA_RANDOM;
	cli->po.seed = 1;
	cli->po.devices = false;
	cli->order = PREP_ORDER_CREATION;
	cli->quiet = fstap_verbosity < 0;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1)
		if ((ret = parse_option(c, optarg, cli)))
			return ret;
	if (argc - optind != 2)
		return cmd_usage_error("prepare", "expected TRACE and DIR");
	cli->trace = argv[optind];
	cli->dir = argv[optind + 1];
	cli->po.dir_name = cli->dir;
	cli->po.progress = !cli->quiet && isatty(STDERR_FILENO);
	return 0;
}

/* Opens the target directory, which must be empty, into *fd: 0, or 1 after the error line. */
static int open_target(const char *dir, int *fd)
{
	int ret;

	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		if (errno == ENOENT)
			return fstap_error(1, "target directory '%s' does not exist", dir);
		if (errno == ENOTDIR)
			return fstap_error(1, "target '%s' is not a directory", dir);
		return fstap_error(1, "cannot open target directory '%s': %s", dir, strerror(errno));
	}
	ret = prep_check_empty(*fd);
	if (!ret)
		return 0;
	if (ret == -ENOTEMPTY)
		fstap_error(1, "target directory '%s' is not empty", dir);
	else
		fstap_error(1, "cannot read target directory '%s': %s", dir, strerror(-ret));
	close(*fd);
	return 1;
}

/* The trace's initial state into *m, planned in cli's order: 0, or 1 after the error line. */
static int read_model(const struct prepare_cli *cli, struct prep_model **m)
{
	char *msg = NULL;
	int ret;

	if (prep_model_new(m))
		return fstap_error(1, "out of memory");
	ret = prep_model_read(*m, cli->trace, &msg);
	if (ret) {
		fstap_error(1, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return 1;
	}
	if (msg)	/* an incomplete trace: its state is whole up to the cut */
		fstap_warn("%s", msg);
	free(msg);
	if (prep_plan(*m, cli->order, cli->po.seed))
		return fstap_error(1, "out of memory");
	return 0;
}

int cmd_prepare(int argc, char **argv)
{
	struct prepare_cli cli = { 0 };
	struct prep_model *m = NULL;
	uint64_t skipped = 0;
	int fd, status;

	status = parse_options(argc, argv, &cli);
	if (status)
		return status == CMD_HELP ? 0 : status;
	if (open_target(cli.dir, &fd))
		return 1;
	status = read_model(&cli, &m);
	if (!status && !cli.clones)
		status = prepare_into(m, fd, &cli.po, cli.dir, cli.quiet, true, &skipped);
	else if (!status)
		status = prepare_clones(m, fd, &cli.po, cli.dir, cli.quiet, (unsigned)cli.clones,
					&skipped);
	if (!status && cli.strict && skipped)
		status = fstap_error(1, "%llu entries of the trace were skipped (--strict)",
				     (unsigned long long)skipped);
	prep_model_free(m);
	close(fd);
	return status;
}
