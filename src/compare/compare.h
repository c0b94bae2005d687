/*
 * compare.h: `fstap compare` as a library: the candidates, the result model
 * (one row per candidate and trace variant, one entry per run), its
 * statistics and renderers (text table, JSON, CSV, SVG chart), image sizing,
 * and the candidate lifecycle (make, mount, prepare, replay, clean up).
 *
 * The pure parts (cmp_candidate_parse, cmp_image_size, the statistics and the
 * renderers: model.c, render.c) touch no system state and are unit-tested
 * (tests/unit/check_compare.c). The lifecycle (lifecycle.c) runs every step
 * as a child process of the fstap binary or of a system tool, and keeps
 * everything it set up in one place so that one function undoes it.
 */
#ifndef FSTAP_COMPARE_H
#define FSTAP_COMPARE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "compare/stats.h"

/* ---- candidates --------------------------------------------------------- */

enum cmp_kind {
	CMP_IMAGE,	/* a loop image fstap makes under --image-dir */
	CMP_DEVICE,	/* --device: a block device the user names */
	CMP_TARGET,	/* --target: a directory the user mounted */
};

struct cmp_candidate {
	char *name;		/* unique; [A-Za-z0-9._+-], used in file names */
	char *fstype;		/* mkfs.FSTYPE and mount -t FSTYPE; NULL for targets */
	char *mkfs_opts;	/* split on blanks; "" for none */
	char *mount_opts;	/* mount -o; "" for none */
	char *dir;		/* CMP_TARGET: the directory */
	enum cmp_kind kind;
};

/*
 * Parses NAME:FSTYPE[:MKFS_OPTS[:MOUNT_OPTS]] into c (fields malloc'd; free
 * with cmp_candidate_free). 0, or -EINVAL with a one-line reason in err.
 */
int cmp_candidate_parse(const char *spec, struct cmp_candidate *c, char *err, size_t errlen);
/* Parses NAME=DIR (a --target). Same contract. */
int cmp_target_parse(const char *spec, struct cmp_candidate *c, char *err, size_t errlen);
/* A candidate for FSTYPE with default options, named FSTYPE. */
int cmp_candidate_fs(const char *fstype, struct cmp_candidate *c, char *err, size_t errlen);
void cmp_candidate_free(struct cmp_candidate *c);
/* A name fit for a file name and a table cell. */
bool cmp_name_valid(const char *name);

/* The mkfs flags that make it quiet and overwrite (-F -q, -f -q), or "". */
const char *cmp_mkfs_force_flags(const char *fstype);
/* The Debian package that provides mkfs.FSTYPE, or NULL for a type fstap does not know. */
const char *cmp_mkfs_package(const char *fstype);

/* ---- image sizing ------------------------------------------------------- */

/* What a trace needs on disk (from its initial state and its writes). */
struct cmp_trace_size {
	uint64_t initial_bytes;	/* sum of the sizes of the initial regular files */
	uint64_t written_bytes;	/* bytes written, fallocated or copied by the workload */
	uint64_t inodes;	/* objects of the initial state plus objects created */
	unsigned copies;	/* copies of it on each file system (--clone); 0 counts as 1 */
};

/* The smallest image mkfs.FSTYPE accepts with its defaults (xfs 300 MiB, ...). */
uint64_t cmp_fs_min_size(const char *fstype);
/*
 * The default image size for FSTYPE: twice what the trace needs (data,
 * growth and a 4 KiB block plus 4 KiB of metadata per object) times its
 * copies, plus 64 MiB, rounded up to 64 MiB, and at least cmp_fs_min_size().
 */
uint64_t cmp_image_size(const struct cmp_trace_size *s, const char *fstype);
/* Formats a byte count as "300 MiB", "1.5 GiB". Returns buf. */
const char *cmp_fmt_bytes(uint64_t v, char *buf, size_t len);

/* ---- results ------------------------------------------------------------ */

struct cmp_opstat {
	char name[24];		/* "read", "open", ... (replay's by_op keys) */
	uint64_t count;
	double mean_ns;
	double p99_ns;
};

/* One replay run (replay's JSON "runs"[0], parsed). */
struct cmp_run {
	double elapsed_s;	/* the measured time: until durable when synced */
	double last_call_s;	/* until the replay's last call returned */
	double sync_s;		/* the syncfs after it (replay --sync-at-end) */
	bool synced;		/* elapsed_s is last_call_s + sync_s */
	uint64_t ops;
	double ops_per_s;
	uint64_t bytes_read, bytes_written;
	uint64_t divergences;
	struct cmp_opstat *op;
	unsigned nop;
	json_t *raw;		/* the run's JSON object (a reference), or NULL */
};

/* What compare concludes about one row, against the best row. */
enum cmp_verdict {
	CMP_V_NONE,		/* not decided yet */
	CMP_V_BEST,		/* the lowest median among the ranked rows */
	CMP_V_SAME,		/* no significant difference from the best (Holm) */
	CMP_V_SLOWER,		/* significantly slower than the best */
	CMP_V_INCONCLUSIVE,	/* too few runs for the test to tell */
	CMP_V_DIVERGED,		/* replays diverged beyond --max-divergence: not ranked */
	CMP_V_FAILED,		/* no run completed */
};

/* The significance level of the verdicts (after Holm's correction). */
#define CMP_ALPHA 0.05
/* The default --max-divergence: a share of the operations of a run. */
#define CMP_MAX_DIVERGENCE 0.001

/* "best", "same", ... */
const char *cmp_verdict_name(enum cmp_verdict v);

/* One line of the table: a candidate with one variant of the trace. */
struct cmp_row {
	const struct cmp_candidate *cand;
	const char *variant;	/* "recorded", "name", ... */
	bool failed;
	char reason[256];	/* one line, when failed */
	struct cmp_run *runs;	/* the runs that completed */
	unsigned nruns;
	/* Filled by cmp_results_summarize() from the runs of an ok row. */
	double med_s, min_s, max_s, ops_per_s, ratio;
	double last_med_s, last_min_s, last_max_s;	/* of last_call_s */
	double sync_med_s;				/* of sync_s */
	unsigned median_run;	/* index of the run with the median elapsed time */
	/* Filled by cmp_results_decide(). */
	enum cmp_verdict verdict;
	struct cmp_ci elapsed_ci, ops_ci;	/* of the medians */
	double vs_best;		/* Hodges-Lehmann ratio of times to the best row */
	struct cmp_ci vs_best_ci;
	double p, p_holm;	/* U test against the best row, raw and Holm-adjusted */
	bool tested;		/* p, p_holm and vs_best are set */
	unsigned runs_needed;	/* inconclusive: runs per row that could decide */
	int direct_io;		/* the loop device's: 1 direct, -1 buffered, 0 no loop device */
	char device_note[256];	/* why the loop device does buffered I/O, or "" */
	uint64_t div_worst;	/* the most divergences of one run ... */
	uint64_t div_ops;	/* ... that run's operations ... */
	unsigned div_run;	/* ... and its number (1-based); 0 when none */
};

struct cmp_results {
	const char *trace;
	unsigned runs;		/* runs asked for per row */
	unsigned clone;		/* clients per run (--clone=N), each a copy of the workload */
	struct cmp_row *rows;
	unsigned nrows;
	json_t *options;	/* borrowed, for results.json (may be NULL) */
	json_t *machine;	/* borrowed, for results.json (may be NULL) */
	const char *logdir;	/* where the logs are kept (--out's logs/), or NULL */
	const char *cmdline;	/* the command line, shell-quoted (for summary.md), or NULL */
	double max_divergence;	/* share of a run's operations; above it: diverged */
	bool shuffled;		/* the runs were interleaved in an order from seed */
	unsigned max_runs;	/* --runs=auto: its cap; 0 for a fixed --runs */
	double time_budget;	/* --runs=auto's --time-budget in seconds; 0: none */
	bool budget_stop;	/* a round was not started for lack of time */
	unsigned long seed;
};

/*
 * The divergence log of run (1-based) of row in logdir:
 * LOGDIR/CANDIDATE-VARIANT-runN.divergences.jsonl. False if it does not fit.
 */
bool cmp_divlog_path(char *buf, size_t len, const char *logdir, const struct cmp_row *row,
		     unsigned run);

/*
 * Fills each row's summary, the ratios to the best median and the
 * verdicts (cmp_results_decide). The best row is the lowest median among
 * the rows that neither failed nor diverged (the lowest of all when every
 * row diverged). 0 or -ENOMEM.
 */
int cmp_results_summarize(struct cmp_results *res);
/*
 * The verdict of every row (after its summary): failed, diverged (a run
 * with more than max_divergence of its operations diverged), best, and for
 * the others the exact U test against the best row, Holm-adjusted over
 * them: slower (p_holm < CMP_ALPHA and a ratio above 1), inconclusive (the
 * test cannot reach CMP_ALPHA with this many runs), else same.
 * 0 or -ENOMEM.
 */
int cmp_results_decide(struct cmp_results *res);
/* True when a run was made durable at its end (replay --sync-at-end). */
bool cmp_results_synced(const struct cmp_results *res);
/* True when a row's verdict is inconclusive: more runs could decide it. */
bool cmp_results_undecided(const struct cmp_results *res);
/*
 * The closing sentence ("xfs is fastest; ext4 is the same within noise
 * (p=0.40); btrfs is 1.90x slower [1.70-2.10]") into buf. Returns buf.
 */
const char *cmp_verdict_sentence(const struct cmp_results *res, char *buf, size_t len);
/* The label of a row in sentences: "NAME", or "NAME (VARIANT)" with variants. */
void cmp_row_label(const struct cmp_results *res, const struct cmp_row *row, char *buf,
		   size_t len);
/*
 * Parses one run object of replay's JSON into out (takes a reference on it).
 * 0 or -EINVAL (a field is missing). Free with cmp_run_free.
 */
int cmp_run_from_json(json_t *run, struct cmp_run *out);
void cmp_run_free(struct cmp_run *r);
/* Appends a copy of run to row (0 or -ENOMEM). */
int cmp_row_add_run(struct cmp_row *row, const struct cmp_run *run);
void cmp_row_fail(struct cmp_row *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The operations that dominate the time over the ok rows (by count x mean
 * in each row's median run): at most max names, each at least 5% of the
 * total, the biggest first. Returns how many; names are borrowed from res.
 */
unsigned cmp_top_ops(const struct cmp_results *res, const char **names, unsigned max);

/* Renderers: 0 or -EIO (the write failed). */
int cmp_render_table(FILE *f, const struct cmp_results *res);
int cmp_render_csv(FILE *f, const struct cmp_results *res);
int cmp_render_svg(FILE *f, const struct cmp_results *res);
/*
 * summary.md (summary.c): the environment, the command line, the table as
 * cmp_render_table prints it and the closing sentence, in Markdown.
 */
int cmp_render_summary(FILE *f, const struct cmp_results *res);
/* The results as one JSON object (new reference). */
json_t *cmp_results_json(const struct cmp_results *res);

/* ---- the lifecycle ------------------------------------------------------ */

/* Set by the SIGINT/SIGTERM/SIGHUP handler cmp_signals_install() installs. */
extern volatile sig_atomic_t cmp_interrupted;
void cmp_signals_install(void);
void cmp_signals_restore(void);

struct cmp_env {
	const char *self;	/* the fstap binary (/proc/self/exe) */
	const char *workdir;	/* private: images, mount point, variant traces */
	const char *logdir;	/* where each row's log goes */
	uint64_t image_size;	/* 0: per fstype from size */
	struct cmp_trace_size size;
	const char *device;	/* --device, or NULL */
	const char *disk;	/* --disk: the images on a modeled device (MODEL[,K=V...]), or NULL */
	const char *log_disk;	/* --log-disk: the @log image's model, or NULL (--disk's) */
	char *const *replay_args;	/* extra replay options (NULL-terminated) */
	unsigned clone;		/* --clone=N: N copies prepared and replayed at once; 1: one */
	bool progress;		/* a progress line on stderr */
	unsigned row_no, nrows;	/* for the progress line */
};

/*
 * Run number `run` of `runs` of row->cand with the trace file trace, on a
 * fresh file system (a fresh directory for a target): appends the run to
 * row, or marks the row failed with the reason of the step that failed.
 * Everything set up is undone before it returns. Nothing is done for a
 * row already failed. 0, or -EINTR when interrupted (the row is marked failed).
 */
int cmp_run_once(const struct cmp_env *env, struct cmp_row *row, const char *trace,
		 unsigned run, unsigned runs);
/*
 * The order of the runs: each of the nrows rows `runs` times, shuffled
 * (Fisher-Yates with a generator seeded by seed; the same seed gives the
 * same order). *out (malloc'd) holds nrows * runs row indices.
 * 0 or -ENOMEM.
 */
int cmp_schedule(unsigned nrows, unsigned runs, unsigned long seed, unsigned **out);
/* Removes a directory tree, staying on its file system. 0 or -errno. */
int cmp_remove_tree(const char *path);
/* Undoes whatever is still set up (mount, loop device, directory): idempotent. */
void cmp_cleanup(void);

/*
 * Runs argv (argv[0] searched in PATH, sbin directories included) with
 * stdin from /dev/null, stdout to out_path (or the log if NULL) and stderr
 * appended to log, in its own process group (terminated when interrupted).
 * 0 when it exits 0; otherwise -1 with "PROG: last line of its stderr" in
 * reason.
 */
int cmp_spawn(char *const argv[], const char *log, const char *out_path, char *reason,
	      size_t rlen);
/* The full path of an executable found in PATH, /usr/sbin or /sbin, or NULL (malloc'd). */
char *cmp_which(const char *prog);

/* Creates a sparse image file of size bytes (replacing one). 0, or -1 with the reason. */
int cmp_make_image(const char *path, uint64_t size, char *reason, size_t rlen);
/* Detaches a loop device (waiting while it is busy); warns on failure. */
void cmp_loop_detach(const char *dev);

/* ---- variants made during each run (variant.c) -------------------------- */

/* True for a variant made from the prepared target (target-readdir). */
bool cmp_variant_at_run(const char *variant);
/*
 * Makes that variant of trace for the target just prepared: its path in
 * out (under the work directory). 0, or -1 with the reason.
 */
int cmp_variant_make(const struct cmp_env *env, const char *variant, const char *trace,
		     const char *target, const char *log, char *out, size_t len, char *reason,
		     size_t rlen);

/* ---- --disk: the images on a modeled device (disk.c) ------------------- */

enum { CMP_DISK_DATA, CMP_DISK_LOG, CMP_DISK_TAGS };

/*
 * Serves image with `fstap disk --model=spec` (tag: the data image or the
 * log image of a run) and waits until it does: the file to attach a loop
 * device to in served. 0, or -1 with the reason.
 */
int cmp_disk_up(const struct cmp_env *env, unsigned tag, const char *spec, const char *image,
		const char *log, char *served, size_t len, char *reason, size_t rlen);
/* The daemons' statistics before (false) and after (true) the replay. */
void cmp_disk_mark(bool after);
/* Stops the daemons (their loop devices detached): idempotent. */
void cmp_disk_down(void);
/*
 * Sets the run's "disk" (and "log_disk") object: model, replay (its
 * share of the statistics), run (the daemon's at exit); run NULL: the run
 * did not complete. Then forgets the statistics.
 */
void cmp_disk_take(json_t *run);
/* The word @log in a candidate's mkfs or mount options: a second device. */
bool cmp_wants_log(const struct cmp_candidate *c);
/* The size of the @log image. */
#define CMP_LOG_IMAGE_SIZE (256ull << 20)
/*
 * The run's @log device: an image WORKDIR/NAME-log.img, served by fstap
 * disk with --log-disk's model (or --disk's; with neither, the image
 * itself), attached to a loop device with direct I/O: its path in dev.
 * cmp_disk_down() detaches it and deletes the image. 0, or -1 with the reason.
 */
int cmp_log_up(const struct cmp_env *env, const struct cmp_candidate *c, const char *log,
	       char *dev, size_t len, char *reason, size_t rlen);
/*
 * Logs what the mounted file system says about its devices (xfs_info for
 * xfs, dumpe2fs -h DEV for ext*): the external log or journal shows there.
 */
void cmp_log_describe(const struct cmp_candidate *c, const char *dev, const char *mnt,
		      const char *log);
/* opts with every @log replaced by dev (malloc'd; dies when out of memory). */
char *cmp_subst_log(const char *opts, const char *dev);
/* The table's section of the modeled disk's figures (the median runs). */
void cmp_disk_section(FILE *f, const struct cmp_results *res, int cw, int vw);

/* ---- a whole compare (session.c, preflight.c) ---------------------------- */

#define CMP_MAX_CANDS 64
#define CMP_MAX_VARIANTS 6

/* What the command line asked for (src/cli/cmd-compare.c fills it). */
struct cmp_config {
	struct cmp_candidate cand[CMP_MAX_CANDS];
	unsigned ncand;
	const char *variants[CMP_MAX_VARIANTS];
	unsigned nvar;
	const char *image_dir, *device, *out, *trace, *disk, *log_disk;
	unsigned long long image_size, cache_limit;
	unsigned long runs, seed, max_runs;
	unsigned long clone;	/* --clone=N; 1 (the default): one client */
	double max_divergence;	/* a share of the operations */
	double time_budget;	/* seconds; 0: none */
	bool force, progress, seeded, runs_auto, allow_incomplete;
	char *replay_args[8];	/* --order, --pace, --cache-limit for each replay */
	unsigned nreplay;
	const char *cmdline;	/* for summary.md */
};

/*
 * Everything after the options: the checks, the runs, the table and the
 * output files. The exit status: 0, or 1 when a check failed, a
 * candidate failed or compare was interrupted.
 */
int cmp_main(struct cmp_config *cfg);
/*
 * The checks before anything is made: root, the trace (complete or
 * allowed incomplete, with an operation; its needs into size), the mkfs
 * tools, a --device, the targets, room in --image-dir. 0 or -errno, the
 * reason printed.
 */
int cmp_preflight(const struct cmp_config *cfg, struct cmp_trace_size *size);
/* Refuses an --out whose result files would replace the trace. 0 or -EEXIST. */
int cmp_check_out(const char *dir, const char *trace);
/* results.json's machine (host, kernel, CPUs, memory, load, version, date) and options. */
json_t *cmp_machine_json(void);
json_t *cmp_options_json(const struct cmp_config *cfg, const struct cmp_trace_size *s);
/*
 * --time-budget: whether another round of one run per row fits, after
 * spent_s seconds for runs runs per row (a round estimated as spent_s /
 * runs). Always true without a budget (budget_s 0).
 */
bool cmp_budget_allows(double spent_s, unsigned runs, double budget_s);
/* asprintf that dies when out of memory. */
char *cmp_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the device under a run (device.c) ----------------------------------- */

struct cmp_loop {
	char dev[64];		/* /dev/loopN; "" when none was attached */
	bool direct_io;		/* the loop device does direct I/O on its image */
	char note[256];		/* why it does not, or "" */
};

/*
 * Attaches image to a free loop device with direct I/O (losetup
 * --direct-io=on); where the image's file system refuses direct I/O,
 * attaches it buffered and says so in out->note. out->dev is set whenever
 * a device was attached, also on failure (the caller detaches it). 0, or
 * -1 with the reason; log gets losetup's command line and output.
 */
int cmp_loop_attach(const char *image, const char *log, const char *workdir,
		    struct cmp_loop *out, char *reason, size_t rlen);
/*
 * What a run on block device dev (NULL for a --target) mounted at mnt
 * depends on, as a JSON object (new reference): device, direct_io (null if
 * not a loop device), rotational, scheduler, mount_options and fs_options
 * (from /proc/self/mountinfo), mkfs_version (when fstype is given).
 */
json_t *cmp_device_info(const char *dev, const char *mnt, const char *fstype,
			const char *workdir);

#define CMP_BLKSTAT_N 17
/* The counters of /sys/dev/block/MAJ:MIN/stat. */
struct cmp_blkstat {
	uint64_t v[CMP_BLKSTAT_N];
	bool ok;
};
/* Reads dev's counters. 0, or -errno (s->ok false). */
int cmp_blkstat_read(const char *dev, struct cmp_blkstat *s);
/* b - a as {reads, read_merges, read_sectors, read_ms, writes, ..., io_ms}; null if unread. */
json_t *cmp_blkstat_delta_json(const struct cmp_blkstat *a, const struct cmp_blkstat *b);

#endif
