/* host_forkwalk.c: forks while another thread's CPU samples walk its stack. A thread runs
 * LIB's wide_sum (libhost_wide.so: 4000 functions, so the walks keep meeting return addresses
 * they have not seen, and look their objects up through dl_iterate_phdr under the loader's
 * lock); the main thread forks N children that exit at once and waits for each for up to 5 s.
 * A child that does not exit in time (blocked on a lock held by a thread that did not survive
 * the fork) is named, killed, and the program exits 3. Prints "forks: N" and exits 0.
 *   usage: host_forkwalk LIB [N] */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t (*sum)(uint64_t);
static volatile int stop;
static volatile uint64_t sink;

static void *spin(void *arg)
{
	(void)arg;
	uint64_t x = 1;
	while (!stop)
		x = sum(x);
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: host_forkwalk LIB [N]\n");
		return 2;
	}
	int n = argc > 2 ? atoi(argv[2]) : 300;
	void *h = dlopen(argv[1], RTLD_NOW);
	sum = h ? (uint64_t(*)(uint64_t))(uintptr_t)dlsym(h, "wide_sum") : NULL;
	pthread_t th;
	if (!sum || pthread_create(&th, NULL, spin, NULL) != 0)
		return 2;
	struct timespec ms = {0, 1000000};
	for (int i = 0; i < n; i++) {
		nanosleep(&ms, NULL);
		pid_t pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0)
			_exit(0);
		int st, k = 0;
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (++k > 5000) {
				printf("fork %d: child %d did not exit\n", i, (int)pid);
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				return 3;
			}
			nanosleep(&ms, NULL);
		}
	}
	stop = 1;
	pthread_join(th, NULL);
	printf("forks: %d\n", n);
	return 0;
}
