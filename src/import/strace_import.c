/*
 * strace_import.c: the driver of `fstap import --from=strace`: the --root,
 * the trace's writer (its metadata naming the log), the initial state
 * (--state), the logs read (strace_lines.c), the calls left unfinished at
 * the end counted, and the summary printed (strace_summary.c). Every
 * record has the call's common header (imp_rec): record times are ns
 * since the first line's time stamp, credentials are the importing user's
 * (strace does not log them).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "import/imp_i.h"

int imp_fail(char **errmsg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errmsg && !*errmsg && vasprintf(errmsg, fmt, ap) < 0)
		*errmsg = NULL;
	va_end(ap);
	return -EINVAL;
}

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
	int ret = ns_emit(im, r);

	if (!ret) {
		im->st->records++;
		if (r->start_ns + r->dur_ns > im->end_ns)
			im->end_ns = r->start_ns + r->dur_ns;
	}
	return ret;
}

static int set_root(struct imp *im, const char *root, char **errmsg)
{
	if (!root)
		root = "/";
	if (!realpath(root, im->root)) {
		int e = errno;

		imp_fail(errmsg, "--root '%s': %s", root, strerror(e));
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
		imp_fail(errmsg, "cannot write trace '%s': %s", out_name, strerror(-ret));
	if (!ret && opts->state && (ret = ns_state(im, opts->state)))
		imp_fail(errmsg, "--state '%s': %s", opts->state,
			 fstap_writer_errmsg(im->w)[0] ? fstap_writer_errmsg(im->w) : strerror(-ret));
	if (!ret)
		ret = imp_read_logs(im, logs, nlogs, errmsg);
	if (!ret) {
		struct imp_proc *p;

		for (p = im->procs; p; p = p->next)
			if (p->pending)
				im->st->unmatched++, free(p->pending), p->pending = NULL;
	}
	if (im->w) {
		if (!ret && (ret = fstap_writer_close(im->w, im->end_ns, false)))
			imp_fail(errmsg, "%s", fstap_writer_errmsg(im->w));
		fstap_writer_free(im->w);
	}
	if (ret && errmsg && !*errmsg)
		imp_fail(errmsg, "%s: %s", in_name, strerror(-ret));
	if (!ret && summary)
		imp_print_summary(im, summary);
	imp_procs_free(im);
	ns_free(im);
	free(im);
	return ret;
}
