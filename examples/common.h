/* common.h: what the example workloads share: the command line, a seeded
 * PRNG, per-thread operation counters, checked system-call wrappers and the
 * one-line summary.
 *
 * Every wrapper does one real system call (or a loop of them for full reads
 * and writes), counts it in the calling thread's counters, and on failure
 * prints "PROG: error: ..." and exits 1. The counters are per thread (no
 * locking on the hot path) and are added up at the end, so the summary line is
 * exact and deterministic for a given command line.
 */
#ifndef FSTAP_EXAMPLES_COMMON_H
#define FSTAP_EXAMPLES_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define EX_PATH_MAX 4096

/* ---- operation counters ---- */
enum ex_op {
	OP_MKDIR,
	OP_RMDIR,
	OP_CREATE, /* open with O_CREAT */
	OP_OPEN,   /* open without O_CREAT */
	OP_CLOSE,
	OP_READ,   /* read and pread calls */
	OP_WRITE,  /* write and pwrite calls */
	OP_STAT,   /* stat, fstat, lstat */
	OP_OPENDIR,
	OP_READDIR, /* entries returned by readdir, without . and .. */
	OP_CLOSEDIR,
	OP_UNLINK,
	OP_RENAME,
	OP_FSYNC,
	OP_FDATASYNC,
	OP_GETXATTR,
	OP_SETXATTR,
	OP_COUNT_
};

struct ex_stats {
	uint64_t ops[OP_COUNT_];
	uint64_t bytes_read;
	uint64_t bytes_written;
};

void ex_stats_add(struct ex_stats *into, const struct ex_stats *from);
uint64_t ex_stats_total(const struct ex_stats *s);

/* ---- the PRNG: xoshiro256**, seeded through splitmix64 ---- */
struct ex_rng {
	uint64_t s[4];
};

/* stream distinguishes independent generators from one seed (a thread, a
 * group, a phase). */
void ex_rng_seed(struct ex_rng *r, uint64_t seed, uint64_t stream);
uint64_t ex_rng_next(struct ex_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t ex_rng_below(struct ex_rng *r, uint64_t n);
/* Uniform in [lo, hi]; lo <= hi. */
uint64_t ex_rng_range(struct ex_rng *r, uint64_t lo, uint64_t hi);
void ex_rng_fill(struct ex_rng *r, void *buf, size_t len);
/* Fisher-Yates shuffle of n elements of size sz. */
void ex_rng_shuffle(struct ex_rng *r, void *base, size_t n, size_t sz);

/* ---- the command line ---- */
enum ex_size { SIZE_SMALL, SIZE_MEDIUM, SIZE_LARGE };

/* How a program option's value is read, and so which member of the union in
 * struct ex_option describes it. */
enum ex_value_type {
	EX_VALUE_LONG,   /* --NAME=N: a number from min to max (ex_parse_long) */
	EX_VALUE_BYTES,  /* --NAME=B: a size from min to max bytes (ex_parse_bytes) */
	EX_VALUE_CHOICE, /* --NAME=WORD: one of names; its index is stored */
	EX_VALUE_FLAG,   /* --NAME, no value: stores a fixed bool */
	EX_VALUE_CUSTOM, /* --NAME=VALUE: a callback, for checks the others lack */
};

/* A program-specific long option: its name (without "--"), how its value is
 * read and where it is stored. Declare them with the EX_OPT_* macros below, in
 * an array ended by EX_OPT_END. Every type but EX_VALUE_FLAG takes a value.
 * A bad value gets the same one-line usage error as -t or -n (exit 2). */
struct ex_option {
	const char *name;
	enum ex_value_type type;
	union {
		struct { long *to; long min, max; } number;
		struct { uint64_t *to; uint64_t min, max; } bytes;
		struct { int *to; const char *const *names; } choice;
		struct { bool *to; bool value; } flag;
		/* opt is "--NAME". Stores the value itself; returns 0, or -1
		 * after calling ex_usage_error. */
		int (*parse)(const char *opt, const char *arg);
	};
};

#define EX_OPT_LONG(name_, to_, min_, max_) \
	{ .name = (name_), .type = EX_VALUE_LONG, .number = { (to_), (min_), (max_) } }
#define EX_OPT_BYTES(name_, to_, min_, max_) \
	{ .name = (name_), .type = EX_VALUE_BYTES, .bytes = { (to_), (min_), (max_) } }
/* names: NULL-terminated; the index of the one given goes into *to. */
#define EX_OPT_CHOICE(name_, to_, names_) \
	{ .name = (name_), .type = EX_VALUE_CHOICE, .choice = { (to_), (names_) } }
#define EX_OPT_FLAG(name_, to_, value_) \
	{ .name = (name_), .type = EX_VALUE_FLAG, .flag = { (to_), (value_) } }
#define EX_OPT_CUSTOM(name_, parse_) \
	{ .name = (name_), .type = EX_VALUE_CUSTOM, .parse = (parse_) }
#define EX_OPT_END { .name = NULL }

struct ex_prog {
	const char *name;
	/* The whole --help text after the usage line (knobs, phases, examples). */
	const char *help;
	/* Phase names in execution order, NULL-terminated (at most 16). */
	const char *const *phases;
	/* Bit mask of the phases run when none is named. */
	unsigned default_phases;
	/* The program's own options, ended by EX_OPT_END; may be NULL. */
	const struct ex_option *options;
	/* Fills the program's knobs for the chosen size; called before the
	 * values of the program's options are stored (see ex_parse). */
	void (*apply_size)(enum ex_size size);
};

struct ex_common {
	const char *dir;
	int threads;
	long count;
	uint64_t seed;
	enum ex_size size;
	bool threads_set, count_set;
	unsigned phases; /* bit i: prog->phases[i] */
	bool verbose;
};

extern const char *ex_progname;
extern struct ex_common ex;

/* Parses the command line: -d DIR, -t THREADS, -n COUNT, -s SEED,
 * --size=small|medium|large, -v, --help, --PHASE (e.g. --setup, --cleanup)
 * and PHASE arguments, then the program's own options. Exits 2 on a usage
 * error and 0 after --help. apply_size is called with the chosen size before
 * the values of the program's own options are stored (they are buffered, and
 * stored in command-line order), so explicit knobs override the size preset. Checks that DIR is a directory
 * (exit 1 otherwise). */
void ex_parse(const struct ex_prog *prog, int argc, char **argv);
bool ex_phase(const char *name);

/* Prints "PROG: usage error: ..." and "Try 'PROG --help'." to stderr; the
 * caller returns -1 (ex_parse exits 2). */
void ex_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "PROG: error: ..." and exits 1 (thread-safe: one message only). */
void ex_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Option value parsers: return -1 after ex_usage_error on a bad value. */
int ex_parse_long(const char *opt, const char *arg, long min, long max, long *out);
/* A byte size with an optional K, M, G suffix (powers of 1024). */
int ex_parse_bytes(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
/* One of the NULL-terminated names; *out gets its index. The error reads
 * "OPT: 'ARG' is not A, B or C". */
int ex_parse_choice(const char *opt, const char *arg, const char *const *names, int *out);

/* ---- paths ---- */
/* snprintf into buf (EX_PATH_MAX); dies if the path is too long. */
void ex_path(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- checked, counted system calls ---- */
/* mkdir; with may_exist, EEXIST on a directory is not an error (and still
 * counted). Returns true if it created the directory. */
bool x_mkdir(struct ex_stats *st, const char *path, mode_t mode, bool may_exist);
void x_rmdir(struct ex_stats *st, const char *path);
int x_open(struct ex_stats *st, const char *path, int flags, mode_t mode);
void x_close(struct ex_stats *st, int fd, const char *path);
/* One read call; returns bytes read (0 at end of file). */
size_t x_read(struct ex_stats *st, int fd, void *buf, size_t len, const char *path);
/* pread until len bytes or end of file; returns bytes read. */
size_t x_pread_full(struct ex_stats *st, int fd, void *buf, size_t len, off_t off, const char *path);
/* Reads the whole file through buf, until read returns 0. */
uint64_t x_read_all(struct ex_stats *st, int fd, void *buf, size_t bufsize, const char *path);
void x_write_full(struct ex_stats *st, int fd, const void *buf, size_t len, const char *path);
void x_pwrite_full(struct ex_stats *st, int fd, const void *buf, size_t len, off_t off, const char *path);
void x_stat(struct ex_stats *st, const char *path, struct stat *sb);
void x_fstat(struct ex_stats *st, int fd, struct stat *sb, const char *path);
/* stat that tells whether the path exists (ENOENT is an answer, not an
 * error); counted as a stat. */
bool x_exists(struct ex_stats *st, const char *path);
void x_unlink(struct ex_stats *st, const char *path);
/* unlink that tolerates ENOENT (for cleanup of files a run may have removed);
 * returns true if it removed the file. */
bool x_unlink_if_exists(struct ex_stats *st, const char *path);
/* rmdir that tolerates ENOENT; returns true if it removed the directory. */
bool x_rmdir_if_exists(struct ex_stats *st, const char *path);
void x_rename(struct ex_stats *st, const char *from, const char *to);
void x_fsync(struct ex_stats *st, int fd, const char *path);
void x_fdatasync(struct ex_stats *st, int fd, const char *path);
/* getxattr/fgetxattr: returns the value size; dies on failure (including a
 * missing attribute). */
size_t x_getxattr(struct ex_stats *st, const char *path, const char *name, void *buf, size_t len);
size_t x_fgetxattr(struct ex_stats *st, int fd, const char *name, void *buf, size_t len, const char *path);
void x_setxattr(struct ex_stats *st, const char *path, const char *name, const void *val, size_t len);
void x_fsetxattr(struct ex_stats *st, int fd, const char *name, const void *val, size_t len, const char *path);

/* Lists a directory (opendir, readdir until the end, closedir), counted;
 * returns a malloc'ed array of malloc'ed names in readdir order, without . and
 * ..; *n gets the count. Free with ex_free_names. */
char **ex_list_dir(struct ex_stats *st, const char *path, size_t *n);
void ex_free_names(char **names, size_t n);

/* ---- threads, memory, time ---- */
void *ex_malloc(size_t n);
void *ex_calloc(size_t n, size_t sz);
void ex_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
void ex_thread_join(pthread_t t);
double ex_now(void);

/* ---- output ---- */
/* Prints the summary line to stdout:
 *   PROG: phases=P1,P2 threads=T ... ops=N mkdir=.. (every counter, fixed
 *   order) bytes_read=.. bytes_written=..
 * extra is the program's own key=value fields, printed after phases (may be
 * NULL or ""). Then the elapsed time on a second line, "PROG: time ...".
 * Exits 1 if stdout cannot be written. */
void ex_summary(const struct ex_stats *st, const char *extra, double seconds);
/* Prints a line to stdout (checked at exit by ex_summary's fflush). */
void ex_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* With -v: a progress line on stderr. */
void ex_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
