/* host_forkthread.c: a single-threaded program whose fork children make threads. The parent
 * burns some CPU, then forks N children one after the other; each child makes two threads
 * that burn CPU in burn_in_thread, joins them and exits 0 (3 if glibc still took it for
 * single-threaded). The parent makes no thread: it prints "parent single S" (glibc's
 * __libc_single_threaded at its end) and exits 0, 1 when a child failed, 2 on a usage error.
 * Under `gpuscope profile` with sampling, the collector's unwind-table thread must stay out of
 * the parent and start in each child at its second thread (host.c's walks_setup).
 *   usage: host_forkthread [N] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void *burn_in_thread(void *arg)
{
	for (unsigned long i = 0; i < 30000000; i++)
		sink += i;
	return arg;
}

static int child(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, burn_in_thread, NULL) != 0)
			return 2;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return __libc_single_threaded ? 3 : 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	if (n < 1) {
		fprintf(stderr, "usage: host_forkthread [N]\n");
		return 2;
	}
	for (unsigned long i = 0; i < 30000000; i++)
		sink += i;
	for (int k = 0; k < n; k++) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0)
			_exit(child());
		int st;
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "host_forkthread: child %d: status %d\n", k, st);
			return 1;
		}
	}
	printf("parent single %d\n", (int)__libc_single_threaded);
	return 0;
}
