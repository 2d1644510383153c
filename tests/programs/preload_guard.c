/*
 * preload_guard: drives libgpuscope-preload.so (in LD_PRELOAD) the way gpuscope's CUDA library
 * does, without a GPU: it registers an owner and an exec hook through gs_preload_own_cupti,
 * then calls the guarded CUPTI entry points as a foreign library would, and execs.
 *
 * Usage: preload_guard foreign | owner | exec
 *   foreign: owner = a libc function (another library); cuptiSubscribe and cuptiActivityEnable
 *            called from here are refused: prints "subscribe 39 enable 39" (39 is
 *            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED); the library prints one warning.
 *   owner:   owner = this program; the calls pass through to CUPTI, absent here, so the guard
 *            answers CUPTI_ERROR_NOT_INITIALIZED (15): prints "subscribe 15 enable 15".
 *   exec:    registers a hook that prints "hook"; execl("/bin/echo", "echo", "after") prints
 *            "after": the output is "hook" then "after".
 * Without the library in LD_PRELOAD: prints "no preload", exits 3.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef void (*own_fn)(const void *, void (*)(void));
typedef int (*sub_fn)(void *, void *, void *);
typedef int (*enable_fn)(int);

static void hook(void)
{
	printf("hook\n");
	fflush(stdout);
}

static void self(void)
{
}

int main(int argc, char **argv)
{
	own_fn own = (own_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "gs_preload_own_cupti");
	sub_fn sub = (sub_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "cuptiSubscribe");
	enable_fn en = (enable_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "cuptiActivityEnable");
	if (!own || !sub || !en) {
		printf("no preload\n");
		return 3;
	}
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "exec")) {
		own((const void *)(uintptr_t)self, hook);
		execl("/bin/echo", "echo", "after", (char *)NULL);
		perror("execl");
		return 1;
	}
	if (!strcmp(mode, "foreign"))
		own((const void *)(uintptr_t)dlsym(RTLD_DEFAULT, "strlen"), NULL);
	else if (!strcmp(mode, "owner"))
		own((const void *)(uintptr_t)self, NULL);
	else
		return 2;
	void *h = NULL;
	int a = sub(&h, NULL, NULL), b = en(10);
	int c = sub(&h, NULL, NULL); /* a second refusal: still one warning */
	printf("subscribe %d enable %d again %d\n", a, b, c);
	return 0;
}
