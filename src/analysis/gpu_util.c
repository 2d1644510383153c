/* gpu_util.c: GPU utilization per device: the union of the intervals in which any kernel,
 * copy or memset ran (overlapping work counted once), against the session's wall time. As
 * nsys's gpu_time_util rule, it is time utilization: any operation counts as a busy GPU,
 * however little of the GPU it used. One sweep over the three tables merged in order of
 * start (the model keeps each sorted), a running union per device: no copy, no sort.
 *   gpu_util           one row per device, over the session (or --time's window);
 *   gpu_util_timeline  the same over ten equal slices of that window, per device: each
 *                      union segment's time goes to the slices it overlaps, an operation
 *                      counts in the slice where it starts. */
#include <stdio.h>
#include <stdlib.h>

#include "../util/alloc.h"
#include "busy.h"
#include "order.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"Device", GS_COL_INT},        {"Name", GS_COL_STR},           {"GPU Ops", GS_COL_INT},
	{"Busy (ns)", GS_COL_INT},     {"Wall (ns)", GS_COL_INT},      {"Utilization (%)", GS_COL_PCT},
};

static const struct gs_column tcols[] = {
	{"Device", GS_COL_INT},     {"Name", GS_COL_STR},       {"Slice", GS_COL_INT},
	{"Start (ns)", GS_COL_NS},  {"End (ns)", GS_COL_NS},    {"GPU Ops", GS_COL_INT},
	{"Busy (ns)", GS_COL_INT},  {"Utilization (%)", GS_COL_PCT},
};

static uint32_t device_name(const struct gs_model *m, uint32_t device)
{
	for (size_t i = 0; i < m->devices.n; i++)
		if (m->devices.v[i].id == device)
			return m->devices.v[i].name;
	return 0;
}

/* The devices' unions over [w0, w1) (w1 UINT64_MAX: open), sorted by device; sl->n slices
 * filled too when not 0. */
static void sweep(const struct gs_model *m, const struct gs_filter *f, uint64_t w0, uint64_t w1,
		  const struct gs_slices *sl, struct gs_busy **out, size_t *nout)
{
	struct gs_filter who = *f; /* pid and device only */
	who.t0 = who.t1 = 0;
	/* kernels, copies, memsets and graph-level launches merged in order of start (ties: in
	 * that order), each into its device's union; cut to the window, starts keep their order */
	gs_busy_vec d = {0};
	size_t last = 0;
	enum { NT = 4 };
	struct gs_cursor cur[NT];
	GS_CURSOR_INIT(&cur[0], m->kernels);
	GS_CURSOR_INIT(&cur[1], m->copies);
	GS_CURSOR_INIT(&cur[2], m->memsets);
	GS_CURSOR_INIT(&cur[3], m->graphs);
again:
	for (;;) {
		int t = -1;
		uint64_t best = 0;
		for (int u = 0; u < NT; u++)
			if (cur[u].i < cur[u].n && (t < 0 || gs_cursor_start(&cur[u]) < best))
				t = u, best = gs_cursor_start(&cur[u]);
		if (t < 0 || best >= w1)
			break;
		/* table t leads: walked on while its rows start before the others' heads (up to
		 * and with a tie to the later tables': ties go in table order) and the window's
		 * end, without looking at the others again; most traces have kernels alone */
		uint64_t lt = w1, le = UINT64_MAX;
		for (int u = 0; u < NT; u++) {
			if (u == t || cur[u].i >= cur[u].n)
				continue;
			if (u < t)
				lt = GS_MIN(lt, gs_cursor_start(&cur[u]));
			else
				le = GS_MIN(le, gs_cursor_start(&cur[u]));
		}
		struct gs_cursor *c = &cur[t];
		uint64_t s;
		do {
			uint64_t start, end;
			int32_t pid;
			uint32_t device;
#define GET(type)                                                                    \
	{                                                                            \
		const type *o = gs_cursor_get(c);                                    \
		start = o->start, end = o->end, pid = o->pid, device = o->device;    \
	}
			if (t == 0)
				GET(struct gs_kernel)
			else if (t == 1)
				GET(struct gs_copy)
			else if (t == 2)
				GET(struct gs_memset)
			else
				GET(struct gs_graph_launch)
#undef GET
			gs_cursor_next(c);
			if (end > w0 && gs_filter_keep(m, &who, pid, device, start))
				gs_busy_take(&d, &last, sl, GS_MAX(start, w0), GS_MIN(end, w1), device);
		} while (c->i < c->n && (s = gs_cursor_start(c)) < lt && s <= le);
	}
	int redo = 0; /* a table out of order (built by hand): again, through a sorted copy */
	for (int u = 0; u < NT; u++) {
		if (!gs_cursor_check(&cur[u])) {
			gs_cursor_sort(&cur[u]);
			redo = 1;
		}
		cur[u].i = 0;
		cur[u].last = 0;
	}
	if (redo) {
		d.n = 0;
		last = 0;
		goto again;
	}
	for (int u = 0; u < NT; u++)
		gs_cursor_release(&cur[u]);
	gs_busy_finish(&d, sl);
	*out = d.v;
	*nout = d.n;
}

void gs_gpu_util_rows(const struct gs_model *m, const struct gs_filter *f,
		      const struct gs_busy *dv, size_t n, struct gs_table *out)
{
	gs_table_init(out, "gpu_util", "GPU Utilization", cols, sizeof(cols) / sizeof(cols[0]));
	uint64_t w0 = m->start_mono + f->t0;
	uint64_t w1 = f->t1 ? m->start_mono + f->t1 : m->end_mono;
	for (size_t i = 0; i < n; i++) {
		const struct gs_busy *x = &dv[i];
		uint64_t busy = x->busy;
		uint64_t end = w1 > x->last_end ? w1 : x->last_end; /* a trace without END: its last op */
		uint64_t wall = end > w0 ? end - w0 : 0;
		union gs_cell *c = gs_table_row(out);
		c[0].i = x->device;
		c[1].s = gs_xstrdup(gs_model_str(m, device_name(m, x->device)));
		c[2].i = (int64_t)x->n;
		c[3].i = (int64_t)busy;
		c[4].i = (int64_t)wall;
		c[5].f = wall ? 100.0 * (double)busy / (double)wall : 0.0;
	}
}

int gs_report_gpu_util(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err)
{
	(void)err;
	/* the window: the session, narrowed by --time; work is clipped to it */
	uint64_t w0 = m->start_mono + f->t0;
	uint64_t w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX;
	struct gs_slices none = {0};
	struct gs_busy *dv;
	size_t n;
	sweep(m, f, w0, w1, &none, &dv, &n);
	gs_gpu_util_rows(m, f, dv, n, out);
	free(dv);
	return 0;
}

int gs_report_gpu_util_timeline(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "gpu_util_timeline", "GPU Utilization Timeline", tcols,
		      sizeof(tcols) / sizeof(tcols[0]));
	/* the window as gpu_util's; an open end is the session's end (a trace without END:
	 * its last GPU operation's) */
	uint64_t w0 = m->start_mono + f->t0, w1;
	if (f->t1) {
		w1 = m->start_mono + f->t1;
	} else {
		struct gs_slices none = {0};
		struct gs_busy *dv;
		size_t n;
		sweep(m, f, w0, UINT64_MAX, &none, &dv, &n);
		w1 = m->end_mono;
		for (size_t i = 0; i < n; i++)
			w1 = GS_MAX(w1, dv[i].last_end);
		free(dv);
	}
	if (w1 <= w0)
		return 0;
	struct gs_slices sl = {.n = GS_SLICES};
	for (int k = 0; k <= GS_SLICES; k++)
		sl.b[k] = w0 + (w1 - w0) * (uint64_t)k / GS_SLICES;
	struct gs_busy *dv;
	size_t n;
	sweep(m, f, w0, w1, &sl, &dv, &n);
	for (size_t i = 0; i < n; i++) {
		const struct gs_busy *x = &dv[i];
		for (int k = 0; k < GS_SLICES; k++) {
			uint64_t width = sl.b[k + 1] - sl.b[k];
			union gs_cell *c = gs_table_row(out);
			c[0].i = x->device;
			c[1].s = gs_xstrdup(gs_model_str(m, device_name(m, x->device)));
			c[2].i = k;
			c[3].i = (int64_t)(sl.b[k] - m->start_mono);
			c[4].i = (int64_t)(sl.b[k + 1] - m->start_mono);
			c[5].i = (int64_t)x->sn[k];
			c[6].i = (int64_t)x->sbusy[k];
			c[7].f = width ? 100.0 * (double)x->sbusy[k] / (double)width : 0.0;
		}
	}
	free(dv);
	return 0;
}
