/*
 * summary.c: summary.md, compare's results for people (a mailing list, an
 * issue, a report): the environment the runs had, the command line, the
 * table with its verdicts as compare printed it, and the closing sentence,
 * in Markdown ready to paste.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "?";
}

/* host, kernel, CPUs, memory, load, fstap version and date (results.json's machine). */
static void machine(FILE *f, json_t *m)
{
	json_t *load = json_object_get(m, "loadavg");
	char mem[32];

	fprintf(f, "- host: %s, Linux %s (%s), %lld CPUs (%s), %s of memory\n", str(m, "hostname"),
		str(m, "kernel"), str(m, "arch"), json_integer_value(json_object_get(m, "cpus")),
		str(m, "cpu"), cmp_fmt_bytes((uint64_t)json_integer_value(json_object_get(m,
						"mem_bytes")), mem, sizeof(mem)));
	if (json_array_size(load) == 3)
		fprintf(f, "- load average at the start: %.2f, %.2f, %.2f (1, 5, 15 min)\n",
			json_number_value(json_array_get(load, 0)),
			json_number_value(json_array_get(load, 1)),
			json_number_value(json_array_get(load, 2)));
	fprintf(f, "- fstap %s, %s\n", str(m, "fstap_version"), str(m, "date"));
}

/* One line per candidate: what its first run ran on (the run's device object). */
static void devices(FILE *f, const struct cmp_results *res)
{
	unsigned i, j;

	for (i = 0; i < res->nrows; i++) {
		const struct cmp_row *r = &res->rows[i];
		json_t *d;

		for (j = 0; j < i && res->rows[j].cand != r->cand; j++)
			;
		if (j < i)
			continue;
		for (j = i; j < res->nrows && (res->rows[j].cand != r->cand || !res->rows[j].nruns);
		     j++)
			;
		d = j < res->nrows && res->rows[j].runs[0].raw ?
			json_object_get(res->rows[j].runs[0].raw, "device") : NULL;
		fprintf(f, "- %s: ", r->cand->name);
		if (r->cand->kind == CMP_TARGET)
			fprintf(f, "directory %s", r->cand->dir);
		else
			fprintf(f, "mkfs.%s%s%s", r->cand->fstype, *r->cand->mkfs_opts ? " " : "",
				r->cand->mkfs_opts);
		if (!d) {
			fputc('\n', f);
			continue;
		}
		if (json_object_get(d, "mkfs_version"))
			fprintf(f, " (%s)", str(d, "mkfs_version"));
		if (json_object_get(d, "device"))
			fprintf(f, " on %s", str(d, "device"));
		if (json_is_boolean(json_object_get(d, "direct_io")))
			fprintf(f, ", %s", json_is_true(json_object_get(d, "direct_io")) ?
				"loop device with direct I/O" : "loop device with buffered I/O");
		if (json_is_boolean(json_object_get(d, "rotational")))
			fprintf(f, ", %s", json_is_true(json_object_get(d, "rotational")) ?
				"rotational" : "non-rotational");
		if (json_object_get(d, "scheduler"))
			fprintf(f, ", scheduler %s", str(d, "scheduler"));
		if (json_object_get(d, "mount_options"))
			fprintf(f, "; mounted %s (%s)", str(d, "mount_options"), str(d, "fs_options"));
		fputc('\n', f);
	}
}

int cmp_render_summary(FILE *f, const struct cmp_results *res)
{
	char sentence[2048], *table = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&table, &len);
	int ret;

	if (!mem)
		return -ENOMEM;
	ret = cmp_render_table(mem, res);
	if (fclose(mem) || ret) {
		free(table);
		return -EIO;
	}
	fprintf(f, "# fstap compare: %s\n\n## Environment\n\n", res->trace);
	if (res->machine)
		machine(f, res->machine);
	devices(f, res);
	fprintf(f, "\n## Command line\n\n```\n%s\n```\n", res->cmdline ? res->cmdline : "");
	fprintf(f, "\n## Results\n\n```\n%s```\n", table);
	fprintf(f, "\n## Conclusion\n\n%s\n", cmp_verdict_sentence(res, sentence, sizeof(sentence)));
	free(table);
	return ferror(f) ? -EIO : 0;
}
