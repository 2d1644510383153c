/* import.h: traces written by other tools, read into the same model as native ones.
 * Invariants: on success the model satisfies every invariant of model.h (sorted, joined) and
 * has `imported` set; on failure it is released and err names the file and the byte. */
#ifndef GS_IMPORT_IMPORT_H
#define GS_IMPORT_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"

/* PyTorch profiler / Kineto Chrome-trace JSON, plain or gzip-compressed. */
int gs_import_kineto(struct gs_model *m, const char *path, struct gs_err *err);
int gs_import_kineto_mem(struct gs_model *m, const char *name, const uint8_t *data, size_t size,
			 struct gs_err *err);
/* Whether a file starting with these bytes is one an importer reads (not a .gst). */
int gs_import_sniff(const uint8_t *p, size_t n);

#endif
