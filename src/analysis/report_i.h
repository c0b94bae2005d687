/*
 * report_i.h: the model of `fstap report` (struct rep), filled by one pass
 * over the trace (report.c), and the pieces its renderers share: the JSON
 * tree (report_json.c), the access order section and its verdict
 * (report_order.c) and the text (report_text.c), which reads the same tree.
 *
 * Not a public API: src/analysis/report*.c include this.
 */
#ifndef FSTAP_ANALYSIS_REPORT_I_H
#define FSTAP_ANALYSIS_REPORT_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "fstap/ops.h"
#include "fstap/util.h"

#define NBUCKETS 66		/* size 0, then (2^(k-2), 2^(k-1)] for k >= 1 */
#define MIN_ORDER_FILES 3	/* fewer opened files say nothing about an order */
#define PATH_CAP 4096

enum { IO_READ, IO_WRITE, IO_NR };
enum { ORD_READDIR = AN_ORD_READDIR, ORD_NAME = AN_ORD_NAME, ORD_INODE = AN_ORD_INODE,
       ORD_NR = AN_ORD_NR };

extern const char *const rep_io_names[IO_NR];
extern const char *const rep_ord_names[ORD_NR];

struct opstat {
	uint64_t count, errors, kernel;
	uint64_t dur_sum;	/* application records */
};

struct iostat {
	uint64_t ops, bytes, seq, rnd;
	uint64_t hist[NBUCKETS];
};

struct proc {
	uint32_t pid;
	char *comm;
	uint64_t ops, bytes_read, bytes_written;
};

/* A directory's operations; path: owned, for one the pathmap forgot (else NULL). */
struct dir_row {
	uint64_t obj, ops;
	char *path;
};

struct order_row {
	char *path;
	uint32_t lister;
	const uint32_t *readers;	/* the analysis's (r->order) */
	size_t nreaders;
	size_t files, listed;
	double rho[ORD_NR];
};

struct rep {
	const char *trace;
	struct an_objtab *objs;		/* .report */
	struct fstap_map handles;	/* fh, else obj | 1 << 63 -> where the latest
					 * transfer on it ended */
	struct fstap_map threads;	/* tid -> 1 */
	struct fstap_pathmap *pm;
	struct an_access *order;
	struct opstat ops[FSTAP_OP_NR];
	struct iostat io[IO_NR];
	struct proc *procs;
	size_t nprocs, capprocs;
	struct fstap_map proc_index;	/* pid + 1 -> index + 1 in procs */
	/* the pids proc_get found last, at procs[last_proc[i] - 1] (0: none) */
	uint32_t last_pid[2];
	size_t last_proc[2];
	uint64_t app_ops, kernel_ops, kernel_bytes_read, kernel_bytes_written;
	uint64_t bytes_read, bytes_written, lost;
	uint64_t first_ns, last_end_ns, end_ns;
	bool any, complete;
	uint64_t lookups, lookups_failed;
	struct order_row *rows;
	size_t nrows;
	uint64_t nthreads;
	unsigned top;
	/* what the end needs of the objects the pathmap forgot */
	uint64_t gone_files, gone_dirs;	/* touched */
	struct dir_row *gone;		/* with operations: the top ones */
	size_t ngone, capgone;
	struct fstap_map gone_paths;	/* listed directory -> index + 1 in gone_path */
	char **gone_path;
	size_t ngone_path, capgone_path;
	int oom;
};

/* ---- the model (report.c) ------------------------------------------------ */

/* The name of process pid: "?" if unknown, "(none)" for pid 0. */
const char *rep_proc_comm(const struct rep *r, uint32_t pid);
/* The path of obj as the pathmap gives it now, else "<obj:N>". */
void rep_obj_path(const struct rep *r, uint64_t obj, char *buf, size_t cap);
/* qsort order of dir_rows: most operations first, then by object. */
int rep_cmp_dir_row(const void *a, const void *b);

/* ---- the JSON tree (report_json.c) ---------------------------------------- */

/* The whole report as a JSON tree; an allocation failure sets r->oom. */
json_t *rep_json(struct rep *r, unsigned top);
/* v rounded to 4 decimals, or JSON null when v is NaN. */
json_t *rep_real_or_null(double v);
/* The integer at path ("a.b.c") in o; 0 if absent. */
json_int_t rep_jint(json_t *o, const char *path);

/* ---- the access order section (report_order.c) --------------------------- */

/* The "access_order" object: sorts r->rows, the means, verdict and rows. */
json_t *rep_order_json(struct rep *r, unsigned top);

/* ---- text (report_text.c) -------------------------------------------------- */

/* Prints the report from r and root (rep_json's tree) as text to f. */
void rep_print_text(const struct rep *r, json_t *root, FILE *f);

#endif
