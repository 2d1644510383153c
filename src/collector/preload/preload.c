/* preload.c: libgpuscope-preload.so, put in LD_PRELOAD by `gpuscope profile --trace cuda`.
 * Two jobs that need symbol interposition, which the injected libraries (dlopen'ed by NVTX
 * and by the CUDA driver) cannot do:
 *
 *  - exec: the exec family replaces the process image without running atexit handlers, so
 *    the CUDA activity CUPTI still holds would be lost. Each exec call first runs the hook
 *    the CUDA library registered (a forced CUPTI flush), then the real call.
 *  - other CUPTI users: CUDA allows one CUPTI subscriber per process. When gpuscope holds
 *    CUPTI, a second user's calls that would take it over or switch our recording off
 *    (subscribing, replacing the buffer callbacks or the clock, enabling or disabling
 *    activity kinds, finalizing) are refused with CUPTI's own "multiple subscribers" error,
 *    and one warning names the library that tried. Its other calls pass through.
 *
 * It is built without sanitizers (it goes into every process of the session, whatever they
 * were built with), links only libc, and does nothing until the CUDA library calls
 * gs_preload_own_cupti. Calls are told apart by their caller's library (dladdr of the return
 * address): gpuscope's own CUDA library passes. */
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static void *_Atomic owner_base;
static void (*_Atomic exec_hook)(void);
static atomic_int warned;

EXPORT void gs_preload_own_cupti(const void *owner_fn, void (*before_exec)(void))
{
	Dl_info di;
	if (owner_fn && dladdr(owner_fn, &di) && di.dli_fbase)
		atomic_store(&owner_base, di.dli_fbase);
	atomic_store(&exec_hook, before_exec);
}

static void before_exec(void)
{
	void (*h)(void) = atomic_load(&exec_hook);
	if (h) {
		int saved = errno;
		h();
		errno = saved;
	}
}

static void *real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* A CUPTI function: the next definition in the global scope, else the one of the libcupti
 * already loaded privately (the CUDA driver dlopens gpuscope's CUDA library, and with it
 * libcupti, outside the global scope, where RTLD_NEXT does not look). */
static void *real_cupti(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		char so[32];
		snprintf(so, sizeof(so), "libcupti.so.%d", CUDA_VERSION / 1000);
		void *h = dlopen(so, RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			f = dlsym(h, name);
			dlclose(h);
		}
	}
	return f;
}

/* ---- exec ---- */

#define REAL(type, name) ((type)(uintptr_t)real(name))

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	before_exec();
	int (*f)(const char *, char *const[], char *const[]) =
		REAL(int (*)(const char *, char *const[], char *const[]), "execve");
	return f ? f(path, argv, envp) : (errno = ENOSYS, -1);
}

EXPORT int execv(const char *path, char *const argv[])
{
	before_exec();
	int (*f)(const char *, char *const[]) = REAL(int (*)(const char *, char *const[]), "execv");
	return f ? f(path, argv) : (errno = ENOSYS, -1);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	before_exec();
	int (*f)(const char *, char *const[]) = REAL(int (*)(const char *, char *const[]), "execvp");
	return f ? f(file, argv) : (errno = ENOSYS, -1);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	before_exec();
	int (*f)(const char *, char *const[], char *const[]) =
		REAL(int (*)(const char *, char *const[], char *const[]), "execvpe");
	return f ? f(file, argv, envp) : (errno = ENOSYS, -1);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	before_exec();
	int (*f)(int, char *const[], char *const[]) =
		REAL(int (*)(int, char *const[], char *const[]), "fexecve");
	return f ? f(fd, argv, envp) : (errno = ENOSYS, -1);
}

/* The list forms: gather the arguments (and execle's environment) into an array. */
#define GATHER(first, ap, argv, n, extra)                                                   \
	size_t n = 1;                                                                        \
	va_list ap;                                                                          \
	va_start(ap, first);                                                                 \
	while (va_arg(ap, char *))                                                          \
		n++;                                                                         \
	va_end(ap);                                                                          \
	char *argv[n + 1];                                                                   \
	argv[0] = (char *)(first);                                                           \
	va_start(ap, first);                                                                 \
	for (size_t i_ = 1; i_ <= n; i_++)                                                   \
		argv[i_] = va_arg(ap, char *);                                              \
	extra;                                                                               \
	va_end(ap)

EXPORT int execl(const char *path, const char *arg, ...)
{
	GATHER(arg, ap, argv, n, (void)0);
	return execv(path, argv);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	GATHER(arg, ap, argv, n, (void)0);
	return execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char **envp;
	GATHER(arg, ap, argv, n, envp = va_arg(ap, char **));
	return execve(path, argv, envp);
}

/* ---- CUPTI ---- */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "?";
}

/* Whether a CUPTI call from caller may go through: gpuscope's CUDA library and CUPTI itself
 * (the library that defines fn) may. */
static int allowed(const void *caller, const char *call, void *fn)
{
	void *own = atomic_load(&owner_base);
	if (!own)
		return 1; /* gpuscope does not hold CUPTI in this process */
	Dl_info di, dc;
	const char *who = "an unknown library";
	if (caller && dladdr(caller, &di)) {
		if (di.dli_fbase == own || (fn && dladdr(fn, &dc) && dc.dli_fbase == di.dli_fbase))
			return 1;
		who = base_name(di.dli_fname);
	}
	if (!atomic_exchange(&warned, 1)) {
		int torch = strstr(who, "torch") || strstr(who, "kineto");
		char line[768];
		int k = snprintf(line, sizeof(line),
				 "gpuscope: %s%s called %s, but gpuscope holds CUPTI in this process (CUDA "
				 "allows one CUPTI user): its CUDA activity will be missing; gpuscope goes "
				 "on recording CUDA and NVTX. Profile with one tool at a time.\n",
				 who, torch ? " (torch.profiler)" : "", call);
		if (k > 0 && write(STDERR_FILENO, line, (size_t)k < sizeof(line) ? (size_t)k : sizeof(line) - 1) < 0)
			k = 0;
	}
	return 0;
}

#define GUARD(name, params, args)                                                            \
	EXPORT CUptiResult CUPTIAPI name params                                              \
	{                                                                                    \
		CUptiResult(CUPTIAPI * real_) params =                                       \
			(CUptiResult(CUPTIAPI *) params)(uintptr_t)real_cupti(#name);        \
		if (!allowed(__builtin_return_address(0), #name, (void *)(uintptr_t)real_))   \
			return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;               \
		return real_ ? real_ args : CUPTI_ERROR_NOT_INITIALIZED;                     \
	}

GUARD(cuptiSubscribe, (CUpti_SubscriberHandle * s, CUpti_CallbackFunc cb, void *u), (s, cb, u))
GUARD(cuptiActivityRegisterCallbacks,
      (CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done), (req, done))
GUARD(cuptiActivityRegisterTimestampCallback, (CUpti_TimestampCallbackFunc fn), (fn))
GUARD(cuptiActivityEnable, (CUpti_ActivityKind k), (k))
GUARD(cuptiActivityDisable, (CUpti_ActivityKind k), (k))
GUARD(cuptiActivityEnableContext, (CUcontext c, CUpti_ActivityKind k), (c, k))
GUARD(cuptiActivityDisableContext, (CUcontext c, CUpti_ActivityKind k), (c, k))
GUARD(cuptiActivityEnableRuntimeApi, (CUpti_CallbackId id, uint8_t on), (id, on))
GUARD(cuptiActivityEnableDriverApi, (CUpti_CallbackId id, uint8_t on), (id, on))
GUARD(cuptiFinalize, (void), ())
