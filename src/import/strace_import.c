/*
 * strace_import.c: the driver of `fstap import --from=strace`. Reads the
 * log line by line (the per-pid files of strace -ff merged by time stamp,
 * each line taken as of its file's pid), joins each <unfinished ...> call
 * with its <... resumed> line (per pid), keeps the processes (thread
 * groups, umask, working directory) and their descriptor tables (shared by
 * CLONE_FILES threads, copied by fork, closed on exec when close-on-exec,
 * and at exit), hands each whole call to strace_calls.c, and prints the
 * summary: by name, the calls imported below --root, those outside it,
 * those with no fstap operation and those on unknown descriptors (every
 * call in one). A malformed line is an error naming it, unless
 * --skip-bad-lines; a call left unfinished at the end is counted.
 *
 * Times: record times are ns since the first line's time stamp (-tt wraps
 * at midnight: a time more than 12 h before the last one is on the next
 * day). Credentials are the importing user's: strace does not log them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "import/imp_i.h"

#define DAY_NS (86400ll * 1000000000ll)

static int fail(char **errmsg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(char **errmsg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errmsg && !*errmsg && vasprintf(errmsg, fmt, ap) < 0)
		*errmsg = NULL;
	va_end(ap);
	return -EINVAL;
}

void imp_count(struct imp_count *v, int *n, const char *name)
{
	int i;

	for (i = 0; i < *n; i++) {
		if (!strcmp(v[i].name, name)) {
			v[i].n++;
			return;
		}
	}
	if (*n < IMP_COUNTS_MAX) {
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
		v[(*n)++].n = 1;
	}
}

/* ---- records ------------------------------------------------------------- */

void imp_rec(struct imp *im, const struct imp_call *c, unsigned op, struct fstap_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->op = (uint16_t)op;
	r->tid = c->p->pid;
	r->pid = c->p->tgid;
	r->uid = im->uid;
	r->gid = im->gid;
	r->start_ns = (uint64_t)(c->l->time_ns - im->t0);
	r->dur_ns = c->l->dur_ns > 0 ? (uint64_t)c->l->dur_ns : 0;
	r->result = c->l->has_result && c->l->result < 0 ? c->l->result : 0;
}

int imp_emit(struct imp *im, const struct fstap_rec *r)
{
	int ret = fstap_writer_add(im->w, r);

	if (!ret) {
		im->st->records++;
		if (r->start_ns + r->dur_ns > im->end_ns)
			im->end_ns = r->start_ns + r->dur_ns;
	}
	return ret;
}

/* ---- processes and descriptors ------------------------------------------- */

static struct imp_fdtab *fdtab_new(void)
{
	struct imp_fdtab *t = calloc(1, sizeof(*t));

	if (t)
		t->refs = 1;
	return t;
}

struct imp_ofd *imp_fd_get(struct imp_proc *p, int fd)
{
	return fd >= 0 && fd < p->fds->n ? p->fds->v[fd].o : NULL;
}

int imp_fd_set(struct imp *im, struct imp_proc *p, int fd, struct imp_ofd *o, bool cloexec)
{
	struct imp_fdtab *t = p->fds;

	(void)im;
	if (fd < 0 || fd > (1 << 20))
		return -EBADF;
	if (fd >= t->n) {
		int n = fd + 16;
		struct imp_fd *v = realloc(t->v, (size_t)n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + t->n, 0, (size_t)(n - t->n) * sizeof(*v));
		t->v = v;
		t->n = n;
	}
	t->v[fd].o = o;
	t->v[fd].cloexec = cloexec;
	o->refs++;
	return 0;
}

int imp_fd_close(struct imp *im, const struct imp_call *c, struct imp_proc *p, int fd)
{
	struct imp_ofd *o = imp_fd_get(p, fd);
	struct fstap_rec r;
	int ret = 0;

	if (!o)
		return 0;
	p->fds->v[fd].o = NULL;
	if (!o->opath && !o->dir) {
		imp_rec(im, c, FSTAP_OP_FLUSH, &r);
		r.result = 0;
		r.obj = o->obj;
		r.fh = o->fh;
		ret = imp_emit(im, &r);
	}
	if (--o->refs == 0) {
		if (!o->opath && !ret) {
			imp_rec(im, c, o->dir ? FSTAP_OP_RELEASEDIR : FSTAP_OP_RELEASE, &r);
			r.result = 0;
			r.obj = o->obj;
			r.fh = o->fh;
			if (!o->dir)
				r.flags_arg = o->flags;
			ret = imp_emit(im, &r);
		}
		free(o);
	}
	return ret;
}

/* Drops one reference to p's table; the last one closes every descriptor. */
static int fdtab_put(struct imp *im, const struct imp_call *c, struct imp_proc *p)
{
	struct imp_fdtab *t = p->fds;
	int fd, ret = 0;

	if (!t)
		return 0;
	p->fds = NULL;	/* p holds no reference from here on */
	if (--t->refs > 0)
		return 0;
	t->refs = 1;	/* p points at it again while it is emptied */
	p->fds = t;
	for (fd = 0; fd < t->n && !ret; fd++)
		ret = imp_fd_close(im, c, p, fd);
	free(t->v);
	free(t);
	p->fds = NULL;
	return ret;
}

static struct imp_fdtab *fdtab_copy(struct imp_fdtab *from)
{
	struct imp_fdtab *t = fdtab_new();
	int fd;

	if (!t || !from->n)
		return t;
	t->v = calloc((size_t)from->n, sizeof(*t->v));
	if (!t->v) {
		free(t);
		return NULL;
	}
	t->n = from->n;
	for (fd = 0; fd < from->n; fd++) {
		t->v[fd] = from->v[fd];
		if (t->v[fd].o)
			t->v[fd].o->refs++;
	}
	return t;
}

static struct imp_proc *proc_find(struct imp *im, uint32_t pid)
{
	struct imp_proc *p;

	for (p = im->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

/*
 * The process of pid, made on first sight (its own table, umask 022);
 * *made says whether it was (a pid used again after its exit is a new
 * process too).
 */
static struct imp_proc *proc_get_new(struct imp *im, uint32_t pid, bool *made)
{
	struct imp_proc *p = proc_find(im, pid);

	*made = !p || !p->fds;
	if (p) {
		/* a pid used again after its exit: a new process, a new table */
		if (!p->fds && !(p->fds = fdtab_new()))
			return NULL;
		return p;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->fds = fdtab_new())) {
		free(p);
		return NULL;
	}
	p->pid = p->tgid = pid;
	p->umask = 022;
	p->next = im->procs;
	im->procs = p;
	return p;
}

static struct imp_proc *proc_get(struct imp *im, uint32_t pid)
{
	bool made;

	return proc_get_new(im, pid, &made);
}

static void proc_free(struct imp_proc *p)
{
	if (p->fds && --p->fds->refs == 0) {
		int fd;

		for (fd = 0; fd < p->fds->n; fd++)
			if (p->fds->v[fd].o && --p->fds->v[fd].o->refs == 0)
				free(p->fds->v[fd].o);
		free(p->fds->v);
		free(p->fds);
	}
	free(p->cwd);
	free(p->pending);
	free(p);
}

/*
 * What a child of parent gets at its clone: parent's descriptor table
 * shared (CLONE_FILES, in the call's args) or copied, its thread group
 * (CLONE_THREAD) or its own, the umask and the working directory.
 */
static int proc_inherit(struct imp_proc *parent, struct imp_proc *child, const char *args,
			size_t alen)
{
	bool files = memmem(args, alen, "CLONE_FILES", 11) != NULL;
	bool thread = memmem(args, alen, "CLONE_THREAD", 12) != NULL;
	struct imp_fdtab *t = files ? parent->fds : fdtab_copy(parent->fds);

	if (!t)
		return -ENOMEM;
	if (files)
		t->refs++;
	if (child->fds && --child->fds->refs == 0) {
		free(child->fds->v);
		free(child->fds);
	}
	child->fds = t;
	child->tgid = thread ? parent->tgid : child->pid;
	child->ppid = thread ? parent->ppid : parent->tgid;
	child->umask = parent->umask;
	if (parent->cwd && !child->cwd)
		child->cwd = strdup(parent->cwd);
	return 0;
}

static bool forks(const char *line)
{
	return strstr(line, " clone(") || strstr(line, " clone3(") || strstr(line, " fork(") ||
	       strstr(line, " vfork(");
}

/*
 * The process of a line's pid. strace -f may print a child's first calls
 * before its parent's <... clone resumed> line (the child ran first): a
 * process first seen while exactly one other has a clone, clone3, fork or
 * vfork unfinished is that one's child from its first call on, and the
 * clone's return leaves it as it is by then. With two or more unfinished,
 * the parent is not known until a clone returns the pid.
 */
static struct imp_proc *proc_of_line(struct imp *im, uint32_t pid)
{
	struct imp_proc *p, *q, *parent = NULL;
	bool made;

	p = proc_get_new(im, pid, &made);
	if (!p || !made)
		return p;
	for (q = im->procs; q; q = q->next) {
		if (q == p || !q->pending || q->pending_done || !forks(q->pending))
			continue;
		if (parent)
			return p;	/* two candidates */
		parent = q;
	}
	if (parent && proc_inherit(parent, p, parent->pending, strlen(parent->pending)) == 0)
		p->adopted_by = parent->pid;
	return p;
}

/* clone, clone3, fork, vfork = child: what the child inherits (proc_inherit). */
static int proc_fork(struct imp *im, struct imp_call *c)
{
	struct imp_proc *child;

	if (!c->l->has_result || c->l->result <= 0)
		return 0;
	child = proc_get(im, (uint32_t)c->l->result);
	if (!child)
		return -ENOMEM;
	if (child->adopted_by == c->p->pid) {
		child->adopted_by = 0;	/* it has its own table and directory by now */
		return 0;
	}
	/* a child seen before, with its parent unknown, had an empty table */
	return proc_inherit(c->p, child, c->l->args.p, c->l->args.len);
}

/*
 * The PROCESS record of a successful execve: comm the program's base name
 * (as the kernel makes it, at most 15 bytes), cmdline its argv joined by
 * NUL bytes (the strings strace printed whole; it stops at a cut one).
 */
static int proc_record(struct imp *im, struct imp_call *c)
{
	struct st_span argv[ST_ARGS_MAX];
	char comm[16], *cmd = im->sbuf;
	size_t len, used = 0;
	struct fstap_rec r;
	const char *base;
	bool cut;
	int i, n;

	if (c->na < 2 || st_arg_str(c->a[0], im->path, sizeof(im->path), &len, &cut))
		return 0;
	base = strrchr(im->path, '/');
	base = base ? base + 1 : im->path;
	len = strnlen(base, sizeof(comm) - 1);
	memcpy(comm, base, len);
	comm[len] = '\0';
	n = c->a[1].len >= 2 ? st_split_args((struct st_span){ c->a[1].p + 1, c->a[1].len - 2 },
					     argv, ST_ARGS_MAX) : 0;
	for (i = 0; i < n; i++) {
		if (st_arg_str(argv[i], cmd + used, sizeof(im->sbuf) - used - 1, &len, &cut))
			break;
		used += len + 1;
		if (cut)
			break;
	}
	memset(&r, 0, sizeof(r));
	r.op = FSTAP_OP_PROCESS;
	r.ppid = c->p->ppid;
	r.comm = (struct fstap_bytes){ (const uint8_t *)comm, (uint32_t)strlen(comm) };
	r.cmdline = (struct fstap_bytes){ (const uint8_t *)cmd, (uint32_t)(used ? used - 1 : 0) };
	r.time_ns = (uint64_t)(c->l->time_ns - im->t0);
	r.pid = c->p->tgid;
	return fstap_writer_add(im->w, &r);
}

/* A successful execve closes the close-on-exec descriptors and names the process. */
static int proc_exec(struct imp *im, struct imp_call *c)
{
	struct imp_fdtab *t = c->p->fds;
	int fd, ret = 0;

	if (!c->l->has_result || c->l->result != 0)
		return 0;
	if ((ret = proc_record(im, c)))
		return ret;
	for (fd = 0; fd < t->n && !ret; fd++)
		if (t->v[fd].o && t->v[fd].cloexec)
			ret = imp_fd_close(im, c, c->p, fd);
	return ret;
}

/* ---- lines --------------------------------------------------------------- */

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

	c.p = proc_get(im, l->pid);
	if (!c.p)
		return -ENOMEM;
	im->st->calls++;
	c.na = st_split_args(l->args, c.a, ST_ARGS_MAX);
	if (c.na < 0)
		return fail(errmsg, "%s: line %llu: the arguments of %s do not balance",
			    im->in_name, (unsigned long long)lineno, l->name);
	if (!strcmp(l->name, "clone") || !strcmp(l->name, "clone3") ||
	    !strcmp(l->name, "fork") || !strcmp(l->name, "vfork") ||
	    !strcmp(l->name, "execve") || !strcmp(l->name, "execveat")) {
		/* no operation of their own, but processes, tables and names */
		im->st->unsupported++;
		imp_count(im->unsupported, &im->nunsupported, l->name);
		return l->name[0] == 'e' ? proc_exec(im, &c) : proc_fork(im, &c);
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

static int import_line(struct imp *im, char *line, size_t len, uint64_t lineno, char **errmsg)
{
	struct st_line l, whole;
	struct imp_proc *p;
	const char *why;
	char *joined = NULL;
	int ret;

	if (st_parse_line(line, len, &l, &why)) {
		if (im->opts->skip_bad_lines) {
			im->st->bad_lines++;
			return 0;
		}
		return fail(errmsg, "%s: line %llu: %s", im->in_name, (unsigned long long)lineno, why);
	}
	if (!l.pid)
		l.pid = im->file_pid;	/* a per-pid file of strace -ff */
	line_time(im, &l);
	p = proc_of_line(im, l.pid);
	if (!p)
		return -ENOMEM;
	switch (l.kind) {
	case ST_NOTE:
		if (len > 4 && memmem(line, len, "+++ exited", 10)) {
			struct imp_call c = { .l = &l, .p = p };

			return fdtab_put(im, &c, p);
		}
		if (len > 4 && memmem(line, len, "+++ killed", 10)) {
			struct imp_call c = { .l = &l, .p = p };

			return fdtab_put(im, &c, p);
		}
		return 0;
	case ST_UNFINISHED:
		if (p->pending)
			im->st->unmatched++;
		free(p->pending);
		p->pending = strndup(line, len);
		p->pending_line = lineno;
		p->pending_done = false;
		if (!p->pending)
			return -ENOMEM;
		return strcmp(l.name, "close") ? 0 : close_at_start(im, p, &l, lineno, errmsg);
	case ST_RESUMED:
		if (!p->pending) {
			if (im->opts->skip_bad_lines) {
				im->st->bad_lines++;
				return 0;
			}
			return fail(errmsg, "%s: line %llu: '<... %s resumed>' without its unfinished call",
				    im->in_name, (unsigned long long)lineno, l.name);
		}
		if (p->pending_done) {
			free(p->pending);
			p->pending = NULL;
			return 0;
		}
		ret = join_resumed(p, &l, &joined, &whole, &why);
		free(p->pending);
		p->pending = NULL;
		if (ret == -ENOMEM)
			return ret;
		if (ret || strcmp(whole.name, l.name)) {
			free(joined);
			if (im->opts->skip_bad_lines) {
				im->st->bad_lines++;
				return 0;
			}
			return fail(errmsg, "%s: line %llu: the resumed call does not join: %s",
				    im->in_name, (unsigned long long)lineno,
				    ret ? why : "another call's name");
		}
		line_time(im, &whole);
		whole.pid = l.pid;
		ret = import_call(im, &whole, lineno, errmsg);
		free(joined);
		return ret;
	case ST_CALL:
	default:
		return import_call(im, &l, lineno, errmsg);
	}
}

/* ---- summary ------------------------------------------------------------- */

static int cmp_count(const void *a, const void *b)
{
	const struct imp_count *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

static void print_counts(FILE *f, const char *what, uint64_t total, struct imp_count *v, int n)
{
	int i;

	if (!total)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_count);
	fprintf(f, "fstap: %s: %llu calls:", what, (unsigned long long)total);
	for (i = 0; i < n; i++)
		fprintf(f, " %s %llu", v[i].name, (unsigned long long)v[i].n);
	fputc('\n', f);
}

static void print_summary(struct imp *im, FILE *f)
{
	const struct strace_import_stats *s = im->st;

	fprintf(f, "fstap: imported %llu operation records from %llu calls on %llu lines"
		" (initial state: %llu objects)\n",
		(unsigned long long)s->records, (unsigned long long)s->calls,
		(unsigned long long)s->lines, (unsigned long long)s->state_objects);
	print_counts(f, "below --root", s->below, im->below, im->nbelow);
	print_counts(f, "outside --root", s->outside, im->outside, im->noutside);
	print_counts(f, "no fstap operation", s->unsupported, im->unsupported, im->nunsupported);
	print_counts(f, "on descriptors opened before the log", s->unknown_fd, im->unknown,
		     im->nunknown);
	if (s->unmatched)
		fprintf(f, "fstap: %llu unfinished calls never resumed\n",
			(unsigned long long)s->unmatched);
	if (s->bad_lines)
		fprintf(f, "fstap: %llu malformed lines skipped\n",
			(unsigned long long)s->bad_lines);
}

/* ---- the import ---------------------------------------------------------- */

static int set_root(struct imp *im, const char *root, char **errmsg)
{
	if (!root)
		root = "/";
	if (!realpath(root, im->root)) {
		int e = errno;

		fail(errmsg, "--root '%s': %s", root, strerror(e));
		return -e;
	}
	im->rootlen = strlen(im->root);
	if (im->rootlen == 1)
		im->rootlen = 0;	/* "/": every absolute path is below it */
	return 0;
}

static int open_writer(struct imp *im, int out_fd, const char *out_name, const char *in_name)
{
	struct fstap_trace_info info = { .version_major = FSTAP_VERSION_MAJOR,
					 .version_minor = FSTAP_VERSION_MINOR };
	json_t *m = json_pack("{s:s, s:s, s:s, s:b}", "tool", "fstap import --from=strace",
			      "strace_log", in_name, "root", im->root[0] ? im->root : "/",
			      "state", im->opts->state != NULL);
	int ret;

	if (!m)
		return -ENOMEM;
	info.metadata_json = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(m);
	if (!info.metadata_json)
		return -ENOMEM;
	ret = fstap_writer_open_fd(&im->w, out_fd, out_name, &info, im->opts->chunk_size);
	free(info.metadata_json);
	return ret;
}

static void free_procs(struct imp *im)
{
	struct imp_proc *p, *n;

	for (p = im->procs; p; p = n) {
		n = p->next;
		if (p->pending)
			im->st->unmatched++;
		proc_free(p);
	}
	im->procs = NULL;
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
static int read_logs(struct imp *im, const struct strace_log *logs, size_t n, char **errmsg)
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
			ret = fail(errmsg, "%s: line %llu: no time stamp: the per-pid files of strace "
				   "-ff are merged by time (give strace -tt, -ttt or "
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
			fail(errmsg, "%s: read error", logs[best].name);
	}
	for (i = 0; i < n; i++)
		free(cur[i].line);
	free(cur);
	return ret;
}

int strace_import(FILE *in, const char *in_name, int out_fd, const char *out_name,
		  const struct strace_import_opts *opts, FILE *summary,
		  struct strace_import_stats *stats, char **errmsg)
{
	struct strace_log log = { .f = in, .name = in_name, .pid = 0 };

	return strace_import_logs(&log, 1, in_name, out_fd, out_name, opts, summary, stats,
				  errmsg);
}

int strace_import_logs(const struct strace_log *logs, size_t nlogs, const char *in_name,
		       int out_fd, const char *out_name, const struct strace_import_opts *opts,
		       FILE *summary, struct strace_import_stats *stats, char **errmsg)
{
	struct imp *im = calloc(1, sizeof(*im));
	int ret;

	if (errmsg)
		*errmsg = NULL;
	if (!im)
		return -ENOMEM;
	memset(stats, 0, sizeof(*stats));
	im->opts = opts;
	im->in_name = in_name;
	im->st = stats;
	im->uid = (uint32_t)getuid();
	im->gid = (uint32_t)getgid();
	ret = set_root(im, opts->root, errmsg);
	if (!ret)
		ret = ns_init(im);
	if (!ret && (ret = open_writer(im, out_fd, out_name, in_name)))
		fail(errmsg, "cannot write trace '%s': %s", out_name, strerror(-ret));
	if (!ret && opts->state && (ret = ns_state(im, opts->state)))
		fail(errmsg, "--state '%s': %s", opts->state,
		     fstap_writer_errmsg(im->w)[0] ? fstap_writer_errmsg(im->w) : strerror(-ret));
	if (!ret)
		ret = read_logs(im, logs, nlogs, errmsg);
	if (!ret) {
		struct imp_proc *p;

		for (p = im->procs; p; p = p->next)
			if (p->pending)
				im->st->unmatched++, free(p->pending), p->pending = NULL;
	}
	if (im->w) {
		if (!ret && (ret = fstap_writer_close(im->w, im->end_ns, false)))
			fail(errmsg, "%s", fstap_writer_errmsg(im->w));
		fstap_writer_free(im->w);
	}
	if (ret && errmsg && !*errmsg)
		fail(errmsg, "%s: %s", in_name, strerror(-ret));
	if (!ret && summary)
		print_summary(im, summary);
	free_procs(im);
	ns_free(im);
	free(im);
	return ret;
}
