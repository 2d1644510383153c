/* args.c: option values shared by the commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int gs_parse_duration(const char *s, size_t n, uint64_t *ns)
{
	char buf[64];
	if (!n)
		return 0;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	double x = strtod(buf, &end);
	double scale = 1e9;
	if (!strcmp(end, "ms"))
		scale = 1e6;
	else if (!strcmp(end, "us"))
		scale = 1e3;
	else if (!strcmp(end, "ns"))
		scale = 1;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (errno || end == buf || !(x >= 0) || x * scale > 1.8e19)
		return -1;
	*ns = (uint64_t)(x * scale + 0.5);
	return 0;
}
