/*
 * strace_import.h: `fstap import --from=strace`: an strace log (strace -f
 * -tt -T -yy -v, or -ttt) to an fstap trace. The calls on paths below root
 * become fstap operation records, with objects, names and handles as the
 * recorder gives them; every other call is counted in the summary.
 */
#ifndef FSTAP_STRACE_IMPORT_H
#define FSTAP_STRACE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct strace_import_opts {
	const char *root;	/* absolute paths below it are imported; NULL: "/" */
	const char *state;	/* a tree to describe as the initial state, or NULL */
	bool skip_bad_lines;	/* count malformed lines instead of failing */
	size_t chunk_size;	/* 0: the writer's default */
};

/* What an import did, for its summary. */
struct strace_import_stats {
	uint64_t lines, calls, records, bad_lines, outside, unsupported, unknown_fd;
	uint64_t below;		/* calls imported (below --root) */
	uint64_t unmatched;	/* <unfinished ...> calls never resumed */
	uint64_t state_objects;
};

/* One log: a stream, its name, and its pid for a per-pid file of -ff (else 0). */
struct strace_log {
	FILE *f;
	const char *name;
	uint32_t pid;
};

/*
 * Reads the log in (named in_name in messages) and writes the trace into
 * out_fd (a safe output's temporary, named out_name). The summary (counts,
 * and the calls left out by name) goes to summary if not NULL. On error
 * returns -errno with a one-line message (caller frees) naming the line.
 */
int strace_import(FILE *in, const char *in_name, int out_fd, const char *out_name,
		  const struct strace_import_opts *opts, FILE *summary,
		  struct strace_import_stats *stats, char **errmsg);
/*
 * The same from several logs: the per-pid files of strace -ff (each with
 * its pid), merged by time stamp. in_name names them in the metadata.
 */
int strace_import_logs(const struct strace_log *logs, size_t nlogs, const char *in_name,
		       int out_fd, const char *out_name, const struct strace_import_opts *opts,
		       FILE *summary, struct strace_import_stats *stats, char **errmsg);

#endif
