/*
 * stage.c: the records out of the reorder window, waiting to be
 * dispatched. Each joins its recorded thread's list, where classify.c's
 * rules see its neighbours (those before it as it joins, those after it as
 * it leaves), and waits there until the next records of its
 * thread it depends on join it and every record that started before it
 * ended has come (a change of another thread within it makes it raced,
 * races.c), or a window more (a thread's last record before it pauses:
 * nothing more may come).
 */
#include <errno.h>
#include <stdlib.h>

#include "fstap/list.h"
#include "fstap/pathmap.h"
#include "run_i.h"

FSTAP_QUEUE_DEFINE(thread_list, struct rp_task, tprev, tnext)

struct tstate *rp_tstate_new(struct run *r, uint32_t tid)
{
	struct tstate *ts = calloc(1, sizeof(*ts));

	if (!ts || fstap_map_put(&r->tids, (uint64_t)tid + 1, (uint64_t)(uintptr_t)ts)) {
		free(ts);
		return NULL;
	}
	return ts;
}

/*
 * Appends t to its thread's list, where what the records before it say is
 * found (rp_classify_arrived: a write's marker, the read a getattr with a
 * handle stands for, the create or opendir before a getattr). Records come
 * here in global start order (from the reorder window), so a thread's
 * records arrive in its own order and t always goes at the tail.
 */
static void thread_append(struct tstate *ts, struct rp_task *t)
{
	thread_list_push_tail(&ts->head, &ts->tail, t);
	rp_classify_arrived(t, &ts->fh_hist);
}

static void thread_unlink(struct tstate *ts, struct rp_task *t)
{
	thread_list_unlink(&ts->head, &ts->tail, t);
}

/*
 * The window's output, in start order: joins its thread's list (its own
 * requests and the kernel's write markers, the boundaries of its write()
 * calls), then the stage, where it waits out the lookahead.
 */
int rp_stage(struct run *r, struct rp_task *t)
{
	struct tstate *ts = rp_tstate_get(r, t->rec.tid, true);

	if (!ts) {
		rp_task_free(t);
		return -ENOMEM;
	}
	t->ts = ts;
	if (rp_race_stage(&r->races, t)) {
		rp_task_free(t);
		return -ENOMEM;
	}
	if (!(t->rec.flags & FSTAP_RF_KERNEL) || t->marker)
		thread_append(ts, t);
	t->next = NULL;
	if (r->stage_tail)
		r->stage_tail->next = t;
	else
		r->stage_head = t;
	r->stage_tail = t;
	return 0;
}

/*
 * Takes t out of its thread's list, where what the records after it say is
 * found (rp_classify: the call after a lookup or getattr), and the rest of
 * a split write() it starts (the window). By now the records after it that
 * it depends on have come, or will not (rp_unstage), and everything that
 * started before it has been read: what the object after a GETATTR is,
 * below which directory, may have been learned only since it was staged
 * (a CREATE can come later in the file, in another FUSE worker's chunk).
 */
static void release(struct run *r, struct rp_task *t)
{
	struct tstate *ts = t->ts;

	if (!(t->tprev || t->tnext || ts->head == t))
		return;
	if (t->rec.op == FSTAP_OP_WRITE)
		rp_merge_split_write(t);
	else
		rp_classify(r->attr_stale, r->pm, t);
	thread_unlink(ts, t);
}

/*
 * Every record that started before t ended has been staged: a change of
 * another thread that started within t has marked it raced (races.c).
 */
static bool race_settled(const struct run *r, const struct rp_task *t)
{
	return r->stage_tail->win.key >= fstap_sat_add(t->rec.start_ns, t->rec.dur_ns);
}

/*
 * Dispatches the staged records in order, each once it is classified for
 * good and every record that started before it ended has been staged, or
 * once it has waited out the lookahead (a thread's last record before it
 * pauses: nothing more may come). All of them at the end.
 */
int rp_unstage(struct run *r, bool all)
{
	struct rp_task *t;
	int ret;

	while ((t = r->stage_head) &&
	       (all || (rp_classified(t) && race_settled(r, t)) ||
		fstap_sat_add(t->win.key, r->lookahead) < r->stage_tail->win.key)) {
		r->stage_head = t->next;
		if (!r->stage_head)
			r->stage_tail = NULL;
		else
			rp_prefetch_task(r->stage_head);	/* the next to dispatch */
		t->next = NULL;
		release(r, t);
		rp_race_unstage(t);
		if ((ret = rp_dispatch(r, t)))
			return ret;
	}
	return 0;
}

static bool is_release(unsigned op)
{
	return op == FSTAP_OP_RELEASE || op == FSTAP_OP_RELEASEDIR;
}

/*
 * Whether the replay of s, another thread's, may be what t waits for: a
 * FIFO's open waits for its other end, a read or a write of one (io) for
 * its other end's I/O or close. What the replay does not issue (a forget,
 * the kernel's own requests) unblocks nothing.
 */
static bool may_unblock(const struct rp_task *s, bool io)
{
	enum rp_fate f = rp_fate(s);

	if (f == RP_FATE_NOT_REPLAYED || (f == RP_FATE_KERNEL && !is_release(s->rec.op)))
		return false;
	return io || !is_release(s->rec.op);
}

/*
 * Whether t's system call may wait in the kernel for another thread's next
 * one: the open of a FIFO for its other end, a read or a write of one for
 * its other end's I/O or close (an ioctl, who knows). Nothing else does: a
 * regular file's open, read or write, a stat, a namespace change waits at
 * most for calls already running. An object whose kind the trace does not
 * tell may be a FIFO.
 */
static bool may_block(const struct run *r, const struct rp_task *t)
{
	enum fstap_kind k;

	switch (t->rec.op) {
	case FSTAP_OP_OPEN:
		k = fstap_pathmap_kind(r->pm, t->rec.obj);
		return k != FSTAP_KIND_FILE && k != FSTAP_KIND_DIR;
	case FSTAP_OP_READ:
	case FSTAP_OP_WRITE:
		return fstap_pathmap_kind(r->pm, t->rec.obj) != FSTAP_KIND_FILE;
	case FSTAP_OP_IOCTL:
		return true;
	default:
		return false;
	}
}

/*
 * Whether t, just unstaged (the records after it are those still staged),
 * waited for no later operation of another thread when recorded: it may
 * not block (may_block), or no record of another thread that may unblock
 * it started within it. Every record that started before t ended has been
 * staged by now if t is shorter than the lookahead (race_settled, or it
 * waited it out).
 */
bool rp_stage_alone(const struct run *r, const struct rp_task *t)
{
	uint64_t end = fstap_sat_add(t->rec.start_ns, t->rec.dur_ns);
	bool io = t->rec.op == FSTAP_OP_READ || t->rec.op == FSTAP_OP_WRITE;
	const struct rp_task *s;

	if (!may_block(r, t))
		return true;
	if (t->rec.dur_ns >= r->lookahead)
		return false;
	for (s = r->stage_head; s && s->win.key < end; s = s->next)
		if (s->rec.tid != t->rec.tid && may_unblock(s, io))
			return false;
	return true;
}
