/* cupti_layout.h: the sizes of the CUPTI activity records gpuscope decodes, per CUPTI release.
 *
 * CUPTI writes each kind as the newest struct of the libcupti that is loaded, and a minor
 * release may append fields to a kind (CUDA 13.1 made kernels CUpti_ActivityKernel11, 13.4
 * CUpti_ActivityKernel13). A buffer is walked by those sizes; its fields are read by the
 * offsets of the structs of the headers gpuscope is built with (13.0), which every release
 * below keeps as a prefix: checked field by field against each release's cupti_activity.h
 * (13.0.1, 13.1.115, 13.2.86, 13.3.75, 13.4.92, 13.5.25; docs/trace-format.md). The kinds not
 * listed (API, synchronization, memory, overhead, graph trace, stream, peer copies) have one
 * size in all of them. A release not in the table is not decoded: its bytes are counted.
 * Collector-safe: no functions but the look-up. */
#ifndef GS_FORMAT_CUPTI_LAYOUT_H
#define GS_FORMAT_CUPTI_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct gs_cupti_layout {
	uint32_t release; /* cuptiGetVersion() / 100: 1300 for 13.0 */
	uint16_t kernel, memcpy, memset, device, context;
};

/* the layouts of the releases known, oldest first; NULL for another */
static inline const struct gs_cupti_layout *gs_cupti_layout(uint64_t version)
{
	static const struct gs_cupti_layout known[] = {
		{1300, 216, 96, 88, 184, 32},  /* Kernel10, Memcpy6, Memset4, Device5, Context3 */
		{1301, 224, 96, 88, 184, 40},  /* Kernel11, Context4 */
		{1302, 224, 96, 88, 192, 40},  /* Device6 */
		{1303, 232, 96, 88, 192, 40},  /* Kernel12 */
		{1304, 248, 112, 104, 192, 40}, /* Kernel13, Memcpy7, Memset5 */
		{1305, 248, 112, 104, 192, 40},
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].release == version / 100)
			return &known[i];
	return NULL;
}

#endif
