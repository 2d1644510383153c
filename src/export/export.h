/* export.h: the model written out in other tools' formats (gpuscope export). Each exporter
 * writes one file (or, for to_dir ones, a folder of files) from a loaded model, for the part
 * of it a filter keeps; none keeps a second copy of the model's tables in memory.
 * Invariants: an exporter either returns 0 with its output complete, or a negative code with
 * err naming the file and what went wrong (a partial output may be left: the command removes
 * it). */
#ifndef GS_EXPORT_EXPORT_H
#define GS_EXPORT_EXPORT_H

#include "../analysis/reports.h"
#include "../model/model.h"

struct gs_exporter {
	const char *type;  /* --type NAME */
	const char *what;  /* one line for --help */
	const char *ext;   /* the default output's extension (".pftrace", ".json", ...), "" for a folder */
	int to_dir;        /* writes a folder of files (csv, json) */
	int (*fn)(const struct gs_model *m, const struct gs_filter *f, const char *out,
		  struct gs_err *err);
};

/* Every exporter, the default (perfetto) first; src/export/exporters.c. */
extern const struct gs_exporter gs_exporters[];
extern const size_t gs_nexporters;
const struct gs_exporter *gs_exporter_find(const char *type);

#endif
