/*
 * stats.c: what a replay measures. Log-linear latency histograms (the
 * rationale is in replay_i.h), per-op-type counters (count, errors, bytes),
 * schedule lag, and divergences keyed by (op, kind, errno). Each worker owns
 * one struct rp_stats and updates it without locks; the run merges them at
 * the end (fio's td->ts and sum_thread_stats).
 *
 * Not here: how results are printed (report.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay_i.h"

unsigned rp_hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v < RP_HIST_SUB)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	if (msb >= RP_HIST_MAXBIT)
		return RP_HIST_NR - 1;
	shift = msb - RP_HIST_BITS;
	return (shift + 1) * RP_HIST_SUB + (unsigned)(v >> shift) - RP_HIST_SUB;
}

uint64_t rp_hist_value(unsigned idx)
{
	unsigned shift;
	uint64_t base;

	if (idx < RP_HIST_SUB)
		return idx;
	shift = idx / RP_HIST_SUB - 1;
	base = (uint64_t)(RP_HIST_SUB + idx % RP_HIST_SUB) << shift;
	return base + ((1ull << shift) >> 1);
}

/* rp_hist_add, inline in rp_stats_add: a call on every replayed operation less. */
static inline void hist_add(struct rp_hist *h, uint64_t v)
{
	h->bucket[rp_hist_index(v)]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->sum_sq += (unsigned __int128)v * v;
}

void rp_hist_add(struct rp_hist *h, uint64_t v)
{
	hist_add(h, v);
}

void rp_hist_merge(struct rp_hist *dst, const struct rp_hist *src)
{
	unsigned i;

	if (!src->n)
		return;
	for (i = 0; i < RP_HIST_NR; i++)
		dst->bucket[i] += src->bucket[i];
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	dst->sum_sq += src->sum_sq;
}

uint64_t rp_hist_percentile(const struct rp_hist *h, double p)
{
	uint64_t rank, seen = 0, v;
	unsigned i;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank >= h->n)
		return h->max;
	for (i = 0; i < RP_HIST_NR; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	v = rp_hist_value(i < RP_HIST_NR ? i : RP_HIST_NR - 1);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

double rp_hist_mean(const struct rp_hist *h)
{
	return h->n ? (double)((long double)h->sum / (long double)h->n) : 0.0;
}

/*
 * n - 1 times the variance is S2 - S1^2 / n, with S1 and S2 the sums of
 * (v - min) and of its squares, found from sum and sum_sq modulo 2^128
 * (exact whenever S2 itself fits, whatever sum_sq wrapped): centred at
 * min, the values' size cancels out before anything is rounded. In
 * integers when n * S2 and S1^2 fit in 128 bits, in long double otherwise.
 */
double rp_hist_stddev(const struct rp_hist *h)
{
	unsigned __int128 k = h->min, n = h->n, s1, s2, n_s2, s1_sq;
	long double dev2;

	if (h->n < 2)
		return 0.0;
	s1 = h->sum - n * k;
	s2 = h->sum_sq - 2 * k * h->sum + n * k * k;
	if (!__builtin_mul_overflow(n, s2, &n_s2) && !__builtin_mul_overflow(s1, s1, &s1_sq))
		dev2 = (long double)(n_s2 - s1_sq) / (long double)n;
	else
		dev2 = (long double)s2 - (long double)s1 * (long double)s1 / (long double)n;
	if (dev2 < 0)
		dev2 = 0;	/* (rounding, in long double) */
	return (double)sqrtl(dev2 / (long double)(n - 1));
}

static const char *const div_names[RP_DIV_NR] = {
	[RP_DIV_ERRNO] = "errno",
	[RP_DIV_SUCCEEDED] = "succeeded",
	[RP_DIV_SHORT] = "short",
	[RP_DIV_VALUE] = "value",
	[RP_DIV_ENTRIES] = "entries",
	[RP_DIV_UNKNOWN] = "unknown",
	[RP_DIV_REFUSED] = "refused",
	[RP_DIV_DEVICE] = "device",
};

const char *rp_div_kind_name(enum rp_div_kind k)
{
	return (unsigned)k < RP_DIV_NR ? div_names[k] : "?";
}

void rp_stats_init(struct rp_stats *s)
{
	memset(s, 0, sizeof(*s));
}

void rp_stats_release(struct rp_stats *s)
{
	unsigned i;

	for (i = 0; i < FSTAP_OP_NR; i++)
		free(s->op[i].lat);
	free(s->lag);
	free(s->div);
	rp_stats_init(s);
}

static struct rp_hist *hist_get(struct rp_hist **h)
{
	if (!*h)
		*h = calloc(1, sizeof(**h));
	return *h;
}

int rp_stats_add(struct rp_stats *s, unsigned op, int64_t result, uint64_t lat_ns)
{
	struct rp_opstat *o;

	if (op >= FSTAP_OP_NR)
		return -EINVAL;
	o = &s->op[op];
	o->count++;
	if (result < 0)
		o->errors++;
	else if (op == FSTAP_OP_READ || op == FSTAP_OP_WRITE || op == FSTAP_OP_COPY_FILE_RANGE)
		o->bytes += (uint64_t)result;
	if (!o->lat && !hist_get(&o->lat))
		return -ENOMEM;
	hist_add(o->lat, lat_ns);
	return 0;
}

int rp_stats_add_lag(struct rp_stats *s, uint64_t lag_ns)
{
	if (!hist_get(&s->lag))
		return -ENOMEM;
	rp_hist_add(s->lag, lag_ns);
	return 0;
}

static int div_add(struct rp_stats *s, unsigned op, unsigned kind, unsigned err, uint64_t n)
{
	size_t i;

	for (i = 0; i < s->ndiv; i++) {
		struct rp_div *d = &s->div[i];

		if (d->op == op && d->kind == kind && d->err == err) {
			d->count += n;
			s->divergences += n;
			return 0;
		}
	}
	if (FSTAP_GROW(s->div, s->ndiv + 1, s->cap_div))
		return -ENOMEM;
	s->div[s->ndiv++] = (struct rp_div){ (uint16_t)op, (uint16_t)kind,
					     (uint16_t)(err > 65535 ? 65535 : err), n };
	s->divergences += n;
	return 0;
}

int rp_stats_div(struct rp_stats *s, unsigned op, enum rp_div_kind kind, unsigned err)
{
	return div_add(s, op, kind, err, 1);
}

int rp_stats_merge(struct rp_stats *dst, const struct rp_stats *src)
{
	unsigned i;
	size_t j;
	int ret = 0;

	dst->raced += src->raced;
	for (i = 0; i < FSTAP_OP_NR; i++) {
		const struct rp_opstat *so = &src->op[i];
		struct rp_opstat *d = &dst->op[i];

		d->count += so->count;
		d->errors += so->errors;
		d->bytes += so->bytes;
		if (so->lat) {
			if (hist_get(&d->lat))
				rp_hist_merge(d->lat, so->lat);
			else
				ret = -ENOMEM;
		}
	}
	if (src->lag) {
		if (hist_get(&dst->lag))
			rp_hist_merge(dst->lag, src->lag);
		else
			ret = -ENOMEM;
	}
	for (j = 0; j < src->ndiv; j++) {
		const struct rp_div *d = &src->div[j];

		if (div_add(dst, d->op, d->kind, d->err, d->count))
			ret = -ENOMEM;
	}
	dst->out_of_order += src->out_of_order;
	dst->devnodes += src->devnodes;
	dst->device_io += src->device_io;
	return ret;
}

bool rp_diverges(unsigned op, int64_t recorded, int64_t got, enum rp_div_kind *kind,
		 unsigned *err)
{
	*err = 0;
	if (got == RP_E_UNKNOWN) {
		*kind = RP_DIV_UNKNOWN;
		return true;
	}
	if (got == RP_E_REFUSED) {
		*kind = RP_DIV_REFUSED;
		return true;
	}
	if (got == RP_E_DEVICE) {
		*kind = RP_DIV_DEVICE;
		return true;
	}
	if (got < 0) {
		if (got == recorded)
			return false;
		*kind = RP_DIV_ERRNO;
		*err = got < -65535 ? 65535 : (unsigned)-got;
		return true;
	}
	if (recorded < 0) {
		*kind = RP_DIV_SUCCEEDED;
		*err = recorded < -65535 ? 65535 : (unsigned)-recorded;
		return true;
	}
	switch (op) {
	case FSTAP_OP_READ:
	case FSTAP_OP_WRITE:
	case FSTAP_OP_COPY_FILE_RANGE:
		if (got == recorded)
			return false;
		*kind = got < recorded ? RP_DIV_SHORT : RP_DIV_VALUE;
		return true;
	case FSTAP_OP_LSEEK:
	case FSTAP_OP_GETXATTR:
	case FSTAP_OP_LISTXATTR:
		if (got == recorded)
			return false;
		*kind = RP_DIV_VALUE;
		return true;
	default:
		return false;
	}
}
