/* reports.h: the table of `gpuscope stats` reports. Each report is a pure function from the
 * model (and a filter) to a table. Adding a report = one function + one row in gs_reports.
 * Invariants: report names are unique, lowercase, nsys's where nsys has the report. */
#ifndef GS_ANALYSIS_REPORTS_H
#define GS_ANALYSIS_REPORTS_H

#include "../model/model.h"
#include "../util/err.h"
#include "table.h"

struct gs_filter {
	int32_t pid;          /* 0: all */
	uint64_t t0, t1;      /* session-relative ns window; t1 == 0: to the end */
	int by_device;        /* 1: only GPU work of `device` (and no CPU-side rows) */
	uint32_t device;
};

struct gs_report_def {
	const char *name;
	const char *summary;
	int (*fn)(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		  struct gs_err *err);
};

extern const struct gs_report_def gs_reports[];
extern const size_t gs_nreports;
const struct gs_report_def *gs_report_find(const char *name);

int gs_report_nvtx_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err);
int gs_report_nvtx_kern_sum(const struct gs_model *m, const struct gs_filter *f,
			    struct gs_table *out, struct gs_err *err);

int gs_report_cuda_gpu_kern_sum(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_kern_gb_sum(const struct gs_model *m, const struct gs_filter *f,
				   struct gs_table *out, struct gs_err *err);
int gs_report_cuda_api_sum(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_mem_time_sum(const struct gs_model *m, const struct gs_filter *f,
				    struct gs_table *out, struct gs_err *err);
int gs_report_cuda_gpu_mem_size_sum(const struct gs_model *m, const struct gs_filter *f,
				    struct gs_table *out, struct gs_err *err);
int gs_report_gpu_util(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err);
/* "domain:name" as nsys labels NVTX ranges (":name" in the default domain); malloc'd. */
char *gs_range_label(const struct gs_model *m, uint32_t domain, uint32_t name);
/* Whether a record of process pid starting at start (CLOCK_MONOTONIC ns) passes f; device is
 * the GPU of GPU work, or -1 for CPU-side records (which --device leaves out). */
int gs_filter_keep(const struct gs_model *m, const struct gs_filter *f, int32_t pid, int64_t device,
		   uint64_t start);
static inline int gs_filter_range(const struct gs_model *m, const struct gs_filter *f,
				  const struct gs_range *r)
{
	return gs_filter_keep(m, f, r->pid, -1, r->start);
}

#endif
