/* test_join.c: the model's joins (range parents, API call -> innermost range on its thread,
 * kernel -> API call by correlation) and the nvtx_kern_sum report built on them, on a
 * hand-built model with known answers; a trace loaded without them, joined later. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/reports.h"
#include "../../src/model/model.h"
#include "../../src/util/alloc.h"

enum { S_OUTER = 1, S_INNER = 2, S_SIB = 3, S_OTHER = 4, S_K1 = 5, S_K2 = 6 };

static void range(struct gs_model *m, int32_t tid, uint64_t start, uint64_t end, uint32_t name,
		  uint32_t level)
{
	struct gs_range r = {.start = start, .end = end, .name = name, .pid = 1, .tid = tid,
			     .level = (uint16_t)level};
	GS_VEC_PUSH(&m->ranges, r);
}

static void api(struct gs_model *m, int32_t tid, uint64_t start, uint32_t corr)
{
	struct gs_api a = {.start = start, .end = start + 1, .pid = 1, .tid = tid, .correlation = corr};
	GS_VEC_PUSH(&m->apis, a);
}

static void kernel(struct gs_model *m, uint32_t corr, uint64_t start, uint64_t dur, uint32_t name)
{
	struct gs_kshape sh = {.name = name};
	struct gs_kernel k = {.start = start, .end = start + dur, .pid = 1, .correlation = corr,
			      .shape = gs_model_kshape(m, &sh)};
	GS_VEC_PUSH(&m->kernels, k);
}

/* Thread 10: outer [100, 1000] > inner [200, 500] and sibling [600, 900] (same level).
 * Thread 11: other [100, 1000]. API calls: t10 at 300 (inner), 550 (outer), 700 (sibling),
 * 1200 (none); t11 at 300 (other). Kernels 1..5 follow their calls; kernel 6 has no call. */
static void build(struct gs_model *m)
{
	static const char *const strs[] = {"", "outer", "inner", "sibling", "other", "_Z2k1v", "k2"};
	memset(m, 0, sizeof(*m));
	m->nstrings = sizeof(strs) / sizeof(strs[0]);
	m->strings = gs_xmalloc(m->nstrings * sizeof(char *));
	m->string_lens = gs_xmalloc(m->nstrings * sizeof(uint32_t));
	for (size_t i = 0; i < m->nstrings; i++) {
		m->strings[i] = gs_xstrdup(strs[i]);
		m->string_lens[i] = (uint32_t)strlen(strs[i]);
	}
	range(m, 10, 100, 1000, S_OUTER, 0);
	range(m, 11, 100, 1000, S_OTHER, 0);
	range(m, 10, 200, 500, S_INNER, 1);
	range(m, 10, 600, 900, S_SIB, 1);
	api(m, 10, 300, 1);
	api(m, 10, 550, 2);
	api(m, 10, 700, 3);
	api(m, 10, 1200, 4);
	api(m, 11, 300, 5);
	kernel(m, 1, 2000, 10, S_K1);
	kernel(m, 2, 2100, 20, S_K1);
	kernel(m, 3, 2200, 30, S_K2);
	kernel(m, 4, 2300, 40, S_K2);
	kernel(m, 5, 2400, 50, S_K2);
	kernel(m, 99, 2500, 60, S_K2);
	gs_model_join(m);
}

static const char *range_name(const struct gs_model *m, int32_t r)
{
	return r < 0 ? "-" : m->strings[m->ranges.v[r].name];
}

static void test_joins(void **state)
{
	(void)state;
	struct gs_model m;
	build(&m);
	/* parents */
	for (size_t i = 0; i < m.ranges.n; i++) {
		const struct gs_range *r = &m.ranges.v[i];
		const char *want = r->name == S_INNER || r->name == S_SIB ? "outer" : "-";
		assert_string_equal(range_name(&m, r->parent), want);
	}
	/* innermost range of each call */
	const char *want[] = {"inner", "outer", "sibling", "-", "other"};
	for (size_t i = 0; i < m.apis.n; i++)
		assert_string_equal(range_name(&m, m.apis.v[i].range), want[i]);
	/* kernels to calls */
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(m.kernels.v[i].api, (int)i);
	assert_int_equal(m.kernels.v[5].api, -1);
	/* demangling: _Z2k1v -> k1() when libstdc++ is there; k2 is not mangled and stays */
	assert_string_equal(m.strings[gs_kshape(&m, &m.kernels.v[2])->dname], "k2");
	const char *d = m.strings[gs_kshape(&m, &m.kernels.v[0])->dname];
	assert_true(!strcmp(d, "k1()") || !strcmp(d, "_Z2k1v"));
	gs_model_release(&m);
}

/* One process whose correlation ids increase with time, as CUPTI numbers them: the loader's
 * path that searches the API table itself. GPU work in any order finds its call; ids no call
 * has (skipped ids, before the first, after the last, another process) find none. */
static void test_increasing_ids(void **state)
{
	(void)state;
	static const char *const strs[] = {"", "k"};
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	m.nstrings = 2;
	m.strings = gs_xmalloc(2 * sizeof(char *));
	m.string_lens = gs_xmalloc(2 * sizeof(uint32_t));
	for (size_t i = 0; i < 2; i++) {
		m.strings[i] = gs_xstrdup(strs[i]);
		m.string_lens[i] = (uint32_t)strlen(strs[i]);
	}
	enum { N = 300 };
	for (uint32_t i = 0; i < N; i++)
		api(&m, 10 + (int32_t)(i % 3), 1000 + 10 * i, 5 + 3 * i);
	for (uint32_t i = 0; i < N; i++) /* a scrambled order, with runs back and forth */
		kernel(&m, 5 + 3 * ((i * 37) % N), 5000 + i, 1, 1);
	const uint32_t none[] = {6, 4, 1, 5 + 3 * N, 100000};
	for (size_t i = 0; i < GS_ARRAY_SIZE(none); i++)
		kernel(&m, none[i], 9000 + i, 1, 1);
	struct gs_kernel other = m.kernels.v[0];
	other.pid = 2;
	GS_VEC_PUSH(&m.kernels, other);
	gs_model_join(&m);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(m.kernels.v[i].api, (int)((i * 37) % N));
	for (size_t i = N; i < m.kernels.n; i++)
		assert_int_equal(m.kernels.v[i].api, -1);
	gs_model_release(&m);
}

/* The same path with GPU work on two streams, as bench/gen_trace has it: every fourth kernel
 * runs on a second stream, 45 launches after its own, so the search jumps ahead and back (ids
 * skip now and then, as CUPTI's do for calls not recorded). Every kernel finds its call. */
static void test_two_streams_ids(void **state)
{
	(void)state;
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	m.nstrings = 1;
	m.strings = gs_xmalloc(sizeof(char *));
	m.string_lens = gs_xcalloc(1, sizeof(uint32_t));
	m.strings[0] = gs_xstrdup("");
	enum { N = 1000, LAG = 45 };
	for (uint32_t i = 0; i < N; i++)
		api(&m, 10, 1000 + 10 * i, 1 + i + i / 7);
	/* kernel i starts at 2 i, or 2 (i + LAG) + 1 on the second stream */
	uint32_t order[N];
	size_t k = 0;
	for (uint32_t t = 0; t < 2 * (N + LAG) + 2; t++) {
		uint32_t i = t / 2;
		if (t % 2 == 0 && i < N && i % 4 != 3)
			order[k++] = i;
		else if (t % 2 == 1 && i >= LAG && i - LAG < N && (i - LAG) % 4 == 3)
			order[k++] = i - LAG;
	}
	assert_int_equal(k, N);
	for (size_t j = 0; j < N; j++)
		kernel(&m, 1 + order[j] + order[j] / 7, 50000 + j, 1, 0);
	gs_model_join(&m);
	for (size_t j = 0; j < N; j++)
		assert_int_equal(m.kernels.v[j].api, (int)order[j]);
	gs_model_release(&m);
}

/* Two processes, one with ids too far apart for an array indexed by id (a hash map then), one
 * with dense ids in no particular order: every kernel finds its own process's call. */
static void test_sparse_ids(void **state)
{
	(void)state;
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	m.nstrings = 1;
	m.strings = gs_xmalloc(sizeof(char *));
	m.string_lens = gs_xcalloc(1, sizeof(uint32_t));
	m.strings[0] = gs_xstrdup("");
	enum { N = 50 };
	for (uint32_t i = 0; i < N; i++) {
		struct gs_api a = {.start = 100 * i, .end = 100 * i + 1, .pid = 1, .tid = 1,
				   .correlation = (i * 7 % N) * 1000003u + 1};
		GS_VEC_PUSH(&m.apis, a);
		struct gs_api b = {.start = 100 * i + 50, .end = 100 * i + 51, .pid = 2, .tid = 2,
				   .correlation = N - i};
		GS_VEC_PUSH(&m.apis, b);
	}
	for (uint32_t i = 0; i < N; i++) {
		struct gs_kernel k = {.start = 9000 + i, .end = 9001 + i, .pid = 1 + (int32_t)(i % 2),
				      .correlation = i % 2 ? N - i : (i * 7 % N) * 1000003u + 1};
		GS_VEC_PUSH(&m.kernels, k);
	}
	struct gs_kernel lost = {.start = 9999, .end = 10000, .pid = 1, .correlation = 2};
	GS_VEC_PUSH(&m.kernels, lost);
	gs_model_join(&m);
	for (uint32_t i = 0; i < N; i++) /* api index 2 i (process 1) or 2 i + 1 (process 2) */
		assert_int_equal(m.kernels.v[i].api, (int)(2 * i + i % 2));
	assert_int_equal(m.kernels.v[N].api, -1);
	gs_model_release(&m);
}

static void test_nvtx_kern_sum(void **state)
{
	(void)state;
	struct gs_model m;
	build(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err;
	assert_int_equal(gs_report_nvtx_kern_sum(&m, &f, &t, &err), 0);
	/* rows: (range, kernel) -> kernel count, total: outer gets k1 x2 (10+20) and k2 x1 (30)
	 * through its children; inner k1 x1 (10); sibling k2 x1 (30); other k2 x1 (50) */
	struct {
		const char *range, *kernel;
		int64_t n, total, inst;
	} want[] = {
		{":inner", "k1", 1, 10, 1}, {":other", "k2", 1, 50, 1}, {":outer", "k1", 2, 30, 1},
		{":outer", "k2", 1, 30, 1}, {":sibling", "k2", 1, 30, 1}, /* equal totals: by name */
	};
	assert_int_equal(t.nrows, 5);
	for (size_t r = 0; r < t.nrows; r++) {
		const union gs_cell *c = &t.cells[r * t.ncols];
		assert_string_equal(c[0].s, want[r].range);
		assert_true(strncmp(c[12].s, want[r].kernel, 2) == 0);
		assert_int_equal(c[4].i, want[r].inst);
		assert_int_equal(c[5].i, want[r].n);
		assert_int_equal(c[6].i, want[r].total);
		assert_int_equal(c[2].i, 1);
	}
	gs_table_release(&t);
	gs_model_release(&m);
}

/* The stream table: streams of GPU work and streams created, merged by (pid, context,
 * stream), with the flag of their creation or of the context's default stream. */
static void test_streams(void **state)
{
	(void)state;
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	struct gs_context c1 = {.pid = 1, .id = 1, .device = 0, .null_stream = 7};
	struct gs_context c2 = {.pid = 2, .id = 1, .device = 1, .null_stream = 7};
	GS_VEC_PUSH(&m.contexts, c1);
	GS_VEC_PUSH(&m.contexts, c2);
	struct gs_stream_record r1 = {.pid = 1, .context = 1, .stream = 13, .priority = 5,
				      .flag = GS_STREAM_NON_BLOCKING, .correlation = 40};
	struct gs_stream_record r2 = {.pid = 1, .context = 1, .stream = 20, .flag = GS_STREAM_BLOCKING};
	GS_VEC_PUSH(&m.stream_records, r1);
	GS_VEC_PUSH(&m.stream_records, r2);
	struct gs_kernel k[] = {
		{.start = 100, .end = 110, .pid = 1, .device = 0, .context = 1, .stream = 7},
		{.start = 200, .end = 220, .pid = 1, .device = 0, .context = 1, .stream = 7},
		{.start = 300, .end = 305, .pid = 1, .device = 0, .context = 1, .stream = 13},
		{.start = 50, .end = 57, .pid = 2, .device = 1, .context = 1, .stream = 7},
	};
	for (size_t i = 0; i < 4; i++)
		GS_VEC_PUSH(&m.kernels, k[i]);
	struct gs_copy cp = {.start = 400, .end = 403, .pid = 1, .device = 0, .context = 1, .stream = 13};
	GS_VEC_PUSH(&m.copies, cp);
	struct gs_memset ms = {.start = 60, .end = 64, .pid = 2, .device = 1, .context = 1, .stream = 9};
	GS_VEC_PUSH(&m.memsets, ms);
	struct gs_graph_launch gl = {.start = 500, .end = 600, .pid = 1, .device = 0, .context = 1, .stream = 13};
	GS_VEC_PUSH(&m.graphs, gl);
	assert_int_equal(gs_model_streams(&m), 5);
	/* pid device context stream flag created priority kernels copies memsets graphs busy first last */
	static const uint64_t want[5][14] = {
		{1, 0, 1, 7, GS_STREAM_NULL, 0, 0, 2, 0, 0, 0, 30, 100, 220},
		{1, 0, 1, 13, GS_STREAM_NON_BLOCKING, 1, 5, 1, 1, 0, 1, 108, 300, 600},
		{1, 0, 1, 20, GS_STREAM_BLOCKING, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		{2, 1, 1, 7, GS_STREAM_NULL, 0, 0, 1, 0, 0, 0, 7, 50, 57},
		{2, 1, 1, 9, GS_STREAM_UNKNOWN, 0, 0, 0, 0, 1, 0, 4, 60, 64},
	};
	for (size_t i = 0; i < 5; i++) {
		const struct gs_stream *t = &m.streams.v[i];
		const uint64_t got[14] = {(uint64_t)t->pid, t->device, t->context, t->stream, t->flag,
					  t->created, t->priority, t->kernels, t->copies, t->memsets,
					  t->graphs, t->busy, t->first, t->last};
		assert_memory_equal(got, want[i], sizeof(got));
	}
	assert_int_equal(m.streams.v[1].correlation, 40);
	assert_string_equal(gs_stream_flag_name(m.streams.v[0].flag), "default");
	assert_string_equal(gs_stream_flag_name(m.streams.v[1].flag), "non-blocking");
	assert_int_equal(gs_model_streams(&m), 5); /* built once */
	gs_model_release(&m);
}

/* gs_model_load_unjoined: the model of gs_model_load with the joins left out (parents, calls'
 * ranges, GPU work's calls all -1; names demangled), and gs_model_join then makes it that
 * model; on a recorded trace (tests/data/cuda_resnet50.gst: ranges, calls and kernels). */
static void test_unjoined(void **state)
{
	(void)state;
	static const char path[] = "tests/data/cuda_resnet50.gst";
	struct gs_model j, u;
	struct gs_err err = {0};
	assert_int_equal(gs_model_load(&j, path, &err), 0);
	assert_int_equal(gs_model_load_unjoined(&u, path, &err), 0);
	assert_true(j.joined && !u.joined);
	assert_true(j.kernels.n > 0 && j.apis.n > 0 && j.ranges.n > 0);
	assert_int_equal(u.kernels.n, j.kernels.n);
	assert_int_equal(u.apis.n, j.apis.n);
	assert_int_equal(u.ranges.n, j.ranges.n);
	assert_int_equal(u.kshapes.n, j.kshapes.n);
	size_t linked = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < j.kernels.n; i++) {
			assert_int_equal(u.kernels.v[i].api, pass ? j.kernels.v[i].api : -1);
			linked += !pass && j.kernels.v[i].api >= 0;
		}
		for (size_t i = 0; i < j.apis.n; i++)
			assert_int_equal(u.apis.v[i].range, pass ? j.apis.v[i].range : -1);
		for (size_t i = 0; i < j.ranges.n; i++)
			assert_int_equal(u.ranges.v[i].parent, pass ? j.ranges.v[i].parent : -1);
		for (size_t i = 0; i < j.kshapes.n; i++) /* demangled either way, and once */
			assert_string_equal(u.strings[u.kshapes.v[i].dname], j.strings[j.kshapes.v[i].dname]);
		assert_int_equal(u.nstrings, j.nstrings);
		if (!pass)
			gs_model_join(&u);
	}
	assert_true(linked > 0 && u.joined);
	gs_model_release(&j);
	gs_model_release(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joins),
		cmocka_unit_test(test_increasing_ids),
		cmocka_unit_test(test_two_streams_ids),
		cmocka_unit_test(test_sparse_ids),
		cmocka_unit_test(test_nvtx_kern_sum),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_unjoined),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
