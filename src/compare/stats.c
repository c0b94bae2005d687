/*
 * stats.c: the statistics of compare's verdicts (see stats.h). Pure
 * functions over arrays of run times; no I/O.
 *
 * Why these and not a mean with a t interval: run times are skewed (a
 * slow outlier from a background flush is common) and runs are few (3 to
 * 10), so nothing here assumes a distribution:
 *
 * - Median CI by order statistics. For a continuous distribution the
 *   number of runs below the true median is Bin(n, 1/2), so
 *   [x(k), x(n+1-k)] covers it with probability 1 - 2 P(B <= k-1). The
 *   largest k with coverage >= 95% is used; n = 6 is the smallest sample
 *   with one (k = 1: 96.9%); below, min-max is given with its coverage
 *   (5 runs: 93.8%, 3 runs: 75%).
 * - Mann-Whitney U, exact. Under "same distribution" every split of the
 *   pooled runs into the two samples is equally likely; the p-value counts
 *   the splits whose rank sum is at least as far from its mean as the one
 *   observed. Counting is a dynamic program over (runs taken, sum of
 *   doubled mid-ranks), so ties are exact too. Complete separation of 3
 *   against 3 runs gives 2/20 = 0.1, of 5 against 5 gives 2/252 = 0.0079.
 *   Above CMP_EXACT_MAX_N pooled runs the normal approximation with the
 *   tie-corrected variance and a continuity correction is used.
 * - Hodges-Lehmann ratio. On log times the shift between two samples is
 *   estimated by the median of all pairwise differences; its CI is
 *   [D(c), D(nx*ny+1-c)] of the sorted differences, c the largest value
 *   with P(U <= c-1) <= 2.5% under the (untied) null distribution of U.
 *   exp() of these is the ratio of times and its CI.
 * - Holm's step-down correction keeps the chance of any false "slower"
 *   across the rows at 5% without assuming the tests independent.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/stats.h"

#define ALPHA_HALF 0.025
#define Z_975 1.959963984540054
#define EPS 1e-12

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *sorted_copy(const double *v, unsigned n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), by_value);
	return s;
}

static double sorted_median(const double *s, unsigned n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double cmp_median(const double *v, unsigned n)
{
	double *s, m;

	if (!n)
		return 0;
	s = sorted_copy(v, n);
	if (!s)
		return v[0];
	m = sorted_median(s, n);
	free(s);
	return m;
}

static double binom(unsigned n, unsigned k)
{
	double c = 1;
	unsigned i;

	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	for (i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

/* P(Bin(n, 1/2) <= k). */
static double binom_half_cdf(unsigned n, unsigned k)
{
	double sum = 0;
	unsigned i;

	for (i = 0; i <= k && i <= n; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * M_LN2);
	return sum > 1 ? 1 : sum;
}

int cmp_median_ci(const double *v, unsigned n, struct cmp_ci *out)
{
	double *s;
	unsigned k, best = 1;

	if (!n)
		return -EINVAL;
	s = sorted_copy(v, n);
	if (!s)
		return -ENOMEM;
	for (k = 1; k <= (n + 1) / 2; k++)
		if (1 - 2 * binom_half_cdf(n, k - 1) >= 0.95 - EPS)
			best = k;
	out->coverage = 1 - 2 * binom_half_cdf(n, best - 1);
	if (out->coverage < 0)
		out->coverage = 0;
	out->reaches_95 = out->coverage >= 0.95 - EPS;
	out->lo = s[best - 1];
	out->hi = s[n - best];
	free(s);
	return 0;
}

/*
 * The null distribution of the sum of nx of the n scores (doubled
 * mid-ranks, integers): counts[t] = how many nx-subsets sum to t, for
 * t in [0, maxsum]. Returns the table (malloc'd) or NULL.
 */
static double *subset_sum_counts(const unsigned *score, unsigned n, unsigned nx,
				 unsigned *maxsum)
{
	unsigned total = 0, i, j, t;
	double *dp;

	for (i = 0; i < n; i++)
		total += score[i];
	dp = calloc((size_t)(nx + 1) * (total + 1), sizeof(*dp));
	if (!dp)
		return NULL;
	dp[0] = 1;
	for (i = 0; i < n; i++)
		for (j = (i + 1 < nx ? i + 1 : nx); j >= 1; j--)
			for (t = total; t >= score[i]; t--) {
				dp[(size_t)j * (total + 1) + t] +=
					dp[(size_t)(j - 1) * (total + 1) + t - score[i]];
				if (t == score[i])
					break;
			}
	memmove(dp, dp + (size_t)nx * (total + 1), (total + 1) * sizeof(*dp));
	*maxsum = total;
	return dp;
}

struct pooled {
	double v;
	int from_x;
};

static int by_pooled_value(const void *a, const void *b)
{
	return by_value(&((const struct pooled *)a)->v, &((const struct pooled *)b)->v);
}

/*
 * Doubled mid-ranks of the pooled samples (score[i] for the i-th smallest),
 * the doubled rank sum of x and the tie term sum(t^3 - t).
 */
static int pooled_ranks(const double *x, unsigned nx, const double *y, unsigned ny,
			unsigned **score_out, unsigned *wx2, double *ties)
{
	unsigned n = nx + ny, i, j, k;
	struct pooled *p = malloc(n * sizeof(*p));
	unsigned *score = malloc(n * sizeof(*score));

	if (!p || !score) {
		free(p);
		free(score);
		return -ENOMEM;
	}
	for (i = 0; i < nx; i++)
		p[i] = (struct pooled){ x[i], 1 };
	for (i = 0; i < ny; i++)
		p[nx + i] = (struct pooled){ y[i], 0 };
	qsort(p, n, sizeof(*p), by_pooled_value);
	*wx2 = 0;
	*ties = 0;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j].v == p[i].v; j++)
			;
		/* positions i+1 .. j share the mid-rank (i+1+j)/2, doubled i+1+j */
		for (k = i; k < j; k++) {
			score[k] = i + 1 + j;
			if (p[k].from_x)
				*wx2 += score[k];
		}
		*ties += pow(j - i, 3) - (j - i);
	}
	free(p);
	*score_out = score;
	return 0;
}

static double normal_p(unsigned nx, unsigned ny, double wx2, double ties)
{
	double n = nx + ny, u = wx2 / 2 - nx * (nx + 1) / 2.0, mu = nx * (double)ny / 2;
	double var = nx * (double)ny / 12 * ((n + 1) - ties / (n * (n - 1)));
	double z;

	if (var <= 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	z = erfc(z / M_SQRT2);
	return z > 1 ? 1 : z;
}

int cmp_mann_whitney(const double *x, unsigned nx, const double *y, unsigned ny, double *p,
		     bool *exact)
{
	unsigned n = nx + ny, *score, wx2, maxsum, t;
	double ties, *counts, hit = 0, all = 0;
	long center, dev;
	int ret;

	if (!nx || !ny)
		return -EINVAL;
	ret = pooled_ranks(x, nx, y, ny, &score, &wx2, &ties);
	if (ret)
		return ret;
	*exact = n <= CMP_EXACT_MAX_N;
	if (!*exact) {
		*p = normal_p(nx, ny, wx2, ties);
		free(score);
		return 0;
	}
	counts = subset_sum_counts(score, n, nx, &maxsum);
	free(score);
	if (!counts)
		return -ENOMEM;
	center = (long)nx * (long)(n + 1);	/* the doubled mean rank sum */
	dev = labs((long)wx2 - center);
	for (t = 0; t <= maxsum; t++) {
		all += counts[t];
		if (labs((long)t - center) >= dev)
			hit += counts[t];
	}
	free(counts);
	*p = all > 0 ? hit / all : 1;
	if (*p > 1)
		*p = 1;
	return 0;
}

double cmp_mann_whitney_min_p(unsigned nx, unsigned ny)
{
	double p = 2 / binom(nx + ny, nx);

	return p > 1 ? 1 : p;
}

/*
 * The HL critical value c (1-based order statistic) and its coverage for
 * samples of nx and ny without ties.
 */
static int hl_critical(unsigned nx, unsigned ny, unsigned *c, double *coverage)
{
	unsigned n = nx + ny, m = nx * ny, i, maxsum, *score;
	double *counts, all = 0, cum = 0;
	unsigned k;

	if (n > CMP_EXACT_MAX_N) {
		double v = m / 2.0 - Z_975 * sqrt(m * (n + 1) / 12.0);

		*c = v >= 1 ? (unsigned)floor(v) : 1;
		*coverage = v >= 1 ? 0.95 : 0;
		return 0;
	}
	score = malloc(n * sizeof(*score));
	if (!score)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		score[i] = 2 * (i + 1);
	counts = subset_sum_counts(score, n, nx, &maxsum);
	free(score);
	if (!counts)
		return -ENOMEM;
	for (i = 0; i <= maxsum; i++)
		all += counts[i];
	/* U = W - nx(nx+1)/2, so U = u is the doubled sum nx(nx+1) + 2u. */
	*c = 1;
	*coverage = 1 - 2 * counts[nx * (nx + 1)] / all;
	for (k = 1; k <= m / 2; k++) {
		cum += counts[nx * (nx + 1) + 2 * (k - 1)] / all;	/* P(U <= k-1) */
		if (cum > ALPHA_HALF + EPS)
			break;
		*c = k;
		*coverage = 1 - 2 * cum;
	}
	free(counts);
	return 0;
}

int cmp_hl_ratio(const double *x, unsigned nx, const double *y, unsigned ny, double *ratio,
		 struct cmp_ci *ci)
{
	unsigned m = nx * ny, i, j, c;
	double *d, coverage;
	int ret;

	if (!nx || !ny)
		return -EINVAL;
	for (i = 0; i < nx; i++)
		if (!(x[i] > 0))
			return -EINVAL;
	for (j = 0; j < ny; j++)
		if (!(y[j] > 0))
			return -EINVAL;
	d = malloc(m * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++)
			d[i * ny + j] = log(y[j]) - log(x[i]);
	qsort(d, m, sizeof(*d), by_value);
	ret = hl_critical(nx, ny, &c, &coverage);
	if (ret) {
		free(d);
		return ret;
	}
	if (c > (m + 1) / 2)
		c = (m + 1) / 2;
	*ratio = exp(sorted_median(d, m));
	ci->lo = exp(d[c - 1]);
	ci->hi = exp(d[m - c]);
	ci->coverage = coverage < 0 ? 0 : coverage;
	ci->reaches_95 = coverage >= 0.95 - EPS;
	free(d);
	return 0;
}

int cmp_holm(double *p, unsigned n)
{
	unsigned *idx = malloc((n ? n : 1) * sizeof(*idx)), i, j;
	double prev = 0;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = 1; i < n; i++)	/* insertion sort of the indices by p: n is small */
		for (j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			unsigned t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		double a = (n - i) * p[idx[i]];

		if (a > 1)
			a = 1;
		if (a < prev)
			a = prev;
		p[idx[i]] = prev = a;
	}
	free(idx);
	return 0;
}

unsigned cmp_runs_needed(unsigned m, double alpha)
{
	unsigned n;

	if (!m)
		m = 1;
	for (n = 1; n < 1000; n++)
		if (m * cmp_mann_whitney_min_p(n, n) < alpha)
			return n;
	return 1000;
}
