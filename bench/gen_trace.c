/* gen_trace.c: writes a synthetic native trace (.gst) of exactly N events, for the load
 * benchmark (bench/load.sh) and its own test (tests/cases/scale.sh).
 *
 * Usage: gen_trace FILE [N=50000000]
 *        gen_trace -r FILE   read every chunk of FILE (checksum, decompress) and nothing
 *                            else; prints "chunks C raw_bytes B seconds S": the floor under
 *                            any load of FILE
 *        gen_trace -t IN OUT   copy the trace IN to OUT with its CUPTI_RAW chunks transcoded
 *                            as `gpuscope profile` writes them now (CUDA chunks): for tests
 *        gen_trace -l FILE   a hand-sized DataLoader-bound trace with host data, for
 *                            tests/cases/analyze.sh (see loader_trace below)
 *        gen_trace -k R FILE rank R (0 or 1) of a two-rank job with NCCL kernels, for
 *                            tests/cases/ranks.sh (see rank_trace below)
 *
 * The trace is what `gpuscope profile` would write for a PyTorch-like training loop in one
 * process with two threads, laid out as the assembler lays it out (src/capture/assemble.c,
 * whose chunk writers it shares: gs_evbuild_*, gs_writer_chunk_head, gs_writer_strings):
 * the record ring's STRINGS, EVENTS, THREAD and PROCESS chunks first, then the CUPTI ring's
 * CUPTI_NAMES chunk and its 1 MiB CUPTI buffers of real CUPTI records (CUpti_ActivityDevice5,
 * CUpti_ActivityAPI, CUpti_ActivityKernel10 of the toolkit's <cupti_activity.h>, 8-byte
 * aligned, in completion order) through the assembler's transcoder (src/capture/transcode.c):
 * a CUDA chunk of each buffer's kernels and API calls, and the first buffer's device record in
 * a CUPTI_RAW chunk; then END.
 *
 *   thread 1 (main, tid = pid): per step k a push/pop range "ProfilerStep#k" (level 0)
 *     enclosing FWD forward ops (level 1); the step ends when the backward pass and the GPU
 *     are done.
 *   thread 2 (autograd, tid = pid + 1): BWD backward ops (level 0) after the forward ops.
 *   every op: one range "aten::..." or "autograd::engine::evaluate_function: ...", one
 *     cudaLaunchKernel runtime call inside it, one kernel (correlation ids match; the ids
 *     of calls not recorded are skipped, as CUPTI's are); every 4th backward kernel runs on
 *     stream 13, the others on stream 7. 200 kernel names (100 forward, 100 backward),
 *     50 launch configurations: the i-th forward op launches kernel type i mod 100, the i-th
 *     backward op type 100 + i mod 100.
 *
 * So a full step is 1 + 3 * (FWD + BWD) = 301 events. N = 301 F + R: F full steps, then
 * (R > 0) one step range, q = (R - 1) / 3 ops (forward first) and (R - 1) % 3 ranges
 * "aten::empty" on the main thread that launch nothing:
 *   kernels = api calls = 100 F + q;  ranges = 101 F + (R ? 1 + q + (R - 1) % 3 : 0)
 *   kernels launched inside a ProfilerStep range = 40 F + min(q, 40)
 * stdout: "events N kernels K api_calls A ranges R steps S forward_kernels F". Deterministic:
 * the same N writes the same bytes. */
#include <cupti_activity.h>
#include <cupti_runtime_cbid.h>
#include <cupti_version.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/capture/transcode.h"
#include "../src/format/events.h"
#include "../src/format/file.h"
#include "../src/format/gst.h"
#include "../src/format/host.h"
#include "../src/format/tlv.h"
#include "../src/util/alloc.h"
#include "../src/util/intern.h"

#define FWD 40
#define BWD 60
#define STEP_EVENTS (1 + 3 * (FWD + BWD))
#define KTYPES 200
#define SHAPES 50
#define PID 4242
#define TID_MAIN PID
#define TID_BWD (PID + 1)
#define FLUSH_BYTES (128u << 10)     /* as the assembler flushes a thread's EVENTS */
#define CUPTI_BUF (1u << 20)         /* as the collector's CUPTI ring chunks */
#define NAME_PTR0 0x7f3a5c000000ull  /* where the kernel names "live" in the process */
#define DEVICE_NAME_PTR 0x7f3a5bff0000ull
#define T0 1000000000000ull          /* CLOCK_MONOTONIC at the session start: 1000 s */

static const char *const fwd_ops[] = {
	"aten::linear", "aten::addmm", "aten::matmul", "aten::mm", "aten::layer_norm",
	"aten::native_layer_norm", "aten::gelu", "aten::softmax", "aten::_softmax",
	"aten::dropout", "aten::add", "aten::mul", "aten::embedding", "aten::index_select",
	"aten::copy_", "aten::to", "aten::scaled_dot_product_attention",
	"aten::_flash_attention_forward", "aten::cat", "aten::sum",
};
static const char *const bwd_ops[] = {
	"AddmmBackward0", "MmBackward0", "NativeLayerNormBackward0", "GeluBackward0",
	"SoftmaxBackward0", "NativeDropoutBackward0", "AddBackward0", "MulBackward0",
	"EmbeddingBackward0", "ScaledDotProductFlashAttentionBackward0",
};
/* 10 mangled template kernels of at::native and 10 library kernels, 10 variants each. */
static const char *const mangled_bases[] = {
	"vectorized_elementwise_kernel", "unrolled_elementwise_kernel", "reduce_kernel",
	"softmax_warp_forward", "softmax_warp_backward", "layer_norm_kernel",
	"layer_norm_grad_input_kernel", "index_elementwise_kernel", "indexSelectLargeIndex",
	"embedding_backward_feature_kernel",
};
static const char *const plain_bases[] = {
	"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
	"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
	"cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_align8",
	"flash_fwd_kernel_hdim128_bf16_causal",
	"flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel_hdim128_bf16",
	"ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
	"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5",
	"cublasLt_splitKreduce_kernel_bf16",
	"triton_poi_fused_add_mul_native_layer_norm",
};

struct ev_out { /* one thread's EVENTS being built */
	struct gs_evbuild b;
	int32_t tid;
	uint64_t total, first, last;
};

struct gen {
	struct gs_writer w;
	struct gs_intern strings;
	size_t strings_written;
	int pass; /* 0: NVTX ranges (the record ring), 1: CUPTI records (the CUPTI ring) */
	uint64_t rng;
	uint64_t budget; /* events still to generate */
	/* the timeline */
	uint64_t t_main, t_bwd, stream_free[2], last_end;
	uint32_t corr;
	int64_t grid_id;
	/* pass 0 */
	struct ev_out th[2];
	uint32_t op_sid[KTYPES], empty_sid, kname_sid[KTYPES], device_sid;
	/* pass 1 */
	uint8_t *buf;
	size_t used;
	uint64_t cupti_chunks;
	struct pending { uint64_t end; CUpti_ActivityKernel10 k; } *q[2];
	struct gs_transcoder cuda; /* each buffer becomes a CUDA chunk, as the assembler writes */
	size_t qhead[2], qn[2], qcap;
	/* counts */
	uint64_t kernels, apis, ranges, steps, fwd_kernels;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static uint32_t sid(struct gen *g, const char *s)
{
	return gs_intern(&g->strings, s, strlen(s));
}

static void flush_strings(struct gen *g)
{
	gs_writer_strings(&g->w, &g->strings, g->strings_written);
	g->strings_written = g->strings.count;
}

/* --- pass 0: ranges --------------------------------------------------------------------- */

static void range(struct gen *g, int thread, uint32_t name, uint64_t start, uint64_t end,
		  unsigned level)
{
	struct ev_out *o = &g->th[thread];
	g->ranges++;
	if (g->pass != 0)
		return;
	const struct gs_event e = {.kind = GS_EV_RANGE, .start = start, .dur = end - start,
				   .name = name, .last = level};
	gs_evbuild_add(&o->b, &e);
	if (!o->total || start < o->first)
		o->first = start;
	if (end > o->last)
		o->last = end;
	o->total++;
	if (o->b.data.len >= FLUSH_BYTES) {
		flush_strings(g);
		gs_evbuild_flush(&o->b, &g->w, PID, (uint64_t)o->tid);
	}
}

/* --- pass 1: CUPTI records -------------------------------------------------------------- */

static void cupti_flush(struct gen *g)
{
	if (!g->used)
		return;
	gs_transcoder_buffer(&g->cuda, &g->w, PID, CUPTI_API_VERSION, g->buf, g->used);
	g->cupti_chunks++;
	g->used = 0;
}

static void cupti_put(struct gen *g, const void *rec, size_t size)
{
	size_t need = (size + 7) & ~(size_t)7;
	if (g->used + need > CUPTI_BUF)
		cupti_flush(g);
	memcpy(g->buf + g->used, rec, size);
	memset(g->buf + g->used + size, 0, need - size);
	g->used += need;
}

/* Kernels complete in end order across the two streams; their records are written then. */
static void complete_kernels(struct gen *g, uint64_t upto)
{
	for (;;) {
		int s = -1;
		for (int i = 0; i < 2; i++)
			if (g->qn[i] && (s < 0 || g->q[i][g->qhead[i]].end < g->q[s][g->qhead[s]].end))
				s = i;
		if (s < 0 || g->q[s][g->qhead[s]].end > upto)
			return;
		cupti_put(g, &g->q[s][g->qhead[s]].k, sizeof(CUpti_ActivityKernel10));
		g->qhead[s] = (g->qhead[s] + 1) % g->qcap;
		g->qn[s]--;
	}
}

/* One op on a thread: its range, the launch call inside it, the kernel it launches. */
static uint64_t op(struct gen *g, int thread, uint64_t t, unsigned ktype, unsigned level,
		   int stream)
{
	uint64_t api_start = t + 800 + rnd(g) % 400;
	uint64_t api_end = api_start + 2500 + rnd(g) % 2000;
	uint64_t end = api_end + 500 + rnd(g) % 500;
	g->corr += 1 + (uint32_t)(rnd(g) % 3); /* calls CUPTI did not record take ids too */
	uint64_t ready = api_start + 3000 + rnd(g) % 1000;
	uint64_t kstart = g->stream_free[stream] + 600 + rnd(g) % 400;
	if (kstart < ready)
		kstart = ready;
	uint64_t base = 1500 + (uint64_t)(ktype * 2654435761u % 30000u);
	uint64_t kend = kstart + base - base / 10 + rnd(g) % (base / 5 + 1);
	g->stream_free[stream] = kend;
	if (kend > g->last_end)
		g->last_end = kend;
	g->kernels++;
	g->apis++;
	range(g, thread, g->op_sid[ktype], t, end, level);
	if (g->pass == 1) {
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
		a.start = api_start;
		a.end = api_end;
		a.processId = PID;
		a.threadId = (uint32_t)(thread ? TID_BWD : TID_MAIN);
		a.correlationId = g->corr;
		a.returnValue = 0;
		complete_kernels(g, api_end);
		cupti_put(g, &a, sizeof(a));

		unsigned shape = ktype % SHAPES;
		struct pending *p = &g->q[stream][(g->qhead[stream] + g->qn[stream]) % g->qcap];
		if (g->qn[stream] == g->qcap) { /* cannot happen: a step syncs the GPU */
			fprintf(stderr, "gen_trace: kernel queue overflow\n");
			exit(1);
		}
		g->qn[stream]++;
		CUpti_ActivityKernel10 *k = &p->k;
		memset(k, 0, sizeof(*k));
		k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k->cacheConfig.both = 0x11;
		k->sharedMemoryConfig = 1;
		k->registersPerThread = (uint16_t)(24 + 8 * (shape % 16));
		k->partitionedGlobalCacheRequested = CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_UNKNOWN;
		k->partitionedGlobalCacheExecuted = CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_UNKNOWN;
		k->start = kstart;
		k->end = kend;
		k->completed = kend;
		k->deviceId = 0;
		k->contextId = 1;
		k->streamId = stream ? 13 : 7;
		k->gridX = (int32_t)(1u << (shape % 12)) + (int32_t)(shape / 12);
		k->gridY = 1 + (int32_t)(shape % 3);
		k->gridZ = 1 + (int32_t)(shape % 2) * 15;
		k->blockX = 64 << (shape % 4);
		k->blockY = 1;
		k->blockZ = 1;
		k->staticSharedMemory = (int32_t)((shape % 5) * 4096);
		k->dynamicSharedMemory = (int32_t)((shape % 7) * 8192);
		k->localMemoryPerThread = 0;
		k->localMemoryTotal = 85458944;
		k->correlationId = g->corr;
		k->gridId = ++g->grid_id;
		k->name = (const char *)(uintptr_t)(NAME_PTR0 + (uint64_t)ktype * 0x140);
		k->launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
		k->sharedMemoryExecuted = 233472;
		k->shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_DEFAULT;
		k->channelID = 3 + (uint32_t)stream;
		k->channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
		k->clusterX = k->clusterY = k->clusterZ = 1;
		k->localMemoryTotal_v2 = 85458944;
		p->end = kend;
	}
	return end + 300 + rnd(g) % 1500;
}

/* The whole loop, within the event budget. */
static void run(struct gen *g)
{
	g->rng = 0x9E3779B97F4A7C15ull;
	g->t_main = T0 + 50000000; /* 50 ms of start-up */
	g->stream_free[0] = g->stream_free[1] = g->last_end = g->t_main;
	g->corr = 1000;
	g->grid_id = 0;
	g->kernels = g->apis = g->ranges = g->steps = g->fwd_kernels = 0;
	uint64_t left = g->budget;
	unsigned fwd_index = 0, bwd_index = 0;
	char name[48];
	while (left) {
		uint64_t step_start = g->t_main;
		uint64_t step = g->steps++;
		left--; /* the step range, written when the step ends */
		g->t_main += 5000 + rnd(g) % 5000;
		for (unsigned i = 0; i < FWD && left >= 3; i++, left -= 3) {
			g->t_main = op(g, 0, g->t_main, fwd_index++ % 100, 1, 0);
			g->fwd_kernels++;
		}
		g->t_bwd = g->t_main + 2000;
		for (unsigned i = 0; i < BWD && left >= 3; i++, left -= 3)
			g->t_bwd = op(g, 1, g->t_bwd, 100 + bwd_index++ % 100, 0, (i % 4) == 3);
		uint64_t t = g->t_bwd > g->t_main ? g->t_bwd : g->t_main;
		for (; left && left < 3; left--) { /* the last step's odd events */
			uint64_t e = t + 1000 + rnd(g) % 1000;
			range(g, 0, g->empty_sid, t, e, 1);
			t = e + 200;
		}
		if (g->last_end > t) /* the step waits for the GPU (loss.item()) */
			t = g->last_end;
		t += 10000 + rnd(g) % 10000;
		snprintf(name, sizeof(name), "ProfilerStep#%llu", (unsigned long long)step);
		uint32_t step_sid = g->pass == 0 ? sid(g, name) : 0;
		range(g, 0, step_sid, step_start, t, 0);
		if (g->pass == 1)
			complete_kernels(g, UINT64_MAX);
		g->t_main = t + 2000 + rnd(g) % 3000;
	}
}

static void session(struct gen *g)
{
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	static const char cmd[] = "python3\0train.py\0--steps\0many";
	gs_tlv_str(&m, GS_SK_VERSION, GS_VERSION, strlen(GS_VERSION));
	gs_tlv_str(&m, GS_SK_COMMAND, cmd, sizeof(cmd));
	gs_tlv_str(&m, GS_SK_HOST, "synthetic", 9);
	gs_tlv_u64(&m, GS_SK_START_REAL, 1796233140000000000ull);
	gs_tlv_u64(&m, GS_SK_START_MONO, T0);
	gs_tlv_str(&m, GS_SK_TRACE, "cuda,nvtx", 9);
	gs_tlv_str(&m, GS_SK_CLOCK, "tsc", 3);
	gs_writer_chunk(&g->w, GS_CHUNK_SESSION, m.buf, m.len, 0);
	gs_strbuf_release(&m);
}

static void process(struct gen *g, int records_ring, uint64_t end)
{
	static const char cmd[] = "python3\0train.py\0--steps\0many";
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	gs_tlv_u64(&m, GS_PK_PID, PID);
	gs_tlv_u64(&m, GS_PK_PPID, PID - 2);
	gs_tlv_u64(&m, GS_PK_IMAGE, 0);
	gs_tlv_str(&m, GS_PK_CMDLINE, cmd, sizeof(cmd));
	gs_tlv_str(&m, GS_PK_EXE, "/usr/bin/python3.12", 19);
	gs_tlv_u64(&m, GS_PK_START, T0 + 1000000);
	if (records_ring) {
		gs_tlv_u64(&m, GS_PK_END, end);
		gs_tlv_u64(&m, GS_PK_CLEAN, 1);
		gs_tlv_u64(&m, GS_PK_EXIT, 0);
	}
	gs_writer_chunk(&g->w, GS_CHUNK_PROCESS, m.buf, m.len, 0);
	gs_strbuf_release(&m);
}

static void thread_chunk(struct gen *g, const struct ev_out *o, const char *name)
{
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	gs_tlv_u64(&m, GS_TK_PID, PID);
	gs_tlv_u64(&m, GS_TK_TID, (uint64_t)o->tid);
	gs_tlv_str(&m, GS_TK_NAME, name, strlen(name));
	gs_tlv_u64(&m, GS_TK_EXITED, 1);
	gs_tlv_u64(&m, GS_TK_FIRST, o->first);
	gs_tlv_u64(&m, GS_TK_LAST, o->last);
	gs_tlv_u64(&m, GS_TK_EVENTS, o->total);
	gs_writer_chunk(&g->w, GS_CHUNK_THREAD, m.buf, m.len, 0);
	gs_strbuf_release(&m);
}

static void kernel_name(char *out, size_t cap, unsigned t)
{
	unsigned base = (t / 10) % 20, v = t % 10;
	if (base < 10) /* at::native::<base><v + 1>() */
		snprintf(out, cap, "_ZN2at6native%zu%sILi%uEEEvv", strlen(mangled_bases[base]),
			 mangled_bases[base], v + 1);
	else
		snprintf(out, cap, "%s_v%u", plain_bases[base - 10], v);
}

static int read_only(const char *path)
{
	struct gs_reader r;
	struct gs_err err;
	struct gs_chunk c;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (gs_reader_open(&r, path, &err) < 0) {
		fprintf(stderr, "gen_trace: %s\n", err.msg);
		return 1;
	}
	uint64_t n = 0, raw = 0;
	while (gs_reader_next(&r, &c) > 0) {
		n++;
		raw += c.len;
	}
	int bad = r.damaged;
	gs_reader_close(&r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("chunks %llu raw_bytes %llu seconds %.3f\n", (unsigned long long)n,
	       (unsigned long long)raw, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return bad;
}

/* --- -l: a DataLoader-bound loop with host data ------------------------------------------ */

/* Three 100 ms steps (ProfilerStep#1..3) of the main thread (pid PID, tid PID), each, in ms
 * from the step's start (tests/unit/test_analyze.c's idle_model, written through the real
 * format writers: EVENTS, CUDA, OSRT, SAMPLES and PERFMAP chunks):
 *   [0, 30)   a kernel (its launch call [0, 10 us))
 *   samples of the main thread (1 ms period, a sample at t stands for [t - 1 ms, t)):
 *     31..35 in train_step, 36..40 in DataLoader's _next_data, 91..93 in memcpy, 98 in train_step
 *   [40, 90)  the main thread in poll (an OSRT record)
 *   a worker process (pid PID + 58): samples 41..80 in Images.__getitem__ > decode under
 *   torch/utils/data's fetch, 81..90 in ForkingPickler.dumps under _worker_loop.
 * The functions are named by the processes' perf maps (0x100 bytes each from LDR_CODE). */
#define LDR_WORKER (PID + 58)
#define LDR_CODE 0x7f0000100000ull
#define LDR_MS 1000000ull

static const char *const ldr_funcs[] = {
	"py::<module>:/home/u/train.py", "py::train_step:/home/u/train.py", "_PyEval_EvalFrameDefault",
	"py::_MultiProcessingDataLoaderIter._next_data:/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py",
	"__memcpy_avx_unaligned", "PyArray_Resize", "py::decode:/home/u/train.py",
	"py::Images.__getitem__:/home/u/train.py",
	"py::_MapDatasetFetcher.fetch:/usr/lib/python3/dist-packages/torch/utils/data/_utils/fetch.py",
	"py::_worker_loop:/usr/lib/python3/dist-packages/torch/utils/data/_utils/worker.py",
	"_pickle_dumps", "py::ForkingPickler.dumps:/usr/lib/python3.12/multiprocessing/reduction.py",
};
enum { F_MOD, F_STEP, F_EVAL, F_NEXT, F_MEMCPY, F_NP, F_DECODE, F_GET, F_FETCH, F_LOOP, F_PICKLE,
       F_DUMPS };

static uint64_t ldr_addr(int f)
{
	return LDR_CODE + (uint64_t)f * 0x100 + 0x10;
}

/* samples at from, from + 1 ms, ... < to */
static void ldr_samples(struct gs_hostbuild *b, uint64_t from, uint64_t to, const int *fr, uint32_t n)
{
	uint64_t a[8];
	for (uint32_t i = 0; i < n; i++)
		a[i] = ldr_addr(fr[i]) + (i ? 1 : 0); /* callers: return addresses */
	for (uint64_t t = from; t < to; t += LDR_MS)
		gs_sample_add(b, t, 1, a, n);
}

/* The small traces' (-l, -k) start: the SESSION chunk (with the rank when rank >= 0, of
 * world ranks), then n steps ProfilerStep#1..n of dur ns each as NVTX ranges of the main
 * thread, its THREAD and PROCESS chunks. Returns -1 when the file cannot be opened. */
static int small_begin(struct gen *g, const char *path, const char *trace, int host, int rank,
		       int world, int n, uint64_t dur)
{
	struct gs_err err;
	if (gs_writer_open(&g->w, path, &err) < 0) {
		fprintf(stderr, "gen_trace: %s\n", err.msg);
		return -1;
	}
	gs_intern_init(&g->strings);
	sid(g, "");
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	static const char cmd[] = "python3\0train.py";
	gs_tlv_str(&m, GS_SK_VERSION, GS_VERSION, strlen(GS_VERSION));
	gs_tlv_str(&m, GS_SK_COMMAND, cmd, sizeof(cmd));
	gs_tlv_str(&m, GS_SK_HOST, "synthetic", 9);
	gs_tlv_u64(&m, GS_SK_START_REAL, 1796233140000000000ull);
	gs_tlv_u64(&m, GS_SK_START_MONO, T0);
	gs_tlv_str(&m, GS_SK_TRACE, trace, strlen(trace));
	gs_tlv_str(&m, GS_SK_CLOCK, "tsc", 3);
	if (host) {
		gs_tlv_u64(&m, GS_SK_SAMPLE_PERIOD, LDR_MS);
		gs_tlv_u64(&m, GS_SK_OSRT_THRESHOLD, 1000);
	}
	if (rank >= 0) {
		gs_tlv_u64(&m, GS_SK_RANK, (uint64_t)rank);
		gs_tlv_u64(&m, GS_SK_LOCAL_RANK, (uint64_t)rank);
		gs_tlv_u64(&m, GS_SK_WORLD_SIZE, (uint64_t)world);
	}
	gs_writer_chunk(&g->w, GS_CHUNK_SESSION, m.buf, m.len, 0);
	gs_strbuf_release(&m);

	struct ev_out *o = &g->th[0];
	o->tid = TID_MAIN;
	gs_evbuild_init(&o->b);
	char name[32];
	for (int s = 0; s < n; s++) {
		snprintf(name, sizeof(name), "ProfilerStep#%d", s + 1);
		uint64_t t = T0 + (uint64_t)s * dur;
		const struct gs_event e = {.kind = GS_EV_RANGE, .start = t, .dur = dur,
					   .name = sid(g, name)};
		gs_evbuild_add(&o->b, &e);
	}
	o->first = T0;
	o->last = T0 + (uint64_t)n * dur;
	o->total = (uint64_t)n;
	flush_strings(g);
	gs_evbuild_flush(&o->b, &g->w, PID, TID_MAIN);
	thread_chunk(g, o, "python3");
	process(g, 1, T0 + (uint64_t)n * dur);
	return 0;
}

/* The CUPTI ring's start: the names of kernel i at NAME_PTR0 + i * 0x140, the device (an H200
 * of id 0) in the first buffer. */
static void small_cupti(struct gen *g, const char *const *knames, size_t n)
{
	struct gs_strbuf names;
	gs_strbuf_init(&names);
	for (size_t i = 0; i < n; i++) {
		gs_put_varint(&names, NAME_PTR0 + i * 0x140);
		gs_put_varint(&names, sid(g, knames[i]));
	}
	gs_put_varint(&names, DEVICE_NAME_PTR);
	gs_put_varint(&names, sid(g, "NVIDIA H200"));
	flush_strings(g);
	const uint64_t head[] = {PID, 2};
	gs_writer_chunk_head(&g->w, GS_CHUNK_CUPTI_NAMES, head, 2, names.buf, names.len, 1);
	gs_transcoder_init(&g->cuda);
	struct gs_strbuf payload;
	gs_strbuf_init(&payload);
	gs_put_varint(&payload, head[0]);
	gs_put_varint(&payload, head[1]);
	gs_strbuf_add(&payload, names.buf, names.len);
	gs_transcoder_names(&g->cuda, (const uint8_t *)payload.buf, payload.len);
	gs_strbuf_release(&payload);
	gs_strbuf_release(&names);
	g->buf = gs_xmalloc(CUPTI_BUF);
	CUpti_ActivityDevice5 d;
	memset(&d, 0, sizeof(d));
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.computeCapabilityMajor = 9;
	d.numMultiprocessors = 132;
	d.name = (const char *)(uintptr_t)DEVICE_NAME_PTR;
	cupti_put(g, &d, sizeof(d));
}

/* A cudaLaunchKernel call [start, start + dur) and its kernel (name i of small_cupti) on
 * stream, [ks, ke), grid id: the correlation id. */
static void small_launch(struct gen *g, uint64_t start, uint64_t dur, uint32_t corr, uint32_t name,
			 uint32_t stream, uint64_t ks, uint64_t ke)
{
	CUpti_ActivityAPI api;
	memset(&api, 0, sizeof(api));
	api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	api.start = start;
	api.end = start + dur;
	api.processId = PID;
	api.threadId = TID_MAIN;
	api.correlationId = corr;
	cupti_put(g, &api, sizeof(api));
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = ks;
	k.end = ke;
	k.completed = k.end;
	k.contextId = 1;
	k.streamId = stream;
	k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
	k.correlationId = corr;
	k.gridId = corr;
	k.name = (const char *)(uintptr_t)(NAME_PTR0 + name * 0x140);
	k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
	cupti_put(g, &k, sizeof(k));
}

/* The CUPTI ring's PROCESS chunk, END, and the file closed; everything released. */
static int small_end(struct gen *g, const char *path, uint64_t end, uint64_t events)
{
	cupti_flush(g);
	process(g, 0, 0);
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	gs_tlv_u64(&m, GS_EK_END_REAL, 1796233140000000000ull + (end - T0));
	gs_tlv_u64(&m, GS_EK_END_MONO, end);
	gs_tlv_u64(&m, GS_EK_EVENTS, events);
	gs_tlv_u64(&m, GS_EK_EXIT, 0);
	gs_writer_chunk(&g->w, GS_CHUNK_END, m.buf, m.len, 0);
	gs_strbuf_release(&m);
	struct gs_err err;
	int rc = gs_writer_close(&g->w, path, &err);
	gs_evbuild_release(&g->th[0].b);
	gs_intern_release(&g->strings);
	gs_transcoder_release(&g->cuda);
	free(g->buf);
	if (rc < 0) {
		fprintf(stderr, "gen_trace: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static int loader_trace(const char *path)
{
	static struct gen g;
	if (small_begin(&g, path, "cuda,nvtx,osrt", 1, -1, 0, 3, 100 * LDR_MS) < 0)
		return 1;
	struct gs_strbuf m;
	gs_strbuf_init(&m);

	/* host data: the main thread's poll calls and samples, the worker's samples */
	struct gs_hostbuild os, ms, ws;
	gs_hostbuild_init(&os);
	gs_hostbuild_init(&ms);
	gs_hostbuild_init(&ws);
	static const int s_py[] = {F_EVAL, F_STEP, F_MOD}, s_dl[] = {F_EVAL, F_NEXT, F_MOD},
			 s_nat[] = {F_MEMCPY}, s_get[] = {F_NP, F_DECODE, F_GET, F_FETCH, F_LOOP},
			 s_put[] = {F_PICKLE, F_DUMPS, F_LOOP};
	for (int s = 0; s < 3; s++) {
		uint64_t t = T0 + (uint64_t)s * 100 * LDR_MS;
		gs_osrt_add(&os, GS_OSRT_POLL, t + 40 * LDR_MS, 50 * LDR_MS);
		ldr_samples(&ms, t + 31 * LDR_MS, t + 36 * LDR_MS, s_py, 3);
		ldr_samples(&ms, t + 36 * LDR_MS, t + 41 * LDR_MS, s_dl, 3);
		ldr_samples(&ms, t + 91 * LDR_MS, t + 94 * LDR_MS, s_nat, 1);
		ldr_samples(&ms, t + 98 * LDR_MS, t + 99 * LDR_MS, s_py, 3);
		ldr_samples(&ws, t + 41 * LDR_MS, t + 81 * LDR_MS, s_get, 5);
		ldr_samples(&ws, t + 81 * LDR_MS, t + 91 * LDR_MS, s_put, 3);
	}
	gs_hostbuild_flush(&os, &g.w, GS_CHUNK_OSRT, PID, TID_MAIN);
	gs_hostbuild_flush(&ms, &g.w, GS_CHUNK_SAMPLES, PID, TID_MAIN);
	gs_hostbuild_flush(&ws, &g.w, GS_CHUNK_SAMPLES, LDR_WORKER, LDR_WORKER);
	gs_hostbuild_release(&os);
	gs_hostbuild_release(&ms);
	gs_hostbuild_release(&ws);
	for (int pid = 0; pid < 2; pid++) { /* both processes' perf maps name every function */
		gs_strbuf_reset(&m);
		gs_put_varint(&m, pid ? LDR_WORKER : PID);
		for (size_t f = 0; f < GS_ARRAY_SIZE(ldr_funcs); f++)
			gs_strbuf_addf(&m, "%llx 100 %s\n", (unsigned long long)(LDR_CODE + f * 0x100),
				       ldr_funcs[f]);
		gs_writer_chunk(&g.w, GS_CHUNK_PERFMAP, m.buf, m.len, 1);
	}

	/* the CUPTI ring: a kernel name, the device, then a launch and its kernel per step */
	static const char *const kname[] = {"vectorized_elementwise_kernel"};
	small_cupti(&g, kname, 1);
	for (int s = 0; s < 3; s++) {
		uint64_t t = T0 + (uint64_t)s * 100 * LDR_MS;
		small_launch(&g, t, 10000, 100 + (uint32_t)s, 0, 7, t, t + 30 * LDR_MS);
	}
	gs_strbuf_release(&m);
	return small_end(&g, path, T0 + 300 * LDR_MS, 3);
}

/* --- -k: one rank of a data-parallel job ------------------------------------------------- */

/* Rank r of 2 (tests/cases/ranks.sh), two steps ProfilerStep#1..2 of the main thread, each
 * with, in us from the step's start, two launches [0, 5) and [5, 10), a GEMM on stream 7 and
 * an NCCL all-reduce on stream 20, named as CUPTI reports them (mangled):
 *   rank 0: steps of 20 ms; GEMM [10, 8010), all-reduce [4010, 14010): 40% overlapped
 *   rank 1: steps of 24 ms; GEMM [10, 12010), all-reduce [6010, 16010): 60% overlapped
 * the numbers of the PyTorch profiler traces of tests/data/kineto/ranks. */
static int rank_trace(const char *path, int rank)
{
	static struct gen g;
	const uint64_t us = 1000, step = (rank ? 24000 : 20000) * us;
	const uint64_t gemm_end = (rank ? 12010 : 8010) * us, comm_start = (rank ? 6010 : 4010) * us;
	if (small_begin(&g, path, "cuda,nvtx", 0, rank, 2, 2, step) < 0)
		return 1;
	static const char *const knames[] = {
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn",
		"_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LLP24ncclDevKernelArgsStorageILm4096EE",
	};
	small_cupti(&g, knames, 2);
	for (int s = 0; s < 2; s++) {
		uint64_t t = T0 + (uint64_t)s * step;
		small_launch(&g, t, 5 * us, 100 + 2 * (uint32_t)s, 0, 7, t + 10 * us, t + gemm_end);
		small_launch(&g, t + 5 * us, 5 * us, 101 + 2 * (uint32_t)s, 1, 20, t + comm_start,
			     t + comm_start + 10000 * us);
	}
	return small_end(&g, path, T0 + 2 * step, 2);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-l"))
		return loader_trace(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "-k") && (!strcmp(argv[2], "0") || !strcmp(argv[2], "1")))
		return rank_trace(argv[3], argv[2][0] - '0');
	if (argc == 3 && !strcmp(argv[1], "-r"))
		return read_only(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "-t")) {
		struct gs_err err;
		if (gs_transcode_file(argv[2], argv[3], &err) < 0) {
			fprintf(stderr, "gen_trace: %s\n", err.msg);
			return 1;
		}
		return 0;
	}
	if (argc < 2 || argc > 3 || argv[1][0] == '-') { /* an option it does not know is no file name */
		fprintf(stderr, "usage: gen_trace FILE [N=50000000] | gen_trace -r FILE | gen_trace -t IN OUT"
				" | gen_trace -l FILE | gen_trace -k 0|1 FILE\n");
		return 2;
	}
	char *endp;
	uint64_t n = argc > 2 ? strtoull(argv[2], &endp, 10) : 50000000u;
	if (argc > 2 && (*endp || !n)) {
		fprintf(stderr, "gen_trace: N must be a positive number, not '%s'\n", argv[2]);
		return 2;
	}
	static struct gen g;
	struct gs_err err;
	if (gs_writer_open(&g.w, argv[1], &err) < 0) {
		fprintf(stderr, "gen_trace: %s\n", err.msg);
		return 1;
	}
	gs_intern_init(&g.strings);
	sid(&g, ""); /* id 0: no name */
	g.budget = n;
	char name[256];
	for (unsigned t = 0; t < KTYPES; t++) {
		char op_name[128];
		if (t < 100)
			snprintf(op_name, sizeof(op_name), "%s", fwd_ops[t % GS_ARRAY_SIZE(fwd_ops)]);
		else
			snprintf(op_name, sizeof(op_name), "autograd::engine::evaluate_function: %s",
				 bwd_ops[t % GS_ARRAY_SIZE(bwd_ops)]);
		g.op_sid[t] = sid(&g, op_name);
	}
	g.empty_sid = sid(&g, "aten::empty");

	/* pass 0: the record ring */
	session(&g);
	g.th[0].tid = TID_MAIN;
	g.th[1].tid = TID_BWD;
	gs_evbuild_init(&g.th[0].b);
	gs_evbuild_init(&g.th[1].b);
	g.pass = 0;
	run(&g);
	flush_strings(&g);
	for (int i = 0; i < 2; i++)
		gs_evbuild_flush(&g.th[i].b, &g.w, PID, (uint64_t)g.th[i].tid);
	uint64_t end = g.t_main;
	thread_chunk(&g, &g.th[0], "python3");
	thread_chunk(&g, &g.th[1], "pt_autograd_0");
	process(&g, 1, end);

	/* pass 1: the CUPTI ring: names, then its buffers */
	struct gs_strbuf names;
	gs_strbuf_init(&names);
	for (unsigned t = 0; t < KTYPES; t++) {
		kernel_name(name, sizeof(name), t);
		gs_put_varint(&names, NAME_PTR0 + (uint64_t)t * 0x140);
		gs_put_varint(&names, sid(&g, name));
	}
	gs_put_varint(&names, DEVICE_NAME_PTR);
	gs_put_varint(&names, sid(&g, "NVIDIA H200"));
	flush_strings(&g);
	const uint64_t head[] = {PID, KTYPES + 1};
	gs_writer_chunk_head(&g.w, GS_CHUNK_CUPTI_NAMES, head, 2, names.buf, names.len, 1);
	gs_transcoder_init(&g.cuda);
	struct gs_strbuf payload;
	gs_strbuf_init(&payload);
	gs_put_varint(&payload, head[0]);
	gs_put_varint(&payload, head[1]);
	gs_strbuf_add(&payload, names.buf, names.len);
	gs_transcoder_names(&g.cuda, (const uint8_t *)payload.buf, payload.len);
	gs_strbuf_release(&payload);
	gs_strbuf_release(&names);

	g.buf = gs_xmalloc(CUPTI_BUF);
	g.qcap = FWD + BWD + 1;
	g.q[0] = gs_xcalloc(g.qcap, sizeof(*g.q[0]));
	g.q[1] = gs_xcalloc(g.qcap, sizeof(*g.q[1]));
	CUpti_ActivityDevice5 d;
	memset(&d, 0, sizeof(d));
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.globalMemoryBandwidth = 4814000000ull;
	d.globalMemorySize = 150121021440ull;
	d.coreClockRate = 1980000;
	d.numMultiprocessors = 132;
	d.computeCapabilityMajor = 9;
	d.computeCapabilityMinor = 0;
	d.id = 0;
	d.name = (const char *)(uintptr_t)DEVICE_NAME_PTR;
	cupti_put(&g, &d, sizeof(d));
	g.pass = 1;
	run(&g);
	cupti_flush(&g);
	process(&g, 0, 0);

	struct gs_strbuf m;
	gs_strbuf_init(&m);
	gs_tlv_u64(&m, GS_EK_END_REAL, 1796233140000000000ull + (end - T0));
	gs_tlv_u64(&m, GS_EK_END_MONO, end);
	gs_tlv_u64(&m, GS_EK_EVENTS, g.ranges);
	gs_tlv_u64(&m, GS_EK_EXIT, 0);
	gs_writer_chunk(&g.w, GS_CHUNK_END, m.buf, m.len, 0);
	gs_strbuf_release(&m);
	int rc = gs_writer_close(&g.w, argv[1], &err);
	if (rc < 0) {
		fprintf(stderr, "gen_trace: %s\n", err.msg);
		return 1;
	}
	printf("events %llu kernels %llu api_calls %llu ranges %llu steps %llu forward_kernels %llu\n",
	       (unsigned long long)(g.kernels + g.apis + g.ranges), (unsigned long long)g.kernels,
	       (unsigned long long)g.apis, (unsigned long long)g.ranges,
	       (unsigned long long)g.steps, (unsigned long long)g.fwd_kernels);
	for (int i = 0; i < 2; i++)
		gs_evbuild_release(&g.th[i].b);
	gs_intern_release(&g.strings);
	gs_transcoder_release(&g.cuda);
	free(g.buf);
	free(g.q[0]);
	free(g.q[1]);
	return 0;
}
