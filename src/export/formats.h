/* formats.h: the exporters of chrome.c and tables.c, listed in exporters.c (export.h says what
 * each promises). */
#ifndef GS_EXPORT_FORMATS_H
#define GS_EXPORT_FORMATS_H

#include "export.h"

int gs_export_perfetto(const struct gs_model *m, const struct gs_filter *f, const char *out,
		       struct gs_err *err);
int gs_export_sqlite(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err);
int gs_export_chrome(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err);
/* A folder of tables (tables.c): one .csv (RFC 4180) or .json (an array of objects) per table. */
int gs_export_csv(const struct gs_model *m, const struct gs_filter *f, const char *out,
		  struct gs_err *err);
int gs_export_json(const struct gs_model *m, const struct gs_filter *f, const char *out,
		   struct gs_err *err);
/* CPU samples' stacks (stacks.c): folded text for flame graphs, gzipped pprof protobuf. */
int gs_export_folded(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err);
int gs_export_folded_osrt(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err);
int gs_export_pprof(const struct gs_model *m, const struct gs_filter *f, const char *out,
		    struct gs_err *err);
struct gs_strbuf;
/* The pprof Profile message, before gzip (for tests). */
void gs_pprof_build(const struct gs_model *m, const struct gs_filter *f, struct gs_strbuf *out);
/* The tables' names: the folder holds NAME.csv or NAME.json for each. */
extern const char *const gs_export_tables[];
extern const size_t gs_export_ntables;

#endif
