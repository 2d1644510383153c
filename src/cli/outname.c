/* outname.c: nsys-style output name patterns: %p (pid of the profiled program), %h (host),
 * %q{VAR} (an environment variable, e.g. RANK), %% (a percent sign). Values are made safe
 * for a file name: '/' and control characters become '_'. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void add_safe(struct gs_strbuf *sb, const char *s)
{
	for (; *s; s++)
		gs_strbuf_addc(sb, (*s == '/' || (unsigned char)*s < 0x20) ? '_' : *s);
}

char *gs_expand_name(const char *pattern, long pid, const char **why)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	*why = NULL;
	for (const char *p = pattern; *p; p++) {
		if (*p != '%') {
			gs_strbuf_addc(&sb, *p);
			continue;
		}
		p++;
		if (*p == '%') {
			gs_strbuf_addc(&sb, '%');
		} else if (*p == 'p') {
			gs_strbuf_addf(&sb, "%ld", pid);
		} else if (*p == 'h') {
			char host[256] = "";
			gethostname(host, sizeof(host) - 1);
			add_safe(&sb, host);
		} else if (*p == 'q' && p[1] == '{' && strchr(p + 2, '}')) {
			const char *e = strchr(p + 2, '}');
			char var[256];
			size_t n = (size_t)(e - (p + 2));
			if (n == 0 || n >= sizeof(var)) {
				*why = "an empty or too long %q{} name";
				goto fail;
			}
			memcpy(var, p + 2, n);
			var[n] = '\0';
			const char *v = getenv(var);
			if (!v) {
				*why = "an environment variable in %q{} that is not set";
				goto fail;
			}
			add_safe(&sb, v);
			p = e;
		} else {
			*why = "an unknown %-sequence (known: %p %h %q{VAR} %%)";
			goto fail;
		}
	}
	return sb.buf; /* the caller owns it */
fail:
	gs_strbuf_release(&sb);
	return NULL;
}
