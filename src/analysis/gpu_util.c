/* gpu_util.c: GPU utilization per device: the union of the intervals in which any kernel,
 * copy or memset ran (overlapping work counted once), against the session's wall time. As
 * nsys's gpu_time_util rule, it is time utilization: any operation counts as a busy GPU,
 * however little of the GPU it used. */
#include <stdio.h>
#include <stdlib.h>

#include "../util/alloc.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"Device", GS_COL_INT},        {"Name", GS_COL_STR},           {"GPU Ops", GS_COL_INT},
	{"Busy (ns)", GS_COL_INT},     {"Wall (ns)", GS_COL_INT},      {"Utilization (%)", GS_COL_PCT},
};

struct span {
	uint64_t start, end;
	uint32_t device;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
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
	GS_VEC(struct span) s = {0};
#define ADD(vec)                                                                             \
	for (size_t i = 0; i < m->vec.n; i++) {                                              \
		const __typeof__(m->vec.v[0]) *o = &m->vec.v[i];                              \
		if (o->end <= w0 || o->start >= w1 ||                                        \
		    !gs_filter_keep(m, &who, o->pid, o->device, o->start))                   \
			continue;                                                            \
		struct span x = {GS_MAX(o->start, w0), GS_MIN(o->end, w1), o->device};       \
		GS_VEC_PUSH(&s, x);                                                          \
	}
	ADD(kernels)
	ADD(copies)
	ADD(memsets)
#undef ADD
	if (s.n > 1)
		qsort(s.v, s.n, sizeof(*s.v), cmp_span);
	if (w1 == UINT64_MAX)
		w1 = m->end_mono;
	for (size_t i = 0; i < s.n;) {
		uint32_t dev = s.v[i].device;
		uint64_t busy = 0, cur_s = s.v[i].start, cur_e = s.v[i].end, last_end = 0;
		size_t n = 0;
		for (; i < s.n && s.v[i].device == dev; i++, n++) {
			if (s.v[i].end > last_end)
				last_end = s.v[i].end;
			if (s.v[i].start > cur_e) {
				busy += cur_e - cur_s;
				cur_s = s.v[i].start;
				cur_e = s.v[i].end;
			} else if (s.v[i].end > cur_e) {
				cur_e = s.v[i].end;
			}
		}
		busy += cur_e - cur_s;
		uint64_t end = w1 > last_end ? w1 : last_end; /* a trace without END: its last op */
		uint64_t wall = end > w0 ? end - w0 : 0;
		union gs_cell *c = gs_table_row(out);
		c[0].i = dev;
		c[1].s = gs_xstrdup(gs_model_str(m, device_name(m, dev)));
		c[2].i = (int64_t)n;
		c[3].i = (int64_t)busy;
		c[4].i = (int64_t)wall;
		c[5].f = wall ? 100.0 * (double)busy / (double)wall : 0.0;
	}
	free(s.v);
	return 0;
}
