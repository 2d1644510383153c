/* host_exitinit.c (libhost_exitinit.so): a library whose constructor says when it runs and
 * whose destructor takes 400 ms, for host_exitinit: while the destructor runs at exit, the
 * loader has marked the library finalized, and a dlopen of it from another thread would run
 * its constructor again. */
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void exitinit_ctor(void)
{
	if (write(STDOUT_FILENO, "constructor\n", 12) < 0)
		_exit(3);
}

__attribute__((destructor)) static void exitinit_dtor(void)
{
	struct timespec ts = {0, 400000000};
	nanosleep(&ts, NULL);
}
