/* analyze.h: `gpuscope analyze`, the bottleneck doctor: a verdict (where each step's wall time
 * went, in seven classes that sum to it exactly) and findings (rules that name a cause, its
 * evidence, what fixing it would save per step, and what to change). docs/gpuscope-analyze.md
 * defines every class, rule, threshold and saving formula; this header only the data.
 * Invariants of a gs_analysis: for every step, the parts sum to its duration (integer ns);
 * breakdown[] sums to 1 when total > 0; findings are sorted by saving, most first (ties by id);
 * idle.ns[] sums to idle.idle_ns, the steps' input_pipeline + host_compute + other, and its
 * DataLoader classes (gs_an_idle_is_input) sum to part[GS_AN_INPUT];
 * every string a finding points to is static or owned by the analysis. */
#ifndef GS_ANALYSIS_ANALYZE_H
#define GS_ANALYSIS_ANALYZE_H

#include "../model/model.h"
#include "reports.h"

/* The classes, in priority order: each instant of a step goes to the first that holds. */
enum gs_an_class {
	GS_AN_GPU_COMPUTE,  /* a kernel of the step's process runs */
	GS_AN_GPU_TRANSFER, /* a copy or memset runs */
	GS_AN_HOST_SYNC,    /* a thread waits in a synchronizing call (step_sum's Sync Wait) */
	GS_AN_HOST_LAUNCH,  /* a thread is in any other CUDA API call */
	GS_AN_INPUT,        /* a data-loading range is open on a thread of the process */
	GS_AN_HOST_COMPUTE, /* another host range (op, function, annotation) is open */
	GS_AN_OTHER,        /* none of these */
	GS_AN__N
};

/* Not a level of its own: the part of gpu_compute when only communication kernels (NCCL,
 * gs_kernel_is_comm) of the step's process run, no computation kernel. Renderers show it as
 * a class "gpu_communication" beside gpu_compute (less it) when the trace has communication;
 * it can be a verdict's primary and a finding's class. */
#define GS_AN_GPU_COMM GS_AN__N

enum gs_an_severity { GS_AN_LOW, GS_AN_MEDIUM, GS_AN_HIGH };

struct gs_an_step {
	uint64_t start, end, number;
	int32_t pid, tid;
	int whole_run;
	uint64_t part[GS_AN__N]; /* ns; sum == end - start */
	uint64_t comm;           /* ns of part[GS_AN_GPU_COMPUTE] with only communication kernels */
};

/* HTA's communication/computation overlap of one device of one process: its communication
 * kernels merged across streams, its computation kernels (every other kernel, graph
 * launches) merged the same way, both cut to the windows. */
struct gs_an_comm {
	int32_t pid;
	uint32_t device;
	uint64_t kernels;    /* communication kernels that start in a window */
	uint64_t comm_ns;    /* |merged communication| */
	uint64_t overlap_ns; /* |merged communication ∩ merged computation| */
};

/* A time window [start, end) of process pid (0: any process). */
struct gs_an_window {
	uint64_t start, end;
	int32_t pid;
};

/* The overlap per (pid, device) that has communication kernels under f's pid and device
 * filters, in the union of the windows of its pid, sorted by (pid, device): *out is
 * malloc'd, the count returned (0: no communication, *out NULL). Memory in proportion to the
 * communication kernels and the windows, one pass over the kernels per (pid, device) when
 * they are sorted by start (as loaded). */
size_t gs_an_comm_overlap(const struct gs_model *m, const struct gs_filter *f,
			  const struct gs_an_window *w, size_t nw, struct gs_an_comm **out);
/* 100 * overlap / comm; NaN when comm_ns is 0 (HTA's NaN). */
double gs_an_comm_pct(const struct gs_an_comm *c);

/* One number of a finding's evidence: key (a static string) -> value. */
struct gs_an_num {
	const char *key;
	double v;
	int integer;
};

/* A top contributor: a kernel, API function or range name, its time and count in the steps. */
struct gs_an_top {
	char *name;
	uint64_t ns, count;
};

/* An example interval: host side (tid >= 0) or GPU side (device, stream). Times are ns
 * relative to the trace start (the model's start_mono). */
struct gs_an_example {
	uint64_t start, end;
	int32_t pid, tid; /* tid -1: a GPU-side example */
	int64_t device, stream;
};

#define GS_AN_NUMS 16 /* a finding's evidence numbers at most (gpu-gaps has 13) */
#define GS_AN_TOPS 3
#define GS_AN_EXAMPLES 3

struct gs_finding {
	const char *id;  /* stable: "launch-bound", "sync-bound", ... */
	int cls;         /* enum gs_an_class */
	int severity;    /* enum gs_an_severity */
	char title[320];
	uint64_t saving_ns;  /* per step (total over the steps / their count) */
	double saving_pct;   /* of the mean step: the total over the steps' summed durations */
	struct gs_an_num num[GS_AN_NUMS];
	size_t nnum;
	const char *top_what; /* "kernels", "API calls", "ranges"; NULL: no top list */
	struct gs_an_top top[GS_AN_TOPS];
	size_t ntop;
	struct gs_an_example ex[GS_AN_EXAMPLES];
	size_t nex;
	const char *cuda, *pytorch; /* recommendations */
};

/* GPU idle time by what the host did (docs/gpuscope-analyze.md, "GPU idle, by host activity"):
 * each idle instant of a step (step_sum's Idle: the classes input_pipeline, host_compute and
 * other) goes to the first that holds, for the process's main thread (the thread of the step
 * ranges, else the process's first thread when it makes CUDA API calls, else the one with the
 * most). Where the main thread waits or is off CPU while another thread of its process that
 * launches GPU work runs (PyTorch's autograd thread in backward), that thread's sample classes
 * the instant (loader_code, python or native). The first three are DataLoader time and count
 * as input_pipeline. */
enum gs_an_idle_class {
	GS_IDLE_LOADER_RANGE, /* a data-loading range is open on a thread of the process */
	GS_IDLE_LOADER_WAIT,  /* the main thread waits (in a call or off CPU) for the DataLoader */
	GS_IDLE_LOADER,       /* the main thread (or a launching thread while it waits) runs
			       * DataLoader code (its samples) */
	GS_IDLE_BLOCKED,      /* the main thread is in a recorded OS-runtime call */
	GS_IDLE_OFF_CPU,      /* off CPU between two of its samples, no call recorded */
	GS_IDLE_PYTHON,       /* it runs Python code (a sample with Python frames) */
	GS_IDLE_NATIVE,       /* it runs native code */
	GS_IDLE_UNKNOWN,      /* none of these: no samples of the main thread around */
	GS_IDLE__N
};

struct gs_an_idle {
	int host_data;              /* the trace has CPU samples or OS-runtime calls */
	int32_t main_pid, main_tid; /* the first scope's main thread; -1 when none */
	uint64_t sample_period;     /* ns a sample of weight 1 stands for */
	uint64_t idle_ns;           /* the steps' idle time, summed: the sum of ns[] */
	uint64_t ns[GS_IDLE__N];
	char *top[GS_IDLE__N];      /* the name that took most of a class's time, or NULL */
	uint64_t top_ns[GS_IDLE__N];
	/* python, native, loader_code: the thread that ran top while the main thread waited or
	 * was off CPU (PyTorch's autograd thread, pt_autograd_0, in backward), NULL when the
	 * main thread ran it */
	char *top_thread[GS_IDLE__N];
	/* of idle_ns, the program's start-up on the main thread: importing modules (its samples
	 * under the import system's frames), of which byte-compiling sources (no usable .pyc:
	 * SourceLoader.source_to_code), and torch.compile compiling (under Dynamo's or Inductor's
	 * compile frames); each with the main thread's off-CPU time between two such samples */
	uint64_t import_ns, pyc_ns, compile_ns;
	/* of compile_ns, that in steps after the first of their process: recompiles; in a
	 * trace without host data (a PyTorch profiler trace), the time in torch.compile's own
	 * ranges ("... (dynamo_timed)") there while the GPU idled, compile_ns left 0 */
	uint64_t recompile_ns;
	uint32_t recompile_steps;   /* those steps */
	int hf_generate;            /* the main thread's samples show Hugging Face transformers'
				     * generate() (frames of transformers/generation/) */
	/* while the main thread was in DataLoader time (the first three classes): the samples of
	 * the other threads and processes (DataLoader workers), by name */
	uint64_t others_samples;    /* summed weights */
	struct gs_an_top others[GS_AN_TOPS]; /* count: summed weights; ns: count x period */
	size_t nothers;
};

const char *gs_an_idle_name(int cls);
/* 1 for the classes that count as input_pipeline */
int gs_an_idle_is_input(int cls);
/* The host activity of the main thread (blocked, off_cpu, python or native) that took at least
 * half of the GPU's idle time, or -1 (none did, or the trace has no host data): what a verdict
 * of other (the GPU idle outside CUDA calls, syncs, data loading and host ranges) names. Code
 * running counts as one activity: python or native, the larger, when the two together took
 * half (their advice is the same). */
int gs_an_idle_dominant(const struct gs_an_idle *id);
/* What the main thread did in host activity cls (blocked, off_cpu, python, native), in words
 * after "the main thread": "waits in nanosleep", "runs Python (f)", "waits while thread
 * pt_autograd_0 runs native code (f)" (top_thread), ... (the HTML report's idleDoing says the
 * same), as snprintf into buf of n bytes: returns the full length */
int gs_an_idle_doing(const struct gs_an_idle *id, int cls, char *buf, size_t n);

struct gs_an_opts {
	const char *const *input_ranges; /* more range names that are data loading */
	size_t ninput;
};

struct gs_analysis {
	GS_VEC(struct gs_an_step) steps;
	uint64_t total;               /* summed durations of the steps */
	uint64_t part[GS_AN__N];      /* summed parts */
	double breakdown[GS_AN__N];   /* part / total */
	uint64_t median_ns;           /* median step duration (mean of the middle two) */
	uint64_t mean_ns;             /* mean step duration: total / the number of steps */
	/* a first step that weighs on the means (verdict.warmup): of 5 steps or more, the first
	 * took over 3x the median and its excess over the median is a quarter of the steps' time
	 * or more (a warm-up: CUDA loading code, cuDNN and cuBLAS set up, JIT compiling). Its
	 * duration, and a --time start, in ns after the session's start, that keeps the steps
	 * after it and leaves it out (the next step's start, rounded down to the millisecond or
	 * microsecond); 0, 0 when none */
	uint64_t warmup_ns, warmup_from;
	/* of the first step (a warm-up's when warmup_ns), the GPU's idle time in which the main
	 * thread imported modules or torch.compile compiled (idle_attribution.startup's parts;
	 * without host data, torch.compile's own ranges) */
	uint64_t warmup_import_ns, warmup_compile_ns;
	int primary;                  /* enum gs_an_class */
	uint8_t steps_by;             /* enum gs_steps_by */
	GS_VEC(struct gs_finding) findings;
	struct gs_an_idle idle;       /* GPU idle by host activity */
	struct gs_an_idle gap_idle;   /* the same, inside gpu-gaps' gaps only (no workers) */
	/* communication (analyze.h's GS_AN_GPU_COMM): its comm/comp overlap per device in the
	 * steps, empty when the steps ran no communication kernel; comm_only is the steps' comm
	 * summed (part of part[GS_AN_GPU_COMPUTE]) */
	GS_VEC(struct gs_an_comm) comm;
	uint64_t comm_only;
	/* the trace has GPU operations but no CUDA API call (recorded with --cuda-api=none, or a
	 * profiler trace without runtime events): host_launch cannot be told from other */
	uint8_t no_api_calls;
	/* 1: the trace holds no kernel, copy, memset or graph launch (the program used no CUDA,
	 * or CUDA was not recorded); 2: it does, but none passes the filters. The figures are then
	 * the host's alone. */
	uint8_t no_gpu_work;
	/* CUPTI's own work in the steps (its overhead records of buffers, instrumentation and
	 * resources): their union's length, and how many */
	uint64_t profiler_ns;
	size_t profiler_records;
	/* host_compute's time by the innermost host range the GPU idled in (names owned), the
	 * most first: low-gpu-utilization's top list, and the verdict's host_range */
	struct gs_an_top host_ranges[GS_AN_TOPS];
	size_t nhost_ranges;
	/* when the steps are the whole run: host ranges that repeat on one thread, one instance
	 * after another, that could be the steps (analyze --step NAME), the most total time first
	 * (names owned; count: instances) */
	struct gs_an_top step_hints[GS_AN_TOPS];
	size_t nstep_hints;
	/* when the steps are the whole run: host-to-device copies of a process that end before
	 * its first kernel or graph launch starts (loading the model's weights, the first input):
	 * how many, their bytes, and their time with no kernel beside them (over their union) */
	uint64_t load_copies, load_bytes, load_ns;
};

/* a->warmup_from as --time's start, "7.386s" (whole milliseconds), "7386225us" or "...ns",
 * into buf */
const char *gs_an_warmup_from(const struct gs_analysis *a, char *buf, size_t n);
/* The share of the step time of class cls (GS_AN_GPU_COMM included; gpu_compute less the
 * communication when the trace has some): what renderers show. */
double gs_an_share(const struct gs_analysis *a, int cls);
/* ns of class cls summed over the steps, as gs_an_share counts it. */
uint64_t gs_an_part(const struct gs_analysis *a, const uint64_t *part, uint64_t comm, int cls);

/* The share of host_compute's time in the first of a->host_ranges (0 when none). */
double gs_an_host_range_share(const struct gs_analysis *a);
/* The main thread's activity that the verdict names beside its class (verdict.idle_host), or
 * -1: for other, gs_an_idle_dominant; for host_compute, the dominant activity when it is not
 * running code (blocked in a call, off CPU), which the open host ranges do not show. */
int gs_an_verdict_idle(const struct gs_analysis *a);
/* When no steps are marked, the ranges that could be (verdict.step_hints): gs_model_repeats in
 * process pid (0: all), data loading left out (o's --input-range too; o may be NULL), the most
 * total time first, then by name. Names copied into out (the caller frees them); returns how
 * many. */
size_t gs_an_step_hints(const struct gs_model *m, int32_t pid, const struct gs_an_opts *o,
			struct gs_an_top out[GS_AN_TOPS]);
/* The share of the steps' time that start-up work took, when the step is the whole run (no
 * steps marked): the main thread importing modules and torch.compile compiling while the GPU
 * idled (gs_an_idle's import_ns and compile_ns), and the copies before the first kernel
 * (load_ns); 0 otherwise. From GS_AN_STARTUP_NOTE on, analyze says so under "Steps:"
 * (verdict.startup). */
double gs_an_startup_share(const struct gs_analysis *a);
#define GS_AN_STARTUP_NOTE 0.25
/* The hints' line, as analyze and the stats overview print it: "no steps marked; ranges that
 * repeat, for --step NAME: step (30x)". */
void gs_an_step_hints_line(const struct gs_an_top *h, size_t n, struct gs_strbuf *sb);

/* When the steps are the whole run and the host range the verdict host_compute names is one of
 * the step hints (a range that repeats, one instance after another: an iteration): that hint,
 * else NULL. */
const struct gs_an_top *gs_an_host_range_hint(const struct gs_analysis *a);

/* Analyze m's steps (gs_model_steps done, or the whole run) under f. Never fails. */
void gs_analyze(const struct gs_model *m, const struct gs_filter *f, const struct gs_an_opts *o,
		struct gs_analysis *a);
void gs_analysis_release(struct gs_analysis *a);

const char *gs_an_class_name(int cls);
const char *gs_an_severity_name(int severity);
/* The severity for a saving of pct percent of the mean step: >= 10 high, >= 3 medium. */
int gs_an_severity_of(double pct);

/* `gpuscope analyze A B ...`: one trace per rank of a distributed job. */
#define GS_AN_STRAGGLER_PCT 5.0 /* a rank this much slower than the median rank is a straggler */

struct gs_an_rank {
	int64_t rank;         /* the trace's (gs_model rank), else the file's position from 0 */
	int from_trace;       /* rank came from the trace */
	const char *file;     /* not owned */
	size_t steps;
	uint64_t median_ns;   /* median step */
	double busy;          /* share of the step time some GPU work runs (kernels, copies, sets) */
	uint64_t compute_ns;  /* per step, mean: the gpu_compute class (communication apart) */
	uint64_t comm_ns;     /* per step, mean: merged communication kernel time, over devices */
	double overlap_pct;   /* of comm_ns, overlapped by computation; NaN: no communication */
	int primary;          /* the verdict's class */
	const struct gs_finding *top; /* the most expensive finding, NULL when none; not owned */
};

struct gs_an_ranks {
	size_t slowest;    /* index of the rank with the longest median step (first such) */
	size_t median;     /* index of the median rank: the lower middle by median step */
	double slower_pct; /* 100 * (slowest / median - 1); 0 when the median step is 0 */
	int straggler;     /* slower_pct >= GS_AN_STRAGGLER_PCT */
	int severity;      /* a straggler's, by gs_an_severity_of(slower_pct) */
};

/* The row of rank r of the analysis a of trace m (file: its path, pos: its position). */
void gs_an_rank_of(const struct gs_model *m, const struct gs_analysis *a, const char *file,
		   size_t pos, struct gs_an_rank *r);
/* The slowest and the median rank of v[0..n) (n >= 1). */
void gs_an_ranks(const struct gs_an_rank *v, size_t n, struct gs_an_ranks *out);

#endif
