/*
 * rmap.c: small pieces of plumbing for the replay engine.
 *
 *  - struct rp_map: uint64 -> uint64, open addressing with linear probing
 *    and backward-shift deletion (no tombstones, so a map of live handles
 *    stays as small as the live set). Key 0 marks an empty slot. Not
 *    thread-safe: each user names its lock.
 *  - races in the recording: per object, the latest recorded ends of its
 *    operations, to tell a result that differs because the recording had
 *    two threads racing on an object from a divergence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_i.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

void rp_map_init(struct rp_map *m)
{
	memset(m, 0, sizeof(*m));
}

void rp_map_release(struct rp_map *m)
{
	free(m->keys);
	free(m->vals);
	rp_map_init(m);
}

static size_t slot_of(const struct rp_map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i = mix(key) & mask;

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

uint64_t *rp_map_get(const struct rp_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	i = slot_of(m, key);
	return m->keys[i] ? &m->vals[i] : NULL;
}

static int grow(struct rp_map *m)
{
	struct rp_map n;
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
			size_t j = slot_of(&n, m->keys[i]);

			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
		}
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int rp_map_put(struct rp_map *m, uint64_t key, uint64_t val)
{
	size_t i;

	if (!key)
		return -EINVAL;
	if (2 * (m->n + 1) > m->cap && grow(m))
		return -ENOMEM;
	i = slot_of(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

bool rp_map_del(struct rp_map *m, uint64_t key, uint64_t *val)
{
	size_t mask, i, j;

	if (!m->cap || !key)
		return false;
	mask = m->cap - 1;
	i = slot_of(m, key);
	if (!m->keys[i])
		return false;
	if (val)
		*val = m->vals[i];
	m->keys[i] = 0;
	m->n--;
	/* Backward shift: move later members of the run into the hole. */
	for (j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		size_t home = mix(m->keys[j]) & mask;

		/* Move j to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = 0;
			i = j;
		}
	}
	return true;
}

/* ---- races in the recording ------------------------------------------------ */

struct obj_ends {
	uint64_t mod_end, any_end;	/* latest recorded ends: of a change, of any op */
	uint32_t mod_tid, any_tid;
};

/* Operations that change their object (for entry operations, the directory). */
static bool op_changes(unsigned op)
{
	switch (op) {
	case FSTAP_OP_SETATTR: case FSTAP_OP_WRITE: case FSTAP_OP_FALLOCATE:
	case FSTAP_OP_COPY_FILE_RANGE: case FSTAP_OP_SETXATTR: case FSTAP_OP_REMOVEXATTR:
	case FSTAP_OP_CREATE: case FSTAP_OP_MKNOD: case FSTAP_OP_MKDIR: case FSTAP_OP_SYMLINK:
	case FSTAP_OP_LINK: case FSTAP_OP_UNLINK: case FSTAP_OP_RMDIR: case FSTAP_OP_RENAME:
		return true;
	default:
		return false;
	}
}

int rp_race_check(struct rp_map *races, const struct fstap_rec *rec, bool *raced)
{
	uint64_t start = rec->start_ns, end = start + rec->dur_ns, *v;
	bool changes = op_changes(rec->op);
	struct obj_ends *e;

	*raced = false;
	if (!rec->obj)
		return 0;
	v = rp_map_get(races, rec->obj);
	if (v) {
		e = (struct obj_ends *)(uintptr_t)*v;
	} else {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		if (rp_map_put(races, rec->obj, (uint64_t)(uintptr_t)e)) {
			free(e);
			return -ENOMEM;
		}
	}
	*raced = (e->mod_end > start && e->mod_tid != rec->tid) ||
		 (changes && e->any_end > start && e->any_tid != rec->tid);
	if (changes && end >= e->mod_end) {
		e->mod_end = end;
		e->mod_tid = rec->tid;
	}
	if (end >= e->any_end) {
		e->any_end = end;
		e->any_tid = rec->tid;
	}
	return 0;
}

void rp_races_release(struct rp_map *races)
{
	size_t i;

	for (i = 0; i < races->cap; i++)
		if (races->keys[i])
			free((struct obj_ends *)(uintptr_t)races->vals[i]);
	rp_map_release(races);
}
