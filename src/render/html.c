/* html.c: the HTML pages of `gpuscope report` and `gpuscope diff --format html`. The page is
 * one file: a style sheet and a script of this project (html_page.css, html_page.js, embedded
 * at build time as html_assets.h), and one JSON blob in a <script type="application/json">
 * element that the script reads and draws. The blob is made of what the other commands print
 * as JSON (analyze, the stats overview, the stats reports, diff), unchanged, so the page shows
 * the numbers they show; only the pre-binned timeline (html_data.c) and the copies grouped by
 * memory kind are the page's own. Big tables are cut to their first rows (they come sorted,
 * largest first); the blob says how many rows each had. */
#include <stdlib.h>
#include <string.h>

#include "../analysis/analyze.h"
#include "../analysis/diff.h"
#include "../analysis/gpu_ops.h"
#include "../analysis/overview.h"
#include "analyze.h"
#include "diff.h"
#include "html.h"
#include "html_assets.h" /* generated: gs_html_css, gs_html_js */
#include "render.h"

#define TOP_ROWS 50 /* rows kept of the kernel and range tables */

void gs_html_page(struct gs_strbuf *out, const char *kind, const char *title, const char *json,
		  size_t json_len)
{
	gs_strbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			    "<meta name=\"color-scheme\" content=\"light dark\">\n"
			    "<meta name=\"generator\" content=\"gpuscope " GS_VERSION "\">\n<title>");
	gs_html_add_text(out, title);
	gs_strbuf_adds(out, "</title>\n<style>\n");
	gs_strbuf_adds(out, gs_html_css);
	gs_strbuf_addf(out, "</style>\n</head>\n<body data-page=\"%s\">\n", kind);
	/* first, so that an error anywhere in the page's script is seen (the browser test reads it) */
	gs_strbuf_adds(out, "<script>window.gsErrors=[];window.addEventListener('error',function(e){"
			    "window.gsErrors.push(String(e.message));document.body.setAttribute("
			    "'data-errors',String(window.gsErrors.length));});</script>\n");
	gs_strbuf_adds(out, "<header class=\"top\"><h1>");
	gs_html_add_text(out, title);
	gs_strbuf_adds(out, "</h1></header>\n<main id=\"gs-main\"><noscript>This report draws its "
			    "tables and charts with JavaScript; allow scripts for this file.</noscript>"
			    "</main>\n<div id=\"gs-tip\" class=\"tip\" hidden></div>\n"
			    "<script type=\"application/json\" id=\"gs-data\">");
	gs_html_add_script_json(out, json, json_len);
	gs_strbuf_adds(out, "</script>\n<script>\n");
	gs_strbuf_adds(out, gs_html_js);
	gs_strbuf_adds(out, "</script>\n</body>\n</html>\n");
}

/* ---- the blob's parts ---- */

static void add_str(struct gs_strbuf *sb, const char *key, const char *s)
{
	gs_strbuf_addf(sb, "\"%s\": ", key);
	if (!s) {
		gs_strbuf_adds(sb, "null");
		return;
	}
	gs_strbuf_addc(sb, '"');
	gs_strbuf_add_json(sb, s, strlen(s));
	gs_strbuf_addc(sb, '"');
}

/* A renderer's JSON without its closing newline. */
static void add_trimmed(struct gs_strbuf *out, struct gs_strbuf *part)
{
	while (part->len && (part->buf[part->len - 1] == '\n' || part->buf[part->len - 1] == ' '))
		part->buf[--part->len] = '\0';
	gs_strbuf_add(out, part->buf, part->len);
	gs_strbuf_reset(part);
}

static void meta_json(const struct gs_model *m, struct gs_strbuf *sb)
{
	gs_strbuf_adds(sb, "{");
	add_str(sb, "path", m->path);
	gs_strbuf_adds(sb, ", ");
	add_str(sb, "command", m->command);
	gs_strbuf_adds(sb, ", ");
	add_str(sb, "host", m->host);
	gs_strbuf_adds(sb, ", ");
	add_str(sb, "recorder", m->version);
	gs_strbuf_adds(sb, ", ");
	add_str(sb, "source", m->trace);
	gs_strbuf_adds(sb, ", ");
	add_str(sb, "clock", m->clock);
	gs_strbuf_addf(sb, ", \"format\": \"%u.%u\", \"imported\": %s, \"complete\": %s, \"damaged\": %s, ",
		       m->format_major, m->format_minor, m->imported ? "true" : "false",
		       m->complete ? "true" : "false", m->damaged ? "true" : "false");
	add_str(sb, "why", m->damaged ? m->why : NULL);
	gs_strbuf_adds(sb, ", ");
	add_str(sb, "warning", *m->warning ? m->warning : NULL);
	gs_strbuf_addf(sb, ", \"file_size\": %llu, \"chunks\": %llu, \"start_real_ns\": %llu, "
			   "\"end_real_ns\": %llu, \"exit_status\": %d",
		       (unsigned long long)m->file_size, (unsigned long long)m->chunks,
		       (unsigned long long)m->start_real, (unsigned long long)m->end_real, m->exit_status);
	gs_strbuf_addf(sb, ", \"counts\": {\"ranges\": %zu, \"marks\": %zu, \"api_calls\": %zu, "
			   "\"kernels\": %zu, \"copies\": %zu, \"memsets\": %zu, \"syncs\": %zu, "
			   "\"memory_ops\": %zu, \"threads\": %zu, \"processes\": %zu}",
		       m->ranges.n, m->marks.n, m->apis.n, m->kernels.n, m->copies.n, m->memsets.n,
		       m->syncs.n, m->memops.n, m->threads.n, m->processes.n);
	gs_strbuf_adds(sb, ", \"processes\": [");
	for (size_t i = 0; i < m->processes.n; i++) {
		const struct gs_process *p = &m->processes.v[i];
		gs_strbuf_addf(sb, "%s{\"pid\": %d, \"ppid\": %d, \"exit_status\": %d, ", i ? ", " : "",
			       p->pid, p->ppid, p->exit_status);
		add_str(sb, "cmdline", p->cmdline);
		gs_strbuf_adds(sb, "}");
	}
	gs_strbuf_adds(sb, "], \"devices\": [");
	for (size_t i = 0; i < m->devices.n; i++) {
		const struct gs_device *d = &m->devices.v[i];
		gs_strbuf_addf(sb, "%s{\"pid\": %d, \"id\": %u, ", i ? ", " : "", d->pid, d->id);
		add_str(sb, "name", gs_model_str(m, d->name));
		gs_strbuf_addf(sb, ", \"sms\": %u, \"cc\": \"%u.%u\", \"memory\": %llu}", d->sms,
			       d->cc_major, d->cc_minor, (unsigned long long)d->global_memory);
	}
	gs_strbuf_adds(sb, "]}");
}

/* Copies and memsets by operation and memory kinds: count, bytes, time. */
struct copy_group {
	unsigned kind, src, dst; /* kind 255: memset (src = dst = its memory kind) */
	uint64_t count, bytes, ns;
};

static int copy_group_cmp(const void *a, const void *b)
{
	const struct copy_group *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

typedef GS_VEC(struct copy_group) copy_vec;

static void copy_take(copy_vec *g, unsigned kind, unsigned src, unsigned dst,
		      uint64_t bytes, uint64_t ns)
{
	size_t i = 0;
	while (i < g->n && !(g->v[i].kind == kind && g->v[i].src == src && g->v[i].dst == dst))
		i++;
	if (i == g->n) {
		struct copy_group z = {kind, src, dst, 0, 0, 0};
		GS_VEC_PUSH(g, z);
	}
	g->v[i].count++;
	g->v[i].bytes += bytes;
	g->v[i].ns += ns;
}

static void copies_json(const struct gs_model *m, const struct gs_filter *f, struct gs_strbuf *sb)
{
	copy_vec g = {0};
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (gs_filter_keep(m, f, c->pid, c->device, c->start))
			copy_take(&g, c->kind, c->src_kind, c->dst_kind, c->bytes, c->end - c->start);
	}
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *s = &m->memsets.v[i];
		if (gs_filter_keep(m, f, s->pid, s->device, s->start))
			copy_take(&g, 255, s->mem_kind, s->mem_kind, s->bytes, s->end - s->start);
	}
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), copy_group_cmp);
	gs_strbuf_adds(sb, "[");
	for (size_t i = 0; i < g.n; i++) {
		const struct copy_group *c = &g.v[i];
		gs_strbuf_addf(sb, "%s\n {\"operation\": \"%s\", \"src\": \"%s\", \"dst\": \"%s\", "
				   "\"count\": %llu, \"bytes\": %llu, \"total_ns\": %llu}",
			       i ? "," : "", c->kind == 255 ? "[CUDA memset]" : gs_copy_op_name(c->kind),
			       gs_mem_kind_name(c->src), gs_mem_kind_name(c->dst),
			       (unsigned long long)c->count, (unsigned long long)c->bytes,
			       (unsigned long long)c->ns);
	}
	gs_strbuf_adds(sb, "]");
	free(g.v);
}

static void keep_rows(struct gs_table *t, size_t max, size_t tail);

/* The stats reports the page shows, as `gpuscope stats -r NAME --format json` prints them. */
static const struct {
	const char *name;
	size_t top; /* 0: every row */
} page_reports[] = {
	{"step_sum", 0},          {"gpu_util", 0},         {"gpu_util_timeline", 0},
	{"cuda_gpu_kern_sum", TOP_ROWS}, {"nvtx_sum", TOP_ROWS}, {"cuda_api_sum", TOP_ROWS},
	{"cuda_gpu_mem_time_sum", 0}, {"cuda_gpu_mem_size_sum", 0}, {"memory_sum", 0},
	{"memory_timeline", 0}, {"gpu_metrics_sum", 0},
	{"osrt_sum", TOP_ROWS}, {"osrt_stack_sum", TOP_ROWS}, {"cuda_api_stack_sum", TOP_ROWS},
	{"cpu_sample_sum", TOP_ROWS},
};

/* GPU counters (--gpu-metrics) for the page's chart: per track that passes f, its samples as
 * [ns from the session start, value], every k-th one so a track sends at most
 * GS_HTML_COUNTER_POINTS (the chart is a few hundred pixels wide). */
#define GS_HTML_COUNTER_POINTS 1000
static void counters_json(const struct gs_model *m, const struct gs_filter *f, struct gs_strbuf *sb)
{
	gs_strbuf_adds(sb, "[");
	int first = 1;
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		const struct gs_counter_track *t = &m->counter_tracks.v[i];
		size_t a, b;
		if (!gs_counter_window(m, f, t, &a, &b))
			continue;
		gs_strbuf_addf(sb, "%s\n{\"device\": %u, \"metric\": ", first ? "" : ",", t->device);
		gs_strbuf_addc(sb, '"');
		gs_strbuf_add_json(sb, t->name, strlen(t->name));
		gs_strbuf_adds(sb, "\", \"unit\": \"");
		gs_strbuf_add_json(sb, t->unit, strlen(t->unit));
		gs_strbuf_adds(sb, "\", \"pts\": [");
		size_t k = (b - a + GS_HTML_COUNTER_POINTS - 1) / GS_HTML_COUNTER_POINTS;
		for (size_t j = a; j < b; j += k) {
			const struct gs_counter_sample *s = &m->counter_samples.v[j];
			gs_strbuf_addf(sb, "%s[%lld, %lld]", j == a ? "" : ", ",
				       (long long)(s->ts - m->start_mono), (long long)s->value);
		}
		gs_strbuf_adds(sb, "]}");
		first = 0;
	}
	gs_strbuf_adds(sb, "]");
}

static int reports_json(const struct gs_model *m, const struct gs_filter *f, struct gs_strbuf *sb,
			struct gs_err *err)
{
	struct gs_strbuf part, totals;
	gs_strbuf_init(&part);
	gs_strbuf_init(&totals);
	gs_strbuf_adds(sb, "{");
	int rc = 0;
	for (size_t i = 0; i < GS_ARRAY_SIZE(page_reports) && !rc; i++) {
		const struct gs_report_def *d = gs_report_find(page_reports[i].name);
		struct gs_table t;
		if (!d || d->fn(m, f, &t, err) < 0) {
			rc = -1;
			break;
		}
		size_t all = t.nrows;
		if (page_reports[i].top && t.nrows > page_reports[i].top)
			t.nrows = page_reports[i].top;
		if (!strcmp(page_reports[i].name, "step_sum"))
			keep_rows(&t, GS_HTML_MAX_STEPS, 2); /* the steps, then median and p90 */
		gs_render_table_opts(&t, GS_FMT_JSON, NULL, &part);
		t.nrows = all;
		gs_strbuf_addf(sb, "%s\n\"%s\": ", i ? "," : "", page_reports[i].name);
		add_trimmed(sb, &part);
		gs_strbuf_addf(&totals, "%s\"%s\": %zu", i ? ", " : "", page_reports[i].name, all);
		gs_table_release(&t);
	}
	gs_strbuf_addf(sb, ",\n\"rows_total\": {%s}}", totals.buf);
	gs_strbuf_release(&part);
	gs_strbuf_release(&totals);
	return rc;
}

static int overview_json(const struct gs_model *m, const struct gs_filter *f, struct gs_strbuf *sb,
			 struct gs_err *err)
{
	struct gs_table sec[GS_OVERVIEW_SECTIONS];
	if (gs_overview(m, f, sec, err) < 0)
		return -1;
	struct gs_strbuf part;
	gs_strbuf_init(&part);
	gs_render_overview(sec, GS_OVERVIEW_SECTIONS, GS_FMT_JSON, NULL, &part);
	add_trimmed(sb, &part);
	gs_strbuf_release(&part);
	for (size_t i = 0; i < GS_OVERVIEW_SECTIONS; i++)
		gs_table_release(&sec[i]);
	return 0;
}

/* Keep the first keep steps of analyze's JSON (its "steps" array: one step a line). */
static void cut_steps(struct gs_strbuf *j, size_t keep)
{
	static const char step[] = "\n  {\"number\": ";
	char *s = strstr(j->buf, "\n \"steps\": [");
	char *end = s ? strstr(s, "],\n \"findings\": [") : NULL;
	if (!end)
		return;
	size_t n = 0;
	for (char *p = strstr(s, step); p && p < end; p = strstr(p + 1, step), n++) {
		if (n == keep) {
			memmove(p - 1, end, strlen(end) + 1); /* from the ',' before the step */
			j->len = strlen(j->buf);
			return;
		}
	}
}

static void analysis_json(const struct gs_model *m, const struct gs_analysis *a, struct gs_strbuf *sb)
{
	struct gs_strbuf part;
	gs_strbuf_init(&part);
	struct gs_render_opts ro = {0};
	gs_render_analysis(m, a, GS_FMT_JSON, &ro, &part);
	if (a->steps.n > GS_HTML_MAX_STEPS)
		cut_steps(&part, GS_HTML_MAX_STEPS);
	add_trimmed(sb, &part);
	gs_strbuf_release(&part);
}

/* A table's rows as the page keeps them: the first max, then the last tail (step_sum's median
 * and p90 rows); the rows are swapped into place (the table still owns every cell) and nrows
 * cut for rendering. */
static void keep_rows(struct gs_table *t, size_t max, size_t tail)
{
	if (t->nrows <= max + tail)
		return;
	for (size_t i = 0; i < tail; i++) {
		union gs_cell *x = t->cells + (max + i) * t->ncols, *y = t->cells + (t->nrows - tail + i) * t->ncols;
		for (size_t c = 0; c < t->ncols; c++) {
			union gs_cell z = x[c];
			x[c] = y[c];
			y[c] = z;
		}
	}
	t->nrows = max + tail;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

int gs_render_html_report(const struct gs_model *m, const struct gs_analysis *a,
			  const struct gs_filter *f, struct gs_strbuf *out, struct gs_err *err)
{
	struct gs_strbuf js;
	gs_strbuf_init(&js);
	gs_strbuf_adds(&js, "{\"schema\": \"gpuscope.report/1\", \"kind\": \"report\", "
			    "\"generator\": \"gpuscope " GS_VERSION "\",\n\"meta\": ");
	meta_json(m, &js);
	gs_strbuf_addf(&js, ",\n\"filter\": {\"pid\": %d, \"t0_ns\": %llu, \"t1_ns\": %llu, \"device\": ",
		       f->pid, (unsigned long long)f->t0, (unsigned long long)f->t1);
	if (f->by_device)
		gs_strbuf_addf(&js, "%u}", f->device);
	else
		gs_strbuf_adds(&js, "null}");
	gs_strbuf_addf(&js, ",\n\"limits\": {\"steps\": %zu, \"steps_shown\": %zu, \"top_rows\": %d}",
		       a->steps.n, GS_MIN(a->steps.n, (size_t)GS_HTML_MAX_STEPS), TOP_ROWS);
	gs_strbuf_adds(&js, ",\n\"analysis\": ");
	analysis_json(m, a, &js);
	gs_strbuf_adds(&js, ",\n\"overview\": ");
	int rc = overview_json(m, f, &js, err);
	if (!rc) {
		gs_strbuf_adds(&js, ",\n\"reports\": ");
		rc = reports_json(m, f, &js, err);
	}
	if (!rc) {
		gs_strbuf_adds(&js, ",\n\"copies\": ");
		copies_json(m, f, &js);
		gs_strbuf_adds(&js, ",\n\"counters\": ");
		counters_json(m, f, &js);
		struct gs_html_timeline tl;
		gs_html_timeline_build(m, f, GS_HTML_BINS, GS_HTML_MAX_EVENTS, &tl);
		gs_strbuf_adds(&js, ",\n\"timeline\": ");
		gs_html_timeline_json(m, &tl, &js);
		gs_html_timeline_release(&tl);
		gs_strbuf_adds(&js, "}\n");
		struct gs_strbuf title;
		gs_strbuf_init(&title);
		gs_strbuf_addf(&title, "gpuscope report: %s", base_name(m->path));
		gs_html_page(out, "report", title.buf, js.buf, js.len);
		gs_strbuf_release(&title);
	}
	gs_strbuf_release(&js);
	return rc;
}

int gs_render_html_diff(const struct gs_model *const m[2], const struct gs_analysis *const a[2],
			const struct gs_diff *d, const struct gs_filter *f, struct gs_strbuf *out,
			struct gs_err *err)
{
	struct gs_strbuf js, part;
	gs_strbuf_init(&js);
	gs_strbuf_init(&part);
	gs_strbuf_adds(&js, "{\"schema\": \"gpuscope.report/1\", \"kind\": \"diff\", "
			    "\"generator\": \"gpuscope " GS_VERSION "\",\n\"diff\": ");
	struct gs_render_opts ro = {0};
	gs_render_diff(d, GS_DIFF_JSON, 0, &ro, &part);
	add_trimmed(&js, &part);
	int rc = 0;
	static const char *const side[2] = {"before", "after"};
	for (int i = 0; i < 2 && !rc; i++) {
		gs_strbuf_addf(&js, ",\n\"%s\": {\"meta\": ", side[i]);
		meta_json(m[i], &js);
		gs_strbuf_adds(&js, ",\n\"analysis\": ");
		analysis_json(m[i], a[i], &js);
		gs_strbuf_adds(&js, ",\n\"overview\": ");
		rc = overview_json(m[i], f, &js, err);
		if (!rc) {
			gs_strbuf_adds(&js, ",\n\"copies\": ");
			copies_json(m[i], f, &js);
		}
		gs_strbuf_adds(&js, "}");
	}
	if (!rc) {
		gs_strbuf_adds(&js, "}\n");
		struct gs_strbuf title;
		gs_strbuf_init(&title);
		gs_strbuf_addf(&title, "gpuscope diff: %s -> %s", base_name(m[0]->path), base_name(m[1]->path));
		gs_html_page(out, "diff", title.buf, js.buf, js.len);
		gs_strbuf_release(&title);
	}
	gs_strbuf_release(&part);
	gs_strbuf_release(&js);
	return rc;
}
