/*
 * strace_lines.c: the lines of an strace log turned into whole calls. The
 * per-pid files of strace -ff are merged by time stamp, each line taken as
 * of its file's pid; each <unfinished ...> call is joined with its
 * <... resumed> line (per pid), a close at its start; a process's exit
 * closes its descriptors; clone, fork, vfork and execve go to the
 * processes (strace_proc.c), every other call to strace_calls.c. A
 * malformed line is an error naming it, unless --skip-bad-lines.
 *
 * Times: record times are ns since the first line's time stamp (-tt wraps
 * at midnight: a time more than 12 h before the last one is on the next
 * day).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/imp_i.h"

#define DAY_NS (86400ll * 1000000000ll)

/* The time of a line as ns since the first one (see the file comment). */
static void line_time(struct imp *im, struct st_line *l)
{
	if (!l->has_time) {
		l->time_ns = im->last_t;
		return;
	}
	l->time_ns += im->day;
	if (im->have_t0 && l->time_ns + DAY_NS / 2 < im->last_t) {
		im->day += DAY_NS;
		l->time_ns += DAY_NS;
	}
	if (!im->have_t0) {
		im->t0 = l->time_ns;
		im->have_t0 = true;
	}
	if (l->time_ns < im->t0)
		l->time_ns = im->t0;
	im->last_t = l->time_ns;
}

static int import_call(struct imp *im, struct st_line *l, uint64_t lineno, char **errmsg)
{
	struct imp_call c = { .l = l };
	uint64_t before;
	int ret;

	c.p = imp_proc_get(im, l->pid);
	if (!c.p)
		return -ENOMEM;
	im->st->calls++;
	c.na = st_split_args(l->args, c.a, ST_ARGS_MAX);
	if (c.na < 0)
		return imp_fail(errmsg, "%s: line %llu: the arguments of %s do not balance",
				im->in_name, (unsigned long long)lineno, l->name);
	if (!strcmp(l->name, "clone") || !strcmp(l->name, "clone3") ||
	    !strcmp(l->name, "fork") || !strcmp(l->name, "vfork") ||
	    !strcmp(l->name, "execve") || !strcmp(l->name, "execveat")) {
		/* no operation of their own, but processes, tables and names */
		im->st->unsupported++;
		imp_count(im->unsupported, &im->nunsupported, l->name);
		return l->name[0] == 'e' ? imp_proc_exec(im, &c) : imp_proc_fork(im, &c);
	}
	before = im->st->outside + im->st->unsupported + im->st->unknown_fd;
	ret = calls_import(im, &c);
	if (!ret && im->st->outside + im->st->unsupported + im->st->unknown_fd == before) {
		im->st->below++;
		imp_count(im->below, &im->nbelow, l->name);
	}
	return ret;
}

/*
 * The whole call of a <... resumed> line: the pending unfinished line up to
 * its " <unfinished ...>", then the resumed part. Parsed into l from *joined
 * (caller frees).
 */
static int join_resumed(struct imp_proc *p, const struct st_line *res, char **joined,
			struct st_line *l, const char **why)
{
	const char *u = p->pending;
	size_t ulen = strlen(u) - strlen(" <unfinished ...>");
	size_t rlen = res->args.len;
	char *s;

	s = malloc(ulen + rlen + 2);
	if (!s)
		return -ENOMEM;
	memcpy(s, u, ulen);
	memcpy(s + ulen, res->args.p, rlen);
	s[ulen + rlen] = '\0';
	*joined = s;
	return st_parse_line(s, ulen + rlen, l, why);
}

/*
 * A close(2) that strace shows unfinished is imported at its start: the
 * kernel frees the descriptor number on entry, and another thread's open
 * may get it (and be logged) before this close's <... resumed> line.
 */
static int close_at_start(struct imp *im, struct imp_proc *p, struct st_line *l,
			  uint64_t lineno, char **errmsg)
{
	struct st_line whole = *l;

	while (whole.args.len && (whole.args.p[whole.args.len - 1] == ' ' ||
				  whole.args.p[whole.args.len - 1] == ','))
		whole.args.len--;
	whole.kind = ST_CALL;
	whole.has_result = true;
	whole.result = 0;
	p->pending_done = true;
	return import_call(im, &whole, lineno, errmsg);
}

/* A malformed line: counted with --skip-bad-lines (0), else an error naming it. */
static int bad_line(struct imp *im, uint64_t lineno, char **errmsg, const char *why)
{
	if (im->opts->skip_bad_lines) {
		im->st->bad_lines++;
		return 0;
	}
	return imp_fail(errmsg, "%s: line %llu: %s", im->in_name, (unsigned long long)lineno, why);
}

/* An <unfinished ...> line: kept as p's pending call (a close imported now). */
static int unfinished_line(struct imp *im, struct imp_proc *p, struct st_line *l,
			   const char *line, size_t len, uint64_t lineno, char **errmsg)
{
	if (p->pending)
		im->st->unmatched++;
	free(p->pending);
	p->pending = strndup(line, len);
	p->pending_line = lineno;
	p->pending_done = false;
	if (!p->pending)
		return -ENOMEM;
	return strcmp(l->name, "close") ? 0 : close_at_start(im, p, l, lineno, errmsg);
}

/* A <... resumed> line: joined with p's pending call and imported whole. */
static int resumed_line(struct imp *im, struct imp_proc *p, struct st_line *l, uint64_t lineno,
			char **errmsg)
{
	struct st_line whole;
	char *joined = NULL, msg[256];
	const char *why;
	int ret;

	if (!p->pending) {
		snprintf(msg, sizeof(msg), "'<... %s resumed>' without its unfinished call", l->name);
		return bad_line(im, lineno, errmsg, msg);
	}
	if (p->pending_done) {
		free(p->pending);
		p->pending = NULL;
		return 0;
	}
	ret = join_resumed(p, l, &joined, &whole, &why);
	free(p->pending);
	p->pending = NULL;
	if (ret == -ENOMEM)
		return ret;
	if (ret || strcmp(whole.name, l->name)) {
		free(joined);
		snprintf(msg, sizeof(msg), "the resumed call does not join: %s",
			 ret ? why : "another call's name");
		return bad_line(im, lineno, errmsg, msg);
	}
	line_time(im, &whole);
	whole.pid = l->pid;
	ret = import_call(im, &whole, lineno, errmsg);
	free(joined);
	return ret;
}

static int import_line(struct imp *im, char *line, size_t len, uint64_t lineno, char **errmsg)
{
	struct st_line l;
	struct imp_proc *p;
	const char *why;

	if (st_parse_line(line, len, &l, &why))
		return bad_line(im, lineno, errmsg, why);
	if (!l.pid)
		l.pid = im->file_pid;	/* a per-pid file of strace -ff */
	line_time(im, &l);
	p = imp_proc_of_line(im, l.pid);
	if (!p)
		return -ENOMEM;
	switch (l.kind) {
	case ST_NOTE:
		if (len > 4 && (memmem(line, len, "+++ exited", 10) ||
				memmem(line, len, "+++ killed", 10))) {
			struct imp_call c = { .l = &l, .p = p };

			return imp_proc_exit(im, &c, p);
		}
		return 0;
	case ST_UNFINISHED:
		return unfinished_line(im, p, &l, line, len, lineno, errmsg);
	case ST_RESUMED:
		return resumed_line(im, p, &l, lineno, errmsg);
	case ST_CALL:
	default:
		return import_call(im, &l, lineno, errmsg);
	}
}

/* One log being read: its next line, waiting to be imported. */
struct log_cursor {
	const struct strace_log *log;
	char *line;
	size_t cap, len;
	uint64_t lineno;
	int64_t time_ns;	/* of the waiting line (the last known if it has none) */
	bool have, eof, untimed;
};

/* Reads the cursor's next non-empty line (its time for the merge). 0 or -EIO. */
static int cursor_next(struct imp *im, struct log_cursor *c)
{
	struct st_line l;
	const char *why;
	ssize_t n;

	c->have = false;
	while (!c->eof) {
		n = getline(&c->line, &c->cap, c->log->f);
		if (n < 0) {
			c->eof = true;
			return ferror(c->log->f) ? -EIO : 0;
		}
		im->st->lines++;
		c->lineno++;
		while (n && (c->line[n - 1] == '\n' || c->line[n - 1] == '\r'))
			n--;
		if (n == 0)
			continue;
		c->len = (size_t)n;
		c->have = true;
		c->untimed = !st_parse_line(c->line, c->len, &l, &why) && !l.has_time;
		if (!c->untimed)
			c->time_ns = l.time_ns;
		return 0;
	}
	return 0;
}

/*
 * Imports the logs' lines: one log in its order; the per-pid files of
 * strace -ff merged by time stamp (the earliest waiting line first, the
 * first file on a tie), each line of a file taken as of its pid.
 */
int imp_read_logs(struct imp *im, const struct strace_log *logs, size_t n, char **errmsg)
{
	struct log_cursor *cur = calloc(n, sizeof(*cur));
	size_t i, best;
	int ret = 0;

	if (!cur)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		cur[i].log = &logs[i];
		ret = cursor_next(im, &cur[i]);
	}
	while (!ret) {
		for (best = n, i = 0; i < n; i++)
			if (cur[i].have && (best == n || cur[i].time_ns < cur[best].time_ns))
				best = i;
		if (best == n)
			break;
		if (n > 1 && cur[best].untimed) {
			ret = imp_fail(errmsg, "%s: line %llu: no time stamp: the per-pid files of "
				       "strace -ff are merged by time (give strace -tt, -ttt or "
				       "--absolute-timestamps)", logs[best].name,
				       (unsigned long long)cur[best].lineno);
			break;
		}
		im->in_name = logs[best].name;
		im->file_pid = logs[best].pid;
		ret = import_line(im, cur[best].line, cur[best].len, cur[best].lineno, errmsg);
		if (!ret)
			ret = cursor_next(im, &cur[best]);
		if (ret == -EIO)
			imp_fail(errmsg, "%s: read error", logs[best].name);
	}
	for (i = 0; i < n; i++)
		free(cur[i].line);
	free(cur);
	return ret;
}
