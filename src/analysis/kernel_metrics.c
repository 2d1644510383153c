/* kernel_metrics.c: the kernel_metrics and kernel_metrics_sum reports (--kernel-metrics
 * traces). kernel_metrics: one row per measured launch, in launch order, with ncu's
 * first-level metrics under friendly labels (docs/gpuscope-stats.md maps them to ncu's metric
 * names), the ncu-style classification with its reason, and the roofline position (arithmetic
 * intensity in FLOP per DRAM byte, achieved GFLOP/s). kernel_metrics_sum: the same by kernel
 * name: launches measured and the mean of each metric; its class is that of the mean SM and
 * memory throughput. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "kmetrics.h"
#include "reports.h"

const char *const gs_kmetric_sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char *const gs_kmetric_mem = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
const char *const gs_kmetric_dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
const char *const gs_kmetric_dur = "gpu__time_duration.sum";

const char *gs_kbound_name(enum gs_kbound b)
{
	switch (b) {
	case GS_KBOUND_MEMORY: return "memory-bound";
	case GS_KBOUND_COMPUTE: return "compute-bound";
	case GS_KBOUND_LATENCY: return "latency-bound";
	case GS_KBOUND_BALANCED: return "balanced";
	default: return "unknown";
	}
}

enum gs_kbound gs_kbound_classify(double sm, double mem, double dram, char *reason, size_t n)
{
	char tmp[8];
	if (!reason) {
		reason = tmp;
		n = sizeof(tmp);
	}
	reason[0] = '\0';
	if (isnan(sm) || isnan(mem))
		return GS_KBOUND_UNKNOWN;
	char dr[40] = "";
	if (!isnan(dram))
		snprintf(dr, sizeof(dr), " (DRAM %.0f%%)", dram);
	if (sm >= 80 || mem >= 80) {
		if (sm >= mem) {
			snprintf(reason, n, "SM throughput %.0f%% of peak is near its limit", sm);
			return GS_KBOUND_COMPUTE;
		}
		snprintf(reason, n, "memory throughput %.0f%% of peak%s is near its limit", mem, dr);
		return GS_KBOUND_MEMORY;
	}
	if (sm < 60 && mem < 60) {
		snprintf(reason, n, "SM %.0f%% and memory %.0f%%%s both below 60%% of peak: latency "
			 "(stalls, too few warps or a small grid)", sm, mem, dr);
		return GS_KBOUND_LATENCY;
	}
	if (fabs(sm - mem) >= 10) {
		if (sm > mem) {
			snprintf(reason, n, "SM throughput %.0f%% exceeds memory %.0f%% by 10+ points", sm, mem);
			return GS_KBOUND_COMPUTE;
		}
		snprintf(reason, n, "memory throughput %.0f%%%s exceeds SM %.0f%% by 10+ points", mem, dr, sm);
		return GS_KBOUND_MEMORY;
	}
	snprintf(reason, n, "SM %.0f%% and memory %.0f%% within 10 points", sm, mem);
	return GS_KBOUND_BALANCED;
}

static double val(const struct gs_model *m, size_t row, const char *name)
{
	return gs_kmetric_value(m, row, gs_kmetric_col(m, name));
}

static double ratio(double a, double b)
{
	return isnan(a) || isnan(b) || b == 0 ? NAN : a / b;
}

void gs_kmetrics_view(const struct gs_model *m, size_t row, struct gs_kmview *v)
{
	const struct gs_kmetric *k = &m->kmetrics.v[row];
	memset(v, 0, sizeof(*v));
	v->name = gs_model_str(m, k->name);
	v->dynamic_smem = k->dynamic_smem;
	if (k->kernel >= 0 && (size_t)k->kernel < m->kernels.n) {
		const struct gs_kshape *s = gs_kshape(m, &m->kernels.v[k->kernel]);
		v->has_kernel = 1;
		v->name = gs_model_str(m, m->demangled ? s->dname : s->name);
		v->registers = s->registers;
		v->static_smem = s->static_smem;
		v->dynamic_smem = s->dynamic_smem;
	}
	v->dur_ns = val(m, row, gs_kmetric_dur);
	v->sm = val(m, row, gs_kmetric_sm);
	v->mem = val(m, row, gs_kmetric_mem);
	v->dram = val(m, row, gs_kmetric_dram);
	v->l1_hit = val(m, row, "l1tex__t_sector_hit_rate.pct");
	v->l2_hit = val(m, row, "lts__t_sector_hit_rate.pct");
	v->occupancy = val(m, row, "sm__warps_active.avg.pct_of_peak_sustained_active");
	v->tensor = val(m, row, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed");
	v->ld_spr = ratio(val(m, row, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
			  val(m, row, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"));
	v->st_spr = ratio(val(m, row, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
			  val(m, row, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"));
	/* FLOPs as ncu's roofline counts them: add and mul 1, fma 2, of f32, f64 and f16 */
	static const char *const ops[] = {"add", "mul", "fma"};
	double flop = NAN;
	for (const char *p = "fdh"; *p; p++)
		for (int o = 0; o < 3; o++) {
			char name[96];
			snprintf(name, sizeof(name), "sm__sass_thread_inst_executed_op_%c%s_pred_on.sum", *p, ops[o]);
			double x = val(m, row, name);
			if (!isnan(x))
				flop = (isnan(flop) ? 0 : flop) + x * (o == 2 ? 2 : 1);
		}
	v->flop = flop;
	v->dram_bytes = val(m, row, "dram__bytes.sum");
	v->intensity = ratio(flop, v->dram_bytes);
	v->gflops = ratio(flop, v->dur_ns); /* FLOP per ns = GFLOP/s */
	v->bound = gs_kbound_classify(v->sm, v->mem, v->dram, v->reason, sizeof(v->reason));
}

enum {
	C_LAUNCH, C_PID, C_CORR, C_DUR, C_SM, C_MEM, C_DRAM, C_L1, C_L2, C_OCC, C_LD, C_ST, C_TENSOR,
	C_AI, C_GFLOPS, C_REG, C_GRID, C_BLOCK, C_BOUND, C_REASON, C_NAME, C__N
};

static const struct gs_column cols[] = {
	{"Launch", GS_COL_INT},        {"PID", GS_COL_INT},
	{"CorrId", GS_COL_INT},        {"Duration (ns)", GS_COL_NS},
	{"SM %", GS_COL_PCT},          {"Memory %", GS_COL_PCT},
	{"DRAM %", GS_COL_PCT},        {"L1 Hit %", GS_COL_PCT},
	{"L2 Hit %", GS_COL_PCT},      {"Occupancy %", GS_COL_PCT},
	{"Ld Sectors/Req", GS_COL_FLOAT}, {"St Sectors/Req", GS_COL_FLOAT},
	{"Tensor %", GS_COL_PCT},      {"FLOP/Byte", GS_COL_FLOAT3},
	{"GFLOP/s", GS_COL_FLOAT},     {"Reg/Trd", GS_COL_INT},
	{"Grid", GS_COL_STR},          {"Block", GS_COL_STR},
	{"Bound", GS_COL_STR},         {"Reason", GS_COL_STR},
	{"Name", GS_COL_STR},
};

static char *dims(const int32_t d[3])
{
	char b[64];
	snprintf(b, sizeof(b), "%d,%d,%d", d[0], d[1], d[2]);
	return gs_xstrdup(b);
}

static void metric_cells(union gs_cell *c, const struct gs_kmview *v)
{
	c[C_DUR].i = isnan(v->dur_ns) ? GS_CELL_NONE : (int64_t)llround(v->dur_ns);
	c[C_SM].f = v->sm;
	c[C_MEM].f = v->mem;
	c[C_DRAM].f = v->dram;
	c[C_L1].f = v->l1_hit;
	c[C_L2].f = v->l2_hit;
	c[C_OCC].f = v->occupancy;
	c[C_LD].f = v->ld_spr;
	c[C_ST].f = v->st_spr;
	c[C_TENSOR].f = v->tensor;
	c[C_AI].f = v->intensity;
	c[C_GFLOPS].f = v->gflops;
	c[C_REG].i = v->has_kernel ? (int64_t)v->registers : GS_CELL_NONE;
}

void gs_kmetrics_args(const struct gs_model *m, size_t row, gs_kmetric_arg_fn *fn, void *ctx)
{
	const struct gs_kmetric *k = &m->kmetrics.v[row];
	for (uint32_t j = 0; j < k->n; j++) {
		const struct gs_kmetric_val *v = &m->kmetric_vals.v[k->first + j];
		if (isfinite(v->v))
			fn(ctx, gs_model_str(m, m->kmetric_cols.v[v->col]), NULL, v->v);
	}
	struct gs_kmview kv;
	gs_kmetrics_view(m, row, &kv);
	const struct {
		int col;
		double v;
	} d[] = {
		{C_SM, kv.sm},		 {C_MEM, kv.mem},	{C_DRAM, kv.dram},
		{C_L1, kv.l1_hit},	 {C_L2, kv.l2_hit},	{C_OCC, kv.occupancy},
		{C_LD, kv.ld_spr},	 {C_ST, kv.st_spr},	{C_TENSOR, kv.tensor},
		{C_AI, kv.intensity},	 {C_GFLOPS, kv.gflops},
	};
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (isfinite(d[i].v))
			fn(ctx, cols[d[i].col].name, NULL, d[i].v);
	fn(ctx, "bound", gs_kbound_name(kv.bound), 0);
	fn(ctx, "bound reason", kv.reason, 0);
}

int64_t *gs_kmetrics_by_kernel(const struct gs_model *m)
{
	if (!m->kmetrics.n)
		return NULL;
	int64_t *km = gs_xmalloc((m->kernels.n + 1) * sizeof(*km));
	for (size_t i = 0; i < m->kernels.n; i++)
		km[i] = -1;
	for (size_t i = 0; i < m->kmetrics.n; i++) {
		int64_t k = m->kmetrics.v[i].kernel;
		if (k >= 0 && (size_t)k < m->kernels.n)
			km[k] = (int64_t)i;
	}
	return km;
}

static char *note_of(const struct gs_model *m)
{
	if (!m->kmetric_notes.n)
		return m->kmetrics.n ? NULL : gs_xstrdup("no kernel metrics in this trace (record them "
						       "with 'gpuscope profile --kernel-metrics')");
	return gs_xstrdup(gs_model_str(m, m->kmetric_notes.v[0]));
}

int gs_report_kernel_metrics(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "kernel_metrics", "Kernel Hardware Metrics", cols, C__N);
	gs_table_stream(out, f->stream);
	for (size_t i = 0; i < m->kmetrics.n; i++) {
		const struct gs_kmetric *k = &m->kmetrics.v[i];
		if (!gs_filter_keep(m, f, k->pid, k->device, k->time))
			continue;
		struct gs_kmview v;
		gs_kmetrics_view(m, i, &v);
		union gs_cell *c = gs_table_row(out);
		for (size_t j = 0; j < C__N; j++)
			gs_cell_set_none(out, c, j);
		c[C_LAUNCH].i = k->ordinal;
		c[C_PID].i = k->pid;
		c[C_CORR].i = k->correlation;
		metric_cells(c, &v);
		c[C_GRID].s = dims(k->grid);
		c[C_BLOCK].s = dims(k->block);
		c[C_BOUND].s = gs_xstrdup(gs_kbound_name(v.bound));
		c[C_REASON].s = gs_xstrdup(v.reason);
		c[C_NAME].s = gs_xstrdup(v.name);
	}
	out->note = note_of(m);
	return 0;
}

enum { S_COUNT, S_DUR, S_SM, S_MEM, S_DRAM, S_L1, S_L2, S_OCC, S_LD, S_ST, S_TENSOR, S_AI, S_GFLOPS,
       S_BOUND, S_REASON, S_NAME, S__N };

static const struct gs_column sum_cols[] = {
	{"Launches", GS_COL_INT},      {"Avg Duration (ns)", GS_COL_NS},
	{"SM %", GS_COL_PCT},          {"Memory %", GS_COL_PCT},
	{"DRAM %", GS_COL_PCT},        {"L1 Hit %", GS_COL_PCT},
	{"L2 Hit %", GS_COL_PCT},      {"Occupancy %", GS_COL_PCT},
	{"Ld Sectors/Req", GS_COL_FLOAT}, {"St Sectors/Req", GS_COL_FLOAT},
	{"Tensor %", GS_COL_PCT},      {"FLOP/Byte", GS_COL_FLOAT3},
	{"GFLOP/s", GS_COL_FLOAT},     {"Bound", GS_COL_STR},
	{"Reason", GS_COL_STR},        {"Name", GS_COL_STR},
};

#define NSUM 12 /* averaged fields: S_DUR .. S_GFLOPS */

struct agg {
	const char *name;
	uint64_t n;
	double sum[NSUM];
	uint64_t cnt[NSUM];
	double total_dur;
};

static void add(struct agg *a, int j, double x)
{
	if (!isnan(x)) {
		a->sum[j] += x;
		a->cnt[j]++;
	}
}

static int cmp_agg(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;
	if (a->total_dur != b->total_dur)
		return a->total_dur < b->total_dur ? 1 : -1;
	return strcmp(a->name, b->name);
}

int gs_report_kernel_metrics_sum(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "kernel_metrics_sum", "Kernel Hardware Metrics by Name", sum_cols, S__N);
	GS_VEC(struct agg) aggs = {0};
	for (size_t i = 0; i < m->kmetrics.n; i++) {
		const struct gs_kmetric *k = &m->kmetrics.v[i];
		if (!gs_filter_keep(m, f, k->pid, k->device, k->time))
			continue;
		struct gs_kmview v;
		gs_kmetrics_view(m, i, &v);
		struct agg *a = NULL;
		for (size_t j = 0; j < aggs.n && !a; j++)
			if (!strcmp(aggs.v[j].name, v.name))
				a = &aggs.v[j];
		if (!a) {
			struct agg z = {.name = v.name};
			GS_VEC_PUSH(&aggs, z);
			a = &aggs.v[aggs.n - 1];
		}
		a->n++;
		const double x[NSUM] = {v.dur_ns, v.sm, v.mem, v.dram, v.l1_hit, v.l2_hit, v.occupancy,
					v.ld_spr, v.st_spr, v.tensor, v.intensity, v.gflops};
		for (int j = 0; j < NSUM; j++)
			add(a, j, x[j]);
		if (!isnan(v.dur_ns))
			a->total_dur += v.dur_ns;
	}
	if (aggs.n)
		qsort(aggs.v, aggs.n, sizeof(*aggs.v), cmp_agg);
	for (size_t i = 0; i < aggs.n; i++) {
		const struct agg *a = &aggs.v[i];
		union gs_cell *c = gs_table_row(out);
		for (size_t j = 0; j < S__N; j++)
			gs_cell_set_none(out, c, j);
		c[S_COUNT].i = (int64_t)a->n;
		double mean[NSUM];
		for (int j = 0; j < NSUM; j++)
			mean[j] = a->cnt[j] ? a->sum[j] / (double)a->cnt[j] : NAN;
		c[S_DUR].i = isnan(mean[0]) ? GS_CELL_NONE : (int64_t)llround(mean[0]);
		for (int j = 1; j < NSUM; j++)
			c[S_DUR + j].f = mean[j];
		char reason[200];
		enum gs_kbound b = gs_kbound_classify(mean[1], mean[2], mean[3], reason, sizeof(reason));
		c[S_BOUND].s = gs_xstrdup(gs_kbound_name(b));
		c[S_REASON].s = gs_xstrdup(reason);
		c[S_NAME].s = gs_xstrdup(a->name);
	}
	free(aggs.v);
	out->note = note_of(m);
	return 0;
}
