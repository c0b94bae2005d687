/*
 * durable.c: --sync-at-end: after a run's last call, syncfs(2) of the
 * target's file system, timed: how long the run's writes took to become
 * durable after the replay stopped issuing calls. The run's time until
 * durable is its elapsed time plus this.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fstap/log.h"
#include "replay_i.h"

int rp_sync_at_end(const char *dir, struct rp_result *r)
{
	uint64_t t0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return fstap_error(-errno, "--sync-at-end: cannot open '%s': %s", dir,
				   strerror(errno));
	t0 = rp_clock_real.now(NULL);
	if (syncfs(fd))
		ret = fstap_error(-errno, "--sync-at-end: syncfs of '%s': %s", dir,
				  strerror(errno));
	r->sync_ns = rp_clock_real.now(NULL) - t0;
	r->synced = !ret;
	close(fd);
	return ret;
}
