/*
 * host_sigprof: a program that uses SIGPROF itself, as CPU profilers in the program do.
 * Its output and exit status must be the same with and without gpuscope's sampler, which
 * sends SIGPROF too.
 *
 * Usage: host_sigprof handler | default | ignore | oneshot
 *
 *   handler: reports the disposition it finds ("start: default"), installs a handler with
 *     sigaction (SA_SIGINFO), reads it back ("readback: ok"), runs setitimer(ITIMER_PROF) at
 *     100 Hz while burn_with_handler spins 400 ms of CPU, then one POSIX timer of its own on
 *     SIGPROF (si_value 42) and a raise(); prints "ticks: N cpu_ms: M" (N about M / 10),
 *     "timer: 1 value 42", "raised: 1"; then signal(SIGPROF, SIG_IGN) must return the handler
 *     ("signal returned: handler") and a raise is ignored. Exit status 3.
 *   default: raise(SIGPROF) with the default action: the process ends by SIGPROF after
 *     printing "before".
 *   ignore: SIGPROF ignored by sigaction, then exec of itself with "ignored-check", which
 *     prints the disposition it inherited ("inherited: ignore") and exits 4.
 *   oneshot: sysv_signal(SIGPROF, h) (one-shot): the first raise runs h ("oneshot: 1"),
 *     the disposition then reads "default", and the second raise ends the process.
 *   mask: a handler whose sa_mask holds SIGUSR1, then one with SA_NODEFER; each reports what
 *     is blocked while it runs ("mask: usr1 1 prof 1", "nodefer: usr1 0 prof 0"). Exit 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks, timer_hits, timer_value, raised, oneshot;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_TIMER) {
		timer_hits++;
		timer_value = si->si_value.sival_int;
	} else if (si->si_code == SI_TKILL || si->si_code == SI_USER) {
		raised++;
	} else {
		ticks++;
	}
}

static const char *disposition(void)
{
	struct sigaction a;
	if (sigaction(SIGPROF, NULL, &a) != 0)
		return "error";
	if (a.sa_handler == SIG_DFL)
		return "default";
	if (a.sa_handler == SIG_IGN)
		return "ignore";
	return (a.sa_flags & SA_SIGINFO) && a.sa_sigaction == on_prof ? "handler" : "foreign";
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static double burn_with_handler(double ms)
{
	volatile double x = 1.0;
	double end = cpu_ms() + ms;
	while (cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 1.0000001 + 1e-9;
	return x;
}

static void on_mask(int sig)
{
	(void)sig;
	sigset_t now;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	printf("%s: usr1 %d prof %d\n", oneshot ? "nodefer" : "mask", sigismember(&now, SIGUSR1),
	       sigismember(&now, SIGPROF));
}

static void on_oneshot(int sig)
{
	(void)sig;
	oneshot++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "handler";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "default")) {
		printf("before\n");
		raise(SIGPROF);
		printf("after\n"); /* not reached */
		return 0;
	}
	if (!strcmp(mode, "ignored-check")) {
		printf("inherited: %s\n", disposition());
		return 4;
	}
	if (!strcmp(mode, "ignore")) {
		struct sigaction a;
		memset(&a, 0, sizeof(a));
		a.sa_handler = SIG_IGN;
		sigaction(SIGPROF, &a, NULL);
		raise(SIGPROF);
		printf("ignored: %s\n", disposition());
		execl(argv[0], argv[0], "ignored-check", (char *)NULL);
		perror("execl");
		return 1;
	}
	if (!strcmp(mode, "mask")) {
		struct sigaction a;
		memset(&a, 0, sizeof(a));
		a.sa_handler = on_mask;
		sigemptyset(&a.sa_mask);
		sigaddset(&a.sa_mask, SIGUSR1);
		sigaction(SIGPROF, &a, NULL);
		raise(SIGPROF);
		oneshot = 1;
		sigemptyset(&a.sa_mask);
		a.sa_flags = SA_NODEFER;
		sigaction(SIGPROF, &a, NULL);
		raise(SIGPROF);
		return 0;
	}
	if (!strcmp(mode, "oneshot")) {
		if (sysv_signal(SIGPROF, on_oneshot) == SIG_ERR)
			return 1;
		raise(SIGPROF);
		printf("oneshot: %d\n", (int)oneshot);
		printf("after: %s\n", disposition());
		raise(SIGPROF);
		printf("not reached\n");
		return 0;
	}
	printf("start: %s\n", disposition());
	struct sigaction a;
	memset(&a, 0, sizeof(a));
	a.sa_sigaction = on_prof;
	a.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&a.sa_mask);
	if (sigaction(SIGPROF, &a, NULL) != 0)
		return 1;
	printf("readback: %s\n", !strcmp(disposition(), "handler") ? "ok" : disposition());

	struct itimerval it = {{0, 10000}, {0, 10000}};
	setitimer(ITIMER_PROF, &it, NULL);
	double c0 = cpu_ms();
	burn_with_handler(400);
	double c1 = cpu_ms();
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	printf("ticks: %d cpu_ms: %.0f\n", (int)ticks, c1 - c0);

	timer_t tm;
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGPROF;
	sev.sigev_value.sival_int = 42;
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) != 0)
		return 1;
	struct itimerspec once = {{0, 0}, {0, 5000000}};
	timer_settime(tm, 0, &once, NULL);
	while (!timer_hits)
		usleep(1000);
	timer_delete(tm);
	printf("timer: %d value %d\n", (int)timer_hits, (int)timer_value);
	raise(SIGPROF);
	printf("raised: %d\n", (int)raised);

	__sighandler_t was = signal(SIGPROF, SIG_IGN);
	printf("signal returned: %s\n", (uintptr_t)was == (uintptr_t)on_prof ? "handler" : "other");
	raise(SIGPROF);
	printf("now: %s\n", disposition());
	return 3;
}
