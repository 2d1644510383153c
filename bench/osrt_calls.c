/* osrt_calls.c: the cost of calls that gpuscope's --trace osrt wraps but does not record
 * (shorter than the threshold): an uncontended pthread_mutex_lock + unlock pair, and a 0-byte
 * read of a pipe. `osrt_calls N REPS` times N of each, REPS times, and prints the median ns
 * per call of each kind ("mutex NS", "read0 NS"). Run alone and under `gpuscope profile -t osrt
 * --sample none`; bench/osrt.sh alternates the two. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	int reps = argc > 2 ? atoi(argv[2]) : 7;
	if (n < 1 || reps < 1 || reps > 100)
		return 2;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int fds[2];
	char buf[1];
	if (pipe(fds) != 0)
		return 1;
	double mu[100], rd[100];
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		double t1 = now();
		for (long i = 0; i < n; i++)
			if (read(fds[0], buf, 0) != 0)
				return 1;
		double t2 = now();
		mu[r] = (t1 - t0) / (double)n;
		rd[r] = (t2 - t1) / (double)n;
	}
	qsort(mu, (size_t)reps, sizeof(double), cmp);
	qsort(rd, (size_t)reps, sizeof(double), cmp);
	printf("mutex %.2f\nread0 %.2f\n", mu[reps / 2], rd[reps / 2]);
	return 0;
}
