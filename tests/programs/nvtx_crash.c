/*
 * nvtx_crash: abnormal and unusual process terminations with a range open.
 *
 * Usage: nvtx_crash MODE [N=100]
 *
 * Checks what a profiler keeps when the process dies in various ways: the
 * completed ranges should survive, and the range still open at the end is
 * either reported as unterminated or dropped (the tool's choice).
 *
 * Emits (push/pop ranges, default domain):
 *   "before_crash" x N (completed), then "open_at_crash" pushed and never
 *   popped.
 * MODE and resulting termination:
 *   segv     write through NULL          -> killed by SIGSEGV
 *   abort    abort()                     -> killed by SIGABRT
 *   kill     prints "ready\n" on stdout, then waits forever in pause();
 *            the test SIGKILLs it        -> killed by SIGKILL
 *   exit3    exit(3)                     -> exit status 3 (atexit runs)
 *   _exit4   _exit(4)                    -> exit status 4 (no atexit)
 *   return5  return 5 from main          -> exit status 5 (atexit runs)
 *   sigterm  raise(SIGTERM)              -> killed by SIGTERM
 *   other/missing MODE: message on stderr, exit status 2 (also if segv or
 *   sigterm somehow fail to terminate the process).
 * Nothing on stdout except "ready" in kill mode.
 * The faulting store is exempt from UBSan's null check, so that sanitizer
 * builds fault for real too; there ASAN_OPTIONS=handle_segv=0 lets SIGSEGV
 * end the process as it does in a normal build.
 */
#include <nvtx3/nvToolsExt.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A real fault: the store reaches the MMU, sanitizers or not. */
__attribute__((no_sanitize("undefined"))) static void fault(void)
{
    volatile int *volatile p = NULL;
    *p = 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s segv|abort|kill|exit3|_exit4|return5|sigterm [N]\n",
                argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int n = argc > 2 ? atoi(argv[2]) : 100;

    for (int i = 0; i < n; i++) {
        nvtxRangePushA("before_crash");
        nvtxRangePop();
    }
    nvtxRangePushA("open_at_crash");

    if (strcmp(mode, "segv") == 0) {
        fault();
    } else if (strcmp(mode, "abort") == 0) {
        abort();
    } else if (strcmp(mode, "kill") == 0) {
        fputs("ready\n", stdout);
        fflush(stdout);
        for (;;)
            pause();
    } else if (strcmp(mode, "exit3") == 0) {
        exit(3);
    } else if (strcmp(mode, "_exit4") == 0) {
        _exit(4);
    } else if (strcmp(mode, "return5") == 0) {
        return 5;
    } else if (strcmp(mode, "sigterm") == 0) {
        raise(SIGTERM);
    } else {
        fprintf(stderr, "unknown mode: %s\n", mode);
        return 2;
    }
    /* Only reached if the fault/signal did not terminate the process. */
    fprintf(stderr, "still alive after %s\n", mode);
    return 2;
}
