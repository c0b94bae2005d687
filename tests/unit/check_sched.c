/*
 * check_sched.c: the dispatcher's decisions: classify.c's rules (which
 * lookups the next call's path walk absorbs, a table of cases; getattrs;
 * split writes), option parsing, the hash map (rmap.c), task copies and the
 * arena (task.c), and whole runs over small traces written with the trace
 * writer (sched.c): a cross-thread happens-before under every --order,
 * and reordering.
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
#include "replay_i.h"

static struct fstap_bytes B(const char *s)
{
	return (struct fstap_bytes){ (const uint8_t *)s, (uint32_t)strlen(s) };
}

static const struct {
	struct fstap_rec l, n;
	bool absorbed;
} lookup_cases[] = {
	/* stat("a"): lookup + getattr of the child */
	{ { .op = FSTAP_OP_LOOKUP, .obj = 1, .child = 5 }, { .op = FSTAP_OP_GETATTR, .obj = 5 }, true },
	{ { .op = FSTAP_OP_LOOKUP, .obj = 1, .child = 5 }, { .op = FSTAP_OP_GETATTR, .obj = 6 }, false },
	/* open("a") */
	{ { .op = FSTAP_OP_LOOKUP, .obj = 1, .child = 5 }, { .op = FSTAP_OP_OPEN, .obj = 5 }, true },
	/* a failed lookup of the child of nothing, then an open of something else */
	{ { .op = FSTAP_OP_LOOKUP, .obj = 1, .result = -ENOENT }, { .op = FSTAP_OP_OPEN, .obj = 0 }, false },
	/* open("d/f"): lookup d, then a lookup in d */
	{ { .op = FSTAP_OP_LOOKUP, .obj = 1, .child = 5 }, { .op = FSTAP_OP_LOOKUP, .obj = 5 }, true },
	/* a read is not a path walk */
	{ { .op = FSTAP_OP_LOOKUP, .obj = 1, .child = 5 }, { .op = FSTAP_OP_READ, .obj = 5 }, false },
	{ { .op = FSTAP_OP_LOOKUP, .obj = 1, .child = 5 }, { .op = FSTAP_OP_STATFS, .obj = 5 }, true },
};

START_TEST(test_sched_lookup_absorption)
{
	unsigned i;

	for (i = 0; i < sizeof(lookup_cases) / sizeof(lookup_cases[0]); i++)
		ck_assert_msg(rp_lookup_absorbed(&lookup_cases[i].l, &lookup_cases[i].n) ==
			      lookup_cases[i].absorbed, "case %u", i);
}
END_TEST

/* The cases with names (not constant initializers above). */
START_TEST(test_sched_lookup_absorption_names)
{
	struct fstap_rec l = { .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("f"), .result = -ENOENT };
	struct fstap_rec n = { .op = FSTAP_OP_CREATE, .obj = 1, .name = B("f"), .child = 7 };

	ck_assert(rp_lookup_absorbed(&l, &n));		/* open(O_CREAT) */
	n.name = B("g");
	ck_assert(!rp_lookup_absorbed(&l, &n));
	n = (struct fstap_rec){ .op = FSTAP_OP_MKDIR, .obj = 1, .name = B("f") };
	ck_assert(rp_lookup_absorbed(&l, &n));
	n = (struct fstap_rec){ .op = FSTAP_OP_RENAME, .obj = 2, .name = B("x"),
				.newparent = 1, .newname = B("f") };
	ck_assert(rp_lookup_absorbed(&l, &n));		/* rename's target walk */
	n = (struct fstap_rec){ .op = FSTAP_OP_LINK, .obj = 9, .newparent = 1, .newname = B("f") };
	ck_assert(rp_lookup_absorbed(&l, &n));
	l.result = 0;
	l.child = 4;
	n = (struct fstap_rec){ .op = FSTAP_OP_UNLINK, .obj = 1, .name = B("f") };
	ck_assert(rp_lookup_absorbed(&l, &n));
	n = (struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("g") };
	ck_assert(!rp_lookup_absorbed(&l, &n));		/* a stat of a sibling */
	/* stat("f") of an absent f, then open("f", O_CREAT) or rename(x, "f"):
	 * the second lookup of the same entry is the next call's own */
	l = (struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("f"), .result = -ENOENT };
	n = (struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("f"), .result = -ENOENT };
	ck_assert(!rp_lookup_absorbed(&l, &n));
	l.result = 0;
	l.child = 4;
	n.result = 0;
	n.child = 4;
	ck_assert(!rp_lookup_absorbed(&l, &n));
}
END_TEST

/* ---- rp_classify: a thread's records, linked in start order ---------- */

#define NCLS 8
static struct rp_task *cls[NCLS];
static unsigned ncls;
static struct rp_arena *arena;

/* Appends a copy of r to the synthetic thread (start order = call order). */
static struct rp_task *thr(struct fstap_rec r)
{
	struct rp_task *t;

	ck_assert_uint_lt(ncls, NCLS);
	if (!arena)
		ck_assert_int_eq(rp_arena_new(&arena), 0);
	r.start_ns = 100 * (ncls + 1);
	t = rp_task_new(arena, &r);
	ck_assert_ptr_nonnull(t);
	t->tprev = ncls ? cls[ncls - 1] : NULL;
	if (ncls)
		cls[ncls - 1]->tnext = t;
	cls[ncls++] = t;
	return t;
}

/* Classifies every record of the synthetic thread (stale: attr_timeout 0). */
static void classify_all(bool stale)
{
	unsigned i;

	for (i = 0; i < ncls; i++)
		rp_classify(stale, NULL, cls[i]);
}

static void thr_reset(void)
{
	while (ncls)
		rp_task_free(cls[--ncls]);
	rp_arena_free(arena);
	arena = NULL;
}

/* stat("d/f"): LOOKUP d, LOOKUP f, GETATTR f: one fstatat, the getattr. */
START_TEST(test_classify_lookups_stat)
{
	struct rp_task *ld, *lf, *g;

	ld = thr((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("d"), .child = 2 });
	lf = thr((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 2, .name = B("f"), .child = 3 });
	g = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 3 });
	classify_all(true);
	ck_assert(ld->absorbed);	/* a lookup inside the object found */
	ck_assert(lf->absorbed);	/* the getattr acts on the object found */
	ck_assert(!g->absorbed);	/* the application's stat(), issued */
	ck_assert(!g->eof_read);
	thr_reset();
}
END_TEST

/* The last lookup of a thread, or one followed by an unrelated call, is issued. */
START_TEST(test_classify_lookups_issued)
{
	struct rp_task *l1, *r, *l2;

	l1 = thr((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("a"), .child = 5 });
	r = thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 9, .fh = 4, .size = 10, .result = 10 });
	l2 = thr((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("b"), .child = 6 });
	classify_all(true);
	ck_assert(!l1->absorbed);	/* the next call is a read: a stat of "a" */
	ck_assert(!l2->absorbed);	/* nothing follows in this thread */
	(void)r;
	thr_reset();

	/* open("f", O_CREAT): a failed lookup absorbed by the create */
	l1 = thr((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("f"),
				     .result = -ENOENT });
	thr((struct fstap_rec){ .op = FSTAP_OP_CREATE, .obj = 1, .name = B("f"), .child = 7, .fh = 1 });
	classify_all(true);
	ck_assert(l1->absorbed);
	thr_reset();
}
END_TEST

/* Permission-check getattrs: absorbed only when attributes were not cached. */
START_TEST(test_classify_getattr_permission)
{
	struct rp_task *st, *pc, *o;

	/* stat("f"); open("f"): GETATTR (the stat), GETATTR (the check), OPEN */
	st = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5 });
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5 });
	o = thr((struct fstap_rec){ .op = FSTAP_OP_OPEN, .obj = 5, .fh = 3 });
	classify_all(true);
	ck_assert(!st->absorbed);
	ck_assert(pc->absorbed);
	classify_all(false);		/* attributes cached: every getattr is a stat() */
	ck_assert(!st->absorbed);
	ck_assert(!pc->absorbed);
	/* a getattr of another object before the open is a stat() */
	pc->rec.obj = 6;
	classify_all(true);
	ck_assert(!pc->absorbed);
	(void)o;
	thr_reset();

	/* the walk through a directory that changed: GETATTR dir, then CREATE in it */
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 1 });
	thr((struct fstap_rec){ .op = FSTAP_OP_CREATE, .obj = 1, .name = B("n"), .child = 8, .fh = 2 });
	classify_all(true);
	ck_assert(pc->absorbed);
	thr_reset();

	/* rename into a directory: the check of the destination */
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 4 });
	thr((struct fstap_rec){ .op = FSTAP_OP_RENAME, .obj = 1, .name = B("a"), .newparent = 4,
				.newname = B("b") });
	classify_all(true);
	ck_assert(pc->absorbed);
	thr_reset();

	/* a getattr followed by a read of the object is a stat(), issued */
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5 });
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 5, .fh = 3, .size = 4096, .result = 4096 });
	classify_all(true);
	ck_assert(!pc->absorbed);
	thr_reset();
}
END_TEST

/*
 * open(O_CREAT) that creates the file: CREATE, then the open's permission
 * check of the new file (its attributes are stale at once), a GETATTR:
 * absorbed. examples/mixed's copier: the read of the source follows.
 */
START_TEST(test_classify_getattr_after_create)
{
	struct rp_task *l, *pc, *st;

	l = thr((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 1, .name = B("f"),
				    .result = -ENOENT });
	thr((struct fstap_rec){ .op = FSTAP_OP_CREATE, .obj = 1, .name = B("f"), .child = 7, .fh = 2 });
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 7 });
	st = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 7 });
	thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5, .fh = 3 });
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 5, .fh = 3, .size = 4096, .result = 4096 });
	classify_all(true);
	ck_assert(l->absorbed);		/* the create's walk */
	ck_assert(pc->absorbed);	/* the open's check after the create */
	ck_assert(!st->absorbed);	/* a second getattr: the application's stat() */
	/* kept once the create has left the thread's list (dispatched) */
	pc->tprev = NULL;
	rp_classify(true, NULL, pc);
	ck_assert(pc->absorbed);
	pc->tprev = cls[1];
	classify_all(false);		/* attributes cached: no check, a stat() */
	ck_assert(!pc->absorbed);
	/* a getattr of another object after the create is a stat() */
	pc->rec.obj = 8;
	classify_all(true);
	ck_assert(!pc->absorbed);
	pc->rec.obj = 7;
	/* a failed create opened nothing */
	cls[1]->rec.result = -EEXIST;
	classify_all(true);
	ck_assert(!pc->absorbed);
	cls[1]->rec.result = 0;
	/* nor is a getattr with a handle (never a stat) affected by the rule */
	ck_assert(!rp_getattr_after_create(&cls[1]->rec,
					   &(struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 7, .fh = 2 }));
	ck_assert(rp_getattr_after_create(&cls[1]->rec, &pc->rec));
	/* mkdir does not open what it made */
	cls[1]->rec.op = FSTAP_OP_MKDIR;
	classify_all(true);
	ck_assert(!pc->absorbed);
	thr_reset();
}
END_TEST

/* Getattrs with a handle: size refreshes, never issued, except at end of file. */
START_TEST(test_classify_getattr_handle)
{
	struct rp_task *g, *g2;

	/* a refresh before a read of the handle */
	g = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5, .fh = 3 });
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 5, .fh = 3, .offset = 0, .size = 4096,
				.result = 4096 });
	classify_all(true);
	ck_assert(g->absorbed);
	ck_assert(!g->eof_read);
	classify_all(false);		/* whatever the cache mode */
	ck_assert(g->absorbed);
	thr_reset();

	/* read() until 0: a short read, then only the refresh of the read at EOF */
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 5, .fh = 3, .offset = 8192,
				.size = 4096, .result = 1000 });
	g = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5, .fh = 3 });
	thr((struct fstap_rec){ .op = FSTAP_OP_RELEASE, .obj = 5, .fh = 3 });
	classify_all(true);
	ck_assert(!g->absorbed);
	ck_assert(g->eof_read);
	ck_assert_uint_eq(g->rec.offset, 9192);	/* at the end of the short read */
	ck_assert_uint_eq(g->rec.size, 4096);		/* of its size */
	thr_reset();

	/* a short read followed by a refresh and another read: not at EOF */
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 5, .fh = 3, .offset = 0,
				.size = 4096, .result = 1000 });
	g = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5, .fh = 3 });
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 5, .fh = 3, .offset = 1000,
				.size = 4096, .result = 0 });
	classify_all(true);
	ck_assert(g->absorbed);
	ck_assert(!g->eof_read);
	thr_reset();

	/* the last request on the handle was a full read, or on another handle */
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 5, .fh = 3, .size = 4096,
				.result = 4096 });
	g = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5, .fh = 3 });
	thr((struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 6, .fh = 4, .size = 4096,
				.result = 10 });
	g2 = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 5, .fh = 3 });
	classify_all(true);
	ck_assert(g->absorbed && !g->eof_read);
	ck_assert(g2->absorbed && !g2->eof_read);	/* fh 3's last read was full */
	thr_reset();
}
END_TEST

/*
 * The walk through a directory whose attributes are stale: GETATTR of the
 * directory, then the call on an object below it (its entries cached).
 */
START_TEST(test_classify_getattr_walk)
{
	struct rp_map parents;
	struct rp_task *pc, *n;

	rp_map_init(&parents);
	ck_assert_int_eq(rp_map_put(&parents, 20, 10), 0);	/* 10/20 */
	ck_assert_int_eq(rp_map_put(&parents, 30, 20), 0);	/* 10/20/30 */
	ck_assert_int_eq(rp_map_put(&parents, 40, 10), 0);	/* 10/40 */
	ck_assert(rp_below(&parents, 20, 10));
	ck_assert(rp_below(&parents, 30, 10));
	ck_assert(!rp_below(&parents, 10, 20));
	ck_assert(!rp_below(&parents, 40, 20));
	ck_assert(!rp_below(&parents, 10, 10));
	ck_assert(!rp_below(NULL, 20, 10));
	/* a loop (a hostile trace) ends */
	ck_assert_int_eq(rp_map_put(&parents, 50, 51), 0);
	ck_assert_int_eq(rp_map_put(&parents, 51, 50), 0);
	ck_assert(!rp_below(&parents, 50, 10));

	/* stat("d/f") of a cached f in a changed d: GETATTR d, GETATTR f */
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 10 });
	n = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 20 });
	rp_classify(true, &parents, pc);
	ck_assert(pc->absorbed);
	rp_classify(true, NULL, pc);		/* nothing known of 20's directory */
	ck_assert(!pc->absorbed);
	rp_classify(false, &parents, pc);	/* attributes cached: a stat() */
	ck_assert(!pc->absorbed);
	/* deeper: a lookup in 10/20/30, an open of 10/20/30 */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 30, .name = B("x") };
	rp_classify(true, &parents, pc);
	ck_assert(pc->absorbed);
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_OPEN, .obj = 30, .fh = 1 };
	rp_classify(true, &parents, pc);
	ck_assert(pc->absorbed);
	/* not below it: a stat() of the directory */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 40 };
	pc->rec.obj = 20;
	rp_classify(true, &parents, pc);
	ck_assert(!pc->absorbed);
	pc->rec.obj = 10;
	/* calls on a handle walk nothing */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 20, .fh = 3 };
	rp_classify(true, &parents, pc);
	ck_assert(!pc->absorbed);
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 20, .fh = 3 };
	rp_classify(true, &parents, pc);
	ck_assert(!pc->absorbed);
	/* a rename into a directory below */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_RENAME, .obj = 40, .name = B("a"),
				     .newparent = 30, .newname = B("b") };
	ck_assert(rp_getattr_walk(&(struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 20 },
				  &n->rec, &parents));
	thr_reset();

	/* the directory asked for twice, then the walk goes on: both the kernel's */
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 10 });
	n = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 10 });
	thr((struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 10, .name = B("j"), .result = -ENOENT });
	classify_all(true);
	ck_assert(pc->absorbed && n->absorbed);
	cls[2]->rec = (struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 30 };	/* below */
	classify_all(true);
	ck_assert(!pc->absorbed);		/* nothing known of 30's directory */
	rp_classify(true, &parents, pc);
	ck_assert(pc->absorbed);
	/* a file's stat() then open(): the first is the stat() */
	pc->rec.obj = n->rec.obj = 5;
	cls[2]->rec = (struct fstap_rec){ .op = FSTAP_OP_OPEN, .obj = 5, .fh = 1 };
	rp_classify(true, &parents, pc);
	ck_assert(!pc->absorbed);
	thr_reset();
	rp_map_release(&parents);
}
END_TEST

/* glibc's opendir(): OPENDIR with O_NONBLOCK, then its fstat (a GETATTR). */
START_TEST(test_classify_getattr_after_opendir)
{
	struct rp_task *o, *g;

	o = thr((struct fstap_rec){ .op = FSTAP_OP_OPENDIR, .obj = 7, .fh = 2,
				    .flags_arg = O_RDONLY | O_NONBLOCK | O_DIRECTORY });
	g = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 7 });
	thr((struct fstap_rec){ .op = FSTAP_OP_READDIR, .obj = 7, .fh = 2 });
	classify_all(true);
	ck_assert(g->absorbed);		/* the opendir executor issues the fstat */
	classify_all(false);		/* whatever the cache mode */
	ck_assert(g->absorbed);
	/* kept once the opendir has been dispatched */
	g->tprev = NULL;
	rp_classify(true, NULL, g);
	ck_assert(g->absorbed);
	g->tprev = o;
	/* open(O_DIRECTORY) by hand: no fstat of its own; the getattr is one */
	o->rec.flags_arg = O_RDONLY | O_DIRECTORY;
	classify_all(true);
	ck_assert(!g->absorbed);
	/* a failed opendir, or another directory */
	o->rec.flags_arg = O_RDONLY | O_NONBLOCK | O_DIRECTORY;
	o->rec.result = -EACCES;
	classify_all(true);
	ck_assert(!g->absorbed);
	o->rec.result = 0;
	g->rec.obj = 8;
	classify_all(true);
	ck_assert(!g->absorbed);
	thr_reset();
}
END_TEST

/* ---- writes the kernel split -------------------------------------------- */

/* The kernel's GETXATTR of security.capability before a write() (a marker). */
static struct rp_task *thr_marker(uint64_t obj)
{
	struct rp_task *m = thr((struct fstap_rec){ .op = FSTAP_OP_GETXATTR, .obj = obj,
						    .flags = FSTAP_RF_KERNEL,
						    .name = B("security.capability"),
						    .result = -ENODATA });

	m->marker = rp_write_marker(&m->rec);
	ck_assert(m->marker);
	return m;
}

static struct rp_task *thr_write(uint64_t off, uint64_t size)
{
	return thr((struct fstap_rec){ .op = FSTAP_OP_WRITE, .obj = 5, .fh = 3, .offset = off,
				       .size = size, .result = (int64_t)size });
}

START_TEST(test_sched_write_shapes)
{
	struct fstap_rec m = { .op = FSTAP_OP_GETXATTR, .obj = 5, .flags = FSTAP_RF_KERNEL,
			       .name = B("security.capability"), .result = -ENODATA };
	struct fstap_rec a = { .op = FSTAP_OP_WRITE, .obj = 5, .fh = 3, .offset = 32394,
			       .size = 374, .result = 374 };
	struct fstap_rec b = { .op = FSTAP_OP_WRITE, .obj = 5, .fh = 3, .offset = 32768,
			       .size = 3722, .result = 3722 };

	ck_assert(rp_write_marker(&m));
	m.result = 0;				/* a capability is set: still one */
	ck_assert(rp_write_marker(&m));
	m.result = -ENOSYS;			/* the kernel stops asking */
	ck_assert(!rp_write_marker(&m));
	m.result = -ENODATA;
	m.flags = 0;				/* the application's own getxattr */
	ck_assert(!rp_write_marker(&m));
	m.flags = FSTAP_RF_KERNEL;
	m.name = B("security.selinux");
	ck_assert(!rp_write_marker(&m));

	ck_assert(rp_write_continues(&a, &b));	/* samba-xattr's pwrite of 4096 at 32394 */
	b.fh = 4;
	ck_assert(!rp_write_continues(&a, &b));	/* another handle */
	b.fh = 3;
	b.offset = 32769;
	ck_assert(!rp_write_continues(&a, &b));	/* not where a ended */
	a.size = 375;
	a.result = 375;
	ck_assert(!rp_write_continues(&a, &b));	/* not at a page boundary */
	a.size = 374;
	a.result = 300;
	b.offset = 32768;
	ck_assert(!rp_write_continues(&a, &b));	/* a was short: the call ended there */
	a.result = 374;
	b.result = -ENOSPC;
	ck_assert(!rp_write_continues(&a, &b));
	b.result = 3722;
	b.flags = FSTAP_RF_KERNEL;		/* writeback */
	ck_assert(!rp_write_continues(&a, &b));
}
END_TEST

START_TEST(test_classify_split_write)
{
	struct rp_task *w1, *w2, *w3;

	/* one pwrite of 4096 at 32394: marker, [32394, 32768), [32768, 36490) */
	thr_marker(5);
	w1 = thr_write(32394, 374);
	w2 = thr_write(32768, 3722);
	classify_all(true);
	ck_assert(w1->marked && !w1->absorbed);
	ck_assert(!w2->marked && w2->absorbed);
	/* kept when the first part has been dispatched */
	w2->tprev = NULL;
	rp_classify(true, NULL, w2);
	ck_assert(w2->absorbed);
	w2->tprev = w1;
	ck_assert_uint_eq(rp_merge_split_write(w1), 1);
	ck_assert(w2->merged);
	ck_assert_uint_eq(w1->rec.offset, 32394);
	ck_assert_uint_eq(w1->rec.size, 4096);
	ck_assert_int_eq(w1->rec.result, 4096);
	ck_assert_uint_eq(rp_merge_split_write(w1), 0);	/* taken once */
	thr_reset();

	/* two writes of 512: each has its marker, nothing merges */
	thr_marker(5);
	w1 = thr_write(3584, 512);
	thr_marker(5);
	w2 = thr_write(4096, 512);
	classify_all(true);
	ck_assert(w1->marked && w2->marked);
	ck_assert(!w2->absorbed);
	ck_assert_uint_eq(rp_merge_split_write(w1), 0);
	thr_reset();

	/* no markers at all (direct I/O, a hand-made trace): not merged */
	w1 = thr_write(3584, 512);
	w2 = thr_write(4096, 512);
	classify_all(true);
	ck_assert(!w1->marked && !w2->absorbed);
	ck_assert_uint_eq(rp_merge_split_write(w1), 0);
	ck_assert_uint_eq(w1->rec.size, 512);
	thr_reset();

	/* a write of 300000 at 0 cut at max_write (128 KiB): three parts */
	thr_marker(5);
	w1 = thr_write(0, 131072);
	w2 = thr_write(131072, 131072);
	w3 = thr_write(262144, 37856);
	thr((struct fstap_rec){ .op = FSTAP_OP_FLUSH, .obj = 5, .fh = 3 });
	classify_all(true);
	ck_assert(w2->absorbed && w3->absorbed);
	ck_assert_uint_eq(rp_merge_split_write(w1), 2);
	ck_assert_uint_eq(w1->rec.size, 300000);
	ck_assert(w2->merged && w3->merged);
	thr_reset();

	/* the marker of another file does not mark this one */
	thr_marker(6);
	w1 = thr_write(32394, 374);
	w2 = thr_write(32768, 3722);
	classify_all(true);
	ck_assert(!w1->marked && !w2->absorbed);
	thr_reset();
}
END_TEST

/* ---- the classification within a run: per thread, in start order ------- */

static char trace_path[256], dir_path[256];
static struct fstap_writer *w;

static void add(struct fstap_rec r);
static struct rp_result *run(enum rp_order order);

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

START_TEST(test_sched_option_parsing)
{
	enum rp_order o;
	unsigned pct;

	ck_assert_int_eq(rp_order_parse("resource", &o), 0);
	ck_assert_int_eq(o, RP_ORDER_RESOURCE);
	ck_assert_str_eq(rp_order_name(RP_ORDER_NONE), "none");
	ck_assert_int_eq(rp_order_parse("global", &o), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("afap", &pct), 0);
	ck_assert_uint_eq(pct, 0);
	ck_assert_int_eq(rp_pace_parse("orig", &pct), 0);
	ck_assert_uint_eq(pct, 100);
	ck_assert_int_eq(rp_pace_parse("250%", &pct), 0);
	ck_assert_uint_eq(pct, 250);
	ck_assert_int_eq(rp_pace_parse("0%", &pct), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("50", &pct), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("-5%", &pct), -EINVAL);
	ck_assert_int_eq(rp_pace_parse("fast", &pct), -EINVAL);
}
END_TEST

START_TEST(test_sched_map)
{
	struct rp_map m;
	uint64_t k, v;

	rp_map_init(&m);
	ck_assert_ptr_null(rp_map_get(&m, 5));
	for (k = 1; k <= 20000; k++)
		ck_assert_int_eq(rp_map_put(&m, k * 7919, k), 0);
	ck_assert_uint_eq(m.n, 20000);
	/* Delete every other key: the rest must stay reachable (backward shift). */
	for (k = 2; k <= 20000; k += 2) {
		ck_assert(rp_map_del(&m, k * 7919, &v));
		ck_assert_uint_eq(v, k);
	}
	ck_assert(!rp_map_del(&m, 2 * 7919, NULL));
	for (k = 1; k <= 20000; k++) {
		uint64_t *p = rp_map_get(&m, k * 7919);

		if (k % 2)
			ck_assert(p && *p == k);
		else
			ck_assert_ptr_null(p);
	}
	ck_assert_uint_eq(m.n, 10000);
	ck_assert_int_eq(rp_map_put(&m, 0, 1), -EINVAL);
	rp_map_release(&m);
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

/* The arena: blocks reused once empty, out-of-order releases, large allocations. */
START_TEST(test_sched_arena)
{
	static void *p[20000];	/* about 6 MiB: three blocks or more */
	struct rp_arena *a;
	unsigned i;
	char *big;

	ck_assert_int_eq(rp_arena_new(&a), 0);
	for (i = 0; i < 20000; i++) {
		p[i] = rp_arena_alloc(a, 100 + i % 300);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % 64, 0);	/* a line each */
		memset(p[i], (int)i, 100);
	}
	ck_assert_uint_gt(rp_arena_blocks(a), 2);
	for (i = 0; i < 20000; i++)	/* nothing overlapped */
		ck_assert_uint_eq(((unsigned char *)p[i])[99], (unsigned char)i);
	for (i = 1; i < 20000; i += 2)	/* every other one: every block stays */
		rp_arena_release(p[i]);
	ck_assert_uint_gt(rp_arena_blocks(a), 2);
	for (i = 0; i < 20000; i += 2)
		rp_arena_release(p[i]);
	ck_assert_uint_eq(rp_arena_blocks(a), 1);	/* the current one */
	big = rp_arena_alloc(a, 3u << 20);	/* a block of its own */
	ck_assert_ptr_nonnull(big);
	memset(big, 1, 3u << 20);
	ck_assert_uint_eq(rp_arena_blocks(a), 2);
	p[0] = rp_arena_alloc(a, 10);
	rp_arena_release(big);
	ck_assert_uint_eq(rp_arena_blocks(a), 1);
	rp_arena_release(p[0]);
	rp_arena_free(a);
}
END_TEST

START_TEST(test_sched_task_copy)
{
	struct fstap_dirent ents[2] = { { .name = { (const uint8_t *)"a", 1 }, .obj = 3 },
					{ .name = { (const uint8_t *)"bb", 2 }, .obj = 4 } };
	char name[] = "name", target[] = "tgt";
	struct fstap_rec r = { .op = FSTAP_OP_READDIR, .obj = 2, .fh = 9, .nentries = 2,
			       .entries = ents, .name = B(name), .target = B(target) };
	struct rp_arena *a;
	struct rp_task *t;

	ck_assert_int_eq(rp_arena_new(&a), 0);
	t = rp_task_new(a, &r);
	ck_assert_ptr_nonnull(t);
	memset(name, 'x', 4);
	memset(target, 'y', 3);
	ents[1].name.ptr = (const uint8_t *)"zz";
	ck_assert_int_eq(memcmp(t->rec.name.ptr, "name", 4), 0);
	ck_assert_int_eq(memcmp(t->rec.target.ptr, "tgt", 3), 0);
	ck_assert_uint_eq(t->rec.nentries, 2);
	ck_assert_int_eq(memcmp(t->rec.entries[1].name.ptr, "bb", 2), 0);
	ck_assert_uint_eq(t->rec.entries[1].obj, 4);
	for (unsigned i = 0; i < 40; i++)
		ck_assert_int_eq(rp_task_add_dep(t, NULL, i), 0);
	ck_assert_uint_eq(t->ndeps, 40);
	rp_task_free(t);
	rp_arena_free(a);
}
END_TEST

/* ---- whole runs --------------------------------------------------------- */

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

static struct rp_result *run(enum rp_order order)
{
	struct rp_options o = { .trace = trace_path, .dir = dir_path, .order = order };
	struct rp_result *r = NULL;

	ck_assert_int_eq(rp_run(&o, &r), 0);
	return r;
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
	struct fstap_trace_info info = { .version_major = 1 };
	struct rp_result *r;
	char p[300];
	int fd;

	snprintf(p, sizeof(p), "%s/f", dir_path);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	if (setxattr(p, "user.v", "old", 3, 0))
		return;	/* no user xattrs here: nothing to test */
	ck_assert_int_eq(fstap_writer_open(&w, trace_path, &info, 4096), 0);
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 1, .mode = 040755 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_INODE, .obj = 5, .mode = 0100644 });
	add((struct fstap_rec){ .op = FSTAP_OP_STATE_DENTRY, .obj = 1, .name = B("f"),
				.child = 5 });
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

/* Races in the recording: overlapping, another thread, one of the two changing. */
START_TEST(test_sched_race_check)
{
	struct fstap_rec set = { .op = FSTAP_OP_SETXATTR, .tid = 1, .obj = 5,
				 .start_ns = 1000, .dur_ns = 500 };
	struct fstap_rec get = { .op = FSTAP_OP_GETXATTR, .tid = 2, .obj = 5,
				 .start_ns = 1200, .dur_ns = 100 };
	struct rp_map m;
	bool raced;

	rp_map_init(&m);
	ck_assert_int_eq(rp_race_check(&m, &set, &raced), 0);
	ck_assert(!raced);
	/* a read of another thread while the change was under way */
	ck_assert_int_eq(rp_race_check(&m, &get, &raced), 0);
	ck_assert(raced);
	/* the same thread, or after the change ended, or another object: no race */
	get.tid = 1;
	ck_assert_int_eq(rp_race_check(&m, &get, &raced), 0);
	ck_assert(!raced);
	get.tid = 2, get.start_ns = 1600;
	ck_assert_int_eq(rp_race_check(&m, &get, &raced), 0);
	ck_assert(!raced);
	get.obj = 6, get.start_ns = 1300;
	ck_assert_int_eq(rp_race_check(&m, &get, &raced), 0);
	ck_assert(!raced);
	/* two reads overlap: no race; a change during another thread's read: a race */
	get.obj = 5, get.tid = 3, get.start_ns = 1650, get.dur_ns = 1000;
	ck_assert_int_eq(rp_race_check(&m, &get, &raced), 0);
	ck_assert(!raced);
	set.tid = 4, set.start_ns = 2000;
	ck_assert_int_eq(rp_race_check(&m, &set, &raced), 0);
	ck_assert(raced);
	rp_races_release(&m);
}
END_TEST

static Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("Core"), *runs = tcase_create("Runs");

	tcase_add_test(tc, test_sched_lookup_absorption);
	tcase_add_test(tc, test_sched_lookup_absorption_names);
	tcase_add_test(tc, test_classify_lookups_stat);
	tcase_add_test(tc, test_classify_lookups_issued);
	tcase_add_test(tc, test_classify_getattr_permission);
	tcase_add_test(tc, test_classify_getattr_handle);
	tcase_add_test(tc, test_classify_getattr_after_create);
	tcase_add_test(tc, test_classify_getattr_walk);
	tcase_add_test(tc, test_classify_getattr_after_opendir);
	tcase_add_test(tc, test_sched_write_shapes);
	tcase_add_test(tc, test_classify_split_write);
	tcase_add_test(tc, test_sched_option_parsing);
	tcase_add_test(tc, test_sched_map);
	tcase_add_test(tc, test_sched_arena);
	tcase_add_test(tc, test_sched_task_copy);
	tcase_add_test(tc, test_sched_race_check);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(runs, setup, teardown);
	tcase_add_test(runs, test_sched_run_cross_thread);
	tcase_add_test(runs, test_sched_run_thread_order_long_release);
	tcase_add_test(runs, test_sched_run_errors);
	tcase_add_test(runs, test_sched_run_absorption);
	tcase_add_test(runs, test_sched_run_split_write);
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
