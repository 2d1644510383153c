/*
 * host_fds: the descriptors a program finds open and the number its first open gets.
 * Prints "first open: N" (open of /dev/null) and "open below 256:" with every descriptor
 * below 256 open at start (read from /proc/self/fd before that open). Under gpuscope these
 * must be what they are without it: the collector's own descriptors stay out of the way
 * of the lowest-first numbering. Exit status 0.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char open_fds[256] = {0};
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 1;
	int self = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			int fd = atoi(e->d_name);
			if (fd >= 0 && fd < 256 && fd != self)
				open_fds[fd] = 1;
		}
	closedir(d);
	int fd = open("/dev/null", O_RDONLY);
	printf("first open: %d\nopen below 256:", fd);
	for (int i = 0; i < 256; i++)
		if (open_fds[i])
			printf(" %d", i);
	printf("\n");
	return 0;
}
