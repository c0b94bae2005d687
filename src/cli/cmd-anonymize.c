/*
 * cmd-anonymize.c: fstap anonymize: a trace that keeps the workload and
 * drops the names, values and command lines that say whose it is
 * (src/analysis/anonymize.c does the work, anon_token.c makes the keys).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anonymize.h"
#include "cli/cmd.h"
#include "fstap/log.h"

static const char anonymize_usage[] =
	"usage: fstap anonymize --key-file=FILE [--keep-extensions] [--keep-names=LIST]\n"
	"                       [--keep-order] [--keep-comm] [--map-ids] TRACE -o OUT\n"
	"       fstap anonymize --new-key=FILE [TRACE -o OUT]\n"
	"\n"
	"Write to OUT a copy of TRACE in which every file name, symlink target\n"
	"component, xattr name and xattr value is replaced by a keyed token of the\n"
	"same length (HMAC-SHA256 under the key), process names are replaced and\n"
	"command lines, host name, paths and other metadata strings are dropped.\n"
	"Times, sizes, offsets, modes, owners, results and the tree's structure\n"
	"are kept, so report, prepare and replay of OUT show the same workload.\n"
	"The same key gives the same tokens: traces anonymized with one key stay\n"
	"comparable. Two different names never get one token: if a length has no\n"
	"free token left, anonymize fails.\n"
	"\n"
	"  -o, --output=OUT       the trace to write ('-': standard output)\n"
	"      --key-file=FILE    the secret key (at least 16 bytes); it is never\n"
	"                         written to OUT; keep it to anonymize other traces\n"
	"                         the same way, or delete it\n"
	"      --new-key=FILE     make a new random key in FILE (mode 0600; an\n"
	"                         existing FILE is refused); with TRACE, use it\n"
	"      --keep-extensions  keep a last '.ext' of up to 8 letters or digits\n"
	"      --keep-names=LIST  names kept as they are (comma-separated), besides\n"
	"                         '.', '..' and 'lost+found'\n"
	"      --keep-order       give the names tokens in their sort order (bytes), so\n"
	"                         that name order in report and reorder --by=name\n"
	"                         mean the same on OUT; the cost: OUT reveals which of\n"
	"                         any two names of the trace sorts first (siblings or\n"
	"                         not), name tokens do not depend on the key (two\n"
	"                         traces' tokens cannot be matched), and a name\n"
	"                         beginning with a byte below '.' gets one of '%+,-'\n"
	"                         there;\n"
	"                         reads TRACE twice (a file, not '-')\n"
	"      --keep-comm        keep process names (/proc/PID/comm)\n"
	"      --map-ids          renumber every uid and gid but 0 (requesters,\n"
	"                         owners, POSIX ACL entries) from 10000 up, in the\n"
	"                         order they first appear\n"
	"  -h, --help             show this help\n"
	"\n"
	"What OUT still reveals: the length of every name, leading dots (hidden\n"
	"files), which names are equal, the shape of the tree, the sizes and\n"
	"times of every operation, uids and gids (unless --map-ids), ACLs and\n"
	"capabilities (system.* and security.capability values are kept: the\n"
	"kernel checks them), and xattr namespaces. The sort order of names is\n"
	"kept only with --keep-order. See docs/sharing.md.\n";

/* Appends the names of a comma list to *list: 0, or -1 for an empty name or a '/'. */
static int add_names(char *arg, char ***list, size_t *n)
{
	size_t i, first = *n;

	if (cmd_split_list(arg, list, n))
		return -1;
	for (i = first; i < *n; i++)
		if (strchr((*list)[i], '/'))
			return -1;
	return 0;
}

int cmd_anonymize(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "new-key", required_argument, NULL, 'n' },
		{ "keep-extensions", no_argument, NULL, 'e' },
		{ "keep-names", required_argument, NULL, 'K' },
		{ "keep-comm", no_argument, NULL, 'c' },
		{ "keep-order", no_argument, NULL, 'O' },
		{ "map-ids", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct an_anon_opts o = { 0 };
	struct an_anon_stats st;
	const char *out = NULL, *key_file = NULL, *new_key = NULL;
	char **keep = NULL;
	size_t nkeep = 0;
	uint8_t *key = NULL;
	int c, status = 2;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'k': key_file = optarg; break;
		case 'n': new_key = optarg; break;
		case 'e': o.keep_extensions = true; break;
		case 'c': o.keep_comm = true; break;
		case 'O': o.keep_order = true; break;
		case 'm': o.map_ids = true; break;
		case 'K':
			if (add_names(optarg, &keep, &nkeep)) {
				cmd_usage_error("anonymize", "--keep-names wants a comma-separated "
						"list of file names (no '/')");
				goto done;
			}
			break;
		case 'h': fputs(anonymize_usage, stdout); status = 0; goto done;
		default: cmd_usage_error("anonymize", "unknown option"); goto done;
		}
	}
	if (key_file && new_key) {
		cmd_usage_error("anonymize", "give --key-file or --new-key, not both");
		goto done;
	}
	if (new_key && argc == optind && !out) {
		status = an_key_create(new_key) ? 1 : 0;
		goto done;
	}
	if (argc - optind != 1) {
		cmd_usage_error("anonymize", "expected one TRACE argument");
		goto done;
	}
	if (!out) {
		cmd_usage_error("anonymize", "-o OUT is required");
		goto done;
	}
	if (!key_file && !new_key) {
		cmd_usage_error("anonymize", "--key-file=FILE is required (or --new-key=FILE "
				"to make one)");
		goto done;
	}
	status = 1;
	if (new_key && an_key_create(new_key))
		goto done;
	o.key_file = key_file ? key_file : new_key;
	if (an_key_read(o.key_file, &key, &o.keylen))
		goto done;
	o.key = key;
	o.keep_names = (const char *const *)keep;
	o.nkeep_names = nkeep;
	if (an_anonymize(argv[optind], out, &o, &st))
		goto done;
	fstap_info("anonymized %llu records: %llu names, %llu xattr names, %llu xattr values, "
		   "%llu process names",
		   (unsigned long long)st.records, (unsigned long long)st.names,
		   (unsigned long long)st.xattr_names, (unsigned long long)st.values,
		   (unsigned long long)st.comms);
	status = 0;
done:
	if (key)
		memset(key, 0, o.keylen);
	free(key);
	free(keep);
	return status;
}
