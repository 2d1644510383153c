/* host_tlsload.c: libraries with thread-local storage loaded while the main thread's samples
 * walk its stack inside malloc. A second thread dlopens the libraries named on the command line
 * (copies of libhost_tls.so: each a new TLS module, so glibc grows each thread's TLS vector,
 * with malloc, at that thread's next access to a dynamically loaded module's storage), one every
 * 5 ms; the main thread spends its time in malloc and free meanwhile, and for 0.3 s more. A
 * stack walk that reached such storage in the signal handler (libunwind's unw_backtrace does)
 * would take malloc's lock, held by the interrupted malloc: the program would hang. Prints
 * "loaded: N" and exits 0.
 *   usage: host_tlsload LIB... */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int nlibs, loaded;
static char **libs;
static volatile int done;

static void *loader(void *arg)
{
	(void)arg;
	for (int i = 0; i < nlibs; i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
		unsigned long (*touch)(void) = h ? (unsigned long (*)(void))(uintptr_t)dlsym(h, "host_tls_touch") : NULL;
		if (touch && touch() == 1)
			loaded++;
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
	done = 1;
	return NULL;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	nlibs = argc - 1;
	libs = argv + 1;
	pthread_t th;
	if (pthread_create(&th, NULL, loader, NULL) != 0)
		return 2;
	void *keep[64] = {0};
	unsigned x = 1;
	double end = 0;
	for (;;) {
		if (done && !end)
			end = now() + 0.3;
		else if (done && now() >= end)
			break;
		for (int i = 0; i < 1000; i++) {
			x = x * 1103515245u + 12345u;
			free(keep[x % 64]);
			keep[x % 64] = malloc(16 + (x >> 16) % 4096);
		}
	}
	pthread_join(th, NULL);
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	printf("loaded: %d\n", loaded);
	return 0;
}
