/*
 * fixtures.h: synthetic records for the unit tests: a record of any type
 * with every field it carries set to a distinct value, and a comparison
 * that names the first field that differs.
 */
#ifndef FSTAP_TEST_FIXTURES_H
#define FSTAP_TEST_FIXTURES_H

#include "fstap/trace.h"

#include <string.h>

/* A name as a record holds it (not copied): the tests' shorthand. */
static inline struct fstap_bytes B(const char *s)
{
	return (struct fstap_bytes){ (const uint8_t *)s, (uint32_t)strlen(s) };
}

/* Storage for the pointers a fixture record holds. */
struct fixture {
	struct fstap_rec rec;
	char names[4][64];
	struct fstap_dirent entries[3];
	struct fstap_xattr xattrs[2];
	struct fstap_extent extents[3];
	uint8_t blob[16];
	uint64_t u64s[2];
};

/* Fills f->rec as a record of type op; seed varies every value. */
void fixture_fill(struct fixture *f, unsigned op, unsigned seed);
/*
 * NULL if a and b carry the same values in the fields of their type, else
 * the name of the first difference; _all: in every field of the table and
 * the operation header, whatever the type (a field a type does not carry
 * must be 0 in both).
 */
const char *fixture_diff(const struct fstap_rec *a, const struct fstap_rec *b);
const char *fixture_diff_all(const struct fstap_rec *a, const struct fstap_rec *b);
/* Writes a trace of n records cycling through every type; returns 0 or -errno. */
int fixture_write_trace(const char *path, unsigned n, size_t chunk_size, bool footer);
/* A temporary file path under $TMPDIR (caller frees). */
char *fixture_tmpname(const char *tag);

#endif
