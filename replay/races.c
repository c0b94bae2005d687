/*
 * races.c: races in the recording. Per object, the latest recorded ends of
 * its operations and the list of its operations still in the stage (in a
 * struct fstap_map, the latest lookup kept: a file's records come in
 * runs), to tell a result that differs because the recording
 * had two threads racing on an object from a divergence.
 */
#include <errno.h>
#include <stdlib.h>

#include "fstap/list.h"
#include "replay_i.h"

/* An object's staged operations, kept by the last one and walked backwards. */
FSTAP_LIST_DEFINE(staged_list, struct rp_task, race_next, race_prev)

/* How far back a change looks for the staged operations it started within. */
#define RACE_STAGED_SCAN 32

struct rp_race_obj {
	uint64_t mod_end, any_end;	/* latest recorded ends: of a change, of any op */
	uint32_t mod_tid, any_tid;
	struct rp_task *staged;		/* its latest operation in the stage */
	struct rp_race_obj *next_dead;	/* forgotten, freed after the next check */
};

/* Operations that change their object (for entry operations, the directory). */
static bool op_changes(unsigned op)
{
	switch (op) {
	case FSTAP_OP_SETATTR: case FSTAP_OP_WRITE: case FSTAP_OP_FALLOCATE:
	case FSTAP_OP_COPY_FILE_RANGE: case FSTAP_OP_SETXATTR: case FSTAP_OP_REMOVEXATTR:
	case FSTAP_OP_CREATE: case FSTAP_OP_MKNOD: case FSTAP_OP_MKDIR: case FSTAP_OP_SYMLINK:
	case FSTAP_OP_LINK: case FSTAP_OP_UNLINK: case FSTAP_OP_RMDIR: case FSTAP_OP_RENAME:
		return true;
	default:
		return false;
	}
}

static uint64_t rec_end(const struct fstap_rec *rec)
{
	return fstap_sat_add(rec->start_ns, rec->dur_ns);
}

void rp_races_init(struct rp_races *races)
{
	fstap_map_init(&races->objs);
	races->last_obj = 0;
	races->last = NULL;
	races->dead = NULL;
}

static struct rp_race_obj *race_obj(struct rp_races *races, uint64_t obj)
{
	struct rp_race_obj *e;

	if (obj == races->last_obj)
		return races->last;
	e = fstap_map_get_ptr(&races->objs, obj);
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return NULL;
		if (fstap_map_put_ptr(&races->objs, obj, e)) {
			free(e);
			return NULL;
		}
	}
	races->last_obj = obj;
	races->last = e;
	return e;
}

int rp_race_stage(struct rp_races *races, struct rp_task *t)
{
	struct rp_race_obj *e;
	struct rp_task *q;
	unsigned n;

	if (!t->rec.obj)
		return 0;
	e = race_obj(races, t->rec.obj);
	if (!e)
		return -ENOMEM;
	/* a change that started while operations of other threads were under way */
	if (op_changes(t->rec.op))
		for (q = e->staged, n = 0; q && n < RACE_STAGED_SCAN; q = q->race_prev, n++)
			if (q->rec.tid != t->rec.tid && rec_end(&q->rec) > t->rec.start_ns)
				q->raced = true;
	t->race_obj = e;
	staged_list_push(&e->staged, t);
	return 0;
}

void rp_race_unstage(struct rp_task *t)
{
	struct rp_race_obj *e = t->race_obj;

	if (!e)
		return;
	staged_list_unlink(&e->staged, t);
}

/* The forgotten objects' states: no task can use them any more. */
static void reap(struct rp_races *races)
{
	while (races->dead) {
		struct rp_race_obj *e = races->dead;

		races->dead = e->next_dead;
		free(e);
	}
}

/*
 * obj is dead (the path map forgets it, within the dispatch of a task): its
 * state goes, unless a staged operation still holds it. The task being
 * dispatched may: the state is freed after its check.
 */
void rp_races_forget(struct rp_races *races, uint64_t obj)
{
	struct rp_race_obj *e = fstap_map_get_ptr(&races->objs, obj);

	if (!e || e->staged)
		return;
	fstap_map_del(&races->objs, obj, NULL);
	if (races->last_obj == obj) {
		races->last_obj = 0;
		races->last = NULL;
	}
	e->next_dead = races->dead;
	races->dead = e;
}

void rp_race_check(struct rp_races *races, struct rp_task *t)
{
	struct rp_race_obj *e = t->race_obj;
	uint64_t start = t->rec.start_ns, end = rec_end(&t->rec);
	bool changes = op_changes(t->rec.op);

	if (!e) {
		reap(races);
		return;
	}
	/* it started while another thread's change was under way (or, a
	 * change, while another thread's operation was) */
	if ((e->mod_end > start && e->mod_tid != t->rec.tid) ||
	    (changes && e->any_end > start && e->any_tid != t->rec.tid))
		t->raced = true;
	if (changes && end >= e->mod_end) {
		e->mod_end = end;
		e->mod_tid = t->rec.tid;
	}
	if (end >= e->any_end) {
		e->any_end = end;
		e->any_tid = t->rec.tid;
	}
	reap(races);
}

void rp_races_release(struct rp_races *races)
{
	size_t pos = 0;
	uint64_t v;

	while (fstap_map_next(&races->objs, &pos, NULL, &v))
		free((struct rp_race_obj *)(uintptr_t)v);
	fstap_map_release(&races->objs);
	reap(races);
	rp_races_init(races);
}
