/*
 * passthrough_i.h: what the passthrough's files (passthrough.c,
 * passthrough_files.c, passthrough_attrs.c) share: the /proc/self/fd path of
 * a descriptor, the caller's credentials around a call, the entry of a
 * created object. Not a public API: src/record/ only.
 */
#ifndef FSTAP_RECORD_PASSTHROUGH_I_H
#define FSTAP_RECORD_PASSTHROUGH_I_H

#include <stdbool.h>

#include "record/record_i.h"

/* The supplementary groups of a caller taken into account, at most. */
#define PT_GROUPS_MAX 256

/* "/proc/self/fd/N" without stdio formatting. */
struct procpath {
	char s[32];
};

/* Whether the daemon runs as root, which alone can take a caller's ids (pt_fs_init). */
extern bool pt_is_root;

const char *pt_procpath(struct procpath *p, int fd);
/*
 * Sets this thread's fsuid and fsgid (and, with groups, its supplementary
 * groups) to the caller's; pt_cred_leave sets them back. NULL c: nothing.
 */
void pt_cred_enter(const struct pt_cred *c, bool groups);
void pt_cred_leave(const struct pt_cred *c, bool groups);
/* Whether a call that failed with ret is worth a retry with the groups. */
bool pt_cred_retry(const struct pt_cred *c, int ret);
/* Finishes an entry created or found as (pfd, name) in parent. 0 or -errno. */
int pt_make_entry(struct pt_fs *fs, const struct rinode *parent, int pfd, const char *name,
		  struct pt_entry *e);

#endif
