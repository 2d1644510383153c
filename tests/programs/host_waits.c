/* host_waits.c: the main thread blocks once, about 30 ms, in each of these libc calls, for
 * `--trace osrt`: sem_clockwait, pthread_cond_clockwait, pthread_mutex_clocklock,
 * pthread_rwlock_clockrdlock, pthread_rwlock_clockwrlock, pthread_timedjoin_np,
 * pthread_clockjoin_np, pthread_barrier_wait, epoll_pwait2, sigwait, sigwaitinfo,
 * sigtimedwait, sigsuspend, pause, flock, lockf, lockf64, fcntl (F_OFD_SETLKW), fcntl64
 * (F_SETLKW), fopen (of a FIFO), fopen64, fread, fwrite and fclose (on pipes), and through
 * syscall(2), futex (FUTEX_WAIT) and futex_waitv (where the kernel has it; else it prints
 * "futex_waitv: ENOSYS"). syscall(SYS_gettid) and the helper's FUTEX_WAKE must not be recorded.
 * A helper thread (or, for lockf, a child process) makes each wait last HOLD_MS. Each call
 * whose wait is asserted is made once; fcntl is also called with commands that do not wait
 * (F_GETFL, F_SETFD), which osrt must not record. Exits 3 (the profiler must pass it on) or
 * 1 when a call does not behave as expected. Usage: host_waits DIR (for its FIFO and lock files). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MS 30

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static struct timespec in_5s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	ts.tv_sec += 5;
	return ts;
}

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "host_waits: line %d: %s failed (errno %d)\n", __LINE__, \
				#cond, errno);                                                 \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

static pthread_t spawn(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, fn, arg) == 0);
	return t;
}

static void join(pthread_t t)
{
	CHECK(pthread_join(t, NULL) == 0);
}

/* A helper that, after `ready` is posted by it, holds something for HOLD_MS then lets go. */
static sem_t ready;
static sem_t sem;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int flag;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static int pfd[2];
static const char *lock_path;
static pthread_t main_thread;
static volatile sig_atomic_t got_usr2, stop_kill;

static void *post_later(void *a)
{
	(void)a;
	sleep_ms(HOLD_MS);
	sem_post(&sem);
	return NULL;
}

static void *signal_later(void *a)
{
	(void)a;
	sleep_ms(HOLD_MS);
	pthread_mutex_lock(&mu);
	flag = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *hold_mutex(void *a)
{
	(void)a;
	pthread_mutex_lock(&mu);
	sem_post(&ready);
	sleep_ms(HOLD_MS);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *hold_rw(void *write)
{
	if (write)
		pthread_rwlock_wrlock(&rw);
	else
		pthread_rwlock_rdlock(&rw);
	sem_post(&ready);
	sleep_ms(HOLD_MS);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

static void *just_sleep(void *a)
{
	(void)a;
	sleep_ms(HOLD_MS);
	return NULL;
}

static void *barrier_later(void *a)
{
	(void)a;
	sleep_ms(HOLD_MS);
	pthread_barrier_wait(&bar);
	return NULL;
}

static void *write_later(void *a)
{
	(void)a;
	sleep_ms(HOLD_MS);
	CHECK(write(pfd[1], "x", 1) == 1);
	return NULL;
}

static void *kill_later(void *sig)
{
	sleep_ms(HOLD_MS);
	pthread_kill(main_thread, (int)(long)sig);
	return NULL;
}

/* pause() returns only for a signal that arrives while it waits: send one every HOLD_MS
 * until main says it has returned. */
static void *kill_until_stopped(void *sig)
{
	while (!stop_kill) {
		sleep_ms(HOLD_MS);
		if (!stop_kill)
			pthread_kill(main_thread, (int)(long)sig);
	}
	return NULL;
}

static _Atomic uint32_t word;

static void *wake_later(void *a)
{
	(void)a;
	sleep_ms(HOLD_MS);
	word = 1;
	CHECK(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) >= 0);
	return NULL;
}

static void on_usr2(int s)
{
	(void)s;
	got_usr2 = 1;
}

/* holds an exclusive lock on lock_path of kind `kind` through its own open file */
static void *hold_file_lock(void *kind)
{
	int fd = open(lock_path, O_RDWR);
	CHECK(fd >= 0);
	if (kind == (void *)1) {
		CHECK(flock(fd, LOCK_EX) == 0);
	} else {
		struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		CHECK(fcntl(fd, F_OFD_SETLK, &l) == 0);
	}
	sem_post(&ready);
	sleep_ms(HOLD_MS);
	close(fd); /* releases either lock */
	return NULL;
}

static void *open_fifo_writer_later(void *path)
{
	sleep_ms(HOLD_MS);
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	CHECK(write(fd, "y", 1) == 1);
	close(fd);
	return NULL;
}

static void *drain_later(void *a)
{
	(void)a;
	char buf[4096];
	sleep_ms(HOLD_MS);
	for (;;) { /* until the pipe is empty and main has closed its end */
		ssize_t n = read(pfd[0], buf, sizeof buf);
		if (n <= 0)
			break;
	}
	return NULL;
}

static void fill_pipe(void)
{
	int fl = fcntl(pfd[1], F_GETFL);
	CHECK(fl >= 0);
	CHECK(fcntl(pfd[1], F_SETFL, fl | O_NONBLOCK) == 0);
	char buf[4096] = {0};
	while (write(pfd[1], buf, sizeof buf) > 0)
		;
	CHECK(errno == EAGAIN);
	CHECK(fcntl(pfd[1], F_SETFL, fl) == 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: host_waits DIR\n");
		return 2;
	}
	main_thread = pthread_self();
	sem_init(&ready, 0, 0);
	sem_init(&sem, 0, 0);

	/* sem_clockwait */
	pthread_t t = spawn(post_later, NULL);
	struct timespec ts = in_5s(CLOCK_MONOTONIC);
	CHECK(sem_clockwait(&sem, CLOCK_MONOTONIC, &ts) == 0);
	join(t);

	/* pthread_cond_clockwait (one wait: the helper signals once, HOLD_MS later) */
	pthread_mutex_lock(&mu);
	t = spawn(signal_later, NULL);
	ts = in_5s(CLOCK_MONOTONIC);
	CHECK(pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &ts) == 0 && flag);
	pthread_mutex_unlock(&mu);
	join(t);

	/* pthread_mutex_clocklock */
	t = spawn(hold_mutex, NULL);
	sem_wait(&ready);
	ts = in_5s(CLOCK_MONOTONIC);
	CHECK(pthread_mutex_clocklock(&mu, CLOCK_MONOTONIC, &ts) == 0);
	pthread_mutex_unlock(&mu);
	join(t);

	/* pthread_rwlock_clockrdlock against a writer, clockwrlock against a reader */
	t = spawn(hold_rw, (void *)1);
	sem_wait(&ready);
	ts = in_5s(CLOCK_MONOTONIC);
	CHECK(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts) == 0);
	pthread_rwlock_unlock(&rw);
	join(t);
	t = spawn(hold_rw, NULL);
	sem_wait(&ready);
	ts = in_5s(CLOCK_REALTIME);
	CHECK(pthread_rwlock_clockwrlock(&rw, CLOCK_REALTIME, &ts) == 0);
	pthread_rwlock_unlock(&rw);
	join(t);

	/* pthread_timedjoin_np, pthread_clockjoin_np */
	t = spawn(just_sleep, NULL);
	ts = in_5s(CLOCK_REALTIME);
	CHECK(pthread_timedjoin_np(t, NULL, &ts) == 0);
	t = spawn(just_sleep, NULL);
	ts = in_5s(CLOCK_MONOTONIC);
	CHECK(pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &ts) == 0);

	/* pthread_barrier_wait: main arrives first and waits for the helper */
	pthread_barrier_init(&bar, NULL, 2);
	t = spawn(barrier_later, NULL);
	int b = pthread_barrier_wait(&bar);
	CHECK(b == 0 || b == PTHREAD_BARRIER_SERIAL_THREAD);
	join(t);

	/* epoll_pwait2 on a pipe written HOLD_MS later */
	CHECK(pipe(pfd) == 0);
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN}, out;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &ev) == 0);
	t = spawn(write_later, NULL);
	struct timespec five = {5, 0};
	CHECK(epoll_pwait2(ep, &out, 1, &five, NULL) == 1);
	join(t);
	char c;
	CHECK(read(pfd[0], &c, 1) == 1);
	close(ep);

	/* sigwait, sigwaitinfo, sigtimedwait: SIGUSR1 blocked in every thread, sent to main */
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);
	int sig = 0;
	t = spawn(kill_later, (void *)(long)SIGUSR1);
	CHECK(sigwait(&usr1, &sig) == 0 && sig == SIGUSR1);
	join(t);
	siginfo_t si;
	t = spawn(kill_later, (void *)(long)SIGUSR1);
	CHECK(sigwaitinfo(&usr1, &si) == SIGUSR1);
	join(t);
	t = spawn(kill_later, (void *)(long)SIGUSR1);
	CHECK(sigtimedwait(&usr1, &si, &five) == SIGUSR1);
	join(t);

	/* sigsuspend (SIGUSR2 blocked until it waits), then pause */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sigset_t usr2, old;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	CHECK(pthread_sigmask(SIG_BLOCK, &usr2, &old) == 0);
	t = spawn(kill_later, (void *)(long)SIGUSR2);
	CHECK(sigsuspend(&old) == -1 && errno == EINTR && got_usr2);
	join(t);
	CHECK(pthread_sigmask(SIG_UNBLOCK, &usr2, NULL) == 0);
	got_usr2 = 0;
	t = spawn(kill_until_stopped, (void *)(long)SIGUSR2);
	CHECK(pause() == -1 && errno == EINTR && got_usr2);
	stop_kill = 1;
	join(t);

	/* flock, fcntl(F_OFD_SETLKW): a helper thread holds the lock through its own open file */
	char path[4096];
	snprintf(path, sizeof path, "%s/host_waits.lock", argv[1]);
	lock_path = path;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	t = spawn(hold_file_lock, (void *)1);
	sem_wait(&ready);
	CHECK(flock(fd, LOCK_EX) == 0);
	CHECK(flock(fd, LOCK_UN) == 0);
	join(t);
	CHECK(fcntl(fd, F_GETFL) >= 0);                 /* not a wait: not recorded */
	CHECK(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0);     /* nor this */
	t = spawn(hold_file_lock, (void *)2);
	sem_wait(&ready);
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	CHECK(fcntl(fd, F_OFD_SETLKW, &l) == 0);
	l.l_type = F_UNLCK;
	CHECK(fcntl(fd, F_OFD_SETLK, &l) == 0);
	join(t);

	/* lockf, lockf64, fcntl64(F_SETLKW): process locks, so a child holds them */
	for (int i = 0; i < 3; i++) {
		int go[2];
		CHECK(pipe(go) == 0);
		pid_t child = fork();
		CHECK(child >= 0);
		if (child == 0) {
			int cfd = open(path, O_RDWR);
			if (cfd < 0 || lockf(cfd, F_TLOCK, 0) != 0 || write(go[1], "g", 1) != 1)
				_exit(1);
			sleep_ms(HOLD_MS);
			_exit(0); /* the lock goes with the process */
		}
		close(go[1]);
		CHECK(read(go[0], &c, 1) == 1);
		close(go[0]);
		if (i == 0) {
			CHECK(lockf(fd, F_LOCK, 0) == 0);
			CHECK(lockf(fd, F_ULOCK, 0) == 0);
		} else if (i == 1) {
			CHECK(lockf64(fd, F_LOCK, 0) == 0);
			CHECK(lockf64(fd, F_ULOCK, 0) == 0);
		} else {
			struct flock64 l64 = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
			CHECK(fcntl64(fd, F_SETLKW, &l64) == 0);
			l64.l_type = F_UNLCK;
			CHECK(fcntl64(fd, F_SETLK, &l64) == 0);
		}
		int st;
		CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	close(fd);

	/* fopen of a FIFO waits for its writer; fopen64 of the same the same way */
	snprintf(path, sizeof path, "%s/host_waits.fifo", argv[1]);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	t = spawn(open_fifo_writer_later, path);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	join(t);
	CHECK(fclose(f) == 0); /* not a wait: under the threshold */
	t = spawn(open_fifo_writer_later, path);
	f = fopen64(path, "r");
	CHECK(f != NULL);
	join(t);
	fclose(f);
	unlink(path);

	/* fread from a pipe written HOLD_MS later */
	f = fdopen(pfd[0], "r");
	CHECK(f != NULL);
	setvbuf(f, NULL, _IONBF, 0);
	t = spawn(write_later, NULL);
	CHECK(fread(&c, 1, 1, f) == 1 && c == 'x');
	join(t);

	/* fwrite into a full pipe, unbuffered: waits until the helper drains it */
	FILE *w = fdopen(pfd[1], "w");
	CHECK(w != NULL);
	setvbuf(w, NULL, _IONBF, 0);
	fill_pipe();
	t = spawn(drain_later, NULL);
	CHECK(fwrite("z", 1, 1, w) == 1);
	/* fclose of a buffered stream into a full pipe: its flush waits likewise */
	int again[2];
	CHECK(pipe(again) == 0);
	FILE *bw = fdopen(again[1], "w");
	CHECK(bw != NULL);
	pfd[1] = again[1];
	fill_pipe();
	fclose(w); /* the first pipe's writer: the drain thread sees its end */
	join(t);
	pfd[0] = again[0];
	CHECK(fwrite("buffered", 1, 8, bw) == 8); /* into the stream's buffer: no wait */
	t = spawn(drain_later, NULL);
	CHECK(fclose(bw) == 0);
	join(t);
	fclose(f);
	close(again[0]);

	/* futex through syscall(2): one FUTEX_WAIT until the helper stores 1 and wakes it */
	CHECK(syscall(SYS_gettid) == (long)getpid());
	t = spawn(wake_later, NULL);
	while (word == 0)
		if (syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) != 0)
			CHECK(errno == EAGAIN || errno == EINTR);
	join(t);
#ifdef SYS_futex_waitv
	word = 0;
	struct futex_waitv fw = {.val = 0, .uaddr = (uintptr_t)&word,
				 .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG};
	t = spawn(wake_later, NULL);
	long r = 0;
	while (word == 0 && (r = syscall(SYS_futex_waitv, &fw, 1, 0, NULL, CLOCK_MONOTONIC)) != 0)
		if (errno == ENOSYS)
			break;
	if (r != 0 && errno == ENOSYS)
		fprintf(stderr, "futex_waitv: ENOSYS\n");
	join(t);
#else
	fprintf(stderr, "futex_waitv: ENOSYS\n");
#endif
	return 3;
}
