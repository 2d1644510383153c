/* osrt.c: libgpuscope-osrt.so, the OS runtime wrappers of `gpuscope profile --trace osrt`.
 *
 * The blocking libc calls (lock, condition and semaphore waits, sleeps, reads and writes,
 * polls, opens, waits for children) are interposed here. `gpuscope profile` puts this library
 * in LD_PRELOAD with osrt only, beside libgpuscope-inject.so (which it links against), so
 * these definitions come before libc's; each one reads the clock around the real call and has
 * the collector record it (gs_osrt_record, into the calling thread's ring chunk) only when the
 * call took at least the threshold (GPUSCOPE_OSRT_THRESHOLD, default 1 us like nsys). Below it
 * the cost is two clock reads and a compare (bench/RESULTS.md).
 *
 * Why a library apart: libgpuscope-inject.so is preloaded for CPU sampling too (on by
 * default), and while it defined these wrappers every lock and read of the program went
 * through them with osrt off as well (a load, a branch and an indirect call: 0.17% of a CPU
 * PyTorch loop's time in its pthread_mutex_lock alone, measured with perf). Without osrt the
 * program's calls now reach libc directly.
 *
 * Invariants: the wrappers preserve the real call's result and errno; the collector drops the
 * calls it makes itself (tls.busy). A call inside libc (fopen's open, sigwait's sigtimedwait)
 * does not pass through here: each call of the program is recorded once, by its own name. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../format/gst.h"
#include "../collector.h"
#include "rawsys.h"

/* Whether this call is clocked: osrt on and inside the capture range (host.c keeps
 * gs_osrt_ctl.clocking so; outside the range a wrapper costs a load and a branch more than the
 * call, so the range's on/off blocks measure what osrt costs). No thread-local read here: the
 * collector's own calls (tls.busy) are clocked too and dropped by gs_osrt_record, which is
 * rare, where reading tls.busy on every call would cost a TLS-descriptor call. */
#define OSRT_LIVE() GS_LIKELY(atomic_load_explicit(&gs_osrt_ctl.clocking, memory_order_relaxed))

/* The clocked part of a wrapper: f is the next definition, args its arguments. */
#define OSRT_TIMED(ret, call, f, args)                                                       \
	if (!OSRT_LIVE())                                                                    \
		return f args;                                                               \
	uint64_t t0_ = gs_clock_read(gs_osrt_ctl.clock);                                     \
	ret res_ = f args;                                                                   \
	uint64_t t1_ = gs_clock_read(gs_osrt_ctl.clock);                                     \
	if (GS_UNLIKELY(t1_ - t0_ >= gs_osrt_ctl.thr))                                       \
		gs_osrt_record(call, t0_, t1_);                                              \
	return res_

/* One wrapper: ret name(params), calling the next definition of name with args; OSRT_OR
 * returns fail (NULL, 0) rather than -1 when there is none. */
#define OSRT_OR(ret, name, call, params, args, fail)                                          \
	GS_EXPORT ret name params                                                             \
	{                                                                                     \
		GS_NEXT_OR(ret(*) params, #name, next_, fail)                                   \
		OSRT_TIMED(ret, call, next_, args);                                               \
	}
#define OSRT(ret, name, call, params, args) OSRT_OR(ret, name, call, params, args, -1)

/* Lock waits: an uncontended lock (the common case, and the one that must stay cheap) is
 * taken by the try form, which gives the same result without waiting, and costs no clock
 * read; only when it would block (EBUSY) is the real call clocked. The try forms return what
 * the blocking ones would when the lock is free: 0, or EOWNERDEAD for a robust mutex whose
 * owner died (the caller then holds it either way). */
#define OSRT_TRY(name, call, params, args, tryname, busyrc)                                    \
	GS_EXPORT int name params                                                            \
	{                                                                                    \
		GS_NEXT(int(*) params, #name, next_)                                       \
		if (OSRT_LIVE()) {                                                           \
			int t_ = tryname args;                                               \
			if (t_ != (busyrc))                                                  \
				return t_;                                                   \
		}                                                                            \
		OSRT_TIMED(int, call, next_, args);                                          \
	}
OSRT_TRY(pthread_mutex_lock, GS_OSRT_PTHREAD_MUTEX_LOCK, (pthread_mutex_t * m), (m),
	 pthread_mutex_trylock, EBUSY)
OSRT_TRY(pthread_rwlock_rdlock, GS_OSRT_PTHREAD_RWLOCK_RDLOCK, (pthread_rwlock_t * l), (l),
	 pthread_rwlock_tryrdlock, EBUSY)
OSRT_TRY(pthread_rwlock_wrlock, GS_OSRT_PTHREAD_RWLOCK_WRLOCK, (pthread_rwlock_t * l), (l),
	 pthread_rwlock_trywrlock, EBUSY)
OSRT(int, pthread_mutex_timedlock, GS_OSRT_PTHREAD_MUTEX_TIMEDLOCK,
     (pthread_mutex_t * m, const struct timespec *ts), (m, ts))
OSRT(int, pthread_cond_wait, GS_OSRT_PTHREAD_COND_WAIT, (pthread_cond_t * c, pthread_mutex_t *m),
     (c, m))
OSRT(int, pthread_cond_timedwait, GS_OSRT_PTHREAD_COND_TIMEDWAIT,
     (pthread_cond_t * c, pthread_mutex_t *m, const struct timespec *ts), (c, m, ts))
OSRT(int, pthread_rwlock_timedrdlock, GS_OSRT_PTHREAD_RWLOCK_TIMEDRDLOCK,
     (pthread_rwlock_t * l, const struct timespec *ts), (l, ts))
OSRT(int, pthread_rwlock_timedwrlock, GS_OSRT_PTHREAD_RWLOCK_TIMEDWRLOCK,
     (pthread_rwlock_t * l, const struct timespec *ts), (l, ts))
OSRT(int, pthread_join, GS_OSRT_PTHREAD_JOIN, (pthread_t th, void **ret), (th, ret))
GS_EXPORT int sem_wait(sem_t *s)
{
	GS_NEXT(int (*)(sem_t *), "sem_wait", next_)
	if (OSRT_LIVE()) {
		int saved = errno;
		if (sem_trywait(s) == 0)
			return 0; /* it was posted: no wait */
		errno = saved;
	}
	OSRT_TIMED(int, GS_OSRT_SEM_WAIT, next_, (s));
}
OSRT(int, sem_timedwait, GS_OSRT_SEM_TIMEDWAIT, (sem_t * s, const struct timespec *ts), (s, ts))
OSRT(unsigned, sleep, GS_OSRT_SLEEP, (unsigned s), (s))
OSRT(int, usleep, GS_OSRT_USLEEP, (useconds_t us), (us))
OSRT(int, nanosleep, GS_OSRT_NANOSLEEP, (const struct timespec *req, struct timespec *rem),
     (req, rem))
OSRT(int, clock_nanosleep, GS_OSRT_CLOCK_NANOSLEEP,
     (clockid_t id, int flags, const struct timespec *req, struct timespec *rem),
     (id, flags, req, rem))
OSRT(ssize_t, read, GS_OSRT_READ, (int fd, void *buf, size_t n), (fd, buf, n))
OSRT(ssize_t, write, GS_OSRT_WRITE, (int fd, const void *buf, size_t n), (fd, buf, n))
OSRT(ssize_t, pread, GS_OSRT_PREAD, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
OSRT(ssize_t, pwrite, GS_OSRT_PWRITE, (int fd, const void *buf, size_t n, off_t off),
     (fd, buf, n, off))
OSRT(ssize_t, pread64, GS_OSRT_PREAD64, (int fd, void *buf, size_t n, off64_t off),
     (fd, buf, n, off))
OSRT(ssize_t, pwrite64, GS_OSRT_PWRITE64, (int fd, const void *buf, size_t n, off64_t off),
     (fd, buf, n, off))
OSRT(ssize_t, readv, GS_OSRT_READV, (int fd, const struct iovec *v, int n), (fd, v, n))
OSRT(ssize_t, writev, GS_OSRT_WRITEV, (int fd, const struct iovec *v, int n), (fd, v, n))
OSRT(ssize_t, recv, GS_OSRT_RECV, (int fd, void *buf, size_t n, int fl), (fd, buf, n, fl))
OSRT(ssize_t, recvfrom, GS_OSRT_RECVFROM,
     (int fd, void *buf, size_t n, int fl, struct sockaddr *a, socklen_t *al),
     (fd, buf, n, fl, a, al))
OSRT(ssize_t, recvmsg, GS_OSRT_RECVMSG, (int fd, struct msghdr *msg, int fl), (fd, msg, fl))
OSRT(ssize_t, send, GS_OSRT_SEND, (int fd, const void *buf, size_t n, int fl), (fd, buf, n, fl))
OSRT(ssize_t, sendto, GS_OSRT_SENDTO,
     (int fd, const void *buf, size_t n, int fl, const struct sockaddr *a, socklen_t al),
     (fd, buf, n, fl, a, al))
OSRT(ssize_t, sendmsg, GS_OSRT_SENDMSG, (int fd, const struct msghdr *msg, int fl), (fd, msg, fl))
OSRT(int, poll, GS_OSRT_POLL, (struct pollfd * f, nfds_t n, int ms), (f, n, ms))
OSRT(int, ppoll, GS_OSRT_PPOLL,
     (struct pollfd * f, nfds_t n, const struct timespec *ts, const sigset_t *ss), (f, n, ts, ss))
OSRT(int, select, GS_OSRT_SELECT, (int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv),
     (n, r, w, e, tv))
OSRT(int, pselect, GS_OSRT_PSELECT,
     (int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts, const sigset_t *ss),
     (n, r, w, e, ts, ss))
OSRT(int, epoll_wait, GS_OSRT_EPOLL_WAIT, (int fd, struct epoll_event *ev, int n, int ms),
     (fd, ev, n, ms))
OSRT(int, epoll_pwait, GS_OSRT_EPOLL_PWAIT,
     (int fd, struct epoll_event *ev, int n, int ms, const sigset_t *ss), (fd, ev, n, ms, ss))
OSRT(int, accept, GS_OSRT_ACCEPT, (int fd, struct sockaddr *a, socklen_t *al), (fd, a, al))
OSRT(int, accept4, GS_OSRT_ACCEPT4, (int fd, struct sockaddr *a, socklen_t *al, int fl),
     (fd, a, al, fl))
OSRT(int, connect, GS_OSRT_CONNECT, (int fd, const struct sockaddr *a, socklen_t al), (fd, a, al))
OSRT(pid_t, waitpid, GS_OSRT_WAITPID, (pid_t pid, int *st, int opt), (pid, st, opt))
OSRT(pid_t, wait, GS_OSRT_WAIT, (int *st), (st))
OSRT(pid_t, wait4, GS_OSRT_WAIT4, (pid_t pid, int *st, int opt, struct rusage *ru),
     (pid, st, opt, ru))
OSRT(int, waitid, GS_OSRT_WAITID, (idtype_t t, id_t id, siginfo_t *si, int opt), (t, id, si, opt))
OSRT(int, fsync, GS_OSRT_FSYNC, (int fd), (fd))
OSRT(int, fdatasync, GS_OSRT_FDATASYNC, (int fd), (fd))

/* The waits on a clock of glibc 2.30 (CPython 3.11+ times its lock acquires with sem_clockwait,
 * libstdc++ its condition_variable::wait_for and wait_until with pthread_cond_clockwait),
 * pthread_clockjoin_np (2.31) and epoll_pwait2 (2.35): defined only where the headers have them. */
#ifdef __GLIBC_PREREQ
#define OSRT_GLIBC(maj, min) __GLIBC_PREREQ(maj, min)
#else
#define OSRT_GLIBC(maj, min) 0
#endif
#if OSRT_GLIBC(2, 30)
OSRT(int, sem_clockwait, GS_OSRT_SEM_CLOCKWAIT, (sem_t * s, clockid_t c, const struct timespec *ts),
     (s, c, ts))
OSRT(int, pthread_cond_clockwait, GS_OSRT_PTHREAD_COND_CLOCKWAIT,
     (pthread_cond_t * cv, pthread_mutex_t *m, clockid_t c, const struct timespec *ts),
     (cv, m, c, ts))
OSRT(int, pthread_mutex_clocklock, GS_OSRT_PTHREAD_MUTEX_CLOCKLOCK,
     (pthread_mutex_t * m, clockid_t c, const struct timespec *ts), (m, c, ts))
OSRT(int, pthread_rwlock_clockrdlock, GS_OSRT_PTHREAD_RWLOCK_CLOCKRDLOCK,
     (pthread_rwlock_t * l, clockid_t c, const struct timespec *ts), (l, c, ts))
OSRT(int, pthread_rwlock_clockwrlock, GS_OSRT_PTHREAD_RWLOCK_CLOCKWRLOCK,
     (pthread_rwlock_t * l, clockid_t c, const struct timespec *ts), (l, c, ts))
#endif
#if OSRT_GLIBC(2, 31)
OSRT(int, pthread_clockjoin_np, GS_OSRT_PTHREAD_CLOCKJOIN_NP,
     (pthread_t th, void **ret, clockid_t c, const struct timespec *ts), (th, ret, c, ts))
#endif
#if OSRT_GLIBC(2, 35)
OSRT(int, epoll_pwait2, GS_OSRT_EPOLL_PWAIT2,
     (int fd, struct epoll_event *ev, int n, const struct timespec *ts, const sigset_t *ss),
     (fd, ev, n, ts, ss))
#endif
OSRT(int, pthread_timedjoin_np, GS_OSRT_PTHREAD_TIMEDJOIN_NP,
     (pthread_t th, void **ret, const struct timespec *ts), (th, ret, ts))
OSRT(int, pthread_barrier_wait, GS_OSRT_PTHREAD_BARRIER_WAIT, (pthread_barrier_t * b), (b))

/* Signal waits */
OSRT(int, sigwait, GS_OSRT_SIGWAIT, (const sigset_t *set, int *sig), (set, sig))
OSRT(int, sigwaitinfo, GS_OSRT_SIGWAITINFO, (const sigset_t *set, siginfo_t *si), (set, si))
OSRT(int, sigtimedwait, GS_OSRT_SIGTIMEDWAIT,
     (const sigset_t *set, siginfo_t *si, const struct timespec *ts), (set, si, ts))
OSRT(int, sigsuspend, GS_OSRT_SIGSUSPEND, (const sigset_t *mask), (mask))
OSRT(int, pause, GS_OSRT_PAUSE, (void), ())

/* File locks: flock, lockf, and fcntl's waiting lock commands (F_SETLKW, F_OFD_SETLKW; the
 * other commands go straight to libc, unclocked). fcntl's third argument, an int or a
 * pointer or none, is passed on as the pointer-sized value libc's fcntl itself reads. */
OSRT(int, flock, GS_OSRT_FLOCK, (int fd, int op), (fd, op))
OSRT(int, lockf, GS_OSRT_LOCKF, (int fd, int cmd, off_t len), (fd, cmd, len))
OSRT(int, lockf64, GS_OSRT_LOCKF64, (int fd, int cmd, off64_t len), (fd, cmd, len))
static inline int fcntl_waits(int cmd)
{
#if defined(F_SETLKW64) && F_SETLKW64 != F_SETLKW
	if (cmd == F_SETLKW64)
		return 1;
#endif
	return cmd == F_SETLKW || cmd == F_OFD_SETLKW;
}
#define OSRT_FCNTL(name, call)                                                               \
	GS_EXPORT int name(int fd, int cmd, ...)                                             \
	{                                                                                    \
		va_list ap;                                                                  \
		va_start(ap, cmd);                                                           \
		void *arg = va_arg(ap, void *);                                              \
		va_end(ap);                                                                  \
		GS_NEXT(int (*)(int, int, ...), #name, next_)                               \
		if (!fcntl_waits(cmd))                                                       \
			return next_(fd, cmd, arg);                                          \
		OSRT_TIMED(int, call, next_, (fd, cmd, arg));                                \
	}
OSRT_FCNTL(fcntl, GS_OSRT_FCNTL)
OSRT_FCNTL(fcntl64, GS_OSRT_FCNTL64)

/* stdio: libc's own calls inside these (open, read, write) do not reach the wrappers above. */
OSRT_OR(FILE *, fopen, GS_OSRT_FOPEN, (const char *path, const char *mode), (path, mode), NULL)
OSRT_OR(FILE *, fopen64, GS_OSRT_FOPEN64, (const char *path, const char *mode), (path, mode),
	NULL)
OSRT_OR(size_t, fread, GS_OSRT_FREAD, (void *p, size_t size, size_t n, FILE *f), (p, size, n, f),
	0)
OSRT_OR(size_t, fwrite, GS_OSRT_FWRITE, (const void *p, size_t size, size_t n, FILE *f),
	(p, size, n, f), 0)
OSRT(int, fclose, GS_OSRT_FCLOSE, (FILE * f), (f))

/* futex waits made through syscall(2), glibc having no futex function: Rust's std locks and
 * condition variables, libstdc++'s C++20 atomic waits, TBB. Only the waiting futex operations
 * and futex_waitv are clocked; every other number goes to libc's syscall() at once.
 * The collector itself calls syscall() (gettid, from its signal handler too), so libc's
 * definition is looked up when this library is initialised, not on a first call (dlsym in a
 * signal handler); a call before that (the collector is initialised first) is made by
 * gs_raw_syscall (rawsys.h), as libc's syscall() makes it. */
static long (*libc_syscall)(long, ...);

__attribute__((constructor)) static void osrt_init(void)
{
	libc_syscall = (long (*)(long, ...))(uintptr_t)dlsym(RTLD_NEXT, "syscall");
}

static long next_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	long (*s)(long, ...) = libc_syscall;
	if (GS_LIKELY(s != NULL))
		return s(nr, a, b, c, d, e, f);
#ifdef GS_RAW_SYSCALL
	return gs_raw_syscall(nr, a, b, c, d, e, f);
#else
	s = (long (*)(long, ...))(uintptr_t)dlsym(RTLD_NEXT, "syscall");
	if (!s) {
		errno = ENOSYS;
		return -1;
	}
	libc_syscall = s;
	return s(nr, a, b, c, d, e, f);
#endif
}

static inline int futex_waits(long op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
#ifdef FUTEX_LOCK_PI2
	case FUTEX_LOCK_PI2:
#endif
	case FUTEX_WAIT_REQUEUE_PI:
		return 1;
	}
	return 0;
}

/* Six arguments are read and passed on whatever the call has, as libc's syscall() reads six. */
GS_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	uint16_t call;
	if (nr == SYS_futex && futex_waits(b))
		call = GS_OSRT_FUTEX;
#ifdef SYS_futex_waitv
	else if (nr == SYS_futex_waitv)
		call = GS_OSRT_FUTEX_WAITV;
#endif
	else
		return next_syscall(nr, a, b, c, d, e, f);
	OSRT_TIMED(long, call, next_syscall, (nr, a, b, c, d, e, f));
}

/* The open family takes a mode only with O_CREAT or O_TMPFILE; the next definition is
 * variadic too. */
#define OPEN_MODE(flags, mode)                                                               \
	mode_t mode = 0;                                                                     \
	if ((flags) & O_CREAT || ((flags) & O_TMPFILE) == O_TMPFILE) {                       \
		va_list ap;                                                                  \
		va_start(ap, flags);                                                         \
		mode = (mode_t)va_arg(ap, int);                                              \
		va_end(ap);                                                                  \
	}

#define OSRT_OPEN(name, call)                                                                \
	GS_EXPORT int name(const char *path, int flags, ...)                                 \
	{                                                                                    \
		OPEN_MODE(flags, mode);                                                      \
		GS_NEXT(int (*)(const char *, int, ...), #name, next_)                     \
		OSRT_TIMED(int, call, next_, (path, flags, mode));                               \
	}
#define OSRT_OPENAT(name, call)                                                              \
	GS_EXPORT int name(int dir, const char *path, int flags, ...)                        \
	{                                                                                    \
		OPEN_MODE(flags, mode);                                                      \
		GS_NEXT(int (*)(int, const char *, int, ...), #name, next_)                \
		OSRT_TIMED(int, call, next_, (dir, path, flags, mode));                          \
	}
OSRT_OPEN(open, GS_OSRT_OPEN)
OSRT_OPEN(open64, GS_OSRT_OPEN64)
OSRT_OPENAT(openat, GS_OSRT_OPENAT)
OSRT_OPENAT(openat64, GS_OSRT_OPENAT64)
