/*
 * check_anonymize.c: the keyed tokens (src/analysis/anon_token.c): length,
 * alphabet, determinism under one key, difference under two keys, domains,
 * reserved names, collisions in a forced tiny token space (an error, never
 * a merge); and the key files (size, mode, no overwrite).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/anonymize.h"

static const uint8_t key1[] = "0123456789abcdef0123456789abcdef";
static const uint8_t key2[] = "0123456789abcdef0123456789abcdeX";

static struct an_tokens *tokens(const uint8_t *key, unsigned alphabet)
{
	struct an_tokens *t;

	ck_assert_int_eq(an_tokens_new(&t, key, 32, alphabet), 0);
	return t;
}

/* The token of s in dom, as a NUL-terminated copy (static buffer). */
static const char *tok(struct an_tokens *t, enum an_domain dom, const char *s)
{
	static char buf[4][512];
	static int k;
	const uint8_t *p;
	size_t len = strlen(s);

	ck_assert_int_eq(an_tokens_map(t, dom, (const uint8_t *)s, len, &p), 0);
	k = (k + 1) % 4;
	memcpy(buf[k], p, len);
	buf[k][len] = '\0';
	return buf[k];
}

START_TEST(test_length_and_alphabet)
{
	struct an_tokens *t = tokens(key1, 62);
	const char *names[] = { "a", "ab", "report-2024.pdf", "\xc3\xa9t\xc3\xa9 ", NULL };
	char longname[256];
	size_t i, j;

	memset(longname, 'x', 255);
	longname[255] = '\0';
	for (i = 0; names[i]; i++) {
		const char *s = tok(t, AN_DOM_NAME, names[i]);

		ck_assert_uint_eq(strlen(s), strlen(names[i]));
		for (j = 0; s[j]; j++)
			ck_assert_msg((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'A' && s[j] <= 'Z') ||
				      (s[j] >= 'a' && s[j] <= 'z'), "'%s' has '%c'", s, s[j]);
	}
	ck_assert_uint_eq(strlen(tok(t, AN_DOM_NAME, longname)), 255);
	ck_assert_str_ne(tok(t, AN_DOM_NAME, "report-2024.pdf"), "report-2024.pdf");
	an_tokens_free(t);
}
END_TEST

START_TEST(test_deterministic_per_key)
{
	struct an_tokens *a = tokens(key1, 62), *b = tokens(key1, 62), *c = tokens(key2, 62);
	char ta[64], tc[64];

	/* another table, other strings mapped first: the same token */
	tok(b, AN_DOM_NAME, "zzz-first");
	strcpy(ta, tok(a, AN_DOM_NAME, "customer-secret.db"));
	ck_assert_str_eq(tok(b, AN_DOM_NAME, "customer-secret.db"), ta);
	ck_assert_str_eq(tok(a, AN_DOM_NAME, "customer-secret.db"), ta);	/* again */
	strcpy(tc, tok(c, AN_DOM_NAME, "customer-secret.db"));
	ck_assert_str_ne(ta, tc);
	/* domains are apart: a name and an xattr value of the same bytes differ */
	ck_assert_str_ne(tok(a, AN_DOM_NAME, "customer-secret.db"),
			 tok(a, AN_DOM_VALUE, "customer-secret.db"));
	ck_assert_uint_eq(an_tokens_count(a, AN_DOM_NAME), 1);
	an_tokens_free(a);
	an_tokens_free(b);
	an_tokens_free(c);
}
END_TEST

START_TEST(test_key_id)
{
	struct an_tokens *a = tokens(key1, 62), *b = tokens(key1, 62), *c = tokens(key2, 62);
	char ia[17], ib[17], ic[17];

	an_tokens_key_id(a, ia);
	an_tokens_key_id(b, ib);
	an_tokens_key_id(c, ic);
	ck_assert_uint_eq(strlen(ia), 16);
	ck_assert_str_eq(ia, ib);
	ck_assert_str_ne(ia, ic);
	an_tokens_free(a);
	an_tokens_free(b);
	an_tokens_free(c);
}
END_TEST

/* Two symbols, names of one byte: two fit, the third is an error. */
START_TEST(test_collision_tiny_space)
{
	struct an_tokens *t = tokens(key1, 2);
	const uint8_t *p;
	char x[2], y[2];

	strcpy(x, tok(t, AN_DOM_NAME, "x"));
	strcpy(y, tok(t, AN_DOM_NAME, "y"));
	ck_assert_str_ne(x, y);		/* never merged, whatever the HMAC said */
	ck_assert_str_eq(tok(t, AN_DOM_NAME, "x"), x);
	ck_assert_int_eq(an_tokens_map(t, AN_DOM_NAME, (const uint8_t *)"z", 1, &p), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(an_tokens_errmsg(t), "collide"));
	/* another length, another domain: room left */
	ck_assert_uint_eq(strlen(tok(t, AN_DOM_NAME, "zz")), 2);
	ck_assert_uint_eq(strlen(tok(t, AN_DOM_XATTR, "z")), 1);
	an_tokens_free(t);
}
END_TEST

/* 2^10 names of 10 bytes in 2 symbols: the space filled exactly, all distinct. */
START_TEST(test_fill_space_distinct)
{
	struct an_tokens *t = tokens(key1, 2);
	char name[11], seen[1024] = { 0 };
	const uint8_t *p;
	unsigned i, j, v;

	for (i = 0; i < 1024; i++) {
		snprintf(name, sizeof(name), "n%09u", i);
		ck_assert_int_eq(an_tokens_map(t, AN_DOM_NAME, (const uint8_t *)name, 10, &p), 0);
		for (v = 0, j = 0; j < 10; j++)
			v = 2 * v + (p[j] == '1');
		ck_assert_msg(!seen[v], "token of %s taken twice", name);
		seen[v] = 1;
	}
	ck_assert_int_eq(an_tokens_map(t, AN_DOM_NAME, (const uint8_t *)"n000001024", 10, &p),
			 -ENOSPC);
	an_tokens_free(t);
}
END_TEST

START_TEST(test_reserved_names)
{
	struct an_tokens *t = tokens(key1, 2);
	const uint8_t *p;

	/* "0" is kept as itself: the only other 1-byte token is "1" */
	ck_assert_int_eq(an_tokens_reserve(t, AN_DOM_NAME, (const uint8_t *)"0", 1), 0);
	ck_assert_str_eq(tok(t, AN_DOM_NAME, "0"), "0");
	ck_assert_str_eq(tok(t, AN_DOM_NAME, "q"), "1");
	ck_assert_int_eq(an_tokens_map(t, AN_DOM_NAME, (const uint8_t *)"r", 1, &p), -ENOSPC);
	ck_assert_int_eq(an_tokens_reserve(t, AN_DOM_NAME, (const uint8_t *)"1", 1), -EEXIST);
	an_tokens_free(t);
}
END_TEST

static int cmp_tok8(const void *a, const void *b)
{
	return memcmp(a, b, 8);
}

/*
 * 10^6 distinct names of 2 to 7 bytes: 10^6 tokens, each the length of its
 * name, no two equal (checked apart from the table: sorted, neighbours
 * compared).
 */
START_TEST(test_many_names_no_collision)
{
	enum { N = 1000000 };
	struct an_tokens *t = tokens(key1, 62);
	char (*all)[8] = calloc(N, 8), name[32];
	const uint8_t *p;
	unsigned i;

	ck_assert_ptr_nonnull(all);
	for (i = 0; i < N; i++) {
		int n = snprintf(name, sizeof(name), "f%u", i);

		ck_assert_int_eq(an_tokens_map(t, AN_DOM_NAME, (const uint8_t *)name, (size_t)n, &p), 0);
		memcpy(all[i], p, (size_t)n);	/* zero-padded: lengths apart */
	}
	ck_assert_uint_eq(an_tokens_count(t, AN_DOM_NAME), N);
	qsort(all, N, 8, cmp_tok8);
	for (i = 1; i < N; i++)
		ck_assert_msg(memcmp(all[i - 1], all[i], 8), "two names got '%.8s'", all[i]);
	free(all);
	an_tokens_free(t);
}
END_TEST

/* The tokens of one key are the same in every version (traces stay comparable). */
START_TEST(test_known_tokens)
{
	struct an_tokens *t = tokens(key1, 62);

	ck_assert_str_eq(tok(t, AN_DOM_NAME, "customer-secret.db"), "mpIMsx8WXsqO8KqV1D");
	ck_assert_str_eq(tok(t, AN_DOM_NAME, "a"), "p");
	ck_assert_str_eq(tok(t, AN_DOM_NAME,
			     "x-0123456789-0123456789-0123456789-0123456789-0123456789"),
			 "Ux4rArDmg2dx1VDrTUWi1bySKiE13Nvd7zc8x8IbgD9zn5Qqqga909a5");
	an_tokens_free(t);
}
END_TEST

START_TEST(test_bad_key)
{
	struct an_tokens *t;

	ck_assert_int_eq(an_tokens_new(&t, key1, AN_KEY_MIN - 1, 62), -EINVAL);
	ck_assert_int_eq(an_tokens_new(&t, key1, 32, 63), -EINVAL);
	ck_assert_int_eq(an_tokens_new(&t, key1, 32, 1), -EINVAL);
}
END_TEST

START_TEST(test_key_files)
{
	char dir[] = "/tmp/check_anonymize.XXXXXX", path[64], shortp[64];
	uint8_t *k1 = NULL, *k2 = NULL;
	size_t l1 = 0, l2 = 0;
	struct stat st;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	snprintf(shortp, sizeof(shortp), "%s/short", dir);
	ck_assert_int_eq(an_key_create(path), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(st.st_size, AN_KEY_NEW);
	ck_assert_int_eq(an_key_read(path, &k1, &l1), 0);
	ck_assert_int_eq(an_key_create(path), -EEXIST);	/* never overwritten */
	ck_assert_int_eq(an_key_read(path, &k2, &l2), 0);
	ck_assert_uint_eq(l1, AN_KEY_NEW);
	ck_assert_mem_eq(k1, k2, l1);
	f = fopen(shortp, "w");
	fputs("short", f);
	fclose(f);
	free(k2);
	ck_assert_int_eq(an_key_read(shortp, &k2, &l2), -EINVAL);
	unlink(shortp);
	unlink(path);
	rmdir(dir);
	free(k1);
}
END_TEST

/* A pseudo-random name of 1..12 bytes from a set with dots, low bytes, high bytes. */
static size_t random_name(uint64_t *r, uint8_t *out)
{
	static const char set[] = "..-#~ _aAzZ09.\xc3\xa9";
	size_t len, i;

	*r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
	len = 1 + (*r >> 33) % 12;
	for (i = 0; i < len; i++) {
		*r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
		out[i] = (uint8_t)set[(*r >> 33) % (sizeof(set) - 1)];
	}
	return len;
}

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

struct sname {
	uint8_t b[16];
	size_t len, s, e;
};

static int cmp_sname(const void *a, const void *b)
{
	const struct sname *x = a, *y = b;

	return cmp_bytes(x->b, x->len, y->b, y->len);
}

/*
 * --keep-order's tokens: 20000 names of every shape, each with a kept
 * leading part (dots) and some with a kept extension: the tokens sort as the names do
 * (so they are distinct), keep the kept parts and their lengths, and are
 * of symbols elsewhere (one of "%+,-" for a first byte below '.').
 */
START_TEST(test_sorted_tokens_keep_order)
{
	enum { N = 20000 };
	static const char *const kept[] = { "lost+found", "Makefile", "README" };
	struct sname *v = calloc(N, sizeof(*v));
	struct an_sorted *o;
	uint64_t r = 42;
	size_t i, j;

	ck_assert_int_eq(an_sorted_new(&o), 0);
	for (i = 0; i < N; i++) {
		struct sname *x = &v[i];

		x->len = random_name(&r, x->b);
		for (x->s = 0; x->s < x->len && x->b[x->s] == '.'; x->s++)
			;
		/* the parts follow from the bytes: a name added twice has one shape */
		for (x->e = x->len; x->e > x->s + 1 && x->b[x->e - 1] != '.'; x->e--)
			;
		if (x->e <= x->s + 2 || x->len - x->e > 3 || x->e == x->len)
			x->e = x->len;			/* no extension kept */
		else
			x->e--;				/* ".ext" kept */
		if (i < 3) {			/* kept as they are */
			x->len = strlen(kept[i]);
			memcpy(x->b, kept[i], x->len);
			x->s = x->e = x->len;
		}
		ck_assert_int_eq(an_sorted_add(o, x->b, x->len, x->s, x->e), 0);
	}
	ck_assert_msg(an_sorted_assign(o, 0) == 0, "%s", an_sorted_errmsg(o));
	qsort(v, N, sizeof(*v), cmp_sname);
	for (i = 0; i < N; i++) {
		const uint8_t *t, *pt;
		struct sname *x = &v[i];

		ck_assert_int_eq(an_sorted_lookup(o, x->b, x->len, &t), 0);
		if (i && cmp_bytes(v[i - 1].b, v[i - 1].len, x->b, x->len)) {
			ck_assert_int_eq(an_sorted_lookup(o, v[i - 1].b, v[i - 1].len, &pt), 0);
			ck_assert_msg(cmp_bytes(pt, v[i - 1].len, t, x->len) < 0,
				      "name %zu: tokens out of order", i);
		}
		ck_assert_mem_eq(t, x->b, x->s);
		ck_assert_mem_eq(t + x->e, x->b + x->e, x->len - x->e);
		for (j = x->s; j < x->e; j++) {
			uint8_t c = t[j];

			if (j == x->s && x->b[j] < '.')
				ck_assert_ptr_nonnull(memchr("%+,-", c, 4));
			else
				ck_assert_msg((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
					      (c >= 'a' && c <= 'z'), "token byte %02x", c);
		}
	}
	ck_assert_ptr_nonnull(an_sorted_errmsg(o));
	an_sorted_free(o);
	free(v);
}
END_TEST

/* Order that no tokens can keep: three names of one byte in two symbols. */
START_TEST(test_sorted_tokens_full)
{
	struct an_sorted *o;
	const uint8_t *t;

	ck_assert_int_eq(an_sorted_new(&o), 0);
	ck_assert_int_eq(an_sorted_add(o, (const uint8_t *)"q", 1, 0, 1), 0);
	ck_assert_int_eq(an_sorted_add(o, (const uint8_t *)"b", 1, 0, 1), 0);
	ck_assert_int_eq(an_sorted_assign(o, 2), 0);
	ck_assert_int_eq(an_sorted_lookup(o, (const uint8_t *)"b", 1, &t), 0);
	ck_assert_int_eq(t[0], '0');
	ck_assert_int_eq(an_sorted_lookup(o, (const uint8_t *)"q", 1, &t), 0);
	ck_assert_int_eq(t[0], '1');
	ck_assert_int_eq(an_sorted_lookup(o, (const uint8_t *)"z", 1, &t), -ENOENT);
	an_sorted_free(o);
	ck_assert_int_eq(an_sorted_new(&o), 0);
	ck_assert_int_eq(an_sorted_add(o, (const uint8_t *)"q", 1, 0, 1), 0);
	ck_assert_int_eq(an_sorted_add(o, (const uint8_t *)"b", 1, 0, 1), 0);
	ck_assert_int_eq(an_sorted_add(o, (const uint8_t *)"x", 1, 0, 1), 0);
	ck_assert_int_eq(an_sorted_assign(o, 2), -ENOSPC);
	ck_assert_str_eq(an_sorted_errmsg(o), "no token of 1 byte for 'x' sorts after the token "
			 "of 'q': the order of the names cannot be kept");
	an_sorted_free(o);
}
END_TEST

static Suite *anonymize_suite(void)
{
	Suite *s = suite_create("anonymize");
	TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");

	tcase_add_test(core, test_length_and_alphabet);
	tcase_add_test(core, test_deterministic_per_key);
	tcase_add_test(core, test_key_id);
	tcase_add_test(core, test_known_tokens);
	tcase_add_test(core, test_reserved_names);
	tcase_add_test(core, test_key_files);
	tcase_add_test(limits, test_sorted_tokens_keep_order);
	tcase_add_test(core, test_sorted_tokens_full);
	tcase_add_test(limits, test_collision_tiny_space);
	tcase_add_test(limits, test_fill_space_distinct);
	tcase_add_test(limits, test_many_names_no_collision);
	tcase_add_test(limits, test_bad_key);
	/*
	 * Limits takes about 5 s of CPU (10^6 names); the wide timeout is for a
	 * machine loaded by others and for the sanitizer builds.
	 */
	tcase_set_timeout(limits, 600);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(anonymize_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
