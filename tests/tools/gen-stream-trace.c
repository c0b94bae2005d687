/*
 * gen-stream-trace.c: writes a long synthetic trace for the replay's
 * bounded-memory test (t2150): an initial state of F files of 4 KiB in the
 * root, then N operation records from 4 threads, each a round of
 * getattr, open, read 4096 at 0, release on the next file, at a recorded
 * rate of 100 000 operations per second. Generating the records directly
 * takes seconds where 10 million lines of JSON through `fstap import` take
 * minutes.
 *
 * usage: gen-stream-trace TRACE N [F]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fstap/trace.h"

#define THREADS 4
#define STEP_NS 10000u		/* 100 000 operations/s */
#define DUR_NS 3000u

static int put(struct fstap_writer *w, const struct fstap_rec *r)
{
	int ret = fstap_writer_add(w, r);

	if (ret < 0)
		fprintf(stderr, "gen-stream-trace: cannot write: %s\n", strerror(-ret));
	return ret;
}

static int put_state(struct fstap_writer *w, uint64_t nfiles)
{
	static const struct fstap_extent whole = { 0, 4096 };
	struct fstap_rec r;
	char name[32];
	uint64_t i;
	int ret;

	memset(&r, 0, sizeof(r));
	r.op = FSTAP_OP_STATE_INODE;
	r.obj = 1;
	r.mode = S_IFDIR | 0755;
	r.size = 4096;
	r.ino = 2;
	r.nlink = 2;
	if ((ret = put(w, &r)))
		return ret;
	for (i = 0; i < nfiles; i++) {
		memset(&r, 0, sizeof(r));
		r.op = FSTAP_OP_STATE_INODE;
		r.obj = 2 + i;
		r.mode = S_IFREG | 0644;
		r.size = 4096;
		r.ino = 100 + i;
		r.nlink = 1;
		r.nextents = 1;
		r.extents = &whole;
		if ((ret = put(w, &r)))
			return ret;
		memset(&r, 0, sizeof(r));
		r.op = FSTAP_OP_STATE_DENTRY;
		r.obj = 1;
		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		r.name.ptr = (const uint8_t *)name;
		r.name.len = (uint32_t)strlen(name);
		r.child = 2 + i;
		if ((ret = put(w, &r)))
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const uint16_t round[4] = { FSTAP_OP_GETATTR, FSTAP_OP_OPEN, FSTAP_OP_READ,
					   FSTAP_OP_RELEASE };
	struct fstap_trace_info info;
	struct fstap_writer *w;
	struct fstap_rec r;
	uint64_t n, nfiles, i, t = 1000;
	int ret;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen-stream-trace TRACE N [FILES]\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	nfiles = argc > 3 ? strtoull(argv[3], NULL, 10) : 100;
	if (!nfiles)
		nfiles = 1;
	memset(&info, 0, sizeof(info));
	info.version_major = FSTAP_VERSION_MAJOR;
	info.version_minor = FSTAP_VERSION_MINOR;
	info.metadata_json = (char *)"{\"tool\":\"gen-stream-trace\","
		"\"recorder\":{\"flush_interval_ns\":100000000}}";
	ret = fstap_writer_open(&w, argv[1], &info, 0);
	if (ret < 0) {
		fprintf(stderr, "gen-stream-trace: cannot create '%s': %s\n", argv[1],
			strerror(-ret));
		return 1;
	}
	if ((ret = put_state(w, nfiles)))
		goto out;
	for (i = 0; i < n; i++) {
		uint64_t k = i / 4, thread = k % THREADS;

		memset(&r, 0, sizeof(r));
		r.op = round[i % 4];
		r.start_ns = t;
		r.dur_ns = DUR_NS;
		r.obj = 2 + k % nfiles;
		/* the kernel sends RELEASE without a process */
		if (r.op != FSTAP_OP_RELEASE) {
			r.tid = 1000 + (uint32_t)thread;
			r.pid = 1000;
		}
		if (r.op == FSTAP_OP_OPEN || r.op == FSTAP_OP_READ || r.op == FSTAP_OP_RELEASE)
			r.fh = k + 1;
		if (r.op == FSTAP_OP_READ) {
			r.size = 4096;
			r.result = 4096;
		}
		if ((ret = put(w, &r)))
			goto out;
		t += STEP_NS;
	}
	ret = fstap_writer_close(w, t, false);
	if (ret < 0)
		fprintf(stderr, "gen-stream-trace: cannot close '%s': %s\n", argv[1],
			strerror(-ret));
	fstap_writer_free(w);
	return ret < 0;
out:
	fstap_writer_free(w);
	return 1;
}
