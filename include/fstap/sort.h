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

#include "fstap/trace.h"

struct fstap_sorter;

/* The window for a trace: twice its flush interval (default 1 s). */
uint64_t fstap_sort_window_ns(const struct fstap_trace_info *info);

/* Sorts what r yields (r stays owned by the caller). 0 or -ENOMEM. */
int fstap_sorter_new(struct fstap_sorter **out, struct fstap_reader *r, uint64_t window_ns);
/* Like fstap_reader_next: 1, 0 at the end, < 0 on error; rec valid until the next call. */
int fstap_sorter_next(struct fstap_sorter *s, struct fstap_rec *rec);
/* Records delivered out of order because they came later than the window. */
uint64_t fstap_sorter_late(const struct fstap_sorter *s);
void fstap_sorter_free(struct fstap_sorter *s);

/*
 * A deep copy of rec in one allocation (free() it): names, entries, xattrs
 * and extents included. NULL on ENOMEM.
 */
struct fstap_rec *fstap_rec_clone(const struct fstap_rec *rec);

#endif
