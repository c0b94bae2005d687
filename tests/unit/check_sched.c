/*
 * check_sched.c: a replay run (run.c and its stages) and its plumbing:
 * option parsing, the race check (races.c), and whole
 * runs over small traces written with the trace writer: classification in
 * start order out of a file in chunk order, a cross-thread happens-before
 * under every --order, split writes, errors. (classify.c's rules: check_classify; task.c:
 * check_task.)
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fstap/trace.h"
#include "tests/unit/fixtures.h"
#include "tests/unit/require.h"
#include "replay/replay_i.h"


/* ---- the classification within a run: per thread, in start order ------- */

static char trace_path[256], dir_path[256];
static struct fstap_writer *w;

static void add(struct fstap_rec r);
static struct rp_result *run(enum rp_order order);
static struct rp_result *run_window(enum rp_order order, uint64_t window_ns);

/*
 * Two threads whose records interleave, with the recording's metadata
 * saying attributes were not cached. Thread 10: stat("f") (LOOKUP, GETATTR),
 * then open("f") (GETATTR check, OPEN), read to EOF (READ short, GETATTR
 * with the handle), close. Thread 20's records fall between thread 10's,
 * and its LOOKUP of "g" is followed (in thread 20) by nothing: issued.
 * Thread 10's records are written out of start order (as FUSE workers'
 * chunks may be): the run must classify them in start order.
 */
START_TEST(test_sched_run_absorption)
{
	struct fstap_trace_info info = {
		.version_major = 1,
		.metadata_json = (char *)"{\"recorder\":{\"attr_timeout\":0.0}}",
	};
	struct rp_result *r;
	char p[300];
	int fd;

	snprintf(p, sizeof(p), "%s/f", dir_path);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	close(fd);
	snprintf(p, sizeof(p), "%s/g", dir_path);
	ck_assert_int_eq(mkdir(p, 0755), 0);

	ck_assert_int_eq(fstap_writer_open(&w, trace_path, &info, 4096), 0);
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 1, .mode = 040755 });
	add((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .tid = 10, .start_ns = 100, .dur_ns = 5,
				.obj = 1, .name = B("f"), .child = 5 });
	add((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .tid = 20, .start_ns = 110, .dur_ns = 5,
				.obj = 1, .name = B("g"), .child = 6 });
	add((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .tid = 10, .start_ns = 120, .dur_ns = 5,
				.obj = 5 });
	/* out of start order in the file: the check (130) after the open (140) */
	add((struct fstap_rec){ .op = FSTAP_OP_OPEN, .tid = 10, .start_ns = 140, .dur_ns = 5,
				.obj = 5, .fh = 1, .flags_arg = O_RDONLY });
	add((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .tid = 10, .start_ns = 130, .dur_ns = 5,
				.obj = 5 });
	add((struct fstap_rec){ .op = FSTAP_OP_READ, .tid = 10, .start_ns = 150, .dur_ns = 5,
				.obj = 5, .fh = 1, .size = 4096, .result = 10 });
	add((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .tid = 10, .start_ns = 160, .dur_ns = 5,
				.obj = 5, .fh = 1 });
	add((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .tid = 10, .start_ns = 170, .dur_ns = 5,
				.obj = 5, .fh = 1 });
	ck_assert_int_eq(fstap_writer_close(w, 1000, false), 0);
	fstap_writer_free(w);

	r = run(RP_ORDER_THREAD);
	ck_assert_msg(r->stats.divergences == 0, "%llu divergences",
		      (unsigned long long)r->stats.divergences);
	ck_assert_uint_eq(r->lookups_absorbed, 1);	/* thread 10's, by its getattr */
	ck_assert_uint_eq(r->lookups_issued, 1);	/* thread 20's: nothing follows */
	ck_assert_uint_eq(r->getattrs_absorbed, 1);	/* the permission check */
	ck_assert_uint_eq(r->getattrs_issued, 1);	/* the stat() */
	ck_assert_uint_eq(r->getattrs_eof_reads, 1);	/* the read at end of file */
	ck_assert_uint_eq(r->stats.op[FSTAP_OP_GETATTR].count, 2);
	ck_assert_uint_eq(r->stats.op[FSTAP_OP_LOOKUP].count, 1);
	ck_assert_uint_eq(r->stats.op[FSTAP_OP_READ].bytes, 10);
	ck_assert_uint_eq(r->handles_left, 0);
	rp_result_free(r);
}
END_TEST

/*
 * A read to EOF (READ short, GETATTR with the handle), then close, with
 * the records far apart against the reorder window: each leaves the window
 * as the next one comes, and another thread's request between the read
 * and the getattr has the read dispatched before the getattr is staged.
 * The getattr is still the read at end of file.
 */
START_TEST(test_sched_run_eof_read_window)
{
	struct rp_result *r;
	char p[300];
	int fd;

	snprintf(p, sizeof(p), "%s/f", dir_path);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	close(fd);

	ck_assert_int_eq(fstap_writer_open(&w, trace_path, &(struct fstap_trace_info){
		.version_major = 1 }, 4096), 0);
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 1, .mode = 040755 });
	add((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .tid = 10, .start_ns = 1000, .dur_ns = 5,
				.obj = 1, .name = B("f"), .child = 5 });
	add((struct fstap_rec){ .op = FSTAP_OP_OPEN, .tid = 10, .start_ns = 2000, .dur_ns = 5,
				.obj = 5, .fh = 1, .flags_arg = O_RDONLY });
	add((struct fstap_rec){ .op = FSTAP_OP_READ, .tid = 10, .start_ns = 3000, .dur_ns = 5,
				.obj = 5, .fh = 1, .size = 4096, .result = 10 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATFS, .tid = 20, .start_ns = 3500, .dur_ns = 5,
				.obj = 1 });
	add((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .tid = 10, .start_ns = 4000, .dur_ns = 5,
				.obj = 5, .fh = 1 });
	add((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .tid = 10, .start_ns = 5000, .dur_ns = 5,
				.obj = 5, .fh = 1 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATFS, .tid = 10, .start_ns = 6000, .dur_ns = 5,
				.obj = 1 });
	ck_assert_int_eq(fstap_writer_close(w, 10000, false), 0);
	fstap_writer_free(w);

	r = run_window(RP_ORDER_THREAD, 100);
	ck_assert_msg(r->stats.divergences == 0, "%llu divergences",
		      (unsigned long long)r->stats.divergences);
	ck_assert_uint_eq(r->getattrs_eof_reads, 1);
	ck_assert_uint_eq(r->stats.op[FSTAP_OP_READ].bytes, 10);
	rp_result_free(r);
}
END_TEST

START_TEST(test_sched_option_parsing)
{
	enum rp_order o;
	unsigned pct;

	ck_assert_int_eq(rp_order_parse("resource", &o), 0);
	ck_assert_int_eq(o, RP_ORDER_RESOURCE);
	ck_assert_str_eq(rp_order_name(RP_ORDER_NONE), "none");
	ck_assert_int_eq(rp_order_parse("global", &o), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("afap", &pct, NULL), 0);
	ck_assert_uint_eq(pct, 0);
	ck_assert_int_eq(rp_pace_parse("orig", &pct, NULL), 0);
	ck_assert_uint_eq(pct, 100);
	ck_assert_int_eq(rp_pace_parse("250%", &pct, NULL), 0);
	ck_assert_uint_eq(pct, 250);
	ck_assert_int_eq(rp_pace_parse("0%", &pct, NULL), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("50", &pct, NULL), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("-5%", &pct, NULL), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("fast", &pct, NULL), -EINVAL);
}
END_TEST

/*
 * One pwrite of 4096 bytes at 32394 the kernel split at the page boundary,
 * its marker written after the two parts in the file (another FUSE
 * worker's chunk): one pwrite of the whole range. Then a write with its own
 * marker that has the shape of a continuation: issued by itself.
 */
START_TEST(test_sched_run_split_write)
{
	struct fstap_trace_info info = {
		.version_major = 1,
		.metadata_json = (char *)"{\"recorder\":{\"attr_timeout\":0.0}}",
	};
	const struct fstap_bytes cap = B("security.capability");
	struct rp_result *r;
	struct stat st;
	char p[300];
	int fd;

	snprintf(p, sizeof(p), "%s/f", dir_path);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);

	ck_assert_int_eq(fstap_writer_open(&w, trace_path, &info, 4096), 0);
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 1, .mode = 040755 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_DENTRY, .obj = 1, .name = B("f"), .child = 5 });
	add((struct fstap_rec){ .op = FSTAP_OP_OPEN, .tid = 10, .start_ns = 100, .dur_ns = 5,
				.obj = 5, .fh = 1, .flags_arg = O_WRONLY });
	add((struct fstap_rec){ .op = FSTAP_OP_WRITE, .tid = 10, .start_ns = 130, .dur_ns = 5,
				.obj = 5, .fh = 1, .offset = 32394, .size = 374, .result = 374 });
	add((struct fstap_rec){ .op = FSTAP_OP_WRITE, .tid = 10, .start_ns = 140, .dur_ns = 5,
				.obj = 5, .fh = 1, .offset = 32768, .size = 3722, .result = 3722 });
	add((struct fstap_rec){ .op = FSTAP_OP_GETXATTR, .tid = 10, .start_ns = 120, .dur_ns = 5,
				.obj = 5, .flags = FSTAP_RF_KERNEL, .name = cap,
				.result = -ENODATA });
	add((struct fstap_rec){ .op = FSTAP_OP_GETXATTR, .tid = 10, .start_ns = 150, .dur_ns = 5,
				.obj = 5, .flags = FSTAP_RF_KERNEL, .name = cap,
				.result = -ENODATA });
	add((struct fstap_rec){ .op = FSTAP_OP_WRITE, .tid = 10, .start_ns = 160, .dur_ns = 5,
				.obj = 5, .fh = 1, .offset = 36490, .size = 1398, .result = 1398 });
	add((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .tid = 10, .start_ns = 170, .dur_ns = 5,
				.obj = 5, .fh = 1 });
	ck_assert_int_eq(fstap_writer_close(w, 1000, false), 0);
	fstap_writer_free(w);

	r = run(RP_ORDER_THREAD);
	ck_assert_msg(r->stats.divergences == 0, "%llu divergences",
		      (unsigned long long)r->stats.divergences);
	ck_assert_uint_eq(r->writes_merged, 1);
	ck_assert_uint_eq(r->stats.op[FSTAP_OP_WRITE].count, 2);
	ck_assert_uint_eq(r->stats.op[FSTAP_OP_WRITE].bytes, 4096 + 1398);
	ck_assert_uint_eq(r->kernel_skipped, 2);	/* the markers */
	ck_assert_uint_eq(r->handles_left, 0);
	rp_result_free(r);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_size, 37888);
}
END_TEST

static char tmpl[] = "/tmp/check_sched.XXXXXX";
static char *tmp;
static void setup(void)
{
	strcpy(tmpl + strlen(tmpl) - 6, "XXXXXX");
	tmp = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(tmp);
	snprintf(trace_path, sizeof(trace_path), "%s/t.trace", tmp);
	snprintf(dir_path, sizeof(dir_path), "%s/dir", tmp);
	ck_assert_int_eq(mkdir(dir_path, 0755), 0);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

static void add(struct fstap_rec r)
{
	if (!r.uid)
		r.pid = r.tid;
	ck_assert_int_eq(fstap_writer_add(w, &r), 0);
}

/*
 * Thread 10 creates "f" (ends at t=200) and writes to it; thread 20 opens
 * it at t=500 (after), reads, and renames it. Written so that thread 20's
 * records come first in the file, as a recorder's chunks may be.
 */
static void write_two_thread_trace(void)
{
	struct fstap_trace_info info = { .version_major = 1 };

	ck_assert_int_eq(fstap_writer_open(&w, trace_path, &info, 4096), 0);
	add((struct fstap_rec){ .op = FSTAP_OP_OPEN, .tid = 20, .start_ns = 500, .dur_ns = 10,
				.obj = 5, .fh = 2, .flags_arg = O_RDONLY });
	add((struct fstap_rec){ .op = FSTAP_OP_READ, .tid = 20, .start_ns = 520, .dur_ns = 10,
				.obj = 5, .fh = 2, .size = 4096, .result = 4096 });
	add((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .tid = 20, .start_ns = 540, .dur_ns = 10,
				.obj = 5, .fh = 2 });
	add((struct fstap_rec){ .op = FSTAP_OP_RENAME, .tid = 20, .start_ns = 560, .dur_ns = 10,
				.obj = 1, .name = B("f"), .newparent = 1, .newname = B("g") });
	add((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .tid = 10, .start_ns = 90, .dur_ns = 5,
				.obj = 1, .name = B("f"), .result = -ENOENT });
	add((struct fstap_rec){ .op = FSTAP_OP_CREATE, .tid = 10, .start_ns = 100, .dur_ns = 100,
				.obj = 1, .name = B("f"), .mode = 0100644, .umask = 022,
				.flags_arg = O_WRONLY | O_CREAT | O_EXCL, .child = 5, .fh = 1 });
	add((struct fstap_rec){ .op = FSTAP_OP_WRITE, .tid = 10, .start_ns = 300, .dur_ns = 50,
				.obj = 5, .fh = 1, .size = 4096, .result = 4096 });
	add((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .tid = 10, .start_ns = 400, .dur_ns = 10,
				.obj = 5, .fh = 1, .flags = FSTAP_RF_KERNEL });
	ck_assert_int_eq(fstap_writer_close(w, 1000, false), 0);
	fstap_writer_free(w);
}

static struct rp_result *run_window(enum rp_order order, uint64_t window_ns)
{
	struct rp_options o = { .trace = trace_path, .dir = dir_path, .order = order,
				.window_ns = window_ns };
	struct rp_result *r = NULL;

	ck_assert_int_eq(rp_run(&o, &r), 0);
	return r;
}

static struct rp_result *run(enum rp_order order)
{
	return run_window(order, 0);
}

static void check_tree_and_reset(void)
{
	char p[300];
	struct stat st;

	snprintf(p, sizeof(p), "%s/g", dir_path);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_size, 4096);
	ck_assert_uint_eq(st.st_mode, 0100644);
	ck_assert_int_eq(unlink(p), 0);
}

START_TEST(test_sched_run_cross_thread)
{
	static const enum rp_order orders[] = { RP_ORDER_STRICT, RP_ORDER_THREAD,
						RP_ORDER_RESOURCE };
	unsigned i;

	write_two_thread_trace();
	for (i = 0; i < 3; i++) {
		struct rp_result *r = run(orders[i]);

		ck_assert_msg(r->stats.divergences == 0, "order %s: %llu divergences",
			      rp_order_name(orders[i]), (unsigned long long)r->stats.divergences);
		ck_assert_uint_eq(r->op_records, 8);
		ck_assert_uint_eq(r->replayed, 7);
		ck_assert_uint_eq(r->lookups_absorbed, 1);
		ck_assert_uint_eq(r->lookups_issued, 0);
		ck_assert_uint_eq(r->handles_left, 0);
		ck_assert_uint_eq(r->workers, orders[i] == RP_ORDER_STRICT ? 1 : 2);
		ck_assert_uint_eq(r->stats.op[FSTAP_OP_READ].bytes, 4096);
		check_tree_and_reset();
		rp_result_free(r);
	}
}
END_TEST

/*
 * DIR/f (object 5, its path in p) with user.v "old" (3 bytes), and a trace
 * opened in w that starts with the root and f.
 */
static void start_file_with_xattr(char *p, size_t size)
{
	struct fstap_trace_info info = { .version_major = 1 };
	int fd;

	snprintf(p, size, "%s/f", dir_path);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	REQUIRE(setxattr(p, "user.v", "old", 3, 0) == 0, "no user xattrs in the test directory");
	ck_assert_int_eq(fstap_writer_open(&w, trace_path, &info, 4096), 0);
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 1, .mode = 040755 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 5, .mode = 0100644 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_DENTRY, .obj = 1, .name = B("f"),
				.child = 5 });
}

/*
 * --order=thread with a worker whose ends are out of order. Thread 10 opens
 * "f" (fh 1); the kernel's release of fh 1 (tid 0, routed to thread 10's
 * worker) is recorded as ending long after; thread 10 then opens "f" again,
 * writes 16 MiB, fsyncs and sets user.v to 9 bytes. Thread 20's getxattr
 * starts after all of that ended: it must wait for the setxattr, though the
 * release before it ended later. (The dependency was lost when the worker's
 * ends were read in dispatch order, stopping at the release: the getxattr
 * then ran during the fsync and found the old value, a divergence.)
 */
START_TEST(test_sched_run_thread_order_long_release)
{
	struct rp_result *r;
	char p[300];

	start_file_with_xattr(p, sizeof(p));
	add((struct fstap_rec){ .op = FSTAP_OP_OPEN, .tid = 10, .start_ns = 100, .dur_ns = 1,
				.obj = 5, .fh = 1, .flags_arg = O_RDONLY });
	add((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .tid = 0, .flags = FSTAP_RF_KERNEL,
				.start_ns = 102, .dur_ns = 100000, .obj = 5, .fh = 1 });
	add((struct fstap_rec){ .op = FSTAP_OP_OPEN, .tid = 10, .start_ns = 103, .dur_ns = 1,
				.obj = 5, .fh = 2, .flags_arg = O_WRONLY });
	add((struct fstap_rec){ .op = FSTAP_OP_WRITE, .tid = 10, .start_ns = 105, .dur_ns = 5,
				.obj = 5, .fh = 2, .size = 16u << 20, .result = 16u << 20 });
	add((struct fstap_rec){ .op = FSTAP_OP_FSYNC, .tid = 10, .start_ns = 111, .dur_ns = 1,
				.obj = 5, .fh = 2 });
	add((struct fstap_rec){ .op = FSTAP_OP_SETXATTR, .tid = 10, .start_ns = 113, .dur_ns = 1,
				.obj = 5, .name = B("user.v"), .size = 9 });
	add((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .tid = 10, .start_ns = 115, .dur_ns = 1,
				.obj = 5, .fh = 2 });
	add((struct fstap_rec){ .op = FSTAP_OP_GETXATTR, .tid = 20, .start_ns = 200, .dur_ns = 1,
				.obj = 5, .name = B("user.v"), .size = 64, .result = 9 });
	ck_assert_int_eq(fstap_writer_close(w, 100000, false), 0);
	fstap_writer_free(w);

	r = run(RP_ORDER_THREAD);
	ck_assert_uint_eq(r->workers, 2);
	ck_assert_uint_eq(r->replayed, 8);
	ck_assert_msg(r->stats.divergences == 0, "%llu divergences: the getxattr ran early",
		      (unsigned long long)r->stats.divergences);
	rp_result_free(r);
	unlink(p);
}
END_TEST

/*
 * A getxattr of thread 20 saw the value that thread 10's setxattr, which
 * started within it, stored (9 bytes; "old" before). Replayed in order
 * (one worker), the getxattr runs first and finds 3 bytes: a race in the
 * recording, not a divergence. With a window of 1 000 ns, the statfs at
 * 2 100 takes the getxattr out of the window before the setxattr: the
 * getxattr must wait in the stage until the setxattr has come.
 */
START_TEST(test_sched_run_change_within_read)
{
	struct rp_result *r;
	char p[300];

	start_file_with_xattr(p, sizeof(p));
	add((struct fstap_rec){ .op = FSTAP_OP_GETXATTR, .tid = 20, .start_ns = 1000,
				.dur_ns = 1000, .obj = 5, .name = B("user.v"), .size = 64,
				.result = 9 });
	add((struct fstap_rec){ .op = FSTAP_OP_SETXATTR, .tid = 10, .start_ns = 1300, .dur_ns = 10,
				.obj = 5, .name = B("user.v"), .size = 9 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATFS, .tid = 30, .start_ns = 2100, .dur_ns = 10,
				.obj = 1 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATFS, .tid = 30, .start_ns = 2400, .dur_ns = 10,
				.obj = 1 });
	ck_assert_int_eq(fstap_writer_close(w, 100000, false), 0);
	fstap_writer_free(w);

	r = run_window(RP_ORDER_STRICT, 1000);
	ck_assert_uint_eq(r->replayed, 4);
	ck_assert_msg(r->stats.divergences == 0, "%llu divergences: the race was missed",
		      (unsigned long long)r->stats.divergences);
	ck_assert_uint_eq(r->stats.raced, 1);
	rp_result_free(r);
	unlink(p);
}
END_TEST

START_TEST(test_sched_run_errors)
{
	struct rp_options o = { .trace = trace_path, .dir = "/nonexistent/x" };
	struct rp_result *r = NULL;

	write_two_thread_trace();
	ck_assert_int_eq(rp_run(&o, &r), -ENOENT);
	o.dir = trace_path;
	ck_assert_int_eq(rp_run(&o, &r), -ENOTDIR);
	o.dir = dir_path;
	o.trace = dir_path;
	ck_assert_int_lt(rp_run(&o, &r), 0);
}
END_TEST

/*
 * Races in the recording: overlapping, another thread, one of the two
 * changing. race() stages a task and dispatches it as issued at once (the
 * backward check: it started within an earlier operation).
 */
static struct rp_races races;
static struct rp_task tasks[8];

static struct rp_task *task(unsigned i, unsigned op, uint32_t tid, uint64_t obj,
			    uint64_t start, uint64_t dur)
{
	struct rp_task *t = &tasks[i];

	memset(t, 0, sizeof(*t));
	t->rec = (struct fstap_rec){ .op = op, .tid = tid, .obj = obj,
				     .start_ns = start, .dur_ns = dur };
	ck_assert_int_eq(rp_race_stage(&races, t), 0);
	return t;
}

static void dispatch(struct rp_task *t)
{
	rp_race_unstage(t);
	rp_race_check(&races, t);
}

static bool race(unsigned op, uint32_t tid, uint64_t obj, uint64_t start, uint64_t dur)
{
	struct rp_task *t = task(7, op, tid, obj, start, dur);

	dispatch(t);
	return t->raced;
}

START_TEST(test_sched_race_check)
{
	rp_races_init(&races);
	ck_assert(!race(FSTAP_OP_SETXATTR, 1, 5, 1000, 500));
	/* a read of another thread while the change was under way */
	ck_assert(race(FSTAP_OP_GETXATTR, 2, 5, 1200, 100));
	/* the same thread, or after the change ended, or another object: no race */
	ck_assert(!race(FSTAP_OP_GETXATTR, 1, 5, 1200, 100));
	ck_assert(!race(FSTAP_OP_GETXATTR, 2, 5, 1600, 100));
	ck_assert(!race(FSTAP_OP_GETXATTR, 2, 6, 1300, 100));
	/* two reads overlap: no race; a change during another thread's read: a race */
	ck_assert(!race(FSTAP_OP_GETXATTR, 3, 5, 1650, 1000));
	ck_assert(race(FSTAP_OP_SETXATTR, 4, 5, 2000, 100));
	rp_races_release(&races);
}
END_TEST

/*
 * A change that starts within a staged operation of another thread marks
 * it raced before it is dispatched; one that starts after its end, one of
 * the same thread or one on another object does not; the dispatched are
 * out of the object's list (a later change does not reach them).
 */
START_TEST(test_sched_race_change_within)
{
	struct rp_task *get, *own, *other, *late, *done;

	rp_races_init(&races);
	get = task(0, FSTAP_OP_GETXATTR, 2, 5, 1000, 1000);
	own = task(1, FSTAP_OP_GETXATTR, 3, 5, 1100, 100);
	other = task(2, FSTAP_OP_GETXATTR, 3, 6, 1100, 1000);
	late = task(3, FSTAP_OP_GETXATTR, 4, 5, 1200, 100);
	ck_assert(!get->raced);
	task(4, FSTAP_OP_SETXATTR, 3, 5, 1500, 10);
	ck_assert(get->raced);		/* the setxattr started within it */
	ck_assert(!own->raced);		/* ended before the setxattr started */
	ck_assert(!other->raced);	/* another object */
	ck_assert(!late->raced);	/* ended at 1300 */
	task(5, FSTAP_OP_SETXATTR, 2, 5, 1600, 10);
	ck_assert(!tasks[5].raced);	/* staged: not yet checked backward */
	dispatch(get);
	done = get;
	done->raced = false;
	task(6, FSTAP_OP_SETXATTR, 4, 5, 1700, 10);
	ck_assert(!done->raced);	/* dispatched: out of the list */
	rp_races_release(&races);
}
END_TEST

/*
 * A queue of one task a worker: two threads' 2 000 interleaved getattrs of
 * the root, replayed with --order=thread, where the dispatcher waits for
 * room at almost every task and each worker for the other's progress. A
 * wake-up lost between the dispatcher and a worker hangs the run (the
 * test's timeout).
 */
START_TEST(test_sched_run_queue_of_one)
{
	struct fstap_trace_info info = { .version_major = 1 };
	struct rp_options o = { .trace = trace_path, .dir = dir_path, .order = RP_ORDER_THREAD,
				.queue_depth = 1 };
	struct rp_result *r = NULL;
	unsigned i;

	ck_assert_int_eq(fstap_writer_open(&w, trace_path, &info, 4096), 0);
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 1, .mode = 040755 });
	for (i = 0; i < 2000; i++)
		add((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .tid = 10 + 10 * (i & 1),
					.start_ns = 1000 + 100 * i, .dur_ns = 50, .obj = 1 });
	ck_assert_int_eq(fstap_writer_close(w, 1000000, false), 0);
	fstap_writer_free(w);
	ck_assert_int_eq(rp_run(&o, &r), 0);
	ck_assert_uint_eq(r->replayed, 2000);
	ck_assert_uint_eq(r->stats.divergences, 0);
	ck_assert_uint_eq(r->workers, 2);
	rp_result_free(r);
}
END_TEST

static Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("Core"), *runs = tcase_create("Runs");

	tcase_add_test(tc, test_sched_option_parsing);
	tcase_add_test(tc, test_sched_race_check);
	tcase_add_test(tc, test_sched_race_change_within);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(runs, setup, teardown);
	tcase_add_test(runs, test_sched_run_cross_thread);
	tcase_add_test(runs, test_sched_run_thread_order_long_release);
	tcase_add_test(runs, test_sched_run_eof_read_window);
	tcase_add_test(runs, test_sched_run_errors);
	tcase_add_test(runs, test_sched_run_change_within_read);
	tcase_add_test(runs, test_sched_run_absorption);
	tcase_add_test(runs, test_sched_run_split_write);
	tcase_add_test(runs, test_sched_run_queue_of_one);
	suite_add_tcase(s, runs);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sched_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
