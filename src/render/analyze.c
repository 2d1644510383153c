/* render/analyze.c: `gpuscope analyze`'s text and JSON (render/analyze.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "analyze.h"

#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define CYAN "\033[36m"
#define RESET "\033[0m"
#define BAR_WIDTH 30
#define DEFAULT_WIDTH 100u

/* ---- text ---- */

/* Append text word-wrapped to width, the first line after `first` (already `used` columns
 * wide), the others indented by indent spaces. Words longer than a line are not cut. */
static void wrap(struct gs_strbuf *sb, size_t used, size_t indent, unsigned width, const char *text)
{
	size_t col = used;
	const char *p = text;
	int first = 1;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t w = strcspn(p, " ");
		if (!first && col + 1 + w > width) {
			gs_strbuf_addc(sb, '\n');
			for (size_t i = 0; i < indent; i++)
				gs_strbuf_addc(sb, ' ');
			col = indent;
		} else if (!first) {
			gs_strbuf_addc(sb, ' ');
			col++;
		}
		gs_strbuf_add(sb, p, w);
		col += w;
		p += w;
		first = 0;
	}
	gs_strbuf_addc(sb, '\n');
}

/* The verdict in words: a printf format with one %.1f for the primary class's share. */
static const char *plain_verdict(int cls)
{
	switch (cls) {
	case GS_AN_GPU_COMPUTE: return "GPU-bound: kernels run %.1f%% of the step time.";
	case GS_AN_GPU_TRANSFER: return "Transfer-bound: copies and memsets run %.1f%% of the step time.";
	case GS_AN_GPU_COMM:
		return "Communication-bound: communication kernels (NCCL) run with no computation "
		       "beside them %.1f%% of the step time.";
	case GS_AN_HOST_SYNC:
		return "Sync-bound: for %.1f%% of the step time the host waits on a GPU that has "
		       "nothing to do.";
	case GS_AN_HOST_LAUNCH:
		return "Launch-bound: for %.1f%% of the step time the GPU idles while the host is in "
		       "CUDA calls (launches, allocation, setup).";
	case GS_AN_INPUT:
		return "Input-bound: for %.1f%% of the step time the GPU idles while the host loads data.";
	case GS_AN_HOST_COMPUTE:
		return "Host-bound: for %.1f%% of the step time the GPU idles while the host runs other "
		       "code (operators, Python, user ranges).";
	default:
		return "Idle: for %.1f%% of the step time the GPU idles and nothing recorded on the host "
		       "explains it.";
	}
}

/* "for X% of the GPU's idle time the main thread DOES." for host activity c of id */
static void idle_doing(struct gs_strbuf *line, const struct gs_an_idle *id, int c)
{
	size_t n = (size_t)gs_an_idle_doing(id, c, NULL, 0) + 1;
	char *doing = gs_xmalloc(n);
	gs_an_idle_doing(id, c, doing, n);
	gs_strbuf_addf(line, "for %.1f%% of the GPU's idle time the main thread %s.",
		       100.0 * (double)id->ns[c] / (double)id->idle_ns, doing);
	free(doing);
}

/* The verdict "other" when the trace has host data (CPU samples or OS runtime calls): the idle
 * time is outside CUDA calls, syncs, data loading and host ranges, and the host activity that
 * took most of it (gs_an_idle_dominant) is named, or the table below is pointed to. */
static void idle_verdict(struct gs_strbuf *line, const struct gs_analysis *a)
{
	const struct gs_an_idle *id = &a->idle;
	gs_strbuf_addf(line, "Idle: for %.1f%% of the step time the GPU idles outside CUDA calls, "
			     "syncs, data loading and host ranges",
		       100.0 * gs_an_share(a, GS_AN_OTHER));
	int c = gs_an_verdict_idle(a);
	if (c < 0) {
		gs_strbuf_adds(line, " (what the host did then: \"GPU idle, by host activity\", below).");
		return;
	}
	gs_strbuf_adds(line, "; ");
	idle_doing(line, id, c);
}

/* "importing modules 12.9 s (byte-compiling sources 9.35 s of it), torch.compile compiling
 * 3.03 s": the start-up work of id, each time divided by per */
static void startup_parts(struct gs_strbuf *sb, const struct gs_an_idle *id, double per)
{
	if (id->import_ns) {
		gs_strbuf_adds(sb, "importing modules ");
		gs_fmt_duration(sb, (uint64_t)((double)id->import_ns / per));
		if (id->pyc_ns) {
			gs_strbuf_adds(sb, " (byte-compiling sources ");
			gs_fmt_duration(sb, (uint64_t)((double)id->pyc_ns / per));
			gs_strbuf_adds(sb, " of it)");
		}
	}
	if (id->compile_ns) {
		gs_strbuf_adds(sb, id->import_ns ? ", torch.compile compiling " : "torch.compile compiling ");
		gs_fmt_duration(sb, (uint64_t)((double)id->compile_ns / per));
	}
}

static const char *steps_by_name(uint8_t by)
{
	return by == GS_STEPS_PROFILER ? "profiler" : by == GS_STEPS_NAMED ? "named" : "run";
}

/* The bars shrink to fit the width: a breakdown line is 40 columns besides its bar. */
static void bar(struct gs_strbuf *sb, double frac, const struct gs_render_opts *o)
{
	int w = o->width > 40 + BAR_WIDTH ? BAR_WIDTH : o->width > 50 ? (int)o->width - 40 : 10;
	int n = (int)(frac * w + 0.5);
	if (o->color)
		gs_strbuf_adds(sb, CYAN);
	for (int i = 0; i < w; i++)
		gs_strbuf_adds(sb, i < n ? (o->ascii ? "#" : "\xe2\x96\x88") : " ");
	if (o->color)
		gs_strbuf_adds(sb, RESET);
}

static void text_verdict(const struct gs_model *m, const struct gs_analysis *a,
			 const struct gs_render_opts *o, struct gs_strbuf *sb)
{
	const char *b = o->color ? BOLD : "", *r = o->color ? RESET : "";
	gs_strbuf_addf(sb, "%sgpuscope analyze%s %s\n", b, r, m->path);
	gs_strbuf_addf(sb, "Steps: %zu (%s), median step ", a->steps.n,
		       a->steps_by == GS_STEPS_PROFILER ? "ProfilerStep#N ranges" :
		       a->steps_by == GS_STEPS_NAMED ? "--step ranges" : "the whole run");
	gs_fmt_duration(sb, a->median_ns);
	gs_strbuf_adds(sb, "\n");
	if (a->nstep_hints) {
		struct gs_strbuf h;
		gs_strbuf_init(&h);
		gs_an_step_hints_line(a->step_hints, a->nstep_hints, &h);
		gs_strbuf_adds(sb, "       ");
		wrap(sb, 7, 7, o->width, h.buf);
		gs_strbuf_release(&h);
	}
	if (a->warmup_ns) {
		struct gs_strbuf w;
		char from[40];
		gs_strbuf_init(&w);
		gs_strbuf_adds(&w, "the first step took ");
		gs_fmt_duration(&w, a->warmup_ns);
		gs_strbuf_addf(&w, " (%.0fx the median), %.1f%% of the steps' time",
			       (double)a->warmup_ns / (double)a->median_ns,
			       100.0 * (double)a->warmup_ns / (double)a->total);
		if (a->warmup_compile_ns || a->warmup_import_ns) { /* "; of it, while the GPU idled, ..." */
			struct gs_an_idle parts = {.import_ns = a->warmup_import_ns,
						   .compile_ns = a->warmup_compile_ns};
			gs_strbuf_adds(&w, "; of it, while the GPU idled, ");
			startup_parts(&w, &parts, 1.0);
		}
		gs_strbuf_addf(&w, ": a warm-up that weighs on every mean below; --time %s: leaves it out",
			       gs_an_warmup_from(a, from, sizeof(from)));
		gs_strbuf_adds(sb, "       ");
		wrap(sb, 7, 7, o->width, w.buf);
		gs_strbuf_release(&w);
	}
	if (gs_an_startup_share(a) >= GS_AN_STARTUP_NOTE) {
		struct gs_strbuf w;
		gs_strbuf_init(&w);
		gs_strbuf_addf(&w, "start-up takes %.1f%% of the run", 100.0 * gs_an_startup_share(a));
		if (a->idle.import_ns || a->idle.compile_ns) {
			gs_strbuf_adds(&w, ": while the GPU idles, ");
			startup_parts(&w, &a->idle, 1.0);
		}
		if (a->load_ns) {
			gs_strbuf_addf(&w, "%s copying %.1f MB to the GPU before its first kernel, ",
				       a->idle.import_ns || a->idle.compile_ns ? ";" : ":",
				       (double)a->load_bytes / 1e6);
			gs_fmt_duration(&w, a->load_ns);
		}
		gs_strbuf_adds(&w, "; a one-time cost that weighs on every figure below: ");
		if (a->nstep_hints)
			gs_strbuf_addf(&w, "--step %s analyzes the loop alone", a->step_hints[0].name);
		else
			gs_strbuf_adds(&w, "--time A:B after it, or a range around each step (NVTX, "
					   "record_function) and --step NAME, analyzes the loop alone");
		gs_strbuf_adds(sb, "       ");
		wrap(sb, 7, 7, o->width, w.buf);
		gs_strbuf_release(&w);
	}
	if (a->no_gpu_work) {
		gs_strbuf_adds(sb, "Note:  ");
		wrap(sb, 7, 7, o->width, a->no_gpu_work == 2 ?
			"no GPU work passes --pid, --time and --device: what follows is the host's." :
			"no GPU work: the trace holds no kernel, copy or memset, and what follows is "
			"the host's. If the program uses CUDA, 'gpuscope info' shows what was recorded.");
	}
	gs_strbuf_adds(sb, "\n");
	struct gs_strbuf line;
	gs_strbuf_init(&line);
	if (a->primary == GS_AN_OTHER && a->idle.host_data && a->idle.idle_ns)
		idle_verdict(&line, a);
	else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		gs_strbuf_addf(&line, plain_verdict(a->primary), 100.0 * gs_an_share(a, a->primary));
#pragma GCC diagnostic pop
		if (a->primary == GS_AN_HOST_COMPUTE && a->nhost_ranges) {
			const struct gs_an_top *h = gs_an_host_range_hint(a);
			gs_strbuf_addf(&line, " %.1f%% of it inside %s", 100.0 * gs_an_host_range_share(a),
				       a->host_ranges[0].name);
			if (h)
				gs_strbuf_addf(&line, ", a range that repeats %llux: --step %s takes each "
						      "as a step", (unsigned long long)h->count, h->name);
			gs_strbuf_addc(&line, '.');
		}
		int ih = gs_an_verdict_idle(a);
		if (ih >= 0) { /* host_compute, while the main thread did not run code */
			gs_strbuf_adds(&line, " Yet ");
			idle_doing(&line, &a->idle, ih);
		}
	}
	double idle = 1.0 - a->breakdown[GS_AN_GPU_COMPUTE] - a->breakdown[GS_AN_GPU_TRANSFER];
	if (a->total && (a->primary <= GS_AN_GPU_TRANSFER || a->primary == GS_AN_GPU_COMM) &&
	    idle > 0.0005)
		gs_strbuf_addf(&line, " The GPU idles %.1f%% of it.", 100.0 * idle);
	gs_strbuf_addf(sb, "%sVerdict:%s ", b, r);
	wrap(sb, 9, 9, o->width, line.buf);
	gs_strbuf_release(&line);
	gs_strbuf_addf(sb, "\n%sWhere the step time goes%s (per step, mean):\n", b, r);
	int order[GS_AN__N + 1], nc = a->comm.n ? GS_AN__N + 1 : GS_AN__N;
	uint64_t part[GS_AN__N + 1];
	for (int c = 0; c < nc; c++) {
		order[c] = c;
		part[c] = gs_an_part(a, a->part, a->comm_only, c);
	}
	for (int i = 1; i < nc; i++) /* by share, largest first; ties in class order */
		for (int j = i; j > 0 && part[order[j]] > part[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < nc; i++) {
		int c = order[i];
		double sh = gs_an_share(a, c);
		gs_strbuf_addf(sb, "  %-*s %5.1f%%  ", nc > GS_AN__N ? 17 : 15, gs_an_class_name(c),
			       100.0 * sh);
		bar(sb, sh, o);
		gs_strbuf_adds(sb, "  ");
		gs_fmt_duration(sb, a->steps.n ? part[c] / a->steps.n : 0);
		gs_strbuf_addc(sb, '\n');
	}
	if (a->no_api_calls) {
		gs_strbuf_adds(sb, "  note: ");
		wrap(sb, 8, 8, o->width, "the trace has no CUDA API calls (recorded with --cuda-api=none, "
					 "or a profiler trace without runtime events): the GPU's idle time "
					 "while the host launched work counts as other, not host_launch.");
	}
	if (a->profiler_ns && a->steps.n) {
		struct gs_strbuf note;
		gs_strbuf_init(&note);
		gs_strbuf_adds(&note, "CUPTI's own work (its activity buffers, instrumentation) takes ");
		gs_fmt_duration(&note, a->profiler_ns / a->steps.n);
		gs_strbuf_addf(&note, " per step, %.1f%% of the step time above (overhead records: %zu): "
				      "the profiler's, not the program's.",
			       a->total ? 100.0 * (double)a->profiler_ns / (double)a->total : 0.0,
			       a->profiler_records);
		gs_strbuf_adds(sb, "  note: ");
		wrap(sb, 8, 8, o->width, note.buf);
		gs_strbuf_release(&note);
	}
	if (!a->comm.n || !a->steps.n)
		return;
	gs_strbuf_addf(sb, "\n%sCommunication%s ", b, r);
	wrap(sb, 14, 2, o->width, "(NCCL kernels, per step, mean; overlapped: while computation "
				  "kernels run on the device):");
	for (size_t i = 0; i < a->comm.n; i++) {
		const struct gs_an_comm *c = &a->comm.v[i];
		gs_strbuf_addf(sb, "  pid %d device %u: ", (int)c->pid, c->device);
		gs_fmt_duration(sb, c->comm_ns / a->steps.n);
		gs_strbuf_addf(sb, " in %llu kernels, ", (unsigned long long)c->kernels);
		double pct = gs_an_comm_pct(c);
		if (isnan(pct))
			gs_strbuf_adds(sb, "overlap n/a\n");
		else
			gs_strbuf_addf(sb, "%.1f%% overlapped\n", pct);
	}
}

/* The idle time by host activity: only for traces with host data (CPU samples, OS calls). */
static void text_idle(const struct gs_analysis *a, const struct gs_render_opts *o,
		      struct gs_strbuf *sb)
{
	const struct gs_an_idle *id = &a->idle;
	if (!id->host_data || !id->idle_ns || !a->steps.n)
		return;
	const char *b = o->color ? BOLD : "", *r = o->color ? RESET : "";
	gs_strbuf_addf(sb, "\n%sGPU idle, by host activity%s (per step, mean", b, r);
	if (id->main_tid >= 0)
		gs_strbuf_addf(sb, "; main thread pid %d tid %d", (int)id->main_pid, (int)id->main_tid);
	gs_strbuf_adds(sb, "):\n");
	for (int c = 0; c < GS_IDLE__N; c++)
		if (id->ns[c]) {
			gs_strbuf_addf(sb, "  %-13s %10.3f ms %5.1f%%  %s", gs_an_idle_name(c),
				       (double)id->ns[c] / 1e6 / (double)a->steps.n,
				       100.0 * (double)id->ns[c] / (double)id->idle_ns,
				       id->top[c] ? id->top[c] : "");
			if (id->top_thread[c])
				gs_strbuf_addf(sb, " (thread %s)", id->top_thread[c]);
			gs_strbuf_adds(sb, "\n");
		}
	gs_strbuf_adds(sb, "  (loader_range, loader_wait and loader_code are input_pipeline)\n");
	if (id->import_ns || id->compile_ns) {
		struct gs_strbuf l;
		gs_strbuf_init(&l);
		startup_parts(&l, id, (double)a->steps.n);
		gs_strbuf_adds(sb, "  start-up in it: ");
		wrap(sb, 18, 4, o->width, l.buf);
		gs_strbuf_release(&l);
	}
	if (!id->nothers || !id->others_samples)
		return;
	gs_strbuf_addf(sb, "  while the GPU waited for data, the other threads and processes (and the main "
			   "thread in a data-loading range) ran (%llu samples):\n",
		       (unsigned long long)id->others_samples);
	for (size_t k = 0; k < id->nothers; k++)
		gs_strbuf_addf(sb, "    %5.1f%%  %s\n",
			       100.0 * (double)id->others[k].count / (double)id->others_samples,
			       id->others[k].name);
}

static void text_num(struct gs_strbuf *sb, const struct gs_an_num *n)
{
	if (n->integer)
		gs_strbuf_addf(sb, "%s %.0f", n->key, n->v);
	else
		gs_strbuf_addf(sb, "%s %.4g", n->key, n->v);
}

static void text_finding(const struct gs_finding *f, size_t i, const struct gs_render_opts *o,
			 struct gs_strbuf *sb)
{
	const char *b = o->color ? BOLD : "", *r = o->color ? RESET : "";
	const char *sc = !o->color ? "" : f->severity == GS_AN_HIGH ? RED : f->severity == GS_AN_MEDIUM ? YELLOW : DIM;
	struct gs_strbuf t;
	gs_strbuf_init(&t);
	gs_strbuf_addf(sb, "\n%2zu. %s[%s]%s %s%s%s (%s),", i + 1, sc, gs_an_severity_name(f->severity),
		       r, b, f->id, r, gs_an_class_name(f->cls));
	size_t head = 4 + 3 + strlen(gs_an_severity_name(f->severity)) + strlen(f->id) + 3 +
		      strlen(gs_an_class_name(f->cls)) + 1; /* without the colour codes */
	if (f->saving_ns) {
		gs_strbuf_adds(&t, "saves ~");
		gs_fmt_duration(&t, f->saving_ns);
		gs_strbuf_addf(&t, " per step (%.1f%% of the mean step)", f->saving_pct);
	} else {
		gs_strbuf_adds(&t, "saving not estimated");
	}
	gs_strbuf_adds(sb, head + 1 + t.len > o->width ? "\n    " : " ");
	gs_strbuf_addf(sb, "%s\n", t.buf);
	gs_strbuf_reset(&t);
	gs_strbuf_adds(sb, "    ");
	wrap(sb, 4, 4, o->width, f->title);
	for (size_t k = 0; k < f->nnum; k++) {
		if (k)
			gs_strbuf_adds(&t, ", ");
		text_num(&t, &f->num[k]);
	}
	gs_strbuf_adds(sb, "    evidence: ");
	wrap(sb, 14, 6, o->width, t.buf);
	if (f->ntop) {
		gs_strbuf_reset(&t);
		for (size_t k = 0; k < f->ntop; k++) {
			gs_strbuf_addf(&t, "%s%s (", k ? "; " : "", f->top[k].name);
			gs_fmt_duration(&t, f->top[k].ns);
			gs_strbuf_addf(&t, ", %llux)", (unsigned long long)f->top[k].count);
		}
		gs_strbuf_addf(sb, "    top %s: ", f->top_what);
		wrap(sb, 10 + strlen(f->top_what), 6, o->width, t.buf);
	}
	if (f->nex) {
		gs_strbuf_reset(&t);
		for (size_t k = 0; k < f->nex; k++) {
			const struct gs_an_example *e = &f->ex[k];
			gs_strbuf_addf(&t, "%s%.3f-%.3f ms", k ? "; " : "", (double)e->start / 1e6,
				       (double)e->end / 1e6);
			if (e->pid) /* 0: every process (the whole run as the one step) */
				gs_strbuf_addf(&t, " pid %d", (int)e->pid);
			if (e->tid >= 0)
				gs_strbuf_addf(&t, " tid %d", (int)e->tid);
			if (e->device >= 0)
				gs_strbuf_addf(&t, " device %lld", (long long)e->device);
			if (e->stream >= 0)
				gs_strbuf_addf(&t, " stream %lld", (long long)e->stream);
		}
		gs_strbuf_adds(sb, "    examples: ");
		wrap(sb, 14, 6, o->width, t.buf);
	}
	gs_strbuf_adds(sb, "    CUDA:    ");
	wrap(sb, 13, 13, o->width, f->cuda);
	gs_strbuf_adds(sb, "    PyTorch: ");
	wrap(sb, 13, 13, o->width, f->pytorch);
	gs_strbuf_release(&t);
}

static void render_text(const struct gs_model *m, const struct gs_analysis *a,
			const struct gs_render_opts *o, struct gs_strbuf *sb)
{
	text_verdict(m, a, o, sb);
	text_idle(a, o, sb);
	const char *b = o->color ? BOLD : "", *r = o->color ? RESET : "";
	if (!a->findings.n) {
		gs_strbuf_addf(sb, "\n%sFindings:%s none.\n", b, r);
		return;
	}
	gs_strbuf_addf(sb, "\n%sFindings%s, most expensive first (savings overlap):\n",
		       b, r);
	for (size_t i = 0; i < a->findings.n; i++)
		text_finding(&a->findings.v[i], i, o, sb);
}

/* ---- json ---- */

/* s as a JSON string; NULL as null */
static void jstr(struct gs_strbuf *sb, const char *s)
{
	if (!s) {
		gs_strbuf_adds(sb, "null");
		return;
	}
	gs_strbuf_addc(sb, '"');
	gs_strbuf_add_json(sb, s, strlen(s));
	gs_strbuf_addc(sb, '"');
}

/* The parts of a step (or their sums); gpu_communication after the seven when the trace has
 * communication, gpu_compute then less it. */
static void jparts(struct gs_strbuf *sb, const struct gs_analysis *a, const uint64_t *part,
		   uint64_t comm)
{
	gs_strbuf_addc(sb, '{');
	for (int c = 0; c < (a->comm.n ? GS_AN__N + 1 : GS_AN__N); c++)
		gs_strbuf_addf(sb, "%s\"%s\": %llu", c ? ", " : "", gs_an_class_name(c),
			       (unsigned long long)gs_an_part(a, part, comm, c));
	gs_strbuf_addc(sb, '}');
}

/* "communication": per process and device, HTA's comm/comp overlap in the steps. */
static void json_comm(const struct gs_model *m, const struct gs_analysis *a, struct gs_strbuf *sb)
{
	if (!a->comm.n)
		return;
	gs_strbuf_adds(sb, ",\n \"communication\": [");
	for (size_t i = 0; i < a->comm.n; i++) {
		const struct gs_an_comm *c = &a->comm.v[i];
		double pct = gs_an_comm_pct(c);
		gs_strbuf_addf(sb, "%s\n  {\"pid\": %d, \"device\": %u, ", i ? "," : "", (int)c->pid,
			       c->device);
		if (m->has_rank)
			gs_strbuf_addf(sb, "\"rank\": %lld, ", (long long)m->rank);
		gs_strbuf_addf(sb, "\"kernels\": %llu, \"communication_ns\": %llu, \"overlap_ns\": %llu, "
				   "\"overlap_pct\": ",
			       (unsigned long long)c->kernels, (unsigned long long)c->comm_ns,
			       (unsigned long long)c->overlap_ns);
		if (isnan(pct))
			gs_strbuf_adds(sb, "null}");
		else
			gs_strbuf_addf(sb, "%.6f}", pct);
	}
	gs_strbuf_adds(sb, "]");
}

static void json_idle(const struct gs_analysis *a, struct gs_strbuf *sb)
{
	const struct gs_an_idle *id = &a->idle;
	double per = a->steps.n ? 1e6 * (double)a->steps.n : 1e6;
	gs_strbuf_addf(sb, ",\n \"idle_attribution\": {\"host_data\": %s, \"main_pid\": ",
		       id->host_data ? "true" : "false");
	if (id->main_tid >= 0)
		gs_strbuf_addf(sb, "%d, \"main_tid\": %d", (int)id->main_pid, (int)id->main_tid);
	else
		gs_strbuf_adds(sb, "null, \"main_tid\": null");
	uint64_t in = 0;
	for (int c = 0; c < GS_IDLE__N; c++)
		in += gs_an_idle_is_input(c) ? id->ns[c] : 0;
	gs_strbuf_addf(sb, ", \"sample_period_ns\": %llu, \"idle_ns\": %llu, \"input_ns\": %llu, "
			   "\"gaps_idle_ns\": %llu,\n  \"classes\": {",
		       (unsigned long long)id->sample_period, (unsigned long long)id->idle_ns,
		       (unsigned long long)in, (unsigned long long)a->gap_idle.idle_ns);
	for (int c = 0; c < GS_IDLE__N; c++) {
		gs_strbuf_addf(sb, "%s\"%s\": {\"ns\": %llu, \"ms_per_step\": %.6f, \"share\": %.9g, "
				   "\"input\": %s, \"top\": ",
			       c ? ",\n   " : "", gs_an_idle_name(c), (unsigned long long)id->ns[c],
			       (double)id->ns[c] / per,
			       id->idle_ns ? (double)id->ns[c] / (double)id->idle_ns : 0.0,
			       gs_an_idle_is_input(c) ? "true" : "false");
		jstr(sb, id->top[c]);
		gs_strbuf_adds(sb, ", \"top_thread\": ");
		jstr(sb, id->top_thread[c]);
		gs_strbuf_addf(sb, ", \"gaps_ns\": %llu, \"gaps_top\": ", (unsigned long long)a->gap_idle.ns[c]);
		jstr(sb, a->gap_idle.top[c]);
		gs_strbuf_adds(sb, "}");
	}
	gs_strbuf_addf(sb, "},\n  \"startup\": {\"import_ns\": %llu, \"pyc_ns\": %llu, \"compile_ns\": %llu, "
			   "\"recompile_ns\": %llu, \"recompile_steps\": %u}",
		       (unsigned long long)id->import_ns, (unsigned long long)id->pyc_ns,
		       (unsigned long long)id->compile_ns, (unsigned long long)id->recompile_ns,
		       (unsigned)id->recompile_steps);
	gs_strbuf_addf(sb, ",\n  \"others_while_loading\": {\"samples\": %llu, \"top\": [",
		       (unsigned long long)id->others_samples);
	for (size_t k = 0; k < id->nothers; k++) {
		gs_strbuf_adds(sb, k ? ", {\"name\": " : "{\"name\": ");
		jstr(sb, id->others[k].name);
		gs_strbuf_addf(sb, ", \"samples\": %llu, \"share\": %.9g}",
			       (unsigned long long)id->others[k].count,
			       id->others_samples ? (double)id->others[k].count / (double)id->others_samples : 0.0);
	}
	gs_strbuf_adds(sb, "]}}");
}

static void json_finding(const struct gs_finding *f, struct gs_strbuf *sb)
{
	gs_strbuf_adds(sb, "    {\"id\": ");
	jstr(sb, f->id);
	gs_strbuf_addf(sb, ", \"class\": \"%s\", \"severity\": \"%s\",\n     \"title\": ",
		       gs_an_class_name(f->cls), gs_an_severity_name(f->severity));
	jstr(sb, f->title);
	gs_strbuf_addf(sb, ",\n     \"saving_ms_per_step\": %.6f, \"saving_pct\": %.3f,\n     \"evidence\": {",
		       (double)f->saving_ns / 1e6, f->saving_pct);
	for (size_t k = 0; k < f->nnum; k++) {
		gs_strbuf_addf(sb, "%s\"%s\": ", k ? ", " : "", f->num[k].key);
		if (f->num[k].integer)
			gs_strbuf_addf(sb, "%.0f", f->num[k].v);
		else
			gs_strbuf_addf(sb, "%.9g", f->num[k].v);
	}
	gs_strbuf_adds(sb, f->nnum ? ",\n       \"top\": [" : "\"top\": [");
	for (size_t k = 0; k < f->ntop; k++) {
		gs_strbuf_adds(sb, k ? ", {\"name\": " : "{\"name\": ");
		jstr(sb, f->top[k].name);
		gs_strbuf_addf(sb, ", \"total_ms\": %.6f, \"count\": %llu}", (double)f->top[k].ns / 1e6,
			       (unsigned long long)f->top[k].count);
	}
	gs_strbuf_adds(sb, "], \"top_of\": ");
	jstr(sb, f->top_what);
	gs_strbuf_adds(sb, ",\n       \"examples\": [");
	for (size_t k = 0; k < f->nex; k++) {
		const struct gs_an_example *e = &f->ex[k];
		gs_strbuf_addf(sb, "%s{\"start_ns\": %llu, \"end_ns\": %llu, \"pid\": %d", k ? ", " : "",
			       (unsigned long long)e->start, (unsigned long long)e->end, (int)e->pid);
		if (e->tid >= 0)
			gs_strbuf_addf(sb, ", \"tid\": %d", (int)e->tid);
		if (e->device >= 0)
			gs_strbuf_addf(sb, ", \"device\": %lld", (long long)e->device);
		if (e->stream >= 0)
			gs_strbuf_addf(sb, ", \"stream\": %lld", (long long)e->stream);
		gs_strbuf_addc(sb, '}');
	}
	gs_strbuf_adds(sb, "]},\n     \"recommendation\": {\"cuda\": ");
	jstr(sb, f->cuda);
	gs_strbuf_adds(sb, ", \"pytorch\": ");
	jstr(sb, f->pytorch);
	gs_strbuf_adds(sb, "}}");
}

static void render_json(const struct gs_model *m, const struct gs_analysis *a, struct gs_strbuf *sb)
{
	gs_strbuf_adds(sb, "{\"schema\": \"gpuscope.analyze/1\", \"trace\": ");
	jstr(sb, m->path);
	gs_strbuf_addf(sb, ",\n \"verdict\": {\"primary\": \"%s\", \"step_time_ms\": %.6f, \"steps\": %zu, "
			   "\"steps_by\": \"%s\",\n  \"breakdown\": {",
		       gs_an_class_name(a->primary), (double)a->median_ns / 1e6, a->steps.n,
		       steps_by_name(a->steps_by));
	for (int c = 0; c < (a->comm.n ? GS_AN__N + 1 : GS_AN__N); c++)
		gs_strbuf_addf(sb, "%s\"%s\": %.9g", c ? ", " : "", gs_an_class_name(c),
			       a->comm.n ? gs_an_share(a, c) : a->breakdown[c]);
	gs_strbuf_adds(sb, "},\n  \"breakdown_ns\": ");
	jparts(sb, a, a->part, a->comm_only);
	gs_strbuf_addf(sb, ", \"total_ns\": %llu, \"gpu_work\": %s, \"host_launch_measured\": %s,\n  "
			   "\"profiler_overhead\": {\"records\": %zu, \"ns\": %llu},\n  \"idle_host\": ",
		       (unsigned long long)a->total, a->no_gpu_work ? "false" : "true",
		       a->no_api_calls ? "false" : "true",
		       a->profiler_records, (unsigned long long)a->profiler_ns);
	int ih = gs_an_verdict_idle(a);
	if (ih < 0)
		gs_strbuf_adds(sb, "null");
	else {
		gs_strbuf_addf(sb, "{\"class\": \"%s\", \"name\": ", gs_an_idle_name(ih));
		jstr(sb, a->idle.top[ih]);
		gs_strbuf_adds(sb, ", \"thread\": ");
		jstr(sb, a->idle.top_thread[ih]);
		gs_strbuf_addf(sb, ", \"share\": %.9g}",
			       (double)a->idle.ns[ih] / (double)a->idle.idle_ns);
	}
	gs_strbuf_adds(sb, ",\n  \"host_range\": ");
	if (a->primary == GS_AN_HOST_COMPUTE && a->nhost_ranges) {
		gs_strbuf_adds(sb, "{\"name\": ");
		jstr(sb, a->host_ranges[0].name);
		gs_strbuf_addf(sb, ", \"share\": %.9g}", gs_an_host_range_share(a));
	} else {
		gs_strbuf_adds(sb, "null");
	}
	gs_strbuf_adds(sb, ",\n  \"warmup\": ");
	if (a->warmup_ns) {
		char from[40];
		gs_strbuf_addf(sb, "{\"step_ms\": %.6f, \"times_median\": %.6g, \"share\": %.9g, "
				   "\"import_ms\": %.6f, \"compile_ms\": %.6f, \"time_from\": ",
			       (double)a->warmup_ns / 1e6, (double)a->warmup_ns / (double)a->median_ns,
			       (double)a->warmup_ns / (double)a->total, (double)a->warmup_import_ns / 1e6,
			       (double)a->warmup_compile_ns / 1e6);
		jstr(sb, gs_an_warmup_from(a, from, sizeof(from)));
		gs_strbuf_adds(sb, "}");
	} else {
		gs_strbuf_adds(sb, "null");
	}
	gs_strbuf_adds(sb, ",\n  \"startup\": "); /* the note under Steps */
	if (gs_an_startup_share(a) >= GS_AN_STARTUP_NOTE)
		gs_strbuf_addf(sb, "{\"share\": %.9g, \"import_ms\": %.6f, \"pyc_ms\": %.6f, "
				   "\"compile_ms\": %.6f, \"load_ms\": %.6f, \"load_copies\": %llu, "
				   "\"load_bytes\": %llu}",
			       gs_an_startup_share(a), (double)a->idle.import_ns / 1e6,
			       (double)a->idle.pyc_ns / 1e6, (double)a->idle.compile_ns / 1e6,
			       (double)a->load_ns / 1e6, (unsigned long long)a->load_copies,
			       (unsigned long long)a->load_bytes);
	else
		gs_strbuf_adds(sb, "null");
	gs_strbuf_adds(sb, ",\n  \"step_hints\": [");
	for (size_t i = 0; i < a->nstep_hints; i++) {
		gs_strbuf_adds(sb, i ? ", {\"name\": " : "{\"name\": ");
		jstr(sb, a->step_hints[i].name);
		gs_strbuf_addf(sb, ", \"count\": %llu, \"total_ms\": %.6f}",
			       (unsigned long long)a->step_hints[i].count, (double)a->step_hints[i].ns / 1e6);
	}
	gs_strbuf_adds(sb, "]},\n \"steps\": [");
	for (size_t i = 0; i < a->steps.n; i++) {
		const struct gs_an_step *s = &a->steps.v[i];
		uint64_t st = s->start >= m->start_mono ? s->start - m->start_mono : 0;
		gs_strbuf_addf(sb, "%s\n  {\"number\": ", i ? "," : "");
		if (s->whole_run)
			gs_strbuf_adds(sb, "null, \"pid\": null, \"tid\": null");
		else
			gs_strbuf_addf(sb, "%llu, \"pid\": %d, \"tid\": %d", (unsigned long long)s->number,
				       (int)s->pid, (int)s->tid);
		gs_strbuf_addf(sb, ", \"start_ns\": %llu, \"duration_ns\": %llu, \"parts_ns\": ",
			       (unsigned long long)st, (unsigned long long)(s->end - s->start));
		jparts(sb, a, s->part, s->comm);
		gs_strbuf_addc(sb, '}');
	}
	gs_strbuf_adds(sb, "],\n \"findings\": [");
	for (size_t i = 0; i < a->findings.n; i++) {
		gs_strbuf_adds(sb, i ? ",\n" : "\n");
		json_finding(&a->findings.v[i], sb);
	}
	gs_strbuf_adds(sb, "]");
	json_comm(m, a, sb);
	json_idle(a, sb); /* after the findings: the page's step cut looks for "steps" then "findings" */
	gs_strbuf_adds(sb, "}\n");
}

void gs_render_analysis(const struct gs_model *m, const struct gs_analysis *a, enum gs_format f,
			const struct gs_render_opts *o, struct gs_strbuf *out)
{
	struct gs_render_opts plain = {0};
	if (!o)
		o = &plain;
	if (f == GS_FMT_JSON) {
		render_json(m, a, out);
		return;
	}
	struct gs_render_opts t = *o;
	if (!t.width)
		t.width = DEFAULT_WIDTH;
	render_text(m, a, &t, out);
}

/* ---- several ranks ---- */

static void fmt_ms(struct gs_strbuf *sb, int width, uint64_t ns)
{
	gs_strbuf_addf(sb, "%*.3f", width, (double)ns / 1e6);
}

static void text_ranks(const struct gs_an_rank *v, size_t n, const struct gs_an_ranks *rk,
		       const struct gs_render_opts *o, struct gs_strbuf *sb)
{
	const char *b = o->color ? BOLD : "", *r = o->color ? RESET : "";
	int fw = 4;
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(v[i].file) > fw)
			fw = (int)strlen(v[i].file);
	gs_strbuf_addf(sb, "%sgpuscope analyze%s: %zu ranks\n\n", b, r, n);
	gs_strbuf_addf(sb, "  Rank  %-*s  Steps  Step (ms)  GPU busy  Compute (ms)  Comm (ms)  Overlap\n",
		       fw, "File");
	for (size_t i = 0; i < n; i++) {
		const struct gs_an_rank *x = &v[i];
		gs_strbuf_addf(sb, "  %4lld%s %-*s  %5zu  ", (long long)x->rank, x->from_trace ? " " : "*",
			       fw, x->file, x->steps);
		fmt_ms(sb, 9, x->median_ns);
		gs_strbuf_addf(sb, "  %7.1f%%  ", 100.0 * x->busy);
		fmt_ms(sb, 12, x->compute_ns);
		gs_strbuf_adds(sb, "  ");
		fmt_ms(sb, 9, x->comm_ns);
		if (isnan(x->overlap_pct))
			gs_strbuf_adds(sb, "      n/a\n");
		else
			gs_strbuf_addf(sb, "  %6.1f%%\n", x->overlap_pct);
	}
	gs_strbuf_adds(sb, "  ");
	wrap(sb, 2, 3, o->width, "(Step: the median step; Compute: computation kernels, Comm: "
				 "communication kernels, per step, mean; Overlap: the share of Comm "
				 "during computation)");
	for (size_t i = 0; i < n; i++)
		if (!v[i].from_trace) {
			gs_strbuf_adds(sb, "  * no rank in the trace: its position among the files\n");
			break;
		}
	const struct gs_an_rank *s = &v[rk->slowest], *m = &v[rk->median];
	struct gs_strbuf line;
	gs_strbuf_init(&line);
	if (n < 2 || rk->slowest == rk->median || !rk->slower_pct) {
		gs_strbuf_adds(&line, "The ranks' median steps are equal: no rank is slower.");
	} else {
		gs_strbuf_addf(&line, "rank %lld (%s): median step %.3f ms, %.1f%% slower than the median "
				      "rank %lld (%.3f ms)",
			       (long long)s->rank, s->file, (double)s->median_ns / 1e6, rk->slower_pct,
			       (long long)m->rank, (double)m->median_ns / 1e6);
		if (rk->straggler)
			gs_strbuf_addf(&line, ": a straggler [%s] (%.0f%% or more); collectives make every "
					      "rank wait for it",
				       gs_an_severity_name(rk->severity), GS_AN_STRAGGLER_PCT);
		else
			gs_strbuf_addf(&line, ", under the %.0f%% that makes a straggler", GS_AN_STRAGGLER_PCT);
		gs_strbuf_adds(&line, ".");
	}
	gs_strbuf_addf(sb, "\n%sSlowest:%s ", b, r);
	wrap(sb, 9, 9, o->width, line.buf);
	gs_strbuf_adds(sb, "\n");
	for (size_t i = 0; i < n; i++) {
		gs_strbuf_reset(&line);
		gs_strbuf_addf(&line, "primary %s", gs_an_class_name(v[i].primary));
		if (v[i].top && v[i].top->saving_ns)
			gs_strbuf_addf(&line, "; top finding [%s] %s, saves ~%.3f ms per step "
				       "(%.1f%% of the mean step)",
				       gs_an_severity_name(v[i].top->severity), v[i].top->id,
				       (double)v[i].top->saving_ns / 1e6, v[i].top->saving_pct);
		else if (v[i].top)
			gs_strbuf_addf(&line, "; top finding [%s] %s, saving not estimated",
				       gs_an_severity_name(v[i].top->severity), v[i].top->id);
		else
			gs_strbuf_adds(&line, "; no finding");
		char head[64];
		snprintf(head, sizeof(head), "  rank %lld: ", (long long)v[i].rank);
		gs_strbuf_adds(sb, head);
		wrap(sb, strlen(head), strlen(head), o->width, line.buf);
	}
	gs_strbuf_release(&line);
	gs_strbuf_addf(sb, "\n%sThe slowest rank, %lld:%s\n\n", b, (long long)s->rank, r);
}

static void json_ranks(const struct gs_an_rank *v, size_t n, const struct gs_an_ranks *rk,
		       struct gs_strbuf *sb)
{
	gs_strbuf_adds(sb, "{\"schema\": \"gpuscope.analyze-ranks/1\",\n \"ranks\": [");
	for (size_t i = 0; i < n; i++) {
		const struct gs_an_rank *x = &v[i];
		gs_strbuf_addf(sb, "%s\n  {\"rank\": %lld, \"rank_from\": \"%s\", \"file\": ", i ? "," : "",
			       (long long)x->rank, x->from_trace ? "trace" : "position");
		jstr(sb, x->file);
		gs_strbuf_addf(sb, ", \"steps\": %zu, \"median_step_ms\": %.6f, \"gpu_busy_pct\": %.6f, "
				   "\"compute_ms_per_step\": %.6f, \"communication_ms_per_step\": %.6f, "
				   "\"overlap_pct\": ",
			       x->steps, (double)x->median_ns / 1e6, 100.0 * x->busy,
			       (double)x->compute_ns / 1e6, (double)x->comm_ns / 1e6);
		if (isnan(x->overlap_pct))
			gs_strbuf_adds(sb, "null");
		else
			gs_strbuf_addf(sb, "%.6f", x->overlap_pct);
		gs_strbuf_addf(sb, ", \"primary\": \"%s\", \"top_finding\": ", gs_an_class_name(x->primary));
		if (x->top)
			jstr(sb, x->top->id);
		else
			gs_strbuf_adds(sb, "null");
		gs_strbuf_addc(sb, '}');
	}
	const struct gs_an_rank *s = &v[rk->slowest], *m = &v[rk->median];
	gs_strbuf_addf(sb, "],\n \"slowest\": {\"rank\": %lld, \"file\": ", (long long)s->rank);
	jstr(sb, s->file);
	gs_strbuf_addf(sb, ", \"median_step_ms\": %.6f, \"median_rank\": %lld, "
			   "\"median_rank_step_ms\": %.6f, \"slower_pct\": %.6f, \"straggler\": %s, "
			   "\"straggler_threshold_pct\": %.1f, \"severity\": ",
		       (double)s->median_ns / 1e6, (long long)m->rank, (double)m->median_ns / 1e6,
		       rk->slower_pct, rk->straggler ? "true" : "false", GS_AN_STRAGGLER_PCT);
	if (rk->straggler)
		gs_strbuf_addf(sb, "\"%s\"}", gs_an_severity_name(rk->severity));
	else
		gs_strbuf_adds(sb, "null}");
	gs_strbuf_adds(sb, ",\n \"slowest_analysis\": ");
}

void gs_render_ranks(const struct gs_an_rank *v, size_t n, const struct gs_an_ranks *rk,
		     const struct gs_model *sm, const struct gs_analysis *sa, enum gs_format f,
		     const struct gs_render_opts *o, struct gs_strbuf *out)
{
	struct gs_render_opts t = o ? *o : (struct gs_render_opts){0};
	if (!t.width)
		t.width = DEFAULT_WIDTH;
	if (f == GS_FMT_JSON) {
		json_ranks(v, n, rk, out);
		render_json(sm, sa, out);
		while (out->len && out->buf[out->len - 1] == '\n')
			out->len--;
		gs_strbuf_adds(out, "}\n");
		return;
	}
	text_ranks(v, n, rk, &t, out);
	render_text(sm, sa, &t, out);
}
