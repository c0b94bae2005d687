/*
 * cmd.h: the fstap subcommands.
 *
 * Adding a subcommand: write `int cmd_NAME(int argc, char **argv)` in
 * src/cli/cmd-NAME.c (argv[0] is the command name; parse with getopt_long,
 * answer --help with the usage on stdout and exit 0, a usage error with a
 * one-line message and return 2), declare it here, add a row to commands[]
 * in src/cli/fstap.c, and add the file to fstap_SOURCES in the local.mk of
 * the part whose library does the work (src/record/local.mk for record,
 * replay/local.mk for prepare and replay; src/cli/local.mk for a command
 * that needs libfstap alone). The command parses its options and calls
 * that library. Return 0 on success, 1 on failure, 2 on a usage error;
 * never exit() from a command except through fstap_die().
 */
#ifndef FSTAP_CMD_H
#define FSTAP_CMD_H

#include <stdio.h>

int cmd_anonymize(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_disk(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_prepare(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_reorder(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Shared helpers for the commands (src/cli/fstap.c). */

/*
 * What a command's option parser returns after printing the usage for
 * --help: the command returns 0 without running. The parser's other
 * returns are 0 (run) and the usage exit code (2).
 */
#define CMD_HELP (-1)

/* Prints "fstap CMD: MSG" and a pointer to its --help on stderr; returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Splits a comma list in place and appends its items to *list (realloc'd,
 * the caller frees it). 0, or -EINVAL for an empty list or item.
 */
int cmd_split_list(char *arg, char ***list, size_t *n);
/* Parses sizes like 4096, 64k, 1M, 2G (powers of 1024). 0 or -EINVAL. */
int cmd_parse_size(const char *s, unsigned long long *out);

#endif
