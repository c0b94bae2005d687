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

/* What the reading of a trace found. */
struct info {
	const char *trace;
	struct fstap_reader *r;
	const struct fstap_trace_info *ti;
	uint64_t counts[FSTAP_OP_NR];	/* records by type */
	uint64_t ops, meta;		/* operation and metadata records */
	uint64_t last_end;		/* the latest end of an operation, ns */
	bool corrupt;
};

/* The command line: 0, CMD_HELP after the usage, or the usage exit code. */
static int parse_options(int argc, char **argv, bool *as_json, const char **trace)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': *as_json = true; break;
		case 'h': fputs(info_usage, stdout); return CMD_HELP;
		default: return cmd_usage_error("info", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("info", "expected one TRACE argument");
	*trace = argv[optind];
	return 0;
}

/* Reads every record of in->r and counts them: 0, or 1 after the error line. */
static int count_records(struct info *in)
{
	struct fstap_rec rec;
	int ret;

	while ((ret = fstap_reader_next(in->r, &rec)) == 1) {
		in->counts[rec.op]++;
		if (fstap_op_is_meta(rec.op)) {
			in->meta++;
		} else {
			in->ops++;
			if (rec.start_ns + rec.dur_ns > in->last_end)
				in->last_end = rec.start_ns + rec.dur_ns;
		}
	}
	in->corrupt = ret < 0;
	if (in->corrupt)
		return fstap_error(1, "%s", fstap_reader_errmsg(in->r));
	return 0;
}

/* A whole trace whose footer counts other records than it holds: 1 after the error line. */
static int check_footer(const struct info *in)
{
	const struct fstap_footer *f;

	if (!fstap_reader_complete(in->r))
		return 0;
	f = fstap_reader_footer(in->r);
	if (f->records != in->ops)
		return fstap_error(1, "trace '%s': the footer counts %" PRIu64
				   " records, the trace holds %" PRIu64, in->trace, f->records, in->ops);
	return 0;
}

/* The JSON object of --json; it takes md (the parsed metadata, NULL if none). */
static json_t *info_json(const struct info *in, json_t *md)
{
	bool complete = fstap_reader_complete(in->r);
	json_t *root, *by_op = json_object();
	unsigned i;

	for (i = 0; i < FSTAP_OP_NR; i++)
		if (in->counts[i] && i != FSTAP_OP_FOOTER)
			json_object_set_new(by_op, fstap_op_info(i)->name,
					    json_integer((json_int_t)in->counts[i]));
	root = json_pack("{s:s, s:i, s:i, s:I, s:I, s:o, s:I, s:I, s:o, s:b, s:s, s:I}",
			 "trace", in->trace,
			 "version_major", in->ti->version_major, "version_minor", in->ti->version_minor,
			 "start_realtime_ns", (json_int_t)in->ti->start_realtime_ns,
			 "start_monotonic_ns", (json_int_t)in->ti->start_monotonic_ns,
			 "metadata", md ? md : json_null(),
			 "records", (json_int_t)in->ops, "meta_records", (json_int_t)in->meta,
			 "by_op", by_op,
			 "complete", complete,
			 "status", in->corrupt ? "corrupt" : complete ? "complete" : "incomplete",
			 "duration_ns", (json_int_t)in->last_end);
	if (complete) {
		const struct fstap_footer *f = fstap_reader_footer(in->r);

		json_object_set_new(root, "footer",
				    json_pack("{s:I, s:I, s:I, s:I, s:I}",
					      "records", (json_int_t)f->records, "lost", (json_int_t)f->lost,
					      "bytes_read", (json_int_t)f->bytes_read,
					      "bytes_written", (json_int_t)f->bytes_written,
					      "end_ns", (json_int_t)f->end_ns));
	}
	if (!in->corrupt && !complete) {
		const struct fstap_cut *cut = fstap_reader_cut(in->r);

		json_object_set_new(root, "incomplete", json_string(fstap_reader_errmsg(in->r)));
		json_object_set_new(root, "cut",
				    json_pack("{s:b, s:I, s:I, s:I, s:I}",
					      "by_watermark", cut->by_watermark,
					      "cutoff_ns", (json_int_t)cut->cutoff_ns,
					      "end_ns", (json_int_t)cut->end_ns,
					      "records", (json_int_t)cut->records,
					      "records_read", (json_int_t)cut->records_read));
	}
	return root;
}

static void print_json(const struct info *in, json_t *md)
{
	json_t *root = info_json(in, md);
	char *text = json_dumps(root, JSON_INDENT(2));

	if (text)
		puts(text);
	free(text);
	json_decref(root);
}

/* The text form; md: the parsed metadata, NULL if none. */
static void print_text(const struct info *in, const json_t *md)
{
	time_t secs = (time_t)(in->ti->start_realtime_ns / 1000000000ull);
	char when[64], *text;
	struct tm tm;
	unsigned i;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&secs, &tm));
	printf("trace:     %s\nformat:    %u.%u\nstarted:   %s\n", in->trace,
	       in->ti->version_major, in->ti->version_minor, when);
	printf("duration:  %.3f s\nrecords:   %" PRIu64 " operations, %" PRIu64 " metadata\n",
	       in->last_end / 1e9, in->ops, in->meta);
	printf("status:    %s\n", in->corrupt ? "corrupt" : fstap_reader_complete(in->r) ? "complete"
	       : fstap_reader_errmsg(in->r));
	if (fstap_reader_complete(in->r)) {
		const struct fstap_footer *f = fstap_reader_footer(in->r);

		printf("lost:      %" PRIu64 " records\nread:      %" PRIu64
		       " bytes\nwritten:   %" PRIu64 " bytes\n", f->lost, f->bytes_read,
		       f->bytes_written);
	}
	printf("by type:\n");
	for (i = 0; i < FSTAP_OP_NR; i++)
		if (in->counts[i] && i != FSTAP_OP_FOOTER)
			printf("  %-16s %12" PRIu64 "\n", fstap_op_info(i)->name, in->counts[i]);
	if (md) {
		text = json_dumps(md, JSON_INDENT(2));
		printf("metadata:  %s\n", text ? text : "{}");
		free(text);
	}
}

int cmd_info(int argc, char **argv)
{
	struct info in = { 0 };
	bool as_json = false;
	char *msg = NULL, line[256];
	json_t *md;
	int ret, status;

	ret = parse_options(argc, argv, &as_json, &in.trace);
	if (ret)
		return ret == CMD_HELP ? 0 : ret;
	ret = fstap_reader_open(&in.r, in.trace, &msg);
	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		return 1;
	}
	status = count_records(&in);
	if (!status)
		status = check_footer(&in);
	in.ti = fstap_reader_info(in.r);
	md = json_loads(in.ti->metadata_json, JSON_ALLOW_NUL, NULL);
	if (as_json) {
		print_json(&in, md);
	} else {
		print_text(&in, md);
		json_decref(md);
	}
	if (!in.corrupt && fstap_reader_notice(in.r, "counted", line, sizeof(line)))
		fstap_warn("%s", line);
	fstap_reader_close(in.r);
	return status;
}
