/* kmetrics.h: per-kernel hardware metrics inside libgpuscope-cuda.so (kmetrics.c), called
 * from cupti.c's CUPTI callbacks. Invariants: gs_km_init runs once, after the CUPTI ring
 * exists; gs_km_callback sees every enter and exit of the launch ids gs_km_is_launch names,
 * on the launching thread, enter before exit. */
#ifndef GS_KMETRICS_H
#define GS_KMETRICS_H

#include <cupti.h>
#include <stdint.h>

#include "../../format/ring.h"

int gs_km_init(CUpti_SubscriberHandle sub, struct gs_ring_header *cupti_ring);
int gs_km_is_launch(uint32_t cbid);
void gs_km_callback(uint32_t cbid, const CUpti_CallbackData *cb);
void gs_km_context_destroy(CUcontext ctx);
void gs_km_at_exit(void);

#endif
