/*
 * model.c: the arithmetic of the modeled devices of `fstap disk` (disk.h):
 * when a request completes, given the device's state, and what it cost.
 *
 * hdd. One head assembly with a clock of when it is next free; requests
 * are served one at a time in arrival order (no command reordering). A
 * media access costs
 *   seek(d) + rotation + len / rate(zone)
 * where d is the distance in cylinders from the head's position and
 * seek(d) = a + b*sqrt(d) + c*d for d >= 1 (0 for d = 0), the curve through
 * the datasheet's track-to-track (d = 1), average (d = stroke/3) and full
 * stroke (d = stroke) times. Rotation is the expected half revolution,
 * except for an access that starts where the head is (the next sector
 * passes under it now): no seek, no rotation. The cylinders are split
 * into equal zones whose media rate falls linearly from the outer to the
 * inner one; a cylinder holds bytes in proportion to its zone's rate, so
 * the outer zones hold more of the capacity. The image starts at byte
 * `offset` of the disk (0: the outer edge, as a first partition).
 *
 * Read cache: after a media read the head goes on reading ahead, up to
 * `readahead` bytes, while the device is idle; the next request stops it.
 * A read inside a cached segment (LRU, `segments` of them) is a hit and
 * costs its length at the interface rate; a read that begins inside the
 * segment being read ahead costs only the part past it. Writes drop the
 * segments they overlap.
 *
 * Write cache (wce=1): a write still occupies the head (it is destaged in
 * order), but it completes once it is in the cache: at the interface
 * transfer, or, when more than `write_cache` bytes' worth of destaging is
 * ahead of it, when enough has drained. A flush waits for every destage
 * and then costs flush_ms. With wce=0 a write completes when it is on the
 * media and a flush costs nothing more.
 *
 * Defaults: the Seagate Barracuda 7200.12 (ST31000528AS, 1 TB, 7 200 rpm,
 * SATA 3 Gb/s, 32 MB cache), product manual 100529369: track-to-track seek
 * (read) under 1.0 ms, average seek (read) under 8.5 ms, average latency
 * 4.16 ms, maximum sustained rate 125 MB/s. The manual gives no full-stroke
 * time, inner-zone rate or cylinder count: 17 ms (twice the average),
 * 62.5 MB/s (half the outer rate), 16 zones and 100 000 cylinders are
 * assumptions of this model, as are the 256 KiB read-ahead, 16 segments,
 * 16 MiB of write cache and a 1 ms flush.
 *
 * ssd. `channels` flash units, each with its own clock; a request takes the
 * unit free first and costs read_us or write_us there, then its bytes at the
 * direction's rate on the one shared transfer path. Defaults: Samsung 860
 * EVO data sheet (MZ-76E, rev. 1.0, 2018): 550 MB/s sequential read,
 * 520 MB/s write, 4 KiB random QD1 10 000 IOPS read and 42 000 IOPS write
 * (92 us and 16 us of latency once the 4 KiB transfer is taken out), an
 * 8-channel controller; the 0.5 ms flush is an assumption.
 *
 * none. Every request completes when it arrives.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk/disk.h"
#include "fstap/util.h"

/* A segment holds at most this much: 32 MB of cache in 16 segments. */
#define SEGMENT_MAX (2ull * 1024 * 1024)

struct hdd_segment {
	uint64_t start, end;	/* disk bytes */
	uint64_t used;		/* LRU stamp */
};

struct hdd_state {
	double seek_a, seek_b, seek_c;	/* ns, ns/sqrt(cyl), ns/cyl */
	double rate[DISK_MAX_ZONES];	/* bytes/s */
	uint64_t zone_start[DISK_MAX_ZONES + 1];	/* first disk byte of each zone */
	double cyl_bytes[DISK_MAX_ZONES];
	uint64_t zone_cyls;
	uint64_t head;			/* disk byte under the head */
	struct hdd_segment seg[DISK_MAX_SEGMENTS];
	int ra_seg;			/* the segment being read ahead, -1 if none */
	uint64_t ra_time, ra_limit;	/* it started at ra_time, stops at ra_limit */
	uint64_t stamp;
};

struct disk_model {
	struct disk_params p;
	struct disk_stats st;
	uint64_t free_ns;			/* hdd: head free; ssd: transfer path free */
	uint64_t chan_free[DISK_MAX_CHANNELS];	/* ssd */
	struct hdd_state h;
	struct disk_raid5 *raid;		/* raid5 */
};

/* ---- parameters --------------------------------------------------------- */

static const struct disk_hdd_params hdd_defaults = {
	.rpm = 7200, .seek_t2t_ms = 1.0, .seek_avg_ms = 8.5, .seek_full_ms = 17.0,
	.cylinders = 100000, .zones = 16, .outer_mbps = 125, .inner_mbps = 62.5,
	.iface_mbps = 300, .capacity = 1000204886016ull, .offset = 0,
	.readahead = 256 * 1024, .segments = 16, .wce = true,
	.write_cache = 16 * 1024 * 1024, .flush_ms = 1.0,
};

static const struct disk_ssd_params ssd_defaults = {
	.read_us = 92, .write_us = 16, .read_mbps = 550, .write_mbps = 520,
	.channels = 8, .flush_us = 500,
};

static const char *const kind_names[] = { "none", "hdd", "ssd", "raid5" };

const char *disk_kind_name(enum disk_kind k)
{
	return (unsigned)k < ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

int disk_params_defaults(const char *kind, struct disk_params *p)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	p->hdd = hdd_defaults;
	p->ssd = ssd_defaults;
	p->raid5.members = 4;
	p->raid5.chunk = 64 * 1024;
	p->raid5.member = DISK_HDD;
	for (i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(kind, kind_names[i])) {
			p->kind = (enum disk_kind)i;
			return 0;
		}
	return -EINVAL;
}

/* A size with an optional K/M/G/T suffix (powers of 1024). */
static int parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	int shift = 0;

	if (end == s || v < 0)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end || v * (double)(1ull << shift) > 1.8e19)
		return -EINVAL;
	*out = (uint64_t)(v * (double)(1ull << shift));
	return 0;
}

static int parse_number(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end == s || *end || !isfinite(*out) || *out < 0 ? -EINVAL : 0;
}

enum key_type { K_DOUBLE, K_BYTES, K_UINT, K_BOOL };

struct key {
	enum disk_kind kind;
	const char *name;
	enum key_type type;
	size_t off;
};

#define HK(n, t, f) { DISK_HDD, n, t, offsetof(struct disk_params, hdd.f) }
#define SK(n, t, f) { DISK_SSD, n, t, offsetof(struct disk_params, ssd.f) }
#define RK(n, t, f) { DISK_RAID5, n, t, offsetof(struct disk_params, raid5.f) }

static const struct key keys[] = {
	HK("rpm", K_DOUBLE, rpm), HK("t2t", K_DOUBLE, seek_t2t_ms),
	HK("avg", K_DOUBLE, seek_avg_ms), HK("full", K_DOUBLE, seek_full_ms),
	HK("cylinders", K_UINT, cylinders), HK("zones", K_UINT, zones),
	HK("outer", K_DOUBLE, outer_mbps), HK("inner", K_DOUBLE, inner_mbps),
	HK("iface", K_DOUBLE, iface_mbps), HK("capacity", K_BYTES, capacity),
	HK("offset", K_BYTES, offset), HK("readahead", K_BYTES, readahead),
	HK("segments", K_UINT, segments), HK("wce", K_BOOL, wce),
	HK("wcache", K_BYTES, write_cache), HK("flush", K_DOUBLE, flush_ms),
	SK("read_lat", K_DOUBLE, read_us), SK("write_lat", K_DOUBLE, write_us),
	SK("read_bw", K_DOUBLE, read_mbps), SK("write_bw", K_DOUBLE, write_mbps),
	SK("channels", K_UINT, channels), SK("flush", K_DOUBLE, flush_us),
	RK("members", K_UINT, members), RK("chunk", K_BYTES, chunk),
};

static int set_key_of(struct disk_params *p, enum disk_kind kind, const char *name,
		      const char *val, char *err, size_t errlen)
{
	char *base = (char *)p;
	uint64_t u;
	double d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];

		if (k->kind != kind || strcmp(k->name, name))
			continue;
		switch (k->type) {
		case K_DOUBLE:
			if (parse_number(val, &d) < 0)
				goto bad;
			*(double *)(base + k->off) = d;
			return 0;
		case K_BYTES:
			if (parse_bytes(val, &u) < 0)
				goto bad;
			*(uint64_t *)(base + k->off) = u;
			return 0;
		case K_UINT:
			if (parse_number(val, &d) < 0 || d != floor(d) || d > 1e12)
				goto bad;
			if (!strcmp(name, "cylinders"))
				*(uint64_t *)(base + k->off) = (uint64_t)d;
			else
				*(unsigned *)(base + k->off) = (unsigned)d;
			return 0;
		case K_BOOL:
			if (strcmp(val, "0") && strcmp(val, "1"))
				goto bad;
			*(bool *)(base + k->off) = val[0] == '1';
			return 0;
		}
	}
	return -ENOENT;
bad:
	snprintf(err, errlen, "bad value '%s' for %s", val, name);
	return -EINVAL;
}

/* KEY=VALUE for the model; a raid5's other keys are its members'. */
static int set_key(struct disk_params *p, const char *name, const char *val, char *err,
		   size_t errlen)
{
	int ret;

	if (p->kind == DISK_RAID5 && !strcmp(name, "member"))
		return 0;	/* taken first (disk_params_parse) */
	ret = set_key_of(p, p->kind, name, val, err, errlen);
	if (ret == -ENOENT && p->kind == DISK_RAID5)
		ret = set_key_of(p, p->raid5.member, name, val, err, errlen);
	if (ret == -ENOENT) {
		if (p->kind == DISK_RAID5)
			snprintf(err, errlen, "model 'raid5' (of %s) has no parameter '%s'",
				 disk_kind_name(p->raid5.member), name);
		else
			snprintf(err, errlen, "model '%s' has no parameter '%s'",
				 disk_kind_name(p->kind), name);
		ret = -EINVAL;
	}
	return ret;
}

/* raid5's member=hdd|ssd, wherever it is in the spec. */
static int set_member(struct disk_params *p, const char *spec, char *err, size_t errlen)
{
	const char *m = strstr(spec, ",member=");
	size_t n;

	if (!m)
		return 0;
	m += strlen(",member=");
	n = strcspn(m, ",");
	if (n == 3 && !strncmp(m, "hdd", 3))
		p->raid5.member = DISK_HDD;
	else if (n == 3 && !strncmp(m, "ssd", 3))
		p->raid5.member = DISK_SSD;
	else {
		snprintf(err, errlen, "bad value '%.*s' for member (hdd, ssd)", (int)n, m);
		return -EINVAL;
	}
	return 0;
}

static int check_params(const struct disk_params *p, char *err, size_t errlen)
{
	const struct disk_hdd_params *h = &p->hdd;
	const struct disk_ssd_params *s = &p->ssd;
	const char *why = NULL;

	if (p->kind == DISK_HDD || (p->kind == DISK_RAID5 && p->raid5.member == DISK_HDD)) {
		if (h->rpm <= 0)
			why = "rpm must be above 0";
		else if (!(h->seek_t2t_ms <= h->seek_avg_ms && h->seek_avg_ms <= h->seek_full_ms))
			why = "seek times must be t2t <= avg <= full";
		else if (h->cylinders < 3)
			why = "cylinders must be at least 3";
		else if (h->zones < 1 || h->zones > DISK_MAX_ZONES || h->zones > h->cylinders)
			why = "zones must be 1 to 64 (and at most the cylinders)";
		else if (h->outer_mbps <= 0 || h->inner_mbps <= 0 || h->iface_mbps <= 0)
			why = "transfer rates must be above 0";
		else if (h->segments < 1 || h->segments > DISK_MAX_SEGMENTS)
			why = "segments must be 1 to 64";
		else if (h->capacity == 0)
			why = "capacity must be above 0";
	}
	if (!why && p->kind == DISK_RAID5) {
		if (p->raid5.members < 3 || p->raid5.members > DISK_MAX_MEMBERS)
			why = "members must be 3 to 16";
		else if (p->raid5.chunk < 4096 || p->raid5.chunk % 4096)
			why = "chunk must be a multiple of 4 KiB";
	}
	if (!why && (p->kind == DISK_SSD || (p->kind == DISK_RAID5 && p->raid5.member == DISK_SSD))) {
		if (s->channels < 1 || s->channels > DISK_MAX_CHANNELS)
			why = "channels must be 1 to 64";
		else if (s->read_mbps <= 0 || s->write_mbps <= 0)
			why = "transfer rates must be above 0";
	}
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

int disk_params_parse(const char *spec, struct disk_params *p, char *err, size_t errlen)
{
	char *copy = strdup(spec), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	tok = strtok_r(copy, ",", &save);
	if (!tok || disk_params_defaults(tok, p) < 0) {
		snprintf(err, errlen, "unknown model '%s' (none, hdd, ssd, raid5)", tok ? tok : "");
		ret = -EINVAL;
	}
	if (!ret && p->kind == DISK_RAID5)
		ret = set_member(p, spec, err, errlen);
	while (!ret && (tok = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok) {
			snprintf(err, errlen, "'%s' is not KEY=VALUE", tok);
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		ret = set_key(p, tok, eq + 1, err, errlen);
	}
	if (!ret)
		ret = check_params(p, err, errlen);
	free(copy);
	return ret;
}

/* ---- hdd geometry ------------------------------------------------------- */

/* The seek curve through (1, t2t), (C/3, avg), (C, full): Cramer's rule. */
static void fit_seek(struct hdd_state *h, const struct disk_hdd_params *p)
{
	double x[3] = { 1, (double)p->cylinders / 3.0, (double)p->cylinders };
	double y[3] = { p->seek_t2t_ms * 1e6, p->seek_avg_ms * 1e6, p->seek_full_ms * 1e6 };
	double m[3][3], det, dt[3];
	int i, j, k;

	for (i = 0; i < 3; i++) {
		m[i][0] = 1;
		m[i][1] = sqrt(x[i]);
		m[i][2] = x[i];
	}
#define DET3(a) ((a)[0][0] * ((a)[1][1] * (a)[2][2] - (a)[1][2] * (a)[2][1]) - \
		 (a)[0][1] * ((a)[1][0] * (a)[2][2] - (a)[1][2] * (a)[2][0]) + \
		 (a)[0][2] * ((a)[1][0] * (a)[2][1] - (a)[1][1] * (a)[2][0]))
	det = DET3(m);
	for (k = 0; k < 3; k++) {
		double mk[3][3];

		for (i = 0; i < 3; i++)
			for (j = 0; j < 3; j++)
				mk[i][j] = j == k ? y[i] : m[i][j];
		dt[k] = DET3(mk) / det;
	}
#undef DET3
	h->seek_a = dt[0];
	h->seek_b = dt[1];
	h->seek_c = dt[2];
}

static void layout_zones(struct hdd_state *h, const struct disk_hdd_params *p)
{
	double sum = 0, pos = 0;
	unsigned z;

	h->zone_cyls = p->cylinders / p->zones;
	for (z = 0; z < p->zones; z++) {
		double f = p->zones > 1 ? (double)z / (double)(p->zones - 1) : 0;

		h->rate[z] = (p->outer_mbps - (p->outer_mbps - p->inner_mbps) * f) * 1e6;
		sum += h->rate[z];
	}
	for (z = 0; z < p->zones; z++) {
		h->cyl_bytes[z] = (double)p->capacity * h->rate[z] / (sum * (double)h->zone_cyls);
		h->zone_start[z] = (uint64_t)pos;
		pos += h->cyl_bytes[z] * (double)h->zone_cyls;
	}
	h->zone_start[p->zones] = p->capacity;
}

double disk_hdd_seek_ns(const struct disk_model *m, uint64_t d)
{
	const struct hdd_state *h = &m->h;

	if (d == 0)
		return 0;
	return h->seek_a + h->seek_b * sqrt((double)d) + h->seek_c * (double)d;
}

double disk_hdd_rotation_ns(const struct disk_model *m)
{
	return 30e9 / m->p.hdd.rpm;
}

unsigned disk_hdd_zone(const struct disk_model *m, uint64_t b)
{
	unsigned z = 0;

	while (z + 1 < m->p.hdd.zones && b >= m->h.zone_start[z + 1])
		z++;
	return z;
}

double disk_hdd_rate(const struct disk_model *m, unsigned zone)
{
	return m->h.rate[zone];
}

uint64_t disk_hdd_cylinder(const struct disk_model *m, uint64_t b)
{
	unsigned z = disk_hdd_zone(m, b);
	uint64_t c = (uint64_t)z * m->h.zone_cyls +
		     (uint64_t)((double)(b - m->h.zone_start[z]) / m->h.cyl_bytes[z]);

	return c < m->p.hdd.cylinders ? c : m->p.hdd.cylinders - 1;
}

/* Media transfer of len bytes from disk byte b (zone by zone). */
static double transfer_ns(const struct disk_model *m, uint64_t b, uint64_t len)
{
	double ns = 0;

	while (len) {
		unsigned z = disk_hdd_zone(m, b);
		uint64_t end = z + 1 < m->p.hdd.zones ? m->h.zone_start[z + 1] : UINT64_MAX;
		uint64_t n = end - b < len ? end - b : len;

		ns += (double)n * 1e9 / m->h.rate[z];
		b += n;
		len -= n;
	}
	return ns;
}

/* ---- hdd service -------------------------------------------------------- */

/* The read-ahead stops when a request reaches the head at time t. */
static void stop_readahead(struct disk_model *m, uint64_t t)
{
	struct hdd_state *h = &m->h;
	struct hdd_segment *s;
	double got, ns;

	if (h->ra_seg < 0)
		return;
	s = &h->seg[h->ra_seg];
	got = (double)(t - h->ra_time) * m->h.rate[disk_hdd_zone(m, s->end)] / 1e9;
	if ((double)(h->ra_limit - s->end) < got)
		got = (double)(h->ra_limit - s->end);
	ns = transfer_ns(m, s->end, (uint64_t)got);
	m->st.busy_ns += (uint64_t)ns;
	s->end += (uint64_t)got;
	if (s->end - s->start > SEGMENT_MAX)
		s->start = s->end - SEGMENT_MAX;
	h->head = s->end;
	h->ra_seg = -1;
}

static int find_segment(struct disk_model *m, uint64_t b, uint64_t end)
{
	unsigned i;

	for (i = 0; i < m->p.hdd.segments; i++)
		if (m->h.seg[i].end > m->h.seg[i].start && b >= m->h.seg[i].start &&
		    end <= m->h.seg[i].end)
			return (int)i;
	return -1;
}

static void drop_segments(struct disk_model *m, uint64_t b, uint64_t end)
{
	unsigned i;

	for (i = 0; i < m->p.hdd.segments; i++)
		if (m->h.seg[i].start < end && b < m->h.seg[i].end)
			m->h.seg[i].start = m->h.seg[i].end = 0;
}

/* Positioning from the head to disk byte b: seek plus rotation, counted. */
static double position_ns(struct disk_model *m, uint64_t b)
{
	uint64_t from, to, d;

	if (b == m->h.head)
		return 0;
	/* a little ahead on the same track: wait for it to come under the head */
	if (b > m->h.head && (double)(b - m->h.head) <
	    m->h.rate[disk_hdd_zone(m, m->h.head)] * 2 * disk_hdd_rotation_ns(m) / 1e9)
		return transfer_ns(m, m->h.head, b - m->h.head);
	from = disk_hdd_cylinder(m, m->h.head);
	to = disk_hdd_cylinder(m, b);
	d = from > to ? from - to : to - from;
	if (d) {
		m->st.seeks++;
		m->st.seek_cylinders += d;
	}
	return disk_hdd_seek_ns(m, d) + disk_hdd_rotation_ns(m);
}

static uint64_t hdd_read(struct disk_model *m, uint64_t b, uint64_t len, uint64_t s)
{
	struct hdd_state *h = &m->h;
	int hit = find_segment(m, b, b + len);
	unsigned i, lru = 0;
	uint64_t from = b, done;

	if (hit >= 0) {
		m->st.cache_hits++;
		h->seg[hit].used = ++h->stamp;
		done = s + (uint64_t)((double)len * 1e3 / m->p.hdd.iface_mbps);
		m->free_ns = done;
		return done;
	}
	/* a read that begins in what was read ahead goes on from the head */
	for (i = 0; i < m->p.hdd.segments; i++)
		if (h->seg[i].end == h->head && b >= h->seg[i].start && b < h->head)
			from = h->head;
	if (from >= b + len)
		from = b;	/* never: such a read is a hit */
	done = s + (uint64_t)(position_ns(m, from) + transfer_ns(m, from, b + len - from));
	m->st.busy_ns += done - s;
	for (i = 1; i < m->p.hdd.segments; i++)
		if (h->seg[i].used < h->seg[lru].used)
			lru = i;
	for (i = 0; i < m->p.hdd.segments; i++)
		if (h->seg[i].end == h->head && h->seg[i].end > h->seg[i].start && from == h->head)
			lru = i;	/* the stream's segment grows */
	if (h->seg[lru].end != h->head || from != h->head)
		h->seg[lru].start = b;
	h->seg[lru].end = b + len;
	if (h->seg[lru].end - h->seg[lru].start > SEGMENT_MAX)
		h->seg[lru].start = h->seg[lru].end - SEGMENT_MAX;
	h->seg[lru].used = ++h->stamp;
	h->head = b + len;
	h->ra_seg = (int)lru;
	h->ra_time = done;
	h->ra_limit = b + len + m->p.hdd.readahead;
	if (h->ra_limit > m->p.hdd.capacity)
		h->ra_limit = m->p.hdd.capacity;
	m->free_ns = done;
	return done;
}

static uint64_t hdd_write(struct disk_model *m, uint64_t b, uint64_t len, uint64_t now,
			  uint64_t s)
{
	const struct disk_hdd_params *p = &m->p.hdd;
	uint64_t media, done, cached, drain;

	drop_segments(m, b, b + len);
	media = (uint64_t)(position_ns(m, b) + transfer_ns(m, b, len));
	m->st.busy_ns += media;
	m->free_ns = s + media;
	m->h.head = b + len;
	if (!p->wce)
		return m->free_ns;
	cached = now + (uint64_t)((double)len * 1e3 / p->iface_mbps);
	drain = (uint64_t)((double)p->write_cache * 1e9 / m->h.rate[disk_hdd_zone(m, b)]);
	done = m->free_ns > drain ? m->free_ns - drain : 0;
	return done > cached ? done : cached;
}

static uint64_t hdd_submit(struct disk_model *m, enum disk_op op, uint64_t off, uint64_t len,
			   uint64_t now)
{
	uint64_t s = now > m->free_ns ? now : m->free_ns;
	uint64_t b = m->p.hdd.offset + off;

	stop_readahead(m, s);
	if (op == DISK_READ)
		return hdd_read(m, b, len, s);
	if (op == DISK_WRITE)
		return hdd_write(m, b, len, now, s);
	if (m->p.hdd.wce) {
		m->free_ns = s + (uint64_t)(m->p.hdd.flush_ms * 1e6);
		m->st.busy_ns += m->free_ns - s;
	}
	return s > m->free_ns ? s : m->free_ns;
}

/* ---- ssd service -------------------------------------------------------- */

static uint64_t ssd_submit(struct disk_model *m, enum disk_op op, uint64_t len, uint64_t now)
{
	const struct disk_ssd_params *p = &m->p.ssd;
	unsigned c, best = 0;
	uint64_t s, flash, done;
	double rate;

	for (c = 1; c < p->channels; c++)
		if (m->chan_free[c] < m->chan_free[best])
			best = c;
	s = now > m->chan_free[best] ? now : m->chan_free[best];
	if (op == DISK_FLUSH) {
		for (c = 0; c < p->channels; c++)
			if (m->chan_free[c] > s)
				s = m->chan_free[c];
		done = (s > m->free_ns ? s : m->free_ns) + (uint64_t)(p->flush_us * 1e3);
		for (c = 0; c < p->channels; c++)
			m->chan_free[c] = done;
		m->st.busy_ns += done - s;
		return done;
	}
	flash = s + (uint64_t)((op == DISK_READ ? p->read_us : p->write_us) * 1e3);
	rate = op == DISK_READ ? p->read_mbps : p->write_mbps;
	done = (flash > m->free_ns ? flash : m->free_ns) + (uint64_t)((double)len * 1e3 / rate);
	m->st.busy_ns += done - s;
	m->free_ns = done;
	m->chan_free[best] = done;
	return done;
}

/* ---- the model ---------------------------------------------------------- */

int disk_model_new(const struct disk_params *p, struct disk_model **out)
{
	struct disk_model *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->p = *p;
	m->h.ra_seg = -1;
	if (p->kind == DISK_RAID5 && disk_raid5_new(p, &m->raid) < 0) {
		free(m);
		return -ENOMEM;
	}
	if (p->kind == DISK_HDD) {
		fit_seek(&m->h, &p->hdd);
		layout_zones(&m->h, &p->hdd);
		m->h.head = p->hdd.offset;
	}
	*out = m;
	return 0;
}

void disk_model_free(struct disk_model *m)
{
	if (m)
		disk_raid5_free(m->raid);
	free(m);
}

uint64_t disk_model_submit(struct disk_model *m, enum disk_op op, uint64_t off, uint64_t len,
			   uint64_t now)
{
	m->st.requests[op]++;
	m->st.bytes[op] += len;
	switch (m->p.kind) {
	case DISK_HDD:
		return hdd_submit(m, op, off, len, now);
	case DISK_SSD:
		return ssd_submit(m, op, len, now);
	case DISK_RAID5:
		return disk_raid5_submit(m->raid, op, off, len, now, &m->st);
	case DISK_NONE:
		break;
	}
	return now;
}

unsigned disk_qd_bucket(unsigned depth)
{
	unsigned b = 0;

	while (b + 1 < DISK_QD_BUCKETS && depth > (1u << b))
		b++;
	return b;
}

void disk_model_count_depth(struct disk_model *m, unsigned depth)
{
	m->st.qd[disk_qd_bucket(depth ? depth : 1)]++;
}

const struct disk_stats *disk_model_stats(const struct disk_model *m)
{
	return &m->st;
}

const struct disk_params *disk_model_params(const struct disk_model *m)
{
	return &m->p;
}
