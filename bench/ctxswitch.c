/* bench/ctxswitch.c: what each context switch costs: two threads hand a byte back and forth
 * through two pipes N times (each hand-over blocks one thread and wakes the other: two
 * switches a round trip, on one CPU or across two), each spinning SPIN_NS between its read and
 * its write. Prints "seconds: S round trips: N" (wall time of the loop).
 *   usage: ctxswitch [N] [SPIN_NS]     (defaults 100000 and 0) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long n = 100000, spin_ns;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void spin(void)
{
	if (!spin_ns)
		return;
	double end = now() + (double)spin_ns * 1e-9;
	while (now() < end)
		;
}

static void *echo(void *arg)
{
	(void)arg;
	char c;
	for (long i = 0; i < n; i++) {
		if (read(ab[0], &c, 1) != 1)
			exit(2);
		spin();
		if (write(ba[1], &c, 1) != 1)
			exit(2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	if (argc > 2)
		spin_ns = atol(argv[2]);
	if (n < 1 || spin_ns < 0 || pipe(ab) || pipe(ba))
		return 2;
	pthread_t th;
	if (pthread_create(&th, NULL, echo, NULL))
		return 2;
	char c = 'x';
	double t0 = now();
	for (long i = 0; i < n; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 2;
		spin();
	}
	double t = now() - t0;
	pthread_join(th, NULL);
	printf("seconds: %.6f round trips: %ld\n", t, n);
	return 0;
}
