/* sink.c: buffered output files for the exporters and the number formats they share. */
#include "sink.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"

#define SINK_VBUF (1u << 20) /* stdio's buffer: few write(2) calls on multi-GB outputs */
#define SINK_RECORD 8192     /* hand the record buffer over past this */

int gs_sink_open(struct gs_sink *s, const char *path, struct gs_err *err)
{
	memset(s, 0, sizeof(*s));
	s->f = fopen(path, "we");
	if (!s->f)
		return gs_errf(err, -errno, "cannot create '%s': %s", path, strerror(errno));
	s->vbuf = gs_xmalloc(SINK_VBUF);
	setvbuf(s->f, s->vbuf, _IOFBF, SINK_VBUF);
	s->path = gs_xstrdup(path);
	gs_strbuf_init(&s->b);
	return 0;
}

void gs_sink_flush(struct gs_sink *s, int force)
{
	if (!s->b.len || (!force && s->b.len < SINK_RECORD))
		return;
	if (!s->failed && fwrite(s->b.buf, 1, s->b.len, s->f) != s->b.len)
		s->failed = errno ? errno : EIO;
	gs_strbuf_reset(&s->b);
}

int gs_sink_close(struct gs_sink *s, struct gs_err *err)
{
	gs_sink_flush(s, 1);
	if (fflush(s->f) != 0 && !s->failed)
		s->failed = errno ? errno : EIO;
	if (fclose(s->f) != 0 && !s->failed)
		s->failed = errno ? errno : EIO;
	int rc = 0;
	if (s->failed)
		rc = gs_errf(err, -s->failed, "cannot write '%s': %s", s->path, strerror(s->failed));
	gs_strbuf_release(&s->b);
	free(s->vbuf);
	free(s->path);
	memset(s, 0, sizeof(*s));
	return rc;
}

void gs_sink_us(struct gs_strbuf *b, int64_t ns)
{
	uint64_t v = ns > 0 ? (uint64_t)ns : 0;
	char buf[32], *e = buf + sizeof(buf);
	unsigned f = (unsigned)(v % 1000);
	*--e = (char)('0' + f % 10), *--e = (char)('0' + f / 10 % 10), *--e = (char)('0' + f / 100);
	*--e = '.';
	char *p = gs_digits(e, v / 1000);
	gs_strbuf_add(b, p, (size_t)(buf + sizeof(buf) - p));
}

void gs_sink_jstr(struct gs_strbuf *b, const char *s)
{
	gs_strbuf_addc(b, '"');
	gs_strbuf_add_json(b, s, strlen(s)); /* plain runs copied at once */
	gs_strbuf_addc(b, '"');
}
