/*
 * sort.h: a trace's records in time order, with bounded memory.
 *
 * The recorder writes one chunk per thread at a time, so a trace file holds
 * each thread's records in order but interleaves threads chunk by chunk.
 * Every chunk is written at most one flush interval after its first record
 * started (metadata key recorder.flush_interval_ns), so holding records in a
 * heap for a window of two flush intervals restores the global order by start
 * time; ties keep file order. Metadata records (process, state, loss) keep
 * their place: they sort at the latest start time read before them.
 *
 * A record that arrives later than the window allows (a writer that fell
 * far behind) is delivered at once, out of order, and counted.
 */
#ifndef FSTAP_SORT_H
#define FSTAP_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fstap/trace.h"

/*
 * The reorder window itself, for a caller that keeps its own records (the
 * replay's tasks, the sorter's copies): items pushed in file order, each
 * keyed by (key, seq), come out in key order, ties in seq order. A file is
 * a sequence of chunks and a chunk holds one writer's records, which it
 * started one after the other: runs in key order. So the window is kept as
 * runs (lists linked by next) and its heap holds only each run's head: a
 * few dozen entries rather than every item. The keys are kept in the heap
 * and in the item before each one: comparing touches no other item.
 */
struct fstap_witem {
	struct fstap_witem *next;	/* the next item of its run */
	uint64_t key, seq;
	uint64_t next_key, next_seq;	/* next's key and seq */
};

/* A run of the window: its head's key and seq, and the head. */
struct fstap_wrun {
	uint64_t key, seq;
	struct fstap_witem *head;
};

struct fstap_window {
	struct fstap_wrun *heap;	/* the runs' heads, a min-heap */
	size_t n, cap;
	struct fstap_witem *tail;	/* the tail of the newest run */
	/* called on an item as it becomes the head of its run, or NULL */
	void (*prefetch)(const struct fstap_witem *it);
};

void fstap_window_init(struct fstap_window *w);
/* Frees the window's own memory (not the items still in it). */
void fstap_window_release(struct fstap_window *w);
/* Adds it (key and seq set; seq growing with every push). 0 or -ENOMEM. */
int fstap_window_push(struct fstap_window *w, struct fstap_witem *it);
/* Takes the earliest item, or NULL if the window is empty. */
struct fstap_witem *fstap_window_pop(struct fstap_window *w);

static inline bool fstap_window_empty(const struct fstap_window *w)
{
	return !w->n;
}

/* The earliest key in the window (not empty). */
static inline uint64_t fstap_window_min_key(const struct fstap_window *w)
{
	return w->heap[0].key;
}

struct fstap_sorter;

/* The window for a reader's trace: twice its flush interval (info->meta). */
uint64_t fstap_sort_window_ns(const struct fstap_trace_info *info);

/* Sorts what r yields (r stays owned by the caller). 0 or -ENOMEM. */
int fstap_sorter_new(struct fstap_sorter **out, struct fstap_reader *r, uint64_t window_ns);
/* Like fstap_reader_next: 1, 0 at the end, < 0 on error; rec valid until the next call. */
int fstap_sorter_next(struct fstap_sorter *s, struct fstap_rec *rec);
/*
 * Has fn see each record as it is read, in file order, before it joins
 * the window (rec valid during the call only); a nonzero return stops the
 * sorter: fstap_sorter_next returns it. The replay learns the namespace
 * there, ahead of the records it classifies.
 */
typedef int fstap_sorter_read_fn(void *arg, const struct fstap_rec *rec);
void fstap_sorter_on_read(struct fstap_sorter *s, fstap_sorter_read_fn *fn, void *arg);
/*
 * Whether fstap_sorter_next would give a record without reading one: the
 * window's oldest is due (or the trace has ended). A caller that acts on a
 * batch of due records at a time (the replay's stage) asks it.
 */
bool fstap_sorter_ready(const struct fstap_sorter *s);
/* The place in the file (0 for its first record) of what fstap_sorter_next gave last. */
uint64_t fstap_sorter_seq(const struct fstap_sorter *s);
/*
 * The reader's error, as soon as it is met (fstap_sorter_next returns it
 * once it has delivered what the window held): for a caller that stops at
 * once. 0 if none.
 */
int fstap_sorter_error(const struct fstap_sorter *s);
/* Records delivered out of order because they came later than the window. */
uint64_t fstap_sorter_late(const struct fstap_sorter *s);
void fstap_sorter_free(struct fstap_sorter *s);

/* What fstap_rec_clone_into copies besides the record itself. */
enum fstap_clone_parts {
	FSTAP_CLONE_ALL,	/* everything */
	FSTAP_CLONE_OP,		/* what an operation's replay uses: name, newname, target,
				 * value, entries (process and state fields dropped) */
};

/* The bytes fstap_rec_clone_into writes after the record (8-byte aligned start). */
size_t fstap_rec_clone_size(const struct fstap_rec *rec, enum fstap_clone_parts parts);
/*
 * A deep copy of rec into *dst, its names, entries and arrays in data
 * (fstap_rec_clone_size(rec, parts) bytes, 8-byte aligned).
 */
void fstap_rec_clone_into(struct fstap_rec *dst, void *data, const struct fstap_rec *rec,
			  enum fstap_clone_parts parts);
/*
 * A deep copy of rec in one allocation (free() it): names, entries, xattrs
 * and extents included. NULL on ENOMEM.
 */
struct fstap_rec *fstap_rec_clone(const struct fstap_rec *rec);

/*
 * A record packed to be held in memory by the million (rec_pack.c): its
 * nonzero fields in their least bytes, names inline; some 30 bytes plus
 * names for an operation record, its start_ns free when it is base (the
 * sorter passes its key). pack writes at most fstap_rec_pack_bound(rec)
 * bytes at dst (8-byte aligned; some 500 plus names for an operation
 * record) and returns how many; unpack, given the same base, gives the
 * record back, its pointers into src. unpack reads up to
 * FSTAP_REC_PACK_SLACK bytes past what pack wrote: they must be readable.
 */
#define FSTAP_REC_PACK_SLACK 8
size_t fstap_rec_pack_bound(const struct fstap_rec *rec);
size_t fstap_rec_pack(void *dst, const struct fstap_rec *rec, uint64_t base);
void fstap_rec_unpack(struct fstap_rec *dst, const void *src, uint64_t base);

#endif
