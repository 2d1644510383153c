/*
 * nvtx_fork: ranges on both sides of a fork().
 *
 * Usage: nvtx_fork [exit]
 *
 * Checks that a profiler survives fork (the child inherits the injected tool
 * and its state) and records the child's ranges even when the child leaves
 * through _exit(), which skips atexit handlers and stdio flushing -- as
 * Python multiprocessing workers do with os._exit(). With the argument
 * "exit" the child calls exit(0) instead, which runs atexit handlers.
 *
 * Emits (push/pop ranges, default domain):
 *   parent pid: "parent_before" x10 (before fork), "parent_after" x10
 *               (after waitpid on the child).
 *   child pid:  "child_range" x20, then "child_sleep" x1 (~20 ms).
 * Prints nothing; parent exits 0 if the child exited with status 0, else 1.
 * Child exit status 0 in both modes.
 */
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int use_exit = argc > 1 && strcmp(argv[1], "exit") == 0;

    for (int i = 0; i < 10; i++) {
        nvtxRangePushA("parent_before");
        nvtxRangePop();
    }

    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        for (int i = 0; i < 20; i++) {
            nvtxRangePushA("child_range");
            nvtxRangePop();
        }
        nvtxRangePushA("child_sleep");
        usleep(20000);
        nvtxRangePop();
        if (use_exit)
            exit(0);
        _exit(0);
    }

    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 1;
    }

    for (int i = 0; i < 10; i++) {
        nvtxRangePushA("parent_after");
        nvtxRangePop();
    }
    return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : 1;
}
