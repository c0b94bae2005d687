/*
 * check_report.c: `fstap report` (src/analysis/report.c) reads a trace in
 * time order whether or not its file order is: a trace whose threads'
 * chunks interleave gives the report of the same records written in time
 * order, and a trace in time order gives the same report from a file (read
 * in file order) as from a pipe (through the sorter), an interleaved one
 * from a pipe by name (which cannot be read twice) as from a file. Files
 * touched and unlinked are each counted once, whether forgotten during the
 * trace, dead within the grace period at its end (settled entries) or
 * touched again after their death.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "tests/unit/fixtures.h"
#include "fstap/pathmap.h"
#include "fstap/trace.h"

#define PID 7
#define DIR 2
#define NFILES 4

static char *path;
static char names[NFILES][4];
static struct fstap_dirent ents[NFILES];

static void setup(void)
{
	unsigned i;

	path = fixture_tmpname("report");
	for (i = 0; i < NFILES; i++) {
		snprintf(names[i], sizeof(names[i]), "f%u", i);
		ents[i] = (struct fstap_dirent){ .name = B(names[i]), .obj = 100 + i,
						 .ino = 1000 + i, .type = 8 };
	}
}

static void teardown(void)
{
	unlink(path);
	free(path);
}

/* The lister's records: the directory looked up, then listed (t 500, 1000). */
static void add_listing(struct fstap_writer *w)
{
	struct fstap_rec lk = { .op = FSTAP_OP_LOOKUP, .tid = PID, .pid = PID, .obj = 1,
				.child = DIR, .name = B("d"), .start_ns = 500, .dur_ns = 10 };
	struct fstap_rec rd = { .op = FSTAP_OP_READDIR, .tid = PID, .pid = PID, .obj = DIR,
				.fh = 1, .entries = ents, .nentries = NFILES, .result = NFILES,
				.start_ns = 1000, .dur_ns = 10 };

	ck_assert_int_eq(fstap_writer_add(w, &lk), 0);
	ck_assert_int_eq(fstap_writer_add(w, &rd), 0);
}

/* Another thread of the process opens the listed files in readdir order (t 2000...). */
static void add_opens(struct fstap_writer *w)
{
	unsigned i;

	for (i = 0; i < NFILES; i++) {
		struct fstap_rec op = { .op = FSTAP_OP_OPEN, .tid = PID + 1, .pid = PID,
					.obj = 100 + i, .fh = 10 + i,
					.start_ns = 2000 + 1000 * i, .dur_ns = 10 };

		ck_assert_int_eq(fstap_writer_add(w, &op), 0);
	}
}

/* The trace at path: the opens' chunk first (interleaved), or the listing's. */
static void write_trace(bool interleaved)
{
	struct fstap_trace_info info = { .metadata_json =
		(char *)"{\"recorder\":{\"flush_interval_ns\":100000}}" };
	struct fstap_rec p = { .op = FSTAP_OP_PROCESS, .pid = PID, .comm = B("lister") };
	struct fstap_writer *w;

	ck_assert_int_eq(fstap_writer_open(&w, path, &info, 0), 0);
	ck_assert_int_eq(fstap_writer_add(w, &p), 0);
	if (interleaved) {
		add_opens(w);
		ck_assert_int_eq(fstap_writer_flush(w), 0);
		add_listing(w);
	} else {
		add_listing(w);
		add_opens(w);
	}
	ck_assert_int_eq(fstap_writer_close(w, 0, false), 0);
	fstap_writer_free(w);
}

/* The JSON report of trace (path, or "-": path on stdin); caller frees. */
static char *report(const char *trace)
{
	struct an_report_opts o = { .json = true, .top = 10 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	if (!strcmp(trace, "-"))
		ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
	ck_assert_int_eq(an_report(trace, &o, out), 0);
	fclose(out);
	return text;
}

START_TEST(test_report_interleaved_chunks_in_time_order)
{
	char *ordered, *interleaved;

	write_trace(false);
	ordered = report(path);
	/* the opens follow the listing: a row of NFILES files, readdir order */
	ck_assert_ptr_nonnull(strstr(ordered, "\"files\": 4"));
	ck_assert_ptr_nonnull(strstr(ordered, "\"readdir\": 1.0"));
	write_trace(true);
	interleaved = report(path);
	ck_assert_str_eq(interleaved, ordered);
	free(ordered);
	free(interleaved);
}
END_TEST

START_TEST(test_report_file_order_as_sorted)
{
	char *file, *piped;

	write_trace(false);
	file = report(path);
	piped = report("-");
	/* the same after the trace's name, on the second line */
	ck_assert_ptr_nonnull(strstr(piped, "\"trace\": \"-\""));
	ck_assert_str_eq(strchr(strchr(piped, '\n') + 1, '\n'), strchr(strchr(file, '\n') + 1, '\n'));
	free(file);
	free(piped);
}
END_TEST

START_TEST(test_report_named_pipe_interleaved)
{
	char *fifo = fixture_tmpname("report-fifo");
	char *file, *piped;
	int status;
	pid_t pid;

	write_trace(true);
	file = report(path);
	ck_assert_int_eq(unlink(fifo), 0);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* the trace into the pipe, once */
		char buf[4096];
		FILE *in = fopen(path, "rb"), *out = fopen(fifo, "wb");
		size_t n;

		while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, out);
		_exit(out && !fclose(out) ? 0 : 1);
	}
	piped = report(fifo);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_str_eq(strchr(strchr(piped, '\n') + 1, '\n'), strchr(strchr(file, '\n') + 1, '\n'));
	unlink(fifo);
	free(fifo);
	free(file);
	free(piped);
}
END_TEST

/* One record of process PID at t_ms, named "c<file>" unless file < 0. */
static void add_at(struct fstap_writer *w, uint64_t t_ms, unsigned op, uint64_t obj,
		   int file, uint64_t child)
{
	struct fstap_rec r = { .op = (uint16_t)op, .tid = PID, .pid = PID, .obj = obj,
			       .child = child, .start_ns = t_ms * 1000000, .dur_ns = 10 };
	char name[16];

	if (file >= 0) {
		snprintf(name, sizeof(name), "c%d", file);
		r.name = B(name);
	}
	ck_assert_int_eq(fstap_writer_add(w, &r), 0);
}

/*
 * Six files created in the root: 0 and 1 unlinked at once (forgotten a
 * grace period later, within the trace), 2 to 4 unlinked near its end
 * (dead within the grace period when it ends), 3 looked at again after its
 * death; 5 stays.
 */
START_TEST(test_report_touched_dead_files_counted_once)
{
	const uint64_t g = FSTAP_PATHMAP_GRACE_NS / 1000000;
	struct fstap_trace_info info = { .metadata_json =
		(char *)"{\"recorder\":{\"flush_interval_ns\":100000}}" };
	struct fstap_rec p = { .op = FSTAP_OP_PROCESS, .pid = PID, .comm = B("churn") };
	struct fstap_writer *w;
	char *text;
	uint64_t i;

	ck_assert_int_eq(fstap_writer_open(&w, path, &info, 0), 0);
	ck_assert_int_eq(fstap_writer_add(w, &p), 0);
	for (i = 0; i < 6; i++) {
		add_at(w, 1 + i, FSTAP_OP_CREATE, 1, (int)i, 100 + i);
		add_at(w, 1 + i, FSTAP_OP_RELEASE, 100 + i, -1, 0);
		if (i < 2)
			add_at(w, 1 + i, FSTAP_OP_UNLINK, 1, (int)i, 0);
	}
	for (i = 2; i < 5; i++)
		add_at(w, 2 * g, FSTAP_OP_UNLINK, 1, (int)i, 0);
	add_at(w, 2 * g + 1, FSTAP_OP_GETATTR, 103, -1, 0);
	add_at(w, 2 * g + 2, FSTAP_OP_GETATTR, 105, -1, 0);
	ck_assert_int_eq(fstap_writer_close(w, 0, false), 0);
	fstap_writer_free(w);
	text = report(path);
	ck_assert_msg(strstr(text, "\"files\": 6,") || strstr(text, "\"files\": 6\n"),
		      "files touched not 6:\n%.60s", strstr(text, "\"touched\""));
	free(text);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *core = tcase_create("Core");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_report_interleaved_chunks_in_time_order);
	tcase_add_test(core, test_report_file_order_as_sorted);
	tcase_add_test(core, test_report_named_pipe_interleaved);
	tcase_add_test(core, test_report_touched_dead_files_counted_once);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(report_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
