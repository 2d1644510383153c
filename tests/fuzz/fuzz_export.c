/* fuzz_export.c: libFuzzer target for the exporters that write one file: whatever model a byte
 * string loads as (fuzz_gst covers the reader itself) is written as Perfetto's protobuf,
 * Chrome-trace JSON, folded stacks (CPU samples, OS runtime calls) and pprof, as `gpuscope
 * export -t TYPE` writes them, to /dev/null, without a crash, undefined behaviour or a hang.
 * (csv, json and sqlite write folders or a database per input: too slow to fuzz; tests/cases
 * check them on the fixtures.) The corpus is the committed .gst fixtures. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/export/export.h"
#include "../../src/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = {"perfetto", "chrome", "folded", "folded-osrt", "pprof"};
	struct gs_model m;
	struct gs_err err;
	memset(&m, 0, sizeof(m));
	if (gs_model_load_mem(&m, "fuzz.gst", data, size, &err) < 0)
		return 0;
	struct gs_filter f = {0};
	/* Perfetto's export writes a packet per sampling period, up to 65535 a sample: an input
	 * whose samples stand for millions of periods takes its time for what it says, not for a
	 * bug, so it is not written there (the fuzzer's timeout would take it for a hang) */
	uint64_t periods = 0;
	for (size_t i = 0; i < m.samples.n; i++)
		periods += m.samples.v[i].weight;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const struct gs_exporter *e = gs_exporter_find(types[i]);
		if (!strcmp(types[i], "perfetto") && periods > (1u << 20))
			continue;
		if (e && !e->to_dir)
			(void)e->fn(&m, &f, "/dev/null", &err);
	}
	gs_model_release(&m);
	return 0;
}
