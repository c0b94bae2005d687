/*
 * xattr.c: the extended attribute names a file system keeps on its own
 * (include/fstap/xattr.h says which and why), and the rule of which values
 * a trace keeps.
 */
#include <string.h>

#include "fstap/xattr.h"
#include "fstap/util.h"

static const char *const fs_own[] = { "trusted.SGI_ACL_FILE", "trusted.SGI_ACL_DEFAULT" };

bool fstap_xattr_fs_own(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fs_own); i++)
		if (len == strlen(fs_own[i]) && !memcmp(name, fs_own[i], len))
			return true;
	return false;
}

size_t fstap_xattr_list_len_without_fs_own(const char *list, size_t len)
{
	size_t pos = 0, out = len;

	while (pos < len) {
		const char *end = memchr(list + pos, '\0', len - pos);
		size_t n = end ? (size_t)(end - (list + pos)) : len - pos;

		if (fstap_xattr_fs_own(list + pos, n))
			out -= n + (end != NULL);
		pos += n + 1;
	}
	return out;
}

bool fstap_xattr_value_kept(const char *name, size_t len, uint32_t user_max)
{
	return strncmp(name, "user.", 5) || len <= user_max;
}
