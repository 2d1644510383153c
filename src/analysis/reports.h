/* reports.h: the table of `gpuscope stats` reports. Each report is a pure function from the
 * model (and a filter) to a table. Adding a report = one function + one row in gs_reports.
 * Invariants: report names are unique, lowercase, nsys's where nsys has the report. */
#ifndef GS_ANALYSIS_REPORTS_H
#define GS_ANALYSIS_REPORTS_H

#include "../model/model.h"
#include "../util/err.h"
#include "../util/intern.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "table.h"

struct gs_filter {
	int32_t pid;          /* 0: all */
	uint64_t t0, t1;      /* session-relative ns window; t1 == 0: to the end */
	int by_device;        /* 1: only GPU work of `device` (and no CPU-side rows) */
	uint32_t device;
	/* not a filter: how the report names kernels, from its arguments (nsys's
	 * REPORT:base, :mangled, :nvtx-name): kname GS_KNAME_*, nvtx_name 1: after their range */
	uint8_t kname, nvtx_name;
	/* not a filter either: where a report whose rows are final and in order as it makes them
	 * (the trace reports) hands them out a window at a time (gs_table_stream); NULL: the
	 * table holds them all */
	const struct gs_table_stream *stream;
};
enum { GS_KNAME_DEMANGLED, GS_KNAME_BASE, GS_KNAME_MANGLED };

struct gs_report_def {
	const char *name;
	const char *summary;
	int (*fn)(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		  struct gs_err *err);
	unsigned args; /* the arguments it takes (GS_RARG_*), as nsys's report of its name */
};
#define GS_RARG_KNAME 1u /* :base or :mangled */
#define GS_RARG_NVTX 2u  /* :nvtx-name */

extern const struct gs_report_def gs_reports[];
extern const size_t gs_nreports;
const struct gs_report_def *gs_report_find(const char *name);

/* nsys's nvtx_pushpop_sum and nvtx_startend_sum: nvtx_sum over one style (nvtx_sum.c). */
int gs_report_nvtx_pushpop_sum(const struct gs_model *m, const struct gs_filter *f,
			       struct gs_table *out, struct gs_err *err);
int gs_report_nvtx_startend_sum(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err);
int gs_report_nvtx_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err);
int gs_report_nvtx_kern_sum(const struct gs_model *m, const struct gs_filter *f,
			    struct gs_table *out, struct gs_err *err);

int gs_report_cuda_gpu_kern_sum(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err);
/* cuda_gpu_kern_sum and nvtx_sum with Med (ns) and StdDev (ns) left empty, the other columns
 * as theirs: one pass over the kernels or ranges and no memory per one (what the overview
 * shows of them); of nvtx_sum the first top rows only (0: all), as a trace may have a range
 * name per step. */
int gs_report_cuda_gpu_kern_sum_totals(const struct gs_model *m, const struct gs_filter *f,
				       struct gs_table *out, struct gs_err *err);
/* cuda_gpu_kern_sum_totals' table from the durations of the kernels that pass its filter,
 * summed by launch shape (by_shape[i]: the kernels of m->kshapes.v[i]). */
struct gs_sum;
void gs_cuda_gpu_kern_sum_totals_of(const struct gs_model *m, const struct gs_sum *by_shape,
				    struct gs_table *out);
int gs_report_nvtx_sum_totals(const struct gs_model *m, const struct gs_filter *f, size_t top,
			      struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_kern_gb_sum(const struct gs_model *m, const struct gs_filter *f,
				   struct gs_table *out, struct gs_err *err);
int gs_report_cuda_api_sum(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_graph_sum(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_mem_time_sum(const struct gs_model *m, const struct gs_filter *f,
				    struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_mem_size_sum(const struct gs_model *m, const struct gs_filter *f,
				    struct gs_table *out, struct gs_err *err);
int gs_report_gpu_util(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err);
int gs_report_gpu_util_timeline(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_trace(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err);
/* nsys's cuda_gpu_sum: kernels and memory operations in one summary, with a Category column
 * (cuda_sum.c). */
int gs_report_cuda_gpu_sum(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *out, struct gs_err *err);
/* nsys's cuda_api_gpu_sum: cuda_gpu_sum with the API calls' rows (cuda_sum.c). */
int gs_report_cuda_api_gpu_sum(const struct gs_model *m, const struct gs_filter *f,
			       struct gs_table *out, struct gs_err *err);
/* nsys's cuda_api_trace: every CUDA API call in start order (cuda_api_trace.c). */
int gs_report_cuda_api_trace(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err);
int gs_report_cuda_kern_exec_sum(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err);
/* nsys's cuda_kern_exec_trace: cuda_kern_exec_sum's phases launch by launch
 * (cuda_kern_exec_sum.c). */
int gs_report_cuda_kern_exec_trace(const struct gs_model *m, const struct gs_filter *f,
				   struct gs_table *out, struct gs_err *err);
int gs_report_nvtx_gpu_proj_sum(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err);
/* nsys's nvtx_pushpop_trace: every push/pop range with its place in the range tree
 * (nvtx_pushpop_trace.c). */
int gs_report_nvtx_pushpop_trace(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err);
/* nsys's nvtx_gpu_proj_trace: each range instance projected onto the GPU
 * (nvtx_gpu_proj_sum.c). */
int gs_report_nvtx_gpu_proj_trace(const struct gs_model *m, const struct gs_filter *f,
				  struct gs_table *out, struct gs_err *err);
/* The NVTX range tree of the trace reports (nvtx_pushpop_trace.c), one node per range: id
 * (RangeId: 1, 2, ... over the ranges that ended, in the model's order; 0 for an open range),
 * level (0 outermost), nchild and dchild (the count and summed durations of the ranges directly
 * inside). A range's parent is the model's (the innermost push/pop range open on its thread at
 * its start). gs_nvtx_tree's array is the caller's to free. */
struct gs_nvtx_node {
	uint32_t id, level, nchild;
	uint64_t dchild;
};
struct gs_nvtx_node *gs_nvtx_tree(const struct gs_model *m);
/* Range i's parent in the tree (an index), or -1: the model's, which comes before it in the
 * model's order (the tree is made in one pass in that order). */
int32_t gs_nvtx_parent(const struct gs_model *m, size_t i);
/* Range i's RangeStack: the ids from the outermost range down to it, each after ':' (":5:6");
 * the caller frees it. */
char *gs_nvtx_stack(const struct gs_model *m, const struct gs_nvtx_node *t, size_t i);
/* HTA's kernel launch statistics (launch_sum.c). */
int gs_report_launch_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
			 struct gs_err *err);
int gs_report_stream_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
			 struct gs_err *err);
/* CUDA memory in use (memory.c). */
int gs_report_memory_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
			 struct gs_err *err);
int gs_report_memory_timeline(const struct gs_model *m, const struct gs_filter *f,
			      struct gs_table *out, struct gs_err *err);
/* Steps (the model's step table, or the whole run) and where their time went (step_sum.c). */
int gs_report_step_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err);
/* step_sum with Sync Wait, Runtime API and Idle left empty, the other columns as its: a sweep
 * over the GPU tables alone, without the API calls (what the overview shows of it). */
int gs_report_step_sum_gpu(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *out, struct gs_err *err);
/* The overview's: from one walk over the GPU tables, gpu_util and cuda_gpu_kern_sum_totals (the
 * tables those reports give), and step_sum_gpu's two summary rows (median, p90) without the
 * rows of the *nsteps steps they summarise. */
int gs_report_gpu_overview(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *steps, size_t *nsteps, struct gs_table *util,
			   struct gs_table *kern, struct gs_err *err);
/* What the host threads did (host_sum.c): --trace osrt calls, --sample cpu samples. */
int gs_report_cuda_overhead_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
				struct gs_err *err);
int gs_report_osrt_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err);
int gs_report_osrt_stack_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err);
int gs_report_cuda_api_stack_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
				 struct gs_err *err);
/* The index in st's frames of the one named as its call's caller: the innermost outside the
 * CUDA runtime and driver (host_sum.c) */
uint32_t gs_api_stack_caller(const struct gs_model *m, const struct gs_api_stack *st);
int gs_report_cpu_sample_sum(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err);
/* analyze's GPU idle time by host activity, one row per class (idle_host_sum.c). */
int gs_report_idle_host_sum(const struct gs_model *m, const struct gs_filter *f,
			    struct gs_table *out, struct gs_err *err);
/* GPU counters (gpu_metrics_sum.c): per device and metric, samples, min, time-weighted mean,
 * median, max. The time-weighted mean of n time-sorted samples: each value holds until the next
 * sample's time, the last for no time; the plain mean when they span no time; NaN when n = 0. */
int gs_report_gpu_metrics_sum(const struct gs_model *m, const struct gs_filter *f,
			      struct gs_table *out, struct gs_err *err);
double gs_counter_twmean(const struct gs_counter_sample *s, size_t n);
/* The samples of track t that pass f (its device; taken inside the --time window; --pid does
 * not apply): counter_samples.v[*from .. *to); 0 when none. */
int gs_counter_window(const struct gs_model *m, const struct gs_filter *f,
		      const struct gs_counter_track *t, size_t *from, size_t *to);
/* --kernel-metrics (kernel_metrics.c). */
int gs_report_kernel_metrics(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err);
int gs_report_kernel_metrics_sum(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err);
/* Whether a kernel, copy, memset or graph launch of m passes f. */
int gs_filter_gpu_work(const struct gs_model *m, const struct gs_filter *f);
/* "domain:name" as nsys labels NVTX ranges (":name" in the default domain); malloc'd. */
char *gs_range_label(const struct gs_model *m, uint32_t domain, uint32_t name);
/* Kernel k's name as f asks (its report's arguments): demangled (the default), its base name
 * (:base) or mangled (:mangled); with f->nvtx_name (:nvtx-name), after the name of the
 * innermost push/pop range open on its launch call's thread and a '/' ("forward/gemm"), where
 * there is one. Written into sb (reset first); returns sb->buf. */
const char *gs_kernel_label(const struct gs_model *m, const struct gs_filter *f,
			    const struct gs_kernel *k, struct gs_strbuf *sb);
/* What gs_kernel_label's label depends on, as a non-zero key (a gs_u64map's): ((the launch
 * call's range name + 1, with :nvtx-name) << 32 | the kernel's shape) + 1. */
static inline uint64_t gs_kernel_label_key(const struct gs_model *m, const struct gs_filter *f,
					   const struct gs_kernel *k)
{
	int32_t r = f->nvtx_name && k->api >= 0 ? m->apis.v[k->api].range : -1;
	return ((uint64_t)(r >= 0 ? m->ranges.v[r].name + 1 : 0) << 32 | k->shape) + 1;
}
/* The kernels' labels of gs_kernel_label interned, for reports that key groups by name: each
 * label made once per shape (and range name, with :nvtx-name). */
struct gs_knames {
	struct gs_intern names;
	struct gs_u64map ids; /* gs_kernel_label_key -> label id + 1 */
	struct gs_strbuf sb;
};
void gs_knames_init(struct gs_knames *kn);
void gs_knames_release(struct gs_knames *kn);
uint32_t gs_knames_id(struct gs_knames *kn, const struct gs_model *m, const struct gs_filter *f,
		      const struct gs_kernel *k);
static inline const char *gs_knames_str(const struct gs_knames *kn, uint32_t id)
{
	return gs_intern_str(&kn->names, id);
}
/* Whether a record of process pid starting at start (CLOCK_MONOTONIC ns) passes f; device is
 * the GPU of GPU work, or -1 for CPU-side records (which --device leaves out). */
static inline int gs_filter_keep(const struct gs_model *m, const struct gs_filter *f, int32_t pid,
				 int64_t device, uint64_t start)
{
	if (f->pid && pid != f->pid)
		return 0;
	if (f->by_device && device != (int64_t)f->device)
		return 0;
	uint64_t rel = start >= m->start_mono ? start - m->start_mono : 0;
	return rel >= f->t0 && (!f->t1 || rel < f->t1);
}
/* The key that groups ranges by name, domain and style (push/pop or start/end) as nsys does;
 * never 0. String ids are < 2^31 (the loader's limit), so the key is exact. */
static inline uint64_t gs_range_group_key(const struct gs_range *r)
{
	uint64_t se = (r->flags & GS_RANGE_STARTEND) != 0;
	return (((uint64_t)r->name << 33) | ((uint64_t)r->domain << 1) | se) + 1;
}
static inline int gs_filter_range(const struct gs_model *m, const struct gs_filter *f,
				  const struct gs_range *r)
{
	return gs_filter_keep(m, f, r->pid, -1, r->start);
}

#endif
