/*
 * raid5.c: the raid5 model of `fstap disk` (disk.h): `members` devices of
 * one member model (hdd or ssd, with its parameters), striped in chunks of
 * `chunk` bytes with rotating parity in the left-symmetric layout (Linux
 * md's default): in stripe s of N members the parity is on member
 * N-1 - (s mod N) and the stripe's data chunks follow it, wrapping round.
 *
 * A read reads its chunks from their members. A write that covers every
 * data chunk of a stripe writes them and the parity (computed from the new
 * data): no read. A write that covers part of a stripe is a
 * read-modify-write: it reads the old data of what it changes and the old
 * parity of the same range, then writes the new data and the new parity,
 * the writes waiting for the reads: a 4 KiB write costs 2 reads and 2
 * writes. (md may choose a reconstruct-write, reading the untouched chunks
 * instead, when that reads less; this model always reads-modify-writes.)
 * A flush flushes every member. A request completes with its last member
 * operation.
 */
#include <errno.h>
#include <stdlib.h>

#include "disk/disk.h"

struct disk_raid5 {
	unsigned n;
	uint64_t chunk;
	struct disk_model *member[DISK_MAX_MEMBERS];
};

void disk_raid5_map(unsigned n, uint64_t chunk, uint64_t off, struct disk_raid5_place *pl)
{
	uint64_t c = off / chunk;	/* data chunk number */
	unsigned k = (unsigned)(c % (n - 1));

	pl->stripe = c / (n - 1);
	pl->parity = n - 1 - (unsigned)(pl->stripe % n);
	pl->disk = (pl->parity + 1 + k) % n;
	pl->member_off = pl->stripe * chunk + off % chunk;
}

int disk_raid5_new(const struct disk_params *p, struct disk_raid5 **out)
{
	struct disk_raid5 *r = calloc(1, sizeof(*r));
	struct disk_params mp = *p;
	unsigned i;

	if (!r)
		return -ENOMEM;
	r->n = p->raid5.members;
	r->chunk = p->raid5.chunk;
	mp.kind = p->raid5.member;
	for (i = 0; i < r->n; i++)
		if (disk_model_new(&mp, &r->member[i]) < 0) {
			disk_raid5_free(r);
			return -ENOMEM;
		}
	*out = r;
	return 0;
}

void disk_raid5_free(struct disk_raid5 *r)
{
	unsigned i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		disk_model_free(r->member[i]);
	free(r);
}

static uint64_t later(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t member_op(struct disk_raid5 *r, struct disk_stats *st, unsigned d,
			  enum disk_op op, uint64_t off, uint64_t len, uint64_t now)
{
	if (op == DISK_READ)
		st->member_reads++;
	else if (op == DISK_WRITE)
		st->member_writes++;
	return disk_model_submit(r->member[d], op, off, len, now);
}

/* The part [off, off+len) of one stripe; its completion. */
static uint64_t stripe_op(struct disk_raid5 *r, struct disk_stats *st, enum disk_op op,
			  uint64_t off, uint64_t len, uint64_t now)
{
	uint64_t data = r->chunk * (r->n - 1), end = off + len, done = now, ready = now;
	uint64_t plo = UINT64_MAX, phi = 0, o;
	struct disk_raid5_place pl;

	disk_raid5_map(r->n, r->chunk, off, &pl);
	if (op == DISK_WRITE && off % data == 0 && len == data) {
		st->full_stripe_writes++;
		for (o = off; o < end; o += r->chunk) {
			disk_raid5_map(r->n, r->chunk, o, &pl);
			done = later(done, member_op(r, st, pl.disk, DISK_WRITE, pl.member_off,
						     r->chunk, now));
		}
		return later(done, member_op(r, st, pl.parity, DISK_WRITE, pl.stripe * r->chunk,
					     r->chunk, now));
	}
	if (op == DISK_WRITE)
		st->rmw_stripes++;
	/* the chunk pieces; for a write, the old data and parity first */
	for (o = off; o < end;) {
		uint64_t n = r->chunk - o % r->chunk;

		n = n < end - o ? n : end - o;
		disk_raid5_map(r->n, r->chunk, o, &pl);
		ready = later(ready, member_op(r, st, pl.disk, DISK_READ, pl.member_off, n, now));
		if (o % r->chunk < plo)
			plo = o % r->chunk;
		if (o % r->chunk + n > phi)
			phi = o % r->chunk + n;
		o += n;
	}
	if (op == DISK_READ)
		return ready;
	ready = later(ready, member_op(r, st, pl.parity, DISK_READ, pl.stripe * r->chunk + plo,
				       phi - plo, now));
	for (o = off; o < end;) {
		uint64_t n = r->chunk - o % r->chunk;

		n = n < end - o ? n : end - o;
		disk_raid5_map(r->n, r->chunk, o, &pl);
		done = later(done, member_op(r, st, pl.disk, DISK_WRITE, pl.member_off, n, ready));
		o += n;
	}
	return later(done, member_op(r, st, pl.parity, DISK_WRITE, pl.stripe * r->chunk + plo,
				     phi - plo, ready));
}

/* The members' seeks, hits and busy time, summed into the volume's. */
static void sum_members(const struct disk_raid5 *r, struct disk_stats *st)
{
	unsigned i;

	st->seeks = st->seek_cylinders = st->cache_hits = st->busy_ns = 0;
	for (i = 0; i < r->n; i++) {
		const struct disk_stats *m = disk_model_stats(r->member[i]);

		st->seeks += m->seeks;
		st->seek_cylinders += m->seek_cylinders;
		st->cache_hits += m->cache_hits;
		st->busy_ns += m->busy_ns;
	}
}

uint64_t disk_raid5_submit(struct disk_raid5 *r, enum disk_op op, uint64_t off, uint64_t len,
			   uint64_t now, struct disk_stats *st)
{
	uint64_t data = r->chunk * (r->n - 1), done = now, end = off + len;
	unsigned i;

	if (op == DISK_FLUSH) {
		for (i = 0; i < r->n; i++)
			done = later(done, member_op(r, st, i, DISK_FLUSH, 0, 0, now));
	} else {
		while (off < end) {
			uint64_t n = data - off % data;

			n = n < end - off ? n : end - off;
			done = later(done, stripe_op(r, st, op, off, n, now));
			off += n;
		}
	}
	sum_members(r, st);
	return done;
}
