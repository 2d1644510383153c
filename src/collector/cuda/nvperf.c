/* nvperf.c: the range profiler's library taken from the loaded CUPTI's own folder, part of
 * libgpuscope-cuda.so (kmetrics.c calls it before the profiler starts).
 *
 * CUPTI's profiler loads libnvperf_host.so when it starts, by that bare name (dlopen), so the
 * loader's search decides which copy comes: LD_LIBRARY_PATH first. The libcupti that
 * records is often found another way: PyTorch loads the CUPTI wheel of its environment
 * through libtorch's RPATH at `import torch`. A folder of another CUPTI release in
 * LD_LIBRARY_PATH then gives that CUPTI another release's libnvperf_host.so, and the process
 * crashed at its first measured launch (H100, torch's CUPTI 13.0.1 with 13.5's
 * libnvperf_host.so, bench/RESULTS.md 2026-12-05). So the copy beside the loaded libcupti is
 * loaded first, by its path: CUPTI's dlopen of the bare name then finds it loaded (the loader
 * matches a name against the sonames of the objects it has loaded). */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nvperf.h"

static const char nvperf_name[] = "libnvperf_host.so";

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int gs_nvperf_pin(const void *cupti_fn, char *msg, size_t cap)
{
	msg[0] = 0;
	Dl_info di;
	if (!cupti_fn || !dladdr(cupti_fn, &di) || !di.dli_fname)
		return 0;
	const char *slash = strrchr(di.dli_fname, '/');
	if (!slash)
		return 0; /* found by the loader's own search: its nvperf comes the same way */
	char path[4096];
	int n = snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - di.dli_fname), di.dli_fname,
			 nvperf_name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;
	struct stat st;
	if (stat(path, &st) != 0)
		return 0; /* none beside it (a toolkit that keeps it elsewhere): the search decides */
	void *h = dlopen(nvperf_name, RTLD_LAZY | RTLD_NOLOAD);
	if (h) { /* loaded already, by another profiler or an earlier start */
		struct link_map *lm = NULL;
		int other = dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
			    !same_file(lm->l_name, path);
		if (other)
			snprintf(msg, cap, "%s was loaded from %s before the range profiler started, "
				 "and CUPTI is %s: if they are of different CUDA releases, the "
				 "profiler may crash the program", nvperf_name, lm->l_name, di.dli_fname);
		dlclose(h); /* the reference RTLD_NOLOAD took */
		return other ? -1 : 0;
	}
	if (!dlopen(path, RTLD_LAZY | RTLD_LOCAL)) { /* kept for the process's life */
		const char *e = dlerror();
		snprintf(msg, cap, "cannot load %s: %s", path, e ? e : "?");
		return -1;
	}
	return 1;
}
