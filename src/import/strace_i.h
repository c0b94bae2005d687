/*
 * strace_i.h: reading strace output (strace_parse.c) and turning it into
 * fstap operation records (strace_import.c and the files of imp_i.h).
 *
 * The parser knows strace's text, not file systems: a line is split into
 * its pid, time, call name, arguments (top-level commas; quoted strings,
 * brackets and -yy's <path> annotations kept whole), result, errno and
 * duration. Arguments are decoded on request by the helpers below.
 */
#ifndef FSTAP_STRACE_I_H
#define FSTAP_STRACE_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ST_ARGS_MAX 12
#define ST_NAME_MAX 32

enum st_kind {
	ST_CALL,	/* a whole call: name(args) = result */
	ST_UNFINISHED,	/* name(args <unfinished ...> */
	ST_RESUMED,	/* <... name resumed>args) = result */
	ST_NOTE,	/* +++ exited +++, --- SIGNAL ---, a detach note */
};

/* A piece of the line (borrowed). */
struct st_span {
	const char *p;
	size_t len;
};

struct st_line {
	enum st_kind kind;
	uint32_t pid;		/* 0: the line has no pid (strace without -f) */
	bool has_time;
	int64_t time_ns;	/* -tt: since midnight; -ttt: since the epoch */
	char name[ST_NAME_MAX];
	struct st_span args;	/* between the parentheses (a part for unfinished/resumed) */
	bool has_result;	/* "= N" (not "= ?") */
	int64_t result;		/* the return value; -errno when err */
	int err;		/* errno of a "-1 ENAME (text)" result, else 0 */
	struct st_span result_path;	/* -yy annotation of a descriptor result */
	int64_t dur_ns;		/* -T: <seconds>; -1 if absent */
};

/*
 * Parses one line (without its newline) into l; l's spans point into line.
 * 0, or -EINVAL with *why (static) saying what is wrong.
 */
int st_parse_line(const char *line, size_t len, struct st_line *l, const char **why);

/*
 * Splits an argument text into top-level arguments: their count (at most
 * max), or -EINVAL if brackets or quotes do not balance.
 */
int st_split_args(struct st_span args, struct st_span *out, int max);

/*
 * A descriptor argument: "3</path>", "AT_FDCWD</cwd>", "3": *fd (AT_FDCWD
 * is -100) and its annotation unescaped into path (NUL-terminated; "" if
 * none). 0 or -EINVAL.
 */
int st_arg_fd(struct st_span a, int *fd, char *path, size_t cap);
/*
 * A quoted string: its bytes unescaped into buf (NUL-terminated, *len the
 * length), *cut true when strace printed only a prefix ("..." after it).
 * "NULL" gives -ENOENT; anything else not a string, -EINVAL.
 */
int st_arg_str(struct st_span a, char *buf, size_t cap, size_t *len, bool *cut);
/* An integer (decimal, 0x hex, 0 octal) or "[N]"; 0 or -EINVAL. */
int st_arg_int(struct st_span a, int64_t *v);
/*
 * Symbolic flags "O_WRONLY|O_CREAT|0x80000" (names of open, AT_, rename,
 * fallocate, xattr, lseek, utime and file type flags; numbers): their
 * value. 0 or -EINVAL naming nothing it knows.
 */
int st_arg_flags(struct st_span a, uint64_t *v);
/* The value of field key of a structure "{key=value, ...}", or an empty span. */
struct st_span st_field(struct st_span obj, const char *key);
/* The errno number of a name such as "ENOENT", 0 if unknown. */
int st_errno_by_name(const char *name, size_t len);
/*
 * A path annotation "<...>" unescaped (\xNN, \\ and the like) into out;
 * 0 or -ENAMETOOLONG.
 */
int st_unescape_path(const char *p, size_t len, char *out, size_t cap);

#endif
