/* nvml.c: the NVML loader and the GPU counter sampler of `gpuscope profile --gpu-metrics`
 * (capture/nvml.h).
 *
 * NVML's declarations, from nvml.h's documented ABI (NVML API reference; the layouts have been
 * stable since NVML 3.x): every function returns nvmlReturn_t (an int enum: 0 NVML_SUCCESS,
 * 3 NVML_ERROR_NOT_SUPPORTED); nvmlDevice_t is an opaque pointer; nvmlUtilization_t is two
 * unsigned ints (gpu, memory: percent); nvmlMemory_t (v1, what nvmlDeviceGetMemoryInfo fills)
 * is three unsigned long longs (total, free, used: bytes); nvmlClockType_t NVML_CLOCK_SM = 1,
 * NVML_CLOCK_MEM = 2 (MHz); nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU = 0 (C);
 * nvmlPcieUtilCounter_t NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 (KB/s);
 * nvmlDeviceGetPowerUsage gives mW. The static asserts below pin the struct layouts.
 *
 * The sampler is a thread of the gpuscope CLI, not of the profiled program: it costs the
 * program nothing but the driver's own work to answer (measured on an H200: ~40 us of queries
 * per device per tick), covers every process of the session, and stamps samples with
 * CLOCK_MONOTONIC, the trace's time base. It waits on a condition variable with absolute
 * deadlines (period 1/hz, no drift; a late tick is not made up), so stop is immediate.
 * nvmlDeviceGetPcieThroughput measures over 20 ms before it returns (NVML API reference), so
 * the two PCIe counters would hold each tick ~40 ms per device (a 50 Hz sampler measured 16 Hz
 * on the H200): a second thread takes them back to back, as often as they answer (~25 Hz),
 * and stops within one query after the program ends. Memory used is nvmlDeviceGetMemoryInfo_v2's
 * where the driver has it (without the driver's reserved memory, as nvidia-smi shows it). */
#include "nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../format/file.h"
#include "../util/alloc.h"

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned int gpu;
	unsigned int memory;
} nvmlUtilization_t;
typedef struct {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;
typedef struct { /* nvmlMemory_v2_t; version = sizeof | 2 << 24 (NVML_STRUCT_VERSION) */
	unsigned int version;
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;
_Static_assert(sizeof(nvmlMemory_v2_t) == 40 && offsetof(nvmlMemory_v2_t, used) == 32,
	       "nvmlMemory_v2_t is a version, then total, reserved, free, used");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t is two unsigned ints");
_Static_assert(sizeof(nvmlMemory_t) == 24 && offsetof(nvmlMemory_t, used) == 16,
	       "nvmlMemory_t (v1) is total, free, used: unsigned long long each");

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_CLOCK_SM = 1,
	NVML_CLOCK_MEM = 2,
	NVML_TEMPERATURE_GPU = 0,
	NVML_PCIE_UTIL_TX_BYTES = 0,
	NVML_PCIE_UTIL_RX_BYTES = 1,
};

struct gs_nvml_api {
	void *lib;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*mem)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*mem2)(nvmlDevice_t, nvmlMemory_v2_t *); /* NULL on older drivers */
	nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*temp)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*pcie)(nvmlDevice_t, int, unsigned int *);
};

int gs_gpumetrics_parse_devices(const char *s, uint64_t *mask)
{
	if (!strcmp(s, "all")) {
		*mask = ~0ull;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*mask = 0;
		return 0;
	}
	uint64_t m = 0;
	const char *p = s;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned long v = 0;
		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (unsigned long)(*p++ - '0');
			if (v >= GS_GM_MAX_DEVICES)
				return -1;
		}
		m |= 1ull << v;
		if (!*p)
			break;
		if (*p++ != ',')
			return -1;
	}
	*mask = m;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *errstr(const struct gs_nvml_api *a, nvmlReturn_t r)
{
	const char *s = a->error_string ? a->error_string(r) : NULL;
	return s ? s : "unknown error";
}

#define SYM(field, name)                                                                     \
	do {                                                                                 \
		*(void **)&a->field = dlsym(a->lib, name);                                   \
		if (!a->field && !missing)                                                   \
			missing = name;                                                      \
	} while (0)

int gs_gpumetrics_open(struct gs_gpumetrics *g, const char *lib, uint64_t mask, unsigned hz,
		       struct gs_err *err)
{
	memset(g, 0, sizeof(*g));
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return gs_errf(err, -ENOENT, "NVML not found (%s)", lib);
	struct gs_nvml_api *a = gs_xcalloc(1, sizeof(*a));
	a->lib = h;
	const char *missing = NULL;
	SYM(init, "nvmlInit_v2");
	SYM(shutdown, "nvmlShutdown");
	SYM(error_string, "nvmlErrorString");
	SYM(count, "nvmlDeviceGetCount_v2");
	SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
	SYM(util, "nvmlDeviceGetUtilizationRates");
	SYM(mem, "nvmlDeviceGetMemoryInfo");
	SYM(clock, "nvmlDeviceGetClockInfo");
	SYM(power, "nvmlDeviceGetPowerUsage");
	SYM(temp, "nvmlDeviceGetTemperature");
	SYM(pcie, "nvmlDeviceGetPcieThroughput");
	*(void **)&a->mem2 = dlsym(h, "nvmlDeviceGetMemoryInfo_v2");
	int rc = 0;
	nvmlReturn_t r;
	unsigned int n = 0;
	if (missing) {
		rc = gs_errf(err, -ENOSYS, "%s has no %s (driver too old?)", lib, missing);
	} else if ((r = a->init()) != NVML_SUCCESS) {
		rc = gs_errf(err, -EIO, "NVML did not start (nvmlInit_v2: %s)", errstr(a, r));
	} else if ((r = a->count(&n)) != NVML_SUCCESS) {
		rc = gs_errf(err, -EIO, "NVML cannot count the GPUs (%s)", errstr(a, r));
		a->shutdown();
	}
	if (rc) {
		dlclose(h);
		free(a);
		return rc;
	}
	gs_strbuf_init(&g->notes);
	g->api = a;
	g->hz = hz ? hz : 10;
	g->devs = gs_xcalloc(n ? n : 1, sizeof(*g->devs));
	for (unsigned int i = 0; i < n && i < GS_GM_MAX_DEVICES; i++) {
		if (!(mask >> i & 1))
			continue;
		nvmlDevice_t d;
		if ((r = a->handle(i, &d)) != NVML_SUCCESS) {
			gs_strbuf_addf(&g->notes, "--gpu-metrics: GPU %u: no handle (%s): left out\n", i,
				       errstr(a, r));
			continue;
		}
		g->devs[g->ndevs].index = i;
		g->devs[g->ndevs++].handle = d;
	}
	for (unsigned int i = n; i < GS_GM_MAX_DEVICES; i++)
		if (mask != ~0ull && (mask >> i & 1))
			gs_strbuf_addf(&g->notes, "--gpu-metrics: no GPU %u (NVML sees %u)\n", i, n);
	if (!g->ndevs) {
		rc = gs_errf(err, -ENODEV, "%s", n ? "none of the GPUs given to --gpu-metrics-devices "
			     "can be read" : "NVML sees no GPU");
		gs_gpumetrics_release(g);
		return rc;
	}
	pthread_mutex_init(&g->mu, NULL);
	pthread_mutex_init(&g->pm, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	g->running = -1; /* synchronization objects exist */
	return 0;
}

static void put(struct gs_gpumetrics *g, struct gs_gpumetrics_dev *d, uint32_t metric,
		uint64_t ts, uint64_t value)
{
	struct gs_counterbuild *b = d->track[metric];
	if (!b) {
		b = gs_xmalloc(sizeof(*b));
		gs_counterbuild_init(b, d->index, metric, gs_gpu_metric_name(metric),
				     gs_gpu_metric_unit(metric));
		d->track[metric] = b;
		gs_grow((void **)&g->tracks, &g->tracks_cap, g->ntracks + 1, sizeof(*g->tracks));
		g->tracks[g->ntracks++] = b;
	}
	gs_counter_add(b, ts, (int64_t)value);
}

/* A query's result: the value(s) go into their tracks; NOT_SUPPORTED drops the metrics the
 * query serves (once, with a note); another failure is counted. */
static int ok(struct gs_gpumetrics *g, struct gs_gpumetrics_dev *d, nvmlReturn_t r, uint32_t m1,
	      uint32_t m2)
{
	if (r == NVML_SUCCESS)
		return 1;
	if (r == NVML_ERROR_NOT_SUPPORTED) {
		d->dropped[m1] = 1;
		if (m2)
			d->dropped[m2] = 1;
		gs_strbuf_addf(&g->notes, "--gpu-metrics: GPU %u: %s%s%s not supported: not recorded\n",
			       d->index, gs_gpu_metric_name(m1), m2 ? " and " : "",
			       m2 ? gs_gpu_metric_name(m2) : "");
	} else {
		g->failed++;
	}
	return 0;
}

static void poll_device(struct gs_gpumetrics *g, struct gs_gpumetrics_dev *d)
{
	const struct gs_nvml_api *a = g->api;
	uint64_t t = now_ns();
	unsigned int v;
	pthread_mutex_lock(&g->pm);
	if (!d->dropped[GS_GM_GPU_UTIL]) {
		nvmlUtilization_t u;
		if (ok(g, d, a->util(d->handle, &u), GS_GM_GPU_UTIL, GS_GM_MEM_UTIL)) {
			put(g, d, GS_GM_GPU_UTIL, t, u.gpu);
			put(g, d, GS_GM_MEM_UTIL, t, u.memory);
		}
	}
	if (!d->dropped[GS_GM_MEM_USED]) {
		nvmlMemory_v2_t m2 = {.version = (unsigned)sizeof(m2) | 2u << 24};
		nvmlMemory_t mi;
		if (a->mem2 && a->mem2(d->handle, &m2) == NVML_SUCCESS) {
			put(g, d, GS_GM_MEM_USED, t, m2.used);
			put(g, d, GS_GM_MEM_TOTAL, t, m2.total);
		} else if (ok(g, d, a->mem(d->handle, &mi), GS_GM_MEM_USED, GS_GM_MEM_TOTAL)) {
			put(g, d, GS_GM_MEM_USED, t, mi.used);
			put(g, d, GS_GM_MEM_TOTAL, t, mi.total);
		}
	}
	if (!d->dropped[GS_GM_SM_CLOCK] &&
	    ok(g, d, a->clock(d->handle, NVML_CLOCK_SM, &v), GS_GM_SM_CLOCK, 0))
		put(g, d, GS_GM_SM_CLOCK, t, v);
	if (!d->dropped[GS_GM_MEM_CLOCK] &&
	    ok(g, d, a->clock(d->handle, NVML_CLOCK_MEM, &v), GS_GM_MEM_CLOCK, 0))
		put(g, d, GS_GM_MEM_CLOCK, t, v);
	if (!d->dropped[GS_GM_POWER] && ok(g, d, a->power(d->handle, &v), GS_GM_POWER, 0))
		put(g, d, GS_GM_POWER, t, v);
	if (!d->dropped[GS_GM_TEMP] &&
	    ok(g, d, a->temp(d->handle, NVML_TEMPERATURE_GPU, &v), GS_GM_TEMP, 0))
		put(g, d, GS_GM_TEMP, t, v);
	pthread_mutex_unlock(&g->pm);
}

static int should_stop(struct gs_gpumetrics *g)
{
	pthread_mutex_lock(&g->mu);
	int s = g->stop;
	pthread_mutex_unlock(&g->mu);
	return s;
}

/* PCIe TX and RX of every device, back to back: each query measures over 20 ms, so this
 * thread samples them at --gpu-metrics-frequency or as often as they answer if that is less
 * (about 25 Hz for one GPU); a sample is stamped when its interval began. */
static void *pcie_sampler(void *arg)
{
	struct gs_gpumetrics *g = arg;
	const struct gs_nvml_api *a = g->api;
	static const int what[2] = {NVML_PCIE_UTIL_TX_BYTES, NVML_PCIE_UTIL_RX_BYTES};
	static const uint32_t metric[2] = {GS_GM_PCIE_TX, GS_GM_PCIE_RX};
	pthread_mutex_lock(&g->mu);
	while (!g->stop && g->t_start && now_ns() < g->t_start) {
		struct timespec ts = {(time_t)(g->t_start / 1000000000u),
				      (long)(g->t_start % 1000000000u)};
		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
	}
	pthread_mutex_unlock(&g->mu);
	int any = 1;
	uint64_t period = 1000000000ull / g->hz, next = now_ns();
	while (any && !should_stop(g)) {
		any = 0;
		pthread_mutex_lock(&g->mu); /* no faster than --gpu-metrics-frequency */
		while (!g->stop && now_ns() < next) {
			struct timespec ts = {(time_t)(next / 1000000000u), (long)(next % 1000000000u)};
			pthread_cond_timedwait(&g->cv, &g->mu, &ts);
		}
		pthread_mutex_unlock(&g->mu);
		next = GS_MAX(next + period, now_ns());
		for (size_t i = 0; i < g->ndevs; i++) {
			struct gs_gpumetrics_dev *d = &g->devs[i];
			for (int k = 0; k < 2; k++) {
				if (d->dropped[metric[k]] || should_stop(g))
					continue;
				uint64_t t = now_ns();
				if (g->t_stop && t >= g->t_stop)
					return NULL;
				unsigned int v;
				nvmlReturn_t r = a->pcie(d->handle, what[k], &v);
				pthread_mutex_lock(&g->pm);
				if (ok(g, d, r, metric[k], 0))
					put(g, d, metric[k], t, v);
				pthread_mutex_unlock(&g->pm);
				any = 1;
			}
		}
	}
	return NULL;
}

static void *sampler(void *arg)
{
	struct gs_gpumetrics *g = arg;
	uint64_t period = 1000000000ull / g->hz;
	uint64_t next = g->t_start ? g->t_start : now_ns();
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->stop && now_ns() < next) {
			struct timespec ts = {(time_t)(next / 1000000000u), (long)(next % 1000000000u)};
			pthread_cond_timedwait(&g->cv, &g->mu, &ts);
		}
		if (g->stop || (g->t_stop && next >= g->t_stop))
			break;
		pthread_mutex_unlock(&g->mu);
		for (size_t i = 0; i < g->ndevs; i++)
			poll_device(g, &g->devs[i]);
		g->ticks++;
		uint64_t now = now_ns();
		next += period;
		if (next <= now) /* late (a slow query, a descheduled thread): skip what was missed */
			next = now + period - (now - next) % period;
		pthread_mutex_lock(&g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int gs_gpumetrics_start(struct gs_gpumetrics *g, uint64_t t_start, uint64_t t_stop,
			struct gs_err *err)
{
	g->t_start = t_start;
	g->t_stop = t_stop;
	g->stop = 0;
	/* signals sent to gpuscope (forwarded to the program) stay with the main thread */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&g->thread, NULL, sampler, g);
	if (!e)
		g->pcie_running = !pthread_create(&g->pcie_thread, NULL, pcie_sampler, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return gs_errf(err, -e, "cannot start the GPU counter sampler: %s", strerror(e));
	g->running = 1;
	return 0;
}

void gs_gpumetrics_stop(struct gs_gpumetrics *g)
{
	if (g->running != 1)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	if (g->pcie_running)
		pthread_join(g->pcie_thread, NULL);
	g->pcie_running = 0;
	g->running = -1;
}

int gs_gpumetrics_write(struct gs_gpumetrics *g, struct gs_writer *w)
{
	int rc = 0;
	for (size_t i = 0; i < g->ntracks && rc == 0; i++)
		rc = gs_counterbuild_write(g->tracks[i], w);
	return rc;
}

uint64_t gs_gpumetrics_samples(const struct gs_gpumetrics *g)
{
	uint64_t n = 0;
	for (size_t i = 0; i < g->ntracks; i++)
		n += g->tracks[i]->total;
	return n;
}

void gs_gpumetrics_release(struct gs_gpumetrics *g)
{
	if (!g->api)
		return;
	gs_gpumetrics_stop(g);
	if (g->running) {
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
		pthread_mutex_destroy(&g->pm);
	}
	for (size_t i = 0; i < g->ntracks; i++) {
		gs_counterbuild_release(g->tracks[i]);
		free(g->tracks[i]);
	}
	free(g->tracks);
	free(g->devs);
	g->api->shutdown();
	dlclose(g->api->lib);
	free(g->api);
	gs_strbuf_release(&g->notes);
	memset(g, 0, sizeof(*g));
}
