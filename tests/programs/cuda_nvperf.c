/* cuda_nvperf.c: the kernel metrics' choice of libnvperf_host.so (src/collector/cuda/nvperf.c),
 * driven on the CPU through the real loader and a real libcupti: the CUPTI of CUPTI_DIR is
 * loaded by its path, as PyTorch loads its own through an RPATH, and libnvperf_host.so is
 * then loaded by its bare name, as CUPTI's profiler loads it; the test puts another
 * libnvperf_host.so first in LD_LIBRARY_PATH.
 *
 *   cuda_nvperf CUPTI_DIR nopin   the bare name alone (the search's copy)
 *   cuda_nvperf CUPTI_DIR pin     gs_nvperf_pin first
 *   cuda_nvperf CUPTI_DIR late    the search's copy loaded before gs_nvperf_pin
 *
 * Prints "pin RC MESSAGE" (pin, late) and "loaded PATH": the file the bare name resolved to.
 * Exit 0; 2 when a library cannot be loaded. */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../src/collector/cuda/nvperf.h"

static const char *loaded_path(void *h)
{
	struct link_map *lm = NULL;
	return dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name ? lm->l_name : "?";
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	char path[4096];
	snprintf(path, sizeof(path), "%s/libcupti.so.13", argv[1]);
	void *cupti = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void *fn = cupti ? dlsym(cupti, "cuptiGetVersion") : NULL;
	if (!fn) {
		fprintf(stderr, "cuda_nvperf: %s\n", dlerror());
		return 2;
	}
	if (!strcmp(argv[2], "late") && !dlopen("libnvperf_host.so", RTLD_LAZY)) {
		fprintf(stderr, "cuda_nvperf: %s\n", dlerror());
		return 2;
	}
	if (strcmp(argv[2], "nopin") != 0) {
		char msg[1000];
		int rc = gs_nvperf_pin(fn, msg, sizeof(msg));
		printf("pin %d %s\n", rc, msg);
	}
	void *h = dlopen("libnvperf_host.so", RTLD_LAZY);
	if (!h) {
		fprintf(stderr, "cuda_nvperf: %s\n", dlerror());
		return 2;
	}
	printf("loaded %s\n", loaded_path(h));
	return 0;
}
