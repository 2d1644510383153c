/* osrt_calls.c: the cost of calls that gpuscope's --trace osrt wraps but does not record
 * (shorter than the threshold): an uncontended pthread_mutex_lock + unlock pair, a 0-byte
 * read of a pipe, fcntl(F_GETFD) (a command that does not wait: passed on unclocked) and
 * syscall(SYS_getppid) (a number other than futex's: passed on unclocked). `osrt_calls N REPS` times, REPS times over, N calls through the program's own
 * symbols (which --trace osrt interposes) and N calls of libc's definitions looked up in libc
 * itself (which it cannot), alternating in the same process, and prints for each kind the
 * median ns per call of both and the median of the per-repetition differences:
 * "KIND WRAPPED DIRECT ADDED". With no tool ADDED is about 0; under `gpuscope profile -t osrt
 * --sample none` it is what a wrapper adds. "clock2" times the direct read between two reads
 * of the x86 TSC (what a wrapper that times the call cannot do without) against the direct read:
 * "clock2 TIMED DIRECT ADDED". bench/osrt.sh runs both. Measuring both in one
 * process, block against block, cancels what moves a whole process's timing (which CPU, what
 * else runs on the machine), which separate processes cannot. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink; /* keeps the clock reads */

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

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	int reps = argc > 2 ? atoi(argv[2]) : 7;
	if (n < 1 || reps < 1 || reps > 100)
		return 2;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	int (*d_lock)(pthread_mutex_t *) =
		libc ? (int (*)(pthread_mutex_t *))(uintptr_t)dlsym(libc, "pthread_mutex_lock") : NULL;
	ssize_t (*d_read)(int, void *, size_t) =
		libc ? (ssize_t(*)(int, void *, size_t))(uintptr_t)dlsym(libc, "read") : NULL;
	int (*d_fcntl)(int, int, ...) =
		libc ? (int (*)(int, int, ...))(uintptr_t)dlsym(libc, "fcntl") : NULL;
	long (*d_syscall)(long, ...) =
		libc ? (long (*)(long, ...))(uintptr_t)dlsym(libc, "syscall") : NULL;
	if (!d_lock || !d_read || !d_fcntl || !d_syscall) {
		fprintf(stderr, "osrt_calls: libc's pthread_mutex_lock, read, fcntl and syscall not found\n");
		return 1;
	}
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int fds[2];
	char buf[1];
	if (pipe(fds) != 0)
		return 1;
	double mw[100], md[100], ma[100], rw[100], rd[100], ra[100], cw[100], ca[100];
	double fw[100], fd[100], fa[100], sw[100], sd[100], sa[100];
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		double t1 = now();
		for (long i = 0; i < n; i++) {
			d_lock(&m);
			pthread_mutex_unlock(&m);
		}
		double t2 = now();
		for (long i = 0; i < n; i++)
			if (read(fds[0], buf, 0) != 0)
				return 1;
		double t3 = now();
		for (long i = 0; i < n; i++)
			if (d_read(fds[0], buf, 0) != 0)
				return 1;
		double t4 = now();
#if defined(__x86_64__)
		for (long i = 0; i < n; i++) {
			uint64_t c0 = __builtin_ia32_rdtsc();
			if (d_read(fds[0], buf, 0) != 0)
				return 1;
			sink += __builtin_ia32_rdtsc() - c0;
		}
#endif
		double t5 = now();
		for (long i = 0; i < n; i++)
			if (fcntl(fds[0], F_GETFD) < 0)
				return 1;
		double t6 = now();
		for (long i = 0; i < n; i++)
			if (d_fcntl(fds[0], F_GETFD) < 0)
				return 1;
		double t7 = now();
		for (long i = 0; i < n; i++)
			if (syscall(SYS_getppid) < 0)
				return 1;
		double t8 = now();
		for (long i = 0; i < n; i++)
			if (d_syscall(SYS_getppid) < 0)
				return 1;
		double t9 = now();
		mw[r] = (t1 - t0) / (double)n;
		md[r] = (t2 - t1) / (double)n;
		ma[r] = mw[r] - md[r];
		rw[r] = (t3 - t2) / (double)n;
		rd[r] = (t4 - t3) / (double)n;
		ra[r] = rw[r] - rd[r];
		cw[r] = (t5 - t4) / (double)n;
		ca[r] = cw[r] - rd[r];
		fw[r] = (t6 - t5) / (double)n;
		fd[r] = (t7 - t6) / (double)n;
		fa[r] = fw[r] - fd[r];
		sw[r] = (t8 - t7) / (double)n;
		sd[r] = (t9 - t8) / (double)n;
		sa[r] = sw[r] - sd[r];
	}
	printf("mutex %.2f %.2f %.2f\n", median(mw, reps), median(md, reps), median(ma, reps));
	printf("read0 %.2f %.2f %.2f\n", median(rw, reps), median(rd, reps), median(ra, reps));
	printf("fcntl %.2f %.2f %.2f\n", median(fw, reps), median(fd, reps), median(fa, reps));
	printf("syscall %.2f %.2f %.2f\n", median(sw, reps), median(sd, reps), median(sa, reps));
#if defined(__x86_64__)
	printf("clock2 %.2f %.2f %.2f\n", median(cw, reps), median(rd, reps), median(ca, reps));
#endif
	return 0;
}
