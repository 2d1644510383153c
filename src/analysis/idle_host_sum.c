/* idle_host_sum.c: `stats -r idle_host_sum`, analyze's "GPU idle, by host activity" as a table
 * (docs/gpuscope-analyze.md defines the classes): one row per class that holds time, in the
 * classes' order, with its share of the steps' idle time, its total and mean per step, whether
 * it counts as input_pipeline, the name that took most of it and, when another thread ran it
 * while the main thread waited, that thread's name. The analysis is analyze's
 * own (gs_analyze), so the two never disagree. */
#include "../util/alloc.h"
#include "analyze.h"
#include "reports.h"

static const struct gs_column idle_cols[] = {
	{"Time (%)", GS_COL_PCT}, {"Total Time (ns)", GS_COL_NS}, {"Per Step (ns)", GS_COL_NS},
	{"Steps", GS_COL_INT},    {"Input", GS_COL_STR},          {"Class", GS_COL_STR},
	{"Top", GS_COL_STR},      {"Top Thread", GS_COL_STR},
};

int gs_report_idle_host_sum(const struct gs_model *m, const struct gs_filter *f,
			    struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "idle_host_sum", "GPU Idle by Host Activity", idle_cols,
		      GS_ARRAY_SIZE(idle_cols));
	struct gs_analysis a;
	gs_analyze(m, f, NULL, &a);
	const struct gs_an_idle *id = &a.idle;
	for (int c = 0; c < GS_IDLE__N; c++) {
		if (!id->ns[c])
			continue;
		union gs_cell *r = gs_table_row(out);
		r[0].f = id->idle_ns ? 100.0 * (double)id->ns[c] / (double)id->idle_ns : 0.0;
		r[1].i = (int64_t)id->ns[c];
		r[2].i = a.steps.n ? (int64_t)(id->ns[c] / a.steps.n) : 0;
		r[3].i = (int64_t)a.steps.n;
		r[4].s = gs_xstrdup(gs_an_idle_is_input(c) ? "yes" : "no");
		r[5].s = gs_xstrdup(gs_an_idle_name(c));
		r[6].s = gs_xstrdup(id->top[c] ? id->top[c] : "");
		r[7].s = gs_xstrdup(id->top_thread[c] ? id->top_thread[c] : "");
	}
	gs_analysis_release(&a);
	return 0;
}
