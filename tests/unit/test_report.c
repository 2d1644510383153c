/* test_report.c: the report page's own computations (render/html_data.c): the bins (edges,
 * the bin of a time, spreading an interval over them), the timeline built from a hand-made
 * model (union per row, nesting levels, the name shown per bin, the longest events kept), its
 * JSON, and the escaping that keeps names inside the page's data <script> element. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/model/model.h"
#include "../../src/render/html.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

static void test_bin_edges(void **state)
{
	(void)state;
	struct gs_html_bins b = {1000, 1010, 3}; /* 10 ns in 3 bins: [1000,1003) [1003,1006) [1006,1010) */
	assert_int_equal(gs_html_bin_edge(&b, 0), 1000);
	assert_int_equal(gs_html_bin_edge(&b, 1), 1003);
	assert_int_equal(gs_html_bin_edge(&b, 2), 1006);
	assert_int_equal(gs_html_bin_edge(&b, 3), 1010);
	assert_int_equal(gs_html_bin_of(&b, 0), 0);    /* before the span: the first */
	assert_int_equal(gs_html_bin_of(&b, 1002), 0);
	assert_int_equal(gs_html_bin_of(&b, 1003), 1);
	assert_int_equal(gs_html_bin_of(&b, 1005), 1);
	assert_int_equal(gs_html_bin_of(&b, 1006), 2);
	assert_int_equal(gs_html_bin_of(&b, 1009), 2);
	assert_int_equal(gs_html_bin_of(&b, 5000), 2); /* after: the last */
	/* a span of more than 2^64 / n ns still divides exactly */
	struct gs_html_bins big = {0, UINT64_MAX - 1, 2000};
	assert_int_equal(gs_html_bin_edge(&big, 1000), (UINT64_MAX - 1) / 2);
	assert_int_equal(gs_html_bin_of(&big, (UINT64_MAX - 1) / 2), 1000);
	assert_int_equal(gs_html_bin_of(&big, (UINT64_MAX - 1) / 2 - 1), 999);
}

static void test_bin_add(void **state)
{
	(void)state;
	struct gs_html_bins b = {1000, 1010, 3};
	uint64_t acc[3] = {0};
	gs_html_bin_add(&b, 1001, 1008, acc); /* 2 + 3 + 2 */
	assert_int_equal(acc[0], 2);
	assert_int_equal(acc[1], 3);
	assert_int_equal(acc[2], 2);
	gs_html_bin_add(&b, 990, 1004, acc);  /* cut to the span: 3 + 1 */
	assert_int_equal(acc[0], 5);
	assert_int_equal(acc[1], 4);
	gs_html_bin_add(&b, 1009, 2000, acc); /* 1 */
	assert_int_equal(acc[2], 3);
	gs_html_bin_add(&b, 1004, 1004, acc); /* empty */
	gs_html_bin_add(&b, 2000, 3000, acc); /* outside */
	assert_int_equal(acc[0] + acc[1] + acc[2], 12);
}

static void test_script_json(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	const char *j = "{\"n\": \"</script><!-- a&b >\"}";
	gs_html_add_script_json(&sb, j, strlen(j));
	assert_string_equal(sb.buf, "{\"n\": \"\\u003c/script\\u003e\\u003c!-- a\\u0026b \\u003e\"}");
	assert_null(strchr(sb.buf, '<'));
	gs_strbuf_reset(&sb);
	gs_html_add_script_json(&sb, "plain", 5);
	assert_string_equal(sb.buf, "plain");
	gs_strbuf_reset(&sb);
	gs_html_add_text(&sb, "a<b>&\"c'");
	assert_string_equal(sb.buf, "a&lt;b&gt;&amp;&quot;c&#39;");
	gs_strbuf_release(&sb);
}

/* ---- a hand-made model ---- */

enum { S_STEP = 1, S_OP = 2, S_K1 = 3, S_K2 = 4, S_DOM = 5 };

static void model_init(struct gs_model *m)
{
	static const char *const strs[] = {"", "step", "op", "kern_a", "kern_b", "dom"};
	memset(m, 0, sizeof(*m));
	size_t n = GS_ARRAY_SIZE(strs);
	m->strings = gs_xmalloc(n * sizeof(char *));
	m->string_lens = gs_xmalloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		m->strings[i] = gs_xstrdup(strs[i]);
		m->string_lens[i] = (uint32_t)strlen(strs[i]);
	}
	m->nstrings = n;
	m->start_mono = 1000;
	m->complete = 1;
}

static void add_range(struct gs_model *m, uint64_t s, uint64_t e, uint32_t name, uint32_t domain,
		      uint16_t level)
{
	struct gs_range r = {.start = s, .end = e, .name = name, .domain = domain, .pid = 7, .tid = 8,
			     .parent = -1, .level = level};
	GS_VEC_PUSH(&m->ranges, r);
}

static void add_kernel(struct gs_model *m, uint64_t s, uint64_t e, uint32_t name, uint32_t stream)
{
	struct gs_kshape sh = {.name = name, .dname = name};
	struct gs_kernel k = {.start = s, .end = e, .pid = 7, .device = 0, .stream = stream, .api = -1};
	k.shape = gs_model_kshape(m, &sh);
	GS_VEC_PUSH(&m->kernels, k);
}

/* span 2000..3000 (session-relative 1000..2000) in 10 bins of 100 ns:
 *   thread 7/8 level 0: "step" 2000..3000; level 1: "op" 2100..2150 and "dom:op" 2500..2900
 *   stream 1: kern_a 2000..2300, kern_b 2250..2400 (overlapping: the union counts once)
 *   stream 2: kern_b 2600..2650 */
static void build(struct gs_model *m)
{
	model_init(m);
	add_range(m, 2000, 3000, S_STEP, 0, 0);
	add_range(m, 2100, 2150, S_OP, 0, 1);
	add_range(m, 2500, 2900, S_OP, S_DOM, 1);
	add_kernel(m, 2000, 2300, S_K1, 1);
	add_kernel(m, 2250, 2400, S_K2, 1);
	add_kernel(m, 2600, 2650, S_K2, 2);
}

static const struct gs_html_row *row(const struct gs_html_timeline *tl, int kind, uint32_t sub)
{
	for (size_t i = 0; i < tl->rows.n; i++)
		if (tl->rows.v[i].kind == kind && tl->rows.v[i].b == sub)
			return &tl->rows.v[i];
	return NULL;
}

static void test_timeline(void **state)
{
	(void)state;
	struct gs_model m;
	build(&m);
	struct gs_filter f = {0};
	struct gs_html_timeline tl;
	gs_html_timeline_build(&m, &f, 10, 100, &tl);
	assert_int_equal(tl.bins.t0, 2000);
	assert_int_equal(tl.bins.t1, 3000);
	assert_int_equal(tl.events, 6);
	assert_int_equal(tl.shown, 6);
	/* rows: thread levels 0 and 1, streams 1 and 2, the device */
	assert_int_equal(tl.rows.n, 5);
	assert_int_equal(tl.rows.v[0].kind, GS_HTML_ROW_THREAD);
	assert_int_equal(tl.rows.v[0].b, 0);
	assert_int_equal(tl.rows.v[1].b, 1);
	assert_int_equal(tl.rows.v[4].kind, GS_HTML_ROW_DEVICE);
	const struct gs_html_row *l1 = row(&tl, GS_HTML_ROW_THREAD, 1);
	assert_non_null(l1);
	static const uint64_t want_l1[10] = {0, 50, 0, 0, 0, 100, 100, 100, 100, 0};
	for (int i = 0; i < 10; i++)
		assert_int_equal(l1->busy[i], want_l1[i]);
	const struct gs_html_row *s1 = row(&tl, GS_HTML_ROW_STREAM, 1);
	static const uint64_t want_s1[10] = {100, 100, 100, 100, 0, 0, 0, 0, 0, 0};
	for (int i = 0; i < 10; i++)
		assert_int_equal(s1->busy[i], want_s1[i]);
	/* bin 2 (2200..2300): kern_a covers 100, kern_b 50: kern_a; bin 3: kern_b */
	assert_int_equal(s1->top[2], ((uint64_t)1 << 62 | S_K1) + 1);
	assert_int_equal(s1->top[3], ((uint64_t)1 << 62 | S_K2) + 1);
	assert_int_equal(s1->top[5], 0);
	const struct gs_html_row *dev = row(&tl, GS_HTML_ROW_DEVICE, 0);
	uint64_t total = 0;
	for (int i = 0; i < 10; i++)
		total += dev->busy[i];
	assert_int_equal(total, 400 + 50); /* 2000..2400 and 2600..2650 */
	assert_int_equal(dev->shown.n, 0); /* the device row repeats the streams': never kept */

	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_html_timeline_json(&m, &tl, &sb);
	assert_non_null(strstr(sb.buf, "{\"start_ns\": 1000, \"end_ns\": 2000, \"bins\": 10, \"events\": 6, \"events_shown\": 6"));
	assert_non_null(strstr(sb.buf, "\"busy\": [0,500,0,0,0,1000,1000,1000,1000,0]"));
	assert_non_null(strstr(sb.buf, "\"names\": [\n\"step\",\n\"op\",\n\"dom:op\",\n\"kern_a\",\n\"kern_b\"]"));
	/* level 1's events: start (session-relative), duration, name index, kind */
	assert_non_null(strstr(sb.buf, "\"events\": [1100,50,1,0,1500,400,2,0]"));
	assert_non_null(strstr(sb.buf, "\"group\": \"GPU 0 (pid 7)\", \"label\": \"stream 1\", \"count\": 2, \"busy_ns\": 400"));
	gs_strbuf_release(&sb);
	gs_html_timeline_release(&tl);

	/* only the two longest events: "step" (1000) and "dom:op" (400) */
	gs_html_timeline_build(&m, &f, 10, 2, &tl);
	assert_int_equal(tl.events, 6);
	assert_int_equal(tl.shown, 2);
	assert_int_equal(row(&tl, GS_HTML_ROW_THREAD, 0)->shown.n, 1);
	l1 = row(&tl, GS_HTML_ROW_THREAD, 1);
	assert_int_equal(l1->shown.n, 1);
	assert_int_equal(l1->shown.v[0].start, 2500);
	assert_int_equal(row(&tl, GS_HTML_ROW_STREAM, 1)->shown.n, 0);
	/* the busy time does not depend on what is kept */
	assert_int_equal(l1->busy[1], 50);
	gs_html_timeline_release(&tl);

	/* the three longest: step, dom:op, kern_a (300) */
	gs_html_timeline_build(&m, &f, 10, 3, &tl);
	assert_int_equal(tl.shown, 3);
	assert_int_equal(row(&tl, GS_HTML_ROW_STREAM, 1)->shown.n, 1);
	assert_int_equal(row(&tl, GS_HTML_ROW_STREAM, 1)->shown.v[0].end, 2300);
	gs_html_timeline_release(&tl);
	/* five: a tie at the threshold (op and stream 2's kern_b, 50 ns each): the first in row
	 * order is kept, exactly five in all */
	gs_html_timeline_build(&m, &f, 10, 5, &tl);
	assert_int_equal(tl.shown, 5);
	assert_int_equal(row(&tl, GS_HTML_ROW_THREAD, 1)->shown.n, 2);
	assert_int_equal(row(&tl, GS_HTML_ROW_STREAM, 1)->shown.n, 2);
	assert_int_equal(row(&tl, GS_HTML_ROW_STREAM, 2)->shown.n, 0);
	gs_html_timeline_release(&tl);

	/* --device 0: no thread rows; --time 1.5us: the span from there */
	struct gs_filter fd = {.by_device = 1, .device = 0};
	gs_html_timeline_build(&m, &fd, 10, 100, &tl);
	assert_int_equal(tl.rows.v[0].kind, GS_HTML_ROW_STREAM);
	assert_int_equal(tl.events, 3);
	gs_html_timeline_release(&tl);
	struct gs_filter ft = {.t0 = 1500};
	gs_html_timeline_build(&m, &ft, 10, 100, &tl);
	assert_int_equal(tl.bins.t0, 2500);
	assert_int_equal(tl.events, 2); /* dom:op at 2500 and kern_b at 2600 start in the window */
	gs_html_timeline_release(&tl);
	gs_model_release(&m);
}

static void test_timeline_empty(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m);
	m.end_mono = 1000; /* nothing recorded, a session of no length */
	struct gs_filter f = {0};
	struct gs_html_timeline tl;
	gs_html_timeline_build(&m, &f, 2000, 100, &tl);
	assert_int_equal(tl.rows.n, 0);
	assert_int_equal(tl.events, 0);
	assert_true(tl.bins.t1 > tl.bins.t0);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_html_timeline_json(&m, &tl, &sb);
	assert_string_equal(sb.buf, "{\"start_ns\": 0, \"end_ns\": 1, \"bins\": 2000, \"events\": 0, "
				    "\"events_shown\": 0, \"rows\": [],\n\"names\": []}");
	gs_strbuf_release(&sb);
	gs_html_timeline_release(&tl);
	gs_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bin_edges),
		cmocka_unit_test(test_bin_add),
		cmocka_unit_test(test_script_json),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
