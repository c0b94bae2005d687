/*
 * mpi.c: `mpirun -np N fstap replay --mpi TRACE DIR`: one replay process per
 * MPI rank (Open MPI), each replaying its share, the results reduced to
 * rank 0. Compiled only in a build with MPI (configure --with-mpi; without
 * it replay/mpi-none.c answers).
 *
 * --split=clone: rank k replays clone k, DIR/clone-k (RP_CLONE_DIR_FMT), as
 * --clone does with threads. Every rank starts after one MPI barrier and
 * paces from there. Then each rank packs its result (the counters, the
 * per-op histograms, the divergences by kind, the divergence log's lines)
 * and rank 0 gathers them: its result is the sum of the ranks' (merged as
 * --clone merges its clones, clone.c) with each rank's own result kept.
 *
 * --split=process|thread: every rank replays, on DIR, the recorded
 * processes (threads) assigned to it (split.c), each operation waiting for
 * those it depends on on the other ranks (mpi-xfer.c); then the same
 * gathering.
 *
 * Every rank ends each run in the same gathering, so a rank whose replay
 * failed is named to the others there; a rank that dies (a signal) is
 * mpirun's to report: it stops the other ranks and names the rank.
 *
 * Not here: the replay of one share (rp_run), the merge (clone.c).
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "fstap/log.h"
#include "replay_i.h"

static bool mpi_up;
static int my_rank, nranks;

/* One line for a failed MPI call; returns -EIO. */
static int mpi_error(int rc, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "error %d", rc);
	return fstap_error(-EIO, "--mpi: %s failed on rank %d: %s", what, my_rank, msg);
}

int rp_mpi_init(int *rank, int *size)
{
	int provided, rc;

	if (!mpi_up) {
		rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
		if (rc != MPI_SUCCESS)
			return fstap_error(-EIO, "--mpi: MPI_Init_thread failed (error %d)", rc);
		mpi_up = true;
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
		MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	}
	*rank = my_rank;
	*size = nranks;
	return 0;
}

int rp_mpi_agree(int ret, const char *what)
{
	int mine = ret ? my_rank + 1 : 0, first = 0, rc;

	/* the lowest failed rank: MPI_MIN over the failed ones, nranks + 1 for the others */
	if (!mine)
		mine = nranks + 1;
	if ((rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD)))
		return mpi_error(rc, what);
	if (first > nranks)
		return 0;
	if (my_rank == 0)
		fstap_error(-ECANCELED, "--mpi: %s failed on rank %d of %d", what, first - 1, nranks);
	return -ECANCELED;
}

void rp_mpi_finalize(void)
{
	if (!mpi_up)
		return;
#ifdef __SANITIZE_ADDRESS__
	/*
	 * LeakSanitizer looks for fstap's leaks here, once: MPI_Finalize
	 * unloads Open MPI's components and leaves their allocations behind,
	 * in frames no suppression can name.
	 */
	__lsan_do_leak_check();
#endif
	MPI_Finalize();
	mpi_up = false;
}

/* ---- a result as bytes: the struct, then what its pointers hold --------- */

struct pack {
	char *buf;
	size_t len, cap;
	bool nomem;
};

static void put(struct pack *p, const void *v, size_t n)
{
	if (p->nomem)
		return;
	if (FSTAP_GROW(p->buf, p->len + n, p->cap)) {
		p->nomem = true;
		return;
	}
	memcpy(p->buf + p->len, v, n);
	p->len += n;
}

/* The divergence log's lines, each without its leading {"run":0, (the writer adds its own). */
static int divlog_lines(struct rp_divlog *l, char **out, size_t *outlen)
{
	static const char prefix[] = "{\"run\":0,";
	char *text = NULL, *line, *save = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	*out = NULL;
	*outlen = 0;
	if (!f)
		return -ENOMEM;
	ret = rp_divlog_write(l, f, 0, NULL, 0);
	if (fclose(f) || ret) {
		free(text);
		return -ENOMEM;
	}
	/* In place: each line moves left over the prefixes before it. */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t ll = strlen(line) - (sizeof(prefix) - 1);

		memmove(text + n, line + sizeof(prefix) - 1, ll);
		n += ll;
		text[n++] = '\n';
	}
	*out = text;
	*outlen = n;
	return 0;
}

static int pack_result(const struct rp_result *r, struct pack *p)
{
	uint64_t n;
	char *lines;
	size_t len;
	unsigned i;

	put(p, r, sizeof(*r));
	for (i = 0; i < FSTAP_OP_NR; i++)
		if (r->stats.op[i].lat)
			put(p, r->stats.op[i].lat, sizeof(struct rp_hist));
	if (r->stats.lag)
		put(p, r->stats.lag, sizeof(struct rp_hist));
	if (r->stats.ndiv)
		put(p, r->stats.div, r->stats.ndiv * sizeof(*r->stats.div));
	if (divlog_lines(r->divlog, &lines, &len))
		p->nomem = true;
	n = len;
	put(p, &n, sizeof(n));
	put(p, lines ? lines : "", len);
	free(lines);
	return p->nomem ? -ENOMEM : 0;
}

static bool take(const char **cur, const char *end, void *v, size_t n)
{
	if ((size_t)(end - *cur) < n)
		return false;
	memcpy(v, *cur, n);
	*cur += n;
	return true;
}

static struct rp_hist *take_hist(const char **cur, const char *end, bool *ok)
{
	struct rp_hist *h = malloc(sizeof(*h));

	if (!h || !take(cur, end, h, sizeof(*h))) {
		free(h);
		*ok = false;
		return NULL;
	}
	return h;
}

/* The result packed in [buf, buf + len), or NULL (-ENOMEM or a short buffer). */
static struct rp_result *unpack_result(const char *buf, size_t len)
{
	const char *cur = buf, *end = buf + len;
	struct rp_result *r = calloc(1, sizeof(*r));
	bool ok = r && take(&cur, end, r, sizeof(*r));
	uint64_t n = 0;
	unsigned i;

	if (!ok) {
		free(r);
		return NULL;
	}
	r->divlog = NULL;
	r->parts = NULL;
	r->nparts = 0;
	r->part_kind = NULL;
	r->divlog_lines = NULL;
	for (i = 0; i < FSTAP_OP_NR; i++)
		if (r->stats.op[i].lat)
			r->stats.op[i].lat = ok ? take_hist(&cur, end, &ok) : NULL;
	if (r->stats.lag)
		r->stats.lag = ok ? take_hist(&cur, end, &ok) : NULL;
	r->stats.cap_div = r->stats.ndiv;
	r->stats.div = NULL;
	if (ok && r->stats.ndiv) {
		if ((size_t)(end - cur) / sizeof(*r->stats.div) < r->stats.ndiv ||
		    !(r->stats.div = malloc(r->stats.ndiv * sizeof(*r->stats.div))))
			ok = false;
		else
			take(&cur, end, r->stats.div, r->stats.ndiv * sizeof(*r->stats.div));
	}
	if (!ok)
		r->stats.ndiv = r->stats.cap_div = 0;
	if (ok && take(&cur, end, &n, sizeof(n)) && n <= (uint64_t)(end - cur)) {
		if ((r->divlog_lines = malloc(n + 1))) {
			memcpy(r->divlog_lines, cur, n);
			r->divlog_lines[n] = 0;
		}
		ok = r->divlog_lines != NULL;
	} else {
		ok = false;
	}
	if (!ok) {
		rp_result_free(r);
		return NULL;
	}
	return r;
}

/* ---- a run --------------------------------------------------------------- */

/*
 * Rank 0: the ranks' packed results (every rank's status in st, their
 * bytes at buf + displs[k]) as one result in *out. 0 or -errno (logged).
 */
static int reduce_at_root(struct rp_result *mine, const int64_t *st, const char *buf,
			  const int *displs, struct rp_result **out)
{
	struct rp_result **parts = calloc((size_t)nranks, sizeof(*parts));
	int k;

	if (!parts) {
		rp_result_free(mine);
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	}
	parts[0] = mine;
	for (k = 1; k < nranks; k++) {
		parts[k] = unpack_result(buf + displs[k], (size_t)st[2 * k + 1]);
		if (!parts[k]) {
			int bad = k;

			while (k > 0)
				rp_result_free(parts[k--]);
			rp_result_free(mine);
			free(parts);
			return fstap_error(-ENOMEM, "cannot replay: the result of rank %d is "
					   "unreadable", bad);
		}
	}
	if (rp_result_of_parts("rank", parts, (unsigned)nranks, out))
		return fstap_error(-ENOMEM, "cannot replay: out of memory");
	return 0;
}

/*
 * Gathers every rank's status and result at rank 0. ret is this rank's
 * replay's status, res its result (NULL if it failed; taken). Rank 0 gets
 * the reduced result; the first failed rank is named by rank 0 and makes
 * every rank fail (one cancelled by another's failure is named only if no
 * other failed).
 */
static int gather(int ret, struct rp_result *res, struct rp_result **out)
{
	struct pack p = { 0 };
	int64_t hdr[2], *st = NULL;
	int *counts = NULL, *displs = NULL, rc, k, failed = -1;
	char *all = NULL;
	size_t total = 0;

	if (!ret && res && pack_result(res, &p))
		ret = fstap_error(-ENOMEM, "cannot replay: out of memory");
	hdr[0] = ret;
	hdr[1] = ret ? 0 : (int64_t)p.len;
	if (my_rank == 0 && !(st = calloc((size_t)nranks * 2, sizeof(*st))))
		fstap_die("out of memory");
	if ((rc = MPI_Gather(hdr, 2, MPI_INT64_T, st, 2, MPI_INT64_T, 0, MPI_COMM_WORLD)))
		ret = mpi_error(rc, "gathering the results");
	if (my_rank == 0) {
		counts = calloc((size_t)nranks, sizeof(*counts));
		displs = calloc((size_t)nranks, sizeof(*displs));
		if (!counts || !displs)
			fstap_die("out of memory");
		for (k = 0; k < nranks; k++) {
			/* a rank that did not start because another failed (-ECANCELED)
			 * is not the one named, unless no other failed */
			if (st[2 * k] && (failed < 0 || (st[2 * failed] == -ECANCELED &&
							 st[2 * k] != -ECANCELED)))
				failed = k;
			counts[k] = (int)st[2 * k + 1];
			displs[k] = (int)total;
			total += (size_t)st[2 * k + 1];
		}
		if (!(all = malloc(total ? total : 1)))
			fstap_die("out of memory");
	}
	if (!rc && (rc = MPI_Gatherv(p.buf, (int)hdr[1], MPI_BYTE, all, counts, displs, MPI_BYTE,
				     0, MPI_COMM_WORLD)))
		ret = mpi_error(rc, "gathering the results");
	free(p.buf);
	if (!rc && (rc = MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD)))
		ret = mpi_error(rc, "gathering the results");
	if ((!ret || ret == -ECANCELED) && failed >= 0) {	/* (cancelled: not said) */
		ret = -ECANCELED;
		if (my_rank == 0)
			fstap_error(ret, "--mpi: the replay failed on rank %d of %d", failed, nranks);
	}
	if (!ret && my_rank == 0) {
		ret = reduce_at_root(res, st, all, displs, out);
		res = NULL;
	} else if (!ret) {
		*out = res;
		res = NULL;
	}
	rp_result_free(res);
	free(st);
	free(counts);
	free(displs);
	free(all);
	return ret;
}

/*
 * --split=clone: the common start. Each rank plans its run, then all start
 * together (rp_options.at_start): an all-reduce of whether each is ready,
 * which a rank whose run failed before its start joins as not ready, so
 * that every rank calls it once and none starts when one cannot.
 */
struct clone_start {
	const struct rp_options *o;	/* the caller's (its at_start) */
	bool arrived;
	uint64_t started_ns;		/* CLOCK_REALTIME at the start */
};

static int clone_arrive(struct clone_start *cs, int bad)
{
	int anybad = 0, rc;

	cs->arrived = true;
	if ((rc = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD)))
		return mpi_error(rc, "the barrier at the start");
	cs->started_ns = fstap_realtime_ns();
	return anybad ? -ECANCELED : 0;
}

static int clone_at_start(void *arg)
{
	struct clone_start *cs = arg;
	int bad = cs->o->at_start && cs->o->at_start(cs->o->at_start_arg);

	return clone_arrive(cs, bad) ? -ECANCELED : bad ? -EIO : 0;
}

/* --split=clone: rank k replays DIR/clone-k. */
static int run_clone(const struct rp_options *o, struct rp_result **out)
{
	struct clone_start cs = { .o = o };
	struct rp_options ro = *o;
	struct rp_result *res = NULL;
	char dir[4096];
	int ret;

	snprintf(dir, sizeof(dir), RP_CLONE_DIR_FMT, o->dir, (unsigned)my_rank);
	ro.dir = dir;
	ro.at_start = clone_at_start;
	ro.at_start_arg = &cs;
	ret = rp_run(&ro, &res);
	if (!cs.arrived)
		clone_arrive(&cs, 1);	/* the others learn that this one failed */
	if (!ret)
		res->started_ns = cs.started_ns;
	return gather(ret, res, out);
}

/*
 * --split=process|thread: every rank replays its share of the trace on
 * DIR, its progress exchanged with the others (mpi-xfer.c). A rank whose
 * setup fails makes every rank skip the run; one whose run fails makes the
 * others give up: the gathering names the rank.
 */
static int run_split(const struct rp_options *o, enum rp_split split, const char *map,
		     struct rp_result **out)
{
	struct rp_options ro = *o;
	struct rp_result *res = NULL;
	struct rp_xfer *x = NULL;
	int ret, rc, bad = 0, anybad = 0;
	uint64_t start;

	ret = rp_share_new(split, map, my_rank, nranks, &ro.share);
	bad = ret != 0;
	if ((rc = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD)))
		ret = mpi_error(rc, "the setup");
	if (ret || anybad) {
		if (!bad)
			rp_share_free(ro.share);
		return gather(ret, NULL, out);
	}
	/* the others' progress threads would wait for this one's for ever */
	if (rp_xfer_start(my_rank, nranks, &x))
		MPI_Abort(MPI_COMM_WORLD, 1);
	rp_share_set_progress(ro.share, rp_xfer_progress(x));
	if ((rc = MPI_Barrier(MPI_COMM_WORLD))) {
		mpi_error(rc, "the barrier at the start");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	start = fstap_realtime_ns();
	ret = rp_run(&ro, &res);
	rc = rp_xfer_finish(x, ret);
	rp_share_free(ro.share);
	if (!ret && rc) {
		/* another rank failed: it is the one named */
		rp_result_free(res);
		res = NULL;
	} else if (!ret) {
		res->started_ns = start;
		if (my_rank)	/* every rank read the whole trace: rank 0 counts it */
			res->records = res->op_records = 0;
	}
	return gather(ret, res, out);
}

int rp_mpi_run(const struct rp_options *o, enum rp_split split, const char *map,
	       struct rp_result **out)
{
	struct rp_options ro = *o;

	ro.progress = o->progress && my_rank == 0;
	if (split == RP_SPLIT_CLONE)
		return run_clone(&ro, out);
	return run_split(&ro, split, map, out);
}
