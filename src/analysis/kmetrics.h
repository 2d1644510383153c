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

#endif
