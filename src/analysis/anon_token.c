/*
 * anon_token.c: keyed, length-keeping, collision-free tokens for the
 * strings of a trace (names, xattr names and values, process names), and
 * the key files they are made with.
 *
 * A token of a string s of length L in domain d is L symbols of the
 * alphabet. Candidate c (c = 0, 1, ...) is expanded from the seed
 * HMAC-SHA256(key, d || c || s): block i of symbols comes from
 * HMAC-SHA256(seed, i), each byte taken as a symbol by rejection sampling
 * (bytes at or above the largest multiple of the alphabet size are passed
 * over), so every symbol is uniform. The first candidate not yet taken in
 * d is the token. Candidate 0 depends on the key and s alone, so the same
 * key gives the same token in any trace unless the 2^-(5.95 L) chance of a
 * clash with another string moved it on. When the count of strings of
 * length L in d reaches alphabet^L, or 1000 candidates in a row are taken,
 * mapping fails: two strings would share a token.
 *
 * HMAC-SHA256 is libcrypto's (Debian's libssl-dev): a reviewed
 * implementation rather than one more in this tree.
 *
 * Not for secrecy of lengths or equality: both are kept on purpose.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include "analysis/anonymize.h"
#include "fstap/log.h"
#include "fstap/util.h"

#define MAX_CANDIDATES 1000
#define COUNTED_LEN 16		/* lengths whose token space may fill up */
#define KEY_FILE_MAX 4096

const char an_symbols[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

struct entry {
	uint8_t dom;
	uint32_t len;
	uint32_t hin, htok;	/* hashes of the string and of its token */
	uint8_t *in, *tok;	/* one allocation: in, then tok */
};

struct an_tokens {
	uint8_t *key;
	size_t keylen;
	unsigned alphabet;
	struct entry *v;
	size_t n, cap;
	uint32_t *by_in, *by_tok;	/* open addressing: entry index + 1, 0 empty */
	size_t slots;			/* a power of two, > 2 n */
	uint64_t count[AN_DOM_NR][COUNTED_LEN + 1];
	uint64_t total[AN_DOM_NR];
	uint8_t *scratch;		/* the HMAC input */
	EVP_MAC *hmac;
	EVP_MAC_CTX *keyed;		/* HMAC-SHA256 under key, set up once */
	EVP_MAC_CTX *expand;		/* HMAC-SHA256 under a name's seed */
	size_t scratch_cap;
	char errmsg[256];
};

static uint32_t hash(enum an_domain dom, const uint8_t *s, size_t len)
{
	return (uint32_t)fstap_hash_bytes((uint64_t)dom, s, len);
}

static int grow_index(struct an_tokens *t)
{
	size_t slots = fstap_grow_size(t->slots, 2 * (t->n + 1) + 1, 1024), i;
	uint32_t *a = calloc(slots, sizeof(*a)), *b = calloc(slots, sizeof(*b));

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++) {
		size_t j = t->v[i].hin & (slots - 1), k = t->v[i].htok & (slots - 1);

		while (a[j])
			j = (j + 1) & (slots - 1);
		a[j] = (uint32_t)(i + 1);
		while (b[k])
			k = (k + 1) & (slots - 1);
		b[k] = (uint32_t)(i + 1);
	}
	free(t->by_in);
	free(t->by_tok);
	t->by_in = a;
	t->by_tok = b;
	t->slots = slots;
	return 0;
}

/* The entry of string (tok false) or token (tok true) s in dom, or NULL. */
static struct entry *find(const struct an_tokens *t, enum an_domain dom, const uint8_t *s,
			  size_t len, uint32_t h, bool tok)
{
	const uint32_t *index = tok ? t->by_tok : t->by_in;
	size_t j;

	if (!t->slots)
		return NULL;
	for (j = h & (t->slots - 1); index[j]; j = (j + 1) & (t->slots - 1)) {
		struct entry *e = &t->v[index[j] - 1];
		const uint8_t *es = tok ? e->tok : e->in;

		if ((tok ? e->htok : e->hin) == h && e->dom == dom && e->len == len &&
		    !memcmp(es, s, len))
			return e;
	}
	return NULL;
}

static int insert(struct an_tokens *t, enum an_domain dom, const uint8_t *in, size_t len,
		  const uint8_t *tok, uint32_t hin, uint32_t htok, struct entry **out)
{
	struct entry *e;
	size_t j;
	int ret;

	if (len > UINT32_MAX || t->n >= UINT32_MAX - 1)
		return -E2BIG;
	if (2 * (t->n + 1) >= t->slots && (ret = grow_index(t)))
		return ret;
	if (FSTAP_GROW(t->v, t->n + 1, t->cap))
		return -ENOMEM;
	e = &t->v[t->n];
	e->in = malloc(2 * len + 1);
	if (!e->in)
		return -ENOMEM;
	memcpy(e->in, in, len);
	e->tok = e->in + len;
	memcpy(e->tok, tok, len);
	e->dom = (uint8_t)dom;
	e->len = (uint32_t)len;
	e->hin = hin;
	e->htok = htok;
	t->n++;
	for (j = hin & (t->slots - 1); t->by_in[j]; j = (j + 1) & (t->slots - 1))
		;
	t->by_in[j] = (uint32_t)t->n;
	for (j = htok & (t->slots - 1); t->by_tok[j]; j = (j + 1) & (t->slots - 1))
		;
	t->by_tok[j] = (uint32_t)t->n;
	if (len <= COUNTED_LEN)
		t->count[dom][len]++;
	t->total[dom]++;
	*out = e;
	return 0;
}

/* Keys ctx as HMAC-SHA256 under key[0..len): 0 or -EIO. */
static int mac_init(EVP_MAC_CTX *ctx, const uint8_t *key, size_t len)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
		OSSL_PARAM_construct_end()
	};

	return EVP_MAC_init(ctx, key, len, params) ? 0 : -EIO;
}

/* HMAC of in[0..len) under ctx's key (set up again, not derived again): 0 or -EIO. */
static int mac(EVP_MAC_CTX *ctx, const uint8_t *in, size_t len, uint8_t *out, unsigned *outlen)
{
	size_t n = 0;

	if (!EVP_MAC_init(ctx, NULL, 0, NULL) || !EVP_MAC_update(ctx, in, len) ||
	    !EVP_MAC_final(ctx, out, &n, EVP_MAX_MD_SIZE))
		return -EIO;
	*outlen = (unsigned)n;
	return 0;
}

int an_tokens_new(struct an_tokens **out, const uint8_t *key, size_t keylen, unsigned alphabet)
{
	struct an_tokens *t;

	*out = NULL;
	if (keylen < AN_KEY_MIN || keylen > KEY_FILE_MAX || alphabet < 2 ||
	    alphabet > AN_TOKEN_ALPHABET_MAX)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->key = malloc(keylen))) {
		free(t);
		return -ENOMEM;
	}
	memcpy(t->key, key, keylen);
	t->keylen = keylen;
	t->alphabet = alphabet;
	if (!(t->hmac = EVP_MAC_fetch(NULL, "HMAC", NULL)) ||
	    !(t->keyed = EVP_MAC_CTX_new(t->hmac)) || !(t->expand = EVP_MAC_CTX_new(t->hmac)) ||
	    mac_init(t->keyed, t->key, keylen)) {
		an_tokens_free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void an_tokens_free(struct an_tokens *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].in);
	free(t->v);
	free(t->by_in);
	free(t->by_tok);
	free(t->scratch);
	EVP_MAC_CTX_free(t->keyed);
	EVP_MAC_CTX_free(t->expand);
	EVP_MAC_free(t->hmac);
	if (t->key)
		memset(t->key, 0, t->keylen);
	free(t->key);
	free(t);
}

/* alphabet^len, saturated at UINT64_MAX. */
static uint64_t space(unsigned alphabet, size_t len)
{
	uint64_t s = 1;

	while (len--) {
		if (s > UINT64_MAX / alphabet)
			return UINT64_MAX;
		s *= alphabet;
	}
	return s;
}

/* Candidate c of in[0..len) in dom, into tok[0..len). */
static int candidate(struct an_tokens *t, enum an_domain dom, uint32_t c, const uint8_t *in,
		     size_t len, uint8_t *tok)
{
	unsigned limit = 256 - 256 % t->alphabet;
	uint8_t seed[EVP_MAX_MD_SIZE], block[EVP_MAX_MD_SIZE];
	unsigned seedlen = 0, blocklen = 0, used = 0;
	uint32_t i = 0;
	size_t k = 0;

	if (len + 5 > t->scratch_cap) {
		size_t cap = len + 5 > 256 ? len + 5 : 256;
		uint8_t *p = realloc(t->scratch, cap);

		if (!p)
			return -ENOMEM;
		t->scratch = p;
		t->scratch_cap = cap;
	}
	t->scratch[0] = (uint8_t)dom;
	t->scratch[1] = (uint8_t)c;
	t->scratch[2] = (uint8_t)(c >> 8);
	t->scratch[3] = (uint8_t)(c >> 16);
	t->scratch[4] = (uint8_t)(c >> 24);
	memcpy(t->scratch + 5, in, len);
	if (mac(t->keyed, t->scratch, len + 5, seed, &seedlen) ||
	    mac_init(t->expand, seed, seedlen))
		return -EIO;
	while (k < len) {
		if (used == blocklen) {
			uint8_t ib[4] = { (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16),
					  (uint8_t)(i >> 24) };

			if (mac(t->expand, ib, sizeof(ib), block, &blocklen))
				return -EIO;
			i++;
			used = 0;
		}
		if (block[used] < limit)
			tok[k++] = (uint8_t)an_symbols[block[used] % t->alphabet];
		used++;
	}
	return 0;
}

static int full(struct an_tokens *t, size_t len, uint64_t n)
{
	snprintf(t->errmsg, sizeof(t->errmsg),
		 "%llu different strings of %zu byte%s would need more than the %llu tokens of "
		 "that length: two would collide",
		 (unsigned long long)n, len, len == 1 ? "" : "s",
		 (unsigned long long)space(t->alphabet, len));
	return -ENOSPC;
}

int an_tokens_map(struct an_tokens *t, enum an_domain dom, const uint8_t *in, size_t len,
		  const uint8_t **tok)
{
	uint32_t hin = hash(dom, in, len), c;
	struct entry *e = find(t, dom, in, len, hin, false);
	uint8_t *cand;
	int ret;

	if (e) {
		*tok = e->tok;
		return 0;
	}
	if (len <= COUNTED_LEN && t->count[dom][len] >= space(t->alphabet, len))
		return full(t, len, t->count[dom][len] + 1);
	cand = malloc(len + 1);
	if (!cand)
		return -ENOMEM;
	for (c = 0; c < MAX_CANDIDATES; c++) {
		uint32_t htok;

		if ((ret = candidate(t, dom, c, in, len, cand)))
			break;
		htok = hash(dom, cand, len);
		if (find(t, dom, cand, len, htok, true))
			continue;
		ret = insert(t, dom, in, len, cand, hin, htok, &e);
		if (!ret)
			*tok = e->tok;
		break;
	}
	if (c == MAX_CANDIDATES)
		ret = full(t, len, (len <= COUNTED_LEN ? t->count[dom][len] : t->total[dom]) + 1);
	free(cand);
	return ret;
}

int an_tokens_reserve(struct an_tokens *t, enum an_domain dom, const uint8_t *in, size_t len)
{
	uint32_t h = hash(dom, in, len);
	struct entry *e = find(t, dom, in, len, h, false);

	if (e)
		return e->len == len && !memcmp(e->tok, in, len) ? 0 : -EEXIST;
	if (find(t, dom, in, len, h, true))
		return -EEXIST;
	return insert(t, dom, in, len, in, h, h, &e);
}

uint64_t an_tokens_count(const struct an_tokens *t, enum an_domain dom)
{
	return t->total[dom];
}

const char *an_tokens_errmsg(const struct an_tokens *t)
{
	return t->errmsg;
}

void an_tokens_key_id(const struct an_tokens *t, char out[17])
{
	static const char what[] = "fstap anonymize key id";
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0, i;

	memset(md, 0, sizeof(md));
	HMAC(EVP_sha256(), t->key, (int)t->keylen, (const uint8_t *)what, sizeof(what) - 1, md,
	     &mdlen);
	for (i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int an_key_read(const char *path, uint8_t **key, size_t *len)
{
	uint8_t *buf = malloc(KEY_FILE_MAX + 1);
	size_t n = 0;
	ssize_t r;
	int fd, ret = 0;

	*key = NULL;
	if (!buf)
		return fstap_error(-ENOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = fstap_error(-errno, "cannot read key file '%s': %s", path, strerror(errno));
		free(buf);
		return ret;
	}
	while (n <= KEY_FILE_MAX && (r = read(fd, buf + n, KEY_FILE_MAX + 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = fstap_error(-errno, "cannot read key file '%s': %s", path,
					  strerror(errno));
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (!ret && n > KEY_FILE_MAX)
		ret = fstap_error(-EINVAL, "key file '%s' is larger than %d bytes: not a key",
				  path, KEY_FILE_MAX);
	else if (!ret && n < AN_KEY_MIN)
		ret = fstap_error(-EINVAL, "key file '%s' holds %zu bytes; a key has at least %d "
				  "(make one with --new-key)", path, n, AN_KEY_MIN);
	if (ret) {
		memset(buf, 0, KEY_FILE_MAX + 1);
		free(buf);
		return ret;
	}
	*key = buf;
	*len = n;
	return 0;
}

int an_key_create(const char *path)
{
	uint8_t key[AN_KEY_NEW];
	size_t n = 0;
	int fd, ret = 0;

	while (n < sizeof(key)) {
		ssize_t r = getrandom(key + n, sizeof(key) - n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fstap_error(-errno, "cannot make a key: getrandom: %s", strerror(errno));
		n += (size_t)r;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ret = -errno;
		memset(key, 0, sizeof(key));
		if (ret == -EEXIST)
			return fstap_error(ret, "key file '%s' exists: not overwritten", path);
		return fstap_error(ret, "cannot create key file '%s': %s", path, strerror(-ret));
	}
	if (fchmod(fd, 0600) || write(fd, key, sizeof(key)) != (ssize_t)sizeof(key) ||
	    fsync(fd))
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	memset(key, 0, sizeof(key));
	if (ret) {
		unlink(path);
		return fstap_error(ret, "cannot write key file '%s': %s", path, strerror(-ret));
	}
	return 0;
}
