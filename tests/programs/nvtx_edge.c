/* nvtx_edge.c: NVTX calls at the edges, which a tool must survive and count right.
 *   nvtx_edge domains  40 domains nested on one thread (more than the collector tracks
 *                      per thread), popped in reverse: 40 ranges "r", one per domain d0..d39;
 *                      prints "levels L0 L39" (the push return values of d0 and d39:
 *                      expected "levels 0 0");
 *   nvtx_edge misuse   nvtxRangeEnd(0), a pop with nothing pushed, then "ok" x1: two unmatched
 *                      calls, one range;
 *   nvtx_edge orphan   forks a child that emits "orphan_before" x3, tells the parent, sleeps
 *                      1.5 s, then emits "orphan_after" x3 and exits; the parent waits for that
 *                      word, emits "parent" x1 and exits without waiting for the child,
 *                      so the child outlives it;
 *   nvtx_edge quick_fork  emits "parent" x1, forks a child that sleeps 1 s and emits "late" x1,
 *                      and exits at once: the child may not even have run when the program ends.
 *   nvtx_edge forks N  forks N children that exit at once (_exit), then N that each emit
 *                      "child" x1 and exit (_exit), one after another, then emits "parent" x1.
 *   nvtx_edge slow_child  forks a child that sleeps 0.3 s, emits "late" x1 and exits; waits for it.
 *   nvtx_edge fork_threads  forks a child whose 8 threads, released at once, each emit "t" x100
 *                      (their first records race to make the child's ring); waits for it. */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void range(const char *name)
{
	nvtxRangePushA(name);
	nvtxRangePop();
}

static pthread_barrier_t go;

static void *hundred(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	for (int i = 0; i < 100; i++)
		range("t");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "domains")) {
		nvtxDomainHandle_t d[40];
		char name[16];
		int l0 = -9, l39 = -9;
		for (int i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "d%d", i);
			d[i] = nvtxDomainCreateA(name);
		}
		nvtxEventAttributes_t a = {0};
		a.version = NVTX_VERSION;
		a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
		a.messageType = NVTX_MESSAGE_TYPE_ASCII;
		a.message.ascii = "r";
		for (int i = 0; i < 40; i++) {
			int l = nvtxDomainRangePushEx(d[i], &a);
			if (i == 0)
				l0 = l;
			if (i == 39)
				l39 = l;
		}
		for (int i = 39; i >= 0; i--)
			nvtxDomainRangePop(d[i]);
		printf("levels %d %d\n", l0, l39);
		return 0;
	}
	if (!strcmp(mode, "misuse")) {
		nvtxRangeEnd(0);
		nvtxRangePop();
		range("ok");
		return 0;
	}
	if (!strcmp(mode, "orphan")) {
		/* The parent leaves only once the child has recorded its first ranges, so the
		 * ranges that must be in the trace are there however the two are scheduled. */
		int ready[2];
		if (pipe(ready) != 0)
			return 1;
		pid_t p = fork();
		if (p == 0) {
			for (int i = 0; i < 3; i++)
				range("orphan_before");
			if (write(ready[1], "r", 1) != 1)
				return 1;
			struct timespec ts = {1, 500000000};
			nanosleep(&ts, NULL);
			for (int i = 0; i < 3; i++)
				range("orphan_after");
			return 0;
		}
		char c;
		if (p < 0 || read(ready[0], &c, 1) != 1)
			return 1;
		range("parent");
		return 0;
	}
	if (!strcmp(mode, "quick_fork")) {
		range("parent");
		pid_t p = fork();
		if (p == 0) {
			struct timespec ts = {1, 0};
			nanosleep(&ts, NULL);
			range("late");
		}
		return p < 0;
	}
	if (!strcmp(mode, "forks") && argc > 2) {
		int n = atoi(argv[2]);
		for (int quiet = 1; quiet >= 0; quiet--)
			for (int i = 0; i < n; i++) {
				pid_t p = fork();
				if (p == 0) {
					if (!quiet)
						range("child");
					_exit(0);
				}
				if (p < 0 || waitpid(p, NULL, 0) != p)
					return 1;
			}
		range("parent");
		return 0;
	}
	if (!strcmp(mode, "slow_child")) {
		pid_t p = fork();
		if (p == 0) {
			struct timespec ts = {0, 300000000};
			nanosleep(&ts, NULL);
			range("late");
			return 0;
		}
		return p < 0 || waitpid(p, NULL, 0) != p;
	}
	if (!strcmp(mode, "fork_threads")) {
		pid_t p = fork();
		if (p == 0) {
			pthread_t th[8];
			pthread_barrier_init(&go, NULL, 8);
			for (int i = 0; i < 8; i++)
				if (pthread_create(&th[i], NULL, hundred, NULL) != 0)
					_exit(1);
			for (int i = 0; i < 8; i++)
				pthread_join(th[i], NULL);
			_exit(0);
		}
		int st = 1;
		return p < 0 || waitpid(p, &st, 0) != p || st != 0;
	}
	fprintf(stderr, "usage: nvtx_edge domains|misuse|orphan|quick_fork|forks N|slow_child|fork_threads\n");
	return 2;
}
