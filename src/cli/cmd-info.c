/* cmd-info.c: `gpuscope info`: what a trace holds: session, processes, threads, event counts,
 * lost records by cause, format version, completeness. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../format/gst.h"
#include "../model/model.h"
#include "cli.h"

static void wall(struct gs_strbuf *sb, uint64_t real_ns)
{
	time_t t = (time_t)(real_ns / 1000000000u);
	struct tm tm;
	char buf[64];
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
	gs_strbuf_adds(sb, buf);
}

static void lost_line(struct gs_strbuf *sb, const uint64_t *lost)
{
	int any = 0;
	for (int k = 0; k < GS_LOSS__N; k++)
		if (lost[k]) {
			gs_strbuf_addf(sb, "%s%s ", any ? ", " : "", gs_loss_names[k]);
			gs_fmt_count(sb, lost[k]);
			any = 1;
		}
	if (!any)
		gs_strbuf_adds(sb, "none");
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0}};
	int o;
	while ((o = gs_getopt(&gs_cmd_info, argc, argv, "h", opts)) != -1)
		if (o == 'h')
			return 0;
		else
			return 2;
	if (optind != argc - 1)
		return gs_usage_error(&gs_cmd_info, optind >= argc ? "no trace given" : "one trace at a time");
	struct gs_model m;
	struct gs_err err;
	/* it shows no join, of the API calls only their count, and counts the ranges in any order */
	if (gs_model_load_unjoined_skip(&m, argv[optind], GS_LOAD_NO_APIS | GS_LOAD_RANGES_UNSORTED,
					&err) < 0) {
		gs_cli_error("%s", err.msg);
		return 1;
	}
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_addf(&sb, "trace:       %s (", m.path);
	gs_fmt_bytes(&sb, m.file_size);
	if (m.imported)
		gs_strbuf_addf(&sb, ", %s)\n", m.trace);
	else
		gs_strbuf_addf(&sb, ", format %u.%u, %" PRIu64 " chunks)\n", m.format_major, m.format_minor,
			       m.chunks);
	if (m.damaged)
		gs_strbuf_addf(&sb, "state:       damaged: %s; what comes before is usable\n", m.why);
	else if (!m.complete)
		gs_strbuf_adds(&sb, "state:       incomplete: the recording was cut short; what it holds is usable\n");
	else
		gs_strbuf_adds(&sb, "state:       complete\n");
	if (*m.warning)
		gs_strbuf_addf(&sb, "note:        %s\n", m.warning);
	if (!m.imported) {
		gs_strbuf_addf(&sb, "command:     %s\n", m.command);
		gs_strbuf_addf(&sb, "host:        %s\n", m.host);
		if (m.has_rank || m.has_local_rank || m.has_world_size) {
			gs_strbuf_adds(&sb, "rank:        ");
			if (m.has_rank)
				gs_strbuf_addf(&sb, "%lld", (long long)m.rank);
			else
				gs_strbuf_adds(&sb, "unknown");
			if (m.has_world_size)
				gs_strbuf_addf(&sb, " of %lld", (long long)m.world_size);
			if (m.has_local_rank)
				gs_strbuf_addf(&sb, ", local rank %lld", (long long)m.local_rank);
			gs_strbuf_addc(&sb, '\n');
		}
	}
	gs_strbuf_adds(&sb, "started:     ");
	if (m.start_real)
		wall(&sb, m.start_real);
	else
		gs_strbuf_adds(&sb, "unknown");
	gs_strbuf_adds(&sb, "\nduration:    ");
	if (m.end_mono > m.start_mono)
		gs_fmt_duration(&sb, m.end_mono - m.start_mono);
	else
		gs_strbuf_adds(&sb, "unknown");
	if (m.imported) {
		gs_strbuf_addf(&sb, "\nclock:       %s\n", m.clock);
	} else {
		gs_strbuf_addf(&sb, "\nsources:     %s (clock: %s)\n", m.trace, m.clock);
		if (m.exit_status >= 0)
			gs_strbuf_addf(&sb, "exit status: %d\n", m.exit_status);
		gs_strbuf_adds(&sb, "gpuscope:    ");
		gs_strbuf_adds(&sb, *m.version ? m.version : "unknown");
		gs_strbuf_adds(&sb, "\n");
	}
	gs_strbuf_adds(&sb, "\nevents:\n  nvtx ranges (push/pop)    ");
	uint64_t pp = 0, se = 0, open = 0;
	for (size_t i = 0; i < m.ranges.n; i++) {
		if (m.ranges.v[i].flags & GS_RANGE_OPEN)
			open++;
		else if (m.ranges.v[i].flags & GS_RANGE_STARTEND)
			se++;
		else
			pp++;
	}
	gs_fmt_count(&sb, pp);
	gs_strbuf_adds(&sb, "\n  nvtx ranges (start/end)   ");
	gs_fmt_count(&sb, se);
	gs_strbuf_adds(&sb, "\n  nvtx ranges never ended   ");
	gs_fmt_count(&sb, open);
	gs_strbuf_adds(&sb, "\n  nvtx marks                ");
	gs_fmt_count(&sb, m.marks.n);
	gs_strbuf_adds(&sb, "\n  unmatched pops/ends       ");  /* incl. pushes whose pop was lost */
	gs_fmt_count(&sb, m.unmatched);
	if (m.kernels.n || m.copies.n || m.memsets.n || m.apis.n || m.apis_skipped || m.devices.n ||
	    m.graphs.n || m.cupti_unfinished || m.cupti_undecoded) {
		uint64_t bytes = 0;
		for (size_t i = 0; i < m.copies.n; i++)
			bytes += m.copies.v[i].bytes;
		gs_strbuf_adds(&sb, "\n  cuda kernels              ");
		gs_fmt_count(&sb, m.kernels.n);
		gs_strbuf_adds(&sb, "\n  cuda memcpy               ");
		gs_fmt_count(&sb, m.copies.n);
		gs_strbuf_adds(&sb, " (");
		gs_fmt_bytes(&sb, bytes);
		gs_strbuf_adds(&sb, ")\n  cuda memset               ");
		gs_fmt_count(&sb, m.memsets.n);
		gs_strbuf_adds(&sb, "\n  cuda graph launches       ");
		gs_fmt_count(&sb, m.graphs.n);
		gs_strbuf_adds(&sb, "\n  cuda api calls            ");
		gs_fmt_count(&sb, m.apis.n + m.apis_skipped);
		if (m.cuda_bt) {
			gs_strbuf_adds(&sb, "\n    with call stacks        ");
			gs_fmt_count(&sb, m.api_stacks.n);
			gs_strbuf_addf(&sb, " (--cudabacktrace %s)", m.cuda_bt);
		}
		gs_strbuf_adds(&sb, "\n  cuda synchronizations     ");
		gs_fmt_count(&sb, m.syncs.n);
		gs_strbuf_adds(&sb, "\n  device memory operations  ");
		gs_fmt_count(&sb, m.memops.n);
		if (m.overheads.n) { /* CUPTI's and the driver's own work that delayed the program */
			uint64_t ns = 0;
			for (size_t i = 0; i < m.overheads.n; i++)
				ns += m.overheads.v[i].end - m.overheads.v[i].start;
			gs_strbuf_adds(&sb, "\n  cuda overhead records     ");
			gs_fmt_count(&sb, m.overheads.n);
			gs_strbuf_addf(&sb, " (%.1f ms: module loading, CUPTI's buffers, ...)", (double)ns / 1e6);
		}
		if (m.cupti_unfinished)
			gs_strbuf_addf(&sb, "\n  CUPTI buffers never completed (records missing): %llu",
				       (unsigned long long)m.cupti_unfinished);
		if (m.cupti_undecoded) {
			gs_strbuf_adds(&sb, "\n  CUPTI bytes not decoded (unknown kind or version): ");
			gs_fmt_bytes(&sb, m.cupti_undecoded);
		}
	}
	if (m.osrt.n || m.osrt_threshold || strstr(m.trace, "osrt")) {
		gs_strbuf_adds(&sb, "\n  os runtime calls          ");
		gs_fmt_count(&sb, m.osrt.n);
		gs_strbuf_addf(&sb, " (at least %llu ns)", (unsigned long long)m.osrt_threshold);
		if (m.osrt_bt) {
			size_t n = 0;
			for (size_t i = 0; i < m.osrt.n; i++)
				n += m.osrt.v[i].nframes != 0;
			gs_strbuf_adds(&sb, "\n    with call stacks        ");
			gs_fmt_count(&sb, n);
			gs_strbuf_addf(&sb, " (at least %llu ns)", (unsigned long long)m.osrt_bt_threshold);
		}
	}
	if (m.samples.n || m.sample_period) {
		uint64_t w = 0;
		for (size_t i = 0; i < m.samples.n; i++)
			w += m.samples.v[i].weight;
		gs_strbuf_adds(&sb, "\n  cpu samples               ");
		gs_fmt_count(&sb, m.samples.n);
		if (m.sample_period)
			gs_strbuf_addf(&sb, " (%llu Hz of CPU time, %llu periods: ",
				       (unsigned long long)(1000000000ull / m.sample_period),
				       (unsigned long long)w);
		else
			gs_strbuf_addf(&sb, " (%llu periods", (unsigned long long)w);
		if (m.sample_period)
			gs_fmt_duration(&sb, w * m.sample_period);
		gs_strbuf_adds(&sb, ")");
		gs_strbuf_adds(&sb, "\n  stack frames (distinct)   ");
		gs_fmt_count(&sb, m.frames.n);
	}
	if (m.counter_samples.n || m.gpu_metrics_hz) {
		size_t devs = 0;
		for (size_t i = 0; i < m.counter_tracks.n; i++)
			devs += !i || m.counter_tracks.v[i].device != m.counter_tracks.v[i - 1].device;
		gs_strbuf_adds(&sb, "\n  gpu counter samples       ");
		gs_fmt_count(&sb, m.counter_samples.n);
		gs_strbuf_addf(&sb, " (%zu track%s on %zu device%s", m.counter_tracks.n,
			       m.counter_tracks.n == 1 ? "" : "s", devs, devs == 1 ? "" : "s");
		if (m.gpu_metrics_hz)
			gs_strbuf_addf(&sb, ", %llu Hz", (unsigned long long)m.gpu_metrics_hz);
		gs_strbuf_adds(&sb, ")");
	}
	gs_strbuf_adds(&sb, "\n\nlost records: ");
	lost_line(&sb, m.lost);
	gs_strbuf_addf(&sb, "\n\nprocesses (%zu):\n", m.processes.n);
	for (size_t i = 0; i < m.processes.n; i++) {
		const struct gs_process *p = &m.processes.v[i];
		gs_strbuf_addf(&sb, "  pid %d  ppid %d", p->pid, p->ppid);
		if (p->image)
			gs_strbuf_addf(&sb, "  (after exec #%u)", p->image);
		gs_strbuf_adds(&sb, "  ");
		if (p->end > p->start)
			gs_fmt_duration(&sb, p->end - p->start);
		if (p->exit_status >= 0)
			gs_strbuf_addf(&sb, "  exit %d", p->exit_status);
		else if (p->still_running)
			gs_strbuf_adds(&sb, "  still running when the session ended: later records missing");
		else if (!p->clean && !m.imported)
			gs_strbuf_adds(&sb, "  ended without exit path");
		gs_strbuf_addf(&sb, "\n      %s\n", *p->cmdline ? p->cmdline : p->exe);
	}
	if (m.devices.n) {
		gs_strbuf_adds(&sb, "\ndevices:\n");
		for (size_t i = 0; i < m.devices.n; i++) {
			const struct gs_device *d = &m.devices.v[i];
			int dup = 0;
			for (size_t j = 0; j < i; j++)
				dup |= m.devices.v[j].id == d->id && m.devices.v[j].name == d->name;
			if (dup)
				continue;
			gs_strbuf_addf(&sb, "  %u  %s  sm_%u%u  %u SMs  ", d->id, gs_model_str(&m, d->name),
				       d->cc_major, d->cc_minor, d->sms);
			gs_fmt_bytes(&sb, d->global_memory);
			gs_strbuf_addf(&sb, "  %.0f GB/s  %u MHz\n", (double)d->memory_bandwidth / 1e6,
				       d->core_clock_khz / 1000);
		}
	}
	if (m.contexts.n) {
		gs_strbuf_addf(&sb, "\ncontexts (%zu):\n", m.contexts.n);
		gs_strbuf_adds(&sb, "  pid      context  device  default stream\n");
		for (size_t i = 0; i < m.contexts.n; i++) {
			const struct gs_context *c = &m.contexts.v[i];
			gs_strbuf_addf(&sb, "  %-8d %-8u %-7u %u", c->pid, c->id, c->device, c->null_stream);
			if (c->green)
				gs_strbuf_addf(&sb, "  green context of %u, %u SMs", c->parent, c->sms);
			gs_strbuf_addc(&sb, '\n');
		}
	}
	size_t idle = 0, busy = 0, nstreams = gs_model_streams(&m);
	for (size_t i = 0; i < nstreams; i++)
		*(m.streams.v[i].first ? &busy : &idle) += 1;
	if (busy) {
		gs_strbuf_addf(&sb, "\nstreams with GPU work (%zu):\n", busy);
		gs_strbuf_adds(&sb, "  pid      device  context  stream  kind          priority   kernels    copies   memsets  graphs  busy\n");
		for (size_t i = 0; i < m.streams.n; i++) {
			const struct gs_stream *t = &m.streams.v[i];
			if (!t->first)
				continue;
			gs_strbuf_addf(&sb, "  %-8d %-7u %-8u %-7u %-13s ", t->pid, t->device, t->context,
				       t->stream, t->created || t->flag == GS_STREAM_NULL ? gs_stream_flag_name(t->flag) : "-");
			if (t->created)
				gs_strbuf_addf(&sb, "%8u", t->priority);
			else
				gs_strbuf_addf(&sb, "%8s", "-");
			gs_strbuf_addf(&sb, " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7" PRIu64 "  ", t->kernels,
				       t->copies, t->memsets, t->graphs);
			gs_fmt_duration(&sb, t->busy);
			gs_strbuf_addc(&sb, '\n');
		}
	}
	if (idle)
		gs_strbuf_addf(&sb, "%sstreams created with no GPU work (CUDA's own, or unused): %zu\n",
			       busy ? "  " : "\n", idle);
	gs_strbuf_addf(&sb, "\nthreads (%zu):\n", m.threads.n);
	gs_strbuf_adds(&sb, "  pid      tid      events      lost  name\n");
	for (size_t i = 0; i < m.threads.n; i++) {
		const struct gs_thread *t = &m.threads.v[i];
		uint64_t l = 0;
		for (int k = 0; k < GS_LOSS__N; k++)
			l += t->lost[k];
		gs_strbuf_addf(&sb, "  %-8d %-8d %-10" PRIu64 " %5" PRIu64 "  %s", t->pid, t->tid,
			       t->events, l, t->name ? t->name : "");
		if (t->nvtx_name)
			gs_strbuf_addf(&sb, " (nvtx: %s)", t->nvtx_name);
		gs_strbuf_addc(&sb, '\n');
	}
	int rc = gs_emit(NULL, &sb);
	gs_strbuf_release(&sb);
	gs_model_release(&m);
	return rc;
}

const struct gs_command gs_cmd_info = {
	"info", run, "TRACE",
	"What a trace holds: session, processes, threads, counts, lost records.",
	"  -h, --help               show this help\n",
	NULL,
};
