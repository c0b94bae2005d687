/*
 * strace_summary.c: the summary of an strace import: the calls counted by
 * name as strace -c counts them (imported below --root, outside it, with
 * no fstap operation, on descriptors opened before the log: every call in
 * one), the calls never resumed and the malformed lines skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/imp_i.h"

void imp_count(struct imp_count *v, int *n, const char *name)
{
	int i;

	for (i = 0; i < *n; i++) {
		if (!strcmp(v[i].name, name)) {
			v[i].n++;
			return;
		}
	}
	if (*n < IMP_COUNTS_MAX) {
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
		v[(*n)++].n = 1;
	}
}

static int cmp_count(const void *a, const void *b)
{
	const struct imp_count *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

static void print_counts(FILE *f, const char *what, uint64_t total, struct imp_count *v, int n)
{
	int i;

	if (!total)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_count);
	fprintf(f, "fstap: %s: %llu calls:", what, (unsigned long long)total);
	for (i = 0; i < n; i++)
		fprintf(f, " %s %llu", v[i].name, (unsigned long long)v[i].n);
	fputc('\n', f);
}

void imp_print_summary(struct imp *im, FILE *f)
{
	const struct strace_import_stats *s = im->st;

	fprintf(f, "fstap: imported %llu operation records from %llu calls on %llu lines"
		" (initial state: %llu objects)\n",
		(unsigned long long)s->records, (unsigned long long)s->calls,
		(unsigned long long)s->lines, (unsigned long long)s->state_objects);
	print_counts(f, "below --root", s->below, im->below, im->nbelow);
	print_counts(f, "outside --root", s->outside, im->outside, im->noutside);
	print_counts(f, "no fstap operation", s->unsupported, im->unsupported, im->nunsupported);
	print_counts(f, "on descriptors opened before the log", s->unknown_fd, im->unknown,
		     im->nunknown);
	if (s->unmatched)
		fprintf(f, "fstap: %llu unfinished calls never resumed\n",
			(unsigned long long)s->unmatched);
	if (s->bad_lines)
		fprintf(f, "fstap: %llu malformed lines skipped\n",
			(unsigned long long)s->bad_lines);
}
