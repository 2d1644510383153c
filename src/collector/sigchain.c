/* sigchain.c: the program keeps its own SIGPROF while the CPU sampler uses the signal.
 *
 * The sampler's timers send SIGPROF (host.c). A program may use SIGPROF itself: its own
 * profiler (setitimer(ITIMER_PROF), gperftools, vmprof), a POSIX timer, `kill -PROF`. Without
 * this file the program's sigaction replaced the sampler's handler (no samples from then on)
 * and the program's handler then received the sampler's signals too (1000 a second of CPU
 * time, against its own 100 of a 10 ms timer); a program that left SIGPROF at its default was
 * not killed by a SIGPROF sent to it.
 *
 * Here the disposition the program sets is kept apart from the one installed:
 *  - sigaction, signal, bsd_signal, sysv_signal and __sysv_signal on SIGPROF, once the
 *    sampler holds it, record the program's action and report the program's previous one;
 *    the installed handler stays the sampler's;
 *  - the sampler's handler passes every signal that is not one of its timers' (they carry a
 *    cookie in si_value) to gs_sigchain_pass, which does what the program's action says:
 *    ignore it, end the process as the default action does, or run the program's handler
 *    with the mask and flags it asked for (SA_SIGINFO, SA_NODEFER, SA_RESETHAND);
 *  - an exec carries an ignored SIGPROF into the new image, as it would without gpuscope;
 *  - a vfork child (it shares this memory, not its actions) sets its own actions only.
 *
 * The program's action is read inside the signal handler, so it is published with a sequence
 * count (odd while it is written); the writer blocks SIGPROF on its own thread while it
 * writes, so a handler never waits for a write it interrupted.
 *
 * Not covered:
 *  - the installed handler keeps SA_RESTART whatever the program asks: a call interrupted by
 *    the program's own SIGPROF is restarted even when its action lacks SA_RESTART (taking the
 *    program's choice would let the sampler's signals interrupt the calls of every thread
 *    with EINTR, CUDA's and PyTorch's among them, as soon as Python set a SIGPROF handler);
 *  - the program's SA_ONSTACK (the sampler's walk does not run on a small alternate stack);
 *  - a handler set by the raw system call (rt_sigaction, as the Go runtime does), and sigset
 *    and siginterrupt (obsolescent): they act on the installed handler, as before. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static int chain_sig;                      /* the signal held; 0: none, the wrappers forward */
static struct sigaction ours;              /* the sampler's handler as installed */
static struct sigaction prog;              /* the program's action, under seq */
static _Atomic unsigned seq;               /* even: prog is stable */
static _Atomic unsigned reset_at;          /* seq + 1 of an action SA_RESETHAND used up; 0 none */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

static sigaction_fn real_sigaction(void)
{
	static sigaction_fn f;
	if (GS_UNLIKELY(!f))
		f = (sigaction_fn)(uintptr_t)dlsym(RTLD_NEXT, "sigaction");
	return f;
}

/* The program's action as it stands now (SIG_DFL once SA_RESETHAND has used it). Safe in a
 * signal handler: it never waits on a writer of its own thread (see write_prog). */
static void read_prog(struct sigaction *out)
{
	unsigned s0, s1;
	do {
		while ((s0 = atomic_load_explicit(&seq, memory_order_acquire)) & 1u)
			;
		memcpy(out, &prog, sizeof(*out));
		atomic_thread_fence(memory_order_acquire);
		s1 = atomic_load_explicit(&seq, memory_order_relaxed);
	} while (s0 != s1);
	if (atomic_load_explicit(&reset_at, memory_order_relaxed) == s0 + 1u) {
		out->sa_handler = SIG_DFL;
		out->sa_flags &= ~SA_SIGINFO;
	}
}

static void write_prog(const struct sigaction *act)
{
	sigset_t one, old;
	sigemptyset(&one);
	sigaddset(&one, chain_sig);
	pthread_sigmask(SIG_BLOCK, &one, &old);
	pthread_mutex_lock(&write_lock);
	atomic_fetch_add_explicit(&seq, 1u, memory_order_acq_rel);
	atomic_thread_fence(memory_order_release);
	memcpy(&prog, act, sizeof(prog));
	atomic_fetch_add_explicit(&seq, 1u, memory_order_release);
	pthread_mutex_unlock(&write_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int gs_sigchain_take(int sig, void (*handler)(int, siginfo_t *, void *))
{
	sigaction_fn f = real_sigaction();
	if (!f)
		return -1;
	struct sigaction a, before;
	memset(&a, 0, sizeof(a));
	a.sa_sigaction = handler;
	a.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&a.sa_mask); /* nothing interrupts a walk */
	if (f(sig, &a, &before) != 0)
		return -1;
	ours = a;
	memcpy(&prog, &before, sizeof(prog)); /* SIG_DFL, or SIG_IGN inherited through an exec */
	chain_sig = sig;
	return 0;
}

/* The default action of the signal: for SIGPROF (and the others this could hold) the end of
 * the process, by the signal itself, so its parent sees what it would have seen. */
static void pass_default(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction()(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL); /* delivered here: the process ends */
	real_sigaction()(sig, &ours, NULL);       /* a signal whose default is to be ignored */
}

void gs_sigchain_pass(int sig, siginfo_t *si, void *ucv)
{
	if (sig != chain_sig || !chain_sig)
		return;
	struct sigaction p;
	read_prog(&p);
	if (p.sa_handler == SIG_IGN)
		return;
	if (p.sa_handler == SIG_DFL) {
		pass_default(sig);
		return;
	}
	if (p.sa_flags & SA_RESETHAND) /* as the kernel does on delivery */
		atomic_store_explicit(&reset_at, atomic_load_explicit(&seq, memory_order_relaxed) + 1u,
				      memory_order_relaxed);
	/* the mask the kernel would have set for the program's handler */
	sigset_t mask, all;
	sigfillset(&all);
	if (ucv)
		memcpy(&mask, &((ucontext_t *)ucv)->uc_sigmask, sizeof(mask));
	else
		pthread_sigmask(SIG_SETMASK, NULL, &mask);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&p.sa_mask, s) == 1)
			sigaddset(&mask, s);
	if (!(p.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, ucv);
	else
		p.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
}

/* exec: a SIGPROF the program ignores stays ignored in the new image (a handled one becomes
 * the default there, which is what the sampler's handler becomes too). before = 0: the exec
 * failed, the sampler's handler again. */
void gs_sigchain_exec(int before)
{
	if (!chain_sig)
		return;
	struct sigaction p;
	read_prog(&p);
	if (p.sa_handler != SIG_IGN)
		return;
	if (before) {
		struct sigaction ign;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		real_sigaction()(chain_sig, &ign, NULL);
	} else {
		real_sigaction()(chain_sig, &ours, NULL);
	}
}

/* In a fork child: a write another thread of the parent was making is not coming (its lock is
 * freed, its count made even; the action it was writing may be half there, as a libc would
 * leave one set by a thread that did not survive the fork). */
void gs_sigchain_fork_child(void)
{
	write_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER; /* as gs_nvtx_child_reset */
	if (atomic_load(&seq) & 1u)
		atomic_fetch_add(&seq, 1u);
}

/* ---- the program's calls ---- */

GS_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigaction_fn f = real_sigaction();
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	/* a vfork child shares this memory with its parent but has its own actions: what it sets
	 * (Python's subprocess puts handled signals back to the default there) is its own */
	if (!chain_sig || sig != chain_sig || gs_in_vfork_child())
		return f(sig, act, old);
	struct sigaction was;
	read_prog(&was);
	if (act)
		write_prog(act);
	if (old)
		*old = was;
	return 0;
}

/* signal(3) and its kin set the action through libc's internal sigaction, past the wrapper
 * above; here they build the action glibc builds and go through it. */
static __sighandler_t set_handler(int sig, __sighandler_t h, int flags, int mask_self)
{
	if (h == SIG_ERR || sig < 1 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction a, old;
	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	sigemptyset(&a.sa_mask);
	if (mask_self)
		sigaddset(&a.sa_mask, sig);
	a.sa_flags = flags;
	if (sigaction(sig, &a, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* BSD semantics (glibc's signal under _DEFAULT_SOURCE): restarted calls, the signal blocked
 * in its handler. Other signals go to libc's own, which knows siginterrupt's choices. */
GS_EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
	if (!chain_sig || sig != chain_sig) {
		static __sighandler_t (*f)(int, __sighandler_t);
		if (GS_UNLIKELY(!f))
			f = (__sighandler_t(*)(int, __sighandler_t))(uintptr_t)dlsym(RTLD_NEXT, "signal");
		return f ? f(sig, h) : SIG_ERR;
	}
	return set_handler(sig, h, SA_RESTART, 1);
}

GS_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t h)
{
	return signal(sig, h);
}

/* System V semantics (signal under strict XOPEN, sysv_signal): one-shot, not blocked,
 * not restarted */
static __sighandler_t sysv(const char *name, int sig, __sighandler_t h)
{
	if (!chain_sig || sig != chain_sig) {
		__sighandler_t (*f)(int, __sighandler_t) =
			(__sighandler_t(*)(int, __sighandler_t))(uintptr_t)dlsym(RTLD_NEXT, name);
		return f ? f(sig, h) : SIG_ERR;
	}
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

GS_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t h)
{
	return sysv("sysv_signal", sig, h);
}

GS_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t h)
{
	return sysv("__sysv_signal", sig, h);
}
