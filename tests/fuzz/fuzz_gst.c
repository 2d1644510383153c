/* fuzz_gst.c: libFuzzer target for the .gst reader and everything that consumes the model:
 * any byte string must load as an error, a partial model or a full one, and the nvtx_sum report
 * and its renderers must run on whatever loaded, without a crash or undefined behaviour. The
 * same bytes also go to the CUDA chunk decoder as a chunk payload (the fixtures with CUDA
 * chunks, tests/data/transcoded_*.gst, reach it through the file too), and to the jitdump
 * reader as a file of the session (tests/data/jitdump is in the corpus). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/analysis/reports.h"
#include "../../src/capture/capture.h"
#include "../../src/model/model.h"
#include "../../src/render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_model m;
	struct gs_err err;
	memset(&m, 0, sizeof(m));
	gs_model_add_string(&m, "", 0);
	gs_model_add_string(&m, "kernel", 6);
	for (int i = 0; i < 2; i++) /* twice: the second time, shapes are defined already */
		(void)gs_cuda_chunk_load(&m, data, size);
	(void)gs_model_load_kmetrics(&m, data, size); /* a KMETRICS payload, as raw bytes */
	struct gs_jitdump jd = {0};
	struct gs_strbuf lines;
	gs_strbuf_init(&lines);
	(void)gs_jitdump_parse(data, size, "fuzz.dump", &jd, &err);
	for (size_t i = 0; i < jd.syms.n && i < 4; i++)
		gs_jitdump_lines(&jd, jd.syms.v[i].pid, &lines);
	gs_strbuf_release(&lines);
	gs_jitdump_release(&jd);
	gs_model_release(&m);
	if (gs_model_load_mem(&m, "fuzz.gst", data, size, &err) < 0)
		return 0;
	struct gs_filter f = {0};
	struct gs_table t;
	if (gs_report_nvtx_sum(&m, &f, &t, &err) == 0) {
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_render_table(&t, GS_FMT_TABLE, &sb);
		gs_render_table(&t, GS_FMT_CSV, &sb);
		gs_render_table(&t, GS_FMT_JSON, &sb);
		gs_strbuf_release(&sb);
		gs_table_release(&t);
	}
	/* the reports that follow the model's indices into other tables: the measured kernels'
	 * metrics, the stacks of the OS runtime and CUDA API calls */
	int (*const more[])(const struct gs_model *, const struct gs_filter *, struct gs_table *,
			    struct gs_err *) = {gs_report_kernel_metrics, gs_report_osrt_stack_sum,
						 gs_report_cuda_api_stack_sum};
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (more[i](&m, &f, &t, &err) == 0) {
			struct gs_strbuf sb;
			gs_strbuf_init(&sb);
			gs_render_table(&t, GS_FMT_CSV, &sb);
			gs_strbuf_release(&sb);
			gs_table_release(&t);
		}
	gs_model_release(&m);
	return 0;
}
