/*
 * analysis.h: reading a trace for people (report) and writing variants of it
 * (reorder, filter). The commands in src/cli/ are thin wrappers over these
 * entry points; `fstap compare --variant` can call an_reorder() directly.
 *
 * Everything here reads traces through the sorter (records in time order:
 * recorded files interleave per-thread chunks) and learns object names and
 * parents in that order. It never touches a file system other than reading
 * the input trace and writing the output trace.
 *
 * Errors: 0 or -errno. A message for the user has already been printed with
 * fstap_error() when an entry point fails, so the caller only maps the code
 * to an exit status.
 */
#ifndef FSTAP_ANALYSIS_H
#define FSTAP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fstap/trace.h"
#include "fstap/util.h"

struct fstap_pathmap;

/* ---- rank statistics (rank.c) ------------------------------------------ */

/*
 * Fractional ranks of v[0..n): rank[i] is 1 + the number of values below
 * v[i], plus half the number of other values equal to it (ties share the
 * mean of their ranks). 0 or -ENOMEM.
 */
int an_ranks(const double *v, size_t n, double *rank);
/*
 * Spearman's rank correlation of x and y (n pairs): the Pearson correlation
 * of their fractional ranks, in [-1, 1]. NaN when n < 2 or when either side
 * has no variation (all values tied): the correlation is undefined then.
 */
double an_spearman(const double *x, const double *y, size_t n);

/* ---- objects (objtab.c) ------------------------------------------------- */

/*
 * What the analysis knows about one object id of a trace besides its
 * place in the namespace, which is the pathmap's (fstap_pathmap_parent,
 * fstap_pathmap_name, fstap_pathmap_kind).
 */
struct an_obj {
	uint64_t obj;
	uint64_t ino;		/* state_inode ino, else a readdir d_ino; 0 unknown */
	/* for the user of the table, zero at first: a member per user */
	union {
		struct {			/* report's objects (report.c) */
			uint64_t ops;		/* a directory: operations credited to it */
			bool touched;		/* named by an application's record */
		} report;
		struct {			/* report's handles: fh, else obj | 1 << 63 */
			uint64_t next_offset;	/* where the latest transfer on it ended */
		} handle;
		struct {			/* a listing's entries (order.c) */
			uint64_t pos;		/* 1-based position in the listing */
		} listing;
		struct {			/* the entries a reading opened (order.c) */
			bool opened;
		} reading;
		struct {			/* reorder's objects (reorder_group.c) */
			uint64_t pos;		/* 1-based position in its directory's latest
						 * listing; 0: none */
			uint64_t entries;	/* a directory: entries numbered in its latest
						 * listing so far */
		} reorder;
	};
	void *priv;		/* for the user of the table */
	bool ino_from_state;	/* (the small member last: 48 bytes) */
};

struct an_objtab;

int an_objtab_new(struct an_objtab **out);
void an_objtab_free(struct an_objtab *t);
/*
 * The entry of obj, or NULL (get) / a new zeroed entry (add; NULL on
 * ENOMEM). Either may bring back a settled entry (an_objtab_settle_dead),
 * which moves the table: pointers from get/add end at the next get or add.
 */
struct an_obj *an_objtab_get(struct an_objtab *t, uint64_t obj);
struct an_obj *an_objtab_add(struct an_objtab *t, uint64_t obj);
/* Forgets obj (if known); moves another entry: pointers from get/add end here. */
void an_objtab_del(struct an_objtab *t, uint64_t obj);
/*
 * Learns from one record in time order, and applies it to pm (the
 * caller's pathmap: do not apply it there too): the kinds
 * (fstap_pathmap_learn_kind) and the inode numbers (state_inode, d_ino,
 * which the pathmap does not keep). 0 or -ENOMEM.
 */
int an_objtab_apply(struct an_objtab *t, struct fstap_pathmap *pm, const struct fstap_rec *rec);
/*
 * From then on, an_objtab_apply forgets an object when its pathmap does
 * (pathmap.h: dead for the grace period), calling fn(o, arg) first (if not
 * NULL) while o's path still resolves. An entry the pathmap never knew
 * (no name) stays. The first an_objtab_apply after it takes the
 * pathmap's hooks (on_forget, and on_death if an_objtab_settle_dead came
 * first) for the table, once: an_objtab_settle_dead called later takes
 * on_death itself.
 */
void an_objtab_forget_dead(struct an_objtab *t, void (*fn)(struct an_obj *o, void *arg), void *arg);
/*
 * With an_objtab_forget_dead, before or after the first an_objtab_apply:
 * from then on, when the pathmap finds an object dead (it may still come
 * back), its entry is settled if is_bare(o) says it holds what *bare
 * holds (obj aside): the table keeps its id and no entry. A settled
 * entry comes back as *bare when get or add ask for it, and is *bare for
 * the fn of its forgetting and for an_objtab_each: the dead of the grace
 * period cost a map slot each instead of an entry, and every answer stays
 * the same.
 */
void an_objtab_settle_dead(struct an_objtab *t, const struct an_obj *bare,
			   bool (*is_bare)(const struct an_obj *o));
/*
 * Calls fn for every entry; for a settled one with a copy of it (what fn
 * changes there is lost).
 */
void an_objtab_each(struct an_objtab *t, void (*fn)(struct an_obj *o, void *arg), void *arg);

/* ---- the access order analysis (order.c) ------------------------------ */

enum { AN_ORD_READDIR, AN_ORD_NAME, AN_ORD_INODE, AN_ORD_NR };

/*
 * One reading: the first opens of the entries of directory dir listed by
 * process lister, by the lister itself, or by the processes that did not
 * list it (then the directory's latest listing by anyone: order.c has the
 * rule). readers: their pids in the order of their first open.
 */
struct an_access_row {
	uint64_t dir;
	uint32_t lister;
	const uint32_t *readers;
	size_t nreaders;
	size_t files, listed;		/* entries opened; entries in the listing */
	double rho[AN_ORD_NR];		/* Spearman rho with each order; NaN: none */
};

struct an_access;

int an_access_new(struct an_access **out);
void an_access_free(struct an_access *o);
/*
 * A successful readdir record, after an_objtab_apply of it to objs (which
 * gives the inode numbers of the initial state). 0 or -ENOMEM.
 */
int an_access_listing(struct an_access *o, const struct fstap_rec *rec,
		     struct an_objtab *objs);
/* Process pid opened file, an entry of directory dir. 0 or -ENOMEM. */
int an_access_open(struct an_access *o, uint32_t pid, uint64_t dir, uint64_t file);
/*
 * Ends every reading; *rows (owned by o, valid until an_access_free) gets one
 * row per reading that opened a listed entry. 0 or -ENOMEM.
 */
int an_access_finish(struct an_access *o, const struct an_access_row **rows, size_t *n);
/*
 * Ends the readings of dir, a directory gone for good: 1 if that added
 * rows, 0 if not, -ENOMEM.
 */
int an_access_forget(struct an_access *o, uint64_t dir);

/* ---- report (report.c) -------------------------------------------------- */

struct an_report_opts {
	bool json;
	unsigned top;		/* rows in the per-process, directory and order tables */
};

/* Reads TRACE and prints the report to out. 0 or -errno (message printed). */
int an_report(const char *trace, const struct an_report_opts *opts, FILE *out);

/* ---- reorder (reorder*.c) ----------------------------------------------- */

/*
 * AN_BY_TARGET ("target-readdir"): the order in which a prepared target's
 * own readdir returns the directory's entries (an_reorder's target).
 */
enum an_order { AN_BY_READDIR, AN_BY_NAME, AN_BY_INODE, AN_BY_RANDOM, AN_BY_TARGET, AN_BY_NR };

extern const char *const an_order_names[AN_BY_NR];

/*
 * The reorder plan of recs[0..n) (operation records, in time order, the
 * metadata records left out). For each record: group[i] is the per-file
 * group it belongs to (0: none, it stays where it is), run[i] the run of
 * groups it belongs to (0: none), and new_t[i] its new start time
 * (reorder_group.c explains groups and runs, reorder_order.c the times).
 * objs and pm hold what is known before the first record (apply the
 * state_inode and state_dentry records to them with an_objtab_apply); the
 * plan applies the operation records to them in order. Counters go to st
 * if not NULL. 0 or -ENOMEM.
 */
struct an_reorder_stats {
	uint64_t runs;		/* runs of two groups or more */
	uint64_t groups;	/* groups in those runs */
	uint64_t moved;		/* groups that changed place */
	uint64_t records;	/* records in those groups */
};

int an_reorder_plan(const struct fstap_rec *const *recs, size_t n, struct an_objtab *objs,
		    struct fstap_pathmap *pm,
		    enum an_order by, uint64_t seed, uint64_t *group, uint64_t *run,
		    uint64_t *new_t, struct an_reorder_stats *st);

/*
 * Writes the reordered variant of in to out; target: the directory whose
 * listings AN_BY_TARGET follows (the trace prepared there), else NULL.
 * 0 or -errno (message printed).
 */
int an_reorder(const char *in, const char *out, enum an_order by, uint64_t seed,
	       const char *target, struct an_reorder_stats *st);

/* ---- a target's directory order (listing.c) ---------------------------- */

struct an_listing;
/* Reads directory dir's entries in readdir order (. and .. left out). 0 or -errno. */
int an_listing_read(const char *dir, struct an_listing **out);
/* The 1-based readdir position of name, 0 when it is not there. */
uint64_t an_listing_pos(const struct an_listing *l, const char *name);
void an_listing_free(struct an_listing *l);

/* ---- filter (filter.c) -------------------------------------------------- */

struct an_filter_opts {
	const uint32_t *pids;	size_t npids;
	const char *const *comms; size_t ncomms;
	const char *path;	/* prefix, NULL: any */
	const uint16_t *ops;	size_t nops;
	uint64_t from_ns, to_ns;	/* [from, to); to 0: no end */
	const char *args;	/* the command line, for the "transform" metadata */
};

struct an_filter_stats {
	uint64_t read, selected, added;	/* operation records; added: for path resolution */
};

int an_filter(const char *in, const char *out, const struct an_filter_opts *o,
	      struct an_filter_stats *st);

/* ---- shared helpers (util.c) -------------------------------------------- */

/* Parses "1.5s", "200ms", "30us", "12ns" or a plain number of ns. 0 or -EINVAL. */
int an_parse_time(const char *s, uint64_t *ns);
/*
 * The metadata of info with a step appended to its "transform" array (made
 * an array if absent): a JSON text the caller frees, NULL on ENOMEM. step is
 * a JSON object text; it is copied.
 */
char *an_metadata_with_transform(const struct fstap_trace_info *info, const char *step_json);
/* Opens trace and a sorter over it; prints the error. 0 or -errno. */
struct fstap_sorter;
int an_open_sorted(const char *trace, struct fstap_reader **r, struct fstap_sorter **s);
/*
 * Opens the safe output out (checked against inputs) and a trace writer on
 * it with info: 0, or -errno with the error printed (then *dst may need
 * fstap_output_abort; *w is NULL).
 */
struct fstap_output;
int an_open_trace_output(const char *out, const char *const *inputs,
			 const struct fstap_trace_info *info, struct fstap_output **dst,
			 struct fstap_writer **w);
/* Byte-wise order of two names (strcmp's, lengths included): <0, 0, >0. */
int an_cmp_names(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen);

#endif
