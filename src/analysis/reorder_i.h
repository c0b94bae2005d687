/*
 * reorder_i.h: the reorder plan's structures (the groups of a thread's
 * records on one file, the runs of groups in one directory, the plan that
 * holds them) and the calls between its files: the grouping of the records
 * (reorder_group.c), a closed run's new order and times (reorder_order.c),
 * the plan's life and its streaming bound (reorder_plan.c), and the command
 * that writes the output in time order (reorder.c).
 *
 * Not a public API: src/analysis/reorder*.c include this.
 */
#ifndef FSTAP_ANALYSIS_REORDER_I_H
#define FSTAP_ANALYSIS_REORDER_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* A record the plan holds until its new time is known. */
struct mref {
	const struct fstap_rec *rec;
	uint64_t seq;
};

struct grp {
	uint64_t id, file;
	struct prun *run;		/* NULL once the run is closed */
	uint64_t run_id;
	uint64_t first_t, end_t;	/* of the thread's records */
	int64_t delta;			/* new time - old time, once placed */
	bool placed;
	uint64_t pos;			/* listing position + 1, 0 unknown */
	uint64_t ino;
	uint8_t *name;
	uint32_t name_len;
	struct mref *members;
	size_t nmem, capmem;
	unsigned nhandles;		/* open handles whose release joins it */
	struct grp *prev, *next;	/* placed with open handles: the plan's held list */
};

struct between {
	struct mref m;
	size_t slot;			/* comes before group slot (index) */
};

struct prun {
	uint64_t id;
	uint32_t tid;
	uint64_t dir;
	struct grp **g;
	size_t ng, capg;
	struct between *btw;
	size_t nbtw, capbtw;
	struct mref *pending;		/* the thread's neutral records since its last group record */
	size_t npend, cappend;
	bool active;
};

/* Tells the new time of one record; 0 or -ENOMEM. */
typedef int (*resolve_fn)(void *arg, const struct mref *m, uint64_t new_t);

struct plan {
	enum an_order by;
	uint64_t rng;
	struct an_objtab *objs;		/* .reorder */
	struct an_objtab *threads;	/* priv: the thread's active run */
	struct an_objtab *handles;	/* priv: the group that opened the handle */
	struct an_objtab *files;	/* priv: the file's latest group, while its run is open */
	struct fstap_pathmap *pm;
	const char *target;		/* AN_BY_TARGET: the prepared directory */
	char *lpath;			/* the directory of listing, under target */
	struct an_listing *listing;	/* its entries in the target's readdir order */
	struct prun **active;
	size_t nactive, capactive;
	struct grp *held;		/* placed groups that open handles still reach */
	uint64_t next_gid, next_rid;
	uint64_t *group, *run;		/* per record (an_reorder_plan), or NULL */
	resolve_fn resolve;
	void *arg;
	struct an_reorder_stats st;
};

/* Tells m's new time t (0 if t is negative). */
static inline int ro_resolve_at(struct plan *p, const struct mref *m, int64_t t)
{
	return p->resolve(p->arg, m, t < 0 ? 0 : (uint64_t)t);
}

/* ---- reorder_group.c ---- */

/* Takes one operation record into its group, run or place. 0 or -ENOMEM. */
int ro_step(struct plan *p, const struct mref *m);
/* A readdir record: the latest listing of a directory numbers its entries. */
int ro_note_listing(struct plan *p, const struct fstap_rec *rec);
/* A handle ends with its release: the group it joined no longer waits for it. */
void ro_drop_handle(struct plan *p, uint64_t fh);
/* Once its run is closed: g freed, or kept on the held list for its handles. */
void ro_grp_done(struct plan *p, struct grp *g);
void ro_grp_free(struct grp *g);

/* ---- reorder_order.c ---- */

/* Places the run's groups in the plan's order, resolves its records; frees the run. */
int ro_close_run(struct plan *p, struct prun *r);

/* ---- reorder_plan.c ---- */

int ro_plan_init(struct plan *p, struct an_objtab *objs, struct fstap_pathmap *pm,
		 enum an_order by, uint64_t seed, const char *target, resolve_fn resolve, void *arg);
/* Feeds one operation record (seq counts them from 0); rec stays valid until resolved. */
int ro_plan_feed(struct plan *p, const struct fstap_rec *rec, uint64_t seq);
/* No record still to be resolved gets a time below this (now: the latest start fed). */
uint64_t ro_plan_low(const struct plan *p, uint64_t now);
/* Ends the plan: resolves the records of the open runs (err 0), frees everything. */
int ro_plan_end(struct plan *p, int err);

#endif
