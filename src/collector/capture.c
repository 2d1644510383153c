/* capture.c: what part of the run is recorded. From the start (the default), or only inside
 * capture ranges: between cudaProfilerStart and cudaProfilerStop (the CUDA library drives
 * that), inside every NVTX range of a given name (nvtx:NAME), or in a time window (--delay,
 * --duration: absolute CLOCK_MONOTONIC times from the CLI, so every process of the session
 * shares the window). Outside, gs_paused is set: the record path makes nothing, and the CUDA
 * library, told through its hook, turns CUPTI's activity kinds off after a flush.
 *
 * Invariants: gs_capture_switch is the only writer of gs_paused after init and is serialised
 * by cap_lock; the hook is called with the lock held, in the order of the switches. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector.h"

GS_HIDDEN int gs_capture_nvtx; /* watching for the NVTX range named gs_capture_name */
GS_HIDDEN _Atomic uint64_t gs_capture_end_id; /* the start/end range that opened the capture, or 0 */
static char capture_name[256];
static size_t capture_len;
static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*cuda_hook)(int on);
static uint64_t window_start, window_stop; /* CLOCK_MONOTONIC ns; 0: none */
static int window_over;

/* every write of gs_paused: the OS runtime wrappers' flag follows it */
static void set_paused(int paused)
{
	atomic_store(&gs_paused, paused);
	gs_osrt_sync();
}

void gs_capture_pause(int paused)
{
	set_paused(paused);
}

void gs_capture_switch(int on)
{
	pthread_mutex_lock(&cap_lock);
	if (window_over && on) {
		pthread_mutex_unlock(&cap_lock);
		return; /* after --duration nothing is recorded again */
	}
	if (on == !atomic_load(&gs_paused)) {
		pthread_mutex_unlock(&cap_lock);
		return;
	}
	if (on) {
		if (cuda_hook)
			cuda_hook(1);
		set_paused(0);
	} else {
		set_paused(1);
		if (cuda_hook)
			cuda_hook(0);
	}
	pthread_mutex_unlock(&cap_lock);
	gs_log("capture %s", on ? "started" : "stopped");
}

int gs_capture_set_hook(void (*hook)(int on))
{
	pthread_mutex_lock(&cap_lock);
	cuda_hook = hook;
	int on = !atomic_load(&gs_paused);
	pthread_mutex_unlock(&cap_lock);
	return on;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000u), (long)(t % 1000000000u)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *window_thread(void *arg)
{
	(void)arg;
	if (window_start > gs_clock_ns(CLOCK_MONOTONIC)) {
		sleep_until(window_start);
		gs_capture_switch(1);
	}
	if (window_stop) {
		sleep_until(window_stop);
		gs_capture_switch(0);
		pthread_mutex_lock(&cap_lock);
		window_over = 1;
		pthread_mutex_unlock(&cap_lock);
	}
	return NULL;
}

/* Start the thread that opens and closes the time window (again in a fork child). */
void gs_capture_window_arm(void)
{
	if (!window_start && !window_stop)
		return;
	uint64_t now = gs_clock_ns(CLOCK_MONOTONIC);
	if ((window_stop && now >= window_stop) || window_over) {
		window_over = 1;
		set_paused(1);
		return;
	}
	if (window_start > now)
		set_paused(1);
	if (gs_collector_thread(window_thread) != 0)
		gs_log("cannot start the capture window thread: recording the whole run");
}

static uint64_t env_u64(const char *v)
{
	if (!v || !*v)
		return 0;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	return errno || *end ? 0 : (uint64_t)x;
}

void gs_capture_configure(const char *range, const char *start, const char *stop)
{
	if (!strcmp(range, "cudaProfilerApi")) {
		gs_cfg.capture_profiler_api = 1;
		set_paused(1); /* until cudaProfilerStart */
	} else if (!strncmp(range, "nvtx:", 5) && range[5]) {
		capture_len = strlen(range + 5);
		if (capture_len >= sizeof(capture_name))
			capture_len = sizeof(capture_name) - 1;
		memcpy(capture_name, range + 5, capture_len);
		gs_capture_nvtx = 1;
		set_paused(1); /* until a range of that name opens */
	}
	window_start = env_u64(start);
	window_stop = env_u64(stop);
	gs_capture_window_arm();
}

int gs_capture_name_is(const char *s, size_t len)
{
	return len == capture_len && !memcmp(s, capture_name, len);
}
