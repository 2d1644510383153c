/*
 * nvtx_exec: ranges before and after execv() of the same binary.
 *
 * Usage: nvtx_exec            (parent mode; re-executes itself)
 *        nvtx_exec child      (post-exec mode)
 *
 * exec replaces the process image (same pid) and discards the injected
 * tool's in-memory state; the new image re-reads NVTX_INJECTION64_PATH from
 * the inherited environment. This checks a profiler records the ranges of
 * both images, in particular the pre-exec ones that never get an atexit.
 *
 * Emits (push/pop ranges, default domain, same pid for both):
 *   before exec: "before_exec" x5
 *   after exec:  "after_exec"  x7
 * Prints nothing; exits 0 (1 if execv fails).
 */
#include <nvtx3/nvToolsExt.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        for (int i = 0; i < 7; i++) {
            nvtxRangePushA("after_exec");
            nvtxRangePop();
        }
        return 0;
    }

    for (int i = 0; i < 5; i++) {
        nvtxRangePushA("before_exec");
        nvtxRangePop();
    }

    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *path = argv[0];
    if (len > 0) {
        self[len] = '\0';
        path = self;
    }

    char *child_argv[] = {argv[0], (char *)"child", NULL};
    execv(path, child_argv);
    perror("execv");
    return 1;
}
