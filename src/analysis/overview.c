/* overview.c: the one-screen overview of `gpuscope stats TRACE`. Each section is a small table
 * cut from a report's result (step_sum's summary rows, gpu_util, the top rows of
 * cuda_gpu_kern_sum and nvtx_sum, cuda_gpu_mem_time_sum joined with cuda_gpu_mem_size_sum), so
 * the overview and the reports can never disagree (the top kernels take in cuda_gpu_graph_sum's
 * rows, when the trace has graph launches recorded as one). Of step_sum, cuda_gpu_kern_sum and nvtx_sum
 * it takes the variants that leave out columns it does not show, and the work only those need:
 * step_sum_gpu sweeps the GPU tables without the API calls, the *_totals make one pass over
 * their table (no medians, no deviations); and step_sum_gpu, gpu_util and the kernel totals
 * come from one walk over the GPU tables (gs_report_gpu_overview) instead of one each. Only
 * the trace facts and the loss counts come from the model directly. Durations and sizes are
 * GS_COL_NS and GS_COL_BYTES columns: integers in csv and json, with a unit on the console. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../format/counters.h"
#include "../format/gst.h"
#include "../util/alloc.h"
#include "../util/strbuf.h"
#include "analyze.h"
#include "overview.h"

static const struct gs_column trace_cols[] = {
	{"Duration (ns)", GS_COL_NS}, {"Processes", GS_COL_INT}, {"Devices", GS_COL_INT},
	{"State", GS_COL_STR},        {"Command", GS_COL_STR},
};
static const struct gs_column step_cols[] = {
	{"Steps", GS_COL_INT},           {"Median (ns)", GS_COL_NS}, {"P90 (ns)", GS_COL_NS},
	{"Median Util (%)", GS_COL_PCT}, {"From", GS_COL_STR},
};
static const struct gs_column gpu_cols[] = {
	{"Device", GS_COL_INT},           {"Busy (ns)", GS_COL_NS}, {"Wall (ns)", GS_COL_NS},
	{"Utilization (%)", GS_COL_PCT}, {"Name", GS_COL_STR},
};
static const struct gs_column kern_cols[] = {
	{"Time (%)", GS_COL_PCT}, {"Total Time (ns)", GS_COL_NS}, {"Instances", GS_COL_INT},
	{"Avg (ns)", GS_COL_NS},  {"Name", GS_COL_STR},
};
static const struct gs_column mem_cols[] = {
	{"Count", GS_COL_INT}, {"Bytes", GS_COL_BYTES}, {"Total Time (ns)", GS_COL_NS},
	{"Operation", GS_COL_STR},
};
static const struct gs_column nvtx_cols[] = {
	{"Total Time (ns)", GS_COL_NS}, {"Instances", GS_COL_INT}, {"Avg (ns)", GS_COL_NS},
	{"Range", GS_COL_STR},
};
static const struct gs_column lost_cols[] = {{"Count", GS_COL_INT}, {"What", GS_COL_STR}};

#define INIT(t, name, title, cols) gs_table_init(t, name, title, cols, GS_ARRAY_SIZE(cols))

/* The index of a report's column by name; the reports' layouts are fixed, so a miss is a bug. */
static size_t col(const struct gs_table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].name, name))
			return c;
	abort();
}

static const union gs_cell *cell(const struct gs_table *t, size_t row, const char *name)
{
	return &t->cells[row * t->ncols + col(t, name)];
}

static int64_t ns_of(double v)
{
	return (int64_t)llround(v);
}

static void trace_section(const struct gs_model *m, struct gs_table *t)
{
	INIT(t, "trace", "Trace", trace_cols);
	uint64_t end = m->end_mono;
	if (end <= m->start_mono) { /* no END chunk: the last record (a pass over every table) */
		uint64_t first, last;
		gs_model_span(m, &first, &last);
		end = GS_MAX(last, m->start_mono);
	}
	GS_VEC(uint32_t) ids = {0};
	for (size_t i = 0; i < m->devices.n; i++) {
		size_t k = 0;
		while (k < ids.n && ids.v[k] != m->devices.v[i].id)
			k++;
		if (k == ids.n)
			GS_VEC_PUSH(&ids, m->devices.v[i].id);
	}
	union gs_cell *c = gs_table_row(t);
	c[0].i = (int64_t)(end - m->start_mono);
	c[1].i = (int64_t)m->processes.n;
	c[2].i = (int64_t)ids.n;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	if (m->damaged)
		gs_strbuf_addf(&sb, "damaged: %s", m->why);
	else
		gs_strbuf_adds(&sb, m->complete ? "complete" : "incomplete: cut short");
	c[3].s = gs_strbuf_detach(&sb);
	c[4].s = gs_xstrdup(m->command ? m->command : "");
	gs_strbuf_release(&sb);
	free(ids.v);
}

/* A line under the steps when none are marked: the ranges that could be, as analyze names them
 * (gs_an_step_hints). */
static void step_hints(const struct gs_model *m, const struct gs_filter *f, struct gs_table *t)
{
	struct gs_an_top h[GS_AN_TOPS];
	size_t n = gs_an_step_hints(m, f->pid, NULL, h);
	if (!n)
		return;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_an_step_hints_line(h, n, &sb);
	t->note = gs_strbuf_detach(&sb);
	for (size_t i = 0; i < n; i++)
		free(h[i].name);
}

/* s: step_sum_gpu's summary rows (median, p90) of n steps. */
static void step_section(const struct gs_model *m, const struct gs_filter *f,
			 const struct gs_table *s, size_t n, struct gs_table *t)
{
	INIT(t, "steps", "Steps", step_cols);
	if (n && s->nrows == 2) {
		union gs_cell *c = gs_table_row(t);
		c[0].i = (int64_t)n;
		c[1].i = cell(s, 0, "Duration (ns)")->i;
		c[2].i = cell(s, 1, "Duration (ns)")->i;
		c[3].f = cell(s, 0, "GPU Util (%)")->f;
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		if (m->steps_by == GS_STEPS_PROFILER) {
			gs_strbuf_adds(&sb, "ranges ProfilerStep#N");
		} else if (m->steps_by == GS_STEPS_NAMED && m->steps.n && m->steps.v[0].range >= 0) {
			const struct gs_range *r = &m->ranges.v[m->steps.v[0].range];
			char *label = gs_range_label(m, r->domain, r->name);
			gs_strbuf_addf(&sb, "ranges %s", label);
			free(label);
		} else {
			gs_strbuf_adds(&sb, "the whole run");
		}
		c[4].s = gs_strbuf_detach(&sb);
		gs_strbuf_release(&sb);
		if (m->steps_by == GS_STEPS_RUN)
			step_hints(m, f, t);
	}
}

static void gpu_section(const struct gs_table *u, struct gs_table *t)
{
	INIT(t, "gpu_util", "GPU utilization", gpu_cols);
	for (size_t r = 0; r < u->nrows; r++) {
		union gs_cell *c = gs_table_row(t);
		c[0].i = cell(u, r, "Device")->i;
		c[1].i = cell(u, r, "Busy (ns)")->i;
		c[2].i = cell(u, r, "Wall (ns)")->i;
		c[3].f = cell(u, r, "Utilization (%)")->f;
		c[4].s = gs_xstrdup(cell(u, r, "Name")->s ? cell(u, r, "Name")->s : "");
	}
}

/* One line under the GPU section when the trace has GPU counters (--gpu-metrics): per device,
 * the time-weighted mean of gpu_util and of power, e.g. "GPU counters: GPU 0 gpu_util avg
 * 71.8%, power avg 412.3 W". */
static void counters_note(const struct gs_model *m, const struct gs_filter *f, struct gs_table *t)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		const struct gs_counter_track *k = &m->counter_tracks.v[i];
		size_t a, b;
		if ((k->metric != GS_GM_GPU_UTIL && k->metric != GS_GM_POWER) ||
		    !gs_counter_window(m, f, k, &a, &b))
			continue;
		double avg = gs_counter_twmean(m->counter_samples.v + a, b - a);
		gs_strbuf_adds(&sb, sb.len ? ", " : "GPU counters: ");
		if (k->metric == GS_GM_GPU_UTIL)
			gs_strbuf_addf(&sb, "GPU %u gpu_util avg %.1f%%", k->device, avg);
		else
			gs_strbuf_addf(&sb, "GPU %u power avg %.1f W", k->device, avg / 1000.0);
	}
	if (sb.len)
		t->note = gs_strbuf_detach(&sb);
	gs_strbuf_release(&sb);
}

/* One more line under the GPU section when the trace has communication kernels (NCCL; the
 * kernel table above keeps them, as nsys's cuda_gpu_kern_sum does): per device, their merged
 * time, its share of the device's busy time (u: gpu_util) and how much of it overlaps
 * computation (HTA's comm/comp overlap, gs_an_comm_overlap) in f's window, e.g.
 * "Communication: GPU 0 20.000 ms in NCCL kernels (55.6% of busy), 40.0% overlapped by
 * computation". */
static void comm_note(const struct gs_model *m, const struct gs_filter *f, const struct gs_table *u,
		      struct gs_table *t)
{
	struct gs_an_window w = {m->start_mono + f->t0, f->t1 ? m->start_mono + f->t1 : UINT64_MAX, 0};
	struct gs_an_comm *c;
	size_t n = gs_an_comm_overlap(m, f, &w, 1, &c);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	if (t->note)
		gs_strbuf_addf(&sb, "%s\n", t->note);
	size_t at = sb.len;
	for (size_t i = 0; i < n; i++) {
		if (i && c[i - 1].device == c[i].device)
			continue; /* the device's first pid row sums them all (rows sorted by pid) */
		uint64_t comm = 0, overlap = 0;
		for (size_t j = i; j < n; j++)
			if (c[j].device == c[i].device) {
				comm += c[j].comm_ns;
				overlap += c[j].overlap_ns;
			}
		if (!comm)
			continue;
		int64_t busy = 0;
		for (size_t r = 0; r < u->nrows; r++)
			if (cell(u, r, "Device")->i == (int64_t)c[i].device)
				busy = cell(u, r, "Busy (ns)")->i;
		gs_strbuf_addf(&sb, "%s GPU %u %.3f ms in NCCL kernels", sb.len > at ? ";" : "Communication:",
			       c[i].device, (double)comm / 1e6);
		if (busy > 0)
			gs_strbuf_addf(&sb, " (%.1f%% of busy)", 100.0 * (double)comm / (double)busy);
		gs_strbuf_addf(&sb, ", %.1f%% overlapped by computation",
			       100.0 * (double)overlap / (double)comm);
	}
	if (sb.len > at) {
		free(t->note);
		t->note = gs_strbuf_detach(&sb);
	}
	gs_strbuf_release(&sb);
	free(c);
}

/* A row of the top-kernel section: a row of cuda_gpu_kern_sum_totals or cuda_gpu_graph_sum */
struct top_row {
	const struct gs_table *t;
	size_t r, at; /* the row in t; its place in the kernels' rows, then the graphs' */
	int64_t total;
};

static int cmp_top_row(const void *a, const void *b) /* by total, ties in their tables' order */
{
	const struct top_row *x = a, *y = b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->at > y->at) - (x->at < y->at);
}

/* The kernels' top rows; with CUDA graph launches recorded as one (cuda_gpu_graph_sum: their
 * kernels are in no kernel table), the graphs' rows among them, each row's Time (%) then a
 * share of the kernels' and graphs' time together: a program that replays graphs shows them. */
static int kernel_section(const struct gs_model *m, const struct gs_filter *f,
			  const struct gs_table *k, struct gs_table *t, struct gs_err *err)
{
	INIT(t, "kernels", "Top kernels by GPU time", kern_cols);
	struct gs_table g;
	if (gs_report_cuda_gpu_graph_sum(m, f, &g, err) < 0)
		return -1;
	size_t n = k->nrows + g.nrows;
	struct top_row *v = gs_xmalloc((n + 1) * sizeof(*v));
	int64_t all = 0;
	for (size_t r = 0; r < n; r++) {
		const struct gs_table *s = r < k->nrows ? k : &g;
		size_t i = r < k->nrows ? r : r - k->nrows;
		v[r] = (struct top_row){s, i, r, cell(s, i, "Total Time (ns)")->i};
		all += v[r].total;
	}
	if (g.nrows)
		qsort(v, n, sizeof(*v), cmp_top_row);
	for (size_t r = 0; r < n && r < GS_OVERVIEW_TOP; r++) {
		union gs_cell *c = gs_table_row(t);
		const struct gs_table *s = v[r].t;
		c[0].f = g.nrows ? (all ? 100.0 * (double)v[r].total / (double)all : 0.0)
				 : cell(s, v[r].r, "Time (%)")->f;
		c[1].i = v[r].total;
		c[2].i = cell(s, v[r].r, "Instances")->i;
		c[3].i = ns_of(cell(s, v[r].r, "Avg (ns)")->f);
		c[4].s = gs_xstrdup(cell(s, v[r].r, "Name")->s);
	}
	free(v);
	gs_table_release(&g);
	return 0;
}

static int mem_section(const struct gs_model *m, const struct gs_filter *f, struct gs_table *t,
		       struct gs_err *err)
{
	INIT(t, "memops", "Memory copies and sets", mem_cols);
	struct gs_table tm, sz;
	if (gs_report_cuda_gpu_mem_time_sum(m, f, &tm, err) < 0)
		return -1;
	if (gs_report_cuda_gpu_mem_size_sum(m, f, &sz, err) < 0) {
		gs_table_release(&tm);
		return -1;
	}
	for (size_t r = 0; r < tm.nrows; r++) {
		const char *op = cell(&tm, r, "Operation")->s;
		union gs_cell *c = gs_table_row(t);
		c[0].i = cell(&tm, r, "Count")->i;
		c[1].i = 0;
		for (size_t q = 0; q < sz.nrows; q++)
			if (!strcmp(cell(&sz, q, "Operation")->s, op)) /* MB of 10^6 bytes, back to bytes */
				c[1].i = ns_of(cell(&sz, q, "Total (MB)")->f * 1e6);
		c[2].i = cell(&tm, r, "Total Time (ns)")->i;
		c[3].s = gs_xstrdup(op);
	}
	gs_table_release(&tm);
	gs_table_release(&sz);
	return 0;
}

static int nvtx_section(const struct gs_model *m, const struct gs_filter *f, struct gs_table *t,
			struct gs_err *err)
{
	INIT(t, "nvtx", "Top NVTX ranges by time", nvtx_cols);
	struct gs_table n;
	if (gs_report_nvtx_sum_totals(m, f, GS_OVERVIEW_TOP, &n, err) < 0)
		return -1;
	for (size_t r = 0; r < n.nrows && r < GS_OVERVIEW_TOP; r++) {
		union gs_cell *c = gs_table_row(t);
		c[0].i = cell(&n, r, "Total Time (ns)")->i;
		c[1].i = cell(&n, r, "Instances")->i;
		c[2].i = ns_of(cell(&n, r, "Avg (ns)")->f);
		c[3].s = gs_xstrdup(cell(&n, r, "Range")->s);
	}
	gs_table_release(&n);
	return 0;
}

static void lost_row(struct gs_table *t, uint64_t n, const char *what, const char *detail)
{
	if (!n)
		return;
	union gs_cell *c = gs_table_row(t);
	c[0].i = (int64_t)n;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_addf(&sb, "%s%s", what, detail ? detail : "");
	c[1].s = gs_strbuf_detach(&sb);
	gs_strbuf_release(&sb);
}

static void lost_section(const struct gs_model *m, struct gs_table *t)
{
	INIT(t, "lost", "Lost records", lost_cols);
	for (int k = 0; k < GS_LOSS__N; k++)
		lost_row(t, m->lost[k], "records lost: ", gs_loss_names[k]);
	lost_row(t, m->cupti_unfinished, "CUPTI buffers never completed (their records missing)", NULL);
	lost_row(t, m->cupti_undecoded, "bytes of CUPTI records not decoded (unknown kind or version)",
		 NULL);
	lost_row(t, m->unmatched, "NVTX pops or ends without their push or start", NULL);
}

int gs_overview(const struct gs_model *m, const struct gs_filter *f,
		struct gs_table sec[GS_OVERVIEW_SECTIONS], struct gs_err *err)
{
	memset(sec, 0, GS_OVERVIEW_SECTIONS * sizeof(*sec));
	trace_section(m, &sec[0]);
	struct gs_table st, ut, kt; /* step_sum_gpu's summary, gpu_util, cuda_gpu_kern_sum_totals */
	size_t nsteps;
	if (gs_report_gpu_overview(m, f, &st, &nsteps, &ut, &kt, err) < 0) {
		gs_table_release(&sec[0]);
		return -1;
	}
	step_section(m, f, &st, nsteps, &sec[1]);
	gpu_section(&ut, &sec[2]);
	counters_note(m, f, &sec[2]);
	comm_note(m, f, &ut, &sec[2]);
	int rc = kernel_section(m, f, &kt, &sec[3], err);
	gs_table_release(&st);
	gs_table_release(&ut);
	gs_table_release(&kt);
	if (rc < 0 || mem_section(m, f, &sec[4], err) < 0 || nvtx_section(m, f, &sec[5], err) < 0) {
		for (int i = 0; i < GS_OVERVIEW_SECTIONS; i++)
			gs_table_release(&sec[i]);
		return -1;
	}
	lost_section(m, &sec[6]);
	return 0;
}
