/*
 * run.c: one replay run. The dispatcher (the calling thread) streams the
 * trace through the reorder window (fstap/sort.h) and the stage (stage.c) to
 * dispatch (dispatch.c), which hands tasks to the workers (worker.c); the
 * run ends when the workers have executed everything, and its statistics
 * are merged. Also here: what the trace's metadata says about the
 * recording, and the progress line.
 *
 * Memory: the reorder window holds a window's records packed (some 30
 * bytes and the names each); a record becomes a task (some 800 bytes) as
 * it leaves the window, and the stage holds the tasks of a window, two
 * when a thread pauses; the rest grows with threads, live handles and
 * named objects.
 *
 * Not here: the rules of what a request stands for (classify.c), the
 * system calls (exec.c), the arithmetic of pacing (timing.c) and of
 * statistics (stats.c), the tasks' memory (task.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstap/log.h"
#include "fstap/pathmap.h"
#include "run_i.h"

static void progress(struct run *r, bool final)
{
	uint64_t now = fstap_now_ns(), done;
	size_t i;
	double s;

	if (!r->o->progress || (!final && now - r->last_progress < 500000000ull))
		return;
	r->last_progress = now;
	for (done = 0, i = 0; i < r->nw; i++)
		done += atomic_load_explicit(&r->w[i]->done, memory_order_relaxed);
	s = (double)(now - r->t0) / 1e9;
	fprintf(stderr, "\rreplay: %llu ops, %.1f s, %.0f ops/s   %s",
		(unsigned long long)done, s, s > 0 ? (double)done / s : 0.0, final ? "\n" : "");
	fflush(stderr);
}

/*
 * What the replay learns from a record as it is read, in file order, ahead
 * of the reorder window (fstap_sorter_on_read): the initial namespace, the
 * kinds of the objects (they never change, so a kind read ahead holds for
 * the records dispatched before the one that tells it: a CREATE can come
 * later in the file than a record after it), the threads, the processes'
 * names. 0 or -ENOMEM.
 */
static int on_read(void *arg, const struct fstap_rec *rec)
{
	struct run *r = arg;
	int ret;

	if (!(++r->res->records & 4095))
		progress(r, false);
	if ((ret = fstap_pathmap_learn_kind(r->pm, rec, NULL, NULL)))
		return ret;
	if (!fstap_op_is_meta(rec->op)) {
		r->res->op_records++;
		return 0;
	}
	if (rec->op == FSTAP_OP_STATE_DENTRY)
		rp_note_root_names(r, rec);
	if ((rec->op == FSTAP_OP_STATE_DENTRY || rec->op == FSTAP_OP_STATE_INODE) &&
	    (ret = fstap_pathmap_apply(r->pm, rec)))
		return ret;
	if (rec->op == FSTAP_OP_PROCESS && r->res->divlog)
		ret = rp_learn_comm(r, rec);
	return ret;
}

/*
 * Reads the whole trace through the reorder window (fstap/sort.h: the
 * records held packed) and stages each operation as it comes out, in
 * start order, a task made for it then, and dispatches what the stage
 * lets go once the window has no more records due; 0 or -errno (logged).
 * A read error stops it at once.
 */
static int feed(struct run *r, struct fstap_reader *rd, uint64_t window)
{
	struct fstap_sorter *s;
	struct fstap_rec rec;
	int ret, err;

	r->lookahead = window;
	if (fstap_sorter_new(&s, rd, window))
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	fstap_sorter_on_read(s, on_read, r);
	while ((ret = fstap_sorter_next(s, &rec)) > 0 && !fstap_sorter_error(s)) {
		struct rp_task *t = NULL;

		if (!fstap_op_is_meta(rec.op) && !(t = rp_task_new(r->arena, &rec))) {
			ret = -ENOMEM;
			break;
		}
		if (t) {
			t->recno = fstap_sorter_seq(s);
			t->marker = rp_write_marker(&rec);
			if ((ret = rp_stage(r, t)))
				break;
		}
		/* the records due at once are staged together, then dispatched:
		 * a rule that looks at a record's neighbours sees the batch */
		if (!fstap_sorter_ready(s) && (ret = rp_unstage(r, false)))
			break;
	}
	err = fstap_sorter_error(s);
	fstap_sorter_free(s);
	if (err)
		return fstap_error(err, "cannot replay '%s': %s", r->o->trace,
				   fstap_reader_errmsg(rd));
	if (!ret)
		ret = rp_unstage(r, true);
	if (ret && r->start_failed)
		return ret;	/* said */
	return ret ? fstap_error(ret, "cannot replay: out of memory") : 0;
}

static void run_release(struct run *r)
{
	size_t i;

	rp_free_tasks(r->stage_head);
	for (i = 0; i < r->tids.cap; i++)
		if (r->tids.keys[i])
			free((struct tstate *)(uintptr_t)r->tids.vals[i]);
	fstap_map_release(&r->tids);
	rp_deps_release(r);
	rp_races_release(&r->races);
	fstap_map_release(&r->fh_owner);
	rp_handles_release(&r->handles);
	rp_borrowed_release(r);
	fstap_map_release(&r->sync_fh);
	fstap_map_release(&r->open_fh);
	fstap_map_release(&r->comm_of);
	for (i = 0; i < r->ncomms; i++)
		free(r->comms[i]);
	free(r->comms);
	rp_stream_release(r->plan, &r->onecpu);
	rp_plan_free(r->plan);
	rp_native_free(&r->gaps);
	fstap_pathmap_free(r->pm);
	rp_arena_free(r->arena);	/* every task is freed by now */
}

/* The path map forgets obj (dead for its grace period): so do the replay's own tables. */
static void forget_obj(void *arg, uint64_t obj)
{
	struct run *r = arg;

	rp_races_forget(&r->races, obj);
}

/*
 * Sets up r (its result r->res) for the trace rd: its maps, what the
 * metadata says about the recording, the reorder window in *window.
 * 0 or -ENOMEM.
 */
static int run_setup(struct run *r, const struct fstap_reader *rd, uint64_t *window)
{
	const struct rp_options *o = r->o;
	const struct fstap_meta *meta = &fstap_reader_info(rd)->meta;
	uint64_t flush = meta->flush_interval_ns;
	int ret;

	rp_stats_init(&r->res->stats);
	r->res->order = o->order;
	r->res->pace_pct = o->pace_pct;
	r->qdepth = o->queue_depth ? o->queue_depth : DEFAULT_QUEUE;
	fstap_map_init(&r->tids);
	fstap_map_init(&r->res_last);
	rp_races_init(&r->races);
	fstap_pathmap_on_forget(r->pm, forget_obj, r);
	fstap_map_init(&r->fh_owner);
	rp_handles_init(&r->handles);
	fstap_map_init(&r->fh_remote);
	fstap_map_init(&r->fh_local);
	fstap_map_init(&r->sync_fh);
	fstap_map_init(&r->open_fh);
	fstap_map_init(&r->comm_of);
	r->attr_stale = meta->attrs_stale;
	r->sync_unflagged = !meta->syncs_flagged;
	if (o->pace_native && o->pace_pct) {
		ret = rp_native_init(meta, &r->gaps);
		if (ret == -ENOMEM)
			return ret;
		r->native = !ret;
		if (!r->native && !o->notes_said)
			fstap_warn("trace '%s' has no round-trip calibration (recorder.calibration): "
				   "--pace=native keeps the recorded gaps, as --pace=orig", o->trace);
	}
	r->res->pace_native = r->native;
	*window = o->window_ns ? o->window_ns : fstap_sat_add(flush, WINDOW_MARGIN_NS);
	rp_shared_track_order(r->sh, o->order == RP_ORDER_NONE);
	rp_shared_allow_devices(r->sh, o->devices);
	return 0;
}

/*
 * After the workers have ended: what the reader and the workers say, in
 * r->res; the workers are freed. Returns ret, or a worker's error.
 */
static int run_collect(struct run *r, struct fstap_reader *rd, int ret)
{
	struct rp_result *res = r->res;
	char line[256];
	size_t i;

	res->incomplete = !fstap_reader_complete(rd);
	res->cut = *fstap_reader_cut(rd);
	if (!ret && fstap_reader_notice(rd, "replayed", line, sizeof(line)))
		fstap_warn("%s", line);
	res->workers = 0;
	res->handles_left = rp_handles_open(&r->handles);
	for (i = 0; i < r->nw; i++) {
		res->workers += !r->w[i]->remote;
		if (!ret && r->w[i]->err)
			ret = fstap_error(r->w[i]->err, "cannot start a replay worker");
		rp_stats_merge(&res->stats, &r->w[i]->stats);
		rp_worker_free(r->w[i]);
	}
	free(r->w);
	r->w = NULL;
	for (i = 0; i < FSTAP_OP_NR; i++)
		res->replayed += res->stats.op[i].count;
	return ret;
}

int rp_run(const struct rp_options *o, struct rp_result **out)
{
	struct run r = { .o = o, .cwd_fd = -1, .prog = o->share ? rp_share_progress(o->share) : NULL };
	struct fstap_reader *rd = NULL;
	struct rp_result *res;
	struct stat st;
	char *msg = NULL;
	uint64_t window = 0;
	int root_fd, ret;
	mode_t old_umask;
	size_t i;

	root_fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0 || fstat(root_fd, &st)) {
		ret = -errno;
		if (ret == -ENOTDIR)
			return fstap_error(ret, "'%s' is not a directory", o->dir);
		return fstap_error(ret, "cannot open directory '%s': %s", o->dir, strerror(-ret));
	}
	if ((ret = fstap_reader_open(&rd, o->trace, &msg))) {
		fstap_error(ret, "%s", msg ? msg : "cannot open trace");
		free(msg);
		close(root_fd);
		return ret;
	}
	res = calloc(1, sizeof(*res));
	rp_stream_init(&r.onecpu);
	if (!res || fstap_pathmap_new(&r.pm) || rp_arena_new(&r.arena) ||
	    (o->plan_bytes && !o->share && (rp_plan_new(o->plan_bytes, &r.plan) ||
					     rp_plan_add_stream(r.plan, &r.onecpu))) ||
	    rp_shared_new(root_fd, &r.sh)) {
		rp_stream_release(NULL, &r.onecpu);
		rp_plan_free(r.plan);
		free(res);
		fstap_pathmap_free(r.pm);
		rp_arena_free(r.arena);
		fstap_reader_close(rd);
		close(root_fd);
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	}
	r.res = res;
	rp_gate_init(&r);
	ret = run_setup(&r, rd, &window);
	if (!ret && o->divlog_max)
		ret = rp_divlog_new(o->divlog_max, &res->divlog);
	if (ret)
		fstap_error(ret, "cannot replay: out of memory");
	rp_shared_set_divlog(r.sh, res->divlog);

	/* Modes and umasks are applied from the record, as the process had them. */
	old_umask = umask(0);
	r.t0 = r.begin = fstap_now_ns();
	r.last_progress = r.t0;
	if (!ret)
		ret = feed(&r, rd, window);
	if (!ret && !r.go) {
		res->planned_all = r.plan != NULL;	/* the whole trace is planned */
		ret = rp_run_go(&r, true);
	}
	if (!ret)
		ret = rp_plan_run_all(&r);
	if (ret)
		rp_run_fail(&r);
	for (i = 0; i < r.nw; i++)
		rp_worker_close(r.w[i]);
	for (i = 0; i < r.nw; i++)
		if (r.w[i]->started)
			pthread_join(r.w[i]->th, NULL);
	res->elapsed_ns = fstap_now_ns() - r.t0;
	rp_gate_release(&r);
	rp_dispatcher_exec_end(&r);
	umask(old_umask);
	res->plan_peak = r.plan ? rp_plan_peak(r.plan) : 0;
	progress(&r, true);

	ret = run_collect(&r, rd, ret);
	run_release(&r);
	rp_shared_free(r.sh);
	fstap_reader_close(rd);
	close(root_fd);
	if (ret) {
		rp_result_free(res);
		return ret;
	}
	*out = res;
	return 0;
}

void rp_result_free(struct rp_result *r)
{
	if (!r)
		return;
	rp_stats_release(&r->stats);
	rp_divlog_free(r->divlog);
	while (r->nparts)
		rp_result_free(r->parts[--r->nparts]);
	free(r->parts);
	free(r->divlog_lines);
	free(r);
}
