/*
 * name.c: the validation of names and paths (name.h).
 */
#include <limits.h>
#include <string.h>

#include "fstap/name.h"

bool fstap_name_valid(struct fstap_bytes name)
{
	if (!name.len || name.len > NAME_MAX || fstap_name_dots(name.ptr, name.len))
		return false;
	return !memchr(name.ptr, '/', name.len) && !memchr(name.ptr, '\0', name.len);
}

bool fstap_path_valid(const char *path)
{
	const char *p = path;

	if (!path || path[0] != '/' || strnlen(path, PATH_MAX) >= PATH_MAX)
		return false;
	if (!path[1])
		return true;
	while (*p == '/') {
		const char *e = strchrnul(++p, '/');
		size_t len = (size_t)(e - p);

		/* fstap_name_valid, less the '/' and NUL that a component cannot hold */
		if (!len || len > NAME_MAX || fstap_name_dots(p, len))
			return false;
		p = e;
	}
	return true;
}
