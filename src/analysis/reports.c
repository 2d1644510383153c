/* reports.c: the report table and the filter shared by every report. */
#include "reports.h"

#include <string.h>

#include "../util/strbuf.h"

const struct gs_report_def gs_reports[] = {
	{"nvtx_sum", "NVTX ranges: time, count and spread per range name and style", gs_report_nvtx_sum, 0},
	{"nvtx_pushpop_sum", "nvtx_sum of the push/pop ranges alone", gs_report_nvtx_pushpop_sum, 0},
	{"nvtx_startend_sum", "nvtx_sum of the start/end ranges alone", gs_report_nvtx_startend_sum, 0},
	{"nvtx_pushpop_trace", "Every NVTX push/pop range in start order, with its level, parent, children and time outside them", gs_report_nvtx_pushpop_trace, 0},
	{"nvtx_kern_sum", "GPU time of the kernels launched inside each NVTX range", gs_report_nvtx_kern_sum, GS_RARG_KNAME},
	{"cuda_gpu_kern_sum", "CUDA kernels: GPU time, count and spread per kernel name", gs_report_cuda_gpu_kern_sum, GS_RARG_KNAME | GS_RARG_NVTX},
	{"cuda_gpu_kern_gb_sum", "CUDA kernels as cuda_gpu_kern_sum, also by grid and block size", gs_report_cuda_gpu_kern_gb_sum, GS_RARG_KNAME | GS_RARG_NVTX},
	{"cuda_gpu_graph_sum", "CUDA graph launches recorded as one (--cuda-graph-trace=graph): GPU time, count and spread per graph", gs_report_cuda_gpu_graph_sum, 0},
	{"cuda_api_sum", "CUDA API calls: time, count and spread per function", gs_report_cuda_api_sum, 0},
	{"cuda_gpu_mem_time_sum", "GPU memcpy and memset time per operation", gs_report_cuda_gpu_mem_time_sum, 0},
	{"cuda_gpu_mem_size_sum", "GPU memcpy and memset bytes (MB) per operation", gs_report_cuda_gpu_mem_size_sum, 0},
	{"cuda_gpu_sum", "CUDA kernels, memcpy/memset operations and graph launches in one summary by time, with their category", gs_report_cuda_gpu_sum, GS_RARG_KNAME | GS_RARG_NVTX},
	{"cuda_api_gpu_sum", "CUDA API calls, kernels, memcpy/memset operations and graph launches in one summary by time, with their category", gs_report_cuda_api_gpu_sum, GS_RARG_KNAME | GS_RARG_NVTX},
	{"gpu_util", "GPU busy time (union of kernels, copies, memsets, graph launches) over wall time, per device", gs_report_gpu_util, 0},
	{"gpu_util_timeline", "GPU busy time per device over ten equal slices of time", gs_report_gpu_util_timeline, 0},
	{"cuda_gpu_trace", "Every kernel, memcpy, memset and graph launch in start order, with its launch shape or bytes", gs_report_cuda_gpu_trace, GS_RARG_KNAME | GS_RARG_NVTX},
	{"cuda_api_trace", "Every CUDA API call in start order, with its result, correlation id and thread", gs_report_cuda_api_trace, 0},
	{"cuda_kern_exec_sum", "Kernel launch phases: API, queue, kernel and total time per launching thread and kernel", gs_report_cuda_kern_exec_sum, GS_RARG_KNAME | GS_RARG_NVTX},
	{"cuda_kern_exec_trace", "Kernel launch phases launch by launch: API call, queue and kernel start and duration, grid and block", gs_report_cuda_kern_exec_trace, GS_RARG_KNAME | GS_RARG_NVTX},
	{"nvtx_gpu_proj_sum", "NVTX ranges projected onto the GPU: first to last GPU operation they launched", gs_report_nvtx_gpu_proj_sum, 0},
	{"nvtx_gpu_proj_trace", "Each NVTX range instance projected onto the GPU: first to last GPU operation it launched, with its place in the range tree", gs_report_nvtx_gpu_proj_trace, 0},
	{"launch_sum", "Kernel launch statistics (HTA): launch call time, launch delay, short kernels, outliers", gs_report_launch_sum, 0},
	{"stream_sum", "GPU work per stream: busy time and time overlapped with other streams", gs_report_stream_sum, 0},
	{"memory_sum", "CUDA memory per process, device and kind: allocations, peak and final bytes in use", gs_report_memory_sum, 0},
	{"memory_timeline", "CUDA memory in use over ten equal slices of time, from the first allocation on", gs_report_memory_timeline, 0},
	{"step_sum", "Each step's wall time split into kernel, copy, set, sync wait, API and idle time", gs_report_step_sum, 0},
	{"osrt_sum", "OS runtime: blocking libc calls (locks, sleeps, I/O, polls) per function", gs_report_osrt_sum, 0},
	{"cuda_overhead_sum", "CUPTI's overhead records per kind: where CUPTI and the driver delayed the program (module loading, CUPTI's buffers)", gs_report_cuda_overhead_sum, 0},
	{"osrt_stack_sum", "OS runtime calls recorded with their call stacks (--osrt-backtrace-threshold), per function and stack", gs_report_osrt_stack_sum, 0},
	{"cuda_api_stack_sum", "CUDA API calls recorded with their call stacks (--cudabacktrace), per function and stack", gs_report_cuda_api_stack_sum, 0},
	{"kernel_metrics", "Hardware metrics of each kernel launch measured by --kernel-metrics, with ncu-style bound and roofline position", gs_report_kernel_metrics, 0},
	{"kernel_metrics_sum", "kernel_metrics by kernel name: launches measured and the mean of each metric", gs_report_kernel_metrics_sum, 0},
	{"cpu_sample_sum", "CPU samples: top functions per thread by self and total samples", gs_report_cpu_sample_sum, 0},
	{"idle_host_sum", "GPU idle time in the steps by what the main thread did (DataLoader, blocked, Python, ...)", gs_report_idle_host_sum, 0},
	{"gpu_metrics_sum", "GPU counters (--gpu-metrics): samples, min, time-weighted mean, median, max per device and metric", gs_report_gpu_metrics_sum, 0},
};
const size_t gs_nreports = sizeof(gs_reports) / sizeof(gs_reports[0]);

const struct gs_report_def *gs_report_find(const char *name)
{
	for (size_t i = 0; i < gs_nreports; i++)
		if (!strcmp(gs_reports[i].name, name))
			return &gs_reports[i];
	return NULL;
}

char *gs_range_label(const struct gs_model *m, uint32_t domain, uint32_t name)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_adds(&sb, gs_model_str(m, domain));
	gs_strbuf_addc(&sb, ':');
	gs_strbuf_adds(&sb, gs_model_str(m, name));
	return sb.buf; /* the caller owns it */
}

const char *gs_kernel_label(const struct gs_model *m, const struct gs_filter *f,
			    const struct gs_kernel *k, struct gs_strbuf *sb)
{
	gs_strbuf_reset(sb);
	if (f->nvtx_name && k->api >= 0 && m->apis.v[k->api].range >= 0) {
		gs_strbuf_adds(sb, gs_model_str(m, m->ranges.v[m->apis.v[k->api].range].name));
		gs_strbuf_addc(sb, '/');
	}
	const struct gs_kshape *sh = gs_kshape(m, k);
	const char *name = gs_model_str(m, f->kname == GS_KNAME_MANGLED ? sh->name : sh->dname);
	if (f->kname == GS_KNAME_BASE) {
		size_t off, len;
		gs_kernel_base_name(name, &off, &len);
		gs_strbuf_add(sb, name + off, len);
	} else {
		gs_strbuf_adds(sb, name);
	}
	if (!sb->buf)
		gs_strbuf_add(sb, "", 0);
	return sb->buf;
}

void gs_knames_init(struct gs_knames *kn)
{
	gs_intern_init(&kn->names);
	gs_u64map_init(&kn->ids);
	gs_strbuf_init(&kn->sb);
}

void gs_knames_release(struct gs_knames *kn)
{
	gs_intern_release(&kn->names);
	gs_u64map_release(&kn->ids);
	gs_strbuf_release(&kn->sb);
}

uint32_t gs_knames_id(struct gs_knames *kn, const struct gs_model *m, const struct gs_filter *f,
		      const struct gs_kernel *k)
{
	uint64_t key = gs_kernel_label_key(m, f, k);
	uint32_t *v = gs_u64map_get(&kn->ids, key);
	if (v)
		return *v - 1;
	const char *s = gs_kernel_label(m, f, k, &kn->sb);
	uint32_t id = gs_intern(&kn->names, s, strlen(s));
	gs_u64map_put(&kn->ids, key, id + 1);
	return id;
}

int gs_filter_gpu_work(const struct gs_model *m, const struct gs_filter *f)
{
#define ANY(vec)                                                                             \
	for (size_t i = 0; i < m->vec.n; i++)                                                \
		if (gs_filter_keep(m, f, m->vec.v[i].pid, m->vec.v[i].device, m->vec.v[i].start)) \
			return 1;
	ANY(kernels)
	ANY(copies)
	ANY(memsets)
	ANY(graphs)
#undef ANY
	return 0;
}
