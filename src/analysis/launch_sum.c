/* launch_sum.c: kernel launch statistics, as Holistic Trace Analysis (HTA) computes them in
 * get_cuda_kernel_launch_stats (see ../shared/reference/kineto_hta.md §3.5). Each GPU
 * operation is joined to its launching API call by correlation id; then
 *   cpu_duration = the API call's duration,
 *   gpu_duration = the operation's duration,
 *   launch_delay = max(0, op start - API call start - API call duration);
 * and, with HTA's defaults runtime_cutoff = 50 us and launch_delay_cutoff = 100 us,
 *   short kernel           cpu_duration <= 50 us and gpu_duration < cpu_duration (launching
 *                          took longer than running),
 *   CPU (runtime) outlier  cpu_duration > 50 us,
 *   launch-delay outlier   launch_delay > 100 us.
 * The launches counted are HTA's: cudaLaunchKernel, cudaLaunchKernelExC and, as HTA's default
 * include_memory_events=True, cudaMemcpyAsync and cudaMemsetAsync (the _ptsz variants too).
 * Unlike HTA, driver launches (cuLaunchKernel, cuLaunchKernelEx) count as well: Triton and
 * cuBLAS launch that way, and HTA's list misses their kernels. HTA rounds its traces to whole
 * microseconds; here everything is in ns. One row per operation name (demangled kernel name,
 * "[CUDA memcpy HtoD]", "[CUDA memset]"), most launches first; P90 is the 90th percentile,
 * linearly interpolated between the two nearest values (numpy's and pandas' default). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"
#include "../util/select.h"
#include "gpu_ops.h"
#include "reports.h"

#define RUNTIME_CUTOFF_NS 50000ull       /* HTA runtime_cutoff = 50 (us) */
#define LAUNCH_DELAY_CUTOFF_NS 100000ull /* HTA launch_delay_cutoff = 100 (us) */

static const struct gs_column cols[] = {
	{"Count", GS_COL_INT},          {"Short", GS_COL_INT},
	{"CPU Outliers", GS_COL_INT},   {"Delay Outliers", GS_COL_INT},
	{"CPU Avg (ns)", GS_COL_FLOAT}, {"CPU Med (ns)", GS_COL_FLOAT},
	{"CPU P90 (ns)", GS_COL_FLOAT}, {"CPU Max (ns)", GS_COL_INT},
	{"GPU Avg (ns)", GS_COL_FLOAT}, {"GPU Med (ns)", GS_COL_FLOAT},
	{"GPU Max (ns)", GS_COL_INT},   {"Delay Avg (ns)", GS_COL_FLOAT},
	{"Delay Med (ns)", GS_COL_FLOAT}, {"Delay P90 (ns)", GS_COL_FLOAT},
	{"Delay Max (ns)", GS_COL_INT}, {"Name", GS_COL_STR},
};

enum { V_CPU, V_GPU, V_DELAY, V__N };

struct group {
	const char *name; /* owned by the interner */
	GS_VEC(uint64_t) v[V__N];
	struct gs_summary s[V__N];
	double cpu_p90, delay_p90;
	uint64_t shorts, cpu_out, delay_out;
};

/* Whether an API call is one whose launches count (see above). */
static int is_launch(const struct gs_api *a)
{
	static const char *const names[] = {
		"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
		"cuLaunchKernel",   "cuLaunchKernelEx",
	};
	char buf[160];
	gs_api_base_name(a, buf, sizeof(buf));
	size_t len = strlen(buf);
	if (len > 5 && !strcmp(buf + len - 5, "_ptsz"))
		buf[len - 5] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(buf, names[i]))
			return 1;
	return 0;
}

/* The p-quantile (0..1) of v, interpolated linearly (reorders v). */
static double quantile(uint64_t *v, size_t n, double p)
{
	return n ? gs_quantile_u64(v, n, p) : 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->s[V_CPU].n != y->s[V_CPU].n)
		return x->s[V_CPU].n > y->s[V_CPU].n ? -1 : 1;
	if (x->s[V_CPU].total != y->s[V_CPU].total)
		return x->s[V_CPU].total > y->s[V_CPU].total ? -1 : 1;
	return strcmp(x->name, y->name);
}

int gs_report_launch_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
			 struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "launch_sum", "CUDA Kernel Launch Statistics", cols,
		      sizeof(cols) / sizeof(cols[0]));
	size_t nops;
	struct gs_op *ops = gs_gpu_ops(m, f, 0, &nops);
	/* whether each API call is a launch that counts, decided at its first operation */
	struct gs_intern names;
	gs_intern_init(&names);
	GS_VEC(struct group) g = {0};
	uint8_t *launch = gs_xcalloc(m->apis.n + 1, 1); /* 0: not known yet, 1: no, 2: yes */
	uint64_t all = 0, shorts = 0, cpu_out = 0, delay_out = 0;
	for (size_t i = 0; i < nops; i++) {
		const struct gs_op *op = &ops[i];
		if (op->api < 0)
			continue;
		const struct gs_api *a = &m->apis.v[op->api];
		if (!launch[op->api])
			launch[op->api] = is_launch(a) ? 2 : 1;
		if (launch[op->api] != 2)
			continue;
		const char *name = gs_op_name(m, op);
		uint32_t id = gs_intern(&names, name, strlen(name));
		if (id == g.n) {
			struct group ng = {0};
			GS_VEC_PUSH(&g, ng);
		}
		struct group *x = &g.v[id];
		uint64_t cpu = a->end - a->start, gpu = op->end - op->start;
		uint64_t delay = op->start > a->end ? op->start - a->end : 0;
		GS_VEC_PUSH(&x->v[V_CPU], cpu);
		GS_VEC_PUSH(&x->v[V_GPU], gpu);
		GS_VEC_PUSH(&x->v[V_DELAY], delay);
		int s = cpu <= RUNTIME_CUTOFF_NS && gpu < cpu;
		int co = cpu > RUNTIME_CUTOFF_NS, dl = delay > LAUNCH_DELAY_CUTOFF_NS;
		x->shorts += (uint64_t)s;
		x->cpu_out += (uint64_t)co;
		x->delay_out += (uint64_t)dl;
		all++, shorts += (uint64_t)s, cpu_out += (uint64_t)co, delay_out += (uint64_t)dl;
	}
	free(launch);
	free(ops);
	for (size_t i = 0; i < g.n; i++) {
		struct group *x = &g.v[i];
		x->name = gs_intern_str(&names, (uint32_t)i);
		for (int k = 0; k < V__N; k++)
			gs_summarize(x->v[k].v, x->v[k].n, &x->s[k]);
		x->cpu_p90 = quantile(x->v[V_CPU].v, x->v[V_CPU].n, 0.9);
		x->delay_p90 = quantile(x->v[V_DELAY].v, x->v[V_DELAY].n, 0.9);
	}
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), cmp_group);
	for (size_t i = 0; i < g.n; i++) {
		struct group *x = &g.v[i];
		union gs_cell *c = gs_table_row(out);
		c[0].i = (int64_t)x->s[V_CPU].n;
		c[1].i = (int64_t)x->shorts;
		c[2].i = (int64_t)x->cpu_out;
		c[3].i = (int64_t)x->delay_out;
		c[4].f = x->s[V_CPU].avg;
		c[5].f = x->s[V_CPU].med;
		c[6].f = x->cpu_p90;
		c[7].i = (int64_t)x->s[V_CPU].max;
		c[8].f = x->s[V_GPU].avg;
		c[9].f = x->s[V_GPU].med;
		c[10].i = (int64_t)x->s[V_GPU].max;
		c[11].f = x->s[V_DELAY].avg;
		c[12].f = x->s[V_DELAY].med;
		c[13].f = x->delay_p90;
		c[14].i = (int64_t)x->s[V_DELAY].max;
		c[15].s = gs_xstrdup(x->name);
		for (int k = 0; k < V__N; k++)
			free(x->v[k].v);
	}
	free(g.v);
	gs_intern_release(&names);
	if (all) {
		char note[256];
		snprintf(note, sizeof(note),
			 "%llu launches: %llu short kernels (launch <= 50 us and longer than the GPU "
			 "time), %llu launch calls over 50 us, %llu launch delays over 100 us.",
			 (unsigned long long)all, (unsigned long long)shorts,
			 (unsigned long long)cpu_out, (unsigned long long)delay_out);
		out->note = gs_xstrdup(note);
	}
	return 0;
}
