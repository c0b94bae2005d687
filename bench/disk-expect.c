/*
 * disk-expect.c: what a device model of `fstap disk` should deliver to fio,
 * from the model itself (src/disk/model.c) with no FUSE and no loop device
 * in between: 4 KiB random reads at queue depth 1 (IOPS) and 1 MiB
 * sequential reads (MB/s) over an image of a given size, each request
 * arriving when the previous one completes. bench/disk-model.sh compares
 * fio on the served device against these figures.
 *
 * usage: disk-expect MODEL[,KEY=VALUE...] IMAGE_BYTES
 */
#include <stdio.h>
#include <stdlib.h>

#include "disk/disk.h"

#define RANDOM_READS 20000
#define SEQ_BYTES (256ull << 20)

static double random_iops(const struct disk_params *p, uint64_t size)
{
	struct disk_model *m;
	uint64_t t = 0, blocks = size / 4096;
	unsigned i;

	if (disk_model_new(p, &m) < 0)
		return 0;
	srandom(1);
	for (i = 0; i < RANDOM_READS; i++) {
		uint64_t b = ((uint64_t)random() << 31 | (uint64_t)random()) % blocks;

		t = disk_model_submit(m, DISK_READ, b * 4096, 4096, t);
	}
	disk_model_free(m);
	return t ? RANDOM_READS / ((double)t / 1e9) : 0;
}

static double seq_mbps(const struct disk_params *p, uint64_t size)
{
	struct disk_model *m;
	uint64_t t = 0, off, n = size < SEQ_BYTES ? size : SEQ_BYTES;

	if (disk_model_new(p, &m) < 0)
		return 0;
	for (off = 0; off + (1u << 20) <= n; off += 1u << 20)
		t = disk_model_submit(m, DISK_READ, off, 1u << 20, t);
	disk_model_free(m);
	return t ? (double)off / ((double)t / 1e3) : 0;
}

int main(int argc, char **argv)
{
	struct disk_params p;
	char err[256];
	uint64_t size;

	if (argc != 3) {
		fprintf(stderr, "usage: disk-expect MODEL[,KEY=VALUE...] IMAGE_BYTES\n");
		return 2;
	}
	if (disk_params_parse(argv[1], &p, err, sizeof(err)) < 0) {
		fprintf(stderr, "disk-expect: error: %s\n", err);
		return 2;
	}
	size = strtoull(argv[2], NULL, 10);
	if (size < 1u << 20) {
		fprintf(stderr, "disk-expect: error: the image must have 1 MiB at least\n");
		return 2;
	}
	printf("randread_iops %.1f\nseqread_mbps %.1f\n", random_iops(&p, size), seq_mbps(&p, size));
	return 0;
}
