/*
 * name.c: the validation of names and paths (name.h).
 */
#include <limits.h>
#include <string.h>

#include "fstap/name.h"

bool fstap_name_valid(struct fstap_bytes name)
{
	if (!name.len || name.len > NAME_MAX)
		return false;
	if (name.ptr[0] == '.' && (name.len == 1 || (name.len == 2 && name.ptr[1] == '.')))
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
		struct fstap_bytes name = { (const uint8_t *)p, (uint32_t)(e - p) };

		if (!fstap_name_valid(name))
			return false;
		p = e;
	}
	return true;
}
