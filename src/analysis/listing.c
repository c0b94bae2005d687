/*
 * listing.c: a directory's order as a file system returns it: the names
 * readdir gives for a directory of a prepared target, each with its
 * position, sorted by name for the lookups of `fstap reorder
 * --by=target-readdir` (reorder_order.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "fstap/name.h"
#include "fstap/util.h"

struct an_listing_entry {
	char *name;
	uint64_t pos;	/* 1-based place in readdir order */
};

struct an_listing {
	struct an_listing_entry *e;
	size_t n, cap;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct an_listing_entry *)a)->name,
		      ((const struct an_listing_entry *)b)->name);
}

int an_listing_read(const char *dir, struct an_listing **out)
{
	struct an_listing *l = calloc(1, sizeof(*l));
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	*out = NULL;
	if (!l || !d) {
		ret = !l ? -ENOMEM : -errno;
		free(l);
		if (d)
			closedir(d);
		return ret;
	}
	while ((de = readdir(d))) {
		if (fstap_name_dots(de->d_name, strlen(de->d_name)))
			continue;
		if (FSTAP_GROW(l->e, l->n + 1, l->cap) ||
		    !(l->e[l->n].name = strdup(de->d_name))) {
			ret = -ENOMEM;
			break;
		}
		l->e[l->n].pos = l->n + 1;
		l->n++;
	}
	closedir(d);
	if (ret) {
		an_listing_free(l);
		return ret;
	}
	if (l->n)
		qsort(l->e, l->n, sizeof(*l->e), by_name);
	*out = l;
	return 0;
}

uint64_t an_listing_pos(const struct an_listing *l, const char *name)
{
	struct an_listing_entry key = { (char *)name, 0 }, *hit;

	if (!l || !l->n || !name)
		return 0;
	hit = bsearch(&key, l->e, l->n, sizeof(*l->e), by_name);
	return hit ? hit->pos : 0;
}

void an_listing_free(struct an_listing *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
	free(l);
}
