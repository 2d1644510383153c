/* train_loop.c: a stand-in for a training job, annotated with NVTX like a PyTorch script with
 * torch.cuda.nvtx ranges: a loader thread prepares batches while the main thread runs steps
 * (forward, backward, optimizer). It needs no GPU; the demo profiles it with `gpuscope profile`
 * and shows where its time goes. Durations are planted with sleeps. */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
		;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int batches, steps;

static void *loader(void *arg)
{
	(void)arg;
	nvtxNameOsThreadA((uint32_t)gettid(), "data_loader");
	for (int i = 0; i < steps; i++) {
		nvtxRangePushA("load_batch");
		sleep_us(3000); /* decode and augment */
		nvtxRangePop();
		pthread_mutex_lock(&lock);
		batches++;
		pthread_cond_signal(&ready);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	steps = argc > 1 ? atoi(argv[1]) : 20;
	nvtxNameOsThreadA((uint32_t)gettid(), "trainer");
	pthread_t t;
	pthread_create(&t, NULL, loader, NULL);
	for (int i = 0; i < steps; i++) {
		nvtxRangePushA("train_step");
		nvtxRangePushA("wait_for_batch");
		pthread_mutex_lock(&lock);
		while (batches <= i)
			pthread_cond_wait(&ready, &lock);
		pthread_mutex_unlock(&lock);
		nvtxRangePop();
		nvtxRangePushA("forward");
		sleep_us(1000);
		nvtxRangePop();
		nvtxRangePushA("backward");
		sleep_us(2000);
		nvtxRangePop();
		nvtxRangePushA("optimizer");
		sleep_us(300);
		nvtxRangePop();
		nvtxRangePop();
	}
	pthread_join(t, NULL);
	printf("trained %d steps\n", steps);
	return 0;
}
