/*
 * cmd-export.c: fstap export: a binary trace as JSON Lines, paths resolved.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "fstap/jsonl.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/pathmap.h"
#include "fstap/sort.h"
#include "fstap/trace.h"

static const char export_usage[] =
	"usage: fstap export [-o FILE] [--no-paths] [--file-order] TRACE\n"
	"\n"
	"Write TRACE as JSON Lines: a header line, then one JSON object per record\n"
	"in time order, with the object paths resolved (\"path\", \"newpath\").\n"
	"'fstap import' reads it back; the schema is in docs/trace-format.md.\n"
	"\n"
	"  -o, --output FILE   write to FILE instead of standard output\n"
	"      --no-paths      do not resolve paths (faster, less memory)\n"
	"      --file-order    records in the order of the file (the recorder writes\n"
	"                      per-thread chunks) instead of by start time\n"
	"  -h, --help          show this help\n"
	"\n"
	"A trace without footer (the recorder crashed or was killed) is exported up\n"
	"to its last whole chunk, with a warning; a corrupt trace is an error.\n"
	"FILE is written next to itself and renamed into place when complete: after\n"
	"an error (a full disk) or a signal, an existing FILE is as it was. A FILE\n"
	"that is TRACE (also through a link) is refused.\n";

/*
 * Writes the records (by start time through sorter, else in the file's
 * order) as JSON Lines to out, a MiB at a time: 0 at the end, 1 if a write
 * failed (or jb ran out of memory), -errno if reading failed (-ENOMEM: the
 * path map too). The records read before a reader's error are written
 * too: on '-' a corrupt trace exports up to the corruption (a FILE is
 * dropped after any error).
 */
static int export_records(struct fstap_reader *r, struct fstap_sorter *sorter,
			  struct fstap_pathmap *pm, struct fstap_jbuf *jb, FILE *out)
{
	struct fstap_rec rec;
	int ret;

	while ((ret = sorter ? fstap_sorter_next(sorter, &rec) : fstap_reader_next(r, &rec)) == 1) {
		if (fstap_jsonl_record(jb, &rec, pm) < 0)
			break;
		if (pm && fstap_pathmap_apply(pm, &rec) < 0) {
			ret = -ENOMEM;
			break;
		}
		if (jb->len >= (1 << 20)) {
			if (fwrite(jb->buf, 1, jb->len, out) != jb->len)
				break;
			jb->len = 0;
		}
	}
	if (ret <= 0 && jb->len && fwrite(jb->buf, 1, jb->len, out) != jb->len && ret == 0)
		ret = 1;
	return ret;
}

/* The exit status of an export_records that gave ret, with its error or warnings printed. */
static int export_status(int ret, bool oom, struct fstap_reader *r, struct fstap_sorter *sorter,
			 const char *out_name)
{
	int status = 0;

	if (oom || ret == -ENOMEM) {
		status = fstap_error(1, "out of memory");
	} else if (ret < 0) {
		status = fstap_error(1, "%s", fstap_reader_errmsg(r));
	} else if (ret == 1) {
		status = fstap_error(1, "cannot write '%s': %s", out_name, strerror(errno));
	} else if (!fstap_reader_complete(r)) {
		fstap_warn("%s", fstap_reader_errmsg(r));
	}
	if (sorter && fstap_sorter_late(sorter))
		fstap_warn("%llu records came later than the reorder window and are out of time order",
			   (unsigned long long)fstap_sorter_late(sorter));
	if (fstap_reader_skipped(r))
		fstap_warn("%llu records of types this fstap does not know were skipped",
			   (unsigned long long)fstap_reader_skipped(r));
	return status;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-paths", no_argument, NULL, 'P' },
		{ "file-order", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out_path = NULL;
	struct fstap_pathmap *pm = NULL;
	struct fstap_reader *r = NULL;
	struct fstap_jbuf jb = { 0 };
	struct fstap_sorter *sorter = NULL;
	bool paths = true, file_order = false;
	struct fstap_output *dst = NULL;
	const char *inputs[2] = { NULL, NULL };
	char *msg = NULL;
	FILE *out;
	int c, ret, status = 0;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'P': paths = false; break;
		case 'F': file_order = true; break;
		case 'h': fputs(export_usage, stdout); return 0;
		default: return cmd_usage_error("export", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("export", "expected one TRACE argument");
	ret = fstap_reader_open(&r, argv[optind], &msg);
	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return 1;
	}
	/* lossless: every record, watermarks included; the import cuts the same way */
	fstap_reader_keep_torn(r);
	inputs[0] = argv[optind];
	if (fstap_output_open(&dst, out_path ? out_path : "-", inputs)) {
		status = 1;
		goto done;
	}
	out = fstap_output_stream(dst);
	if (!out) {
		status = fstap_error(1, "out of memory");
		goto done;
	}
	if (paths && fstap_pathmap_new(&pm)) {
		status = fstap_error(1, "out of memory");
		goto done;
	}
	if (fstap_jsonl_header(&jb, fstap_reader_info(r))) {
		status = fstap_error(1, "trace '%s' has a metadata block that is not a JSON object",
				     argv[optind]);
		goto done;
	}
	if (!file_order &&
	    fstap_sorter_new(&sorter, r, fstap_sort_window_ns(fstap_reader_info(r)))) {
		status = fstap_error(1, "out of memory");
		goto done;
	}
	ret = export_records(r, sorter, pm, &jb, out);
	status = export_status(ret, jb.oom, r, sorter, out_path ? out_path : "-");
	if (!status) {
		if (fstap_output_commit(dst))
			status = 1;
		dst = NULL;
	}
done:
	fstap_output_abort(dst);
	fstap_jbuf_release(&jb);
	fstap_pathmap_free(pm);
	fstap_sorter_free(sorter);
	fstap_reader_close(r);
	return status;
}
