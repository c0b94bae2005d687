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
 * --pace=native takes the recorder's own cost out of each gap: a recorded
 * gap runs from the recorder's reply to a thread's previous request to the
 * recorder's start of its next one, so it holds one FUSE round trip beyond
 * the application's think time (the reply's way back, the next request's
 * way in). The recorder measures one when it starts (recorder.calibration,
 * src/record/calibrate.c), on an idle private mount; the trace itself
 * shows the round trips under the recording's own load, between two
 * requests the kernel sends inside one system call (a lookup and the open
 * or create of the name, the getxattr of security.capability and the
 * write): their mean, once RP_NATIVE_MIN_SEEN are seen, stands for the
 * calibration. Requests of the thread that the replay does not issue (the
 * lookups of a path walk, the kernel's getxattr before a write)
 * were waited for inside a system call: their durations and round trips
 * come off as well. The result is clamped at 0.
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

int rp_native_from_meta(const struct fstap_meta *m, struct rp_native *n)
{
	memset(n, 0, sizeof(*n));
	n->writeback = m->writeback_cache;
	if (!m->calibrated)
		return -ENOENT;
	n->meta_ns = m->meta_round_trip_ns;
	n->data_ns = m->data_round_trip_ns;
	return 0;
}

void rp_native_seen(struct rp_native *n, unsigned prev_op, uint64_t prev_end,
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
	if (c->start_ns < prev_end || c->start_ns - prev_end > RP_NATIVE_MAX_SEEN_NS)
		return;
	n->seen_ns[kind] += c->start_ns - prev_end;
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

uint64_t rp_native_gap(const struct rp_native *n, uint64_t gap_ns, uint64_t hidden_ns,
		       unsigned op)
{
	uint64_t off = fstap_sat_add(hidden_ns, rp_native_rtt(n, op));

	return gap_ns > off ? gap_ns - off : 0;
}
