/* forkcost.c: what a fork costs a process of many mappings. `forkcost MAPS FORKS` maps a file
 * MAPS times (every other mapping executable, as a process of many shared libraries has), spends
 * 0.1 s of CPU (so a CPU sampler has armed its timer and walked its stack), then forks FORKS
 * children one after another, each exiting at once (_exit), and prints the mean microseconds
 * of one fork, the child's exit and the wait: "MAPS FORK_US". bench/forkcost.sh runs it with and
 * without gpuscope. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink; /* keeps the CPU loop */

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int maps = argc > 1 ? atoi(argv[1]) : 2000, forks = argc > 2 ? atoi(argv[2]) : 40;
	int fd = open(argv[0], O_RDONLY);
	if (fd < 0 || maps < 0 || forks < 1)
		return 2;
	for (int i = 0; i < maps; i++)
		if (mmap(NULL, 8192, PROT_READ | (i % 2 ? PROT_EXEC : 0), MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
	for (double t0 = now_us(); now_us() - t0 < 100000;)
		for (int i = 0; i < 10000; i++)
			sink += i;
	double t0 = now_us();
	for (int i = 0; i < forks; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return 1;
	}
	printf("%d %.1f\n", maps, (now_us() - t0) / forks);
	return 0;
}
