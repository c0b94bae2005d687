/*
 * cmd-disk.c: fstap disk: the command line of the modeled block device.
 * Parses --model and the options and hands them to disk_run
 * (src/disk/daemon.c), which prints its own errors.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "disk/daemon.h"
#include "fstap/log.h"

static const char disk_usage[] =
	"usage: fstap disk [options] IMAGE MOUNTPOINT\n"
	"\n"
	"Serve the file IMAGE through FUSE as the single file MOUNTPOINT/NAME (NAME\n"
	"is IMAGE's own name), taking for each read, write and flush the time a\n"
	"modeled device would take. Attach a loop device to it with direct I/O\n"
	"and it is a block device with the model's timing:\n"
	"\n"
	"    fstap disk --model=hdd disk.img /mnt/disk &\n"
	"    losetup --direct-io=on -f --show /mnt/disk/disk.img\n"
	"\n"
	"It serves until 'fusermount3 -u MOUNTPOINT', SIGINT, SIGTERM or SIGHUP\n"
	"(waiting for a loop device still attached to be detached), then prints\n"
	"what the model did (MOUNTPOINT/.stats.json holds it so far while serving).\n"
	"IMAGE keeps its size; it must not be attached to a\n"
	"loop device or served by another fstap disk.\n"
	"\n"
	"options:\n"
	"  -m, --model=MODEL[,KEY=VALUE...]\n"
	"                       the device (default hdd):\n"
	"                         hdd   a 7 200 rpm disk: seeks by distance, rotation,\n"
	"                               zones, read-ahead cache, write cache; keys:\n"
	"                               rpm, t2t, avg, full (seek ms), cylinders,\n"
	"                               zones, outer, inner, iface (MB/s), capacity,\n"
	"                               offset, readahead, wcache (bytes), segments,\n"
	"                               wce=0|1, flush (ms)\n"
	"                         ssd   latency by direction on parallel channels;\n"
	"                               keys: read_lat, write_lat, flush (us),\n"
	"                               read_bw, write_bw (MB/s), channels\n"
	"                         raid5 RAID 5 of hdd or ssd members, left-symmetric;\n"
	"                               keys: members (4), chunk (64K), member=hdd|ssd\n"
	"                               and the member model's keys; a partial-stripe\n"
	"                               write reads old data and parity first\n"
	"                         none  no delay: the cost of the daemon itself\n"
	"                       docs/disk.md gives the defaults and their sources\n"
	"      --json=FILE      also write the statistics to FILE as JSON at exit\n"
	"      --threads=N      FUSE worker threads at most, the deepest queue served\n"
	"                       (default 64)\n"
	"  -q, --quiet          no summary at exit\n"
	"  -v, --verbose        more messages; twice: libfuse's request log too\n"
	"  -h, --help           show this help\n"
	"\n"
	"At exit: requests and bytes by direction, seeks and their total distance in\n"
	"cylinders, read cache hits, the modeled busy time, and the queue depths the\n"
	"requests found; for raid5 also the member reads and writes, full-stripe\n"
	"writes and read-modify-write stripes.\n";

int cmd_disk(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct disk_opts o = { .model_spec = "hdd", .threads = 64 };
	char err[256];
	int c, verbose = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "+m:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o.model_spec = optarg;
			break;
		case 'j':
			o.json = optarg;
			break;
		case 't':
			errno = 0;
			o.threads = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || o.threads < 1 || o.threads > 1024)
				return cmd_usage_error("disk", "--threads must be 1 to 1024, not '%s'",
						       optarg);
			break;
		case 'q':
			fstap_verbosity = -1;
			break;
		case 'v':
			verbose++;
			fstap_verbosity++;
			break;
		case 'h':
			fputs(disk_usage, stdout);
			return 0;
		default:
			return cmd_usage_error("disk", "unknown option");
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error("disk", "expected IMAGE and MOUNTPOINT");
	if (disk_params_parse(o.model_spec, &o.params, err, sizeof(err)) < 0)
		return cmd_usage_error("disk", "--model='%s': %s", o.model_spec, err);
	o.image = argv[optind];
	o.mountpoint = argv[optind + 1];
	o.fuse_debug = verbose >= 2;
	return disk_run(&o);
}
