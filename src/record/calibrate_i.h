/*
 * calibrate_i.h: the recorder's round-trip calibration (calibrate.c), the
 * figures of recorder.calibration in a trace's metadata.
 */
#ifndef FSTAP_RECORD_CALIBRATE_I_H
#define FSTAP_RECORD_CALIBRATE_I_H

#include <jansson.h>
#include <stdint.h>

#define REC_CAL_REQUESTS 200u	/* counted requests of each kind */

/*
 * Round trips beyond the handler's own time, ns: means (of the fastest 99%:
 * a run's total is their sum, but one preempted request of 200 must not
 * stand for all), medians and 90th percentiles.
 */
struct rec_calibration {
	unsigned requests;		/* of each kind */
	uint64_t meta_ns, meta_p50_ns, meta_p90_ns;	/* GETATTR (fstat, attribute timeout 0) */
	uint64_t data_ns, data_p50_ns, data_p90_ns;	/* READ of 4 KiB (direct I/O) */
};

/*
 * Mounts a private FUSE file system on a temporary directory, served by a
 * loop of threads threads, and measures the round trips. 0 or -errno.
 */
int rec_calibrate(unsigned threads, struct rec_calibration *cal);
/* Calibrates and adds the "calibration" object to recorder (nothing if it fails). */
void rec_calibrate_add(json_t *recorder, unsigned threads);

#endif
