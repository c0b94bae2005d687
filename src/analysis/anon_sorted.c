/*
 * anon_sorted.c: the name tokens of `fstap anonymize --keep-order`: tokens
 * of the same length that sort in the order of the names they replace.
 *
 * The names of the whole trace are gathered first (an_sorted_add), then
 * sorted (memcmp order, a prefix first: an_cmp_names) and given tokens in
 * that order (an_sorted_assign): each token is the smallest string of its
 * name's length that sorts after the previous token, with the name's kept
 * parts (leading dots, an extension) in place and the rest in the
 * alphabet's symbols, which are in ascending byte order. The smallest
 * choice leaves the most room to the names that follow, so when it fails
 * no assignment exists: the names would collide. A name whose first byte
 * after its leading dots sorts before '.' gets one of "%+,-" there, so that
 * it still sorts before a name with one more leading dot.
 *
 * The tokens depend on the order and lengths of the names only, not on a
 * key: whoever sees them learns which of any two names sorts first, and
 * nothing else about them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/anonymize.h"
#include "fstap/util.h"

static const char low_symbols[] = "%+,-";	/* below '.', for a first byte below it */

struct oent {
	size_t off, tok;		/* in buf: the name, its token */
	uint32_t len, s, e;		/* kept: [0, s) and [e, len) */
	uint32_t hash;
	bool low;			/* name[s] sorts before '.' */
};

struct an_sorted {
	uint8_t *buf;
	size_t nbuf, capbuf;
	struct oent *v;
	size_t n, cap;
	uint32_t *index;		/* open addressing: entry + 1, 0 empty */
	size_t slots;
	unsigned alphabet;
	char errmsg[512];
};

int an_sorted_new(struct an_sorted **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void an_sorted_free(struct an_sorted *o)
{
	if (!o)
		return;
	free(o->buf);
	free(o->v);
	free(o->index);
	free(o);
}

static uint32_t hash(const uint8_t *s, size_t len)
{
	return (uint32_t)fstap_hash_bytes(0x7f4a7c15u, s, len);
}

static struct oent *find(const struct an_sorted *o, const uint8_t *s, size_t len, uint32_t h)
{
	size_t j;

	if (!o->slots)
		return NULL;
	for (j = h & (o->slots - 1); o->index[j]; j = (j + 1) & (o->slots - 1)) {
		struct oent *x = &o->v[o->index[j] - 1];

		if (x->hash == h && x->len == len && !memcmp(o->buf + x->off, s, len))
			return x;
	}
	return NULL;
}

static int grow_index(struct an_sorted *o)
{
	size_t slots = fstap_grow_size(o->slots, 2 * (o->n + 1) + 1, 1024), i, j;
	uint32_t *a = calloc(slots, sizeof(*a));

	if (!a)
		return -ENOMEM;
	for (i = 0; i < o->n; i++) {
		for (j = o->v[i].hash & (slots - 1); a[j]; j = (j + 1) & (slots - 1))
			;
		a[j] = (uint32_t)(i + 1);
	}
	free(o->index);
	o->index = a;
	o->slots = slots;
	return 0;
}

/* Room for len more bytes in buf. */
static int buf_room(struct an_sorted *o, size_t len)
{
	return FSTAP_GROW(o->buf, o->nbuf + len, o->capbuf);
}

int an_sorted_add(struct an_sorted *o, const uint8_t *name, size_t len, size_t s, size_t e)
{
	uint32_t h = hash(name, len);
	struct oent *x;
	size_t j;
	int ret;

	if (find(o, name, len, h))
		return 0;
	if (len > UINT32_MAX || o->n >= UINT32_MAX - 1 || s > e || e > len)
		return -E2BIG;
	if ((2 * (o->n + 1) >= o->slots && (ret = grow_index(o))) ||
	    (ret = FSTAP_GROW(o->v, o->n + 1, o->cap)) ||
	    (ret = buf_room(o, len)))
		return ret;
	x = &o->v[o->n];
	x->off = o->nbuf;
	memcpy(o->buf + o->nbuf, name, len);
	o->nbuf += len;
	x->len = (uint32_t)len;
	x->s = (uint32_t)s;
	x->e = (uint32_t)e;
	x->hash = h;
	x->low = s < e && name[s] < '.';
	for (j = h & (o->slots - 1); o->index[j]; j = (j + 1) & (o->slots - 1))
		;
	o->index[j] = (uint32_t)++o->n;
	return 0;
}

static int cmp_ent(const void *a, const void *b, void *arg)
{
	const struct an_sorted *o = arg;
	const struct oent *x = &o->v[*(const uint32_t *)a], *y = &o->v[*(const uint32_t *)b];

	return an_cmp_names(o->buf + x->off, x->len, o->buf + y->off, y->len);
}

/* The symbols of position i of a free part (low: its first is below '.'). */
static const char *alphabet_of(const struct an_sorted *o, bool low, size_t i, unsigned *n)
{
	if (low && !i) {
		*n = sizeof(low_symbols) - 1;
		return low_symbols;
	}
	*n = o->alphabet;
	return an_symbols;
}

/* The index of the first symbol of sym[0..n) at or above c. */
static unsigned at_or_above(const char *sym, unsigned n, uint8_t c)
{
	unsigned i = 0;

	while (i < n && (uint8_t)sym[i] < c)
		i++;
	return i;
}

/*
 * The smallest s[0..len) of symbols with s || suf > y (memcmp order, a
 * prefix first): true, or false when none is.
 */
static bool smallest_after(const struct an_sorted *o, bool low, const uint8_t *y, size_t ylen,
			   const uint8_t *suf, size_t suflen, uint8_t *s, size_t len)
{
	size_t m = len < ylen ? len : ylen, i, ok = 0;
	const char *sym;
	unsigned n, k;

	for (; ok < m; ok++) {		/* y[0..ok) can be copied */
		sym = alphabet_of(o, low, ok, &n);
		k = at_or_above(sym, n, y[ok]);
		if (k == n || (uint8_t)sym[k] != y[ok])
			break;
	}
	if (ok == m && (ylen < len || an_cmp_names(suf, (uint32_t)suflen, y + len,
						   (uint32_t)(ylen - len)) > 0)) {
		memcpy(s, y, m);
		for (i = m; i < len; i++)
			s[i] = (uint8_t)alphabet_of(o, low, i, &n)[0];
		return true;
	}
	for (i = ok < m ? ok + 1 : m; i-- > 0;) {
		sym = alphabet_of(o, low, i, &n);
		k = at_or_above(sym, n, y[i]);
		if (k < n && (uint8_t)sym[k] == y[i])
			k++;
		if (k < n) {
			memcpy(s, y, i);
			s[i] = (uint8_t)sym[k];
			for (i++; i < len; i++)
				s[i] = (uint8_t)alphabet_of(o, low, i, &n)[0];
			return true;
		}
	}
	return false;
}

/*
 * The token of x after the token prev[0..prevlen) (prevlen 0: the first),
 * into tok[0..x->len): 0, or -ENOSPC when no token of that shape sorts
 * after prev.
 */
static int next_token(const struct an_sorted *o, const struct oent *x, const uint8_t *prev,
		      size_t prevlen, uint8_t *tok)
{
	const uint8_t *name = o->buf + x->off;
	size_t free_len = x->e - x->s, c, i;
	unsigned n;

	memcpy(tok, name, x->s);
	memcpy(tok + x->e, name + x->e, x->len - x->e);
	if (!free_len || !prevlen)
		goto fill;
	c = x->s < prevlen ? x->s : prevlen;
	if (memcmp(tok, prev, c))
		goto fill;	/* decided by the kept prefix */
	if (prevlen <= x->s)
		goto fill;	/* prev is a prefix of the kept prefix */
	return smallest_after(o, x->low, prev + x->s, prevlen - x->s, name + x->e,
			      x->len - x->e, tok + x->s, free_len) ? 0 : -ENOSPC;
fill:
	for (i = 0; i < free_len; i++)
		tok[x->s + i] = (uint8_t)alphabet_of(o, x->low, i, &n)[0];
	return !prevlen || an_cmp_names(tok, x->len, prev, (uint32_t)prevlen) > 0 ? 0 : -ENOSPC;
}

static void printable(char *out, size_t cap, const uint8_t *s, size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < len && k + 5 < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, s[i] >= 0x20 && s[i] < 0x7f &&
				      s[i] != '\\' ? "%c" : "\\x%02x", s[i]);
	out[k] = '\0';
}

int an_sorted_assign(struct an_sorted *o, unsigned alphabet)
{
	uint32_t *idx = NULL;
	size_t i, total = o->nbuf;
	int ret = 0;

	o->alphabet = alphabet && alphabet <= AN_TOKEN_ALPHABET_MAX ? alphabet
								   : AN_TOKEN_ALPHABET_MAX;
	if (!o->n)
		return 0;
	if (!(idx = malloc(o->n * sizeof(*idx))) || buf_room(o, total)) {
		free(idx);
		return -ENOMEM;
	}
	for (i = 0; i < o->n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, o->n, sizeof(*idx), cmp_ent, o);
	for (i = 0; i < o->n && !ret; i++) {
		struct oent *x = &o->v[idx[i]], *p = i ? &o->v[idx[i - 1]] : NULL;

		x->tok = o->nbuf;
		ret = next_token(o, x, p ? o->buf + p->tok : NULL, p ? p->len : 0,
				 o->buf + x->tok);
		o->nbuf += x->len;
		if (ret) {
			char a[160], b[160];

			printable(a, sizeof(a), o->buf + p->off, p->len);
			printable(b, sizeof(b), o->buf + x->off, x->len);
			snprintf(o->errmsg, sizeof(o->errmsg),
				 "no token of %u byte%s for '%s' sorts after the token of '%s': the "
				 "order of the names cannot be kept", x->len, x->len == 1 ? "" : "s",
				 b, a);
		}
	}
	free(idx);
	return ret;
}

int an_sorted_lookup(const struct an_sorted *o, const uint8_t *name, size_t len,
		    const uint8_t **tok)
{
	const struct oent *x = find(o, name, len, hash(name, len));

	if (!x || !o->alphabet)
		return -ENOENT;
	*tok = o->buf + x->tok;
	return 0;
}

uint64_t an_sorted_count(const struct an_sorted *o)
{
	return o->n;
}

const char *an_sorted_errmsg(const struct an_sorted *o)
{
	return o->errmsg;
}
