/* table.h: the result of a report: typed columns and rows of cells, rendered elsewhere.
 * Invariants: every row has ncols cells; string cells are owned by the table; analysis code
 * fills tables and never prints; render code prints tables and never computes. A cell may be
 * empty (the column does not apply to the row): GS_CELL_NONE in an integer column, NaN in a
 * float one, NULL in a text one; it renders as nothing (null in JSON numbers). */
#ifndef GS_ANALYSIS_TABLE_H
#define GS_ANALYSIS_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum gs_cell_type {
	GS_COL_INT,   /* integer, right-aligned */
	GS_COL_FLOAT, /* one decimal, right-aligned */
	GS_COL_PCT,   /* percentage with one decimal */
	GS_COL_STR,   /* text, left-aligned */
	GS_COL_FLOAT3, /* three decimals, right-aligned (MB columns) */
	GS_COL_NS,     /* integer nanoseconds: as GS_COL_INT, but the overview shows "12.3 ms" */
	GS_COL_BYTES,  /* integer bytes: as GS_COL_INT, but the overview shows "1.5 MiB" */
	GS_COL_FLOAT6, /* six decimals, right-aligned (times in ms: gs_table_timeunit) */
	GS_COL_FLOAT9, /* nine decimals, right-aligned (times in s) */
};

struct gs_column {
	const char *name;
	enum gs_cell_type type;
};

union gs_cell {
	int64_t i;
	double f;
	char *s;
};

/* Where a table's rows go as they are made (gs_table_stream), for reports whose rows are final
 * and in order once added (the trace reports): every `window` rows gs_table_row hands the rows
 * held to flush, which renders them, then empties the table, so that a report of millions of
 * rows holds a window of them. flushed counts the rows handed out before those held. */
struct gs_table;
struct gs_table_stream {
	size_t window;
	void (*flush)(struct gs_table *t, void *ctx);
	void *ctx;
};

struct gs_table {
	const char *name;  /* report name, e.g. nvtx_sum */
	const char *title; /* e.g. NVTX Range Summary */
	const struct gs_column *cols;
	size_t ncols;
	union gs_cell *cells;
	size_t nrows, cap;
	char *note;        /* a line shown under the table (lost records, damage), or NULL */
	struct gs_column *own_cols; /* cols when the table's own (gs_table_timeunit), else NULL */
	const struct gs_column *base_cols; /* the report's columns, when own_cols replaced them */
	const struct gs_table_stream *stream; /* NULL: the table holds all its rows */
	uint64_t flushed;  /* rows handed to stream->flush so far */
};

void gs_table_init(struct gs_table *t, const char *name, const char *title,
		   const struct gs_column *cols, size_t ncols);
/* Appends a row and returns its cells (zeroed). A streamed table first hands out its rows
 * when it holds a window of them: a row's cells are valid until the next gs_table_row. */
union gs_cell *gs_table_row(struct gs_table *t);
/* Rows of t to go to s as they are made (s NULL: none), from a report whose rows are final
 * and in order once added; after the report, gs_table_flush hands out the rest. */
void gs_table_stream(struct gs_table *t, const struct gs_table_stream *s);
/* A streamed table's rows held to its flush (also none: the flush renders what comes before
 * the rows once), then none held. */
void gs_table_flush(struct gs_table *t);
/* Empty cells: set cell c of row to empty, as its column's type marks it; test for it. */
#define GS_CELL_NONE INT64_MIN
void gs_cell_set_none(const struct gs_table *t, union gs_cell *row, size_t c);
int gs_cell_is_none(enum gs_cell_type type, const union gs_cell *c);
void gs_table_release(struct gs_table *t);
/* The table's times in another unit, as nsys stats --timeunit: every column named "... (ns)"
 * is renamed "... (UNIT)" and its cells divided by per (ns per unit: 1000 for "us"), kept
 * exact in 3, 6 or 9 decimals (us, ms, s); empty cells stay empty. per 1 changes nothing.
 * It converts the rows the table holds: a streamed table calls it on each window. */
void gs_table_timeunit(struct gs_table *t, const char *unit, uint64_t per);

/* Summary statistics of a sample, as the nsys summary reports show them. */
struct gs_summary {
	uint64_t n, total, min, max;
	double avg, med, stddev; /* sample standard deviation (n-1); 0 for n < 2 */
};
/* Reorders v (the median is selected, not sorted for: util/select.h). */
void gs_summarize(uint64_t *v, size_t n, struct gs_summary *s);
/* A summary as the cells c[0..7] of nsys's summary columns: Time (%) (of all), Total Time,
 * count, Avg, Med, Min, Max, StdDev */
void gs_summary_cells(union gs_cell *c, const struct gs_summary *s, uint64_t all);

#endif
