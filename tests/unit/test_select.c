/* test_select.c: the order-statistics helpers the summary reports lean on: quickselect
 * (util/select.h) against a full sort on random data of odd and even sizes, with and without
 * duplicates, sorted and adversarial inputs; the two-pass groups (analysis/groups.h) against
 * sorting each group's values; cursors over tables in start order (analysis/order.h), sorted
 * or not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/groups.h"
#include "../../src/analysis/order.h"
#include "../../src/util/alloc.h"
#include "../../src/util/select.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) /* xorshift64*: deterministic across runs */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

enum shape { RANDOM, FEW, EQUAL, SORTED, REVERSED, ORGAN, SHAPES };

static void fill(uint64_t *v, size_t n, enum shape s)
{
	for (size_t i = 0; i < n; i++) {
		switch (s) {
		case RANDOM: v[i] = rnd(); break;
		case FEW: v[i] = rnd() % 5; break; /* mostly duplicates */
		case EQUAL: v[i] = 42; break;
		case SORTED: v[i] = i * 3; break;
		case REVERSED: v[i] = (n - i) * 3; break;
		default: v[i] = i < n / 2 ? i : n - i; break; /* organ pipe */
		}
	}
}

/* v after gs_select_u64(v, n, k): a permutation of the sorted s with v[k] == s[k], smaller
 * or equal values before it, greater or equal after. */
static void check_selected(const uint64_t *v, const uint64_t *s, size_t n, size_t k)
{
	assert_int_equal(v[k], s[k]);
	for (size_t i = 0; i < k; i++)
		assert_true(v[i] <= v[k]);
	for (size_t i = k + 1; i < n; i++)
		assert_true(v[i] >= v[k]);
	uint64_t *c = gs_xmalloc((n + 1) * sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp64);
	assert_memory_equal(c, s, n * sizeof(*c));
	free(c);
}

static void test_select_vs_sort(void **state)
{
	(void)state;
	static const size_t sizes[] = {1, 2, 3, 4, 5, 16, 17, 18, 33, 100, 101, 1024, 1025, 4096, 4097, 30000, 30001};
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t n = sizes[z];
		uint64_t *v = gs_xmalloc(n * sizeof(*v)), *orig = gs_xmalloc(n * sizeof(*v)),
			 *s = gs_xmalloc(n * sizeof(*v));
		for (int sh = 0; sh < SHAPES; sh++) {
			fill(orig, n, (enum shape)sh);
			memcpy(s, orig, n * sizeof(*s));
			qsort(s, n, sizeof(*s), cmp64);
			size_t ks[] = {0, n / 2, n - 1, (n - 1) / 2, rnd() % n, n > 1 ? n - 2 : 0};
			for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
				memcpy(v, orig, n * sizeof(*v));
				gs_select_u64(v, n, ks[j]);
				check_selected(v, s, n, ks[j]);
			}
			/* the median: the middle value, or the mean of the two middle ones */
			memcpy(v, orig, n * sizeof(*v));
			double want = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2.0;
			assert_true(gs_median_u64(v, n) == want);
			/* percentiles, as numpy's default (linear between the nearest ranks) */
			static const double ps[] = {0.0, 0.1, 0.5, 0.9, 0.99, 1.0};
			for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
				double pos = ps[j] * (double)(n - 1);
				size_t lo = (size_t)pos;
				double q = lo + 1 >= n ? (double)s[n - 1]
						       : (double)s[lo] + ((double)s[lo + 1] - (double)s[lo]) * (pos - (double)lo);
				memcpy(v, orig, n * sizeof(*v));
				assert_true(gs_quantile_u64(v, n, ps[j]) == q);
			}
			/* the 32-bit twin */
			uint32_t *w = gs_xmalloc(n * sizeof(*w)), *ws = gs_xmalloc(n * sizeof(*ws));
			for (size_t i = 0; i < n; i++)
				w[i] = ws[i] = (uint32_t)(orig[i] >> (sh == RANDOM ? 32 : 0));
			qsort(ws, n, sizeof(*ws), cmp32);
			size_t k = n / 3;
			gs_select_u32(w, n, k);
			assert_int_equal(w[k], ws[k]);
			for (size_t i = 0; i < n; i++)
				assert_true(i < k ? w[i] <= w[k] : w[i] >= w[k]);
			for (size_t i = 0; i < n; i++)
				w[i] = ws[n - 1 - i];
			double want32 = n % 2 ? (double)ws[n / 2] : ((double)ws[n / 2 - 1] + (double)ws[n / 2]) / 2.0;
			assert_true(gs_median_u32(w, n) == want32);
			assert_int_equal(gs_min_u32(ws, n), ws[0]);
			assert_int_equal(gs_max_u32(ws, n), ws[n - 1]);
			free(w);
			free(ws);
		}
		free(v);
		free(orig);
		free(s);
	}
}

static int cmpf(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* doubles, as step_sum's percentile rows use them: p50 and p90 against a sort */
static void test_select_f64(void **state)
{
	(void)state;
	for (size_t n = 1; n < 3000; n = n * 3 + 1) {
		double *v = gs_xmalloc(n * sizeof(*v)), *s = gs_xmalloc(n * sizeof(*s));
		for (size_t i = 0; i < n; i++)
			s[i] = (double)(rnd() % 1000) / 7.0; /* duplicates too */
		memcpy(v, s, n * sizeof(*v));
		qsort(s, n, sizeof(*s), cmpf);
		static const double ps[] = {0.5, 0.9};
		for (int j = 0; j < 2; j++) {
			double pos = ps[j] * (double)(n - 1);
			size_t lo = (size_t)pos;
			double want = lo + 1 >= n ? s[n - 1] : s[lo] + (pos - (double)lo) * (s[lo + 1] - s[lo]);
			assert_true(gs_quantile_f64(v, n, ps[j]) == want); /* v reordered by the first */
		}
		gs_select_f64(v, n, n - 1);
		assert_true(v[n - 1] == s[n - 1]);
		free(v);
		free(s);
	}
}

static void test_select_edges(void **state)
{
	(void)state;
	uint64_t two[] = {UINT64_MAX, 0};
	assert_true(gs_median_u64(two, 2) == ((double)UINT64_MAX + 0.0) / 2.0);
	uint64_t one[] = {5};
	gs_select_u64(one, 1, 0);
	assert_int_equal(one[0], 5);
	gs_select_u64(one, 1, 3); /* k out of range: left alone */
	assert_int_equal(one[0], 5);
	/* a million values, two distinct: many rounds of equal pivots */
	size_t n = 1000000;
	uint64_t *v = gs_xmalloc(n * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = (i * 7919) % 3 == 0;
	size_t ones = 0;
	for (size_t i = 0; i < n; i++)
		ones += v[i];
	gs_select_u64(v, n, n - ones - 1);
	assert_int_equal(v[n - ones - 1], 0);
	gs_select_u64(v, n, n - ones);
	assert_int_equal(v[n - ones], 1);
	free(v);
}

/* ---- groups: two passes against sorting every group ---- */

static void test_groups_vs_sort(void **state)
{
	(void)state;
	/* values under 2^32 (32-bit storage), or not; the second pass a replay of the first
	 * (gs_groups_log: dropped by the wide value, walked again) or not */
	for (int wl = 0; wl < 4; wl++) {
		int wide = wl & 1, logged = wl >> 1;
		enum { N = 20000, G = 7 };
		static const char *const labels[G] = {"b", "a", "c", "dd", "e", "f", "g"};
		uint64_t *val = gs_xmalloc(N * sizeof(*val));
		int *lab = gs_xmalloc(N * sizeof(*lab));
		for (size_t i = 0; i < N; i++) {
			lab[i] = (int)(rnd() % (i < 10 ? 2 : G)); /* group 6 maybe tiny */
			val[i] = wide ? rnd() >> 8 : rnd() % 1000;
		}
		val[0] = wide ? (uint64_t)1 << 40 : val[0];
		struct gs_groups g;
		gs_groups_init(&g);
		if (logged)
			gs_groups_log(&g, N);
		for (int pass = 0; pass < 2; pass++) {
			if (pass && logged) {
				int replayed = gs_groups_replay(&g);
				assert_int_equal(replayed, !wide);
				assert_null(g.log);
				if (replayed)
					break;
			}
			for (size_t i = 0; i < N; i++)
				gs_groups_add(&g, gs_groups_label(&g, labels[lab[i]]), val[i]);
			if (!pass)
				gs_groups_place(&g);
		}
		assert_true(wide ? g.vals != NULL && g.vals32 == NULL : g.vals32 != NULL && g.vals == NULL);
		gs_groups_finish(&g);
		gs_groups_sort(&g);
		for (size_t i = 1; i < g.v.n; i++)
			assert_true(g.v.v[i - 1].s.total >= g.v.v[i].s.total);
		for (size_t i = 0; i < g.v.n; i++) {
			const struct gs_group *x = &g.v.v[i];
			uint64_t *s = gs_xmalloc(N * sizeof(*s));
			size_t n = 0;
			uint64_t total = 0;
			for (size_t j = 0; j < N; j++)
				if (!strcmp(labels[lab[j]], x->label)) {
					s[n++] = val[j];
					total += val[j];
				}
			qsort(s, n, sizeof(*s), cmp64);
			assert_int_equal(x->s.n, n);
			assert_int_equal(x->s.total, total);
			assert_int_equal(x->s.min, s[0]);
			assert_int_equal(x->s.max, s[n - 1]);
			double med = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2.0;
			assert_true(x->s.med == med);
			long double sum = 0, acc = 0;
			for (size_t j = 0; j < n; j++)
				sum += s[j];
			double avg = (double)(sum / n);
			assert_true(x->s.avg == avg);
			for (size_t j = 0; j < n; j++)
				acc += ((long double)s[j] - avg) * ((long double)s[j] - avg);
			double sd = n > 1 ? (double)sqrtl(acc / (n - 1)) : 0.0;
			assert_float_equal(x->s.stddev, sd, sd * 1e-12);
			free(s);
		}
		gs_groups_release(&g);
		free(val);
		free(lab);
	}
}

/* ---- cursors: start order ---- */

struct row {
	uint64_t start;
	int id;
};

static void test_cursor(void **state)
{
	(void)state;
	struct row sorted[] = {{1, 0}, {1, 1}, {5, 2}, {9, 3}};
	struct gs_cursor c;
	gs_cursor_init(&c, sorted, 4, sizeof(*sorted));
	for (int i = 0; c.i < c.n; gs_cursor_next(&c), i++) { /* walked in place */
		assert_int_equal(gs_cursor_row(&c), i);
		assert_int_equal(((const struct row *)gs_cursor_get(&c))->id, i);
	}
	assert_true(gs_cursor_check(&c));
	assert_null(c.perm);
	gs_cursor_release(&c);

	/* half walked: the check reads the rest */
	gs_cursor_init(&c, sorted, 4, sizeof(*sorted));
	gs_cursor_next(&c);
	gs_cursor_next(&c);
	assert_true(gs_cursor_check(&c));
	gs_cursor_release(&c);
	struct row late[] = {{1, 0}, {4, 1}, {5, 2}, {2, 3}}; /* out of order past the walk */
	gs_cursor_init(&c, late, 4, sizeof(*late));
	gs_cursor_next(&c);
	assert_false(gs_cursor_check(&c));
	gs_cursor_release(&c);

	struct row rows[] = {{7, 0}, {3, 1}, {7, 2}, {1, 3}, {3, 4}, {0, 5}};
	static const int want[] = {5, 3, 1, 4, 0, 2}; /* by start, ties in table order */
	gs_cursor_init(&c, rows, 6, sizeof(*rows));
	while (c.i < c.n)
		gs_cursor_next(&c);
	assert_true(c.unsorted);
	assert_false(gs_cursor_check(&c));
	gs_cursor_sort(&c);
	assert_non_null(c.perm);
	assert_int_equal(c.i, 0);
	uint64_t last = 0;
	for (int i = 0; c.i < c.n; gs_cursor_next(&c), i++) {
		const struct row *r = gs_cursor_get(&c);
		assert_int_equal(r->id, want[i]);
		assert_int_equal(gs_cursor_start(&c), r->start);
		assert_true(r->start >= last);
		last = r->start;
	}
	assert_true(gs_cursor_check(&c));
	gs_cursor_release(&c);
	gs_cursor_init(&c, NULL, 0, sizeof(struct row));
	assert_int_equal(c.n, 0);
	assert_true(gs_cursor_check(&c));
	gs_cursor_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_vs_sort),
		cmocka_unit_test(test_select_f64),
		cmocka_unit_test(test_select_edges),
		cmocka_unit_test(test_groups_vs_sort),
		cmocka_unit_test(test_cursor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
