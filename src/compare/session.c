/*
 * session.c: one whole `fstap compare` after its options: the checks
 * (preflight.c), the work directory, the trace variants, every run of
 * every row in a shuffled order (rounds for --runs=auto), the table and
 * the output files. The options are src/cli/cmd-compare.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare/compare.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/util.h"

static double now_s(void)
{
	return (double)fstap_now_ns() / 1e9;
}

static const char *const result_files[] = { "results.json", "results.csv", "chart.svg",
					     "summary.md" };

/* Refuses an --out whose result files would replace the trace, before any run. */
int cmp_check_out(const char *dir, const char *trace)
{
	const char *inputs[] = { trace, NULL };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(result_files) / sizeof(result_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, result_files[i]);
		if (fstap_output_check(path, inputs))
			return -EEXIST;
	}
	return 0;
}

struct result_file {
	const struct cmp_results *res;
	int (*fn)(FILE *, const struct cmp_results *);
};

static int result_fn(FILE *f, void *arg)
{
	const struct result_file *rf = arg;

	return rf->fn(f, rf->res);
}

/* Writes DIR/NAME with fn, through a temporary renamed into place. */
static int write_file(const char *dir, const char *name, const char *trace,
		      const struct cmp_results *res,
		      int (*fn)(FILE *, const struct cmp_results *))
{
	const char *inputs[] = { trace, NULL };
	struct result_file rf = { res, fn };
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fstap_output_write(path, inputs, result_fn, &rf);
}

static int json_fn(FILE *f, const struct cmp_results *res)
{
	json_t *j = cmp_results_json(res);
	int ret = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	json_decref(j);
	fputc('\n', f);
	return ret || ferror(f) ? -EIO : 0;
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Makes the variant traces with `fstap reorder`; a failure fails that variant's rows. */
static void make_variants(const struct cmp_config *o, const struct cmp_env *env,
			  char **vtrace, char **vfail)
{
	unsigned v;

	for (v = 0; v < o->nvar; v++) {
		char by[32], log[PATH_MAX], reason[256];
		char *argv[8];

		vtrace[v] = NULL;
		vfail[v] = NULL;
		/* target-readdir: made from each run's prepared target (variant.c) */
		if (!strcmp(o->variants[v], "recorded") || cmp_variant_at_run(o->variants[v])) {
			vtrace[v] = strdup(o->trace);
			continue;
		}
		vtrace[v] = cmp_xasprintf("%s/%s.trace", env->workdir, o->variants[v]);
		snprintf(by, sizeof(by), "--by=%s", o->variants[v]);
		snprintf(log, sizeof(log), "%s/reorder-%s.log", env->logdir, o->variants[v]);
		argv[0] = (char *)env->self;
		argv[1] = (char *)"reorder";
		argv[2] = by;
		argv[3] = (char *)o->trace;
		argv[4] = (char *)"-o";
		argv[5] = vtrace[v];
		argv[6] = NULL;
		if (env->progress)
			fprintf(stderr, "\r\033[Kmaking the %s variant", o->variants[v]);
		if (cmp_spawn(argv, log, NULL, reason, sizeof(reason)))
			vfail[v] = cmp_xasprintf("%s", reason);
	}
	if (env->progress)
		fputs("\r\033[K", stderr);
}

/* The variant index of row (its trace in vtrace). */
static unsigned variant_of(const struct cmp_config *o, const struct cmp_row *row)
{
	unsigned v;

	for (v = 0; v < o->nvar && o->variants[v] != row->variant; v++)
		;
	return v;
}

/*
 * One round: `runs` runs of every row that needs them, in a shuffled order
 * (seeded): the drift of the machine over time then favours no row. A row
 * that fails runs no more. done[] counts each row's runs so far.
 */
static void run_round(const struct cmp_config *o, struct cmp_env *env, struct cmp_results *res,
		      char *const *vtrace, unsigned runs, unsigned long seed, unsigned *done,
		      unsigned runs_total)
{
	unsigned *order, i, total = res->nrows * runs;

	if (cmp_schedule(res->nrows, runs, seed, &order))
		fstap_die("out of memory");
	env->nrows = total;
	for (i = 0; i < total && !cmp_interrupted; i++) {
		struct cmp_row *row = &res->rows[order[i]];

		if (row->failed || row->verdict == CMP_V_DIVERGED)
			continue;
		env->row_no = i + 1;
		cmp_run_once(env, row, vtrace[variant_of(o, row)], ++done[order[i]], runs_total);
		if (row->failed && !cmp_interrupted)
			fstap_warn("candidate '%s' (%s) failed: %s", row->cand->name,
				   row->variant, row->reason);
	}
	free(order);
}

/*
 * Every run of every row: --runs=N in one shuffled round; --runs=auto
 * starts with the runs that can decide and adds a round of one run per
 * row while a verdict is inconclusive, up to --max-runs. A row cut short
 * by an interrupt says how far it got.
 */
static void run_all(const struct cmp_config *o, struct cmp_env *env, struct cmp_results *res,
		    char *const *vtrace, char *const *vfail)
{
	unsigned *done = calloc(res->nrows, sizeof(*done)), i, runs = (unsigned)o->runs;
	unsigned round = 0;
	double t0 = now_s();

	if (!done)
		fstap_die("out of memory");
	for (i = 0; i < res->nrows; i++) {
		unsigned v = variant_of(o, &res->rows[i]);

		if (vfail[v])
			cmp_row_fail(&res->rows[i], "no %s variant: %s", res->rows[i].variant,
				     vfail[v]);
	}
	if (o->runs_auto) {
		runs = cmp_runs_needed(res->nrows > 1 ? res->nrows - 1 : 1, CMP_ALPHA);
		if (runs < 3)
			runs = 3;
		if (runs > o->max_runs)
			runs = (unsigned)o->max_runs;
	}
	fstap_info("%u runs in a shuffled order, --seed=%lu", res->nrows * runs, o->seed);
	run_round(o, env, res, vtrace, runs, o->seed, done,
		  o->runs_auto ? (unsigned)o->max_runs : runs);
	res->runs = runs;
	while (o->runs_auto && !cmp_interrupted && res->runs < o->max_runs) {
		cmp_results_summarize(res);
		if (!cmp_results_undecided(res))
			break;
		if (!cmp_budget_allows(now_s() - t0, res->runs, o->time_budget)) {
			res->budget_stop = true;
			fstap_info("--time-budget=%gs: no time for another round after %u runs per "
				   "row", o->time_budget, res->runs);
			break;
		}
		round++;
		fstap_info("a verdict is inconclusive after %u runs per row: one more round",
			   res->runs);
		run_round(o, env, res, vtrace, 1, o->seed + round, done, (unsigned)o->max_runs);
		res->runs++;
	}
	for (i = 0; i < res->nrows && cmp_interrupted; i++) {
		struct cmp_row *row = &res->rows[i];

		if (!row->failed && !row->nruns)
			cmp_row_fail(row, "not run: interrupted");
		else if (!row->failed && row->nruns < res->runs)
			cmp_row_fail(row, "interrupted after %u of %u runs", row->nruns, res->runs);
	}
	free(done);
}

/* The fstap binary, the work directory under --image-dir and the log directory. */
static int setup_dirs(const struct cmp_config *o, char *self, size_t slen, char *workdir,
		      size_t wlen, char *logdir, size_t llen)
{
	ssize_t n = readlink("/proc/self/exe", self, slen - 1);
	int ret;

	if (n <= 0)
		return fstap_error(-errno, "cannot find the fstap binary (/proc/self/exe): %s",
				   strerror(errno));
	self[n] = '\0';
	snprintf(workdir, wlen, "%s/fstap-compare.XXXXXX", o->image_dir);
	if (!mkdtemp(workdir))
		return fstap_error(-errno, "cannot create a directory in '%s': %s", o->image_dir,
				   strerror(errno));
	if (!o->out) {
		snprintf(logdir, llen, "%s/logs", workdir);
		mkdir(logdir, 0700);
		return 0;
	}
	snprintf(logdir, llen, "%s/logs", o->out);
	if ((ret = mkdir_p(logdir))) {
		fstap_error(ret, "cannot create '%s': %s", logdir, strerror(-ret));
		cmp_remove_tree(workdir);
		return ret;
	}
	return 0;
}

/* The rows (each candidate with each variant) and what results.json says of the run. */
static void init_results(struct cmp_config *o, const struct cmp_trace_size *size,
			 const char *logdir, struct cmp_results *res)
{
	unsigned i, v;

	if (!o->seeded)
		o->seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	res->trace = o->trace;
	res->runs = (unsigned)o->runs;
	res->clone = (unsigned)o->clone;
	res->shuffled = true;
	res->seed = o->seed;
	res->max_divergence = o->max_divergence;
	res->max_runs = o->runs_auto ? (unsigned)o->max_runs : 0;
	res->time_budget = o->runs_auto ? o->time_budget : 0;
	res->nrows = o->ncand * o->nvar;
	res->rows = calloc(res->nrows, sizeof(*res->rows));
	if (!res->rows)
		fstap_die("out of memory");
	res->options = cmp_options_json(o, size);
	res->machine = cmp_machine_json();
	res->logdir = o->out ? logdir : NULL;
	res->cmdline = o->cmdline;
	for (i = 0; i < o->ncand; i++)
		for (v = 0; v < o->nvar; v++) {
			res->rows[i * o->nvar + v].cand = &o->cand[i];
			res->rows[i * o->nvar + v].variant = o->variants[v];
		}
}

static void free_results(struct cmp_results *res)
{
	unsigned i, k;

	for (i = 0; i < res->nrows; i++) {
		for (k = 0; k < res->rows[i].nruns; k++)
			cmp_run_free(&res->rows[i].runs[k]);
		free(res->rows[i].runs);
	}
	free(res->rows);
	json_decref(res->options);
	json_decref(res->machine);
}

/* The table on stdout, the files of --out; 1 if one could not be written, else 0. */
static int report(const struct cmp_config *o, const struct cmp_results *res)
{
	int status = 0;

	if (cmp_render_table(stdout, res) || fflush(stdout))
		status = 1;
	if (!o->out)
		return status;
	if (write_file(o->out, result_files[0], o->trace, res, json_fn) ||
	    write_file(o->out, result_files[1], o->trace, res, cmp_render_csv) ||
	    write_file(o->out, result_files[2], o->trace, res, cmp_render_svg) ||
	    write_file(o->out, result_files[3], o->trace, res, cmp_render_summary))
		return 1;
	fstap_info("results in %s/: results.json, results.csv, chart.svg, summary.md", o->out);
	return status;
}

int cmp_main(struct cmp_config *o)
{
	struct cmp_env env;
	struct cmp_results res;
	struct cmp_trace_size size;
	char workdir[PATH_MAX], logdir[PATH_MAX + 8], self[PATH_MAX];
	char *vtrace[CMP_MAX_VARIANTS], *vfail[CMP_MAX_VARIANTS];
	unsigned i, v, nfailed = 0;
	int status;

	if ((o->out && cmp_check_out(o->out, o->trace)) || cmp_preflight(o, &size) ||
	    setup_dirs(o, self, sizeof(self), workdir, sizeof(workdir), logdir, sizeof(logdir)))
		return 1;
	memset(&env, 0, sizeof(env));
	memset(&res, 0, sizeof(res));
	env.self = self;
	env.workdir = workdir;
	env.logdir = logdir;
	env.image_size = o->image_size;
	env.size = size;
	env.device = o->device;
	env.disk = o->disk;
	env.log_disk = o->log_disk;
	env.replay_args = o->replay_args;
	env.clone = (unsigned)o->clone;
	env.progress = o->progress && fstap_verbosity >= 0 && isatty(STDERR_FILENO);
	init_results(o, &size, logdir, &res);

	cmp_signals_install();
	make_variants(o, &env, vtrace, vfail);
	run_all(o, &env, &res, vtrace, vfail);
	cmp_cleanup();
	cmp_signals_restore();

	cmp_results_summarize(&res);
	for (i = 0; i < res.nrows; i++)
		nfailed += res.rows[i].failed || !res.rows[i].nruns;
	status = report(o, &res);
	if (cmp_interrupted) {
		fstap_error(-EINTR, "interrupted; everything compare set up was undone");
		status = 1;
	} else if (nfailed) {
		status = 1;
	}
	free_results(&res);
	for (v = 0; v < o->nvar; v++) {
		free(vtrace[v]);
		free(vfail[v]);
	}
	cmp_remove_tree(workdir);
	cmp_interrupted = 0;
	return status;
}
