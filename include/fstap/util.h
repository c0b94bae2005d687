/*
 * util.h: the small pieces every part of fstap shares: the length of an
 * array, growing an array's capacity, saturating addition, the clocks and
 * deadlines, a 64-bit hash and a map from 64-bit keys to 64-bit values (or
 * pointers).
 */
#ifndef FSTAP_UTIL_H
#define FSTAP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The capacity that holds need elements, growing from cap by doubling
 * (from first when cap is 0); cap itself if it holds them already; 0 if
 * it would overflow a size_t. For a buffer that fstap_grow cannot make
 * (aligned, or filled in a special way) and for a first size of its own.
 */
size_t fstap_grow_size(size_t cap, size_t need, size_t first);
/*
 * Makes room for at least need elements of size elem in the array *pp of
 * capacity *cap (both updated): the capacity doubles from 16. pp is the
 * address of the array pointer. 0, or -ENOMEM with the array unchanged.
 */
int fstap_grow(void *pp, size_t *cap, size_t need, size_t elem);
/* FSTAP_GROW(arr, need, cap): fstap_grow for an array and its size_t capacity. */
#define FSTAP_GROW(arr, need, cap) fstap_grow(&(arr), &(cap), (need), sizeof(*(arr)))

/* a + b, or UINT64_MAX if that overflows. */
static inline uint64_t fstap_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* CLOCK_MONOTONIC in nanoseconds (inline: the replay reads it around every operation). */
static inline uint64_t fstap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME in nanoseconds since the epoch. */
static inline uint64_t fstap_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleeps until fstap_now_ns() reaches t (at once if it has). */
void fstap_sleep_until_ns(uint64_t t);

/*
 * The CLOCK_REALTIME time ms milliseconds from now, in *ts: the deadline
 * of a pthread_cond_timedwait or sem_timedwait.
 */
void fstap_deadline_ms(struct timespec *ts, unsigned long ms);

/* A timestamp (st_mtim...) in nanoseconds since the epoch, negative before it. */
static inline int64_t fstap_timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

/* Mixes the bits of x so that any subset of the result is well spread. */
static inline uint64_t fstap_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/*
 * splitmix64: the next number of the sequence that *state holds (a seed to
 * start), well mixed: for shuffles and seeded orders, not for secrets.
 */
static inline uint64_t fstap_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Fills n words at buf with the xorshift64* sequence from *state (nonzero,
 * updated): fast, incompressible and no two blocks alike, for the data
 * that prepare and replay write.
 */
void fstap_fill_random(uint64_t *buf, size_t n, uint64_t *state);

/*
 * The home slot of id in a table of mask + 1 slots (a power of two): ids
 * that differ in their low 4 bits only (a trace numbers objects, handles
 * and threads as it meets them) share 16 neighbouring slots, so that
 * neighbours share cache lines; the rest of the id is hashed, so that a
 * hostile set of ids still spreads (at most 16 share a hashed home).
 */
static inline size_t fstap_id_home(uint64_t id, size_t mask)
{
	return ((fstap_hash64(id >> 4) << 4) | (id & 15)) & mask;
}

/*
 * The probe step from a home of fstap_id_home: 17, one block of 16 slots
 * on and one slot more, so that the ids whose home block another block's
 * ids hold go on together into the next block (one probe more), not
 * behind the 16 of them one by one; odd, so that probing visits every
 * slot of a table of 2^k slots. FSTAP_ID_STEP_INV is its inverse modulo
 * 2^64 (fstap_id_dist).
 */
#define FSTAP_ID_STEP 17u
#define FSTAP_ID_STEP_INV 0xf0f0f0f0f0f0f0f1ull
_Static_assert((uint64_t)(FSTAP_ID_STEP * FSTAP_ID_STEP_INV) == 1, "FSTAP_ID_STEP_INV");

/* How many probes from slot a reach slot b (mask + 1 slots, a power of two). */
static inline size_t fstap_id_dist(size_t a, size_t b, size_t mask)
{
	return (size_t)(((uint64_t)(b - a) * FSTAP_ID_STEP_INV) & mask);
}

/* Unaligned little loads of 8 and 4 bytes (memcpy: one instruction each). */
static inline uint64_t fstap_load64(const void *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline uint32_t fstap_load32(const void *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, 4);
	return v;
}

/*
 * The hash of len bytes at p, seeded (a directory's id, for example).
 * Names are mostly short file names: the last (or only) 1 to 8 bytes are
 * read with at most two loads that may overlap and together cover every
 * byte, so that a short name costs a few instructions instead of a
 * multiply per byte. Inline: the recorder hashes every name it encodes,
 * the path map every name it looks up.
 */
static inline uint64_t fstap_hash_bytes(uint64_t seed, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t h = fstap_hash64(seed) ^ (uint64_t)len * 0x9e3779b97f4a7c15ULL, w;

	if (len > 8) {
		const uint8_t *end = p + len - 8;

		for (; p < end; p += 8) {
			h = (h ^ fstap_load64(p)) * 0xff51afd7ed558ccdULL;
			h ^= h >> 32;
		}
		w = fstap_load64(end);
	} else if (len >= 4) {
		w = fstap_load32(p) | (uint64_t)fstap_load32(p + len - 4) << 32;
	} else if (len > 0) {
		w = p[0] | (uint64_t)p[len / 2] << 8 | (uint64_t)p[len - 1] << 16;
	} else {
		w = 0;
	}
	return fstap_hash64(h ^ w);
}

/*
 * A map from nonzero uint64 keys to uint64 values: open addressing with
 * linear probing and backward-shift deletion (no tombstones, so a map of
 * live entries stays as small as the live set). Zero-initialised (or
 * fstap_map_init) is empty. Not thread-safe: each user names its lock.
 */
struct fstap_map {
	uint64_t *keys;		/* 0: an empty slot */
	uint64_t *vals;
	size_t n, cap;		/* cap: 0 or a power of two, at least 2 * n */
};

void fstap_map_init(struct fstap_map *m);

/* The slot of key: its own, or the empty one where it would go (cap > 0). */
static inline size_t fstap_map_slot(const struct fstap_map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i = fstap_id_home(key, mask);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + FSTAP_ID_STEP) & mask;
	return i;
}

/* Frees the map's tables (not what its values point to); it is empty again. */
void fstap_map_release(struct fstap_map *m);
/*
 * The value of key (stable until the next put or del), or NULL. Inline:
 * the replay looks up several maps per record.
 */
static inline uint64_t *fstap_map_get(const struct fstap_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	i = fstap_map_slot(m, key);
	return m->keys[i] ? &m->vals[i] : NULL;
}
/*
 * Starts fetching the home slot of key into the cache: a caller about to
 * look up many random keys prefetches them all first, so that the misses
 * overlap instead of following each other.
 */
static inline void fstap_map_prefetch(const struct fstap_map *m, uint64_t key)
{
	if (m->cap) {
		size_t i = fstap_id_home(key, m->cap - 1);

		__builtin_prefetch(&m->keys[i]);
		__builtin_prefetch(&m->vals[i]);
	}
}
/* Sets key's value. 0, -EINVAL for key 0, -ENOMEM. */
int fstap_map_put(struct fstap_map *m, uint64_t key, uint64_t val);
/* Removes key; its value in *val if val. False if it was not there. */
bool fstap_map_del(struct fstap_map *m, uint64_t key, uint64_t *val);
/*
 * Iterates: from *pos = 0, the next entry in slot order (key and value in
 * *key and *val), true until none is left. No put or del in between.
 */
bool fstap_map_next(const struct fstap_map *m, size_t *pos, uint64_t *key, uint64_t *val);

/* The same map with pointer values. */
static inline void *fstap_map_get_ptr(const struct fstap_map *m, uint64_t key)
{
	uint64_t *v = fstap_map_get(m, key);

	return v ? (void *)(uintptr_t)*v : NULL;
}

static inline int fstap_map_put_ptr(struct fstap_map *m, uint64_t key, void *p)
{
	return fstap_map_put(m, key, (uint64_t)(uintptr_t)p);
}

#endif
