/*
 * disk.h: the modeled block device of `fstap disk` (src/disk/). model.c is
 * the pure arithmetic: given a request (read, write or flush of a byte
 * range, arriving at a time), when the modeled device completes it, and
 * what the device did (seeks, cache hits, busy time). daemon.c serves an
 * image file through FUSE and replies to each request when the model says.
 *
 * Times are nanoseconds on one clock (the daemon's CLOCK_MONOTONIC; the
 * unit tests choose their own). The model is not thread-safe: the daemon
 * holds a lock around disk_model_submit.
 *
 * Not a public API: only src/disk/, src/cli/cmd-disk.c and its tests.
 */
#ifndef FSTAP_DISK_H
#define FSTAP_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum disk_kind { DISK_NONE, DISK_HDD, DISK_SSD, DISK_RAID5 };
enum disk_op { DISK_READ, DISK_WRITE, DISK_FLUSH, DISK_NOPS };

#define DISK_MAX_ZONES 64
#define DISK_MAX_SEGMENTS 64
#define DISK_MAX_CHANNELS 64
#define DISK_MAX_MEMBERS 16
#define DISK_QD_BUCKETS 8	/* queue depth 1, 2, 3-4, 5-8, ..., 65+ */

/* A spinning disk; the defaults are in model.c with their source. */
struct disk_hdd_params {
	double rpm;
	double seek_t2t_ms;	/* one cylinder */
	double seek_avg_ms;	/* a third of the stroke */
	double seek_full_ms;	/* the whole stroke */
	uint64_t cylinders;
	unsigned zones;		/* equal numbers of cylinders, outer first */
	double outer_mbps;	/* media rate of the outermost zone, MB/s (10^6) */
	double inner_mbps;	/* of the innermost zone */
	double iface_mbps;	/* host interface: a cache hit costs len at this rate */
	uint64_t capacity;	/* bytes of the whole disk */
	uint64_t offset;	/* where the image starts on it */
	uint64_t readahead;	/* bytes read ahead past a request, while idle */
	unsigned segments;	/* read cache segments (LRU) */
	bool wce;		/* write cache on: a write completes once cached */
	uint64_t write_cache;	/* bytes of dirty data the cache holds */
	double flush_ms;	/* a flush with the write cache on, beyond destaging */
};

/* A solid-state disk: base latency by direction plus bytes at a rate. */
struct disk_ssd_params {
	double read_us, write_us;	/* per request, before the transfer */
	double read_mbps, write_mbps;	/* transfer, shared by the channels */
	unsigned channels;		/* requests in flash at once */
	double flush_us;
};

/* RAID 5 over members of one model (the hdd or ssd parameters above). */
struct disk_raid5_params {
	unsigned members;
	uint64_t chunk;			/* stripe unit, bytes */
	enum disk_kind member;		/* DISK_HDD or DISK_SSD */
};

struct disk_params {
	enum disk_kind kind;
	struct disk_hdd_params hdd;
	struct disk_ssd_params ssd;
	struct disk_raid5_params raid5;
};

/* What the model did (the daemon adds the queue depths it saw). */
struct disk_stats {
	uint64_t requests[DISK_NOPS];
	uint64_t bytes[DISK_NOPS];
	uint64_t seeks;			/* media accesses that moved the head */
	uint64_t seek_cylinders;	/* total distance */
	uint64_t cache_hits;		/* reads served from the read cache */
	uint64_t busy_ns;		/* time the device was serving */
	uint64_t qd[DISK_QD_BUCKETS];	/* requests by queue depth at arrival */
	/* raid5: seeks, hits and busy time above are the members' sums */
	uint64_t member_reads, member_writes;
	uint64_t full_stripe_writes;	/* stripes written whole: no read */
	uint64_t rmw_stripes;		/* stripes written in part: read-modify-write */
};

struct disk_model;

/* The defaults of a model kind: "none", "hdd" or "ssd". 0 or -EINVAL. */
int disk_params_defaults(const char *kind, struct disk_params *p);
/*
 * Parses MODEL[,KEY=VALUE...] (the --model argument) into p. On a bad
 * spec, -EINVAL and a message naming the problem in err.
 */
int disk_params_parse(const char *spec, struct disk_params *p, char *err, size_t errlen);
const char *disk_kind_name(enum disk_kind k);

int disk_model_new(const struct disk_params *p, struct disk_model **out);
void disk_model_free(struct disk_model *m);
/*
 * The request op on [off, off+len) of the image arrives at now_ns: returns
 * when the device completes it, and counts it in the statistics.
 */
uint64_t disk_model_submit(struct disk_model *m, enum disk_op op, uint64_t off, uint64_t len,
			   uint64_t now_ns);
/* Counts a request that found depth requests (itself included) in the device. */
void disk_model_count_depth(struct disk_model *m, unsigned depth);
const struct disk_stats *disk_model_stats(const struct disk_model *m);
const struct disk_params *disk_model_params(const struct disk_model *m);

/* The parts of the hdd arithmetic, exposed for the unit tests. */
double disk_hdd_seek_ns(const struct disk_model *m, uint64_t cylinders);
double disk_hdd_rotation_ns(const struct disk_model *m);	/* half a revolution */
unsigned disk_hdd_zone(const struct disk_model *m, uint64_t disk_byte);
double disk_hdd_rate(const struct disk_model *m, unsigned zone);	/* bytes/s */
uint64_t disk_hdd_cylinder(const struct disk_model *m, uint64_t disk_byte);

/* Where byte off of a RAID 5 volume lives (left-symmetric layout). */
struct disk_raid5_place {
	uint64_t stripe;	/* row of chunks */
	unsigned disk;		/* member holding the byte */
	unsigned parity;	/* member holding the stripe's parity */
	uint64_t member_off;	/* the byte's offset on that member */
};
void disk_raid5_map(unsigned members, uint64_t chunk, uint64_t off, struct disk_raid5_place *pl);

/* model.c's RAID 5 (raid5.c): members of the member model, requests split. */
struct disk_raid5;
int disk_raid5_new(const struct disk_params *p, struct disk_raid5 **out);
void disk_raid5_free(struct disk_raid5 *r);
uint64_t disk_raid5_submit(struct disk_raid5 *r, enum disk_op op, uint64_t off, uint64_t len,
			   uint64_t now, struct disk_stats *st);

/* The queue-depth bucket of a depth (1 -> 0, 2 -> 1, 3-4 -> 2, ...). */
unsigned disk_qd_bucket(unsigned depth);

#endif
