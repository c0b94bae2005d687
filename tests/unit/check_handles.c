/*
 * check_handles.c: handles.c, the handle objects the dispatcher names in
 * the tasks: which tasks an open's handle is bound to, what the executors
 * find through it (open, in use, released, replaced by a later open of its
 * fh), when a retired one is reused, and a descriptor never closed under a
 * user on another thread.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/exec_i.h"

static struct rp_task task(unsigned op, uint64_t fh)
{
	return (struct rp_task){ .rec = { .op = op, .fh = fh } };
}

/* A task bound as the dispatcher binds it. */
static struct rp_task bind(struct rp_handles *hs, unsigned op, uint64_t fh)
{
	struct rp_task t = task(op, fh);

	ck_assert_int_eq(rp_handles_bind(hs, &t), 0);
	return t;
}

/* The open of t ran (a descriptor of /dev/null); the descriptor. */
static int opened(const struct rp_task *t)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(rp_handle_opened(t, fd, false), 0);
	return fd;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* An open's handle is named by the tasks on its fh up to its release, not after. */
START_TEST(test_handles_bind)
{
	struct rp_handles hs;
	struct rp_task o, rd, ga, ga0, cfr, rel, late;

	rp_handles_init(&hs);
	o = bind(&hs, FSTAP_OP_OPEN, 7);
	ck_assert_ptr_nonnull(o.h);
	ck_assert_ptr_null(o.h_stale);
	rd = bind(&hs, FSTAP_OP_READ, 7);
	ck_assert_ptr_eq(rd.h, o.h);
	ga = bind(&hs, FSTAP_OP_GETATTR, 7);
	ck_assert_ptr_eq(ga.h, o.h);
	ga0 = bind(&hs, FSTAP_OP_GETATTR, 0);	/* a getattr by path */
	ck_assert_ptr_null(ga0.h);
	cfr = task(FSTAP_OP_COPY_FILE_RANGE, 9);
	cfr.rec.fh2 = 7;
	ck_assert_int_eq(rp_handles_bind(&hs, &cfr), 0);
	ck_assert_ptr_null(cfr.h);	/* fh 9: never opened */
	ck_assert_ptr_eq(cfr.h2, o.h);
	rel = bind(&hs, FSTAP_OP_RELEASE, 7);
	ck_assert_ptr_eq(rel.h, o.h);
	late = bind(&hs, FSTAP_OP_READ, 7);
	ck_assert_ptr_null(late.h);
	ck_assert_uint_eq(atomic_load(&o.h->tasks), 5);	/* open, read, getattr, cfr, release */
	rp_handles_release(&hs);
}
END_TEST

/* What executors find through a handle: open, in use, released. */
START_TEST(test_handles_lifecycle)
{
	struct rp_handles hs;
	struct rp_task o, rd, rel, rel2;
	struct rp_handle *h;
	int64_t res = 0;
	int fd;

	rp_handles_init(&hs);
	o = bind(&hs, FSTAP_OP_OPEN, 3);
	rd = bind(&hs, FSTAP_OP_READ, 3);
	/* not open yet: unknown */
	ck_assert_ptr_null(rp_io_handle(rd.h, &res));
	ck_assert_int_eq(res, RP_E_UNKNOWN);
	ck_assert(!rp_handle_release(rd.h));
	ck_assert_uint_eq(rp_handles_open(&hs), 0);
	fd = opened(&o);
	ck_assert_uint_eq(rp_handles_open(&hs), 1);
	rel = bind(&hs, FSTAP_OP_RELEASE, 3);
	rel2 = bind(&hs, FSTAP_OP_RELEASE, 3);
	ck_assert_ptr_null(rel2.h);
	ck_assert_uint_eq(rp_handles_open(&hs), 0);	/* (the table's: released for good) */
	h = rp_io_handle(rd.h, &res);
	ck_assert_ptr_eq(h, o.h);
	ck_assert_int_eq(h->fd, fd);
	/* released under a user: closed when the user is done */
	ck_assert(rp_handle_release(rel.h));
	ck_assert(fd_open(fd));
	ck_assert_ptr_null(rp_handle_use(rd.h));	/* released: no new user */
	rp_handle_put(h);
	ck_assert(!fd_open(fd));
	ck_assert(!rp_handle_release(rel.h));	/* once */
	ck_assert(!rp_handle_release(rel2.h));
	rp_handles_release(&hs);
}
END_TEST

/* A device node's refused open: a handle without a descriptor. */
START_TEST(test_handles_device)
{
	struct rp_handles hs;
	struct rp_task o, rd;
	int64_t res = 0;

	rp_handles_init(&hs);
	o = bind(&hs, FSTAP_OP_OPEN, 4);
	rd = bind(&hs, FSTAP_OP_WRITE, 4);
	ck_assert_int_eq(rp_handle_opened(&o, -1, false), 0);
	ck_assert_ptr_null(rp_io_handle(rd.h, &res));
	ck_assert_int_eq(res, RP_E_DEVICE_IO);
	ck_assert_uint_eq(rp_handles_open(&hs), 1);	/* left open, as the trace says */
	rp_handles_release(&hs);
}
END_TEST

/* A second open of a fh not released replaces the first one's handle when it opens. */
START_TEST(test_handles_stale)
{
	struct rp_handles hs;
	struct rp_task o1, o2, rd;
	int fd1, fd2;

	rp_handles_init(&hs);
	o1 = bind(&hs, FSTAP_OP_OPEN, 5);
	o2 = bind(&hs, FSTAP_OP_CREATE, 5);
	ck_assert_ptr_eq(o2.h_stale, o1.h);
	ck_assert_ptr_ne(o2.h, o1.h);
	rd = bind(&hs, FSTAP_OP_READ, 5);
	ck_assert_ptr_eq(rd.h, o2.h);
	fd1 = opened(&o1);
	fd2 = opened(&o2);
	ck_assert(!fd_open(fd1));
	ck_assert(fd_open(fd2));
	ck_assert_ptr_null(rp_handle_use(o1.h));
	ck_assert_uint_eq(rp_handles_open(&hs), 1);
	rp_handles_release(&hs);
	ck_assert(!fd_open(fd2));	/* never released: closed at the end */
}
END_TEST

/* A retired handle is reused only once every task that names it has run. */
START_TEST(test_handles_reuse)
{
	struct rp_handles hs;
	struct rp_task o, rd, rel, o2, o3;

	rp_handles_init(&hs);
	o = bind(&hs, FSTAP_OP_OPENDIR, 1);
	rd = bind(&hs, FSTAP_OP_READDIR, 1);
	rel = bind(&hs, FSTAP_OP_RELEASEDIR, 1);
	opened(&o);
	rp_handles_ran(&o);
	ck_assert(rp_handle_release(rel.h));
	rp_handles_ran(&rel);
	o2 = bind(&hs, FSTAP_OP_OPEN, 2);	/* the readdir has not run */
	ck_assert_ptr_ne(o2.h, o.h);
	rp_handles_ran(&rd);
	o3 = bind(&hs, FSTAP_OP_OPEN, 3);
	ck_assert_ptr_eq(o3.h, o.h);
	ck_assert_ptr_null(rp_handle_use(o3.h));	/* not open: a new one */
	ck_assert_int_eq(atomic_load(&o3.h->released), false);
	rp_handles_release(&hs);
}
END_TEST

/* Users on another thread while the handle is released: the descriptor stays theirs. */
struct user_arg {
	struct rp_handle *h;
	int fd;
	unsigned used;
};

static void *user(void *p)
{
	struct user_arg *a = p;
	struct rp_handle *h;

	while ((h = rp_handle_use(a->h))) {
		ck_assert_int_eq(h->fd, a->fd);
		ck_assert(fd_open(h->fd));
		a->used++;
		rp_handle_put(h);
	}
	return NULL;
}

START_TEST(test_handles_threads)
{
	struct rp_handles hs;
	struct rp_task o, rel;
	struct user_arg a[2];
	pthread_t th[2];
	unsigned i;

	rp_handles_init(&hs);
	o = bind(&hs, FSTAP_OP_OPEN, 6);
	rel = bind(&hs, FSTAP_OP_RELEASE, 6);
	for (i = 0; i < 2; i++) {
		a[i] = (struct user_arg){ .h = o.h, .fd = -1 };
		bind(&hs, FSTAP_OP_READ, 6);
	}
	a[0].fd = a[1].fd = opened(&o);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, user, &a[i]), 0);
	usleep(2000);
	ck_assert(rp_handle_release(rel.h));
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert(!fd_open(a[0].fd));
	rp_handles_release(&hs);
}
END_TEST

static Suite *handles_suite(void)
{
	Suite *s = suite_create("handles");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_handles_bind);
	tcase_add_test(tc, test_handles_lifecycle);
	tcase_add_test(tc, test_handles_device);
	tcase_add_test(tc, test_handles_stale);
	tcase_add_test(tc, test_handles_reuse);
	tcase_add_test(tc, test_handles_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(handles_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
