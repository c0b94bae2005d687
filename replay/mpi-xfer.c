/*
 * mpi-xfer.c: `--mpi --split=process|thread`: the completions of operations
 * told between the ranks, so that an operation waits until those it depends
 * on have ended on their ranks.
 *
 * A worker's progress is one number, its ops completed (they complete in
 * order; struct rp_progress, run_i.h), so one progress thread per rank
 * sends, in batches, the new counts of its local workers to every other
 * rank (pairs: worker, count) and sets the stand-ins' counts from what it
 * receives; a worker waiting for a stand-in waits for that count. Every message goes through this thread,
 * while the rank's other threads make no MPI call (MPI_THREAD_SERIALIZED).
 *
 * The end: once its workers have ended, a rank sends its last counts and
 * then an end message carrying its status (messages from one rank to
 * another arrive in order), and keeps receiving until every rank's end has
 * come. A failed rank's end makes the others give up: their waits return,
 * what is left is not executed, and the replay fails naming that rank
 * (replay/mpi.c). A rank that dies is mpirun's to report: it stops the
 * others.
 *
 * No deadlock: every dependency points to an op dispatched earlier, the
 * dispatch order is the same on every rank, and the progress thread never
 * waits for a worker; so the earliest op not yet completed, wherever it
 * is, can always run.
 */
#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fstap/log.h"
#include "run_i.h"

#define XFER_TAG 19
#define END_MARK UINT64_MAX	/* pair (END_MARK, status): the sender's end */
#define IDLE_NS 50000		/* the progress thread's sleep when nothing moved */

/* What this rank has sent to one other rank. */
struct peer {
	MPI_Request req;
	bool busy;		/* req is in flight */
	bool end_sent, end_seen;
	uint64_t *buf;		/* pairs, MAX_WORKERS of them at most */
	uint64_t sent[MAX_WORKERS];	/* the counts it has been sent */
};

struct rp_xfer {
	struct rp_progress p;	/* the workers' side */
	int rank, nranks;
	pthread_t th;
	atomic_bool stop;	/* this rank's workers have ended */
	int status;		/* this rank's, for its end message */
	struct peer *peers;
	uint64_t *rbuf;
};

static void sleep_ns(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/* An MPI call failed in the progress thread: the job cannot go on. */
static void xfer_abort(struct rp_xfer *x, int rc, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "error %d", rc);
	fstap_error(-EIO, "--mpi: %s failed on rank %d: %s", what, x->rank, msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Whether the send to p is done (then p may send again). */
static bool peer_free(struct rp_xfer *x, struct peer *p)
{
	int flag = 0, rc;

	if (!p->busy)
		return true;
	if ((rc = MPI_Test(&p->req, &flag, MPI_STATUS_IGNORE)))
		xfer_abort(x, rc, "sending completions");
	if (flag)
		p->busy = false;
	return flag;
}

/* Sends dst the local counts it has not been sent; how many pairs (0: none, or busy). */
static unsigned send_counts(struct rp_xfer *x, int dst)
{
	struct peer *p = &x->peers[dst];
	unsigned i, n = 0, nlocal = atomic_load(&x->p.nlocal);
	int rc;

	if (!peer_free(x, p))
		return 0;
	for (i = 0; i < nlocal; i++) {
		uint64_t v = atomic_load_explicit(&x->p.local[i], memory_order_acquire);

		if (v == p->sent[i])
			continue;
		p->sent[i] = v;
		p->buf[2 * n] = i;
		p->buf[2 * n + 1] = v;
		n++;
	}
	if (!n)
		return 0;
	if ((rc = MPI_Isend(p->buf, (int)(2 * n), MPI_UINT64_T, dst, XFER_TAG, MPI_COMM_WORLD,
			    &p->req)))
		xfer_abort(x, rc, "sending completions");
	p->busy = true;
	return n;
}

static void send_end(struct rp_xfer *x, int dst)
{
	struct peer *p = &x->peers[dst];
	int rc;

	p->buf[0] = END_MARK;
	p->buf[1] = (uint64_t)(int64_t)x->status;
	if ((rc = MPI_Isend(p->buf, 2, MPI_UINT64_T, dst, XFER_TAG, MPI_COMM_WORLD, &p->req)))
		xfer_abort(x, rc, "sending the end");
	p->busy = true;
	p->end_sent = true;
}

/* Takes every message that has come; how many. */
static unsigned receive(struct rp_xfer *x)
{
	unsigned got = 0;

	for (;;) {
		MPI_Status st;
		int flag = 0, count = 0, rc, i;

		if ((rc = MPI_Iprobe(MPI_ANY_SOURCE, XFER_TAG, MPI_COMM_WORLD, &flag, &st)))
			xfer_abort(x, rc, "receiving completions");
		if (!flag)
			break;
		MPI_Get_count(&st, MPI_UINT64_T, &count);
		if (count < 0 || count > 2 * MAX_WORKERS || (count & 1)) {
			fstap_error(-EPROTO, "--mpi: a message of %d values from rank %d", count,
				    st.MPI_SOURCE);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if ((rc = MPI_Recv(x->rbuf, count, MPI_UINT64_T, st.MPI_SOURCE, XFER_TAG,
				   MPI_COMM_WORLD, MPI_STATUS_IGNORE)))
			xfer_abort(x, rc, "receiving completions");
		for (i = 0; i < count; i += 2) {
			uint64_t k = x->rbuf[i], v = x->rbuf[i + 1];

			if (k == END_MARK) {
				x->peers[st.MPI_SOURCE].end_seen = true;
				if ((int64_t)v)
					rp_progress_fail(&x->p, st.MPI_SOURCE);
			} else {
				rp_progress_set(&x->p, (unsigned)k, v);
			}
		}
		got++;
	}
	return got;
}

/* One round of sends; whether this rank's exchange is over. */
static bool send_round(struct rp_xfer *x, unsigned *moved)
{
	bool stopping = atomic_load(&x->stop), over = true;
	int k;

	for (k = 0; k < x->nranks; k++) {
		struct peer *p = &x->peers[k];

		if (k == x->rank)
			continue;
		if (!p->end_sent) {
			*moved += send_counts(x, k);
			/* the end goes once the last counts have gone */
			if (stopping && peer_free(x, p) && !send_counts(x, k))
				send_end(x, k);
		}
		if (!p->end_sent || !p->end_seen || !peer_free(x, p))
			over = false;
	}
	return over;
}

static void *progress_main(void *arg)
{
	struct rp_xfer *x = arg;

	for (;;) {
		unsigned moved = 0;
		bool over = send_round(x, &moved);

		moved += receive(x);
		if (over)
			break;
		if (!moved)
			sleep_ns(IDLE_NS);
	}
	return NULL;
}

int rp_xfer_start(int rank, int nranks, struct rp_xfer **out)
{
	struct rp_xfer *x = calloc(1, sizeof(*x));
	int k, rc;

	if (!x || !(x->peers = calloc((size_t)nranks, sizeof(*x->peers))) ||
	    !(x->rbuf = malloc(2 * MAX_WORKERS * sizeof(*x->rbuf))))
		goto nomem;
	for (k = 0; k < nranks; k++)
		if (!(x->peers[k].buf = malloc(2 * MAX_WORKERS * sizeof(uint64_t))))
			goto nomem;
	x->rank = rank;
	x->nranks = nranks;
	rp_progress_init(&x->p);
	if ((rc = pthread_create(&x->th, NULL, progress_main, x))) {
		fstap_error(-rc, "--mpi: cannot start the progress thread: %s", strerror(rc));
		rp_progress_destroy(&x->p);
		x->status = -rc;
		goto free;
	}
	*out = x;
	return 0;
nomem:
	fstap_error(-ENOMEM, "cannot replay: out of memory");
free:
	for (k = 0; x && x->peers && k < nranks; k++)
		free(x->peers[k].buf);
	if (x) {
		rc = x->status ? x->status : -ENOMEM;
		free(x->peers);
		free(x->rbuf);
		free(x);
		return rc;
	}
	return -ENOMEM;
}

struct rp_progress *rp_xfer_progress(struct rp_xfer *x)
{
	return &x->p;
}

int rp_xfer_finish(struct rp_xfer *x, int status)
{
	int k, failed;

	x->status = status;
	atomic_store(&x->stop, true);
	pthread_join(x->th, NULL);
	failed = atomic_load(&x->p.failed);
	for (k = 0; k < x->nranks; k++)
		free(x->peers[k].buf);
	free(x->peers);
	free(x->rbuf);
	rp_progress_destroy(&x->p);
	free(x);
	return failed >= 0 ? -ECANCELED : 0;
}
