/*
 * timing.c: pacing for --pace=orig and --pace=N%. Pure arithmetic over an
 * injectable clock, so that the unit test drives it with a fake clock.
 *
 * The model: a recorded thread issues an op, waits for its reply, "thinks"
 * for gap = start(next) - end(this), then issues the next op. A paced
 * worker keeps that gap (scaled by pct/100) after its own previous
 * completion: ideal(k) = done(k-1) + scaled gap(k).
 *
 * Why the lateness is carried (fio's iolog time_offset): a sleep overshoots
 * its deadline by some microseconds, and an op issued late completes late,
 * which moves every later ideal time. Without compensation the overshoot of
 * every op adds up over a long trace. So each worker keeps a debt D, how
 * much later than its target the previous op was issued, and aims earlier
 * by D: target(k) = ideal(k) - D(k-1). After issuing at time a(k):
 *
 *     D(k) = a(k) - target(k)
 *
 * which holds both when the worker slept (then D(k) is just this sleep's
 * overshoot: a(k) = target(k) + overshoot) and when it was already late
 * (no sleep; the debt grows by the new lateness and is paid back from the
 * next gaps). Summing, the issue time of op k is within one overshoot of
 * the sum of the ideal gaps plus the service times, instead of drifting by
 * k overshoots. A negative D (an early wake-up) makes the next target
 * later, symmetrically. The reported schedule lag is a(k) - ideal(k),
 * counted as 0 when the worker is early (paying back debt).
 *
 * --pace=native takes the recorder's share out of each gap. A recorded gap
 * runs from the recorder's reply to a thread's previous request to the
 * recorder's start of its next one: the reply's way back, the
 * application's own time, the next request's way in, and whatever kept the
 * thread from a CPU meanwhile (the recorder's threads among them: a
 * recording short of CPUs has gaps much longer than one round trip). The
 * replay cannot see the application's time apart, so it estimates the
 * recorder's share of each gap between two requests of a thread from the
 * gaps of the same kind:
 *  - the round trip: the mean gap between two requests the kernel sends
 *    inside one system call (a lookup and the create, open, mkdir, mknod,
 *    symlink or getattr of the name it found; the kernel's getxattr of
 *    security.capability and the write it comes before), nothing of the
 *    application's between them; the calibration of the trace's metadata
 *    (recorder.calibration, src/record/calibrate.c) until
 *    RP_NATIVE_MIN_SEEN are seen;
 *  - the think of a transition (the previous request's type, this one's):
 *    a transition's gaps up to RP_NATIVE_MAX_SEEN_NS are the application's
 *    time between those two calls plus the recorder's share, which varies
 *    from gap to gap (a recording short of CPUs has gaps of many round
 *    trips when the recorder's threads took the CPU). The shortest gap of
 *    the transition so far has the least of the recorder's: once
 *    RP_NATIVE_MIN_SEEN are seen, a gap keeps no more think than that
 *    shortest gap less a round trip. A loop that calls the file system
 *    with no work between the calls so keeps almost none, whatever its
 *    gaps' spread; an application that works as long each time between
 *    two calls keeps that work;
 *  - a longer gap (or one of a transition not seen RP_NATIVE_MIN_SEEN
 *    times yet) loses its floor: the mean of the transition's gaps (up to
 *    RP_NATIVE_MAX_SEEN_NS) once RP_NATIVE_MIN_SEEN are seen, the round
 *    trip until then, and never more than RP_NATIVE_FLOOR_CAP round trips.
 *    A gap shorter than its floor leaves the rest owed (at most the cap),
 *    and the thread's next such gaps pay it first.
 * What is left of the gaps between the thread's previous issued operation
 * and the next one is its think time; the durations of requests the replay
 * does not issue (the lookups of a path walk, the flush of a close) were
 * the thread's waits inside a system call and are not. A forget has no
 * reply and is no wait of the thread's; a request from no thread (tid 0:
 * the kernel's release after the last close of a file) is no thread's
 * wait, and has no think time before it (its opener's gap to its next
 * request holds that).
 *
 * A thread that started other threads and waits for them to end (a join)
 * has a recorded gap that is no think time: it holds the other threads'
 * whole run, recorder and all. Paced, that gap would keep the recorded
 * length whatever pace the other threads replay at (--pace=native, a
 * faster target). So the gap counts from the latest end of a thread
 * started in it and idle at the op's start (rp_pace_joined); with
 * --order=thread the op waits for that end. A thread that thinks while
 * one it started happens to be between two operations loses that think
 * time.
 *
 * Not here: where the gaps come from (dispatch.c computes them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay_i.h"

static uint64_t real_now(void *arg)
{
	(void)arg;
	return fstap_now_ns();
}

static void real_sleep_until(void *arg, uint64_t t)
{
	(void)arg;
	fstap_sleep_until_ns(t);
}

const struct rp_clock rp_clock_real = { real_now, real_sleep_until, NULL };

void rp_pace_init(struct rp_pace *p, unsigned pct)
{
	p->pct = pct;
	p->debt_ns = 0;
}

uint64_t rp_pace_scale(const struct rp_pace *p, uint64_t gap_ns)
{
	unsigned __int128 v = (unsigned __int128)gap_ns * p->pct / 100;

	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

uint64_t rp_pace_wait(struct rp_pace *p, const struct rp_clock *c, uint64_t prev_done,
		      uint64_t gap_ns, uint64_t *issued)
{
	uint64_t ideal, now, target;

	if (!p->pct) {
		*issued = c->now(c->arg);
		return 0;
	}
	ideal = fstap_sat_add(prev_done, rp_pace_scale(p, gap_ns));
	if (p->debt_ns >= 0)
		target = ideal > (uint64_t)p->debt_ns ? ideal - (uint64_t)p->debt_ns : 0;
	else
		target = fstap_sat_add(ideal, (uint64_t)-p->debt_ns);
	now = c->now(c->arg);
	if (target > now) {
		c->sleep_until(c->arg, target);
		now = c->now(c->arg);
	}
	/* The debt is bounded by the run's length: no overflow in practice. */
	p->debt_ns = now >= target ? (int64_t)(now - target) : -(int64_t)(target - now);
	*issued = now;
	return now > ideal ? now - ideal : 0;
}

uint64_t rp_pace_joined(uint64_t from, uint64_t own_end, uint64_t start, uint64_t born,
			uint64_t last_end)
{
	if (born > own_end && last_end <= start && last_end > from)
		return last_end;
	return from;
}

int rp_native_init(const struct fstap_meta *m, struct rp_native *n)
{
	memset(n, 0, sizeof(*n));
	n->writeback = m->writeback_cache;
	if (!m->calibrated)
		return -ENOENT;
	n->meta_ns = m->meta_round_trip_ns;
	n->data_ns = m->data_round_trip_ns;
	n->trans = calloc((size_t)FSTAP_OP_NR * FSTAP_OP_NR, sizeof(*n->trans));
	return n->trans ? 0 : -ENOMEM;
}

void rp_native_free(struct rp_native *n)
{
	free(n->trans);
	n->trans = NULL;
}

/* Counts the gap e before c if it is a round trip between two requests of one call. */
static void seen_round_trip(struct rp_native *n, unsigned prev_op, uint64_t e,
			    const struct fstap_rec *c, bool marked)
{
	unsigned kind;

	if (marked && c->op == FSTAP_OP_WRITE)
		kind = 1;
	else if (prev_op == FSTAP_OP_LOOKUP &&
		 (c->op == FSTAP_OP_CREATE || c->op == FSTAP_OP_OPEN || c->op == FSTAP_OP_MKDIR ||
		  c->op == FSTAP_OP_MKNOD || c->op == FSTAP_OP_SYMLINK || c->op == FSTAP_OP_GETATTR))
		kind = 0;
	else
		return;
	if (e > RP_NATIVE_MAX_SEEN_NS)
		return;
	n->seen_ns[kind] += e;
	n->seen_n[kind]++;
}

uint64_t rp_native_rtt(const struct rp_native *n, unsigned op)
{
	unsigned kind = op == FSTAP_OP_READ || op == FSTAP_OP_WRITE;

	if (op == FSTAP_OP_WRITE && n->writeback)
		return 0;
	if (n->seen_n[kind] >= RP_NATIVE_MIN_SEEN)
		return n->seen_ns[kind] / n->seen_n[kind];
	if (n->seen_n[!kind] >= RP_NATIVE_MIN_SEEN)
		return n->seen_ns[!kind] / n->seen_n[!kind];
	return kind ? n->data_ns : n->meta_ns;
}

/*
 * What of a gap e from prev_op to op was the application's, for thread th;
 * learns e.
 */
static uint64_t think_of(struct rp_native *n, struct rp_native_thread *th, unsigned prev_op,
			 unsigned op, uint64_t e)
{
	struct rp_native_trans *tr = &n->trans[(size_t)prev_op * FSTAP_OP_NR + op];
	uint64_t rtt = rp_native_rtt(n, op), cap = rtt * RP_NATIVE_FLOOR_CAP, floor, off;
	bool known = tr->n >= RP_NATIVE_MIN_SEEN, small = e <= RP_NATIVE_MAX_SEEN_NS;

	floor = known ? tr->sum_ns / tr->n : rtt;
	if (small) {
		tr->sum_ns += e;
		if (!tr->n++ || e < tr->min_ns)
			tr->min_ns = e;
	}
	if (known && small)
		return tr->min_ns > rtt ? tr->min_ns - rtt : 0;	/* (min_ns <= e) */
	off = fstap_sat_add(floor < cap ? floor : cap, th->owed_ns);
	if (e >= off) {
		th->owed_ns = 0;
		return e - off;
	}
	th->owed_ns = off - e < cap ? off - e : cap;
	return 0;
}

void rp_native_step(struct rp_native *n, struct rp_native_thread *th, const struct fstap_rec *c,
		    bool marked)
{
	uint64_t e;

	if (c->op == FSTAP_OP_FORGET || c->op >= FSTAP_OP_NR || !c->tid)
		return;
	if (th->started && c->start_ns >= th->last_end) {
		e = c->start_ns - th->last_end;
		seen_round_trip(n, th->last_op, e, c, marked);
		th->think_ns = fstap_sat_add(th->think_ns, think_of(n, th, th->last_op, c->op, e));
	}
	th->started = true;
	th->last_op = c->op;
	th->last_end = fstap_sat_add(c->start_ns, c->dur_ns);
}

uint64_t rp_native_gap(struct rp_native_thread *th, uint64_t gap_ns)
{
	uint64_t think = th->think_ns;

	th->think_ns = 0;
	return gap_ns < think ? gap_ns : think;
}
