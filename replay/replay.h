/*
 * replay.h: `fstap replay` as a library: re-executes a trace's operations
 * with real system calls beneath a target directory and measures them.
 *
 * This is the contract between the replay engine (the replay/ sources, linked as
 * libreplay.a) and its command line (src/cli/cmd-replay.c). One call to
 * rp_run() is one run; the caller repeats it for --runs and hands the
 * results to the renderers (text, JSON, CSV), which all read the same
 * result model (fio's one-model-several-renderers shape).
 *
 * Not here: recreating the initial tree (that is `fstap prepare`), the
 * trace format (fstap/trace.h), the internals (replay_i.h).
 */
#ifndef FSTAP_REPLAY_H
#define FSTAP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum rp_order {
	RP_ORDER_STRICT,	/* one worker, global start order */
	RP_ORDER_THREAD,	/* a worker per tid; cross-thread happens-before kept */
	RP_ORDER_RESOURCE,	/* a worker per tid; recorded order per object/handle */
	RP_ORDER_NONE,		/* a worker per tid; per-thread order only */
	RP_ORDER_NR
};

struct rp_options {
	const char *trace;	/* path of the trace ("-" is stdin) */
	const char *dir;	/* target directory (the trace's root object) */
	enum rp_order order;
	/*
	 * Pacing: pace_pct 0 is as fast as possible; otherwise the recorded
	 * think time of each thread is kept, scaled by pace_pct/100 (100 is
	 * the original timing).
	 */
	unsigned pace_pct;
	/*
	 * With pace_pct: the gaps less the recorder's round trips measured
	 * when the trace was recorded (the pace the application had without
	 * the recorder); a trace without the figures keeps its gaps.
	 */
	bool pace_native;
	uint64_t window_ns;	/* reorder window; 0: from the trace's metadata */
	unsigned queue_depth;	/* per-worker queue bound; 0: default */
	/*
	 * The plan (replay/plan.c): how many bytes of packed tasks the
	 * dispatcher prepares before the run's clock starts and holds ahead of
	 * the workers at most; 0: none (each task is dispatched as the run
	 * goes). Not with share.
	 */
	uint64_t plan_bytes;
	/*
	 * Called once, after the plan is made and before the clock starts
	 * (the start of a clone's or a rank's part, the cgroup to enter);
	 * NULL: none. 0, or -errno (said) that fails the run.
	 */
	int (*at_start)(void *arg);
	void *at_start_arg;
	bool progress;		/* a progress line on stderr */
	bool devices;		/* create the character and block devices mknod asks for */
	unsigned divlog_max;	/* log the first N divergences of each kind; 0: no log */
	bool notes_said;	/* the notes about the trace (stderr) were said by an earlier run */
	/*
	 * --mpi --split=process|thread (replay/split.c): this rank's share of
	 * the trace's processes or threads; NULL: every operation is this
	 * replay's.
	 */
	struct rp_share *share;
};

/* The plan's default budget (--plan-ahead). */
#define RP_PLAN_DEFAULT ((uint64_t)256 << 20)

/* Parses "strict" etc.; -EINVAL if unknown. */
int rp_order_parse(const char *s, enum rp_order *out);
const char *rp_order_name(enum rp_order o);
/*
 * Parses "afap" (0), "orig" (100), "N%" (N in 1..100000) or, when native
 * is not NULL, "native" (100, *native true). 0 or -EINVAL.
 */
int rp_pace_parse(const char *s, unsigned *pct, bool *native);

/* The outcome of one run (replay/report.c renders it). Opaque. */
struct rp_result;
struct rp_share;

/*
 * Runs the replay once. On success returns 0 and the result in *out (free
 * with rp_result_free). Fails with -errno after printing one error line
 * for what makes a replay impossible: an unreadable or corrupt trace, a
 * target that is missing or not a directory. Divergences are not errors.
 */
int rp_run(const struct rp_options *o, struct rp_result **out);
void rp_result_free(struct rp_result *r);

/*
 * --clone=N: N copies of the trace's workload, clone k beneath the
 * subdirectory RP_CLONE_NAME_FMT (k) of o->dir (k from 0; `fstap prepare
 * --clone=N` makes them), replayed at once, a thread each, from a common
 * start (replay/clone.c). *out is their merged result, each clone's own
 * result kept in it (the reports show both). 0 or -errno (logged).
 */
#define RP_CLONE_NAME_FMT "clone-%u"
#define RP_CLONE_DIR_FMT "%s/" RP_CLONE_NAME_FMT
#define RP_CLONES_MAX 1024
int rp_run_clones(const struct rp_options *o, unsigned n, struct rp_result **out);

/*
 * --mpi (replay/mpi.c; replay/mpi-none.c in a build without MPI, where every
 * call fails with one error line). One process per MPI rank, all started by
 * mpirun. rp_mpi_init sets up MPI (once) and says this rank and the number
 * of ranks; rp_mpi_run replays one run, each rank its share: with
 * RP_SPLIT_CLONE rank k replays clone k (RP_CLONE_DIR_FMT) after a barrier
 * common to all; with RP_SPLIT_PROCESS (THREAD) every rank replays the
 * recorded processes (threads) assigned to it on the one o->dir, round-robin
 * or as the file map says (NULL: none; rp_share_new), each operation after
 * the ones it depends on have ended on their ranks. Rank 0 gets the reduced result (every rank's own result
 * kept in it), the others their own. A rank that fails or dies makes every
 * other one fail with an error naming it. 0 or -errno (logged).
 */
enum rp_split {
	RP_SPLIT_CLONE,		/* a clone per rank */
	RP_SPLIT_PROCESS,	/* the recorded processes shared out among the ranks */
	RP_SPLIT_THREAD,	/* the recorded threads shared out among the ranks */
	RP_SPLIT_NR
};
/* Parses "clone", "process" or "thread"; -EINVAL if unknown. */
int rp_split_parse(const char *s, enum rp_split *out);
int rp_mpi_init(int *rank, int *size);
int rp_mpi_run(const struct rp_options *o, enum rp_split split, const char *map,
	       struct rp_result **out);
/*
 * Every rank's ret (0 or -errno, its error said) for the step what: 0 if it
 * is 0 on every rank, else -ECANCELED, rank 0 naming the first rank that
 * failed ("--mpi: WHAT failed on rank K of N").
 */
int rp_mpi_agree(int ret, const char *what);
/* Ends MPI (after the last run; nothing if rp_mpi_init was not called). */
void rp_mpi_finalize(void);

/*
 * --sync-at-end: syncfs(2) of dir's file system after the run r, timed
 * into r (its writes made durable; the reports show that time and the
 * total). 0 or -errno (logged).
 */
int rp_sync_at_end(const char *dir, struct rp_result *r);

/* Renderers over n runs (n >= 1). 0 or -errno (the write failed). */
int rp_report_text(FILE *f, struct rp_result *const *runs, unsigned n);
int rp_report_json(FILE *f, struct rp_result *const *runs, unsigned n,
		   const struct rp_options *o);
int rp_report_csv(FILE *f, struct rp_result *const *runs, unsigned n);
/* The divergence logs of the runs (divlog_max), as JSON Lines. */
int rp_report_divergences(FILE *f, struct rp_result *const *runs, unsigned n);

/* Environment control around a run (replay/cgroup.c). */

/* sync(), then drop page, dentry and inode caches. 0 or -errno (logged). */
int rp_drop_caches(void);

struct rp_cgroup;
/*
 * Creates a cgroup v2 memory cgroup with memory.max = limit and moves the
 * whole process into it. -errno with a clear message when cgroup v2 or its
 * memory controller is not available.
 */
int rp_cgroup_enter(uint64_t limit, struct rp_cgroup **out);
/* Moves the process back and removes the cgroup. */
void rp_cgroup_leave(struct rp_cgroup *cg);

#endif
