/*
 * run-corpus.c: runs a fuzz target's LLVMFuzzerTestOneInput over files
 * without libFuzzer, so every build (and the sanitizer build in CI) replays
 * the checked-in corpus and the regression inputs of bugs the fuzzers found.
 * Usage: run-corpus FILE|DIR...; exit 0 when every input was handled.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f) {
		fprintf(stderr, "run-corpus: cannot open '%s'\n", path);
		return 1;
	}
	do {
		if (len == cap) {
			uint8_t *p = realloc(buf, cap ? 2 * cap : 65536);

			if (!p) {
				fclose(f);
				free(buf);
				return 1;
			}
			buf = p;
			cap = cap ? 2 * cap : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path, unsigned *count)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int bad = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "run-corpus: no such input '%s'\n", path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	d = opendir(path);
	if (!d)
		return 1;
	while ((e = readdir(d))) {
		char sub[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		bad |= run_path(sub, count);
	}
	closedir(d);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int i, bad = 0;

	for (i = 1; i < argc; i++)
		bad |= run_path(argv[i], &count);
	printf("run-corpus: %u inputs\n", count);
	return bad || count == 0;
}
