/*
 * output.h: the files fstap commands write, written safely.
 *
 * An output is written to a temporary file in the directory of its final
 * path (".NAME.XXXXXX"), fsync'd and renamed over the final path only when
 * complete, then the directory is fsync'd: readers see the old file or the
 * whole new one, never a part. A failure midway (a full disk, an error, the
 * command killed by SIGINT, SIGTERM or SIGHUP) removes the temporary and
 * leaves the old file as it was. A final path that is a symlink is followed:
 * the file it names is replaced, the symlink stays.
 *
 * An output that is one of the command's inputs (the same device and inode,
 * directly, through a hard link or through a symlink) is refused before
 * anything is written. The path "-" is standard output, written directly
 * (and refused when it is redirected to an input); so is an output that is
 * not a regular file (a device such as /dev/null, a FIFO): nothing is
 * renamed over it.
 *
 * Every function prints its own one-line error (fstap_error) and returns
 * -errno.
 */
#ifndef FSTAP_OUTPUT_H
#define FSTAP_OUTPUT_H

#include <stdio.h>

struct fstap_output;

/*
 * 0 if path may be written by a command that reads inputs (a NULL-terminated
 * list; "-" is standard input; inputs that do not exist are ignored); else
 * -EEXIST, with "fstap: error: the output 'OUT' is the input 'IN' ...".
 */
int fstap_output_check(const char *path, const char *const *inputs);

/* Checks path against inputs, then creates its temporary file. */
int fstap_output_open(struct fstap_output **out, const char *path,
		      const char *const *inputs);
/* The temporary's descriptor (owned by the output). */
int fstap_output_fd(const struct fstap_output *o);
/* A stdio stream on the temporary (owned by the output), NULL without memory. */
FILE *fstap_output_stream(struct fstap_output *o);
/* The final path, as given. */
const char *fstap_output_path(const struct fstap_output *o);
/*
 * Flushes the stream if any, fsyncs, renames the temporary over the final
 * path and fsyncs the directory. Frees o, also on error (the temporary is
 * then removed and the old file kept).
 */
int fstap_output_commit(struct fstap_output *o);
/* Removes the temporary and frees o (NULL is fine): the old file stays. */
void fstap_output_abort(struct fstap_output *o);
/*
 * The whole cycle for a file made by one function: open (checked against
 * inputs), fn(stream, arg) returning 0 or -errno, then commit, or abort on
 * fn's error with "cannot write 'PATH': ...".
 */
int fstap_output_write(const char *path, const char *const *inputs,
		       int (*fn)(FILE *f, void *arg), void *arg);

#endif
