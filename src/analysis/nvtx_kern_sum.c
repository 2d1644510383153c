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

typedef GS_VEC(struct group) group_vec;

/* The groups being made: by (range name, domain, pid, tid, kernel name) */
struct groups {
	struct gs_intern keys;
	struct gs_u64map seen; /* (group, range) pairs already counted as an instance */
	group_vec g;
};

/* A GPU operation of duration dur, named kname, launched by API call api: counted for each
 * range around the call */
static void add_op(struct groups *gs, const struct gs_model *m, int32_t api, uint32_t kname,
		   uint64_t dur)
{
	char key[64];
	for (int32_t r = m->apis.v[api].range; r >= 0; r = m->ranges.v[r].parent) {
		const struct gs_range *rg = &m->ranges.v[r];
		int n = snprintf(key, sizeof(key), "%u/%u/%d/%d/%u", rg->name, rg->domain, rg->pid,
				 rg->tid, kname);
		uint32_t id = gs_intern(&gs->keys, key, (size_t)n);
		if (id == gs->g.n) {
			struct group ng = {.range_name = rg->name, .domain = rg->domain,
					   .kernel = kname, .pid = rg->pid, .tid = rg->tid};
			GS_VEC_PUSH(&gs->g, ng);
		}
		GS_VEC_PUSH(&gs->g.v[id].durs, dur);
		uint64_t pair = ((uint64_t)id << 32 | (uint32_t)r) + 1;
		if (!gs_u64map_get(&gs->seen, pair)) {
			gs_u64map_put(&gs->seen, pair, 1);
			gs->g.v[id].instances++;
		}
	}
}

int gs_report_nvtx_kern_sum(const struct gs_model *m, const struct gs_filter *f,
			    struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "nvtx_kern_sum", "NVTX Range Kernel Summary", cols,
		      sizeof(cols) / sizeof(cols[0]));
	struct groups gs = {.g = {0}};
	gs_intern_init(&gs.keys);
	gs_u64map_init(&gs.seen);
	struct gs_knames kn; /* kernel names as the report's arguments ask */
	gs_knames_init(&kn);
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (k->api >= 0 && gs_filter_keep(m, f, k->pid, k->device, k->start))
			add_op(&gs, m, k->api, gs_knames_id(&kn, m, f, k), k->end - k->start);
	}
	char gname[40];
	for (size_t i = 0; i < m->graphs.n; i++) { /* launches recorded as one, by their graph */
		const struct gs_graph_launch *l = &m->graphs.v[i];
		if (l->api < 0 || !gs_filter_keep(m, f, l->pid, l->device, l->start))
			continue;
		gs_graph_name(l->graph_id, gname, sizeof(gname));
		add_op(&gs, m, l->api, gs_intern(&kn.names, gname, strlen(gname)), l->end - l->start);
	}
	gs_u64map_release(&gs.seen);
	gs_intern_release(&gs.keys);
	group_vec g = gs.g;
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
