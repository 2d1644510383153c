/* counters.h: the COUNTERS chunk of a .gst file (docs/trace-format.md, part 2): one counter
 * track of one device (a GPU metric sampled through NVML by `gpuscope profile --gpu-metrics`)
 * and a run of its samples (time, value). The builder is used by the CLI's sampler and by test
 * generators, the decoder by the model loader and `gpuscope dump`.
 * Invariants: decoders never read past the chunk and return -1 on malformed input (a name or
 * unit longer than GS_COUNTER_MAX_NAME, a count the payload cannot hold); what a builder
 * writes its decoder reads back; times are CLOCK_MONOTONIC ns, values signed 64-bit integers in
 * the track's unit. */
#ifndef GS_FORMAT_COUNTERS_H
#define GS_FORMAT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

struct gs_writer;

#define GS_COUNTER_MAX_NAME 255
/* A builder seals its run after this many samples (a chunk stays far below the size limit). */
#define GS_COUNTER_CHUNK_SAMPLES 65536u

/* The GPU metrics `gpuscope profile --gpu-metrics` records (their metric ids in the trace;
 * values are stored in traces, so the list only grows). */
enum gs_gpu_metric {
	GS_GM_GPU_UTIL = 1,  /* "gpu_util", %: time a kernel ran, over NVML's sample period */
	GS_GM_MEM_UTIL = 2,  /* "mem_util", %: time device memory was read or written */
	GS_GM_MEM_USED = 3,  /* "mem_used", B (device-wide, every process) */
	GS_GM_MEM_TOTAL = 4, /* "mem_total", B */
	GS_GM_SM_CLOCK = 5,  /* "sm_clock", MHz */
	GS_GM_MEM_CLOCK = 6, /* "mem_clock", MHz */
	GS_GM_POWER = 7,     /* "power", mW */
	GS_GM_TEMP = 8,      /* "temperature", C */
	GS_GM_PCIE_TX = 9,   /* "pcie_tx", KB/s */
	GS_GM_PCIE_RX = 10,  /* "pcie_rx", KB/s */
	GS_GM__END,
};
/* name and unit of a metric id, NULL for ids this build does not know */
const char *gs_gpu_metric_name(uint32_t id);
const char *gs_gpu_metric_unit(uint32_t id);

/* One track's samples being built; payloads of sealed chunks accumulate in `sealed`. */
struct gs_counterbuild {
	uint32_t device, metric;
	char name[GS_COUNTER_MAX_NAME + 1], unit[GS_COUNTER_MAX_NAME + 1];
	struct gs_strbuf data;  /* the open run's samples */
	uint64_t count, base, prev_t;
	int64_t prev_v;
	struct gs_strbuf sealed; /* whole chunk payloads, each preceded by its length (u64) */
	uint64_t total;          /* samples added */
};

void gs_counterbuild_init(struct gs_counterbuild *b, uint32_t device, uint32_t metric,
			  const char *name, const char *unit);
void gs_counterbuild_release(struct gs_counterbuild *b);
void gs_counter_add(struct gs_counterbuild *b, uint64_t ts, int64_t value);
/* Seal the open run (if any) into b->sealed. */
void gs_counterbuild_seal(struct gs_counterbuild *b);
/* Seal, then write every sealed payload as a COUNTERS chunk (and forget them); 0 or negative
 * errno from the writer. */
int gs_counterbuild_write(struct gs_counterbuild *b, struct gs_writer *w);

/* Reading a COUNTERS chunk: open reads the track; next gives each sample. */
struct gs_counterchunk {
	const uint8_t *p, *end;
	uint64_t device, metric, count, base, index, prev_t;
	int64_t prev_v;
	const char *name, *unit; /* point into the chunk, not NUL-terminated */
	size_t name_len, unit_len;
};
struct gs_counter_rec {
	uint64_t ts;
	int64_t value;
};
int gs_counterchunk_open(struct gs_counterchunk *c, const uint8_t *data, size_t len);
/* 1: the next sample; 0: all read; -1: malformed. */
int gs_counter_next(struct gs_counterchunk *c, struct gs_counter_rec *r);

#endif
