/* exporters.c: the table of `gpuscope export --type` values. The first entry is the default;
 * adding an exporter is one line here. */
#include <string.h>

#include "export.h"
#include "formats.h"

const struct gs_exporter gs_exporters[] = {
	{"perfetto", "Perfetto's protobuf trace (ui.perfetto.dev, trace_processor)", ".pftrace", 0,
	 gs_export_perfetto},
	{"chrome", "Chrome-trace JSON in PyTorch profiler (Kineto) layout: chrome://tracing, Perfetto, TensorBoard, HTA", ".json", 0, gs_export_chrome},
	{"csv", "a folder of CSV files, one per table", "", 1, gs_export_csv},
	{"json", "a folder of JSON files, one per table", "", 1, gs_export_json},
	{"sqlite", "SQLite in the schema of nsys export --type sqlite", ".sqlite", 0, gs_export_sqlite},
	{"folded", "CPU samples as folded stacks for flame graphs (flamegraph.pl, speedscope)", ".folded", 0,
	 gs_export_folded},
	{"folded-osrt", "OS runtime calls recorded with their stacks as folded stacks, weighted by their time in ns: an off-CPU flame graph of the waits", ".osrt.folded", 0,
	 gs_export_folded_osrt},
	{"pprof", "CPU samples as a gzipped pprof profile (go tool pprof)", ".pb.gz", 0, gs_export_pprof},
};
const size_t gs_nexporters = sizeof(gs_exporters) / sizeof(gs_exporters[0]);

const struct gs_exporter *gs_exporter_find(const char *type)
{
	for (size_t i = 0; i < gs_nexporters; i++)
		if (!strcmp(gs_exporters[i].type, type))
			return &gs_exporters[i];
	return NULL;
}
