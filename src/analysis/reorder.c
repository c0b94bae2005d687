/*
 * reorder.c: `fstap reorder`: a variant of a trace in which each thread
 * visits the files of a directory in another order (readdir, name, inode, a
 * seeded random order, or the order in which a prepared target's own
 * readdir returns the directory's entries): the order-sensitivity
 * experiment of the news spool case. Only the order and the times of
 * records change; the records themselves, the initial state and the
 * process records are copied.
 *
 * This file is the command: it reads the trace in time order through the
 * plan (reorder_plan.c: groups and runs in reorder_group.c, their new order
 * and times in reorder_order.c), holds the resolved records in a heap and
 * writes them in their new time order as the plan's bound allows.
 */
#include <errno.h>
#include <stdlib.h>

#include <jansson.h>

#include "analysis/reorder_i.h"
#include "fstap/log.h"
#include "fstap/ops.h"
#include "fstap/output.h"
#include "fstap/pathmap.h"
#include "fstap/sort.h"

/* A resolved record waiting for its place in the output. */
struct ready {
	uint64_t t, seq;
	struct fstap_rec *rec;
};

struct outq {
	struct ready *heap;
	size_t n, cap;
	uint64_t seq;		/* of the next record read (operations and metadata) */
	uint64_t last_start;	/* of the latest operation read: where metadata sorts */
	struct fstap_writer *w;
	uint64_t out_end;	/* past the end of every operation written */
};

static bool ready_before(const struct ready *a, const struct ready *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int outq_push(void *arg, const struct mref *m, uint64_t new_t)
{
	struct outq *q = arg;
	size_t i;

	if (FSTAP_GROW(q->heap, q->n + 1, q->cap))
		return -ENOMEM;
	i = q->n++;
	q->heap[i] = (struct ready){ new_t, m->seq, (struct fstap_rec *)m->rec };
	while (i && ready_before(&q->heap[i], &q->heap[(i - 1) / 2])) {
		struct ready t = q->heap[i];

		q->heap[i] = q->heap[(i - 1) / 2];
		q->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static struct ready outq_pop(struct outq *q)
{
	struct ready top = q->heap[0];
	size_t i = 0;

	q->heap[0] = q->heap[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct ready t;

		if (l < q->n && ready_before(&q->heap[l], &q->heap[m]))
			m = l;
		if (r < q->n && ready_before(&q->heap[r], &q->heap[m]))
			m = r;
		if (m == i)
			return top;
		t = q->heap[i];
		q->heap[i] = q->heap[m];
		q->heap[m] = t;
		i = m;
	}
}

/* Writes (w set) or frees the resolved records below low, in time order. */
static int outq_write(struct outq *q, uint64_t low)
{
	int ret = 0;

	while (q->n && q->heap[0].t < low) {
		struct ready r = outq_pop(q);

		if (!ret && q->w) {
			if (!fstap_op_is_meta(r.rec->op)) {
				r.rec->start_ns = r.t;
				if (r.t + r.rec->dur_ns >= q->out_end)
					q->out_end = r.t + r.rec->dur_ns + 1;
			}
			ret = fstap_writer_add(q->w, r.rec);
		}
		free(r.rec);
	}
	return ret;
}

/* One record from the sorter into the plan (operations) or the queue (metadata). */
static int reorder_one(struct plan *p, struct outq *q, const struct fstap_rec *rec)
{
	struct fstap_rec *c = fstap_rec_clone(rec);
	int ret;

	if (!c)
		return -ENOMEM;
	if (!fstap_op_is_meta(c->op)) {
		q->last_start = c->start_ns;
		/* the plan resolves c into q, after an error too (ro_plan_end) */
		return ro_plan_feed(p, c, q->seq++);
	}
	/* the initial state: names, types and inode numbers before any record */
	if ((c->op == FSTAP_OP_STATE_INODE || c->op == FSTAP_OP_STATE_DENTRY) &&
	    (ret = an_objtab_apply(p->objs, p->pm, c))) {
		free(c);
		return ret;
	}
	ret = outq_push(q, &(struct mref){ c, q->seq++ }, q->last_start);
	if (ret)
		free(c);
	return ret;
}

static char *reorder_metadata(struct fstap_reader *r, const char *in, enum an_order by,
			      uint64_t seed, const char *target)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:I}", "tool", "fstap reorder", "source", in,
			      "by", an_order_names[by], "seed", (json_int_t)seed);
	char *step, *meta;

	if (j && target && json_object_set_new(j, "target", json_string(target))) {
		json_decref(j);
		j = NULL;
	}
	step = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	meta = step ? an_metadata_with_transform(fstap_reader_info(r), step) : NULL;

	json_decref(j);
	free(step);
	return meta;
}

/*
 * Reads in through the plan, writes what is resolved as the bound allows.
 * Errors of reading and of memory are printed (*said set), of writing not.
 */
static int reorder_stream(struct fstap_reader *r, struct fstap_sorter *s, struct plan *p,
			  struct outq *q, uint64_t *end_ns, bool *said)
{
	struct fstap_rec rec;
	bool has_footer = false;
	uint64_t n = 0;
	int ret;

	while ((ret = fstap_sorter_next(s, &rec)) == 1) {
		if (rec.op == FSTAP_OP_FOOTER) {
			has_footer = true;
			*end_ns = rec.time_ns;
			continue;
		}
		if (rec.op == FSTAP_OP_WATERMARK)	/* not true of the new order */
			continue;
		if (!fstap_op_is_meta(rec.op) && !has_footer && rec.start_ns + rec.dur_ns > *end_ns)
			*end_ns = rec.start_ns + rec.dur_ns;
		if ((ret = reorder_one(p, q, &rec))) {
			*said = true;
			return fstap_error(ret, "out of memory");
		}
		/* the bound costs a pass over the open runs: not on every record */
		if (++n % 256 == 0 && (ret = outq_write(q, ro_plan_low(p, q->last_start))))
			return ret;
	}
	if (ret < 0) {
		*said = true;
		fstap_error(ret, "%s", fstap_reader_errmsg(r));
	}
	return ret;
}

/* After the stream: the records left, a cut input's watermark, the footer. */
static int reorder_close(struct fstap_reader *r, struct outq *q, uint64_t end_ns)
{
	char line[256];
	int ret = outq_write(q, UINT64_MAX);

	if (!ret && fstap_reader_notice(r, "reordered", line, sizeof(line)))
		fstap_warn("%s; the output has no footer either", line);
	if (!ret && fstap_reader_cut(r)->cut)	/* every record of the output is whole */
		ret = fstap_writer_watermark(q->w, q->out_end);
	if (!ret)
		ret = fstap_writer_close(q->w, end_ns, !fstap_reader_complete(r));
	return ret;
}

/* Frees the records still queued (after an error) and the writer. */
static void outq_free(struct outq *q)
{
	struct fstap_writer *w = q->w;

	q->w = NULL;
	outq_write(q, UINT64_MAX);
	fstap_writer_free(w);
	free(q->heap);
}

int an_reorder(const char *in, const char *out, enum an_order by, uint64_t seed,
	       const char *target, struct an_reorder_stats *st)
{
	struct fstap_reader *r = NULL;
	struct fstap_sorter *s = NULL;
	struct fstap_output *dst = NULL;
	const char *inputs[] = { in, NULL };
	struct an_objtab *objs = NULL;
	struct fstap_pathmap *pm = NULL;
	struct fstap_trace_info info;
	struct outq q = { .out_end = 1 };
	struct plan p = { 0 };
	uint64_t end_ns = 0;
	bool said = false;
	int ret;

	if ((ret = an_open_sorted(in, &r, &s)))
		return ret;
	/* flags as the input's: a cut input's output gets one watermark, at the end */
	info = *fstap_reader_info(r);
	info.metadata_json = reorder_metadata(r, in, by, seed, target);
	if (!info.metadata_json || an_objtab_new(&objs) || fstap_pathmap_new(&pm) ||
	    ro_plan_init(&p, objs, pm, by, seed, target, outq_push, &q)) {
		ret = fstap_error(-ENOMEM, "out of memory");
		goto done;
	}
	/* a dead object is in no open run: its runs ended with its unlink */
	an_objtab_forget_dead(objs, NULL, NULL);
	ret = an_open_trace_output(out, inputs, &info, &dst, &q.w);
	if (ret)
		goto done;
	ret = reorder_stream(r, s, &p, &q, &end_ns, &said);
	if ((ret = ro_plan_end(&p, ret)) == -ENOMEM && !said) {
		said = true;
		fstap_error(ret, "out of memory");
	}
	if (!ret)
		ret = reorder_close(r, &q, end_ns);
	if (ret && !said) {
		fstap_error(ret, "cannot write trace '%s': %s", out, fstap_writer_errmsg(q.w));
	} else if (!ret) {
		ret = fstap_output_commit(dst);
		dst = NULL;
	}
done:
	if (p.threads)
		ro_plan_end(&p, ret);
	outq_free(&q);
	if (st)
		*st = p.st;
	free(info.metadata_json);
	fstap_output_abort(dst);
	an_objtab_free(objs);
	fstap_pathmap_free(pm);
	fstap_sorter_free(s);
	fstap_reader_close(r);
	return ret;
}
