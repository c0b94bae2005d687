/*
 * rank.c: fractional ranks and Spearman's rank correlation, for the access
 * order analysis of `fstap report` (does a process open a directory's files
 * in readdir order, name order or inode order?).
 *
 * Rationale. Spearman's rho is the Pearson correlation of the ranks of two
 * series. With n pairs and no ties it equals 1 - 6 * sum(d^2) / (n^3 - n),
 * where d is the rank difference of a pair; with ties that shortcut is wrong,
 * so ties get the mean of the ranks they span (fractional ranking) and the
 * Pearson formula is applied to the ranks themselves:
 *
 *     rho = sum((rx - m)(ry - m)) / sqrt(sum((rx - m)^2) * sum((ry - m)^2))
 *
 * where m = (n + 1) / 2 is the mean of either set of ranks. It is +1 when
 * one order is the other, -1 when it is its reverse and near 0 when they are
 * unrelated. It is undefined (NaN here) for n < 2 or when one side is all
 * ties, because a constant has no order to follow. Ranks are at most n, so
 * the sums are exact in doubles far beyond any directory size we meet.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/analysis.h"

struct idx_val {
	double v;
	size_t i;
};

static int cmp_idx_val(const void *a, const void *b)
{
	const struct idx_val *x = a, *y = b;

	if (x->v < y->v)
		return -1;
	if (x->v > y->v)
		return 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int an_ranks(const double *v, size_t n, double *rank)
{
	struct idx_val *s;
	size_t i, j, k;

	if (!n)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		s[i].v = v[i];
		s[i].i = i;
	}
	if (n)
		qsort(s, n, sizeof(*s), cmp_idx_val);
	for (i = 0; i < n; i = j) {
		double r;

		for (j = i + 1; j < n && s[j].v == s[i].v; j++)
			;
		/* positions i..j-1 (0-based) hold ranks i+1..j: their mean */
		r = (double)(i + 1 + j) / 2.0;
		for (k = i; k < j; k++)
			rank[s[k].i] = r;
	}
	free(s);
	return 0;
}

double an_spearman(const double *x, const double *y, size_t n)
{
	double *rx, *ry, m, sxy = 0, sxx = 0, syy = 0;
	size_t i;

	if (n < 2)
		return NAN;
	rx = malloc(2 * n * sizeof(*rx));
	if (!rx)
		return NAN;
	ry = rx + n;
	if (an_ranks(x, n, rx) || an_ranks(y, n, ry)) {
		free(rx);
		return NAN;
	}
	m = (double)(n + 1) / 2.0;
	for (i = 0; i < n; i++) {
		sxy += (rx[i] - m) * (ry[i] - m);
		sxx += (rx[i] - m) * (rx[i] - m);
		syy += (ry[i] - m) * (ry[i] - m);
	}
	free(rx);
	if (sxx == 0 || syy == 0)
		return NAN;
	m = sxy / sqrt(sxx * syy);
	/* rounding can leave |rho| a hair above 1 */
	return m > 1 ? 1 : m < -1 ? -1 : m;
}
