/* gpu_util.c: GPU utilization per device: the union of the intervals in which any kernel,
 * copy or memset ran (overlapping work counted once), against the session's wall time. As
 * nsys's gpu_time_util rule, it is time utilization: any operation counts as a busy GPU,
 * however little of the GPU it used. One sweep over the three tables merged in order of
 * start (the model keeps each sorted), a running union per device: no copy, no sort. */
#include <stdio.h>
#include <stdlib.h>

#include "../util/alloc.h"
#include "order.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"Device", GS_COL_INT},        {"Name", GS_COL_STR},           {"GPU Ops", GS_COL_INT},
	{"Busy (ns)", GS_COL_INT},     {"Wall (ns)", GS_COL_INT},      {"Utilization (%)", GS_COL_PCT},
};

/* A device's running union: the open segment [cs, ce), busy time before it. */
struct dev {
	uint32_t device;
	uint64_t busy, cs, ce, last_end, n;
};

static int cmp_dev(const void *a, const void *b)
{
	const struct dev *x = a, *y = b;
	return (x->device > y->device) - (x->device < y->device);
}

static uint32_t device_name(const struct gs_model *m, uint32_t device)
{
	for (size_t i = 0; i < m->devices.n; i++)
		if (m->devices.v[i].id == device)
			return m->devices.v[i].name;
	return 0;
}

int gs_report_gpu_util(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "gpu_util", "GPU Utilization", cols, sizeof(cols) / sizeof(cols[0]));
	/* the window: the session, narrowed by --time; work is clipped to it */
	uint64_t w0 = m->start_mono + f->t0;
	uint64_t w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX;
	struct gs_filter who = *f; /* pid and device only */
	who.t0 = who.t1 = 0;
	/* kernels, copies and memsets merged in order of start (ties: in that order), each into
	 * its device's union; cut to the window, starts keep their order */
	GS_VEC(struct dev) d = {0};
	size_t last = 0;
	struct gs_cursor cur[3];
	GS_CURSOR_INIT(&cur[0], m->kernels);
	GS_CURSOR_INIT(&cur[1], m->copies);
	GS_CURSOR_INIT(&cur[2], m->memsets);
again:
	for (;;) {
		int t = -1;
		uint64_t best = 0;
		for (int u = 0; u < 3; u++)
			if (cur[u].i < cur[u].n && (t < 0 || gs_cursor_start(&cur[u]) < best))
				t = u, best = gs_cursor_start(&cur[u]);
		if (t < 0 || best >= w1)
			break;
		uint64_t start, end;
		int32_t pid;
		uint32_t device;
#define GET(type)                                                                            	{                                                                                    		const type *o = gs_cursor_get(&cur[t]);                                      		start = o->start, end = o->end, pid = o->pid, device = o->device;            	}
		if (t == 0)
			GET(struct gs_kernel)
		else if (t == 1)
			GET(struct gs_copy)
		else
			GET(struct gs_memset)
#undef GET
		gs_cursor_next(&cur[t]);
		if (end <= w0 || !gs_filter_keep(m, &who, pid, device, start))
			continue;
		start = GS_MAX(start, w0);
		end = GS_MIN(end, w1);
		if (last >= d.n || d.v[last].device != device) {
			for (last = 0; last < d.n && d.v[last].device != device; last++)
				;
			if (last == d.n) {
				struct dev nd = {device, 0, start, end, 0, 0};
				GS_VEC_PUSH(&d, nd);
			}
		}
		struct dev *x = &d.v[last];
		x->n++;
		if (end > x->last_end)
			x->last_end = end;
		if (start > x->ce) {
			x->busy += x->ce - x->cs;
			x->cs = start;
			x->ce = end;
		} else if (end > x->ce) {
			x->ce = end;
		}
	}
	int redo = 0; /* a table out of order (built by hand): again, through a sorted copy */
	for (int u = 0; u < 3; u++) {
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
	for (int u = 0; u < 3; u++)
		gs_cursor_release(&cur[u]);
	if (d.n > 1)
		qsort(d.v, d.n, sizeof(*d.v), cmp_dev);
	if (w1 == UINT64_MAX)
		w1 = m->end_mono;
	for (size_t i = 0; i < d.n; i++) {
		const struct dev *x = &d.v[i];
		uint64_t busy = x->busy + (x->ce - x->cs);
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
	free(d.v);
	return 0;
}
