/* test_stats.c: the nvtx_sum report (gs_report_nvtx_sum) on a hand-built model, its filter, and its CSV/JSON/table rendering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/reports.h"
#include "../../src/analysis/table.h"
#include "../../src/model/model.h"
#include "../../src/render/render.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

/* A model with the strings given (string 0 must be ""), allocated as gs_model_release frees. */
static void model_init(struct gs_model *m, const char *const *strs, size_t n)
{
	memset(m, 0, sizeof(*m));
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

static void add_range(struct gs_model *m, uint64_t start, uint64_t dur, uint32_t name,
		      uint32_t domain, uint8_t flags, int32_t pid, uint32_t level)
{
	struct gs_range r;
	memset(&r, 0, sizeof(r));
	r.start = start;
	r.end = (flags & GS_RANGE_OPEN) ? start : start + dur;
	r.name = name;
	r.domain = domain;
	r.pid = pid;
	r.tid = pid;
	r.level = level;
	r.flags = flags;
	GS_VEC_PUSH(&m->ranges, r);
}

enum { S_A = 1, S_B = 2, S_DOM = 3 };

/* ":a" push/pop 10, 20, 30 ns; "dom:b" start/end 100 ns; one open ":a" that must not count. */
static void basic_model(struct gs_model *m)
{
	static const char *const strs[] = {"", "a", "b", "dom"};
	model_init(m, strs, 4);
	add_range(m, 2000, 10, S_A, 0, 0, 100, 0);
	add_range(m, 2005, 100, S_B, S_DOM, GS_RANGE_STARTEND, 100, 0);
	add_range(m, 3000, 20, S_A, 0, 0, 100, 1);
	add_range(m, 4000, 30, S_A, 0, 0, 100, 0);
	add_range(m, 5000, 0, S_A, 0, GS_RANGE_OPEN, 100, 0);
}

static const char *const want_cols[] = {
	"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)",
	"Min (ns)", "Max (ns)",        "StdDev (ns)", "Style",  "Range",
};

static void test_nvtx_sum_values(void **state)
{
	(void)state;
	struct gs_model m;
	basic_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	assert_string_equal(t.name, "nvtx_sum");
	assert_string_equal(t.title, "NVTX Range Summary");
	assert_int_equal(t.ncols, 10);
	for (size_t c = 0; c < t.ncols; c++)
		assert_string_equal(t.cols[c].name, want_cols[c]);
	assert_int_equal(t.cols[0].type, GS_COL_PCT);
	assert_int_equal(t.cols[1].type, GS_COL_INT);
	assert_int_equal(t.cols[3].type, GS_COL_FLOAT);
	assert_int_equal(t.cols[9].type, GS_COL_STR);
	assert_int_equal(t.nrows, 2);

	/* sorted by total time, descending: dom:b (100) then :a (60) */
	const union gs_cell *r = t.cells;
	assert_float_equal(r[0].f, 62.5, 1e-9);
	assert_int_equal(r[1].i, 100);
	assert_int_equal(r[2].i, 1);
	assert_float_equal(r[3].f, 100.0, 1e-9);
	assert_float_equal(r[4].f, 100.0, 1e-9);
	assert_int_equal(r[5].i, 100);
	assert_int_equal(r[6].i, 100);
	assert_float_equal(r[7].f, 0.0, 1e-12);
	assert_string_equal(r[8].s, "StartEnd");
	assert_string_equal(r[9].s, "dom:b");

	r = t.cells + t.ncols;
	assert_float_equal(r[0].f, 37.5, 1e-9);
	assert_int_equal(r[1].i, 60);
	assert_int_equal(r[2].i, 3); /* the open range is left out */
	assert_float_equal(r[3].f, 20.0, 1e-9);
	assert_float_equal(r[4].f, 20.0, 1e-9);
	assert_int_equal(r[5].i, 10);
	assert_int_equal(r[6].i, 30);
	assert_float_equal(r[7].f, 10.0, 1e-9);
	assert_string_equal(r[8].s, "PushPop");
	assert_string_equal(r[9].s, ":a");

	/* the report does not change the model */
	assert_int_equal(m.ranges.n, 5);
	assert_int_equal(m.ranges.v[0].end - m.ranges.v[0].start, 10);
	assert_int_equal(m.ranges.v[1].end - m.ranges.v[1].start, 100);
	gs_table_release(&t);
	gs_model_release(&m);
}

static void test_nvtx_sum_csv(void **state)
{
	(void)state;
	struct gs_model m;
	basic_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_CSV, &sb);
	assert_string_equal(sb.buf,
			    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
			    "StdDev (ns),Style,Range\n"
			    "62.5,100,1,100.0,100.0,100,100,0.0,StartEnd,dom:b\n"
			    "37.5,60,3,20.0,20.0,10,30,10.0,PushPop,:a\n");
	gs_strbuf_release(&sb);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* tsv (nsys stats -f tsv): tab-separated, nothing quoted; a tab or line end in a text cell
 * becomes a space (no field may hold them), a comma or quote stays; empty cells empty */
static void test_render_tsv(void **state)
{
	(void)state;
	static const struct gs_column cols[] = {{"Total Time (ns)", GS_COL_NS}, {"Avg (ns)", GS_COL_FLOAT},
						{"Name", GS_COL_STR}};
	struct gs_table t;
	gs_table_init(&t, "x", "X", cols, 3);
	union gs_cell *c = gs_table_row(&t);
	c[0].i = 1500;
	c[1].f = 2.25;
	c[2].s = gs_xstrdup("k<int, \"a\">\tb\r\nc");
	c = gs_table_row(&t);
	gs_cell_set_none(&t, c, 0);
	gs_cell_set_none(&t, c, 1);
	c[2].s = gs_xstrdup("plain");
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_TSV, &sb);
	assert_string_equal(sb.buf, "Total Time (ns)\tAvg (ns)\tName\n"
				    "1500\t2.2\tk<int, \"a\"> b  c\n"
				    "\t\tplain\n");
	gs_strbuf_release(&sb);
	gs_table_release(&t);
}

/* htable (nsys stats -f htable): the title and name as caption, a header row, text escaped,
 * numbers in cells of class n, an empty cell empty */
static void test_render_htable(void **state)
{
	(void)state;
	static const struct gs_column cols[] = {{"Total Time (ns)", GS_COL_NS}, {"Name", GS_COL_STR}};
	struct gs_table t;
	gs_table_init(&t, "x_sum", "X & Y", cols, 2);
	union gs_cell *c = gs_table_row(&t);
	c[0].i = 1500;
	c[1].s = gs_xstrdup("k<int, 'a'> \"b\" & c");
	c = gs_table_row(&t);
	gs_cell_set_none(&t, c, 0);
	c[1].s = gs_xstrdup("plain");
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_HTABLE, &sb);
	assert_string_equal(sb.buf, "<table data-report=\"x_sum\">\n<caption>X &amp; Y (x_sum)</caption>\n"
				    "<thead><tr><th>Total Time (ns)</th><th>Name</th></tr></thead>\n<tbody>\n"
				    "<tr><td class=\"n\">1500</td><td>k&lt;int, &#39;a&#39;&gt; &quot;b&quot; &amp; c</td></tr>\n"
				    "<tr><td class=\"n\"></td><td>plain</td></tr>\n"
				    "</tbody>\n</table>\n");
	gs_strbuf_release(&sb);
	gs_table_release(&t);
}

/* A light JSON shape check: balanced brackets outside strings, strings closed, no raw control
 * bytes inside strings. */
static void json_shape_ok(const char *s)
{
	int depth = 0, in_str = 0;
	for (const char *p = s; *p; p++) {
		if (in_str) {
			assert_true((unsigned char)*p >= 0x20);
			if (*p == '\\') {
				p++;
				assert_non_null(strchr("\"\\/bfnrtu", *p));
			} else if (*p == '"') {
				in_str = 0;
			}
			continue;
		}
		if (*p == '"')
			in_str = 1;
		else if (*p == '[' || *p == '{')
			depth++;
		else if (*p == ']' || *p == '}')
			assert_true(--depth >= 0);
	}
	assert_int_equal(in_str, 0);
	assert_int_equal(depth, 0);
}

static void test_nvtx_sum_json(void **state)
{
	(void)state;
	struct gs_model m;
	basic_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_JSON, &sb);
	json_shape_ok(sb.buf);
	for (size_t c = 0; c < GS_ARRAY_SIZE(want_cols); c++) {
		char key[64];
		snprintf(key, sizeof(key), "\"%s\": ", want_cols[c]);
		/* each key once per row */
		const char *p = sb.buf;
		int n = 0;
		while ((p = strstr(p, key)))
			n++, p++;
		assert_int_equal(n, 2);
	}
	assert_string_equal(sb.buf,
			    "{\"report\": \"nvtx_sum\", \"title\": \"NVTX Range Summary\", \"columns\": "
			    "[\"Time (%)\", \"Total Time (ns)\", \"Instances\", \"Avg (ns)\", \"Med (ns)\", "
			    "\"Min (ns)\", \"Max (ns)\", \"StdDev (ns)\", \"Style\", \"Range\"], \"rows\": [\n"
			    " {\"Time (%)\": 62.5, \"Total Time (ns)\": 100, \"Instances\": 1, "
			    "\"Avg (ns)\": 100.0, \"Med (ns)\": 100.0, \"Min (ns)\": 100, "
			    "\"Max (ns)\": 100, \"StdDev (ns)\": 0.0, \"Style\": \"StartEnd\", "
			    "\"Range\": \"dom:b\"},\n"
			    " {\"Time (%)\": 37.5, \"Total Time (ns)\": 60, \"Instances\": 3, "
			    "\"Avg (ns)\": 20.0, \"Med (ns)\": 20.0, \"Min (ns)\": 10, "
			    "\"Max (ns)\": 30, \"StdDev (ns)\": 10.0, \"Style\": \"PushPop\", "
			    "\"Range\": \":a\"}\n"
			    "]}\n");
	gs_strbuf_release(&sb);
	gs_table_release(&t);
	gs_model_release(&m);
}

static void test_nvtx_sum_table_text(void **state)
{
	(void)state;
	struct gs_model m;
	basic_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_TABLE, &sb);
	assert_true(sb.len > 0 && sb.buf[sb.len - 1] == '\n');
	/* title, blank line, header, rule, two rows */
	const char *want_lines[] = {
		" ** NVTX Range Summary (nvtx_sum):",
		"",
		"Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  "
		"StdDev (ns)  Style     Range",
		"--------  ---------------  ---------  --------  --------  --------  --------  "
		"-----------  --------  -----",
		"    62.5              100          1     100.0     100.0       100       100  "
		"        0.0  StartEnd  dom:b",
		"    37.5               60          3      20.0      20.0        10        30  "
		"       10.0  PushPop   :a",
	};
	const char *p = sb.buf;
	for (size_t i = 0; i < GS_ARRAY_SIZE(want_lines); i++) {
		const char *nl = strchr(p, '\n');
		assert_non_null(nl);
		char line[256];
		size_t n = (size_t)(nl - p);
		assert_true(n < sizeof(line));
		memcpy(line, p, n);
		line[n] = '\0';
		assert_string_equal(line, want_lines[i]);
		p = nl + 1;
	}
	assert_string_equal(p, ""); /* nothing after the rows */
	gs_strbuf_release(&sb);
	gs_table_release(&t);
	gs_model_release(&m);
}

static void test_nvtx_sum_filter(void **state)
{
	(void)state;
	struct gs_model m;
	basic_model(&m);
	add_range(&m, 2500, 1000, S_A, 0, 0, 200, 0); /* another process */
	struct gs_table t;
	struct gs_err err = {0};

	struct gs_filter f = {.pid = 100};
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(t.cells[1].i, 100); /* dom:b first again */
	gs_table_release(&t);

	f.pid = 200;
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 1);
	assert_float_equal(t.cells[0].f, 100.0, 1e-9);
	assert_int_equal(t.cells[1].i, 1000);
	assert_string_equal(t.cells[9].s, ":a");
	gs_table_release(&t);

	f.pid = 300;
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 0);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_CSV, &sb);
	assert_string_equal(sb.buf, "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),"
				    "Min (ns),Max (ns),StdDev (ns),Style,Range\n");
	gs_strbuf_reset(&sb);
	gs_render_table(&t, GS_FMT_JSON, &sb);
	assert_non_null(strstr(sb.buf, "\"rows\": []}\n"));
	gs_strbuf_release(&sb);
	gs_table_release(&t);

	/* time window, relative to start_mono (1000): [1500, 3000) keeps starts 2500..3999 */
	struct gs_filter w = {.t0 = 1500, .t1 = 3000};
	assert_int_equal(gs_report_nvtx_sum(&m, &w, &t, &err), 0);
	assert_int_equal(t.nrows, 1);
	assert_int_equal(t.cells[1].i, 1000 + 20); /* pid 200's 1000 ns and the 20 ns range */
	assert_int_equal(t.cells[2].i, 2);
	gs_table_release(&t);
	struct gs_range r = {.start = 2500, .pid = 1};
	assert_int_equal(gs_filter_range(&m, &w, &r), 1);
	r.start = 2499;
	assert_int_equal(gs_filter_range(&m, &w, &r), 0);
	r.start = 3999;
	assert_int_equal(gs_filter_range(&m, &w, &r), 1);
	r.start = 4000; /* the window's end is exclusive */
	assert_int_equal(gs_filter_range(&m, &w, &r), 0);
	r.start = 10; /* before the session start counts as 0 */
	struct gs_filter all = {0};
	assert_int_equal(gs_filter_range(&m, &all, &r), 1);
	assert_int_equal(gs_filter_range(&m, &w, &r), 0);
	gs_model_release(&m);
}

static void test_nvtx_sum_grouping(void **state)
{
	(void)state;
	/* same name as push/pop and start/end, same name in two domains, equal totals, and names
	 * that need quoting in CSV and escaping in JSON */
	static const char *const strs[] = {"", "x", "d1", "d2", "q\"u,o", "y"};
	struct gs_model m;
	model_init(&m, strs, GS_ARRAY_SIZE(strs));
	add_range(&m, 2000, 50, 1, 0, 0, 1, 0);                  /* :x PushPop */
	add_range(&m, 2100, 50, 1, 0, 0, 1, 0);                  /* :x PushPop */
	add_range(&m, 2200, 100, 5, 0, 0, 1, 0);                 /* :y, same total, fewer */
	add_range(&m, 2300, 7, 1, 0, GS_RANGE_STARTEND, 1, 0);   /* :x StartEnd */
	add_range(&m, 2400, 3, 1, 2, 0, 1, 0);                   /* d1:x */
	add_range(&m, 2500, 1, 4, 3, GS_RANGE_STARTEND, 1, 0);   /* d2:q"u,o */
	add_range(&m, 2600, 0, 4, 3, GS_RANGE_STARTEND, 1, 0);   /* zero length still counts */
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_nvtx_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 5);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_CSV, &sb);
	assert_string_equal(sb.buf,
			    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
			    "StdDev (ns),Style,Range\n"
			    "47.4,100,2,50.0,50.0,50,50,0.0,PushPop,:x\n"
			    "47.4,100,1,100.0,100.0,100,100,0.0,PushPop,:y\n"
			    "3.3,7,1,7.0,7.0,7,7,0.0,StartEnd,:x\n"
			    "1.4,3,1,3.0,3.0,3,3,0.0,PushPop,d1:x\n"
			    "0.5,1,2,0.5,0.5,0,1,0.7,StartEnd,\"d2:q\"\"u,o\"\n");
	gs_strbuf_reset(&sb);
	gs_render_table(&t, GS_FMT_JSON, &sb);
	json_shape_ok(sb.buf);
	assert_non_null(strstr(sb.buf, "\"Range\": \"d2:q\\\"u,o\"}\n]}\n"));
	/* the percentages add up to 100 */
	double sum = 0;
	for (size_t i = 0; i < t.nrows; i++)
		sum += t.cells[i * t.ncols].f;
	assert_float_equal(sum, 100.0, 1e-9);
	gs_strbuf_release(&sb);
	gs_table_release(&t);
	gs_model_release(&m);
}

static void test_reports_registry(void **state)
{
	(void)state;
	const struct gs_report_def *d = gs_report_find("nvtx_sum");
	assert_non_null(d);
	assert_ptr_equal(d->fn, gs_report_nvtx_sum);
	assert_null(gs_report_find("nvtx"));
	assert_null(gs_report_find(""));
	assert_true(gs_nreports >= 1);
	for (size_t i = 0; i < gs_nreports; i++) {
		for (const char *c = gs_reports[i].name; *c; c++)
			assert_false(*c >= 'A' && *c <= 'Z');
		for (size_t j = i + 1; j < gs_nreports; j++)
			assert_string_not_equal(gs_reports[i].name, gs_reports[j].name);
	}
	unsigned all = (1u << GS_FMT_TABLE) | (1u << GS_FMT_CSV) | (1u << GS_FMT_JSON) | (1u << GS_FMT_TSV);
	assert_int_equal(gs_format_parse("csv", all), GS_FMT_CSV);
	assert_int_equal(gs_format_parse("tsv", all), GS_FMT_TSV);
	assert_int_equal(gs_format_parse("column", all), GS_FMT_TABLE); /* nsys's console format */
	assert_int_equal(gs_format_parse("column", 1u << GS_FMT_CSV), -1);
	assert_int_equal(gs_format_parse("hdoc", all | 1u << GS_FMT_HDOC), GS_FMT_HDOC);
	assert_int_equal(gs_format_parse("htable", all), -1);
	assert_int_equal(gs_format_parse("json", all), GS_FMT_JSON);
	assert_int_equal(gs_format_parse("table", all), GS_FMT_TABLE);
	assert_int_equal(gs_format_parse("jsonl", all), -1); /* not allowed here */
	assert_int_equal(gs_format_parse("CSV", all), -1);
	assert_string_equal(gs_format_name(GS_FMT_CSV), "csv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvtx_sum_values),
		cmocka_unit_test(test_nvtx_sum_csv),
		cmocka_unit_test(test_render_tsv),
		cmocka_unit_test(test_render_htable),
		cmocka_unit_test(test_nvtx_sum_json),
		cmocka_unit_test(test_nvtx_sum_table_text),
		cmocka_unit_test(test_nvtx_sum_filter),
		cmocka_unit_test(test_nvtx_sum_grouping),
		cmocka_unit_test(test_reports_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
