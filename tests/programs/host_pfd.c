/*
 * host_pfd: the perf-event descriptors a program holds (those whose /proc/self/fd link reads
 * "anon_inode:[perf_event]"); under gpuscope's sampling, one task clock per sampled thread
 * where the kernel allows them, none with CPU-time timers, none without gpuscope.
 * Starts 3 threads and waits until each runs, then prints "threads: N"; forks a child that
 * prints "child: N" (its own thread's only, not its parent's threads') and execs this program
 * as "host_pfd exec", which prints "exec: N"; waits for it; stops and joins the threads and
 * prints "joined: N". Exit status 0.
 *   usage: host_pfd
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[300], link[64];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t len = readlink(path, link, sizeof(link) - 1);
		if (len > 0) {
			link[len] = 0;
			n += !strcmp(link, "anon_inode:[perf_event]");
		}
	}
	closedir(d);
	return n;
}

static atomic_int started, stop;

static void *worker(void *arg)
{
	(void)arg;
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&stop))
		usleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		printf("exec: %d\n", perf_fds());
		return 0;
	}
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			return 2;
	while (atomic_load(&started) < 3)
		usleep(1000);
	printf("threads: %d\n", perf_fds());
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		printf("child: %d\n", perf_fds());
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
		_exit(2);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 3;
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("joined: %d\n", perf_fds());
	return 0;
}
