/*
 * name.h: what a name and a path in a trace must be before fstap uses them
 * on a real file system (prepare and replay), with one limit each: NAME_MAX
 * bytes for a name, PATH_MAX for a path.
 */
#ifndef FSTAP_NAME_H
#define FSTAP_NAME_H

#include <stdbool.h>

#include "fstap/trace.h"

/* One directory entry's name: 1 to NAME_MAX bytes, not "." or "..", no '/' and no NUL. */
bool fstap_name_valid(struct fstap_bytes name);
/*
 * An absolute path: "/", or '/'-separated names that are each
 * fstap_name_valid (so no empty component, no trailing '/'), shorter than
 * PATH_MAX with its NUL.
 */
bool fstap_path_valid(const char *path);

#endif
