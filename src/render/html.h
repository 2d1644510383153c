/* html.h: `gpuscope report` and `gpuscope diff --format html`: one self-contained HTML page
 * (no network needed to open it) whose data is one JSON blob and whose charts are drawn by the
 * page's own script (src/render/html_page.js, html_page.css, embedded at build time).
 *
 * The blob holds the JSON that the other commands print, unchanged: `gpuscope analyze
 * --format json`, the overview of `gpuscope stats --format json`, and `gpuscope stats -r R
 * --format json` of the reports the page shows; `gpuscope diff --format json` for a diff page.
 * What no command prints is the timeline overview: per row (a thread's nesting level or its
 * CUDA calls, a GPU stream's kernels, memsets and graph launches, a device's copies, a device's
 * GPU work as one) a fixed number of
 * equal bins over the trace's span, each with the time the row was busy in it (the union of its
 * events, so nesting and overlap count once) and the name of the event that covered most of
 * it, plus the individual events when there are few, else the longest ones.
 *
 * Invariants: the page is valid UTF-8 HTML; no byte sequence taken from the trace can end the
 * data's <script> element (every '<', '>' and '&' inside it is written as a \u escape); bins
 * hold busy time in [0, bin width]; a row's events are sorted by start. */
#ifndef GS_RENDER_HTML_H
#define GS_RENDER_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "../analysis/reports.h"
#include "../util/strbuf.h"

#define GS_HTML_BINS 2000        /* timeline bins over the span */
#define GS_HTML_MAX_EVENTS 20000 /* individual events kept (the longest when there are more) */

enum gs_html_row_kind { GS_HTML_ROW_THREAD, GS_HTML_ROW_API, GS_HTML_ROW_OSRT, GS_HTML_ROW_STREAM,
			GS_HTML_ROW_COPIES, GS_HTML_ROW_DEVICE };
enum gs_html_ev_kind { GS_HTML_EV_RANGE, GS_HTML_EV_API, GS_HTML_EV_KERNEL, GS_HTML_EV_COPY,
		       GS_HTML_EV_MEMSET, GS_HTML_EV_GRAPH, GS_HTML_EV_OSRT };
#define GS_HTML_MAX_STEPS 1000 /* steps whose rows and bars the page holds (the first) */
#define GS_HTML_LEVELS 4 /* thread rows per nesting level; deeper ranges share the last */

/* The span [t0, t1) cut into n equal bins: bin i is [edge(i), edge(i + 1)). */
struct gs_html_bins {
	uint64_t t0, t1;
	size_t n;
};
uint64_t gs_html_bin_edge(const struct gs_html_bins *b, size_t i);
/* The bin holding t (t clamped into the span). */
size_t gs_html_bin_of(const struct gs_html_bins *b, uint64_t t);
/* Add the part of [s, e) inside each bin to acc[bin] (ns). */
void gs_html_bin_add(const struct gs_html_bins *b, uint64_t s, uint64_t e, uint64_t *acc);

struct gs_html_event {
	uint64_t start, end;
	uint64_t name; /* a name key (html_data.c) */
	uint8_t kind;  /* enum gs_html_ev_kind */
};

struct gs_html_row {
	uint8_t kind; /* enum gs_html_row_kind */
	int32_t pid;
	int64_t a;    /* thread id; device */
	uint32_t b;   /* nesting level; stream */
	uint64_t *busy;    /* per bin, ns (union of the row's events) */
	uint64_t *top;     /* per bin, the name key of the event covering most of it; 0: none */
	uint64_t events;   /* the row's events */
	GS_VEC(struct gs_html_event) shown; /* those kept for drawing, by start */
};

struct gs_html_timeline {
	struct gs_html_bins bins; /* CLOCK_MONOTONIC ns */
	uint64_t session_start;   /* times in the JSON are relative to it (as stats's are) */
	GS_VEC(struct gs_html_row) rows; /* threads (levels, then calls), streams, copies, devices */
	uint64_t events, shown;
};

/* Bin the model's ranges, API calls, kernels, copies and memsets that pass f into nbins bins
 * over the span of the records (cut to f's window), keeping at most max_events events. */
void gs_html_timeline_build(const struct gs_model *m, const struct gs_filter *f, size_t nbins,
			    size_t max_events, struct gs_html_timeline *tl);
void gs_html_timeline_release(struct gs_html_timeline *tl);
/* The timeline as JSON: {"start_ns", "end_ns", "bins", "events", "events_shown", "names",
 * "rows": [{"kind", "label", "group", "busy" (per mille of each bin), "top" (index into names,
 * -1), "events" (flat: start_ns, duration_ns, name index, kind; ...)}]} (docs/gpuscope-report.md). */
void gs_html_timeline_json(const struct gs_model *m, const struct gs_html_timeline *tl,
			   struct gs_strbuf *out);

/* Append n bytes of JSON for a <script> element: '<', '>' and '&' as \u003c, \u003e, \u0026
 * (outside JSON strings they cannot occur, so the document means the same). */
void gs_html_add_script_json(struct gs_strbuf *out, const char *json, size_t n);
/* Append s as HTML text: & < > " ' escaped. */
void gs_html_add_text(struct gs_strbuf *out, const char *s);

/* A page: title, the kind ("report" or "diff") and the data blob (JSON, one object). */
void gs_html_page(struct gs_strbuf *out, const char *kind, const char *title, const char *json,
		  size_t json_len);

struct gs_analysis;
struct gs_diff;
/* The report page of one trace (gpuscope report): m loaded and joined, its steps made and
 * analyzed into a under f. 0, or -1 with err set when a report failed. */
int gs_render_html_report(const struct gs_model *m, const struct gs_analysis *a,
			  const struct gs_filter *f, struct gs_strbuf *out, struct gs_err *err);
/* The before/after page of gpuscope diff: d's JSON, each side's analysis and overview. */
int gs_render_html_diff(const struct gs_model *const m[2], const struct gs_analysis *const a[2],
			const struct gs_diff *d, const struct gs_filter *f, struct gs_strbuf *out,
			struct gs_err *err);

#endif
