/*
 * check_strace_import.c: the strace line parser (strace_parse.c): a plain
 * call, an unfinished call and its resumed line joined, an error result,
 * quoted strings with escapes, -yy descriptor paths, flags, malformed
 * lines; and small logs imported whole (strace_import.c): the records
 * they give, the line a malformed log names, and its summary.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fstap/trace.h"
#include "import/strace_i.h"
#include "import/strace_import.h"

static struct st_line L;
static const char *why;

static int parse(const char *s)
{
	return st_parse_line(s, strlen(s), &L, &why);
}

static bool span_is(struct st_span s, const char *want)
{
	return s.len == strlen(want) && !memcmp(s.p, want, s.len);
}

START_TEST(test_plain_call)
{
	ck_assert_int_eq(parse("2849  18:52:20.953712 openat(AT_FDCWD</tmp/st1/x>, \"../x.tar\", "
			       "O_RDONLY) = 3</tmp/st1/x.tar> <0.000013>"), 0);
	ck_assert_int_eq(L.kind, ST_CALL);
	ck_assert_uint_eq(L.pid, 2849);
	ck_assert(L.has_time);
	ck_assert_int_eq(L.time_ns, (18 * 3600 + 52 * 60 + 20) * 1000000000ll + 953712000);
	ck_assert_str_eq(L.name, "openat");
	ck_assert(span_is(L.args, "AT_FDCWD</tmp/st1/x>, \"../x.tar\", O_RDONLY"));
	ck_assert(L.has_result);
	ck_assert_int_eq(L.result, 3);
	ck_assert_int_eq(L.err, 0);
	ck_assert(span_is(L.result_path, "/tmp/st1/x.tar"));
	ck_assert_int_eq(L.dur_ns, 13000);

	/* -ttt, no pid column, a "= ?" result, no duration */
	ck_assert_int_eq(parse("1796151140.968166 exit_group(0)     = ?"), 0);
	ck_assert_uint_eq(L.pid, 0);
	ck_assert_int_eq(L.time_ns, 1796151140968166000ll);
	ck_assert(!L.has_result);
	ck_assert_int_eq(L.dur_ns, -1);
	/* "[pid N]" of strace -f on stderr, ns precision */
	ck_assert_int_eq(parse("[pid  2850] 18:52:20.941517123 close(3) = 0 <0.000008>"), 0);
	ck_assert_uint_eq(L.pid, 2850);
	ck_assert_int_eq(L.time_ns % 1000000000ll, 941517123);
}
END_TEST

START_TEST(test_error_result)
{
	ck_assert_int_eq(parse("7 10:00:00.000001 newfstatat(AT_FDCWD</w>, \"nope\", 0x7ffd, 0) "
			       "= -1 ENOENT (No such file or directory) <0.000015>"), 0);
	ck_assert(L.has_result);
	ck_assert_int_eq(L.err, ENOENT);
	ck_assert_int_eq(L.result, -ENOENT);
	ck_assert_int_eq(L.dur_ns, 15000);
	ck_assert_int_eq(parse("7 10:00:00.000001 mkdirat(AT_FDCWD</w>, \"d\", 0700) "
			       "= -1 EEXIST (File exists) <0.000015>"), 0);
	ck_assert_int_eq(L.result, -EEXIST);
	/* a result with flags after it */
	ck_assert_int_eq(parse("7 10:00:00.1 fcntl(3</a>, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE) <0.1>"), 0);
	ck_assert_int_eq(L.result, 0x8002);
	ck_assert_int_eq(L.err, 0);
}
END_TEST

START_TEST(test_unfinished_resumed)
{
	ck_assert_int_eq(parse("12 10:00:00.5 read(3</w/a>,  <unfinished ...>"), 0);
	ck_assert_int_eq(L.kind, ST_UNFINISHED);
	ck_assert_str_eq(L.name, "read");
	ck_assert_int_eq(parse("12 10:00:00.7 <... read resumed>\"abc\", 10) = 3 <0.2>"), 0);
	ck_assert_int_eq(L.kind, ST_RESUMED);
	ck_assert_str_eq(L.name, "read");
	ck_assert(span_is(L.args, "\"abc\", 10) = 3 <0.2>"));
	ck_assert_int_eq(parse("12 10:00:00.9 +++ exited with 0 +++"), 0);
	ck_assert_int_eq(L.kind, ST_NOTE);
}
END_TEST

START_TEST(test_quoted_strings)
{
	char buf[64];
	size_t len;
	bool cut;
	struct st_span a[ST_ARGS_MAX];
	const char *s = "\"a\\\"b\\\\c\\n\\t\\x00\\377, )\"...";

	ck_assert_int_eq(st_arg_str((struct st_span){ s, strlen(s) }, buf, sizeof(buf), &len, &cut), 0);
	ck_assert(cut);
	ck_assert_uint_eq(len, 12);
	ck_assert(!memcmp(buf, "a\"b\\c\n\t\0\377, )", 12));
	ck_assert_int_eq(st_arg_str((struct st_span){ "NULL", 4 }, buf, sizeof(buf), &len, &cut),
			 -ENOENT);
	ck_assert_int_eq(st_arg_str((struct st_span){ "\"open", 5 }, buf, sizeof(buf), &len, &cut),
			 -EINVAL);
	/* a comma and a parenthesis in a string do not split arguments */
	ck_assert_int_eq(parse("1 10:00:00.1 write(4</w/f>, \"x, y) = 3\", 9) = 9 <0.1>"), 0);
	ck_assert_int_eq(st_split_args(L.args, a, ST_ARGS_MAX), 3);
	ck_assert(span_is(a[1], "\"x, y) = 3\""));
	ck_assert(span_is(a[2], "9"));
}
END_TEST

START_TEST(test_fd_paths)
{
	char path[256];
	int fd;
	struct st_span a[ST_ARGS_MAX];
	uint64_t f;

	ck_assert_int_eq(st_arg_fd((struct st_span){ "3</w/a b,c>", 11 }, &fd, path, sizeof(path)), 0);
	ck_assert_int_eq(fd, 3);
	ck_assert_str_eq(path, "/w/a b,c");
	ck_assert_int_eq(st_arg_fd((struct st_span){ "AT_FDCWD</w>", 12 }, &fd, path, sizeof(path)), 0);
	ck_assert_int_eq(fd, AT_FDCWD);
	ck_assert_str_eq(path, "/w");
	ck_assert_int_eq(st_arg_fd((struct st_span){ "0</dev/null<char 1:3>>", 22 }, &fd, path,
				   sizeof(path)), 0);
	ck_assert_str_eq(path, "/dev/null");
	ck_assert_int_eq(st_arg_fd((struct st_span){ "7<\\x3e\\\\x>", 10 }, &fd, path, sizeof(path)), 0);
	ck_assert_str_eq(path, ">\\x");
	ck_assert_int_eq(st_arg_fd((struct st_span){ "x3", 2 }, &fd, path, sizeof(path)), -EINVAL);
	/* a path with brackets and commas in an annotation stays one argument */
	ck_assert_int_eq(parse("1 10:00:00.1 fsync(5</w/a(1),[2]>) = 0 <0.1>"), 0);
	ck_assert_int_eq(st_split_args(L.args, a, ST_ARGS_MAX), 1);
	ck_assert_int_eq(st_arg_flags((struct st_span){ "O_WRONLY|O_CREAT|O_EXCL|0x10", 28 }, &f), 0);
	ck_assert_uint_eq(f, O_WRONLY | O_CREAT | O_EXCL | 0x10);
	ck_assert_int_eq(st_arg_flags((struct st_span){ "O_BOGUS", 7 }, &f), -EINVAL);
}
END_TEST

START_TEST(test_malformed)
{
	ck_assert_int_eq(parse("garbage here"), -EINVAL);
	ck_assert_int_eq(parse("1 10:00:00.1 openat(AT_FDCWD</w>, \"a\", O_RDONLY"), -EINVAL);
	ck_assert_str_eq(why, "the arguments do not end with ')'");
	ck_assert_int_eq(parse("1 10:00:00.1 close(3) = -1 EWHAT (?) <0.1>"), -EINVAL);
	ck_assert_int_eq(parse("1 1x:00:00.1 close(3) = 0"), -EINVAL);
	ck_assert_int_eq(parse("1 10:00:00.1 close(3) 0"), -EINVAL);
}
END_TEST

/* ---- whole logs ---------------------------------------------------------- */

struct got {
	unsigned n;
	struct { uint16_t op; uint64_t obj, child, fh, offset, size; int64_t result;
		 char name[32]; uint64_t t; } r[64];
};

/* Imports log (text) with root /w; 0 or -errno, *msg the error. */
static int import_text(const char *log, bool skip, struct got *g, char **msg,
		       struct strace_import_stats *st)
{
	char *tpath = strdup("/tmp/check_strace_XXXXXX");
	int fd = mkstemp(tpath), ret;
	FILE *in = fmemopen((void *)log, strlen(log), "r");
	struct strace_import_opts o = { .root = "/", .skip_bad_lines = skip };
	FILE *sum = fopen("/dev/null", "w");

	ck_assert_int_ge(fd, 0);
	ret = strace_import(in, "LOG", fd, tpath, &o, sum, st, msg);
	fclose(in);
	fclose(sum);
	close(fd);
	if (!ret && g) {
		struct fstap_reader *r;
		struct fstap_rec rec;

		memset(g, 0, sizeof(*g));
		ck_assert_int_eq(fstap_reader_open(&r, tpath, NULL), 0);
		while (fstap_reader_next(r, &rec) == 1 && g->n < 64) {
			if (fstap_op_is_meta(rec.op))
				continue;
			g->r[g->n].op = rec.op;
			g->r[g->n].obj = rec.obj;
			g->r[g->n].child = rec.child;
			g->r[g->n].fh = rec.fh;
			g->r[g->n].offset = rec.offset;
			g->r[g->n].size = rec.size;
			g->r[g->n].result = rec.result;
			g->r[g->n].t = rec.start_ns;
			snprintf(g->r[g->n].name, 32, "%.*s", (int)rec.name.len, rec.name.ptr);
			g->n++;
		}
		ck_assert(fstap_reader_complete(r));
		fstap_reader_close(r);
	}
	unlink(tpath);
	free(tpath);
	return ret;
}

START_TEST(test_import_create_write_close)
{
	static const char log[] =
		"5 10:00:00.000100 openat(AT_FDCWD</w>, \"f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</w/f> <0.000010>\n"
		"5 10:00:00.000200 write(3</w/f>, \"hello\", 5) = 5 <0.000005>\n"
		"5 10:00:00.000300 write(3</w/f>,  <unfinished ...>\n"
		"6 10:00:00.000350 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, -1, 0) = 0x7f00 <0.000001>\n"
		"5 10:00:00.000400 <... write resumed>\"abc\", 3) = 3 <0.000100>\n"
		"5 10:00:00.000500 close(3</w/f>) = 0 <0.000002>\n"
		"5 10:00:00.000600 newfstatat(AT_FDCWD</w>, \"g/h\", 0x7ffd, 0) = -1 ENOENT (No such file or directory) <0.000001>\n";
	struct strace_import_stats st;
	struct got g;
	char *msg = NULL;

	static const struct { uint16_t op; uint64_t obj, child, fh, offset, size; int64_t res;
			      const char *name; uint64_t t; } want[] = {
		/* root "/": the path is w/f, and w is learned by a lookup */
		{ FSTAP_OP_LOOKUP, 1, 2, 0, 0, 0, 0, "w", 0 },
		{ FSTAP_OP_CREATE, 2, 3, 1, 0, 0, 0, "f", 0 },
		{ FSTAP_OP_WRITE, 3, 0, 1, 0, 5, 5, "", 100000 },
		/* the unfinished write: its start time, the offset after the first */
		{ FSTAP_OP_WRITE, 3, 0, 1, 5, 3, 3, "", 200000 },
		{ FSTAP_OP_FLUSH, 3, 0, 1, 0, 0, 0, "", 400000 },
		{ FSTAP_OP_RELEASE, 3, 0, 1, 0, 0, 0, "", 400000 },
		/* the first missing component, with the call's error */
		{ FSTAP_OP_LOOKUP, 2, 0, 0, 0, 0, -ENOENT, "g", 500000 },
	};
	unsigned i;

	ck_assert_int_eq(import_text(log, false, &g, &msg, &st), 0);
	ck_assert_uint_eq(g.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < g.n; i++) {
		ck_assert_uint_eq(g.r[i].op, want[i].op);
		ck_assert_uint_eq(g.r[i].obj, want[i].obj);
		ck_assert_uint_eq(g.r[i].child, want[i].child);
		ck_assert_uint_eq(g.r[i].fh, want[i].fh);
		ck_assert_uint_eq(g.r[i].offset, want[i].offset);
		ck_assert_uint_eq(g.r[i].size, want[i].size);
		ck_assert_int_eq(g.r[i].result, want[i].res);
		ck_assert_str_eq(g.r[i].name, want[i].name);
		ck_assert_uint_eq(g.r[i].t, want[i].t);
	}
	ck_assert_uint_eq(st.unsupported, 1);	/* mmap */
	ck_assert_uint_eq(st.unmatched, 0);
	ck_assert_ptr_null(msg);
}
END_TEST

START_TEST(test_import_readdir)
{
	static const char log[] =
		"5 10:00:00.000100 openat(AT_FDCWD</>, \"/d\", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3</d> <0.000010>\n"
		"5 10:00:00.000200 getdents64(3</d>, [{d_ino=7, d_off=10, d_reclen=24, d_type=DT_DIR, d_name=\".\"}, "
		"{d_ino=2, d_off=20, d_reclen=24, d_type=DT_DIR, d_name=\"..\"}, "
		"{d_ino=9, d_off=30, d_reclen=32, d_type=DT_REG, d_name=\"a, }b\"}], 32768) = 80 <0.000005>\n"
		"5 10:00:00.000300 getdents64(3</d>, [], 32768) = 0 <0.000005>\n"
		"5 10:00:00.000400 openat(3</d>, \"a, }b\", O_RDONLY) = 4</d/a, }b> <0.000002>\n"
		"5 10:00:00.000500 close(3</d>) = 0 <0.000002>\n";
	static const struct { uint16_t op; uint64_t obj, fh, offset; int64_t res; } want[] = {
		{ FSTAP_OP_LOOKUP, 1, 0, 0, 0 },	/* d, not in a state */
		{ FSTAP_OP_OPENDIR, 2, 1, 0, 0 },
		{ FSTAP_OP_READDIR, 2, 1, 0, 3 },	/* three entries */
		{ FSTAP_OP_READDIR, 2, 1, 30, 0 },	/* the end, from the last cookie */
		{ FSTAP_OP_OPEN, 3, 2, 0, 0 },		/* the entry readdir named */
		{ FSTAP_OP_RELEASEDIR, 2, 1, 0, 0 },
	};
	struct strace_import_stats st;
	struct got g;
	char *msg = NULL;
	unsigned i;

	ck_assert_int_eq(import_text(log, false, &g, &msg, &st), 0);
	ck_assert_uint_eq(g.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < g.n; i++) {
		ck_assert_uint_eq(g.r[i].op, want[i].op);
		ck_assert_uint_eq(g.r[i].obj, want[i].obj);
		ck_assert_uint_eq(g.r[i].fh, want[i].fh);
		ck_assert_uint_eq(g.r[i].offset, want[i].offset);
		ck_assert_int_eq(g.r[i].result, want[i].res);
	}
	ck_assert_uint_eq(st.unsupported, 0);
}
END_TEST

/* Thread 5's close frees fd 3 on entry; thread 6's open gets 3 before the close resumes. */
START_TEST(test_import_close_unfinished)
{
	static const char log[] =
		"5 10:00:00.000100 openat(AT_FDCWD</>, \"/a\", O_RDONLY) = 3</a> <0.000010>\n"
		"5 10:00:00.000200 close(3</a> <unfinished ...>\n"
		"6 10:00:00.000300 openat(AT_FDCWD</>, \"/b\", O_RDONLY) = 3</b> <0.000010>\n"
		"5 10:00:00.000400 <... close resumed>) = 0 <0.000200>\n"
		"6 10:00:00.000500 read(3</b>, \"\", 10) = 0 <0.000001>\n";
	static const struct { uint16_t op; uint64_t obj, fh; } want[] = {
		{ FSTAP_OP_LOOKUP, 1, 0 }, { FSTAP_OP_OPEN, 2, 1 },
		{ FSTAP_OP_FLUSH, 2, 1 }, { FSTAP_OP_RELEASE, 2, 1 },
		{ FSTAP_OP_LOOKUP, 1, 0 }, { FSTAP_OP_OPEN, 3, 2 },
		{ FSTAP_OP_READ, 3, 2 },	/* b's handle: the resumed close did not close it */
	};
	struct strace_import_stats st;
	struct got g;
	char *msg = NULL;
	unsigned i;

	ck_assert_int_eq(import_text(log, false, &g, &msg, &st), 0);
	ck_assert_uint_eq(g.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < g.n; i++) {
		ck_assert_uint_eq(g.r[i].op, want[i].op);
		ck_assert_uint_eq(g.r[i].obj, want[i].obj);
		ck_assert_uint_eq(g.r[i].fh, want[i].fh);
	}
	ck_assert_uint_eq(st.unmatched, 0);
}
END_TEST

/*
 * The child (7) runs before its parent's clone returns: from its first call
 * it is 5's child, with 5's descriptors, and its execve names 5 its parent.
 */
START_TEST(test_import_child_before_clone_returns)
{
	static const char log[] =
		"5 10:00:00.000100 openat(AT_FDCWD</>, \"/a\", O_RDONLY) = 3</a> <0.000010>\n"
		"5 10:00:00.000200 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD <unfinished ...>\n"
		"7 10:00:00.000300 read(3</a>, \"\", 10) = 0 <0.000001>\n"
		"7 10:00:00.000400 execve(\"/usr/bin/git\", [\"git\", \"commit\"], 0x7ffd /* 3 vars */) = 0 <0.000100>\n"
		"5 10:00:00.000500 <... clone resumed>, child_tidptr=0x7f00) = 7 <0.000300>\n"
		"7 10:00:00.000600 read(3</a>, \"\", 10) = 0 <0.000001>\n";
	char *tpath = strdup("/tmp/check_strace_XXXXXX");
	int fd = mkstemp(tpath), reads = 0, procs = 0;
	FILE *in = fmemopen((void *)log, strlen(log), "r"), *sum = fopen("/dev/null", "w");
	struct strace_import_opts o = { .root = "/" };
	struct strace_import_stats st;
	struct fstap_reader *r;
	struct fstap_rec rec;
	char *msg = NULL;

	ck_assert_int_eq(strace_import(in, "LOG", fd, tpath, &o, sum, &st, &msg), 0);
	fclose(in);
	fclose(sum);
	close(fd);
	ck_assert_int_eq(fstap_reader_open(&r, tpath, NULL), 0);
	while (fstap_reader_next(r, &rec) == 1) {
		if (rec.op == FSTAP_OP_PROCESS) {
			ck_assert_uint_eq(rec.pid, 7);
			ck_assert_uint_eq(rec.ppid, 5);
			ck_assert_int_eq((int)rec.comm.len, 3);
			procs++;
		} else if (rec.op == FSTAP_OP_READ) {
			ck_assert_uint_eq(rec.pid, 7);
			ck_assert_uint_eq(rec.fh, 1);	/* the parent's open of /a */
			reads++;
		}
	}
	fstap_reader_close(r);
	ck_assert_int_eq(procs, 1);
	ck_assert_int_eq(reads, 2);	/* before and after the execve (no O_CLOEXEC) */
	ck_assert_uint_eq(st.unmatched, 0);
	unlink(tpath);
	free(tpath);
}
END_TEST

START_TEST(test_import_malformed_line)
{
	static const char log[] =
		"5 10:00:00.000100 close(3) = 0 <0.000010>\n"
		"not strace at all\n"
		"5 10:00:00.000300 close(4) = 0 <0.000010>\n";
	struct strace_import_stats st;
	char *msg = NULL;

	ck_assert_int_eq(import_text(log, false, NULL, &msg, &st), -EINVAL);
	ck_assert_ptr_nonnull(msg);
	ck_assert_str_eq(msg, "LOG: line 2: not a line of strace output");
	free(msg);
	msg = NULL;
	ck_assert_int_eq(import_text(log, true, NULL, &msg, &st), 0);
	ck_assert_uint_eq(st.bad_lines, 1);
	ck_assert_uint_eq(st.calls, 2);
}
END_TEST

static Suite *strace_suite(void)
{
	Suite *s = suite_create("strace_import");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_plain_call);
	tcase_add_test(tc, test_error_result);
	tcase_add_test(tc, test_unfinished_resumed);
	tcase_add_test(tc, test_quoted_strings);
	tcase_add_test(tc, test_fd_paths);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_import_create_write_close);
	tcase_add_test(tc, test_import_readdir);
	tcase_add_test(tc, test_import_close_unfinished);
	tcase_add_test(tc, test_import_child_before_clone_returns);
	tcase_add_test(tc, test_import_malformed_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(strace_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
