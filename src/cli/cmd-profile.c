/* cmd-profile.c: `gpuscope profile`: run a program with the collector injected, drain its
 * rings while it runs, and write one .gst for the whole process tree. The program keeps its
 * stdin, stdout and stderr and its process group; signals sent to gpuscope reach it; gpuscope
 * exits with its status (128+N when it died of signal N). */
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../analysis/reports.h"
#include "../capture/capture.h"
#include "../capture/nvml.h"
#include "../format/gst.h"
#include "../model/model.h"
#include "../util/alloc.h"
#include "cli.h"

static const char *const known_sources[] = {"nvtx", "cuda", "osrt", NULL};

static volatile sig_atomic_t child_pid;

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* A terminal's Ctrl-C or Ctrl-\ already reached the whole foreground group. */
	if ((sig == SIGINT || sig == SIGQUIT) && si && si->si_code == SI_KERNEL)
		return;
	int saved = errno;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

/* The first of three environment variables that is set to a whole number (a rank, a count),
 * or -1. */
static int64_t env_rank(const char *a, const char *b, const char *c)
{
	const char *names[] = {a, b, c};
	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(names[i]);
		char *end;
		if (!v || *v < '0' || *v > '9')
			continue;
		long long n = strtoll(v, &end, 10);
		if (!*end && n >= 0 && n < INT32_MAX)
			return n;
	}
	return -1;
}

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* libgpuscope-inject.so: GPUSCOPE_INJECT_LIB, else ../lib/ from this executable. The CUDA
 * library is its neighbour, libgpuscope-cuda.so. */
static char *find_inject_lib(void)
{
	const char *env = getenv("GPUSCOPE_INJECT_LIB");
	if (env && *env)
		return realpath(env, NULL);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/../lib/libgpuscope-inject.so", self);
	return realpath(path, NULL);
}

/* The file named name in the folder of path (malloc'd). */
static char *sibling(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(name);
	char *s = gs_xmalloc(dir + n + 1);
	memcpy(s, path, dir);
	memcpy(s + dir, name, n + 1);
	return s;
}

static int check_sources(const struct gs_command *cmd, const char *list)
{
	char *copy = gs_xstrdup(list), *save = NULL;
	int rc = 0, n = 0;
	for (char *w = strtok_r(copy, ",", &save); w && !rc; w = strtok_r(NULL, ",", &save), n++) {
		int ok = 0;
		for (size_t i = 0; known_sources[i]; i++)
			ok |= !strcmp(w, known_sources[i]);
		if (!ok)
			rc = gs_usage_error(cmd, "unknown trace source '%s' (known: cuda, nvtx, osrt)", w);
	}
	if (!rc && !n)
		rc = gs_usage_error(cmd, "no trace source given to --trace (known: cuda, nvtx, osrt)");
	free(copy);
	return rc;
}

/* 1 when the comma-separated list names source */
static int has_source(const char *list, const char *source)
{
	size_t n = strlen(source);
	for (const char *p = list; (p = strstr(p, source)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

/* The session directory and what is in it: its ring files and socket, and the directories
 * JIT compilers made for their jitdump files (.debug/jit/WRITER/; depth 4 at most). Symbolic
 * links are removed, never followed. */
static void remove_tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char path[PATH_MAX];
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < sizeof(path)) {
				struct stat sb;
				if (depth > 0 && lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
					remove_tree(path, depth - 1);
				else
					unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
}

static void remove_dir(const char *dir)
{
	remove_tree(dir, 4);
}

/* The first reportN.gst (N = 1, 2, ...) that does not exist in folder dir ("" or ending in
 * '/') */
static char *default_name(const char *dir)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (unsigned i = 1;; i++) {
		gs_strbuf_reset(&sb);
		gs_strbuf_addf(&sb, "%sreport%u.gst", dir, i);
		if (access(sb.buf, F_OK) != 0)
			return sb.buf; /* the caller owns it */
	}
}

static char *with_ext(char *name)
{
	size_t n = strlen(name);
	if (n >= 4 && !strcmp(name + n - 4, ".gst"))
		return name;
	char *s = gs_xmalloc(n + 5);
	memcpy(s, name, n);
	memcpy(s + n, ".gst", 5);
	free(name);
	return s;
}

/* The trace's file for an expanded -o name (taken): NAME.gst, or for a folder (NAME ends in
 * '/') the first reportN.gst not in it; NULL when NAME is empty. */
static char *out_file(char *name)
{
	size_t n = strlen(name);
	if (!n) {
		free(name);
		return NULL;
	}
	if (name[n - 1] != '/')
		return with_ext(name);
	char *f = default_name(name);
	free(name);
	return f;
}

/* Whether the trace at path holds a kernel, copy, memset or graph launch (1 also when it
 * cannot be read) */
static int gpu_ops(const char *path)
{
	struct gs_model m;
	struct gs_err err;
	if (gs_model_load_unjoined_skip(&m, path, GS_LOAD_NO_APIS | GS_LOAD_RANGES_UNSORTED, &err) < 0)
		return 1;
	static const struct gs_filter all;
	int any = gs_filter_gpu_work(&m, &all);
	gs_model_release(&m);
	return any;
}

static int shell_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

/* Whether value is one of the NULL-terminated choices; if not, says which ones are. */
static int one_of(const char *option, const char *value, const char *const *choices)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	int ok = 0;
	for (size_t i = 0; choices[i]; i++) {
		ok |= !strcmp(value, choices[i]);
		gs_strbuf_addf(&sb, "%s%s", i ? ", " : "", choices[i]);
	}
	if (!ok)
		gs_usage_error(&gs_cmd_profile, "%s takes %s, not '%s'", option, sb.buf, value);
	gs_strbuf_release(&sb);
	return ok;
}

/* A threshold: nanoseconds (1000) or a time with its unit (1us, 2ms), at most 1000 s; -1 after
 * saying what option takes (what: the other values it takes, as " or none") */
static int threshold_ns(const char *option, const char *v, const char *what, uint64_t *ns)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (!errno && !*end && end != v && v[0] != '-')
		*ns = x;
	else if (!strpbrk(v, "smun") || gs_parse_duration(v, strlen(v), ns)) {
		gs_usage_error(&gs_cmd_profile, "%s takes nanoseconds (1000) or a time (1us, 2ms)%s, not '%s'",
			       option, what, v);
		return -1;
	}
	if (*ns > 1000000000000ull) {
		gs_usage_error(&gs_cmd_profile, "%s: '%s' is over 1000s", option, v);
		return -1;
	}
	return 0;
}

/* --cudabacktrace=KINDS[:THRESHOLD] as nsys takes it (kinds: all, kernel, memory, sync, other,
 * comma-separated; the threshold 1000 ns when left out, as nsys's), or none: into out as
 * GPUSCOPE_CUDA_BACKTRACE has it (KINDS:NS, the kinds in gs_cuda_bt_names' order); -1 after
 * saying what is wrong */
static int cuda_backtrace(const char *v, char *out, size_t n)
{
	if (!strcmp(v, "none")) {
		snprintf(out, n, "none");
		return 0;
	}
	const char *colon = strchr(v, ':');
	size_t klen = colon ? (size_t)(colon - v) : strlen(v);
	uint32_t kinds = 0;
	const char *p = v;
	for (;;) { /* each kind */
		const char *comma = memchr(p, ',', (size_t)(v + klen - p));
		size_t len = (size_t)((comma ? comma : v + klen) - p);
		uint32_t k = len == 3 && !memcmp(p, "all", 3) ? (1u << GS_CUDA_BT__N) - 1 : 0;
		for (uint32_t i = 0; i < GS_CUDA_BT__N; i++)
			if (len == strlen(gs_cuda_bt_names[i]) && !memcmp(p, gs_cuda_bt_names[i], len))
				k = 1u << i;
		if (!k) {
			gs_usage_error(&gs_cmd_profile, "--cudabacktrace takes none, or kinds (all, kernel, "
				       "memory, sync, other; comma-separated) and an optional :threshold "
				       "(sync:80us), not '%s'", v);
			return -1;
		}
		kinds |= k;
		if (!comma)
			break;
		p = comma + 1;
	}
	uint64_t ns = 1000;
	if (colon && threshold_ns("--cudabacktrace's threshold", colon + 1, "", &ns) < 0)
		return -1;
	size_t at = 0;
	out[0] = '\0';
	for (uint32_t i = 0; i < GS_CUDA_BT__N; i++)
		if (kinds >> i & 1)
			at += (size_t)snprintf(out + at, n - GS_MIN(at, n), "%s%s", at ? "," : "", gs_cuda_bt_names[i]);
	snprintf(out + GS_MIN(at, n), n - GS_MIN(at, n), ":%llu", (unsigned long long)ns);
	return 0;
}

/* --kernel-metrics: whether the driver restricts GPU counters to administrators and this
 * process is not root (the collector would then say so at the first selected launch; saying
 * it before the program runs saves a wasted run). CAP_SYS_ADMIN alone also suffices, so this
 * is a warning. */
static int counters_restricted(void)
{
	if (geteuid() == 0)
		return 0;
	FILE *f = fopen("/proc/driver/nvidia/params", "r");
	if (!f)
		return 0;
	char line[256];
	int restricted = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "RmProfilingAdminOnly: ", 22))
			restricted = atoi(line + 22) == 1;
	fclose(f);
	return restricted;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force-overwrite", no_argument, NULL, 'f'},
		{"trace", required_argument, NULL, 't'},
		{"cuda-api", required_argument, NULL, 'A'},
		{"cuda-graph-trace", required_argument, NULL, 'G'},
		{"pytorch", required_argument, NULL, 'P'},
		{"capture-range", required_argument, NULL, 'c'},
		{"delay", required_argument, NULL, 'y'},
		{"duration", required_argument, NULL, 'd'},
		{"osrt-threshold", required_argument, NULL, 'O'},
		{"osrt-backtrace-threshold", required_argument, NULL, 'B'},
		{"cudabacktrace", required_argument, NULL, 'b'},
		{"sample", required_argument, NULL, 's'},
		{"sampling-frequency", required_argument, NULL, 'F'},
		{"sampling-clock", required_argument, NULL, 'Q'},
		{"gpu-metrics", no_argument, NULL, 'M'},
		{"gpu-metrics-frequency", required_argument, NULL, 'R'},
		{"gpu-metrics-devices", required_argument, NULL, 'D'},
		{"kernel-metrics", optional_argument, NULL, 'K'},
		{"kernel-filter", required_argument, NULL, 'X'},
		{"kernel-skip", required_argument, NULL, 'S'},
		{"kernel-count", required_argument, NULL, 'C'},
		{"cache-control", required_argument, NULL, 'L'},
		{"stats", optional_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *out_pattern = NULL, *trace = NULL, *cuda_api = "diag", *graph_trace = "graph",
		   *capture = "none", *pytorch = "none";
	int force = 0, o;
	uint64_t delay = 0, duration = 0;
	const char *sample = "cpu", *osrt_threshold = "1000", *sampling_hz = "1000", *osrt_bt = "80000";
	const char *sampling_clock = "timer";
	const char *kmetrics = NULL, *kfilter = "", *kskip = "0", *kcount = "10", *kcache = NULL;
	char cuda_bt[64] = "sync:80000"; /* --cudabacktrace, normalized */
	char *end;
	int gpu_metrics = 0, stats = 0;
	unsigned gm_hz = 10;
	uint64_t gm_mask = ~0ull;
	while ((o = gs_getopt(&gs_cmd_profile, argc, argv, "+o:ft:c:y:d:s:h", opts)) != -1) {
		switch (o) {
		case 'O':   /* nanoseconds, or a time with its unit */
		case 'B': { /* likewise, or none */
			static char thr[2][32];
			uint64_t ns = 0;
			if (o == 'B' && !strcmp(optarg, "none")) {
				osrt_bt = "none";
				break;
			}
			if (threshold_ns(o == 'O' ? "--osrt-threshold" : "--osrt-backtrace-threshold", optarg,
					 o == 'B' ? " or none" : "", &ns) < 0)
				return 2;
			snprintf(thr[o == 'B'], sizeof(thr[0]), "%llu", (unsigned long long)ns);
			*(o == 'O' ? &osrt_threshold : &osrt_bt) = thr[o == 'B'];
			break;
		}
		case 'b':
			if (cuda_backtrace(optarg, cuda_bt, sizeof(cuda_bt)) < 0)
				return 2;
			break;
		case 's':
			if (!one_of("--sample", optarg, (const char *[]){"cpu", "none", NULL}))
				return 2;
			sample = optarg;
			break;
		case 'F': {
			errno = 0;
			unsigned long long hz = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || hz < 1 || hz > 20000)
				return gs_usage_error(&gs_cmd_profile, "--sampling-frequency takes 1 to 20000 "
						      "(samples per second of CPU time), not '%s'", optarg);
			sampling_hz = optarg;
			break;
		}
		case 'Q':
			if (!one_of("--sampling-clock", optarg, (const char *[]){"timer", "perf", NULL}))
				return 2;
			sampling_clock = optarg;
			break;
		case 'M': gpu_metrics = 1; break;
		case 'T': /* as nsys's --stats[=true|false] */
			if (optarg && strcmp(optarg, "true") && strcmp(optarg, "false"))
				return gs_usage_error(&gs_cmd_profile, "--stats takes true or false, not '%s'",
						      optarg);
			stats = !optarg || !strcmp(optarg, "true");
			break;
		case 'R': {
			uint64_t hz = 0;
			if (gs_parse_u64(optarg, &hz) < 0 || hz < 1 || hz > 1000)
				return gs_usage_error(&gs_cmd_profile, "--gpu-metrics-frequency takes 1 to 1000 "
						      "(samples per second), not '%s'", optarg);
			gm_hz = (unsigned)hz;
			break;
		}
		case 'D': /* as nsys: naming devices turns the counters on, "none" off */
			if (gs_gpumetrics_parse_devices(optarg, &gm_mask) < 0)
				return gs_usage_error(&gs_cmd_profile, "--gpu-metrics-devices takes all, none or "
						      "a list of GPU indices (0,1), not '%s'", optarg);
			gpu_metrics = gm_mask != 0;
			break;
		case 'K':
			if (optarg && !one_of("--kernel-metrics", optarg, (const char *[]){"default", "full", NULL}))
				return 2;
			kmetrics = optarg ? optarg : "default";
			break;
		case 'X': {
			regex_t re;
			if (regcomp(&re, optarg, REG_EXTENDED | REG_NOSUB))
				return gs_usage_error(&gs_cmd_profile, "--kernel-filter: '%s' is not an "
						      "extended regular expression", optarg);
			regfree(&re);
			if (strlen(optarg) > 511)
				return gs_usage_error(&gs_cmd_profile, "--kernel-filter: at most 511 bytes");
			kfilter = optarg;
			break;
		}
		case 'S':
		case 'C': {
			uint64_t v = 0;
			if (gs_parse_u64(optarg, &v) < 0 || (o == 'C' && (v < 1 || v > 1000000)) ||
			    v > 1000000000)
				return gs_usage_error(&gs_cmd_profile, "%s takes a count (%s), not '%s'",
						      o == 'S' ? "--kernel-skip" : "--kernel-count",
						      o == 'S' ? "0 or more" : "1 to 1000000", optarg);
			if (o == 'S')
				kskip = optarg;
			else
				kcount = optarg;
			break;
		}
		case 'L':
			if (strcmp(optarg, "all") && strcmp(optarg, "none"))
				return gs_usage_error(&gs_cmd_profile, "--cache-control takes all or none, "
						      "not '%s'", optarg);
			kcache = optarg;
			break;
		case 'o': out_pattern = optarg; break;
		case 'f': force = 1; break;
		case 't': trace = optarg; break;
		case 'A':
			if (!one_of("--cuda-api", optarg, (const char *[]){"diag", "all", "none", NULL}))
				return 2;
			cuda_api = optarg;
			break;
		case 'c':
			if (!strncmp(optarg, "nvtx:", 5)) {
				if (!optarg[5] || strlen(optarg + 5) > 255)
					return gs_usage_error(&gs_cmd_profile, "--capture-range=nvtx:NAME needs "
							      "a range name of 1 to 255 bytes");
			} else if (!one_of("--capture-range", optarg,
					   (const char *[]){"none", "cudaProfilerApi", "nvtx:NAME", NULL})) {
				return 2;
			}
			capture = optarg;
			break;
		case 'y':
		case 'd':
			if (gs_parse_duration(optarg, strlen(optarg), o == 'y' ? &delay : &duration) ||
			    (o == 'd' && !duration))
				return gs_usage_error(&gs_cmd_profile, "%s takes a time such as 5, 2.5s or "
						      "500ms, not '%s'", o == 'y' ? "--delay" : "--duration",
						      optarg);
			break;
		case 'G':
			if (!one_of("--cuda-graph-trace", optarg, (const char *[]){"graph", "node", NULL}))
				return 2;
			graph_trace = optarg;
			break;
		case 'P':
			if (!one_of("--pytorch", optarg, (const char *[]){"nvtx", "nvtx-shapes", "none", NULL}))
				return 2;
			pytorch = optarg;
			break;
		case 'h': return 0;
		default: return 2;
		}
	}
	if (optind >= argc)
		return gs_usage_error(&gs_cmd_profile, "no program to run");
	if ((delay || duration) && strcmp(capture, "none"))
		return gs_usage_error(&gs_cmd_profile, "--delay and --duration cannot be combined with "
				      "--capture-range");
	int default_trace = !trace;
	if (default_trace)
		trace = "cuda,nvtx";
	if (check_sources(&gs_cmd_profile, trace))
		return 2;
	if ((kfilter[0] || strcmp(kskip, "0") || strcmp(kcount, "10")) && !kmetrics)
		return gs_usage_error(&gs_cmd_profile, "--kernel-filter, --kernel-skip and "
				      "--kernel-count select kernels for --kernel-metrics: add it");
	if (kcache && !kmetrics)
		return gs_usage_error(&gs_cmd_profile, "--cache-control sets how --kernel-metrics "
				      "replays kernels: add it");
	if (kmetrics && !has_source(trace, "cuda"))
		return gs_usage_error(&gs_cmd_profile, "--kernel-metrics measures CUDA kernels: add "
				      "cuda to --trace");
	if (kmetrics && counters_restricted())
		gs_cli_warn("--kernel-metrics: the driver restricts GPU counters to administrators "
			    "(RmProfilingAdminOnly: 1): run as root or with CAP_SYS_ADMIN, or load the "
			    "nvidia module with NVreg_RestrictProfilingToAdminUsers=0 "
			    "(https://developer.nvidia.com/ERR_NVGPUCTRPERM); recording the timeline");
	char **prog = argv + optind;
	int annotate = strcmp(pytorch, "none") != 0;
	if (annotate && !has_source(trace, "nvtx"))
		return gs_usage_error(&gs_cmd_profile, "--pytorch %s records NVTX ranges: add nvtx to "
				      "--trace", pytorch);

	char *lib = find_inject_lib();
	if (!lib) {
		gs_cli_error("cannot find libgpuscope-inject.so next to gpuscope (expected in ../lib/; "
			     "set GPUSCOPE_INJECT_LIB)");
		return 1;
	}
	/* --pytorch: the Python hook's folder, lib/python/ beside the library */
	char *pyhook = NULL;
	if (annotate) {
		pyhook = sibling(lib, "python");
		char *site = sibling(lib, "python/sitecustomize.py");
		int ok = access(site, R_OK) == 0;
		free(site);
		if (!ok) {
			gs_cli_error("cannot find %s/sitecustomize.py for --pytorch", pyhook);
			free(pyhook);
			free(lib);
			return 1;
		}
	}
	char *cuda_lib = NULL;
	if (strstr(trace, "cuda")) {
		cuda_lib = sibling(lib, "libgpuscope-cuda.so");
		if (access(cuda_lib, R_OK) != 0) {
			if (default_trace) { /* a build without CUDA: record what it can */
				free(cuda_lib);
				cuda_lib = NULL;
				trace = "nvtx";
			} else {
				gs_cli_error("cannot find %s for --trace cuda (build it, or leave cuda out)",
					     cuda_lib);
				free(cuda_lib);
				free(lib);
				free(pyhook);
				return 1;
			}
		}
	}

	/* OS runtime calls: their wrappers, libgpuscope-osrt.so beside it, go into LD_PRELOAD
	 * (before libc); only then, so that without osrt the program's calls are libc's own */
	char *osrt_lib = NULL;
	if (strstr(trace, "osrt")) {
		osrt_lib = sibling(lib, "libgpuscope-osrt.so");
		if (access(osrt_lib, R_OK) != 0) {
			gs_cli_error("cannot find %s for --trace osrt", osrt_lib);
			free(osrt_lib);
			free(cuda_lib);
			free(lib);
			free(pyhook);
			return 1;
		}
	}
	/* OS runtime calls and CPU samples need the collector in LD_PRELOAD: its constructor
	 * starts the sampler before main, and the wrappers call into it */
	int preload_collector = osrt_lib || !strcmp(sample, "cpu");
#if GS_TLS_INITIAL_EXEC
	/* built without TLS descriptors: the collector's TLS is initial-exec (collector.h), which
	 * a library loaded later (by NVTX or the CUDA driver) may not get: preloaded always */
	preload_collector = 1;
#endif
	/* libgpuscope-preload.so, beside it: flushes CUPTI at exec, guards CUPTI (optional) */
	char *preload = NULL;
	if (cuda_lib) {
		preload = sibling(lib, "libgpuscope-preload.so");
		if (access(preload, R_OK) != 0) {
			free(preload);
			preload = NULL;
		}
	}

	/* Names without %p are checked before anything runs; with %p, once the pid is known. */
	char *out = NULL;
	const char *why = NULL;
	if (!out_pattern) {
		out = default_name("");
	} else if (!strstr(out_pattern, "%p")) {
		out = gs_expand_name(out_pattern, 0, &why);
		int rc = 0;
		if (out && !(out = out_file(out)))
			rc = gs_usage_error(&gs_cmd_profile, "the output name is empty");
		else if (!out)
			rc = gs_usage_error(&gs_cmd_profile, "output name '%s' has %s", out_pattern, why);
		else if (!force && access(out, F_OK) == 0)
			gs_cli_error("'%s' exists (use -f to overwrite it)", out), rc = 1;
		if (rc) {
			free(out);
			free(lib);
			free(pyhook);
			free(cuda_lib);
			free(preload);
			free(osrt_lib);
			return rc;
		}
	}

	/* --gpu-metrics: NVML is started here, before the program, so its start-up (tens of ms)
	 * is not inside the run; without it the run goes on without counters */
	struct gs_gpumetrics gm;
	memset(&gm, 0, sizeof(gm));
	if (gpu_metrics && gm_mask) {
		struct gs_err gerr = {0};
		if (gs_gpumetrics_open(&gm, GS_NVML_LIB, gm_mask, gm_hz, &gerr) < 0)
			gs_cli_error("--gpu-metrics: %s: no GPU counters", gerr.msg);
	}
	if (gm.notes.len) {
		fprintf(stderr, "gpuscope: %s", gm.notes.buf);
		gs_strbuf_reset(&gm.notes);
	}

	struct gs_timemap tm;
	gs_timemap_begin(&tm);
	struct gs_session_info si = {.argv = (const char *const *)prog, .trace = trace,
				     .sample_period_ns = strcmp(sample, "cpu") ? 0 : 1000000000ull /
								strtoull(sampling_hz, NULL, 10),
				     .osrt_threshold_ns = strtoull(osrt_threshold, NULL, 10),
				     .osrt_bt_ns = strcmp(osrt_bt, "none") ? strtoull(osrt_bt, NULL, 10) : UINT64_MAX,
				     /* stacks come from the callbacks of the diag set (not all, none) */
				     .cuda_bt = strcmp(cuda_api, "diag") ? "none" : cuda_bt,
				     .start_real_ns = now_ns(CLOCK_REALTIME),
				     .start_mono_ns = now_ns(CLOCK_MONOTONIC), .root_status = -1,
				     .gpu_metrics = gm.api ? &gm : NULL};
	/* Sampling and osrt's stacks name Python frames through CPython's (>= 3.12) perf map: turned
	 * on unless the user set PYTHONPERFSUPPORT either way; the maps it makes are removed once
	 * in the trace */
	int stacks_wanted = !strcmp(sample, "cpu") || (strstr(trace, "osrt") && strcmp(osrt_bt, "none")) ||
			    (strstr(trace, "cuda") && strcmp(cuda_bt, "none"));
	si.perfmap_ours = stacks_wanted && !getenv("PYTHONPERFSUPPORT");
	/* the rank of a distributed job: torchrun's variables, else Open MPI's, else Slurm's */
	si.rank = env_rank("RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID");
	si.local_rank = env_rank("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID");
	si.world_size = env_rank("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS");

	/* The child waits on `go` for the session directory, so a name with %p can be expanded
	 * with its pid before anything of it runs. */
	int go[2], fail[2];
	if (pipe2(go, O_CLOEXEC) != 0 || pipe2(fail, O_CLOEXEC) != 0) {
		gs_cli_error("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		gs_cli_error("cannot start '%s': %s", prog[0], strerror(errno));
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		close(fail[0]);
		char dir[PATH_MAX];
		size_t n = 0;
		ssize_t r;
		while (n < sizeof(dir) - 1 && ((r = read(go[0], dir + n, sizeof(dir) - 1 - n)) > 0 ||
					       (r < 0 && errno == EINTR)))
			n += r > 0 ? (size_t)r : 0;
		if (n == 0)
			_exit(127); /* gpuscope gave up before starting the program */
		dir[n] = '\0';
		char root[24];
		snprintf(root, sizeof(root), "%d", (int)getpid());
		setenv("GPUSCOPE_ROOT_PID", root, 1);
		setenv("NVTX_INJECTION64_PATH", lib, 1);
		if (cuda_lib)
			setenv("CUDA_INJECTION64_PATH", cuda_lib, 1);
		setenv("GPUSCOPE_CUDA_API", cuda_api, 1);
		setenv("GPUSCOPE_CUDA_GRAPH_TRACE", graph_trace, 1);
		setenv("GPUSCOPE_CAPTURE_RANGE", capture, 1);
		if (kmetrics) {
			setenv("GPUSCOPE_KERNEL_METRICS", kmetrics, 1);
			setenv("GPUSCOPE_KERNEL_FILTER", kfilter, 1);
			setenv("GPUSCOPE_KERNEL_SKIP", kskip, 1);
			setenv("GPUSCOPE_KERNEL_COUNT", kcount, 1);
			setenv("GPUSCOPE_CACHE_CONTROL", kcache ? kcache : "all", 1);
		}
		if (delay || duration) { /* one window for every process of the session */
			char v[32];
			uint64_t t0 = now_ns(CLOCK_MONOTONIC) + delay;
			snprintf(v, sizeof(v), "%llu", (unsigned long long)t0);
			setenv("GPUSCOPE_CAPTURE_START", v, 1);
			if (duration) {
				snprintf(v, sizeof(v), "%llu", (unsigned long long)(t0 + duration));
				setenv("GPUSCOPE_CAPTURE_STOP", v, 1);
			}
		}
		setenv("GPUSCOPE_SAMPLE", sample, 1);
		/* the clock, chosen once for the session: each process image would otherwise ask the
		 * CPU (two CPUID instructions, a hypervisor trap each in a VM) */
		const char *clk = getenv("GPUSCOPE_CLOCK");
		if (!clk || !*clk || !strcmp(clk, "auto"))
			setenv("GPUSCOPE_CLOCK", gs_tsc_invariant() ? "tsc" : "monotonic", 1);
		/* and the TSC's rate, measured once (2 ms), where each image that needs it (the OS
		 * runtime threshold in ticks) spent 0.2 ms measuring it */
		if (!strcmp(getenv("GPUSCOPE_CLOCK"), "tsc") && !getenv("GPUSCOPE_TSC_HZ")) {
			char hz[24];
			snprintf(hz, sizeof(hz), "%llu", (unsigned long long)gs_tsc_hz(2000000));
			setenv("GPUSCOPE_TSC_HZ", hz, 1);
		}
		if (si.perfmap_ours)
			setenv("PYTHONPERFSUPPORT", "1", 1);
		/* oneDNN's JIT'ed kernels (PyTorch's CPU convolutions, reorders and GEMMs) have no
		 * unwind tables and no symbols: named through its jitdump file (4: that alone; 2, its
		 * perf map, would truncate CPython's /tmp/perf-PID.map), in the session directory,
		 * where the trace is assembled from; unless the user set any of the three variables */
		if (stacks_wanted && !getenv("JITDUMPDIR") && !getenv("ONEDNN_JIT_PROFILE") && !getenv("DNNL_JIT_PROFILE")) {
			setenv("ONEDNN_JIT_PROFILE", "4", 1);
			setenv("JITDUMPDIR", dir, 1);
		}
		setenv("GPUSCOPE_OSRT_THRESHOLD", osrt_threshold, 1);
		setenv("GPUSCOPE_OSRT_BACKTRACE_THRESHOLD", osrt_bt, 1);
		setenv("GPUSCOPE_CUDA_BACKTRACE", cuda_bt, 1);
		setenv("GPUSCOPE_SAMPLING_FREQUENCY", sampling_hz, 1);
		setenv("GPUSCOPE_SAMPLING_CLOCK", sampling_clock, 1);
		if (preload || preload_collector) { /* after what the user preloads (a sanitizer runtime must be first) */
			struct gs_strbuf v;
			gs_strbuf_init(&v);
			const char *old = getenv("LD_PRELOAD");
			const char *parts[] = {old && *old ? old : NULL, preload_collector ? lib : NULL,
					       osrt_lib, preload};
			for (size_t i = 0; i < GS_ARRAY_SIZE(parts); i++)
				if (parts[i])
					gs_strbuf_addf(&v, "%s%s", v.len ? ":" : "", parts[i]);
			setenv("LD_PRELOAD", v.buf, 1);
			/* a program built with AddressSanitizer refuses to start when a preloaded
			 * library comes before its runtime; ours intercepts nothing ASan does */
			const char *asan = getenv("ASAN_OPTIONS");
			if (!asan || !strstr(asan, "verify_asan_link_order")) {
				size_t n = (asan ? strlen(asan) : 0) + 32;
				char *v = gs_xmalloc(n);
				snprintf(v, n, "%s%sverify_asan_link_order=0", asan ? asan : "",
					 asan && *asan ? ":" : "");
				setenv("ASAN_OPTIONS", v, 1);
			}
		}
		if (pyhook) { /* first on PYTHONPATH: its sitecustomize runs the user's own too */
			const char *old = getenv("PYTHONPATH");
			size_t n = strlen(pyhook) + (old ? strlen(old) : 0) + 2;
			char *v = gs_xmalloc(n);
			snprintf(v, n, "%s%s%s", pyhook, old && *old ? ":" : "", old && *old ? old : "");
			setenv("PYTHONPATH", v, 1);
		}
		setenv("GPUSCOPE_PYTORCH", pytorch, 1);
		setenv("GPUSCOPE_SESSION_DIR", dir, 1);
		setenv("GPUSCOPE_TRACE", trace, 1);
		execvp(prog[0], prog);
		int e = errno;
		if (write(fail[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(fail[1]);
	child_pid = pid;

	/* The session directory lives beside the output, so big traces need no room in /tmp. */
	char *session = NULL;
	int early = 0;
	if (!out) {
		out = gs_expand_name(out_pattern, (long)pid, &why);
		if (!out)
			early = gs_usage_error(&gs_cmd_profile, "output name '%s' has %s", out_pattern, why);
		else if (out = out_file(out), !force && access(out, F_OK) == 0)
			gs_cli_error("'%s' exists (use -f to overwrite it)", out), early = 1;
	}
	if (!early) {
		struct gs_strbuf sdir;
		gs_strbuf_init(&sdir);
		const char *slash = strrchr(out, '/');
		if (slash)
			gs_strbuf_addf(&sdir, "%.*s/", (int)(slash - out), slash == out ? "/" : out);
		gs_strbuf_adds(&sdir, ".gpuscope-session-XXXXXX");
		if (mkdtemp(sdir.buf))
			session = realpath(sdir.buf, NULL);
		else
			gs_cli_error("cannot create a session directory '%s': %s", sdir.buf, strerror(errno)),
				early = 1;
		gs_strbuf_release(&sdir);
	}
	if (early) {
		close(go[1]); /* the child exits without running anything */
		waitpid(pid, NULL, 0);
		free(out);
		free(lib);
		free(pyhook);
		free(cuda_lib);
		free(preload);
		free(osrt_lib);
		return early;
	}

	/* before the program starts: its processes hand their rings' memory to the drain, a
	 * descriptor each until its file is scanned (the CLI's own limit is raised to the hard
	 * one for a burst of processes; the program, forked already, keeps its own) */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	struct gs_drain drain;
	gs_drain_init(&drain, session);

	struct sigaction sa = {0}, old[6];
	static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < GS_ARRAY_SIZE(fwd); i++)
		sigaction(fwd[i], &sa, &old[i]);

	if (write(go[1], session, strlen(session)) != (ssize_t)strlen(session)) {
		gs_cli_error("cannot start '%s'", prog[0]);
		return 1;
	}
	close(go[1]);
	int e = 0;
	ssize_t got;
	while ((got = read(fail[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(fail[0]);
	if (got == (ssize_t)sizeof(e)) {
		int st;
		waitpid(pid, &st, 0);
		gs_cli_error("cannot run '%s': %s", prog[0], strerror(e));
		gs_drain_release(&drain);
		remove_dir(session);
		return shell_status(st);
	}

	struct gs_err err = {0};
	if (gm.api) { /* the collectors take the same window from GPUSCOPE_CAPTURE_START/STOP */
		uint64_t t0 = delay || duration ? now_ns(CLOCK_MONOTONIC) + delay : 0;
		if (gs_gpumetrics_start(&gm, t0, duration ? t0 + duration : 0, &err) < 0) {
			gs_cli_warn("%s; no GPU counters", err.msg);
			gs_gpumetrics_release(&gm);
			si.gpu_metrics = NULL;
		}
	}
	int status = 0, drain_failed = 0;
	for (;;) {
		gs_timemap_tick(&tm);
		long moved = drain_failed ? 0 : gs_drain_poll(&drain, &err);
		if (moved < 0) {
			gs_cli_warn("%s; the trace will miss what follows", err.msg);
			drain_failed = 1;
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			gs_cli_warn("lost track of '%s': %s", prog[0], strerror(errno));
			status = 1 << 8; /* reported as exit status 1 */
			break;
		}
		if (moved <= 0)
			gs_drain_wait(&drain, 2);
	}
	/* The rings made since the last poll. (A fork child makes its ring at its first record
	 * (collector/ring.c), so none is awaited: one still running makes it when it records.) */
	if (!drain_failed && gs_drain_scan(&drain, &err) < 0) {
		gs_cli_warn("%s; the trace will miss what follows", err.msg);
		drain_failed = 1;
	}
	child_pid = 0;
	for (size_t i = 0; i < GS_ARRAY_SIZE(fwd); i++)
		sigaction(fwd[i], &old[i], NULL);
	gs_gpumetrics_stop(&gm);
	if (gm.notes.len)
		fprintf(stderr, "gpuscope: %s", gm.notes.buf);
	if (gm.failed)
		gs_cli_warn("--gpu-metrics: %llu NVML queries failed (their samples are missing)",
			    (unsigned long long)gm.failed);
	int code = shell_status(status);
	si.root_pid = pid;
	si.root_status = code;
	si.end_real_ns = now_ns(CLOCK_REALTIME);
	si.end_mono_ns = now_ns(CLOCK_MONOTONIC);
	gs_timemap_end(&tm);

	/* When the trace cannot be written, a program that succeeded still makes gpuscope fail
	 * (exit 1), so scripts notice; a program that failed keeps its own status. */
	if (!force && access(out, F_OK) == 0) {
		gs_cli_error("'%s' appeared while profiling; not overwriting it (use -f); "
			     "the raw session is kept in '%s'", out, session);
		gs_drain_keep(&drain);
		gs_drain_release(&drain);
		gs_timemap_release(&tm);
		return code ? code : 1;
	}
	struct gs_assemble_stats st;
	if (gs_assemble(&drain, &tm, &si, out, &st, &err) < 0) {
		gs_cli_error("%s; the raw session is kept in '%s'", err.msg, session);
		gs_drain_keep(&drain);
		gs_drain_release(&drain);
		gs_timemap_release(&tm);
		gs_gpumetrics_release(&gm);
		return code ? code : 1;
	}
	if (st.jitdump_bad)
		gs_cli_warn("%s%s; the JIT code names before it are kept", st.jitdump_err.msg,
			    st.jitdump_bad > 1 ? " (and more jitdump files)" : "");
	size_t unread = gs_drain_unread(&drain);
	if (unread)
		gs_cli_warn("%zu ring%s of the session could not be read (no file descriptor free, or a "
			    "process ended while making it): the trace misses %s records",
			    unread, unread == 1 ? "" : "s", unread == 1 ? "its" : "their");
	const char *dbg = getenv("GPUSCOPE_DEBUG");
	if (dbg && dbg[0] == '1') /* as the collector reads it */
		fprintf(stderr, "gpuscope: drain: %zu rings, %llu spools made, %llu reopened, at most %llu open at once (%zu allowed)\n",
			drain.nrings, (unsigned long long)drain.spools_made, (unsigned long long)drain.spools_reopened,
			(unsigned long long)drain.spools_peak, drain.spool_cap);
	gs_drain_release(&drain);
	gs_timemap_release(&tm);
	remove_dir(session);

	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_addf(&sb, "gpuscope: wrote %s (", out);
	gs_fmt_bytes(&sb, st.bytes);
	gs_strbuf_addf(&sb, "; %llu process%s, %llu thread%s, ", (unsigned long long)st.processes,
		       st.processes == 1 ? "" : "es", (unsigned long long)st.threads,
		       st.threads == 1 ? "" : "s");
	gs_fmt_count(&sb, st.events);
	gs_strbuf_adds(&sb, st.events == 1 ? " event, " : " events, ");
	/* records lost by cause; CPU samples skipped apart (a gap in the sampling, not a record
	 * the program made: docs/trace-format.md 1.10) */
	uint64_t lost = 0;
	for (int k = 0; k < GS_LOSS__N; k++)
		if (k != GS_LOSS_SAMPLE_SKIPPED)
			lost += st.lost[k];
	gs_fmt_count(&sb, lost);
	gs_strbuf_adds(&sb, " lost");
	if (lost) {
		gs_strbuf_adds(&sb, " (");
		int first = 1;
		for (int k = 0; k < GS_LOSS__N; k++)
			if (st.lost[k] && k != GS_LOSS_SAMPLE_SKIPPED) {
				gs_strbuf_addf(&sb, "%s%s ", first ? "" : ", ", gs_loss_names[k]);
				gs_fmt_count(&sb, st.lost[k]);
				first = 0;
			}
		gs_strbuf_addc(&sb, ')');
	}
	if (st.lost[GS_LOSS_SAMPLE_SKIPPED]) {
		gs_strbuf_adds(&sb, ", ");
		gs_fmt_count(&sb, st.lost[GS_LOSS_SAMPLE_SKIPPED]);
		gs_strbuf_addf(&sb, " CPU sample%s skipped",
			       st.lost[GS_LOSS_SAMPLE_SKIPPED] == 1 ? "" : "s");
	}
	if (si.gpu_metrics) {
		uint64_t n = gs_gpumetrics_samples(&gm);
		gs_strbuf_adds(&sb, "; ");
		gs_fmt_count(&sb, n);
		gs_strbuf_addf(&sb, " GPU counter sample%s", n == 1 ? "" : "s");
	}
	gs_gpumetrics_release(&gm);
	if (st.cupti_buffers)
		gs_strbuf_addf(&sb, "; %llu CUDA activity buffer%s", (unsigned long long)st.cupti_buffers,
			       st.cupti_buffers == 1 ? "" : "s");
	if (st.still_running)
		gs_strbuf_addf(&sb, "; %llu process%s still running", (unsigned long long)st.still_running,
			       st.still_running == 1 ? "" : "es");
	gs_strbuf_adds(&sb, ")\n");
	fputs(sb.buf, stderr);
	gs_strbuf_release(&sb);
	/* the range that opens the capture is itself recorded: no event at all, it never opened */
	if (!strncmp(capture, "nvtx:", 5) && has_source(trace, "nvtx") && !st.events)
		gs_cli_warn("the capture range never opened: no NVTX range named '%s' was pushed or "
			    "started (names match exactly, in any domain): the trace holds no activity of "
			    "the run", capture + 5);
	else if (!strcmp(capture, "cudaProfilerApi") && !st.events && !gpu_ops(out))
		gs_cli_warn("nothing was recorded in the capture range: the program never called "
			    "cudaProfilerStart (torch.cuda.profiler.start()), or ran no GPU work before "
			    "cudaProfilerStop");
	if (stats) {
		/* nsys's --stats=true: the summary of the trace just written, as `gpuscope stats NAME`
		 * prints it; PROGRAM's status stays gpuscope's */
		char *av[] = {(char *)"stats", (char *)"--", out, NULL}; /* out may begin with '-' */
		fflush(stdout);
		optind = 0; /* getopt starts afresh */
		gs_cmd_stats.run(3, av);
		fflush(stdout);
	}
	free(out);
	free(lib);
	free(pyhook);
	free(cuda_lib);
	free(preload);
	free(osrt_lib);
	free(session);
	return code;
}

const struct gs_command gs_cmd_profile = {
	"profile", run, "[OPTIONS] [--] PROGRAM [ARGS...]",
	"Run PROGRAM with the collector injected and write a trace (NAME.gst).",
	"  -o, --output NAME        trace name (default report1.gst, report2.gst, ...); '.gst' is\n"
	"                           added; NAME/ puts the default name in folder NAME; %p pid of\n"
	"                           PROGRAM, %h host, %q{VAR} environment variable (e.g.\n"
	"                           %q{RANK}), %% a percent sign\n"
	"  -f, --force-overwrite    replace an existing trace\n"
	"  -t, --trace LIST         sources to record, comma-separated: cuda, nvtx, osrt (blocking\n"
	"                           libc calls: locks, sleeps, I/O, polls, waits); default cuda,nvtx\n"
	"      --cuda-api=SET       CUDA API calls to record: diag (default: launches, copies,\n"
	"                           memsets, syncs, stream waits, allocations, graph launches)\n"
	"                           all, or none (GPU activity only, the cheapest)\n"
	"      --cuda-graph-trace=L graph (default: one record per graph launch) or node\n"
	"  -c, --capture-range=R    none (default); cudaProfilerApi: record only between\n"
	"                           cudaProfilerStart and cudaProfilerStop; nvtx:NAME: only\n"
	"                           while an NVTX range named NAME is open (CUDA and NVTX)\n"
	"      --delay=T            record nothing for the first T (5, 2.5s, 500ms)\n"
	"      --duration=T         stop recording T after it started; PROGRAM runs on\n"
	"      --pytorch=MODE       Python programs using PyTorch, unchanged: nvtx adds NVTX\n"
	"                           ranges for autograd operators, each nn.Module's forward\n"
	"                           (named by its path, e.g. layer3.1.conv2), DataLoader fetches\n"
	"                           and optimizer steps; nvtx-shapes adds input shapes to the\n"
	"                           operators' names; none (default)\n"
	"      --osrt-threshold=T   with --trace osrt: record blocking libc calls that take at\n"
	"                           least T (ns, or 1us, 2ms; default 1000 ns)\n"
	"      --osrt-backtrace-threshold=T  with --trace osrt: the calls that take at least\n"
	"                           T (default 80us, as nsys) are recorded with the native\n"
	"                           call stack of the program's call (Python >= 3.12 frames\n"
	"                           by name, as with --sample); none: no stacks\n"
	"      --cudabacktrace=K[:T]  CUDA API calls of kinds K (all, kernel, memory, sync,\n"
	"                           other; comma-separated) that take at least T (default\n"
	"                           1000 ns, as nsys) are recorded with the native call stack\n"
	"                           of the program's call; default sync:80us (the calls that\n"
	"                           wait); none: no stacks\n"
	"  -s, --sample=S           cpu (default): sample each thread's native call stack every\n"
	"                           1/HZ s of its CPU time (Python >= 3.12 frames by name:\n"
	"                           PYTHONPERFSUPPORT=1 unless set); none: no sampling\n"
	"      --sampling-frequency=HZ  samples per second of CPU time (default 1000)\n"
	"      --sampling-clock=C   timer (default): a POSIX timer of each thread's CPU time,\n"
	"                           checked at the kernel's tick (above CONFIG_HZ, weighted\n"
	"                           samples); perf: each thread's perf task-clock event where\n"
	"                           the kernel allows it (a sample every period; a descriptor\n"
	"                           per thread; context switches cost more: 4-9 us in a VM)\n"
	"      --stats[=true|false]  after writing the trace, print its summary, as 'gpuscope\n"
	"                           stats NAME.gst' does (as nsys profile --stats=true)\n"
	"      --gpu-metrics        sample GPU counters through NVML from gpuscope's own thread:\n"
	"                           utilization, memory, clocks, power, temperature, PCIe\n"
	"                           (off by default; without NVML, a note and no counters)\n"
	"      --gpu-metrics-frequency=HZ  counter samples per second, 1 to 1000 (default 10;\n"
	"                           10 to 100 is the useful range)\n"
	"      --gpu-metrics-devices=D  all (default), none, or NVML indices (0,2); naming\n"
	"                           devices turns --gpu-metrics on\n"
	"      --kernel-metrics[=SET]  hardware counters of selected kernels, replayed by\n"
	"                           CUPTI's range profiler: default (11 passes on H100/H200:\n"
	"                           SM, memory and DRAM throughput, L1/L2 hit rates, occupancy,\n"
	"                           coalescing, tensor pipe, FLOPs) or full (more sections)\n"
	"      --kernel-filter=RE   measure only kernels whose name (as CUDA reports it, mangled\n"
	"                           for C++) matches the extended regex RE (default: all)\n"
	"      --kernel-skip=N      let the first N matching launches pass (default 0)\n"
	"      --kernel-count=N     then measure the next N matching launches (default 10)\n"
	"      --cache-control=all|none  with --kernel-metrics: all (default) resets the L2\n"
	"                           before each replay pass, as ncu does (CUPTI 13.4 or newer;\n"
	"                           an older CUPTI cannot, and a note says so); none leaves it\n"
	"                           as the previous pass left it\n"
	"  -h, --help               show this help\n"
	"\nPROGRAM keeps its terminal; signals sent to gpuscope are passed on to it; gpuscope\n"
	"exits with PROGRAM's exit status, or 128+N when it died of signal N (1 when PROGRAM\n"
	"succeeded but the trace could not be written). Processes that outlive PROGRAM are\n"
	"recorded until the trace is written after PROGRAM ends; info marks them as still running.\n",
	NULL,
};
