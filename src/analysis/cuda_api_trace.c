/* cuda_api_trace.c: nsys's CUDA API trace: one row per recorded CUDA runtime or driver API
 * call, in start order, with its result, correlation id (which cuda_gpu_trace's CorrId joins),
 * process, thread and thread name. Start is session-relative, as in cuda_gpu_trace. Names are
 * cuda_api_sum's (CUPTI's _vNNNN suffix dropped). nsys's T-Pri column (the thread's
 * scheduling priority) is left out: it is not recorded. */
#include <stdlib.h>

#include "../util/alloc.h"
#include "gpu_ops.h"
#include "reports.h"

enum { C_START, C_DUR, C_NAME, C_RESULT, C_CORR, C_PID, C_TID, C_TNAME, C__N };

static const struct gs_column cols[] = {
	{"Start (ns)", GS_COL_INT}, {"Duration (ns)", GS_COL_INT}, {"Name", GS_COL_STR},
	{"Result", GS_COL_INT},     {"CorrID", GS_COL_INT},        {"Pid", GS_COL_INT},
	{"Tid", GS_COL_INT},        {"Thread Name", GS_COL_STR},
};

/* Calls by (start, pid, tid, correlation); the model keeps them in chunk order. */
static int cmp_call(const void *a, const void *b, void *arg)
{
	const struct gs_api *v = arg;
	return gs_api_cmp_start(&v[*(const uint32_t *)a], &v[*(const uint32_t *)b]);
}

int gs_report_cuda_api_trace(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "cuda_api_trace", "CUDA API Trace", cols, C__N);
	gs_table_stream(out, f->stream);
	uint32_t *idx = gs_xmalloc((m->apis.n + 1) * sizeof(*idx));
	size_t n = 0;
	for (size_t i = 0; i < m->apis.n; i++)
		if (gs_filter_keep(m, f, m->apis.v[i].pid, -1, m->apis.v[i].start))
			idx[n++] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), cmp_call, m->apis.v);
	char name[160];
	for (size_t i = 0; i < n; i++) {
		const struct gs_api *a = &m->apis.v[idx[i]];
		const struct gs_thread *t = gs_model_thread(m, a->pid, a->tid);
		union gs_cell *c = gs_table_row(out);
		c[C_START].i = (int64_t)(a->start >= m->start_mono ? a->start - m->start_mono : 0);
		c[C_DUR].i = (int64_t)(a->end >= a->start ? a->end - a->start : 0);
		c[C_NAME].s = gs_xstrdup(gs_api_base_name(a, name, sizeof(name)));
		c[C_RESULT].i = a->result;
		c[C_CORR].i = a->correlation;
		c[C_PID].i = a->pid;
		c[C_TID].i = a->tid;
		c[C_TNAME].s = gs_xstrdup(t && t->name ? t->name : "");
	}
	free(idx);
	return 0;
}
