/* kmetrics.c: per-kernel hardware metrics (gpuscope profile --kernel-metrics), part of
 * libgpuscope-cuda.so. CUPTI's range profiler with auto ranges and kernel replay measures
 * the launches that the filter selects (ncu's -k/-s/-c: skip the first N matching launches,
 * then measure the next COUNT); every other launch runs as usual. The profiler is set up
 * per context at the first selected launch, started at a selected launch's enter callback
 * and stopped, decoded and evaluated at its exit; after the last selected launch it is
 * disabled, so the rest of the run is not serialized.
 *
 * Launches are serialized among threads while launches remain to be measured (one lock
 * from enter to exit), so a range holds exactly the selected kernel. Each measured launch
 * becomes a GS_REG_KMETRIC registry record of the CUPTI ring; the metric names are one
 * GS_REG_KMETRIC_SET record; a failure (no counter permission, no support) becomes one line
 * on stderr and one GS_REG_KMETRIC_NOTE record, and the timeline goes on.
 *
 * cupti_profiler_host.h includes <string>: the build puts an empty file of that name
 * (shim/string) on the include path, so the header compiles as C. */
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../collector.h"
#include "kmetrics.h"
#include "nvperf.h"

/* The default set (11 replay passes on GH100, counted with cuptiProfilerHostGetNumOfPasses):
 * ncu's Speed Of Light header, cache hit rates, achieved occupancy, global coalescing,
 * tensor pipe use, and the FLOP and DRAM byte counts of a roofline. */
static const char *const set_default[] = {
	"gpu__time_duration.sum",
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
	"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	"l1tex__t_sector_hit_rate.pct",
	"lts__t_sector_hit_rate.pct",
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"dram__bytes.sum",
	"sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
	"sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
	"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
	"sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
	"sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
	"sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
	"sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
	"sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
	"sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
	NULL,
};

/* full: the default set and more of ncu's SpeedOfLight, MemoryWorkloadAnalysis, Occupancy
 * and scheduler sections. */
static const char *const set_full_extra[] = {
	"l1tex__throughput.avg.pct_of_peak_sustained_active",
	"lts__throughput.avg.pct_of_peak_sustained_elapsed",
	"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"sm__inst_executed.avg.per_cycle_active",
	"sm__instruction_throughput.avg.pct_of_peak_sustained_active",
	"smsp__issue_active.avg.per_cycle_active",
	"smsp__warps_eligible.avg.per_cycle_active",
	"smsp__warps_active.avg.per_cycle_active",
	"sm__cycles_active.avg",
	"gpc__cycles_elapsed.max",
	"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
	"lts__t_sectors_srcunit_tex_op_read.sum",
	"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
	NULL,
};

#define KM_MAX_METRICS 64
#define KM_MAX_CTX 16

static const char *names[KM_MAX_METRICS];
static size_t nnames;

struct km_ctx {
	CUcontext ctx;
	int state; /* 0 unset, 1 ready, -1 failed */
	CUpti_Profiler_Host_Object *host;
	CUpti_RangeProfiler_Object *obj;
	uint8_t *config, *cdi, *avail;
	size_t config_size, cdi_size, passes;
	uint32_t device;
	int started;
};

static struct km_ctx ctxs[KM_MAX_CTX];
static struct gs_ring_header *ring;
static regex_t filter;
static int have_filter;
static int on;            /* set up and launches still to be measured */
static uint32_t matched;  /* matching launches seen (under lock) */
static int warned, profiler_ready, done_disabling;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int depth, held;
static _Thread_local struct km_ctx *pending; /* this thread's selected launch in flight */
static _Thread_local struct gs_kmetric_rec pending_rec;
static _Thread_local const char *pending_name;

static const CUpti_CallbackId launch_ids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

int gs_km_is_launch(uint32_t cbid)
{
	for (size_t i = 0; i < GS_ARRAY_SIZE(launch_ids); i++)
		if (launch_ids[i] == cbid)
			return 1;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void note(const char *msg)
{
	if (ring) {
		gs_nvtx_lock();
		gs_registry_add_to(ring, GS_REG_KMETRIC_NOTE, 0, 0, msg, strlen(msg));
		gs_nvtx_unlock();
	}
	char line[1024];
	int n = snprintf(line, sizeof(line), "gpuscope: %s\n", msg);
	if (n > 0 && write(STDERR_FILENO, line, (size_t)GS_MIN((size_t)n, sizeof(line) - 1)) < 0)
		return;
}

/* One message for a failed CUPTI call, the first time only: after it, metrics are off. */
static void fail(const char *what, CUptiResult r)
{
	on = 0;
	if (warned++)
		return;
	const char *str = NULL;
	cuptiGetResultString(r, &str);
	char msg[900];
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
		snprintf(msg, sizeof(msg),
			 "kernel metrics: GPU performance counters are restricted to administrators "
			 "(ERR_NVGPUCTRPERM): run as root (in a container: --cap-add SYS_ADMIN), or load "
			 "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0; see "
			 "https://developer.nvidia.com/ERR_NVGPUCTRPERM. Recording the timeline without "
			 "kernel metrics");
	else if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_HARDWARE_BUSY ||
		 r == CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED)
		snprintf(msg, sizeof(msg),
			 "kernel metrics: another profiler holds the GPU counters (%s at %s; ncu, DCGM or "
			 "torch.profiler?): recording the timeline without kernel metrics",
			 str ? str : "error", what);
	else
		snprintf(msg, sizeof(msg),
			 "kernel metrics: CUPTI's range profiler failed at %s (%s): recording the "
			 "timeline without kernel metrics", what, str ? str : "error");
	note(msg);
}

#define TRY(call, what)                                                                      \
	do {                                                                                 \
		CUptiResult r_ = (call);                                                     \
		if (r_ != CUPTI_SUCCESS) {                                                   \
			fail(what, r_);                                                      \
			return -1;                                                           \
		}                                                                            \
	} while (0)

static int cdi_init(struct km_ctx *k)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	ci.pRangeProfilerObject = k->obj;
	ci.counterDataSize = k->cdi_size;
	ci.pCounterData = k->cdi;
	TRY(cuptiRangeProfilerCounterDataImageInitialize(&ci), "cuptiRangeProfilerCounterDataImageInitialize");
	return 0;
}

static int start(struct km_ctx *k)
{
	CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	st.pRangeProfilerObject = k->obj;
	TRY(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
	k->started = 1;
	return 0;
}

#define KM_MAX_RANGES 64

/* CUpti_RangeProfiler_Enable_Params as CUPTI 13.4 extends it: cacheControlMode after the
 * 13.0 fields, taken when structSize covers it (CUPTI_CACHE_CONTROL_MODE_ALL = 1: reset the
 * cache state CUPTI supports, the L2, before each pass). */
struct enable_params {
	CUpti_RangeProfiler_Enable_Params p;
	uint32_t cache_control;
};
_Static_assert(offsetof(struct enable_params, cache_control) ==
		       offsetof(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject) + sizeof(void *),
	       "cacheControlMode follows pRangeProfilerObject");
#define KM_CACHE_CONTROL_ALL 1
#define KM_CACHE_CONTROL_SINCE 130400 /* cuptiGetVersion() of CUPTI 13.4 */

/* Whether the SASS instruction counts (sm__sass_*: the FLOPs of the roofline) are left out:
 * under a CUPTI release newer than the driver's CUDA version they read 0 for every kernel
 * (CUPTI 13.5.25 on driver 580.159, CUDA 13.0, H100: 0 on the 29 launches whose FLOPs ncu
 * counted, from 32,768 to 3.7e10, every other metric agreeing with ncu's; 0 with the L2 reset
 * before each pass and without it, so the release is the cause), so they are reported as not
 * measured, with a note, rather than as 0 (GPUSCOPE_KERNEL_METRICS_SASS=keep: as read).
 * Decided once, after an enable. */
static int sass_untrusted = -1;

static void sass_check(void)
{
	if (sass_untrusted >= 0)
		return;
	int driver = 0;
	uint32_t version = ring->cupti_version;
	sass_untrusted = !gs_cfg.ksass_keep && cuDriverGetVersion(&driver) == CUDA_SUCCESS &&
			 driver > 0 && version / 100 > (uint32_t)driver / 10;
	if (sass_untrusted) {
		char msg[600];
		snprintf(msg, sizeof(msg), "kernel metrics: CUPTI %u is newer than the driver's CUDA "
			 "%d.%d: its SASS instruction counts (FLOPs, the roofline) read 0 with such a "
			 "driver, so they are left out; the other metrics are measured", version,
			 driver / 1000, driver % 1000 / 10);
		note(msg);
	}
}

/* After a range profiler was enabled without cache control: a note, once, that the cache
 * figures carry the state the previous pass left (--cache-control none, or a CUPTI before
 * 13.4). Not before: a failure's note comes first. */
static void note_no_cache_control(void)
{
	static int noted;
	if (noted++)
		return;
	char msg[600];
	if (gs_cfg.kcache_none)
		snprintf(msg, sizeof(msg), "kernel metrics: the L2 is not reset between replay passes "
			 "(--cache-control none): cache hit rates and DRAM figures include the state "
			 "each pass leaves to the next");
	else
		snprintf(msg, sizeof(msg), "kernel metrics: the L2 is not reset between replay passes: "
			 "CUPTI %u has no cache control (13.4 or newer has): cache hit rates and DRAM "
			 "figures of kernels that move less than a few times the L2 include the state "
			 "each pass leaves to the next", ring->cupti_version);
	note(msg);
}

/* The range profiler for one context: host object and config image for the set, the
 * profiler enabled on the context, a counter data image, the config set. */
static int setup(struct km_ctx *k, CUcontext ctx)
{
	k->ctx = ctx;
	k->state = -1;
	if (!profiler_ready) {
		/* the profiler's libnvperf_host.so from CUPTI's folder, before CUPTI loads it */
		char why[900], msg[1000];
		if (gs_nvperf_pin((const void *)(uintptr_t)cuptiGetVersion, why, sizeof(why)) < 0) {
			snprintf(msg, sizeof(msg), "kernel metrics: %s", why);
			note(msg);
		}
		CUpti_Profiler_Initialize_Params pi = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
		TRY(cuptiProfilerInitialize(&pi), "cuptiProfilerInitialize");
		profiler_ready = 1;
	}
	TRY(cuptiGetDeviceId(ctx, &k->device), "cuptiGetDeviceId");
	CUpti_Device_GetChipName_Params cn = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cn.deviceIndex = k->device;
	TRY(cuptiDeviceGetChipName(&cn), "cuptiDeviceGetChipName");
	CUpti_Profiler_GetCounterAvailability_Params ca = {.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
	ca.ctx = ctx;
	TRY(cuptiProfilerGetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability");
	k->avail = calloc(1, ca.counterAvailabilityImageSize ? ca.counterAvailabilityImageSize : 1);
	if (!k->avail)
		return -1;
	ca.pCounterAvailabilityImage = k->avail;
	TRY(cuptiProfilerGetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability");

	CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	hi.pChipName = cn.pChipName;
	hi.pCounterAvailabilityImage = k->avail;
	TRY(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
	k->host = hi.pHostObject;
	CUpti_Profiler_Host_ConfigAddMetrics_Params am = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	am.pHostObject = k->host;
	am.ppMetricNames = names;
	am.numMetrics = nnames;
	TRY(cuptiProfilerHostConfigAddMetrics(&am), "cuptiProfilerHostConfigAddMetrics");
	CUpti_Profiler_Host_GetConfigImageSize_Params gs = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	gs.pHostObject = k->host;
	TRY(cuptiProfilerHostGetConfigImageSize(&gs), "cuptiProfilerHostGetConfigImageSize");
	k->config_size = gs.configImageSize;
	k->config = calloc(1, k->config_size ? k->config_size : 1);
	if (!k->config)
		return -1;
	CUpti_Profiler_Host_GetConfigImage_Params gi = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	gi.pHostObject = k->host;
	gi.configImageSize = k->config_size;
	gi.pConfigImage = k->config;
	TRY(cuptiProfilerHostGetConfigImage(&gi), "cuptiProfilerHostGetConfigImage");
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	np.configImageSize = k->config_size;
	np.pConfigImage = k->config;
	TRY(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
	k->passes = np.numOfPasses;

	struct enable_params en = {.p = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE}};
	en.p.ctx = ctx;
	int reset = !gs_cfg.kcache_none && ring->cupti_version >= KM_CACHE_CONTROL_SINCE;
	if (reset) {
		/* the size that carries cacheControlMode, as CUPTI_PROFILER_STRUCT_SIZE makes it */
		en.p.structSize = offsetof(struct enable_params, cache_control) + sizeof(en.cache_control);
		en.cache_control = KM_CACHE_CONTROL_ALL;
	}
	TRY(cuptiRangeProfilerEnable(&en.p), "cuptiRangeProfilerEnable");
	k->obj = en.p.pRangeProfilerObject;
	if (!reset)
		note_no_cache_control();
	sass_check();
	CUpti_RangeProfiler_GetCounterDataSize_Params ds = {.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
	ds.pRangeProfilerObject = k->obj;
	ds.pMetricNames = names;
	ds.numMetrics = nnames;
	ds.maxNumOfRanges = KM_MAX_RANGES;
	ds.maxNumRangeTreeNodes = KM_MAX_RANGES;
	TRY(cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize");
	k->cdi_size = ds.counterDataSize;
	k->cdi = calloc(1, k->cdi_size ? k->cdi_size : 1);
	if (!k->cdi)
		return -1;
	if (cdi_init(k))
		return -1;
	CUpti_RangeProfiler_SetConfig_Params sc = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
	sc.pRangeProfilerObject = k->obj;
	sc.configSize = k->config_size;
	sc.pConfig = k->config;
	sc.counterDataImageSize = k->cdi_size;
	sc.pCounterDataImage = k->cdi;
	sc.range = CUPTI_AutoRange;
	sc.replayMode = CUPTI_KernelReplay;
	sc.maxRangesPerPass = KM_MAX_RANGES;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	TRY(cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
	k->state = 1;
	gs_log("kernel metrics: %zu metrics in %zu passes on device %u (%s), the L2 %s before each "
	       "pass", nnames, k->passes, k->device, cn.pChipName ? cn.pChipName : "?",
	       reset ? "reset" : "not reset");
	return 0;
}

/* Undo what setup did, all of it or the part that succeeded. */
static void disable(struct km_ctx *k)
{
	if (k->obj) {
		if (k->started) {
			CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
			sp.pRangeProfilerObject = k->obj;
			cuptiRangeProfilerStop(&sp);
		}
		CUpti_RangeProfiler_Disable_Params d = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
		d.pRangeProfilerObject = k->obj;
		cuptiRangeProfilerDisable(&d);
	}
	if (k->host) {
		CUpti_Profiler_Host_Deinitialize_Params hd = {
			.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
		hd.pHostObject = k->host;
		cuptiProfilerHostDeinitialize(&hd);
	}
	free(k->config);
	free(k->cdi);
	free(k->avail);
	memset(k, 0, sizeof(*k));
}

/* Metrics are over (all measured, or a failure): every context's profiler off, so the rest
 * of the run is not serialized. */
static void disable_all(void)
{
	on = 0;
	for (int i = 0; i < KM_MAX_CTX; i++)
		if (ctxs[i].state)
			disable(&ctxs[i]);
}

static struct km_ctx *find_ctx(CUcontext ctx, int create)
{
	for (int i = 0; i < KM_MAX_CTX; i++)
		if (ctxs[i].ctx == ctx && ctxs[i].state)
			return ctxs[i].state == 1 ? &ctxs[i] : NULL;
	if (!create)
		return NULL;
	for (int i = 0; i < KM_MAX_CTX; i++)
		if (!ctxs[i].state) {
			if (setup(&ctxs[i], ctx)) {
				disable(&ctxs[i]);
				ctxs[i].state = -1; /* not retried: one message is enough */
				ctxs[i].ctx = ctx;
				return NULL;
			}
			if (gs_cfg.kstart_early && start(&ctxs[i]))
				return NULL;
			return &ctxs[i];
		}
	return NULL;
}

/* After a selected launch: stop, decode, evaluate the last range, record it. */
static void harvest(struct km_ctx *k)
{
	CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	sp.pRangeProfilerObject = k->obj;
	CUptiResult r = cuptiRangeProfilerStop(&sp);
	k->started = 0;
	if (r != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerStop", r);
		return;
	}
	CUpti_RangeProfiler_DecodeData_Params dd = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	dd.pRangeProfilerObject = k->obj;
	if ((r = cuptiRangeProfilerDecodeData(&dd)) != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerDecodeData", r);
		return;
	}
	CUpti_RangeProfiler_GetCounterDataInfo_Params di = {.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
	di.pCounterDataImage = k->cdi;
	di.counterDataImageSize = k->cdi_size;
	if ((r = cuptiRangeProfilerGetCounterDataInfo(&di)) != CUPTI_SUCCESS) {
		fail("cuptiRangeProfilerGetCounterDataInfo", r);
		return;
	}
	gs_log("kernel metrics: %zu ranges, %zu dropped, passes submitted %d", di.numTotalRanges,
	       dd.numOfRangeDropped, sp.isAllPassSubmitted);
	double values[KM_MAX_METRICS];
	for (size_t i = 0; i < nnames; i++)
		values[i] = NAN;
	if (di.numTotalRanges) {
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
		ev.pHostObject = k->host;
		ev.pCounterDataImage = k->cdi;
		ev.counterDataImageSize = k->cdi_size;
		ev.rangeIndex = di.numTotalRanges - 1; /* the selected launch is the last one */
		ev.ppMetricNames = names;
		ev.numMetrics = nnames;
		ev.pMetricValues = values;
		if ((r = cuptiProfilerHostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS) {
			fail("cuptiProfilerHostEvaluateToGpuValues", r);
			return;
		}
		if (sass_untrusted > 0)
			for (size_t i = 0; i < nnames; i++)
				if (strstr(names[i], "__sass_"))
					values[i] = NAN;
	} else if (!warned++) {
		note("kernel metrics: the range profiler returned no range for a selected launch "
		     "(try GPUSCOPE_KERNEL_METRICS_START=early)");
	}
	/* the record: header, values, name */
	size_t name_len = pending_name ? GS_MIN(strlen(pending_name), (size_t)40000) : 0;
	size_t len = sizeof(pending_rec) + nnames * sizeof(double) + name_len;
	uint8_t *buf = malloc(len);
	if (buf) {
		pending_rec.nvalues = (uint32_t)nnames;
		pending_rec.name_len = (uint32_t)name_len;
		pending_rec.passes = (uint32_t)k->passes;
		pending_rec.device = k->device;
		pending_rec.start_ns = now_ns();
		memcpy(buf, &pending_rec, sizeof(pending_rec));
		memcpy(buf + sizeof(pending_rec), values, nnames * sizeof(double));
		if (name_len)
			memcpy(buf + sizeof(pending_rec) + nnames * sizeof(double), pending_name, name_len);
		gs_nvtx_lock();
		if (gs_registry_add_to(ring, GS_REG_KMETRIC, 1, 0, (const char *)buf, len) != 0)
			gs_log("kernel metrics: the registry is full; a kernel's metrics are lost");
		gs_nvtx_unlock();
		free(buf);
	}
	cdi_init(k);
}

static void launch_shape(uint32_t cbid, const void *params, struct gs_kmetric_rec *rec)
{
	if (!params)
		return;
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
		const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)params)->config;
		if (c) {
			rec->grid[0] = c->gridDimX, rec->grid[1] = c->gridDimY, rec->grid[2] = c->gridDimZ;
			rec->block[0] = c->blockDimX, rec->block[1] = c->blockDimY, rec->block[2] = c->blockDimZ;
			rec->dynamic_smem = c->sharedMemBytes;
		}
		return;
	}
	/* cuLaunchKernel and cuLaunchCooperativeKernel share the leading fields */
	const cuLaunchKernel_params *p = params;
	rec->grid[0] = p->gridDimX, rec->grid[1] = p->gridDimY, rec->grid[2] = p->gridDimZ;
	rec->block[0] = p->blockDimX, rec->block[1] = p->blockDimY, rec->block[2] = p->blockDimZ;
	rec->dynamic_smem = p->sharedMemBytes;
}

void gs_km_callback(uint32_t cbid, const CUpti_CallbackData *cb)
{
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (depth++ || !__atomic_load_n(&on, __ATOMIC_ACQUIRE))
			return;
		pthread_mutex_lock(&lock);
		held = 1;
		if (!on)
			return;
		const char *name = cb->symbolName ? cb->symbolName : "";
		if (have_filter && regexec(&filter, name, 0, NULL, 0) != 0) {
			if (gs_cfg.kstart_early)
				find_ctx(cb->context, 1); /* set up (and started) from the first launch */
			return;
		}
		uint32_t ord = matched++;
		struct km_ctx *k = (gs_cfg.kstart_early || ord >= gs_cfg.kskip) ? find_ctx(cb->context, 1) : NULL;
		if (ord < gs_cfg.kskip || !k)
			return;
		memset(&pending_rec, 0, sizeof(pending_rec));
		pending_rec.correlation = cb->correlationId;
		pending_rec.ordinal = ord;
		launch_shape(cbid, cb->functionParams, &pending_rec);
		pending_name = name;
		if (!k->started && start(k))
			return;
		pending = k;
		return;
	}
	if (--depth || !held)
		return;
	if (pending && on) {
		harvest(pending);
		if (on && matched >= gs_cfg.kskip + gs_cfg.kcount) {
			disable_all();
			gs_log("kernel metrics: all %u selected launches measured", gs_cfg.kcount);
		} else if (on && gs_cfg.kstart_early) {
			start(pending);
		}
	}
	if (!on && !done_disabling) {
		done_disabling = 1;
		disable_all();
	}
	pending = NULL;
	pending_name = NULL;
	held = 0;
	pthread_mutex_unlock(&lock);
}

void gs_km_context_destroy(CUcontext ctx)
{
	pthread_mutex_lock(&lock);
	struct km_ctx *k = find_ctx(ctx, 0);
	if (k && k->state == 1)
		disable(k);
	pthread_mutex_unlock(&lock);
}

void gs_km_at_exit(void)
{
	if (!on)
		return;
	/* launches still pending when the program ends: say how many were measured */
	char msg[200];
	snprintf(msg, sizeof(msg), "kernel metrics: the program ended after %u matching launches "
		 "(skip %u, count %u)", matched, gs_cfg.kskip, gs_cfg.kcount);
	gs_log("%s", msg);
}

int gs_km_init(CUpti_SubscriberHandle sub, struct gs_ring_header *cupti_ring)
{
	ring = cupti_ring;
	const char *const *extra = gs_cfg.kmetrics == 2 ? set_full_extra : NULL;
	nnames = 0;
	for (size_t i = 0; set_default[i] && nnames < KM_MAX_METRICS; i++)
		names[nnames++] = set_default[i];
	for (size_t i = 0; extra && extra[i] && nnames < KM_MAX_METRICS; i++)
		names[nnames++] = extra[i];
	if (gs_cfg.kfilter[0]) {
		int rc = regcomp(&filter, gs_cfg.kfilter, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char err[200], msg[1000];
			regerror(rc, &filter, err, sizeof(err));
			snprintf(msg, sizeof(msg), "kernel metrics: bad --kernel-filter '%s' (%s): no "
				 "kernel metrics", gs_cfg.kfilter, err);
			note(msg);
			return -1;
		}
		have_filter = 1;
	}
	/* the set's names, once */
	char text[KM_MAX_METRICS * 96];
	size_t len = 0;
	for (size_t i = 0; i < nnames; i++) {
		size_t n = strlen(names[i]) + 1;
		if (len + n > sizeof(text))
			break;
		memcpy(text + len, names[i], n);
		len += n;
	}
	gs_nvtx_lock();
	gs_registry_add_to(ring, GS_REG_KMETRIC_SET, 1, 0, text, len);
	gs_nvtx_unlock();
	for (size_t i = 0; i < GS_ARRAY_SIZE(launch_ids); i++)
		if (cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, launch_ids[i]) != CUPTI_SUCCESS)
			gs_log("kernel metrics: CUPTI refused the callback of launch id %u", launch_ids[i]);
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	on = 1;
	gs_log("kernel metrics: %zu metrics, filter '%s', skip %u, count %u", nnames, gs_cfg.kfilter,
	       gs_cfg.kskip, gs_cfg.kcount);
	return 0;
}
