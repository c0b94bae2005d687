/*
 * anonymize.h: keyed anonymization of traces (fstap anonymize).
 *
 * Two layers. an_tokens (anon_token.c) turns byte strings into keyed
 * tokens of the same length: the first candidate is HMAC-SHA256 of the
 * string under the user's key, so the same key gives the same tokens in
 * every trace; a candidate already taken by another string of the same
 * kind is passed over for the next one (a counter in the HMAC input), so
 * two different strings never get one token. When every token of a length
 * is taken the mapping fails with -ENOSPC: a collision is an error, never a
 * merge. an_anonymize (anonymize.c) streams a trace through the tokens,
 * record by record, and writes the anonymized trace.
 *
 * Not for hiding the workload's shape: sizes, offsets, times, name lengths,
 * the tree's structure and which names are equal all stay (docs/sharing.md).
 */
#ifndef FSTAP_AN_ANONYMIZE_H
#define FSTAP_AN_ANONYMIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fstap/trace.h"

/* ---- keyed tokens (anon_token.c) ---------------------------------------- */

#define AN_ID_BASE 10000		/* --map-ids: the first id given */
#define AN_KEY_MIN 16			/* bytes of key at least */
#define AN_KEY_NEW 32			/* bytes of a key made by an_key_create */
#define AN_TOKEN_ALPHABET_MAX 62	/* 0-9 A-Z a-z */

/* The token symbols, 0-9 A-Z a-z: AN_TOKEN_ALPHABET_MAX bytes, ascending. */
extern const char an_symbols[];

/* The kinds of strings, each its own token space (domain of the HMAC). */
enum an_domain {
	AN_DOM_NAME,		/* file name stems, symlink target components */
	AN_DOM_XATTR,		/* xattr names after their namespace */
	AN_DOM_VALUE,		/* xattr values */
	AN_DOM_COMM,		/* process names */
	AN_DOM_NR
};

struct an_tokens;

/*
 * A token table under key[0..keylen) (at least AN_KEY_MIN bytes), with the
 * first `alphabet` symbols of 0-9A-Za-z (2..62; 62 but in tests, which use
 * a tiny space to force collisions). 0, -EINVAL, -ENOMEM.
 */
int an_tokens_new(struct an_tokens **out, const uint8_t *key, size_t keylen,
		  unsigned alphabet);
void an_tokens_free(struct an_tokens *t);
/*
 * The token of in[0..len) in domain dom: *tok (len bytes, owned by t, valid
 * until an_tokens_free). 0; -ENOSPC when every token of that length is
 * taken by other strings of dom (details in an_tokens_errmsg); -ENOMEM.
 */
int an_tokens_map(struct an_tokens *t, enum an_domain dom, const uint8_t *in,
		  size_t len, const uint8_t **tok);
/* Makes in its own token in dom (a name kept as it is): 0, -EEXIST if taken. */
int an_tokens_reserve(struct an_tokens *t, enum an_domain dom, const uint8_t *in,
		      size_t len);
/* Distinct strings mapped in dom so far. */
uint64_t an_tokens_count(const struct an_tokens *t, enum an_domain dom);
/* Why the last call failed. */
const char *an_tokens_errmsg(const struct an_tokens *t);
/* 16 hex digits that name the key without revealing it (an HMAC of a constant). */
void an_tokens_key_id(const struct an_tokens *t, char out[17]);

/*
 * Reads a key file (AN_KEY_MIN bytes at least, 4 KiB at most): 0 and
 * *key (malloc'd) and *len, or -errno with the error printed.
 */
int an_key_read(const char *path, uint8_t **key, size_t *len);
/*
 * Makes a new key file of AN_KEY_NEW random bytes (getrandom), mode 0600;
 * refuses a path that exists (-EEXIST). Prints its error.
 */
int an_key_create(const char *path);

/* ---- order-keeping name tokens, --keep-order (anon_sorted.c) ------------- */

struct an_sorted;

int an_sorted_new(struct an_sorted **out);
void an_sorted_free(struct an_sorted *o);
/*
 * Adds name[0..len) (once, however often it is added); its token will keep
 * name[0..s) and name[e..len) and replace the rest; s == e: the name is its
 * own token. 0, -E2BIG, -ENOMEM.
 */
int an_sorted_add(struct an_sorted *o, const uint8_t *name, size_t len, size_t s, size_t e);
/*
 * Gives every name added a token, in the names' order, of the first
 * `alphabet` symbols (0: all 62): 0, -ENOMEM, or -ENOSPC when the order
 * cannot be kept (why in an_sorted_errmsg).
 */
int an_sorted_assign(struct an_sorted *o, unsigned alphabet);
/* The token of a name added before an_sorted_assign: 0 and *tok, or -ENOENT. */
int an_sorted_lookup(const struct an_sorted *o, const uint8_t *name, size_t len,
		    const uint8_t **tok);
uint64_t an_sorted_count(const struct an_sorted *o);
const char *an_sorted_errmsg(const struct an_sorted *o);

/* ---- the trace (anonymize.c) -------------------------------------------- */

struct an_anon_opts {
	const uint8_t *key;	size_t keylen;
	bool keep_extensions;	/* keep ".ext" (up to 8 letters or digits) */
	bool keep_comm;		/* keep process names */
	bool map_ids;		/* uids and gids but 0 renumbered from AN_ID_BASE */
	bool keep_order;	/* name tokens in the names' order (anon_sorted.c) */
	const char *const *keep_names;	size_t nkeep_names;	/* besides ., .., lost+found */
	unsigned alphabet;	/* 0: 62 (tests set fewer) */
	const char *key_file;	/* an input the output must not be */
};

struct an_anon_stats {
	uint64_t records;	/* records written */
	uint64_t names, xattr_names, values, comms;	/* distinct strings mapped */
};

/* Writes the anonymized TRACE in to out (a safe output). 0 or -errno, printed. */
int an_anonymize(const char *in, const char *out, const struct an_anon_opts *o,
		 struct an_anon_stats *st);

#endif
