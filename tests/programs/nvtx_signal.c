/*
 * nvtx_signal: a program whose observable behaviour must be identical with
 * and without a profiler attached.
 *
 * Usage: nvtx_signal [stdin]
 *
 * Installs its own SIGUSR1 handler (sigaction) that calls nvtxMarkA and
 * counts; raises SIGUSR1 5 times inside a pushed range. A profiler must not
 * steal or break the handler, stdio, or the exit status.
 *
 * Emits (default domain, main thread):
 *   push/pop "signal_range" x1, containing mark "in_handler" x5.
 * Output:
 *   stdout: "handled 5\n" (the number of handler runs actually counted);
 *           with argv[1] == "stdin", then reads one line from stdin and
 *           prints "got: <line>\n" (trailing newline of the input removed;
 *           "got: \n" on EOF).
 *   stderr: "to-stderr\n"
 * Exit status: 7.
 */
#include <nvtx3/nvToolsExt.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t g_handled;

static void on_usr1(int sig)
{
    (void)sig;
    nvtxMarkA("in_handler");
    g_handled++;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGUSR1, &sa, NULL) != 0) {
        perror("sigaction");
        return 1;
    }

    nvtxRangePushA("signal_range");
    for (int i = 0; i < 5; i++)
        raise(SIGUSR1);
    nvtxRangePop();

    printf("handled %d\n", (int)g_handled);

    if (argc > 1 && strcmp(argv[1], "stdin") == 0) {
        char line[4096];
        if (!fgets(line, sizeof line, stdin))
            line[0] = '\0';
        line[strcspn(line, "\n")] = '\0';
        printf("got: %s\n", line);
    }
    fflush(stdout);

    fputs("to-stderr\n", stderr);
    return 7;
}
