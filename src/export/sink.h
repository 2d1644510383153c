/* sink.h: what the exporters share: an output file written through a large stdio buffer, one
 * record at a time (a record is built in a small strbuf, then handed to stdio: nothing holds
 * more than one record besides stdio's buffer), and the number formats other tools read.
 * Invariants: once a write fails the sink stays failed and gs_sink_close reports it, naming
 * the file; times given to gs_sink_us are ns and come out as Kineto prints them. */
#ifndef GS_EXPORT_SINK_H
#define GS_EXPORT_SINK_H

#include <stdint.h>
#include <stdio.h>

#include "../util/err.h"
#include "../util/strbuf.h"

struct gs_sink {
	FILE *f;
	char *path;
	char *vbuf;         /* stdio's buffer */
	struct gs_strbuf b; /* the record being built */
	int failed;         /* errno of the first failed write, 0: none */
};

/* Create (truncate) path. 0, or -1 with err set. */
int gs_sink_open(struct gs_sink *s, const char *path, struct gs_err *err);
/* Hand the record built in s->b to stdio when it has grown past a few KiB (force: always). */
void gs_sink_flush(struct gs_sink *s, int force);
/* Flush and close; 0, or -1 with err naming the file when any write failed. Frees s. */
int gs_sink_close(struct gs_sink *s, struct gs_err *err);

/* ns as microseconds with exactly three decimals, "%llu.%03u" as Kineto's fmtTs prints them
 * (integer arithmetic: no rounding); negative values are clamped to 0, as Kineto does. */
void gs_sink_us(struct gs_strbuf *b, int64_t ns);
/* s as a JSON string with its quotes. */
void gs_sink_jstr(struct gs_strbuf *b, const char *s);

#endif
