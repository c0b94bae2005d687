/*
 * daemon.h: the FUSE side of `fstap disk` (daemon.c): serve an image file
 * as a single file under a mount point, replying to each read, write and
 * flush when the device model (disk.h) says the device completes it.
 *
 * Not a public API: src/disk/ and src/cli/cmd-disk.c.
 */
#ifndef FSTAP_DISK_DAEMON_H
#define FSTAP_DISK_DAEMON_H

#include <stdbool.h>

#include "disk/disk.h"

/*
 * MOUNTPOINT/DISK_STATS_NAME: the statistics so far (the --json object),
 * made when it is opened; read-only.
 */
#define DISK_STATS_NAME ".stats.json"

struct disk_opts {
	const char *image;
	const char *mountpoint;
	const char *json;		/* the statistics as JSON at exit, or NULL */
	const char *model_spec;		/* as given, for the summary */
	struct disk_params params;
	unsigned threads;		/* FUSE worker threads at most */
	bool fuse_debug;
};

/* Serves until unmounted or stopped by a signal; the exit status (0 or 1). */
int disk_run(const struct disk_opts *o);

#endif
