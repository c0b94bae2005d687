/*
 * name.h: what a name and a path in a trace must be before fstap uses them
 * on a real file system (prepare and replay), with one limit each: NAME_MAX
 * bytes for a name, PATH_MAX for a path; and the one test of "." and "..".
 */
#ifndef FSTAP_NAME_H
#define FSTAP_NAME_H

#include <stdbool.h>
#include <stddef.h>

#include "fstap/trace.h"

/*
 * The len bytes at p as a name: 1 for ".", 2 for "..", 0 for any other
 * (a name of a directory entry, a path's component; not NUL-terminated).
 */
static inline int fstap_name_dots(const void *p, size_t len)
{
	const char *s = p;

	if (len == 1 && s[0] == '.')
		return 1;
	return len == 2 && s[0] == '.' && s[1] == '.' ? 2 : 0;
}
/* One directory entry's name: 1 to NAME_MAX bytes, not "." or "..", no '/' and no NUL. */
bool fstap_name_valid(struct fstap_bytes name);
/*
 * An absolute path: "/", or '/'-separated names that are each
 * fstap_name_valid (so no empty component, no trailing '/'), shorter than
 * PATH_MAX with its NUL.
 */
bool fstap_path_valid(const char *path);

#endif
