/* common.c: the shared part of the example workloads (see common.h): errors,
 * counters, the PRNG, the command line, paths, memory, threads, time and the
 * summary; the system-call wrappers are in common_sys.c. */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

const char *ex_progname = "example";
struct ex_common ex;
static const struct ex_prog *prog;

static const char *const op_names[OP_COUNT_] = {
	[OP_MKDIR] = "mkdir",
	[OP_RMDIR] = "rmdir",
	[OP_CREATE] = "create",
	[OP_OPEN] = "open",
	[OP_CLOSE] = "close",
	[OP_READ] = "read",
	[OP_WRITE] = "write",
	[OP_STAT] = "stat",
	[OP_OPENDIR] = "opendir",
	[OP_READDIR] = "readdir",
	[OP_CLOSEDIR] = "closedir",
	[OP_UNLINK] = "unlink",
	[OP_RENAME] = "rename",
	[OP_FSYNC] = "fsync",
	[OP_FDATASYNC] = "fdatasync",
	[OP_GETXATTR] = "getxattr",
	[OP_SETXATTR] = "setxattr",
};

/* ---- errors ---- */
static pthread_mutex_t die_lock = PTHREAD_MUTEX_INITIALIZER;

void ex_die(const char *fmt, ...)
{
	char msg[EX_PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* Several threads may fail at once: the first one reports and ends the
	 * process; the others block here until it is gone. _exit, because exit
	 * is not safe while other threads run. */
	pthread_mutex_lock(&die_lock);
	fprintf(stderr, "%s: error: %s\n", ex_progname, msg);
	fflush(stderr);
	_exit(1);
}

void ex_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: usage error: ", ex_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", ex_progname);
}

/* ---- counters ---- */
void ex_stats_add(struct ex_stats *into, const struct ex_stats *from)
{
	for (int i = 0; i < OP_COUNT_; i++)
		into->ops[i] += from->ops[i];
	into->bytes_read += from->bytes_read;
	into->bytes_written += from->bytes_written;
}

uint64_t ex_stats_total(const struct ex_stats *s)
{
	uint64_t t = 0;

	for (int i = 0; i < OP_COUNT_; i++)
		t += s->ops[i];
	return t;
}

/* ---- PRNG ---- */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void ex_rng_seed(struct ex_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL);

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ex_rng_next(struct ex_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t ex_rng_below(struct ex_rng *r, uint64_t n)
{
	/* Rejection sampling: no modulo bias. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = ex_rng_next(r);
	while (x >= limit);
	return x % n;
}

uint64_t ex_rng_range(struct ex_rng *r, uint64_t lo, uint64_t hi)
{
	if (hi - lo == UINT64_MAX)
		return ex_rng_next(r);
	return lo + ex_rng_below(r, hi - lo + 1);
}

void ex_rng_fill(struct ex_rng *r, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len >= 8) {
		uint64_t x = ex_rng_next(r);
		memcpy(p, &x, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t x = ex_rng_next(r);
		memcpy(p, &x, len);
	}
}

void ex_rng_shuffle(struct ex_rng *r, void *base, size_t n, size_t sz)
{
	unsigned char *b = base;
	unsigned char tmp[64];

	if (sz > sizeof tmp)
		ex_die("internal: shuffle element too large");
	for (size_t i = n; i > 1; i--) {
		size_t j = ex_rng_below(r, i);
		if (j != i - 1) {
			memcpy(tmp, b + j * sz, sz);
			memcpy(b + j * sz, b + (i - 1) * sz, sz);
			memcpy(b + (i - 1) * sz, tmp, sz);
		}
	}
}

/* ---- command line ---- */
int ex_parse_long(const char *opt, const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		ex_usage_error("%s: '%s' is not a number from %ld to %ld", opt, arg, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int ex_parse_bytes(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	errno = 0;
	if (arg[0] == '-' || arg[0] == '\0')
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg)
		goto bad;
	switch (*end) {
	case 'k': case 'K': mult = 1024; end++; break;
	case 'm': case 'M': mult = 1024 * 1024; end++; break;
	case 'g': case 'G': mult = 1024ULL * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'i' && mult > 1)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		goto bad;
	if (v > UINT64_MAX / mult || v * mult < min || v * mult > max)
		goto bad;
	*out = v * mult;
	return 0;
bad:
	ex_usage_error("%s: '%s' is not a size from %llu to %llu bytes (suffixes K, M, G)", opt, arg,
		       (unsigned long long)min, (unsigned long long)max);
	return -1;
}

/* Writes the NULL-terminated names into buf as "a, b, c", with last_sep
 * instead of ", " before the last one (truncated to fit). */
static void join_names(char *buf, size_t size, const char *const *names, const char *last_sep)
{
	buf[0] = '\0';
	for (int i = 0; names[i]; i++) {
		if (i)
			strncat(buf, names[i + 1] ? ", " : last_sep, size - strlen(buf) - 1);
		strncat(buf, names[i], size - strlen(buf) - 1);
	}
}

int ex_parse_choice(const char *opt, const char *arg, const char *const *names, int *out)
{
	char list[512];

	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], arg) == 0) {
			*out = i;
			return 0;
		}
	join_names(list, sizeof list, names, " or ");
	ex_usage_error("%s: '%s' is not %s", opt, arg, list);
	return -1;
}

/* Stores the value of one of the program's options where its table entry
 * says; returns -1 after ex_usage_error on a bad value. */
static int store_option(const struct ex_option *o, const char *arg)
{
	char opt[128];

	snprintf(opt, sizeof opt, "--%s", o->name);
	switch (o->type) {
	case EX_VALUE_LONG:
		return ex_parse_long(opt, arg, o->number.min, o->number.max, o->number.to);
	case EX_VALUE_BYTES:
		return ex_parse_bytes(opt, arg, o->bytes.min, o->bytes.max, o->bytes.to);
	case EX_VALUE_CHOICE:
		return ex_parse_choice(opt, arg, o->choice.names, o->choice.to);
	case EX_VALUE_FLAG:
		*o->flag.to = o->flag.value;
		return 0;
	case EX_VALUE_CUSTOM:
		return o->parse(opt, arg);
	}
	ex_die("internal: option '%s' has no value type", o->name);
}

static int phase_index(const char *name)
{
	for (int i = 0; prog->phases[i]; i++)
		if (strcmp(prog->phases[i], name) == 0)
			return i;
	return -1;
}

bool ex_phase(const char *name)
{
	int i = phase_index(name);

	if (i < 0)
		ex_die("internal: unknown phase '%s'", name);
	return (ex.phases >> i) & 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [-d DIR] [-t THREADS] [-n COUNT] [-s SEED] [--size=small|medium|large]\n"
		   "       %*s [OPTIONS] [PHASE...]\n",
		ex_progname, (int)strlen(ex_progname), "");
}

enum { OPT_SIZE = 1000, OPT_HELP, OPT_PHASE_BASE = 1100, OPT_PROG_BASE = 1200 };

/* --size values, in enum ex_size order. */
static const char *const size_names[] = { "small", "medium", "large", NULL };

/* The long options: the common ones, one a phase, one a program option. */
static void make_longopts(const struct ex_prog *p, int nphases, struct option *longopts,
			  size_t cap)
{
	size_t nl = 0;

	longopts[nl++] = (struct option){ "size", required_argument, NULL, OPT_SIZE };
	longopts[nl++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	longopts[nl++] = (struct option){ "dir", required_argument, NULL, 'd' };
	longopts[nl++] = (struct option){ "threads", required_argument, NULL, 't' };
	longopts[nl++] = (struct option){ "count", required_argument, NULL, 'n' };
	longopts[nl++] = (struct option){ "seed", required_argument, NULL, 's' };
	longopts[nl++] = (struct option){ "verbose", no_argument, NULL, 'v' };
	for (int i = 0; i < nphases; i++)
		longopts[nl++] = (struct option){ p->phases[i], no_argument, NULL, OPT_PHASE_BASE + i };
	for (int i = 0; p->options && p->options[i].name; i++) {
		const struct ex_option *o = &p->options[i];
		int has_arg = o->type == EX_VALUE_FLAG ? no_argument : required_argument;

		if (nl >= cap - 1)
			ex_die("internal: too many options");
		longopts[nl++] = (struct option){ o->name, has_arg, NULL, OPT_PROG_BASE + i };
	}
	longopts[nl] = (struct option){ 0, 0, 0, 0 };
}

/* -s SEED: an unsigned number; exits 2 on anything else. */
static void parse_seed(const char *arg)
{
	char *end;
	errno = 0;
	unsigned long long s = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-') {
		ex_usage_error("-s: '%s' is not a seed (an unsigned number)", arg);
		exit(2);
	}
	ex.seed = s;
}

/* Applies one of the options every program has (its value in optarg):
 * false if c is not one. Exits after --help (0) and on an error (2). */
static bool common_option(const struct ex_prog *p, int c, char **argv)
{
	long v;

	switch (c) {
	case 'd':
		if (!*optarg) {
			ex_usage_error("-d: empty directory name");
			exit(2);
		}
		ex.dir = optarg;
		return true;
	case 't':
		if (ex_parse_long("-t", optarg, 1, 1024, &v))
			exit(2);
		ex.threads = (int)v;
		ex.threads_set = true;
		return true;
	case 'n':
		if (ex_parse_long("-n", optarg, 1, 1000000000L, &v))
			exit(2);
		ex.count = v;
		ex.count_set = true;
		return true;
	case 's':
		parse_seed(optarg);
		return true;
	case 'v':
		ex.verbose = true;
		return true;
	case 'h':
	case OPT_HELP:
		usage(stdout);
		fputs(p->help, stdout);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "%s: error: cannot write to standard output\n", ex_progname);
			exit(1);
		}
		exit(0);
	case OPT_SIZE: {
		int size = 0;
		if (ex_parse_choice("--size", optarg, size_names, &size))
			exit(2);
		ex.size = (enum ex_size)size;
		return true;
	}
	case ':':
		if (optopt > 0 && optopt < 128)
			ex_usage_error("option '-%c' needs a value", optopt);
		else
			ex_usage_error("option '%s' needs a value", argv[optind - 1]);
		exit(2);
	case '?':
		if (optopt > 0 && optopt < 128)
			ex_usage_error("unknown option '-%c'", optopt);
		else
			ex_usage_error("unknown option '%s'", argv[optind - 1]);
		exit(2);
	}
	return false;
}

/* The phases named as arguments after the options, else the program's default ones. */
static void phase_args(const struct ex_prog *p, int argc, char **argv)
{
	for (int i = optind; i < argc; i++) {
		int k = phase_index(argv[i]);
		if (k < 0) {
			char list[512];
			join_names(list, sizeof list, p->phases, ", ");
			ex_usage_error("'%s' is not a phase (phases: %s)", argv[i], list);
			exit(2);
		}
		ex.phases |= 1u << k;
	}
	if (!ex.phases)
		ex.phases = p->default_phases;
}

void ex_parse(const struct ex_prog *p, int argc, char **argv)
{
	struct option longopts[64];
	int nphases = 0;
	/* Program options are buffered so that they apply after --size. */
	struct { const struct ex_option *option; const char *arg; } pending[128];
	size_t npending = 0;
	int c;
	struct stat sb;

	prog = p;
	ex_progname = p->name;
	ex.dir = ".";
	ex.threads = 1;
	ex.count = 0;
	ex.seed = 1;
	ex.size = SIZE_SMALL;

	while (p->phases[nphases])
		nphases++;
	make_longopts(p, nphases, longopts, sizeof longopts / sizeof longopts[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:t:n:s:vh", longopts, NULL)) != -1) {
		if (common_option(p, c, argv))
			continue;
		if (c >= OPT_PHASE_BASE && c < OPT_PHASE_BASE + nphases) {
			ex.phases |= 1u << (c - OPT_PHASE_BASE);
		} else if (c >= OPT_PROG_BASE) {
			if (npending >= sizeof pending / sizeof pending[0]) {
				ex_usage_error("too many options");
				exit(2);
			}
			pending[npending].option = &p->options[c - OPT_PROG_BASE];
			pending[npending].arg = optarg;
			npending++;
		} else {
			ex_usage_error("unknown option");
			exit(2);
		}
	}
	phase_args(p, argc, argv);

	if (p->apply_size)
		p->apply_size(ex.size);
	for (size_t i = 0; i < npending; i++)
		if (store_option(pending[i].option, pending[i].arg))
			exit(2);

	if (stat(ex.dir, &sb) != 0)
		ex_die("directory '%s': %s", ex.dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		ex_die("'%s' is not a directory", ex.dir);
}

/* ---- paths, memory, threads, time ---- */
void ex_path(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, EX_PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= EX_PATH_MAX)
		ex_die("path too long (starts with '%.60s')", buf);
}

void *ex_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		ex_die("out of memory (%zu bytes)", n);
	return p;
}

void *ex_calloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		ex_die("out of memory (%zu x %zu bytes)", n, sz);
	return p;
}

void ex_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int e = pthread_create(t, NULL, fn, arg);

	if (e)
		ex_die("cannot start a thread: %s", strerror(e));
}

void ex_thread_join(pthread_t t)
{
	int e = pthread_join(t, NULL);

	if (e)
		ex_die("cannot join a thread: %s", strerror(e));
}

double ex_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- output ---- */
void ex_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void ex_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!ex.verbose)
		return;
	fprintf(stderr, "%s: ", ex_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ex_summary(const struct ex_stats *st, const char *extra, double seconds)
{
	char phases[512] = "";
	uint64_t total = ex_stats_total(st);

	for (int i = 0; prog->phases[i]; i++) {
		if (!((ex.phases >> i) & 1))
			continue;
		if (phases[0])
			strncat(phases, ",", sizeof phases - strlen(phases) - 1);
		strncat(phases, prog->phases[i], sizeof phases - strlen(phases) - 1);
	}
	printf("%s: phases=%s", ex_progname, phases);
	if (extra && *extra)
		printf(" %s", extra);
	printf(" ops=%llu", (unsigned long long)total);
	for (int i = 0; i < OP_COUNT_; i++)
		printf(" %s=%llu", op_names[i], (unsigned long long)st->ops[i]);
	printf(" bytes_read=%llu bytes_written=%llu\n", (unsigned long long)st->bytes_read,
	       (unsigned long long)st->bytes_written);
	printf("%s: time %.3f s, %.0f ops/s, %.1f MB/s read, %.1f MB/s written\n", ex_progname, seconds,
	       seconds > 0 ? (double)total / seconds : 0.0,
	       seconds > 0 ? (double)st->bytes_read / 1e6 / seconds : 0.0,
	       seconds > 0 ? (double)st->bytes_written / 1e6 / seconds : 0.0);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error: cannot write to standard output\n", ex_progname);
		exit(1);
	}
}
