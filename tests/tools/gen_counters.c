/* gen_counters.c: writes a small trace of GPU counter tracks with hand-sized values through the
 * real format writer (the COUNTERS builder `gpuscope profile --gpu-metrics` uses), for the
 * tests of the format, model, stats report and exports (tests/cases/gpu_metrics.sh), and the
 * fixture tests/data/counters.gst.
 *
 * Usage: gen_counters FILE
 *
 * The session starts at T0 (CLOCK_MONOTONIC ns) = 1000 s; the tracks, times relative to T0:
 *   GPU 0 gpu_util (%):   10 at 0 s, 20 at 1 s, 60 at 3 s
 *       -> Min 10, Avg (10 x 1 + 20 x 2) / 3 = 16.667, Med 20, Max 60
 *   GPU 0 power (mW):     100000 at 0 s, 300000 at 1 s, 200000 at 3 s
 *       -> Avg (100000 x 1 + 300000 x 2) / 3 = 233333.3 mW, 233.3 W
 *   GPU 0 mem_used (B):   1000 at 0 s, 2000 at 1 s (second chunk), 3000 at 2 s, 4000 at 3 s
 *       (first chunk: the later samples come first in the file; the loader merges and sorts)
 *       -> Min 1000, Avg 2000, Med 2500, Max 4000
 *   GPU 1 gpu_util (%):   50 at 0.5 s, one sample -> Avg 50
 * then END at 4 s. */
#include <stdio.h>
#include <string.h>

#include "../../src/format/counters.h"
#include "../../src/format/file.h"
#include "../../src/format/gst.h"
#include "../../src/format/tlv.h"

#define T0 1000000000000ull
#define S 1000000000ull

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_counters FILE\n");
		return 2;
	}
	struct gs_err err = {0};
	struct gs_writer w;
	if (gs_writer_open(&w, argv[1], &err) < 0) {
		fprintf(stderr, "gen_counters: %s\n", err.msg);
		return 1;
	}
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	static const char cmd[] = "gen_counters";
	gs_tlv_str(&m, GS_SK_VERSION, GS_VERSION, strlen(GS_VERSION));
	gs_tlv_str(&m, GS_SK_COMMAND, cmd, sizeof(cmd));
	gs_tlv_str(&m, GS_SK_HOST, "synthetic", 9);
	gs_tlv_u64(&m, GS_SK_START_REAL, 1796233140000000000ull);
	gs_tlv_u64(&m, GS_SK_START_MONO, T0);
	gs_tlv_str(&m, GS_SK_TRACE, "nvtx", 4);
	gs_tlv_str(&m, GS_SK_CLOCK, "monotonic", 9);
	gs_tlv_u64(&m, GS_SK_GPU_METRICS_HZ, 1);
	gs_writer_chunk(&w, GS_CHUNK_SESSION, m.buf, m.len, 0);

	struct gs_counterbuild b;
	gs_counterbuild_init(&b, 0, GS_GM_GPU_UTIL, "gpu_util", "%");
	gs_counter_add(&b, T0, 10);
	gs_counter_add(&b, T0 + 1 * S, 20);
	gs_counter_add(&b, T0 + 3 * S, 60);
	gs_counterbuild_write(&b, &w);
	gs_counterbuild_release(&b);

	gs_counterbuild_init(&b, 0, GS_GM_POWER, "power", "mW");
	gs_counter_add(&b, T0, 100000);
	gs_counter_add(&b, T0 + 1 * S, 300000);
	gs_counter_add(&b, T0 + 3 * S, 200000);
	gs_counterbuild_write(&b, &w);
	gs_counterbuild_release(&b);

	gs_counterbuild_init(&b, 0, GS_GM_MEM_USED, "mem_used", "B");
	gs_counter_add(&b, T0 + 2 * S, 3000);
	gs_counter_add(&b, T0 + 3 * S, 4000);
	gs_counterbuild_seal(&b);
	gs_counter_add(&b, T0, 1000);
	gs_counter_add(&b, T0 + 1 * S, 2000);
	gs_counterbuild_write(&b, &w); /* two chunks */
	gs_counterbuild_release(&b);

	gs_counterbuild_init(&b, 1, GS_GM_GPU_UTIL, "gpu_util", "%");
	gs_counter_add(&b, T0 + S / 2, 50);
	gs_counterbuild_write(&b, &w);
	gs_counterbuild_release(&b);

	gs_strbuf_reset(&m);
	gs_tlv_u64(&m, GS_EK_END_REAL, 1796233140000000000ull + 4 * S);
	gs_tlv_u64(&m, GS_EK_END_MONO, T0 + 4 * S);
	gs_tlv_u64(&m, GS_EK_EVENTS, 0);
	gs_tlv_u64(&m, GS_EK_EXIT, 0);
	gs_writer_chunk(&w, GS_CHUNK_END, m.buf, m.len, 0);
	gs_strbuf_release(&m);
	if (gs_writer_close(&w, argv[1], &err) < 0) {
		fprintf(stderr, "gen_counters: %s\n", err.msg);
		return 1;
	}
	return 0;
}
