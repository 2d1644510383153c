/* host_block.c: a CPU-only program that blocks in known ways, for `--trace osrt`:
 *   3 x a thread waits ~40 ms in pthread_mutex_lock for a mutex main holds while it sleeps
 *       40 ms in nanosleep (main starts sleeping once the thread says, through a semaphore
 *       that main waits on, that it is about to lock);
 *   5 x usleep(20000) on main;
 *   2 x main reads a pipe whose writer thread sleeps 30 ms (nanosleep) before writing;
 * then exits with status 7 (the profiler must pass it on). */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int fds[2];
static sem_t ready;

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void *locker(void *arg)
{
	(void)arg;
	sem_post(&ready);
	pthread_mutex_lock(&m); /* blocks until main unlocks */
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	sleep_ms(30);
	if (write(fds[1], "x", 1) != 1)
		perror("write");
	return NULL;
}

int main(void)
{
	sem_init(&ready, 0, 0);
	for (int i = 0; i < 3; i++) {
		pthread_t t;
		pthread_mutex_lock(&m);
		pthread_create(&t, NULL, locker, NULL);
		sem_wait(&ready);
		sleep_ms(40);
		pthread_mutex_unlock(&m);
		pthread_join(t, NULL);
	}
	for (int i = 0; i < 5; i++)
		usleep(20000);
	if (pipe(fds) != 0)
		return 1;
	for (int i = 0; i < 2; i++) {
		pthread_t t;
		char c;
		pthread_create(&t, NULL, writer, NULL);
		if (read(fds[0], &c, 1) != 1)
			return 1;
		pthread_join(t, NULL);
	}
	return 7;
}
