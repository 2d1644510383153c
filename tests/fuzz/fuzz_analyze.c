/* fuzz_analyze.c: libFuzzer target for what reads a loaded trace after the reader: whatever
 * model a byte string loads as (fuzz_gst covers the reader itself) goes through the steps, the
 * analysis and its text and JSON verdicts, every stats report and the overview, the HTML
 * report page's data, and `gpuscope diff` of it against what its first half loads as (a
 * damaged trace's partial model, else itself), as `gpuscope analyze`, `stats -r ...`,
 * `report` and `diff` run them, without a crash, undefined behaviour or a hang. The corpus is
 * the committed .gst fixtures. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/analysis/analyze.h"
#include "../../src/analysis/diff.h"
#include "../../src/analysis/overview.h"
#include "../../src/analysis/reports.h"
#include "../../src/model/model.h"
#include "../../src/render/analyze.h"
#include "../../src/render/diff.h"
#include "../../src/render/html.h"
#include "../../src/render/render.h"

/* A streamed report's window, as stats renders it: in milliseconds, as json rows. */
static void fuzz_flush(struct gs_table *t, void *ctx)
{
	gs_table_timeunit(t, "ms", 1000000);
	if (!t->flushed)
		gs_render_head(t, GS_FMT_JSON, ctx);
	gs_render_rows(t, GS_FMT_JSON, t->flushed, ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_model m;
	struct gs_err err;
	memset(&m, 0, sizeof(m));
	if (gs_model_load_mem(&m, "fuzz.gst", data, size, &err) < 0)
		return 0;
	gs_model_steps(&m, NULL);
	struct gs_filter f = {0};
	struct gs_an_opts ao = {0};
	struct gs_analysis a;
	gs_analyze(&m, &f, &ao, &a);
	struct gs_render_opts ro = {.width = 100};
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_analysis(&m, &a, GS_FMT_TEXT, &ro, &sb);
	gs_render_analysis(&m, &a, GS_FMT_JSON, &ro, &sb);
	gs_strbuf_reset(&sb);
	(void)gs_render_html_report(&m, &a, &f, &sb, &err);
	struct gs_model h;
	struct gs_analysis ha;
	memset(&h, 0, sizeof(h));
	int half = gs_model_load_mem(&h, "half.gst", data, size / 2, &err) == 0;
	if (half) {
		gs_model_steps(&h, NULL);
		gs_analyze(&h, &f, &ao, &ha);
	}
	const struct gs_model *mp[2] = {half ? &h : &m, &m};
	const struct gs_analysis *ap[2] = {half ? &ha : &a, &a};
	struct gs_diff_opts dopt = {.threshold_pct = 5.0, .resamples = 50, .seed = 1};
	struct gs_diff d;
	gs_diff_run(mp, ap, &f, &dopt, &d);
	for (int fmt = GS_DIFF_TEXT; fmt <= GS_DIFF_MARKDOWN; fmt++) {
		gs_strbuf_reset(&sb);
		gs_render_diff(&d, fmt, 10, &ro, &sb);
	}
	gs_diff_release(&d);
	if (half) {
		gs_analysis_release(&ha);
		gs_model_steps_release(&h);
		gs_model_release(&h);
	}
	gs_analysis_release(&a);
	gs_strbuf_reset(&sb);
	struct gs_table t, sec[GS_OVERVIEW_SECTIONS];
	if (gs_overview(&m, &f, sec, &err) == 0) {
		gs_render_overview(sec, GS_OVERVIEW_SECTIONS, GS_FMT_TABLE, &ro, &sb);
		for (size_t i = 0; i < GS_OVERVIEW_SECTIONS; i++)
			gs_table_release(&sec[i]);
	}
	/* every report; then again as stats runs them into csv or json, the trace reports a
	 * window of two rows at a time, the kernel reports with nsys's arguments :nvtx-name:base */
	struct gs_table_stream ts = {2, fuzz_flush, &sb};
	for (size_t i = 0; i < 2 * gs_nreports; i++) {
		const struct gs_report_def *d = &gs_reports[i % gs_nreports];
		int again = i >= gs_nreports;
		f.kname = again && d->args ? GS_KNAME_BASE : GS_KNAME_DEMANGLED;
		f.nvtx_name = (uint8_t)(again && d->args);
		f.stream = again ? &ts : NULL;
		gs_strbuf_reset(&sb);
		if (d->fn(&m, &f, &t, &err) != 0)
			continue;
		if (t.stream) {
			gs_table_flush(&t);
			gs_render_tail(GS_FMT_JSON, t.flushed, &sb);
		} else if (!again) {
			gs_render_table_opts(&t, GS_FMT_TABLE, &ro, &sb);
			gs_render_table(&t, GS_FMT_JSON, &sb);
			gs_table_timeunit(&t, "us", 1000); /* stats --timeunit */
			gs_render_table(&t, GS_FMT_CSV, &sb);
		}
		gs_table_release(&t);
	}
	f.stream = NULL;
	gs_strbuf_release(&sb);
	gs_model_steps_release(&m);
	gs_model_release(&m);
	return 0;
}
