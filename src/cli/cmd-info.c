/*
 * cmd-info.c: fstap info: what a trace holds: its header and metadata, the
 * records by type, its totals, and whether it is whole. Reads every chunk,
 * so it also verifies every checksum.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli/cmd.h"
#include "fstap/log.h"
#include "fstap/trace.h"

static const char info_usage[] =
	"usage: fstap info [--json] TRACE\n"
	"\n"
	"Show TRACE's format version, start time, metadata, records by type and\n"
	"footer totals, after reading and checking every chunk. Exits 1 if the\n"
	"trace is corrupt; a trace without footer is reported as incomplete and\n"
	"counted up to where it is complete for every thread (its cut: records\n"
	"and duration are those of the cut; the JSON's \"cut\" object has the\n"
	"cutoff, the latest end, the records kept and the records the file holds).\n"
	"\n"
	"      --json   print one JSON object instead of text\n"
	"  -h, --help   show this help\n";

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t counts[FSTAP_OP_NR] = { 0 }, ops = 0, meta = 0, last_end = 0;
	const struct fstap_trace_info *info;
	struct fstap_reader *r = NULL;
	struct fstap_rec rec;
	json_t *root, *by_op, *md;
	bool as_json = false;
	char *msg = NULL, *text, line[256];
	int c, ret, status = 0;
	unsigned i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = true; break;
		case 'h': fputs(info_usage, stdout); return 0;
		default: return cmd_usage_error("info", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("info", "expected one TRACE argument");
	ret = fstap_reader_open(&r, argv[optind], &msg);
	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return 1;
	}
	while ((ret = fstap_reader_next(r, &rec)) == 1) {
		counts[rec.op]++;
		if (fstap_op_is_meta(rec.op)) {
			meta++;
		} else {
			ops++;
			if (rec.start_ns + rec.dur_ns > last_end)
				last_end = rec.start_ns + rec.dur_ns;
		}
	}
	if (ret < 0)
		status = fstap_error(1, "%s", fstap_reader_errmsg(r));
	info = fstap_reader_info(r);
	md = json_loads(info->metadata_json, JSON_ALLOW_NUL, NULL);
	by_op = json_object();
	for (i = 0; i < FSTAP_OP_NR; i++)
		if (counts[i] && i != FSTAP_OP_FOOTER)
			json_object_set_new(by_op, fstap_op_info(i)->name, json_integer((json_int_t)counts[i]));
	root = json_pack("{s:s, s:i, s:i, s:I, s:I, s:o, s:I, s:I, s:o, s:b, s:s, s:I}",
			 "trace", argv[optind],
			 "version_major", info->version_major, "version_minor", info->version_minor,
			 "start_realtime_ns", (json_int_t)info->start_realtime_ns,
			 "start_monotonic_ns", (json_int_t)info->start_monotonic_ns,
			 "metadata", md ? md : json_null(),
			 "records", (json_int_t)ops, "meta_records", (json_int_t)meta,
			 "by_op", by_op,
			 "complete", fstap_reader_complete(r),
			 "status", ret < 0 ? "corrupt" : fstap_reader_complete(r) ? "complete" : "incomplete",
			 "duration_ns", (json_int_t)last_end);
	if (fstap_reader_complete(r)) {
		const struct fstap_footer *f = fstap_reader_footer(r);

		json_object_set_new(root, "footer",
				    json_pack("{s:I, s:I, s:I, s:I, s:I}",
					      "records", (json_int_t)f->records, "lost", (json_int_t)f->lost,
					      "bytes_read", (json_int_t)f->bytes_read,
					      "bytes_written", (json_int_t)f->bytes_written,
					      "end_ns", (json_int_t)f->end_ns));
		if (f->records != ops && !status)
			status = fstap_error(1, "trace '%s': the footer counts %" PRIu64
					     " records, the trace holds %" PRIu64, argv[optind],
					     f->records, ops);
	}
	if (ret >= 0 && !fstap_reader_complete(r)) {
		const struct fstap_cut *cut = fstap_reader_cut(r);

		json_object_set_new(root, "incomplete", json_string(fstap_reader_errmsg(r)));
		json_object_set_new(root, "cut",
				    json_pack("{s:b, s:I, s:I, s:I, s:I}",
					      "by_watermark", cut->by_watermark,
					      "cutoff_ns", (json_int_t)cut->cutoff_ns,
					      "end_ns", (json_int_t)cut->end_ns,
					      "records", (json_int_t)cut->records,
					      "records_read", (json_int_t)cut->records_read));
	}
	if (as_json) {
		text = json_dumps(root, JSON_INDENT(2));
		if (text)
			puts(text);
		free(text);
	} else {
		time_t secs = (time_t)(info->start_realtime_ns / 1000000000ull);
		char when[64];
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&secs, &tm));
		printf("trace:     %s\nformat:    %u.%u\nstarted:   %s\n", argv[optind],
		       info->version_major, info->version_minor, when);
		printf("duration:  %.3f s\nrecords:   %" PRIu64 " operations, %" PRIu64 " metadata\n",
		       last_end / 1e9, ops, meta);
		printf("status:    %s\n", ret < 0 ? "corrupt" : fstap_reader_complete(r) ? "complete"
		       : fstap_reader_errmsg(r));
		if (fstap_reader_complete(r)) {
			const struct fstap_footer *f = fstap_reader_footer(r);

			printf("lost:      %" PRIu64 " records\nread:      %" PRIu64
			       " bytes\nwritten:   %" PRIu64 " bytes\n", f->lost, f->bytes_read,
			       f->bytes_written);
		}
		printf("by type:\n");
		for (i = 0; i < FSTAP_OP_NR; i++)
			if (counts[i] && i != FSTAP_OP_FOOTER)
				printf("  %-16s %12" PRIu64 "\n", fstap_op_info(i)->name, counts[i]);
		if (md) {
			text = json_dumps(md, JSON_INDENT(2));
			printf("metadata:  %s\n", text ? text : "{}");
			free(text);
		}
	}
	json_decref(root);
	if (ret >= 0 && fstap_reader_notice(r, "counted", line, sizeof(line)))
		fstap_warn("%s", line);
	fstap_reader_close(r);
	return status;
}
