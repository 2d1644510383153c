/* nvtx_kern_sum.c: nsys's NVTX range kernel summary: GPU time of the kernels launched inside
 * each NVTX push/pop range, by range and kernel name (a CUDA graph launch recorded as one by
 * its graph, "[CUDA graph ID]", as a kernel). A kernel counts for every range that
 * enclosed the API call launching it on the launching thread (the model's joins: kernel ->
 * API call by correlation -> innermost range -> parents), as nsys counts it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "gpu_ops.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"NVTX Range", GS_COL_STR},       {"Style", GS_COL_STR},      {"PID", GS_COL_INT},
	{"TID", GS_COL_INT},              {"NVTX Inst", GS_COL_INT},  {"Kern Inst", GS_COL_INT},
	{"Total Time (ns)", GS_COL_INT},  {"Avg (ns)", GS_COL_FLOAT}, {"Med (ns)", GS_COL_FLOAT},
	{"Min (ns)", GS_COL_INT},         {"Max (ns)", GS_COL_INT},   {"StdDev (ns)", GS_COL_FLOAT},
	{"Kernel Name", GS_COL_STR},
};

struct group {
	uint32_t range_name, domain, kernel; /* kernel: its name's id in the report's gs_knames */
	int32_t pid, tid;
	uint64_t instances;
	GS_VEC(uint64_t) durs;
	struct gs_summary s;
};

static const struct gs_model *sort_m;
static const struct gs_knames *sort_kn;

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(gs_model_str(sort_m, x->range_name), gs_model_str(sort_m, y->range_name));
	if (c)
		return c;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	return strcmp(gs_knames_str(sort_kn, x->kernel), gs_knames_str(sort_kn, y->kernel));
}

int gs_report_nvtx_kern_sum(const struct gs_model *m, const struct gs_filter *f,
			    struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "nvtx_kern_sum", "NVTX Range Kernel Summary", cols,
		      sizeof(cols) / sizeof(cols[0]));
	struct gs_intern keys;
	gs_intern_init(&keys);
	struct gs_knames kn; /* kernel names as the report's arguments ask */
	gs_knames_init(&kn);
	struct gs_u64map seen; /* (group, range) pairs already counted as an instance */
	gs_u64map_init(&seen);
	GS_VEC(struct group) g = {0};
	char key[64], gname[40];
	for (size_t i = 0; i < m->kernels.n + m->graphs.n; i++) {
		/* the kernels, then the CUDA graph launches recorded as one ("[CUDA graph ID]") */
		const struct gs_kernel *k = i < m->kernels.n ? &m->kernels.v[i] : NULL;
		const struct gs_graph_launch *gl = k ? NULL : &m->graphs.v[i - m->kernels.n];
		int32_t api = k ? k->api : gl->api;
		if (api < 0 || !gs_filter_keep(m, f, k ? k->pid : gl->pid, k ? k->device : gl->device,
					       k ? k->start : gl->start))
			continue;
		uint32_t kname;
		if (k) {
			kname = gs_knames_id(&kn, m, f, k);
		} else {
			gs_graph_name(gl->graph_id, gname, sizeof(gname));
			kname = gs_intern(&kn.names, gname, strlen(gname));
		}
		uint64_t dur = k ? k->end - k->start : gl->end - gl->start;
		for (int32_t r = m->apis.v[api].range; r >= 0; r = m->ranges.v[r].parent) {
			const struct gs_range *rg = &m->ranges.v[r];
			int n = snprintf(key, sizeof(key), "%u/%u/%d/%d/%u", rg->name, rg->domain, rg->pid,
					 rg->tid, kname);
			uint32_t id = gs_intern(&keys, key, (size_t)n);
			if (id == g.n) {
				struct group ng = {.range_name = rg->name, .domain = rg->domain,
						   .kernel = kname, .pid = rg->pid, .tid = rg->tid};
				GS_VEC_PUSH(&g, ng);
			}
			GS_VEC_PUSH(&g.v[id].durs, dur);
			uint64_t pair = ((uint64_t)id << 32 | (uint32_t)r) + 1;
			if (!gs_u64map_get(&seen, pair)) {
				gs_u64map_put(&seen, pair, 1);
				g.v[id].instances++;
			}
		}
	}
	gs_u64map_release(&seen);
	gs_intern_release(&keys);
	for (size_t i = 0; i < g.n; i++)
		gs_summarize(g.v[i].durs.v, g.v[i].durs.n, &g.v[i].s);
	sort_m = m;
	sort_kn = &kn;
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), cmp_group);
	for (size_t i = 0; i < g.n; i++) {
		struct group *x = &g.v[i];
		union gs_cell *c = gs_table_row(out);
		c[0].s = gs_range_label(m, x->domain, x->range_name);
		c[1].s = gs_xstrdup("PushPop");
		c[2].i = x->pid;
		c[3].i = x->tid;
		c[4].i = (int64_t)x->instances;
		c[5].i = (int64_t)x->s.n;
		c[6].i = (int64_t)x->s.total;
		c[7].f = x->s.avg;
		c[8].f = x->s.med;
		c[9].i = (int64_t)x->s.min;
		c[10].i = (int64_t)x->s.max;
		c[11].f = x->s.stddev;
		c[12].s = gs_xstrdup(gs_knames_str(&kn, x->kernel));
		free(x->durs.v);
	}
	free(g.v);
	gs_knames_release(&kn);
	return 0;
}
