/*
 * strace_proc.c: the processes of an strace import and their descriptor
 * tables. A process is made on first sight (its own table, umask 022); a
 * clone, clone3, fork or vfork gives the child its parent's table, shared
 * (CLONE_FILES) or copied, its thread group (CLONE_THREAD) or its own, the
 * umask and the working directory; a successful execve closes the
 * close-on-exec descriptors and names the process (a PROCESS record); the
 * exit of the last process on a table closes its descriptors. Closing a
 * descriptor writes FLUSH and, at the last reference to its open file
 * description, RELEASE (RELEASEDIR).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "import/imp_i.h"

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
int imp_proc_exit(struct imp *im, const struct imp_call *c, struct imp_proc *p)
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

struct imp_proc *imp_proc_get(struct imp *im, uint32_t pid)
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
struct imp_proc *imp_proc_of_line(struct imp *im, uint32_t pid)
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
int imp_proc_fork(struct imp *im, struct imp_call *c)
{
	struct imp_proc *child;

	if (!c->l->has_result || c->l->result <= 0)
		return 0;
	child = imp_proc_get(im, (uint32_t)c->l->result);
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
int imp_proc_exec(struct imp *im, struct imp_call *c)
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

void imp_procs_free(struct imp *im)
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
