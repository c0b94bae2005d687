/*
 * prepare-dir.c: a target directory prepared from a trace, as `fstap
 * prepare` and `fstap replay --prepare` do it: the checks on the target
 * (it exists, is a directory, is empty), the trace's initial state read and
 * planned, the plan run with its warnings and its summary line, once or
 * into each clone's directory (DIR/clone-K).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/devnode.h"
#include "fstap/log.h"
#include "replay/prepare.h"
#include "replay/replay.h"

/* The skipped entries, with their places (the first PREP_NOTES_MAX), then their count. */
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

/*
 * Runs m's plan beneath fd (the directory dir), with its warnings and its
 * summary line; first: the first copy (the skips are said once). Adds the
 * skips of the first copy to *skipped. 0, or -errno after the error line.
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
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return ret;
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

/*
 * Clone k's directory beneath dir (fd), made for it (it must not exist),
 * prepared from m. 0, or -errno after the error line.
 */
static int prepare_clone(struct prep_model *m, int fd, const struct prep_dir_opts *o,
			 const char *dir, unsigned k, bool first, uint64_t *skipped)
{
	struct prep_opts po = o->po;
	char sub[32], *path = NULL;
	int cfd, ret;

	snprintf(sub, sizeof(sub), RP_CLONE_NAME_FMT, k);
	if (asprintf(&path, RP_CLONE_DIR_FMT, dir, k) < 0)
		return fstap_error(-ENOMEM, "out of memory");
	if (mkdirat(fd, sub, 0755) ||
	    (cfd = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		ret = fstap_error(-errno, "cannot create '%s': %s", path, strerror(errno));
		free(path);
		return ret;
	}
	po.dir_name = path;
	ret = prepare_into(m, cfd, &po, path, o->quiet, first, skipped);
	close(cfd);
	free(path);
	return ret;
}

/*
 * Opens the target directory into *fd; empty: it must be empty. 0, or
 * -errno after the error line.
 */
static int open_target(const char *dir, bool empty, int *fd)
{
	int ret;

	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return fstap_error(ret, "target directory '%s' does not exist", dir);
		if (ret == -ENOTDIR)
			return fstap_error(ret, "target '%s' is not a directory", dir);
		return fstap_error(ret, "cannot open target directory '%s': %s", dir, strerror(-ret));
	}
	ret = empty ? prep_check_empty(*fd) : 0;
	if (!ret)
		return 0;
	if (ret == -ENOTEMPTY)
		fstap_error(ret, "target directory '%s' is not empty", dir);
	else
		fstap_error(ret, "cannot read target directory '%s': %s", dir, strerror(-ret));
	close(*fd);
	return ret;
}

/* The trace's initial state into *m, planned in o's order: 0, or -errno after the error line. */
static int read_model(const char *trace, const struct prep_dir_opts *o, struct prep_model **m)
{
	char *msg = NULL;
	int ret;

	if (prep_model_new(m))
		return fstap_error(-ENOMEM, "out of memory");
	ret = prep_model_read(*m, trace, &msg);
	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return ret;
	}
	if (msg)	/* an incomplete trace: its state is whole up to the cut */
		fstap_warn("%s", msg);
	free(msg);
	if (prep_plan(*m, o->order, o->po.seed))
		return fstap_error(-ENOMEM, "out of memory");
	return 0;
}

int prep_dir(const char *trace, const char *dir, const struct prep_dir_opts *o,
	     uint64_t *skipped)
{
	struct prep_model *m = NULL;
	struct prep_opts po = o->po;
	unsigned k;
	int fd, ret;

	*skipped = 0;
	/* one clone's directory goes beside the others', made at the same time */
	if ((ret = open_target(dir, o->only_clone < 0, &fd)))
		return ret;
	ret = read_model(trace, o, &m);
	po.dir_name = dir;
	if (!ret && o->only_clone >= 0)
		ret = prepare_clone(m, fd, o, dir, (unsigned)o->only_clone, true, skipped);
	else if (!ret && !o->clones)
		ret = prepare_into(m, fd, &po, dir, o->quiet, true, skipped);
	for (k = 0; !ret && o->only_clone < 0 && k < o->clones; k++)
		ret = prepare_clone(m, fd, o, dir, k, k == 0, skipped);
	prep_model_free(m);
	close(fd);
	return ret;
}
