/* nvml.h: GPU counters for `gpuscope profile --gpu-metrics`: NVML (libnvidia-ml.so.1, part of
 * the NVIDIA driver) loaded at run time with dlopen, and a sampler thread in the gpuscope
 * process that polls the selected devices at a fixed rate into counter tracks (one
 * gs_counterbuild per device and metric, format/counters.h), written into the trace as COUNTERS
 * chunks by the assembler.
 *
 * Invariants: nothing here runs in the profiled program; no NVML header is needed to build
 * (the few types and functions used are declared in nvml.c, per the documented ABI); a query
 * that fails with NOT_SUPPORTED drops that counter of that device for the rest of the run, with
 * one note; other failures skip that sample and are counted. Times are CLOCK_MONOTONIC ns, the
 * trace's time base. */
#ifndef GS_CAPTURE_NVML_H
#define GS_CAPTURE_NVML_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../format/counters.h"
#include "../util/err.h"
#include "../util/strbuf.h"

#define GS_NVML_LIB "libnvidia-ml.so.1"
#define GS_GM_MAX_DEVICES 64

struct gs_nvml_api; /* the loaded library's entry points (nvml.c) */

struct gs_gpumetrics_dev {
	uint32_t index;          /* NVML index */
	void *handle;            /* nvmlDevice_t */
	uint8_t dropped[GS_GM__END]; /* 1: NOT_SUPPORTED, no longer queried */
	struct gs_counterbuild *track[GS_GM__END]; /* NULL until its first sample */
};

struct gs_gpumetrics {
	struct gs_nvml_api *api;
	struct gs_gpumetrics_dev *devs;
	size_t ndevs;
	unsigned hz;
	uint64_t t_start, t_stop;    /* samples only in [t_start, t_stop); t_stop 0: no end */
	struct gs_counterbuild **tracks; /* in order of creation; owned */
	size_t ntracks, tracks_cap;
	pthread_t thread, pcie_thread; /* PCIe throughput has its own thread: each query blocks */
	pthread_mutex_t mu;
	pthread_mutex_t pm;          /* the tracks, notes and counts, shared by the two threads */
	int pcie_running;
	pthread_cond_t cv;
	int running, stop;
	struct gs_strbuf notes;      /* lines for stderr, one per dropped counter or problem */
	uint64_t ticks, failed;      /* polls taken; queries that failed otherwise */
};

/* Parse --gpu-metrics-devices: "all" (*mask all ones), "none" (0), or a comma-separated list of
 * NVML indices below GS_GM_MAX_DEVICES; -1 when malformed. */
int gs_gpumetrics_parse_devices(const char *s, uint64_t *mask);

/* Load NVML from lib (GS_NVML_LIB; another name for tests), start it and take the devices of
 * mask. Errors (the message says why, without "gpuscope: "): -ENOENT the library cannot be
 * loaded ("NVML not found (libnvidia-ml.so.1)"), -ENOSYS a function is missing, -EIO NVML
 * would not start, -ENODEV none of the devices exists. On error g holds nothing to release. */
int gs_gpumetrics_open(struct gs_gpumetrics *g, const char *lib, uint64_t mask, unsigned hz,
		       struct gs_err *err);
/* Start the sampler thread: samples at t_start (CLOCK_MONOTONIC ns; 0 now) and after, until
 * t_stop (0: until gs_gpumetrics_stop). */
int gs_gpumetrics_start(struct gs_gpumetrics *g, uint64_t t_start, uint64_t t_stop,
			struct gs_err *err);
/* Stop and join the thread (at once, mid-wait); idempotent. */
void gs_gpumetrics_stop(struct gs_gpumetrics *g);
/* Write every track as COUNTERS chunks; 0 or negative errno of the writer. */
struct gs_writer;
int gs_gpumetrics_write(struct gs_gpumetrics *g, struct gs_writer *w);
/* Samples taken, over all tracks. */
uint64_t gs_gpumetrics_samples(const struct gs_gpumetrics *g);
/* Stop, shut NVML down, unload it, free. */
void gs_gpumetrics_release(struct gs_gpumetrics *g);

#endif
