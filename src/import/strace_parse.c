/*
 * strace_parse.c: the lines of `strace -f -tt -T -yy -v` (and -ttt, with or
 * without a pid column or "[pid N]"), split into pid, time, call, arguments,
 * result, errno and duration, and the decoding of single arguments: -yy
 * descriptors, quoted strings with strace's escapes, integers and symbolic
 * flags. It knows the text only; strace_import.c gives it meaning.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fstap/hex.h"
#include "fstap/util.h"
#include "import/strace_i.h"

#define RESUMED_OPEN "<... "
#define UNFINISHED " <unfinished ...>"

static size_t skip_spaces(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* Digits from s[*i]: their value; false if there is none. */
static bool read_uint(const char *s, size_t *i, size_t len, uint64_t *v, size_t *ndig)
{
	size_t start = *i;

	*v = 0;
	while (*i < len && isdigit((unsigned char)s[*i]))
		*v = *v * 10 + (uint64_t)(s[(*i)++] - '0');
	if (ndig)
		*ndig = *i - start;
	return *i > start;
}

/* A fraction ".123456" (any precision up to ns) as ns. */
static int64_t read_frac(const char *s, size_t *i, size_t len)
{
	int64_t ns = 0, scale = 100000000;

	if (*i >= len || s[*i] != '.')
		return 0;
	for ((*i)++; *i < len && isdigit((unsigned char)s[*i]); (*i)++) {
		ns += (s[*i] - '0') * scale;
		scale /= 10;
	}
	return ns;
}

/* "HH:MM:SS.frac" or "SECONDS.frac" at s[*i]; false if neither. */
static bool read_time(const char *s, size_t *i, size_t len, int64_t *ns)
{
	size_t j = *i;
	uint64_t h, m, sec;

	if (!read_uint(s, &j, len, &h, NULL))
		return false;
	if (j < len && s[j] == ':') {
		j++;
		if (!read_uint(s, &j, len, &m, NULL) || j >= len || s[j] != ':')
			return false;
		j++;
		if (!read_uint(s, &j, len, &sec, NULL))
			return false;
		*ns = (int64_t)((h * 3600 + m * 60 + sec) * 1000000000ull) + read_frac(s, &j, len);
	} else if (j < len && s[j] == '.') {
		*ns = (int64_t)(h * 1000000000ull) + read_frac(s, &j, len);
	} else {
		return false;
	}
	if (j < len && s[j] != ' ')
		return false;
	*i = j;
	return true;
}

/*
 * The scanner that keeps strace's nested syntax whole: quoted strings, (),
 * [], {}, comments and -yy annotations (<...> after a descriptor number or
 * AT_FDCWD, nesting as in "0</dev/null<char 1:3>>"). Inside an annotation
 * only angle brackets count, so a path may hold any bracket.
 */
struct scan {
	int depth, angle;
	bool quote, comment;
};

/* Advances over s[i]; returns the index after what it consumed. */
static size_t scan_step(struct scan *sc, const char *s, size_t i, size_t len)
{
	char c = s[i];

	if (sc->quote) {
		if (c == '\\' && i + 1 < len)
			return i + 2;
		if (c == '"')
			sc->quote = false;
		return i + 1;
	}
	if (sc->comment) {
		if (c == '*' && i + 1 < len && s[i + 1] == '/') {
			sc->comment = false;
			return i + 2;
		}
		return i + 1;
	}
	if (sc->angle) {
		if (c == '\\' && i + 1 < len)
			return i + 2;
		if (c == '<')
			sc->angle++;
		else if (c == '>')
			sc->angle--;
		return i + 1;
	}
	switch (c) {
	case '"': sc->quote = true; break;
	case '(': case '[': case '{': sc->depth++; break;
	case ')': case ']': case '}': sc->depth--; break;
	case '<':
		if (i > 0 && (isdigit((unsigned char)s[i - 1]) || s[i - 1] == 'D'))
			sc->angle++;
		break;
	case '/':
		if (i + 1 < len && s[i + 1] == '*') {
			sc->comment = true;
			return i + 2;
		}
		break;
	default: break;
	}
	return i + 1;
}

/* The index of the ')' that closes an argument list starting at s[i], or len. */
static size_t args_end(const char *s, size_t i, size_t len)
{
	struct scan sc = { 0 };

	while (i < len) {
		if (!sc.quote && !sc.comment && !sc.angle && sc.depth == 0 && s[i] == ')')
			return i;
		i = scan_step(&sc, s, i, len);
	}
	return len;
}

int st_split_args(struct st_span args, struct st_span *out, int max)
{
	struct scan sc = { 0 };
	const char *s = args.p;
	size_t i = 0, start = 0, len = args.len;
	int n = 0;

	if (len == 0)
		return 0;
	while (i < len) {
		if (!sc.quote && !sc.comment && !sc.angle && sc.depth == 0 && s[i] == ',') {
			if (n < max)
				out[n++] = (struct st_span){ s + start, i - start };
			start = i + 1;
			while (start < len && s[start] == ' ')
				start++;
			i = start;
			continue;
		}
		i = scan_step(&sc, s, i, len);
		if (sc.depth < 0)
			return -EINVAL;
	}
	if (sc.quote || sc.depth || sc.angle || sc.comment)
		return -EINVAL;
	if (n < max)
		out[n++] = (struct st_span){ s + start, len - start };
	return n;
}

/* The "<seconds.frac>" at the end of s[0..*len), removed from it; -1 if none. */
static int64_t take_duration(const char *s, size_t *len)
{
	size_t e = *len, i;
	uint64_t sec;
	int64_t ns;

	while (e && s[e - 1] == ' ')
		e--;
	if (!e || s[e - 1] != '>')
		return -1;
	i = e - 1;
	while (i && s[i - 1] != '<')
		i--;
	if (!i)
		return -1;
	{
		size_t j = i;

		if (!read_uint(s, &j, e - 1, &sec, NULL))
			return -1;
		ns = read_frac(s, &j, e - 1);
		if (j != e - 1)
			return -1;
	}
	*len = i - 1;
	while (*len && s[*len - 1] == ' ')
		(*len)--;
	return (int64_t)sec * 1000000000ll + ns;
}

/* The result after ") = " in s[i..len). */
static int parse_result(const char *s, size_t i, size_t len, struct st_line *l, const char **why)
{
	uint64_t v;
	bool neg = false;
	size_t j;

	i = skip_spaces(s, i, len);
	if (i >= len || s[i] != '=') {
		*why = "no '= RESULT' after the arguments";
		return -EINVAL;
	}
	i = skip_spaces(s, i + 1, len);
	if (i < len && s[i] == '?') {
		l->has_result = false;
		return 0;
	}
	if (i < len && s[i] == '-') {
		neg = true;
		i++;
	}
	if (i + 1 < len && s[i] == '0' && s[i + 1] == 'x') {
		char *end;
		unsigned long long x = strtoull(s + i, &end, 16);

		if (end == s + i + 2) {
			*why = "a result that is not a number";
			return -EINVAL;
		}
		v = x;
		i = (size_t)(end - s);
	} else if (!read_uint(s, &i, len, &v, NULL)) {
		*why = "a result that is not a number";
		return -EINVAL;
	}
	l->has_result = true;
	l->result = neg ? -(int64_t)v : (int64_t)v;
	if (i < len && s[i] == '<') {
		struct scan sc = { 0 };
		size_t start = i;

		sc.angle = 1;
		for (j = i + 1; j < len && sc.angle;)
			j = scan_step(&sc, s, j, len);
		if (sc.angle) {
			*why = "an unterminated <path> after the result";
			return -EINVAL;
		}
		l->result_path = (struct st_span){ s + start + 1, j - start - 2 };
		i = j;
	}
	i = skip_spaces(s, i, len);
	if (neg && l->result == -1 && i < len && s[i] == 'E') {
		size_t e = i;

		while (e < len && (isupper((unsigned char)s[e]) || isdigit((unsigned char)s[e])))
			e++;
		l->err = st_errno_by_name(s + i, e - i);
		if (!l->err) {
			*why = "an unknown errno name";
			return -EINVAL;
		}
		l->result = -l->err;
	}
	return 0;
}

int st_parse_line(const char *line, size_t len, struct st_line *l, const char **why)
{
	const char *s = line;
	size_t i = 0, n;
	uint64_t pid;

	memset(l, 0, sizeof(*l));
	l->dur_ns = -1;
	*why = "not a line of strace output";
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	if (len >= 5 && !memcmp(s, "[pid", 4)) {
		i = skip_spaces(s, 4, len);
		if (!read_uint(s, &i, len, &pid, NULL) || i >= len || s[i] != ']')
			return -EINVAL;
		l->pid = (uint32_t)pid;
		i = skip_spaces(s, i + 1, len);
	} else {
		size_t j = 0;

		if (read_uint(s, &j, len, &pid, NULL) && j < len && s[j] == ' ') {
			l->pid = (uint32_t)pid;
			i = skip_spaces(s, j, len);
		}
	}
	if (i < len && isdigit((unsigned char)s[i])) {
		if (!read_time(s, &i, len, &l->time_ns)) {
			*why = "a malformed time stamp";
			return -EINVAL;
		}
		l->has_time = true;
		i = skip_spaces(s, i, len);
	}
	if (len - i >= 4 && (!memcmp(s + i, "+++ ", 4) || !memcmp(s + i, "--- ", 4))) {
		l->kind = ST_NOTE;
		return 0;
	}
	if (len - i >= strlen(RESUMED_OPEN) && !memcmp(s + i, RESUMED_OPEN, strlen(RESUMED_OPEN))) {
		const char *r = memmem(s + i, len - i, " resumed>", 9);

		i += strlen(RESUMED_OPEN);
		if (!r || (size_t)(r - (s + i)) >= ST_NAME_MAX) {
			*why = "a malformed '<... resumed>'";
			return -EINVAL;
		}
		memcpy(l->name, s + i, (size_t)(r - (s + i)));
		l->kind = ST_RESUMED;
		i = (size_t)(r - s) + 9;
		l->args = (struct st_span){ s + i, len - i };	/* the rest: joined by the importer */
		return 0;
	}
	for (n = 0; i + n < len && (isalnum((unsigned char)s[i + n]) || s[i + n] == '_'); n++)
		;
	if (n == 0 || n >= ST_NAME_MAX || i + n >= len || s[i + n] != '(')
		return -EINVAL;
	memcpy(l->name, s + i, n);
	i += n + 1;
	if (len - i >= strlen(UNFINISHED) &&
	    !memcmp(s + len - strlen(UNFINISHED), UNFINISHED, strlen(UNFINISHED))) {
		l->kind = ST_UNFINISHED;
		l->args = (struct st_span){ s + i, len - strlen(UNFINISHED) - i };
		return 0;
	}
	l->kind = ST_CALL;
	l->dur_ns = take_duration(s, &len);
	{
		size_t e = args_end(s, i, len);

		if (e >= len) {
			*why = "the arguments do not end with ')'";
			return -EINVAL;
		}
		l->args = (struct st_span){ s + i, e - i };
		return parse_result(s, e + 1, len, l, why);
	}
}

/* ---- arguments ----------------------------------------------------------- */

/* One escape at s[*i] (after the backslash) into *out; false if malformed. */
static bool unescape_one(const char *s, size_t *i, size_t len, char *out)
{
	char c;

	if (*i >= len)
		return false;
	c = s[(*i)++];
	switch (c) {
	case 'n': *out = '\n'; return true;
	case 't': *out = '\t'; return true;
	case 'r': *out = '\r'; return true;
	case 'v': *out = '\v'; return true;
	case 'f': *out = '\f'; return true;
	case 'a': *out = '\a'; return true;
	case 'b': *out = '\b'; return true;
	case 'x':
		if (*i + 2 > len || fstap_hex_digit(s[*i]) < 0 || fstap_hex_digit(s[*i + 1]) < 0)
			return false;
		*out = (char)(fstap_hex_digit(s[*i]) << 4 | fstap_hex_digit(s[*i + 1]));
		*i += 2;
		return true;
	default:
		if (c >= '0' && c <= '7') {
			int v = c - '0', k;

			for (k = 0; k < 2 && *i < len && s[*i] >= '0' && s[*i] <= '7'; k++)
				v = v * 8 + (s[(*i)++] - '0');
			*out = (char)v;
			return true;
		}
		*out = c;	/* \\ \" \' */
		return true;
	}
}

int st_unescape_path(const char *p, size_t len, char *out, size_t cap)
{
	size_t i = 0, o = 0;

	while (i < len) {
		char c = p[i++];

		if (c == '\\' && !unescape_one(p, &i, len, &c))
			return -EINVAL;
		if (o + 1 >= cap)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

int st_arg_fd(struct st_span a, int *fd, char *path, size_t cap)
{
	size_t i = 0;
	uint64_t v;
	bool neg = false;

	path[0] = '\0';
	if (a.len >= 8 && !memcmp(a.p, "AT_FDCWD", 8)) {
		*fd = AT_FDCWD;
		i = 8;
	} else {
		if (i < a.len && a.p[i] == '-') {
			neg = true;
			i++;
		}
		if (!read_uint(a.p, &i, a.len, &v, NULL) || v > 1u << 30)
			return -EINVAL;
		*fd = neg ? -(int)v : (int)v;
	}
	if (i < a.len && a.p[i] == '<') {
		/* the path is up to the '<' of a nested annotation, or the last '>' */
		size_t end = a.len;

		if (a.p[end - 1] != '>')
			return -EINVAL;
		end--;
		{
			size_t j;

			for (j = i + 1; j < end; j++) {
				if (a.p[j] == '\\') {
					j++;
					continue;
				}
				if (a.p[j] == '<')
					break;
			}
			if (j < end)
				end = j;
		}
		return st_unescape_path(a.p + i + 1, end - i - 1, path, cap);
	}
	return i == a.len ? 0 : -EINVAL;
}

int st_arg_str(struct st_span a, char *buf, size_t cap, size_t *len, bool *cut)
{
	size_t i = 1, o = 0;

	*cut = false;
	*len = 0;
	if (a.len == 4 && !memcmp(a.p, "NULL", 4))
		return -ENOENT;
	if (a.len < 2 || a.p[0] != '"')
		return -EINVAL;
	while (i < a.len && a.p[i] != '"') {
		char c = a.p[i++];

		if (c == '\\' && !unescape_one(a.p, &i, a.len, &c))
			return -EINVAL;
		if (o + 1 >= cap)
			return -ENAMETOOLONG;
		buf[o++] = c;
	}
	if (i >= a.len)
		return -EINVAL;
	i++;
	if (i + 3 == a.len && !memcmp(a.p + i, "...", 3))
		*cut = true;
	else if (i != a.len)
		return -EINVAL;
	buf[o] = '\0';
	*len = o;
	return 0;
}

int st_arg_int(struct st_span a, int64_t *v)
{
	char tmp[32], *end;

	if (a.len >= 2 && a.p[0] == '[' && a.p[a.len - 1] == ']')
		a = (struct st_span){ a.p + 1, a.len - 2 };
	if (a.len == 0 || a.len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, a.p, a.len);
	tmp[a.len] = '\0';
	errno = 0;
	*v = strtoll(tmp, &end, 0);
	if (*end || errno) {
		unsigned long long u = strtoull(tmp, &end, 0);

		if (*end || errno)
			return -EINVAL;
		*v = (int64_t)u;
	}
	return 0;
}

struct flag_name {
	const char *name;
	uint64_t value;
};

static const struct flag_name flag_names[] = {
	{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_NOCTTY", O_NOCTTY },
	{ "O_TRUNC", O_TRUNC }, { "O_APPEND", O_APPEND }, { "O_NONBLOCK", O_NONBLOCK },
	{ "O_DSYNC", O_DSYNC }, { "O_SYNC", O_SYNC }, { "O_DIRECT", O_DIRECT },
	{ "O_LARGEFILE", O_LARGEFILE }, { "O_DIRECTORY", O_DIRECTORY },
	{ "O_NOFOLLOW", O_NOFOLLOW }, { "O_NOATIME", O_NOATIME }, { "O_CLOEXEC", O_CLOEXEC },
	{ "O_PATH", O_PATH }, { "O_TMPFILE", O_TMPFILE }, { "O_ASYNC", O_ASYNC },
	{ "O_NDELAY", O_NDELAY }, { "O_RSYNC", O_RSYNC },
	{ "AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW }, { "AT_REMOVEDIR", AT_REMOVEDIR },
	{ "AT_SYMLINK_FOLLOW", AT_SYMLINK_FOLLOW }, { "AT_NO_AUTOMOUNT", AT_NO_AUTOMOUNT },
	{ "AT_EMPTY_PATH", AT_EMPTY_PATH }, { "AT_EACCESS", AT_EACCESS },
	{ "AT_STATX_SYNC_AS_STAT", 0 }, { "AT_STATX_FORCE_SYNC", 0x2000 },
	{ "AT_STATX_DONT_SYNC", 0x4000 },
	{ "RENAME_NOREPLACE", 1 }, { "RENAME_EXCHANGE", 2 }, { "RENAME_WHITEOUT", 4 },
	{ "FALLOC_FL_KEEP_SIZE", FALLOC_FL_KEEP_SIZE },
	{ "FALLOC_FL_PUNCH_HOLE", FALLOC_FL_PUNCH_HOLE },
	{ "FALLOC_FL_COLLAPSE_RANGE", FALLOC_FL_COLLAPSE_RANGE },
	{ "FALLOC_FL_ZERO_RANGE", FALLOC_FL_ZERO_RANGE },
	{ "FALLOC_FL_INSERT_RANGE", FALLOC_FL_INSERT_RANGE },
	{ "FALLOC_FL_UNSHARE_RANGE", FALLOC_FL_UNSHARE_RANGE },
	{ "XATTR_CREATE", XATTR_CREATE }, { "XATTR_REPLACE", XATTR_REPLACE },
	{ "SEEK_SET", SEEK_SET }, { "SEEK_CUR", SEEK_CUR }, { "SEEK_END", SEEK_END },
	{ "SEEK_DATA", SEEK_DATA }, { "SEEK_HOLE", SEEK_HOLE },
	{ "F_OK", F_OK }, { "R_OK", R_OK }, { "W_OK", W_OK }, { "X_OK", X_OK },
	{ "S_IFREG", S_IFREG }, { "S_IFDIR", S_IFDIR }, { "S_IFLNK", S_IFLNK },
	{ "S_IFIFO", S_IFIFO }, { "S_IFSOCK", S_IFSOCK }, { "S_IFCHR", S_IFCHR },
	{ "S_IFBLK", S_IFBLK },
	{ "S_ISUID", S_ISUID }, { "S_ISGID", S_ISGID }, { "S_ISVTX", S_ISVTX },
};

int st_arg_flags(struct st_span a, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	if (a.len == 0)
		return -EINVAL;
	while (i < a.len) {
		size_t e = i;
		struct st_span tok;
		int64_t num;
		size_t k;
		bool found = false;

		while (e < a.len && a.p[e] != '|')
			e++;
		tok = (struct st_span){ a.p + i, e - i };
		if (tok.len && (isdigit((unsigned char)tok.p[0]))) {
			if (st_arg_int(tok, &num))
				return -EINVAL;
			*v |= (uint64_t)num;
			found = true;
		}
		for (k = 0; !found && k < ARRAY_SIZE(flag_names); k++) {
			if (strlen(flag_names[k].name) == tok.len &&
			    !memcmp(flag_names[k].name, tok.p, tok.len)) {
				*v |= flag_names[k].value;
				found = true;
			}
		}
		if (!found)
			return -EINVAL;
		i = e + 1;
	}
	return 0;
}

int st_errno_by_name(const char *name, size_t len)
{
	int e;

	for (e = 1; e < 134; e++) {
		const char *n = strerrorname_np(e);

		if (n && strlen(n) == len && !memcmp(n, name, len))
			return e;
	}
	/* strace's names of the kernel's internal restart codes */
	if (len > 8 && !memcmp(name, "ERESTART", 8))
		return EINTR;
	return 0;
}

struct st_span st_field(struct st_span obj, const char *key)
{
	struct st_span f[ST_ARGS_MAX];
	size_t kl = strlen(key);
	int n, i;

	if (obj.len < 2 || obj.p[0] != '{')
		return (struct st_span){ NULL, 0 };
	n = st_split_args((struct st_span){ obj.p + 1, obj.len - 2 }, f, ST_ARGS_MAX);
	for (i = 0; i < n; i++)
		if (f[i].len > kl && !memcmp(f[i].p, key, kl) && f[i].p[kl] == '=')
			return (struct st_span){ f[i].p + kl + 1, f[i].len - kl - 1 };
	return (struct st_span){ NULL, 0 };
}
