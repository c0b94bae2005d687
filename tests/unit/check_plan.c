/*
 * check_plan.c: plan.c, the tasks packed into streams ahead of their
 * execution: every field a worker reads comes back as it was put (records
 * of every shape, a readdir's entries, dependencies, resources, paths);
 * streams grow by blocks and a full plan refuses a job whole until its
 * consumer reads on; a consumer thread reads what a producer thread puts,
 * in order, and ends when the stream is closed.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/trace.h"
#include "tests/unit/fixtures.h"
#include "replay/run_i.h"

#define S(s) ((struct fstap_bytes){ (const uint8_t *)(s), (uint32_t)strlen(s) })

static void same_bytes(struct fstap_bytes a, struct fstap_bytes b)
{
	ck_assert_uint_eq(a.len, b.len);
	if (a.len)
		ck_assert_int_eq(memcmp(a.ptr, b.ptr, a.len), 0);
}

/* What a worker and an executor read of t and of its record, compared with u. */
static void same_task(const struct rp_task *t, const struct rp_task *u)
{
	const struct fstap_rec *a = &t->rec, *b = &u->rec;
	uint32_t i;

	ck_assert_uint_eq(a->op, b->op);
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_uint_eq(a->tid, b->tid);
	ck_assert_uint_eq(a->pid, b->pid);
	ck_assert_uint_eq(a->uid, b->uid);
	ck_assert_uint_eq(a->gid, b->gid);
	/* the 8-byte fields, from start_ns to obj and from child to cowextsize */
	ck_assert_int_eq(memcmp(&a->start_ns, &b->start_ns,
				offsetof(struct fstap_rec, name) - offsetof(struct fstap_rec, start_ns)), 0);
	ck_assert_int_eq(memcmp(&a->child, &b->child,
				offsetof(struct fstap_rec, nentries) - offsetof(struct fstap_rec, child)), 0);
	same_bytes(a->name, b->name);
	same_bytes(a->newname, b->newname);
	same_bytes(a->target, b->target);
	same_bytes(a->value, b->value);
	ck_assert_uint_eq(a->nentries, b->nentries);
	for (i = 0; i < a->nentries; i++) {
		same_bytes(a->entries[i].name, b->entries[i].name);
		ck_assert_uint_eq(a->entries[i].obj, b->entries[i].obj);
	}
	ck_assert_uint_eq(t->ndeps, u->ndeps);
	for (i = 0; i < t->ndeps; i++) {
		ck_assert_ptr_eq(t->deps[i].w, u->deps[i].w);
		ck_assert_uint_eq(t->deps[i].wseq, u->deps[i].wseq);
	}
	ck_assert_uint_eq(t->nres, u->nres);
	for (i = 0; i < t->nres; i++)
		ck_assert_uint_eq(t->res[i], u->res[i]);
	ck_assert_int_eq(!t->path, !u->path);
	if (t->path)
		ck_assert_str_eq(t->path, u->path);
	ck_assert_int_eq(!t->path2, !u->path2);
	if (t->path2)
		ck_assert_str_eq(t->path2, u->path2);
	ck_assert_int_eq(t->raced, u->raced);
	ck_assert_int_eq(t->device, u->device);
	ck_assert_int_eq(t->made, u->made);
	ck_assert_int_eq(t->joined, u->joined);
	ck_assert_int_eq(t->eof_read, u->eof_read);
	ck_assert_uint_eq(t->valid_paths, u->valid_paths);
	ck_assert_uint_eq(t->ns_gen, u->ns_gen);
	ck_assert_uint_eq(t->wseq, u->wseq);
	ck_assert_uint_eq(t->seq, u->seq);
	ck_assert_uint_eq(t->recno, u->recno);
	ck_assert_uint_eq(t->gap_ns, u->gap_ns);
	ck_assert_ptr_eq(t->comm, u->comm);
	ck_assert_uint_eq(t->path_len, u->path_len);
	ck_assert_uint_eq(t->path_name, u->path_name);
	ck_assert_ptr_eq(t->h, u->h);
	ck_assert_ptr_eq(t->h2, u->h2);
	ck_assert_ptr_eq(t->h_stale, u->h_stale);
}

static struct rp_task *task(struct rp_arena *a, const struct fstap_rec *r, uint64_t n)
{
	struct rp_task *t = rp_task_new(a, r);

	ck_assert_ptr_nonnull(t);
	t->wseq = n;
	t->seq = 1000 + n;
	t->recno = 2000 + n;
	t->gap_ns = n * 7;
	t->ns_gen = (uint32_t)n;
	return t;
}

/* Every shape of task comes back as it was put, in order, with its worker. */
START_TEST(test_plan_roundtrip)
{
	static const char comm[] = "proc";
	struct fstap_dirent ents[3] = { { .name = S("a"), .obj = 3 }, { .name = S("bb"), .obj = 4 },
					{ .name = S("ccc"), .obj = 5 } };
	struct fstap_rec recs[] = {
		{ .op = FSTAP_OP_GETATTR, .tid = 7, .pid = 6, .uid = 1000, .gid = 100,
		  .start_ns = 123456789, .dur_ns = 2000, .obj = 42, .fh = 9, .result = 0 },
		{ .op = FSTAP_OP_RENAME, .flags = FSTAP_RF_KERNEL, .tid = 7, .obj = 2,
		  .newparent = 3, .name = S("old name"), .newname = S("new"), .flags_arg = 1,
		  .result = -2 },
		{ .op = FSTAP_OP_READDIR, .obj = 2, .fh = 11, .offset = 0, .size = 4096,
		  .nentries = 3, .entries = ents, .result = 3 },
		{ .op = FSTAP_OP_SETXATTR, .obj = 8, .name = S("user.k"), .value = S("value"),
		  .size = 5, .flags_arg = 2 },
		{ .op = FSTAP_OP_SETATTR, .obj = 8, .valid = 0x7f, .mode = 0644, .owner_uid = 5,
		  .owner_gid = 6, .atime = -5, .mtime = 1700000000000000000ll, .size = 1 << 20 },
		{ .op = FSTAP_OP_SYMLINK, .obj = 2, .name = S("l"), .target = S("../t"),
		  .umask = 022, .result = 0 },
		{ .op = FSTAP_OP_COPY_FILE_RANGE, .fh = 1, .fh2 = 2, .offset = 1, .offset2 = 2,
		  .size = 3, .obj2 = 4, .result = 3 },
	};
	const size_t n = sizeof(recs) / sizeof(recs[0]);
	struct rp_worker *w0 = (struct rp_worker *)0x1000, *w1 = (struct rp_worker *)0x2000;
	struct rp_task *in[sizeof(recs) / sizeof(recs[0])], out = { 0 };
	struct rp_stream s;
	struct rp_plan *p;
	struct rp_arena *a;
	unsigned widx, k;
	bool alone;
	size_t i;

	ck_assert_int_eq(rp_arena_new(&a), 0);
	ck_assert_int_eq(rp_plan_new(1 << 20, &p), 0);
	rp_stream_init(&s);
	ck_assert_int_eq(rp_plan_add_stream(p, &s), 0);
	ck_assert(!rp_stream_ready(&s));
	for (i = 0; i < n; i++) {
		in[i] = task(a, &recs[i], i + 1);
		in[i]->raced = i == 1;
		in[i]->device = i == 2;
		in[i]->made = i == 3;
		in[i]->joined = i == 4;
		in[i]->eof_read = i == 0;
		in[i]->comm = i == 5 ? comm : NULL;
		in[i]->path = i == 6 ? NULL : "/dir/sub";
		in[i]->path2 = i == 1 ? "/other" : NULL;
		in[i]->valid_paths = (uint8_t)(i % 4);
		if (in[i]->path && (in[i]->valid_paths & RP_PATH_VALID)) {
			in[i]->path_len = 8;
			in[i]->path_name = 5;
		}
		/* the handles the dispatcher bound (only their addresses travel) */
		in[i]->h = i % 3 ? (struct rp_handle *)(0x3000 + 64 * i) : NULL;
		in[i]->h2 = i == 6 ? (struct rp_handle *)0x4000 : NULL;
		in[i]->h_stale = i == 4 ? (struct rp_handle *)0x5000 : NULL;
		for (k = 0; k < i; k++)	/* past the inline ones for the last */
			ck_assert_int_eq(rp_task_add_dep(in[i], k % 2 ? w1 : w0, 10 * k), 0);
		in[i]->nres = (uint32_t)(i % (RP_TASK_MAX_RES + 1));
		for (k = 0; k < in[i]->nres; k++)
			in[i]->res[k] = 100 * i + k;
		ck_assert_int_eq(rp_stream_put(p, &s, in[i], (unsigned)i, i % 2), 0);
	}
	for (i = 0; i < n; i++) {
		ck_assert(rp_stream_ready(&s));
		ck_assert(rp_stream_next(p, &s, false, &out, &widx, &alone));
		ck_assert_uint_eq(widx, i);
		ck_assert_int_eq(alone, i % 2);
		same_task(&out, in[i]);
	}
	ck_assert(!rp_stream_next(p, &s, false, &out, &widx, &alone));
	for (i = 0; i < n; i++)
		rp_task_free(in[i]);
	rp_stream_release(p, &s);
	rp_plan_free(p);
	rp_arena_free(a);
}
END_TEST

/*
 * Streams grow by blocks; a plan at its budget refuses a job (-EAGAIN,
 * nothing written) until the consumer has read a block; the plan's peak
 * stays within the budget and the stream's last blocks; a job larger than
 * the budget gets a block of its own once the rest is read.
 */
START_TEST(test_plan_budget)
{
	struct fstap_dirent *ents = calloc(20000, sizeof(*ents));
	struct fstap_rec r = { .op = FSTAP_OP_OPEN, .obj = 5, .flags_arg = 2 };
	const size_t budget = 256 << 10;
	struct rp_task *t, out = { 0 };
	struct rp_stream s;
	struct rp_plan *p;
	struct rp_arena *a;
	uint64_t put = 0, got = 0;
	unsigned widx, i;
	bool alone;
	int ret;

	ck_assert_ptr_nonnull(ents);
	ck_assert_int_eq(rp_arena_new(&a), 0);
	ck_assert_int_eq(rp_plan_new(budget, &p), 0);
	rp_stream_init(&s);
	ck_assert_int_eq(rp_plan_add_stream(p, &s), 0);
	t = task(a, &r, 0);
	t->seq = 0;
	t->path = "/a/path/of/some/length";
	while ((ret = rp_stream_put(p, &s, t, 0, true)) == 0)
		t->seq = ++put;
	ck_assert_int_eq(ret, -EAGAIN);	/* jobs 0 to put - 1 are in */
	ck_assert_uint_gt(put, 1000);
	ck_assert_uint_le(rp_plan_peak(p), budget);
	ck_assert(rp_plan_over(p, 2));
	/* the consumer reads on until a block is free: then the job goes in */
	while ((ret = rp_stream_put(p, &s, t, 0, true)) == -EAGAIN) {
		ck_assert(rp_stream_next(p, &s, false, &out, &widx, &alone));
		ck_assert_uint_eq(out.seq, got++);
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_gt(got, 0);
	put++;
	while (rp_stream_next(p, &s, false, &out, &widx, &alone))
		ck_assert_uint_eq(out.seq, got++);
	ck_assert_uint_eq(got, put);
	ck_assert_uint_le(rp_plan_peak(p), budget + 2 * (64 << 10));	/* the last blocks read */
	rp_task_free(t);

	/* a readdir of 20 000 entries: more than the budget */
	for (i = 0; i < 20000; i++)
		ents[i] = (struct fstap_dirent){ .name = S("entry"), .obj = i + 10 };
	r = (struct fstap_rec){ .op = FSTAP_OP_READDIR, .obj = 2, .nentries = 20000,
				.entries = ents };
	t = task(a, &r, 1);
	ck_assert_int_eq(rp_stream_put(p, &s, t, 3, false), 0);
	ck_assert(rp_stream_next(p, &s, false, &out, &widx, &alone));
	same_task(&out, t);
	rp_task_free(t);
	rp_stream_release(p, &s);
	rp_plan_free(p);
	rp_arena_free(a);
	free(ents);
}
END_TEST

/*
 * Many streams, each holding its last block once read: what is not yet
 * read is what counts, so a plan whose blocks are all such last blocks
 * still takes jobs (a dispatcher waiting for them would wait for ever).
 */
START_TEST(test_plan_many_streams)
{
	struct fstap_rec r = { .op = FSTAP_OP_GETATTR, .obj = 9 };
	static struct rp_stream s[200];
	struct rp_task *t, out = { 0 };
	struct rp_plan *p;
	struct rp_arena *a;
	unsigned i, k, widx;
	bool alone;

	ck_assert_int_eq(rp_arena_new(&a), 0);
	ck_assert_int_eq(rp_plan_new(64 << 10, &p), 0);
	t = task(a, &r, 1);
	for (i = 0; i < 200; i++) {
		rp_stream_init(&s[i]);
		ck_assert_int_eq(rp_plan_add_stream(p, &s[i]), 0);
	}
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 200; i++)
			ck_assert_int_eq(rp_stream_put(p, &s[i], t, i, true), 0);
		for (i = 0; i < 200; i++) {
			ck_assert(rp_stream_next(p, &s[i], false, &out, &widx, &alone));
			ck_assert_uint_eq(widx, i);
		}
	}
	ck_assert_uint_gt(rp_plan_peak(p), 64 << 10);	/* the last blocks: over the budget */
	for (i = 0; i < 200; i++)
		rp_stream_release(p, &s[i]);
	rp_task_free(t);
	rp_plan_free(p);
	rp_arena_free(a);
}
END_TEST

/*
 * A job whose record is a clone (a readdir) of a length that is not a
 * multiple of 8, alone in a block made to its size, then the next job: the
 * block keeps room for the marker after it (ASan, and the bound's check,
 * see an overflow).
 */
START_TEST(test_plan_clone_fits)
{
	struct fstap_dirent ent = { .name = S("a"), .obj = 3 };
	struct fstap_rec r = { .op = FSTAP_OP_READDIR, .obj = 2, .nentries = 1, .entries = &ent },
			 g = { .op = FSTAP_OP_GETATTR, .obj = 3 };
	struct rp_task *t, *u, out = { 0 };
	static char path[3001];
	struct rp_stream s;
	struct rp_plan *p;
	struct rp_arena *a;
	unsigned widx;
	bool alone;

	ck_assert_uint_eq(fstap_rec_clone_size(&r, FSTAP_CLONE_OP) % 8, 1);
	memset(path, 'x', sizeof(path) - 1);
	path[0] = '/';
	ck_assert_int_eq(rp_arena_new(&a), 0);
	ck_assert_int_eq(rp_plan_new(1 << 20, &p), 0);
	rp_stream_init(&s);
	ck_assert_int_eq(rp_plan_add_stream(p, &s), 0);
	t = task(a, &r, 1);
	t->path = path;		/* more than a first block: one of its own size */
	u = task(a, &g, 2);
	ck_assert_int_eq(rp_stream_put(p, &s, t, 0, true), 0);
	ck_assert_int_eq(rp_stream_put(p, &s, u, 0, true), 0);
	ck_assert(rp_stream_next(p, &s, false, &out, &widx, &alone));
	same_task(&out, t);
	ck_assert(rp_stream_next(p, &s, false, &out, &widx, &alone));
	same_task(&out, u);
	rp_task_free(t);
	rp_task_free(u);
	rp_stream_release(p, &s);
	rp_plan_free(p);
	rp_arena_free(a);
}
END_TEST

struct producer {
	struct rp_plan *p;
	struct rp_stream *s;
	struct rp_task *t;
	uint64_t n;
};

static void *produce(void *arg)
{
	struct producer *pr = arg;
	uint64_t i;
	int ret;

	for (i = 1; i <= pr->n; i++) {
		pr->t->seq = i;
		while ((ret = rp_stream_put(pr->p, pr->s, pr->t, 1, true)) == -EAGAIN)
			rp_plan_wait(pr->p);
		ck_assert_int_eq(ret, 0);
	}
	rp_stream_close(pr->s);
	return NULL;
}

/* A consumer thread waits for and reads, in order, what a producer puts, and ends at the close. */
START_TEST(test_plan_threads)
{
	struct fstap_rec r = { .op = FSTAP_OP_READ, .fh = 3, .size = 4096, .result = 4096 };
	struct producer pr = { .n = 200000 };
	struct rp_task out = { 0 };
	struct rp_stream s;
	struct rp_arena *a;
	pthread_t th;
	uint64_t got = 0;
	unsigned widx;
	bool alone;

	ck_assert_int_eq(rp_arena_new(&a), 0);
	ck_assert_int_eq(rp_plan_new(128 << 10, &pr.p), 0);	/* a few blocks: it waits */
	rp_stream_init(&s);
	ck_assert_int_eq(rp_plan_add_stream(pr.p, &s), 0);
	pr.s = &s;
	pr.t = task(a, &r, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, produce, &pr), 0);
	while (rp_stream_next(pr.p, &s, true, &out, &widx, &alone)) {
		ck_assert_uint_eq(out.seq, ++got);
		ck_assert_uint_eq(out.rec.size, 4096);
	}
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_uint_eq(got, pr.n);
	rp_task_free(pr.t);
	rp_stream_release(pr.p, &s);
	rp_plan_free(pr.p);
	rp_arena_free(a);
}
END_TEST

static Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_plan_roundtrip);
	tcase_add_test(tc, test_plan_budget);
	tcase_add_test(tc, test_plan_many_streams);
	tcase_add_test(tc, test_plan_clone_fits);
	tcase_add_test(tc, test_plan_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(plan_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
