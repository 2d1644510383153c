/* gpu_ops.h: the model's kernels, copies, memsets and graph launches as one list of GPU
 * operations, for the
 * reports that treat them alike (cuda_gpu_trace, stream_sum, nvtx_gpu_proj_sum), and the
 * names nsys gives them.
 * Invariants: a list from gs_gpu_ops is sorted by (start, kind, index) and owned by the caller;
 * the name functions return static or model-owned strings, never NULL. */
#ifndef GS_ANALYSIS_GPU_OPS_H
#define GS_ANALYSIS_GPU_OPS_H

#include "reports.h"

/* GS_OP_GRAPH: a CUDA graph launch recorded as one (graph-level tracing, the default): its
 * kernels are not recorded one by one, the launch is the GPU work. */
enum gs_op_kind { GS_OP_KERNEL, GS_OP_COPY, GS_OP_MEMSET, GS_OP_GRAPH, GS_OP__N };

struct gs_op {
	uint64_t start, end;
	int32_t pid;
	uint32_t device, stream;
	int32_t api;    /* the launching API call, -1: not recorded */
	uint32_t index; /* into m->kernels, m->copies, m->memsets or m->graphs, by kind */
	uint8_t kind;   /* enum gs_op_kind */
};

/* The GPU operations that pass f, sorted; *n gets their count. With clip, an operation passes
 * when it overlaps f's time window (and its pid and device pass) and is cut to the window;
 * without, when gs_filter_keep passes its start. */
struct gs_op *gs_gpu_ops(const struct gs_model *m, const struct gs_filter *f, int clip, size_t *n);

/* qsort order of a gs_op list by stream: (pid, device, stream, start). */
int gs_op_cmp_stream(const void *a, const void *b);

/* "[CUDA memcpy HtoD]" and the other copy kinds, as nsys names memcpy operations. */
const char *gs_copy_op_name(unsigned kind);
/* "[CUDA memset]" for memsets, the copy's name for copies, the demangled name for kernels,
 * "[CUDA graph]" for graph launches (gs_graph_name names the graph). */
const char *gs_op_name(const struct gs_model *m, const struct gs_op *op);
/* "[CUDA graph ID]", in buf: a graph launch's name in the reports, by its graph's id. */
const char *gs_graph_name(uint32_t graph_id, char *buf, size_t cap);
/* "Pageable", "Pinned", "Device", ... for a CUpti_ActivityMemoryKind (nsys's labels). */
const char *gs_mem_kind_name(unsigned kind);
/* The string id of a device's name (0: not recorded); the process's record first. */
uint32_t gs_device_name_id(const struct gs_model *m, int32_t pid, uint32_t device);
/* A CUDA API call's function name without CUPTI's version suffix ("cudaLaunchKernel"), in buf. */
const char *gs_api_base_name(const struct gs_api *a, char *buf, size_t size);
/* The trace reports' order of API calls: by start, process, thread, then correlation id. */
static inline int gs_api_cmp_start(const struct gs_api *x, const struct gs_api *y)
{
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->correlation > y->correlation) - (x->correlation < y->correlation);
}

#endif
