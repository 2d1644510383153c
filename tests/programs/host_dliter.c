/* host_dliter: calls dl_iterate_phdr in a loop for S seconds (default 2) and prints the count.
 * Much of each call is the taking and leaving of the loader's lock, so CPU samples land
 * inside them: a sampler whose walk takes that lock again must not wait for the interrupted
 * call (tests/cases/host.sh).
 *
 * `host_dliter hold MS`: another thread holds the loader's lock for MS ms (a dl_iterate_phdr
 * whose callback sleeps) while the main thread spins 100 ms of its CPU time; prints "ok
 * WALL_MS", the main thread's wall time for those 100 ms. Its samples must not wait out the
 * other thread's hold. */
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int first_only(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	++*(long *)data;
	return 1;
}

static double secs_of(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static atomic_int holding;
static long hold_ms;

static int hold_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	(void)data;
	atomic_store(&holding, 1);
	struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	return 1;
}

static void *holder(void *arg)
{
	(void)arg;
	dl_iterate_phdr(hold_cb, NULL);
	return NULL;
}

static volatile unsigned long sink;

static int hold(long ms)
{
	hold_ms = ms;
	pthread_t t;
	if (pthread_create(&t, NULL, holder, NULL) != 0)
		return 2;
	while (!atomic_load(&holding))
		;
	double w0 = secs_of(CLOCK_MONOTONIC), c0 = secs_of(CLOCK_THREAD_CPUTIME_ID);
	unsigned long x = 1;
	while (secs_of(CLOCK_THREAD_CPUTIME_ID) - c0 < 0.1)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
	double wall = secs_of(CLOCK_MONOTONIC) - w0;
	pthread_join(t, NULL);
	printf("ok %.0f\n", wall * 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "hold"))
		return hold(atol(argv[2]));
	double secs = argc > 1 ? atof(argv[1]) : 2;
	long seen = 0, calls = 0;
	double a = secs_of(CLOCK_MONOTONIC);
	do {
		for (int i = 0; i < 1000; i++, calls++)
			dl_iterate_phdr(first_only, &seen);
	} while (secs_of(CLOCK_MONOTONIC) - a < secs);
	printf("%s\n", seen == calls ? "ok" : "callback missed");
	return 0;
}
