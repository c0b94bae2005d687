/*
 * xattr.h: extended attribute names that a file system keeps on its own, and
 * which values a trace keeps.
 *
 * xfs lists each POSIX ACL a second time, in its own format, as
 * trusted.SGI_ACL_FILE and trusted.SGI_ACL_DEFAULT (to callers with
 * CAP_SYS_ADMIN). They follow system.posix_acl_access and _default: setting
 * an ACL makes them, and they are not the application's. The recorder's
 * snapshot and prepare leave them out, and a replayed listxattr that finds
 * only them in excess of the recording is not a divergence.
 */
#ifndef FSTAP_XATTR_H
#define FSTAP_XATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether name (len bytes, not NUL-terminated) is a file system's own. */
bool fstap_xattr_fs_own(const char *name, size_t len);
/* The length of a listxattr list (len bytes) without the file system's own names. */
size_t fstap_xattr_list_len_without_fs_own(const char *list, size_t len);
/*
 * Whether the value (len bytes) of xattr name is recorded: always, but for
 * user.* values longer than user_max (--xattr-values). The recorder's one
 * rule, for its operation records and its initial state alike.
 */
bool fstap_xattr_value_kept(const char *name, size_t len, uint32_t user_max);

#endif
