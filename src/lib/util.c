/*
 * util.c: the shared pieces of util.h that are not inline: array growth,
 * sleeping and deadlines, random filler and the uint64 map.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/util.h"

size_t fstap_grow_size(size_t cap, size_t need, size_t first)
{
	size_t n = cap ? cap : first ? first : 1;

	while (n < need) {
		if (n > SIZE_MAX / 2)
			return 0;
		n *= 2;
	}
	return n;
}

int fstap_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = fstap_grow_size(*cap, need, 16);
	if (!n || (elem && n > SIZE_MAX / elem))
		return -ENOMEM;
	memcpy(&p, pp, sizeof(p));
	p = realloc(p, n * elem);
	if (!p)
		return -ENOMEM;
	memcpy(pp, &p, sizeof(p));
	*cap = n;
	return 0;
}

void fstap_sleep_until_ns(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void fstap_deadline_ms(struct timespec *ts, unsigned long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

void fstap_fill_random(uint64_t *buf, size_t n, uint64_t *state)
{
	uint64_t x = *state;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		buf[i] = x * 0x2545f4914f6cdd1dULL;
	}
	*state = x;
}

/* ---- the uint64 map ------------------------------------------------------- */

void fstap_map_init(struct fstap_map *m)
{
	memset(m, 0, sizeof(*m));
}

void fstap_map_release(struct fstap_map *m)
{
	free(m->keys);
	free(m->vals);
	fstap_map_init(m);
}

static int map_grow(struct fstap_map *m)
{
	struct fstap_map n;
	size_t i;

	n.cap = m->cap ? 2 * m->cap : 64;
	n.n = m->n;
	n.keys = calloc(n.cap, sizeof(uint64_t));
	n.vals = calloc(n.cap, sizeof(uint64_t));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			size_t j = fstap_map_slot(&n, m->keys[i]);

			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
		}
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int fstap_map_put(struct fstap_map *m, uint64_t key, uint64_t val)
{
	size_t i;

	if (!key)
		return -EINVAL;
	if (2 * (m->n + 1) > m->cap && map_grow(m))
		return -ENOMEM;
	i = fstap_map_slot(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

bool fstap_map_del(struct fstap_map *m, uint64_t key, uint64_t *val)
{
	size_t mask, i, j;

	if (!m->cap || !key)
		return false;
	mask = m->cap - 1;
	i = fstap_map_slot(m, key);
	if (!m->keys[i])
		return false;
	if (val)
		*val = m->vals[i];
	m->keys[i] = 0;
	m->n--;
	/* Backward shift: move later members of the run into the hole. */
	for (j = (i + FSTAP_ID_STEP) & mask; m->keys[j]; j = (j + FSTAP_ID_STEP) & mask) {
		size_t home = fstap_id_home(m->keys[j], mask);

		/* Move j to i if i is on its probe path (no farther from its home). */
		if (fstap_id_dist(home, j, mask) >= fstap_id_dist(i, j, mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = 0;
			i = j;
		}
	}
	return true;
}

bool fstap_map_next(const struct fstap_map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; *pos < m->cap; ++*pos) {
		if (m->keys[*pos]) {
			if (key)
				*key = m->keys[*pos];
			if (val)
				*val = m->vals[*pos];
			++*pos;
			return true;
		}
	}
	return false;
}
