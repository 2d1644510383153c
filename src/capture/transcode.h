/* transcode.h: CUPTI activity buffers to CUDA chunks (docs/trace-format.md, 2.4), for the
 * assembler, bench/gen_trace and the test that proves the transcoding loses nothing.
 *
 * Invariants: a buffer is decoded by the model's CUPTI decoder (model/cupti.c), never by a
 * second one; a model loaded from the CUDA chunk plus the CUPTI_RAW chunk of what it does not
 * carry equals, table by table, the model loaded from the buffer itself. A buffer that does
 * not decode cleanly (another CUPTI release, a kind not known, a cut record) is written as it
 * is, in one CUPTI_RAW chunk. One transcoder writes all the CUDA chunks of a file: kernel
 * shape ids are the file's (interned across processes, as the loader interns them). */
#ifndef GS_CAPTURE_TRANSCODE_H
#define GS_CAPTURE_TRANSCODE_H

#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "../util/strbuf.h"

struct gs_writer;

struct gs_transcoder {
	struct gs_model scratch; /* one buffer's records, and the file's kernel shapes */
	size_t shapes_written;
	struct gs_strbuf in, out;
	uint8_t *rest;
	size_t restcap;
	uint64_t transcoded, raw; /* buffers written each way */
};

void gs_transcoder_init(struct gs_transcoder *t);
/* A CUPTI_NAMES payload (pid, count, (pointer, string id)*) the file holds before the buffers
 * that use it; -1 when malformed. */
int gs_transcoder_names(struct gs_transcoder *t, const uint8_t *payload, size_t len);
/* Write one CUPTI buffer of process pid (len bytes as CUPTI `version` wrote them) as a CUDA
 * chunk and a CUPTI_RAW chunk of the rest (when there is any), or as one CUPTI_RAW chunk.
 * Negative errno from the writer. */
int gs_transcoder_buffer(struct gs_transcoder *t, struct gs_writer *w, int32_t pid,
			 uint64_t version, const uint8_t *buf, size_t len);
/* Copy the trace at in to out (format 1.3), its CUPTI_RAW chunks through a transcoder: what
 * `gpuscope profile` would have written from the same buffers. */
int gs_transcode_file(const char *in, const char *out, struct gs_err *err);
void gs_transcoder_release(struct gs_transcoder *t);

#endif
