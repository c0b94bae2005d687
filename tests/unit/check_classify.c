/*
 * check_classify.c: classify.c's rules, what each recorded request stands
 * for: which lookups the next call's path walk absorbs (a table of cases),
 * which getattrs are the kernel's permission checks, size refreshes or a
 * read at the end of a file, and which writes are parts of one write().
 * Synthetic threads of records, classified as stage.c and dispatch.c do.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstap/trace.h"
#include "tests/unit/fixtures.h"
#include "replay/replay_i.h"

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

START_TEST(test_classify_lookup_table)
{
	unsigned i;

	for (i = 0; i < sizeof(lookup_cases) / sizeof(lookup_cases[0]); i++)
		ck_assert_msg(rp_lookup_absorbed(&lookup_cases[i].l, &lookup_cases[i].n) ==
			      lookup_cases[i].absorbed, "case %u", i);
}
END_TEST

/* The cases with names (not constant initializers above). */
START_TEST(test_classify_lookup_names)
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
	struct rp_fh_hist h = { .n = 0 };
	unsigned i;

	for (i = 0; i < ncls; i++)
		rp_classify_arrived(cls[i], &h);
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

/* Teaches pm that child is named name in dir (a lookup). */
static void name_in(struct fstap_pathmap *pm, uint64_t dir, const char *name, uint64_t child)
{
	struct fstap_rec r = { .op = FSTAP_OP_LOOKUP, .obj = dir, .child = child, .name = B(name) };

	ck_assert_int_eq(fstap_pathmap_apply(pm, &r), 0);
}

/*
 * The walk through a directory whose attributes are stale: GETATTR of the
 * directory, then the call on an object below it (its entries cached).
 */
START_TEST(test_classify_getattr_walk)
{
	struct fstap_pathmap *parents;
	struct rp_task *pc, *n;

	ck_assert_int_eq(fstap_pathmap_new(&parents), 0);
	name_in(parents, 10, "b", 20);	/* 10/20 */
	name_in(parents, 20, "c", 30);	/* 10/20/30 */
	name_in(parents, 10, "e", 40);	/* 10/40 */

	/* stat("d/f") of a cached f in a changed d: GETATTR d, GETATTR f */
	pc = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 10 });
	n = thr((struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 20 });
	rp_classify(true, parents, pc);
	ck_assert(pc->absorbed);
	rp_classify(true, NULL, pc);		/* nothing known of 20's directory */
	ck_assert(!pc->absorbed);
	rp_classify(false, parents, pc);	/* attributes cached: a stat() */
	ck_assert(!pc->absorbed);
	/* deeper: a lookup in 10/20/30, an open of 10/20/30 */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_LOOKUP, .obj = 30, .name = B("x") };
	rp_classify(true, parents, pc);
	ck_assert(pc->absorbed);
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_OPEN, .obj = 30, .fh = 1 };
	rp_classify(true, parents, pc);
	ck_assert(pc->absorbed);
	/* not below it: a stat() of the directory */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 40 };
	pc->rec.obj = 20;
	rp_classify(true, parents, pc);
	ck_assert(!pc->absorbed);
	pc->rec.obj = 10;
	/* calls on a handle walk nothing */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 20, .fh = 3 };
	rp_classify(true, parents, pc);
	ck_assert(!pc->absorbed);
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_READ, .obj = 20, .fh = 3 };
	rp_classify(true, parents, pc);
	ck_assert(!pc->absorbed);
	/* a rename into a directory below */
	n->rec = (struct fstap_rec){ .op = FSTAP_OP_RENAME, .obj = 40, .name = B("a"),
				     .newparent = 30, .newname = B("b") };
	ck_assert(rp_getattr_walk(&(struct fstap_rec){ .op = FSTAP_OP_GETATTR, .obj = 20 },
				  &n->rec, parents));
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
	rp_classify(true, parents, pc);
	ck_assert(pc->absorbed);
	/* a file's stat() then open(): the first is the stat() */
	pc->rec.obj = n->rec.obj = 5;
	cls[2]->rec = (struct fstap_rec){ .op = FSTAP_OP_OPEN, .obj = 5, .fh = 1 };
	rp_classify(true, parents, pc);
	ck_assert(!pc->absorbed);
	thr_reset();
	fstap_pathmap_free(parents);
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

START_TEST(test_classify_write_shapes)
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

static Suite *classify_suite(void)
{
	Suite *s = suite_create("classify");
	TCase *tc = tcase_create("Core");

	tcase_add_test(tc, test_classify_lookup_table);
	tcase_add_test(tc, test_classify_lookup_names);
	tcase_add_test(tc, test_classify_lookups_stat);
	tcase_add_test(tc, test_classify_lookups_issued);
	tcase_add_test(tc, test_classify_getattr_permission);
	tcase_add_test(tc, test_classify_getattr_handle);
	tcase_add_test(tc, test_classify_getattr_after_create);
	tcase_add_test(tc, test_classify_getattr_walk);
	tcase_add_test(tc, test_classify_getattr_after_opendir);
	tcase_add_test(tc, test_classify_write_shapes);
	tcase_add_test(tc, test_classify_split_write);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(classify_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
