/* nvperf.h: the range profiler's libnvperf_host.so loaded from beside the loaded libcupti
 * (nvperf.c), before CUPTI loads it by its bare name. */
#ifndef GS_NVPERF_H
#define GS_NVPERF_H

#include <stddef.h>

/* CUPTI_FN: any function of the loaded libcupti. Returns 1 when the copy beside it was
 * loaded, 0 when nothing was to be done (none there, or that same file already loaded), -1
 * with MSG (CAP bytes) saying why when another copy is already loaded or the load failed. */
int gs_nvperf_pin(const void *cupti_fn, char *msg, size_t cap);

#endif
