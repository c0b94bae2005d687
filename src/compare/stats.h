/*
 * stats.h: the statistics behind compare's verdicts, as pure functions on
 * arrays of run times (no I/O, no allocation visible to the caller):
 * the median and its distribution-free 95% confidence interval by order
 * statistics, the exact two-sided Mann-Whitney U test (ties handled by
 * mid-ranks; normal approximation with tie correction for large samples),
 * the Hodges-Lehmann estimate of the ratio of two samples' times with its
 * distribution-free confidence interval, and Holm's step-down correction.
 * docs/compare.md explains the method; the rationale is in stats.c.
 */
#ifndef FSTAP_COMPARE_STATS_H
#define FSTAP_COMPARE_STATS_H

#include <stdbool.h>

/* Above this many runs in the two samples together, the U test is approximated. */
#define CMP_EXACT_MAX_N 50

/* A confidence interval and its actual coverage (in [0, 1]). */
struct cmp_ci {
	double lo, hi;
	double coverage;	/* the interval's actual confidence level */
	bool reaches_95;	/* coverage >= 0.95 (else: too few runs for a 95% interval) */
};

/* The median of v[0..n) (the mean of the two middle values when n is even); 0 if n == 0. */
double cmp_median(const double *v, unsigned n);

/*
 * The distribution-free confidence interval of the median of v[0..n):
 * [x(k), x(n+1-k)] of the sorted sample with the largest k whose coverage
 * 1 - 2 P(Bin(n, 1/2) <= k-1) is at least 95%. Below 6 runs no such k
 * exists: the interval is then min-max with its actual coverage and
 * reaches_95 false. 0, or -EINVAL (n == 0), -ENOMEM.
 */
int cmp_median_ci(const double *v, unsigned n, struct cmp_ci *out);

/*
 * The two-sided p-value of the Mann-Whitney U (Wilcoxon rank-sum) test of
 * x[0..nx) against y[0..ny): exact (the permutation distribution of the
 * mid-rank sum, counted) when nx + ny <= CMP_EXACT_MAX_N, else the normal
 * approximation with tie and continuity corrections. *exact says which.
 * 0, or -EINVAL (an empty sample), -ENOMEM.
 */
int cmp_mann_whitney(const double *x, unsigned nx, const double *y, unsigned ny, double *p,
		     bool *exact);

/*
 * The smallest two-sided p-value the U test can give for samples of nx
 * and ny runs (complete separation): 2 / C(nx + ny, nx).
 */
double cmp_mann_whitney_min_p(unsigned nx, unsigned ny);

/*
 * The Hodges-Lehmann estimate of how many times slower y is than x (all
 * values > 0): exp of the median of the nx*ny differences log y_j - log x_i,
 * and its distribution-free confidence interval from the order statistics
 * of those differences (critical value from the exact U distribution, or
 * its normal approximation above CMP_EXACT_MAX_N). Below a 95% level
 * reachable (e.g. 3 runs each) the interval is the full range of the ratios
 * with its coverage. 0, or -EINVAL (empty, or a value <= 0), -ENOMEM.
 */
int cmp_hl_ratio(const double *x, unsigned nx, const double *y, unsigned ny, double *ratio,
		 struct cmp_ci *ci);

/*
 * Holm's step-down adjustment of p[0..n) in place: the i-th smallest is
 * multiplied by n - i (i from 0), made monotone, capped at 1.
 * 0, or -ENOMEM.
 */
int cmp_holm(double *p, unsigned n);

/*
 * The smallest number of runs per row for which the U test, Holm-adjusted
 * over m comparisons, can reach p < alpha: the smallest n with
 * m * 2 / C(2n, n) < alpha (4 for one comparison at 0.05).
 */
unsigned cmp_runs_needed(unsigned m, double alpha);

#endif
