/* fuzz_kineto.c: libFuzzer target for the PyTorch profiler (Kineto JSON) importer and every
 * report on what it loads: any byte string, read as a trace (plain, and through windows of a
 * few bytes so that every unit is cut and parsed again), must give an error, a partial model
 * or a full one, and each report, `analyze` (its steps the trace's ProfilerStep#N ranges, else
 * the whole run) and each renderer must run on it, without a crash, a hang or undefined
 * behaviour. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/analysis/reports.h"
#include "../../src/import/import.h"
#include "../../src/import/json.h"
#include "../../src/model/model.h"
#include "../../src/render/analyze.h"
#include "../../src/render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_model m;
	struct gs_err err;
	gs_js_first_window = 4u << 20;
	if (gs_import_kineto_mem(&m, "fuzz.json", data, size, &err) < 0)
		return 0;
	struct gs_filter f = {0};
	for (size_t r = 0; r < gs_nreports; r++) {
		struct gs_table t;
		/* the kernel reports with nsys's arguments :nvtx-name:mangled */
		f.kname = gs_reports[r].args ? GS_KNAME_MANGLED : GS_KNAME_DEMANGLED;
		f.nvtx_name = gs_reports[r].args & GS_RARG_NVTX ? 1 : 0;
		if (gs_reports[r].fn(&m, &f, &t, &err) < 0)
			continue;
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_render_table(&t, GS_FMT_TABLE, &sb);
		gs_render_table(&t, GS_FMT_CSV, &sb);
		gs_render_table(&t, GS_FMT_JSON, &sb);
		gs_strbuf_release(&sb);
		gs_table_release(&t);
	}
	f.kname = GS_KNAME_DEMANGLED;
	f.nvtx_name = 0;
	gs_model_steps(&m, NULL);
	struct gs_an_opts ao = {0};
	struct gs_analysis a;
	gs_analyze(&m, &f, &ao, &a);
	struct gs_render_opts ro = {0};
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_analysis(&m, &a, GS_FMT_TEXT, &ro, &sb);
	gs_render_analysis(&m, &a, GS_FMT_JSON, &ro, &sb);
	gs_strbuf_release(&sb);
	gs_analysis_release(&a);
	gs_model_steps_release(&m);
	gs_model_release(&m);
	/* small windows: the same bytes must load the same way when every unit is cut */
	gs_js_first_window = 1 + size % 61;
	if (gs_import_kineto_mem(&m, "fuzz.json", data, size, &err) == 0)
		gs_model_release(&m);
	gs_js_first_window = 4u << 20;
	return 0;
}
