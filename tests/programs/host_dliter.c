/* host_dliter: calls dl_iterate_phdr in a loop for S seconds (default 2) and prints the count.
 * Much of each call is the taking and leaving of the loader's lock, so CPU samples land
 * inside them: a sampler whose walk takes that lock again must not wait for the interrupted
 * call (tests/cases/host.sh). */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int first_only(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	++*(long *)data;
	return 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	long seen = 0, calls = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000; i++, calls++)
			dl_iterate_phdr(first_only, &seen);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	printf("%s\n", seen == calls ? "ok" : "callback missed");
	return 0;
}
