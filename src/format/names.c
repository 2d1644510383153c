/* names.c: printable names of stored enumerations, shared by every command. */
#include "gst.h"

#include "ring.h"

const char *const gs_loss_names[GS_LOSS__N] = {
	[GS_LOSS_BUFFER_FULL] = "buffer_full",
	[GS_LOSS_THREAD_LIMIT] = "thread_limit",
	[GS_LOSS_REENTRANT] = "reentrant",
	[GS_LOSS_REGISTRY_FULL] = "registry_full",
	[GS_LOSS_CUPTI_DROPPED] = "cupti_dropped",
};
