/* kmetrics.h: what a measured kernel launch's hardware metrics say (kernel_metrics.c), shared
 * by the kernel_metrics reports, analyze's findings and the exporters.
 * Invariants: values a trace lacks are NaN; the classification follows ncu's SOLBottleneck
 * rule on SM throughput and memory throughput (% of peak): either >= 80 -> bound by the
 * higher; both < 60 -> latency-bound; 10 points or more apart -> bound by the higher; else
 * balanced. Unknown when either is missing. */
#ifndef GS_ANALYSIS_KMETRICS_H
#define GS_ANALYSIS_KMETRICS_H

#include "../model/model.h"

enum gs_kbound {
	GS_KBOUND_UNKNOWN,
	GS_KBOUND_MEMORY,
	GS_KBOUND_COMPUTE,
	GS_KBOUND_LATENCY,
	GS_KBOUND_BALANCED,
};

struct gs_kmview {
	const char *name;      /* demangled when the launch's kernel record was found */
	uint32_t registers, static_smem, dynamic_smem; /* 0 when unknown */
	int has_kernel;        /* joined to a kernel record */
	double dur_ns, sm, mem, dram, l1_hit, l2_hit, occupancy, tensor;
	double ld_spr, st_spr; /* global load/store sectors per request */
	double flop, dram_bytes, intensity, gflops;
	enum gs_kbound bound;
	char reason[200];
};

/* The metric names of the default set, in the order the view's fields list them. */
extern const char *const gs_kmetric_sm, *const gs_kmetric_mem, *const gs_kmetric_dram,
	*const gs_kmetric_dur;

void gs_kmetrics_view(const struct gs_model *m, size_t row, struct gs_kmview *v);
const char *gs_kbound_name(enum gs_kbound b);
/* The classification alone, with its one-line reason (reason may be NULL). */
enum gs_kbound gs_kbound_classify(double sm, double mem, double dram, char *reason, size_t n);

/* A measured launch as name/value pairs, what the exporters put on its kernel's slice (Chrome
 * args, Perfetto debug annotations): every finite recorded value under ncu's metric name, in
 * the recorded order; then the view's derived values that are known, under the labels of the
 * kernel_metrics report ("SM %", "Ld Sectors/Req", ...); then "bound" and "bound reason".
 * fn gets s NULL and the number v, or the string s (valid during the call only). */
typedef void gs_kmetric_arg_fn(void *ctx, const char *name, const char *s, double v);
void gs_kmetrics_args(const struct gs_model *m, size_t row, gs_kmetric_arg_fn *fn, void *ctx);
/* Per kernel (index into m->kernels) the kmetrics row measured on it, -1 when none; NULL when
 * the trace has no metrics. The caller frees it. */
int64_t *gs_kmetrics_by_kernel(const struct gs_model *m);

#endif
