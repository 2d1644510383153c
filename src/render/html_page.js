/* html_page.js: draws gpuscope's report page from the JSON blob in #gs-data (schema
 * gpuscope.report/1, docs/gpuscope-report.md): tables whose numeric cells carry the exact value
 * in data-v, and canvas charts (stacked step bars, utilization lines, a zoomable timeline, bar
 * charts, memory lines) that redraw on resize and on a change of light/dark mode. No library,
 * no network. Sets data-ready="1" on <body> when every section is drawn. */
(function () {
	'use strict';
	var D = JSON.parse(document.getElementById('gs-data').textContent);
	var main = document.getElementById('gs-main');
	var tip = document.getElementById('gs-tip');
	var CLS = ['gpu_compute', 'gpu_transfer', 'host_sync', 'host_launch', 'input_pipeline',
		'host_compute', 'other'];
	var CLS_LABEL = {
		gpu_compute: 'GPU compute', gpu_transfer: 'GPU transfer', host_sync: 'host sync',
		host_launch: 'host launch', input_pipeline: 'input pipeline', host_compute: 'host compute',
		other: 'other'
	};
	var PRIMARY_WORDS = {
		gpu_compute: 'GPU-bound: the GPU computes for most of the step',
		gpu_transfer: 'Transfer-bound: copies and memsets take most of the step',
		host_sync: 'Sync-bound: the host waits for the GPU for most of the step',
		host_launch: 'Launch-bound: the host is busy launching work while the GPU idles',
		input_pipeline: 'Input-bound: the GPU idles while the host loads data',
		host_compute: 'Host-bound: the GPU idles while the host runs other code',
		other: 'Idle: the GPU idles and nothing recorded on the host explains it'
	};
	/* timeline event kinds -> the class whose colour they take */
	var EV_CLS = ['host_compute', 'host_launch', 'gpu_compute', 'gpu_transfer', 'gpu_transfer', 'gpu_compute', 'host_sync'];
	var EV_KIND = ['range', 'CUDA call', 'kernel', 'copy', 'memset', 'graph launch'];
	var redraws = [];

	function color(name) {
		return getComputedStyle(document.documentElement).getPropertyValue('--' + name).trim() || '#888';
	}
	function el(tag, attrs, kids) {
		var e = document.createElement(tag);
		if (attrs) {
			Object.keys(attrs).forEach(function (k) {
				if (k === 'text') e.textContent = attrs[k];
				else if (k === 'style') e.setAttribute('style', attrs[k]);
				else if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
			});
		}
		(kids || []).forEach(function (c) {
			if (c !== null && c !== undefined)
				e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
		});
		return e;
	}
	function num(x) { return typeof x === 'number' && isFinite(x); }
	function sig3(x) { return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2); }
	/* as gs_fmt_duration: ns, us, ms, s with three significant digits */
	function fmtNs(ns) {
		if (!num(ns)) return '';
		var a = Math.abs(ns), s = ns < 0 ? '-' : '';
		if (a < 1e3) return s + a.toFixed(0) + ' ns';
		if (a < 1e6) return s + sig3(a / 1e3) + ' us';
		if (a < 1e9) return s + sig3(a / 1e6) + ' ms';
		return s + sig3(a / 1e9) + ' s';
	}
	function fmtMs(ms) { return num(ms) ? fmtNs(ms * 1e6) : ''; }
	function fmtBytes(b) {
		if (!num(b)) return '';
		var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
		while (Math.abs(b) >= 1024 && i < u.length - 1) { b /= 1024; i++; }
		return (i ? b.toFixed(1) : b.toFixed(0)) + ' ' + u[i];
	}
	function fmtCount(n) {
		if (!num(n)) return '';
		var s = String(Math.round(Math.abs(n))), o = '';
		while (s.length > 3) { o = ',' + s.slice(-3) + o; s = s.slice(0, -3); }
		return (n < 0 ? '-' : '') + s + o;
	}
	function fmtPct(p, d) { return num(p) ? p.toFixed(d === undefined ? 1 : d) + '%' : ''; }
	function fmtSigned(s, f) { return (s > 0 ? '+' : '') + f; }
	function fmtFloat(x, d) { return num(x) ? x.toFixed(d) : ''; }

	var toc = el('nav', {'class': 'toc'});
	main.textContent = '';
	main.appendChild(toc);
	function section(id, title) {
		var s = el('section', {id: id}, [el('h2', {text: title})]);
		main.appendChild(s);
		toc.appendChild(el('a', {href: '#' + id, text: title}));
		return s;
	}
	function note(parent, text) { parent.appendChild(el('p', {'class': 'note', text: text})); }

	/* A table: cols [{key, label, fmt (value -> text), num (right aligned, data-v), cls}] */
	function table(cols, rows, attrs) {
		var t = el('table', Object.assign({'class': 't'}, attrs || {}));
		var hr = el('tr');
		cols.forEach(function (c) { hr.appendChild(el('th', {'class': c.num ? 'n' : null, text: c.label})); });
		t.appendChild(el('thead', null, [hr]));
		var tb = el('tbody');
		rows.forEach(function (r) {
			var tr = el('tr', r._attrs || null);
			cols.forEach(function (c) {
				var v = typeof c.key === 'function' ? c.key(r) : r[c.key];
				var text = c.fmt ? c.fmt(v, r) : v === null || v === undefined ? '' : String(v);
				var td = el('td', {'class': c.num ? 'n' : c.cls || null, 'data-col': c.col || c.label,
					'data-v': c.num && v !== null && v !== undefined ? String(v) : null,
					title: c.cls === 'name' ? String(v) : null});
				if (text instanceof Node) td.appendChild(text); else td.textContent = text;
				tr.appendChild(td);
			});
			tb.appendChild(tr);
		});
		t.appendChild(tb);
		return t;
	}
	/* A stats report's table, as `gpuscope stats -r NAME --format json` has it. */
	function reportTable(rep, pick, shownRows) {
		var cols = pick.map(function (p) {
			var type = p.type || (/\(ns\)$/.test(p.col) ? 'ns' : /\(%\)$/.test(p.col) ? 'pct' :
				/\(MB\)$/.test(p.col) ? 'mb' : 'raw');
			var fmt = type === 'ns' ? fmtNs : type === 'pct' ? function (v) { return fmtPct(v); } :
				type === 'mb' ? function (v) { return num(v) ? v.toFixed(3) + ' MB' : ''; } :
				type === 'count' ? fmtCount : null;
			return {key: p.col, col: p.col, label: p.label || p.col.replace(/ \((ns|%|MB)\)$/, '') +
				(type === 'pct' ? ' (%)' : ''), fmt: fmt, num: type !== 'raw' || p.num,
				cls: p.name ? 'name' : null};
		});
		var rows = rep.rows.slice(0, shownRows || rep.rows.length);
		return table(cols, rows, {'data-report': rep.report});
	}

	/* ---- canvases ---- */
	function chart(parent, height, draw, hover, setup) {
		var wrap = el('div', {'class': 'chart'});
		var c = el('canvas', {height: String(height)});
		wrap.appendChild(c);
		parent.appendChild(wrap);
		var st = {c: c, h: height};
		function redraw() {
			var w = Math.max(200, wrap.clientWidth - 2), dpr = window.devicePixelRatio || 1;
			c.width = Math.round(w * dpr);
			c.height = Math.round(st.h * dpr);
			c.style.height = st.h + 'px';
			var ctx = c.getContext('2d');
			ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
			ctx.clearRect(0, 0, w, st.h);
			ctx.font = '11px system-ui, sans-serif';
			draw(ctx, w, st.h, st);
		}
		st.redraw = redraw;
		redraws.push(redraw);
		if (hover) {
			c.addEventListener('mousemove', function (ev) {
				var r = c.getBoundingClientRect();
				var text = hover(ev.clientX - r.left, ev.clientY - r.top, r.width, st);
				showTip(text, ev.clientX, ev.clientY);
			});
			c.addEventListener('mouseleave', function () { showTip(null); });
		}
		if (setup) setup(c, st);
		redraw();
		return st;
	}
	function showTip(text, x, y) {
		if (!text) { tip.hidden = true; return; }
		tip.textContent = text;
		tip.hidden = false;
		var w = tip.offsetWidth, h = tip.offsetHeight;
		tip.style.left = Math.min(x + 14, window.innerWidth - w - 8) + 'px';
		tip.style.top = (y + 16 + h > window.innerHeight ? y - h - 8 : y + 16) + 'px';
	}
	function legend(parent, classes) {
		var l = el('div', {'class': 'legend'});
		classes.forEach(function (k) {
			l.appendChild(el('span', {style: '--sw: var(--c-' + k + ')', text: CLS_LABEL[k] || k}));
		});
		parent.appendChild(l);
	}
	function axisY(ctx, x0, y0, h, max, fmt) {
		ctx.fillStyle = color('muted');
		ctx.strokeStyle = color('line');
		ctx.textAlign = 'right';
		ctx.textBaseline = 'middle';
		for (var i = 0; i <= 4; i++) {
			var y = y0 + h - h * i / 4;
			ctx.beginPath(); ctx.moveTo(x0, y + 0.5); ctx.lineTo(x0 + 4000, y + 0.5); ctx.stroke();
			ctx.fillText(fmt(max * i / 4), x0 - 4, y);
		}
		ctx.textAlign = 'left';
		ctx.textBaseline = 'alphabetic';
	}
	function niceMax(v) {
		if (!(v > 0)) return 1;
		var p = Math.pow(10, Math.floor(Math.log10(v))), m = v / p;
		return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
	}

	/* Horizontal bars: items [{label, value, text}] */
	function hbars(parent, items, fmt) {
		var rowh = 18, h = items.length * rowh + 6;
		if (!items.length) return;
		var max = Math.max.apply(null, items.map(function (i) { return i.value; })) || 1;
		chart(parent, h, function (ctx, w) {
			var lw = Math.min(420, w * 0.45);
			items.forEach(function (it, i) {
				var y = 3 + i * rowh;
				var bw = Math.max(1, (w - lw - 90) * it.value / max);
				ctx.fillStyle = it.color || color('bar');
				ctx.fillRect(lw, y + 2, bw, rowh - 5);
				ctx.fillStyle = color('fg');
				ctx.textBaseline = 'middle';
				ctx.fillText(fmt(it.value), lw + bw + 6, y + rowh / 2);
				var label = it.label;
				while (label.length > 4 && ctx.measureText(label).width > lw - 10)
					label = label.slice(0, Math.floor(label.length * 0.8)) + '…';
				ctx.fillStyle = color('muted');
				ctx.fillText(label, 4, y + rowh / 2);
			});
		}, function (x, y) {
			var i = Math.floor((y - 3) / rowh);
			return i >= 0 && i < items.length ? items[i].label + '\n' + (items[i].text || fmt(items[i].value)) : null;
		});
	}

	/* Lines: series [{label, color, pts: [[t, v], ...]}] over [t0, t1] */
	function lines(parent, series, t0, t1, vmax, fmtV, step) {
		var h = 180, pad = {l: 64, r: 10, t: 8, b: 20};
		var l = el('div', {'class': 'legend'});
		series.forEach(function (s) { l.appendChild(el('span', {style: '--sw: ' + s.color, text: s.label})); });
		parent.appendChild(l);
		chart(parent, h, function (ctx, w) {
			var pw = w - pad.l - pad.r, ph = h - pad.t - pad.b;
			axisY(ctx, pad.l, pad.t, ph, vmax, fmtV);
			ctx.fillStyle = color('muted');
			ctx.fillText(fmtNs(t0), pad.l, h - 5);
			ctx.textAlign = 'right';
			ctx.fillText(fmtNs(t1), w - pad.r, h - 5);
			ctx.textAlign = 'left';
			series.forEach(function (s) {
				ctx.strokeStyle = s.color;
				ctx.lineWidth = 1.5;
				ctx.beginPath();
				s.pts.forEach(function (p, i) {
					var x = pad.l + pw * (p[0] - t0) / (t1 - t0 || 1);
					var y = pad.t + ph - ph * Math.min(1, p[1] / vmax);
					if (i === 0) ctx.moveTo(x, y);
					else if (step) { ctx.lineTo(x, ctx._py); ctx.lineTo(x, y); }
					else ctx.lineTo(x, y);
					ctx._py = y;
				});
				ctx.stroke();
				ctx.lineWidth = 1;
			});
		}, function (x, y, w) {
			var pw = w - pad.l - pad.r, t = t0 + (x - pad.l) / pw * (t1 - t0);
			if (x < pad.l) return null;
			var out = fmtNs(t);
			series.forEach(function (s) {
				var best = null;
				s.pts.forEach(function (p) { if (p[0] <= t) best = p; });
				if (best) out += '\n' + s.label + ': ' + fmtV(best[1]);
			});
			return out;
		});
	}

	/* ---- sections ---- */
	/* the main thread's activity that took most of the GPU's idle time, as analyze words it
	   (verdict.idle_host; gs_an_idle_doing in src/analysis/analyze.c): the verdict other's
	   words (idleWords), or host_compute's "Yet ..." */
	function idleDoing(ih, whose) {
		var what = {blocked: 'waits in', off_cpu: 'is off CPU, in no recorded call',
			python: 'runs Python', native: 'runs native code'}[ih['class']] || ih['class'];
		var name = ih['class'] === 'blocked' ? ' ' + (ih.name || 'a recorded call') :
			ih.name && ih['class'] !== 'off_cpu' ? ' (' + ih.name + ')' : '';
		var wait = ih.thread ? 'waits while thread ' + ih.thread + ' ' : ''; /* python, native */
		return 'for ' + fmtPct(100 * ih.share) + ' of ' + whose + ' idle time the main thread ' + wait + what + name;
	}
	function idleWords(ih) {
		return 'Idle: the GPU idles outside CUDA calls, syncs, data loading and host ranges; ' + idleDoing(ih, 'its');
	}
	function verdictSection(A, parentTitle) {
		var s = section('verdict', parentTitle || 'Verdict');
		var v = A.verdict;
		var p = el('div', {'class': 'verdict', 'data-primary': v.primary,
			'data-median-ns': String(Math.round(v.step_time_ms * 1e6)), 'data-steps': String(v.steps)});
		var other = v.idle_host && v.primary === 'other';
		p.appendChild(el('b', {text: other ? idleWords(v.idle_host) : PRIMARY_WORDS[v.primary] || v.primary}));
		p.appendChild(document.createTextNode(' (' + fmtPct(100 * v.breakdown[v.primary]) + ' of the step time). '));
		if (v.host_range) { /* host-bound: the innermost host range most of that time was in */
			var hint = v.steps_by === 'run' && (v.step_hints || []).filter(function (h) {
				return h.name === v.host_range.name; })[0];
			p.appendChild(document.createTextNode(fmtPct(100 * v.host_range.share) + ' of it inside ' +
				v.host_range.name + (hint ? ', a range that repeats ' + fmtCount(hint.count) + 'x: --step ' +
				hint.name + ' takes each as a step' : '') + '. '));
		}
		if (v.idle_host && !other) /* host-bound while the main thread waited or was off CPU */
			p.appendChild(document.createTextNode('Yet ' + idleDoing(v.idle_host, 'the GPU\'s') + '. '));
		p.appendChild(document.createTextNode(fmtCount(v.steps) + ' step' + (v.steps === 1 ? '' : 's') +
			(v.steps_by === 'profiler' ? ' (ProfilerStep#N ranges)' : v.steps_by === 'named' ? ' (--step ranges)' :
				' (the whole run)') + ', median step ' + fmtMs(v.step_time_ms) + '.'));
		if (v.warmup) { /* a first step that weighs on the means (analyze's line under Steps) */
			var wparts = [];
			if (v.warmup.import_ms)
				wparts.push('importing modules ' + fmtMs(v.warmup.import_ms));
			if (v.warmup.compile_ms)
				wparts.push('torch.compile compiling ' + fmtMs(v.warmup.compile_ms));
			p.appendChild(document.createTextNode(' The first step took ' + fmtMs(v.warmup.step_ms) + ' (' +
				Math.round(v.warmup.times_median) + 'x the median), ' + fmtPct(100 * v.warmup.share) +
				' of the steps\' time' + (wparts.length ? '; of it, while the GPU idled, ' + wparts.join(', ') : '') +
				': a warm-up that weighs on every mean; analyze --time ' + v.warmup.time_from + ': leaves it out.'));
		}
		if (v.startup) { /* start-up work in a whole run (analyze's line under Steps) */
			var parts = [];
			if (v.startup.import_ms)
				parts.push('while the GPU idles, importing modules ' + fmtMs(v.startup.import_ms) + (v.startup.pyc_ms ?
					' (byte-compiling sources ' + fmtMs(v.startup.pyc_ms) + ' of it)' : ''));
			if (v.startup.compile_ms)
				parts.push((v.startup.import_ms ? '' : 'while the GPU idles, ') + 'torch.compile compiling ' + fmtMs(v.startup.compile_ms));
			if (v.startup.load_ms)
				parts.push('copying ' + (v.startup.load_bytes / 1e6).toFixed(1) +
					' MB to the GPU before its first kernel ' + fmtMs(v.startup.load_ms));
			p.appendChild(document.createTextNode(' Start-up takes ' + fmtPct(100 * v.startup.share) +
				' of the run: ' + parts.join(', ') + '; a one-time cost that weighs on every figure.'));
		}
		if (v.step_hints && v.step_hints.length) /* no steps marked: the ranges that could be */
			p.appendChild(document.createTextNode(' No steps marked; ranges that repeat, for --step NAME: ' +
				v.step_hints.map(function (h) { return h.name + ' (' + fmtCount(h.count) + 'x)'; }).join(', ') + '.'));
		s.appendChild(p);
		if (v.gpu_work === false)
			note(s, 'No GPU work: no kernel, copy or memset (that passes --pid, --time and --device): what ' +
				'follows is the host\'s. If the program uses CUDA, gpuscope info shows what was recorded.');
		breakdownBar(s, v.breakdown);
		var rows = CLS.map(function (k) { return {cls: k, share: 100 * v.breakdown[k], ns: v.breakdown_ns[k]}; });
		s.appendChild(table([
			{key: 'cls', label: 'Class', fmt: function (k) { return CLS_LABEL[k]; }},
			{key: 'share', label: 'Share (%)', fmt: function (x) { return fmtPct(x); }, num: true},
			{key: 'ns', label: 'Time (all steps)', fmt: fmtNs, num: true}
		], rows, {'data-table': 'breakdown'}));
		if (v.host_launch_measured === false)
			note(s, 'The trace has no CUDA API calls (recorded with --cuda-api=none, or a profiler trace ' +
				'without runtime events): the GPU\'s idle time while the host launched work counts as other, ' +
				'not host launch.');
		var po = v.profiler_overhead;
		if (po && po.ns > 0)
			note(s, 'CUPTI\'s own work (its activity buffers, instrumentation) takes ' + fmtNs(po.ns / v.steps) +
				' per step, ' + fmtPct(100 * po.ns / v.total_ns) + ' of the step time above (overhead records: ' +
				fmtCount(po.records) + '): the profiler\'s, not the program\'s.');
		return s;
	}
	function breakdownBar(parent, bd) {
		legend(parent, CLS);
		chart(parent, 26, function (ctx, w) {
			var x = 0;
			CLS.forEach(function (k) {
				var bw = w * (bd[k] || 0);
				ctx.fillStyle = color('c-' + k);
				ctx.fillRect(x, 3, bw, 20);
				x += bw;
			});
		}, function (x, y, w) {
			var acc = 0;
			for (var i = 0; i < CLS.length; i++) {
				acc += (bd[CLS[i]] || 0) * w;
				if (x <= acc) return CLS_LABEL[CLS[i]] + ': ' + fmtPct(100 * bd[CLS[i]]);
			}
			return null;
		});
	}

	function findingCard(f) {
		var sev = 'var(--sev-' + f.severity + ')';
		var card = el('div', {'class': 'finding', style: '--sev: ' + sev, 'data-id': f.id,
			'data-saving-ms': String(f.saving_ms_per_step)});
		card.appendChild(el('div', null, [el('span', {'class': 'sev', text: f.severity}),
			el('span', {'class': 'title', text: f.title})]));
		card.appendChild(el('div', {'class': 'saving', text: 'Saving: ' + fmtMs(f.saving_ms_per_step) +
			' per step (' + fmtPct(f.saving_pct) + ' of the mean step); class: ' + (CLS_LABEL[f['class']] || f['class'])}));
		var ev = f.evidence || {};
		if (ev.top && ev.top.length) {
			var ul = el('ul');
			ev.top.forEach(function (t) {
				ul.appendChild(el('li', {text: fmtMs(t.total_ms) + ' in ' + fmtCount(t.count) + ' × ' + t.name}));
			});
			card.appendChild(el('div', {'class': 'muted', text: 'Top ' + (ev.top_of || '') + ':'}));
			card.appendChild(ul);
		}
		if (f.recommendation) {
			var dl = el('dl');
			if (f.recommendation.cuda) { dl.appendChild(el('dt', {text: 'CUDA'})); dl.appendChild(el('dd', {text: f.recommendation.cuda})); }
			if (f.recommendation.pytorch) { dl.appendChild(el('dt', {text: 'PyTorch'})); dl.appendChild(el('dd', {text: f.recommendation.pytorch})); }
			card.appendChild(dl);
		}
		return card;
	}
	function findingsSection(A, id, title) {
		var s = section(id || 'findings', title || 'Findings');
		if (!A.findings.length) note(s, 'No finding: nothing recorded costs a measurable share of the step.');
		A.findings.forEach(function (f) { s.appendChild(findingCard(f)); });
		return s;
	}

	function stepName(st) { return st.number === null ? 'the whole run' : 'step ' + st.number; }
	function stepsSection(A, R) {
		var s = section('steps', 'Step time breakdown');
		var steps = A.steps;
		if (!steps.length) { note(s, 'No step passes the filters.'); return; }
		legend(s, CLS);
		if (steps.length < A.verdict.steps)
			note(s, 'The first ' + fmtCount(steps.length) + ' of ' + fmtCount(A.verdict.steps) + ' steps.');
		var max = niceMax(Math.max.apply(null, steps.map(function (x) { return x.duration_ns; })));
		var pad = {l: 64, r: 10, t: 8, b: 18};
		chart(s, 220, function (ctx, w, h) {
			var pw = w - pad.l - pad.r, ph = h - pad.t - pad.b;
			axisY(ctx, pad.l, pad.t, ph, max, fmtNs);
			var bw = Math.min(60, pw / steps.length);
			steps.forEach(function (st, i) {
				var y = pad.t + ph;
				CLS.forEach(function (k) {
					var v = st.parts_ns[k] || 0, bh = ph * v / max;
					ctx.fillStyle = color('c-' + k);
					ctx.fillRect(pad.l + i * bw + (bw > 4 ? 1 : 0), y - bh, Math.max(bw - (bw > 4 ? 2 : 0), 0.5), bh);
					y -= bh;
				});
			});
			ctx.fillStyle = color('muted');
			ctx.fillText(stepName(steps[0]), pad.l, h - 4);
			ctx.textAlign = 'right';
			ctx.fillText(stepName(steps[steps.length - 1]), pad.l + bw * steps.length, h - 4);
			ctx.textAlign = 'left';
		}, function (x, y, w) {
			var pw = w - pad.l - pad.r, i = Math.floor((x - pad.l) / Math.min(60, pw / steps.length));
			if (i < 0 || i >= steps.length) return null;
			var st = steps[i], t = stepName(st) + (st.pid !== null ? ' (pid ' + st.pid + ')' : '') + ': ' + fmtNs(st.duration_ns);
			CLS.forEach(function (k) { t += '\n  ' + CLS_LABEL[k] + ': ' + fmtNs(st.parts_ns[k]); });
			return t;
		});
		var rep = R.step_sum;
		if (rep) {
			var MAXROWS = 30, rows = rep.rows, nsteps = R.rows_total.step_sum - 2;
			var shown = rows.length > MAXROWS + 2 ? rows.slice(0, MAXROWS).concat(rows.slice(-2)) : rows;
			s.appendChild(el('h3', {text: rep.title + ' (gpuscope stats -r step_sum)'}));
			s.appendChild(reportTable({report: rep.report, rows: shown}, [
				{col: 'Step'}, {col: 'PID'}, {col: 'Start (ns)'}, {col: 'Duration (ns)'}, {col: 'Kernel (ns)'},
				{col: 'Memcpy (ns)'}, {col: 'Memset (ns)'}, {col: 'Runtime API (ns)'}, {col: 'Sync Wait (ns)'},
				{col: 'Idle (ns)'}, {col: 'GPU Util (%)'}]));
			if (shown.length < rows.length)
				note(s, 'The first ' + MAXROWS + ' of ' + fmtCount(nsteps) + ' steps, then the median and p90 of all.');
		}
	}

	function deviceRows(T) { return T ? T.rows.filter(function (r) { return r.kind === 'device'; }) : []; }

	function utilSection(R, T, C) {
		var s = section('utilization', 'GPU utilization over time');
		var devs = deviceRows(T);
		if (devs.length) {
			var palette = ['bar', 'c-gpu_compute', 'c-gpu_transfer', 'c-host_launch', 'c-input_pipeline', 'c-host_sync'];
			var n = T.bins, t0 = T.start_ns, t1 = T.end_ns, per = Math.max(1, Math.round(n / 400));
			var series = devs.map(function (d, di) {
				var pts = [];
				for (var i = 0; i < n; i += per) {
					var sum = 0, k = 0;
					for (var j = i; j < Math.min(n, i + per); j++, k++) sum += d.busy[j];
					pts.push([t0 + (t1 - t0) * i / n, sum / k / 10]);
				}
				pts.push([t1, pts.length ? pts[pts.length - 1][1] : 0]);
				return {label: 'GPU ' + d.id, color: color(palette[di % palette.length]), pts: pts};
			});
			lines(s, series, t0, t1, 100, function (v) { return v.toFixed(0) + '%'; }, true);
			note(s, 'Busy share of ' + T.bins + ' equal bins of ' + fmtNs((t1 - t0) / n) +
				' (kernels, copies and memsets of every process, overlap counted once).');
			var dt = el('div', {'data-table': 'device-busy', hidden: ''});
			devs.forEach(function (d) { dt.appendChild(el('span', {'data-device': String(d.id), 'data-busy-ns': String(d.busy_ns)})); });
			s.appendChild(dt);
		} else {
			note(s, 'No GPU work recorded.');
		}
		if (R.gpu_util) {
			s.appendChild(el('h3', {text: R.gpu_util.title + ' (gpuscope stats -r gpu_util)'}));
			s.appendChild(reportTable(R.gpu_util, [{col: 'Device'}, {col: 'Name'}, {col: 'GPU Ops', type: 'count'},
				{col: 'Busy (ns)'}, {col: 'Wall (ns)'}, {col: 'Utilization (%)'}]));
		}
		/* --gpu-metrics: NVML's percent counters over time, and every counter's summary */
		var pct = (C || []).filter(function (c) { return c.unit === '%' && c.pts.length; });
		if (pct.length) {
			var cpal = ['c-gpu_compute', 'c-gpu_transfer', 'c-host_launch', 'c-input_pipeline', 'c-host_sync', 'bar'];
			s.appendChild(el('h3', {text: 'GPU counters (profile --gpu-metrics, NVML)'}));
			var ct0 = T.start_ns, ct1 = T.end_ns;
			lines(s, pct.map(function (c, i) {
				var pts = c.pts.filter(function (p) { return p[0] >= ct0 && p[0] <= ct1; });
				if (pts.length && pts[pts.length - 1][0] < ct1) pts.push([ct1, pts[pts.length - 1][1]]);
				return {label: 'GPU ' + c.device + ' ' + c.metric, color: color(cpal[i % cpal.length]), pts: pts};
			}), ct0, ct1, 100, function (v) { return v.toFixed(0) + '%'; }, true);
			note(s, 'As NVML reports them: gpu_util is the share of its last sample period in which a kernel ran, not SM occupancy.');
		}
		if (R.gpu_metrics_sum && R.gpu_metrics_sum.rows && R.gpu_metrics_sum.rows.length) {
			s.appendChild(el('h3', {text: R.gpu_metrics_sum.title + ' (gpuscope stats -r gpu_metrics_sum)'}));
			s.appendChild(reportTable(R.gpu_metrics_sum, [{col: 'Device'}, {col: 'Metric'}, {col: 'Samples', type: 'count'},
				{col: 'Min', num: true}, {col: 'Avg', num: true}, {col: 'Med', num: true}, {col: 'Max', num: true}, {col: 'Unit'}]));
		}
	}

	function timelineSection(T) {
		var s = section('timeline', 'Timeline');
		if (!T || !T.rows.length) { note(s, 'Nothing recorded.'); return; }
		var rows = T.rows.filter(function (r) { return r.kind !== 'device'; });
		var order = {thread: 0, api: 0, osrt: 0, stream: 1, copies: 1};
		rows.sort(function (a, b) { return order[a.kind] - order[b.kind]; });
		var names = T.names, n = T.bins, t0 = T.start_ns, t1 = T.end_ns;
		var view = {a: t0, b: t1};
		var rowh = 16, gaph = 14, lw = 200, top = 18;
		var layout = [], y = top, lastGroup = null;
		rows.forEach(function (r) {
			if (r.group !== lastGroup) { layout.push({group: r.group, y: y}); y += gaph; lastGroup = r.group; }
			layout.push({row: r, y: y});
			y += rowh;
		});
		var height = Math.min(y + 4, 8000);
		var tools = el('div', {'class': 'tools', text: fmtCount(T.events) + ' events in ' + rows.length +
			' rows; ' + (T.events_shown < T.events ? 'the ' + fmtCount(T.events_shown) + ' longest drawn one by one, the rest as ' +
				n + ' bins per row (shade: busy share).' : 'every event drawn.') + ' Wheel: zoom, drag: pan.'});
		var reset = el('button', {type: 'button', text: 'reset zoom'});
		tools.appendChild(reset);
		s.appendChild(tools);
		function binAt(t) { return Math.max(0, Math.min(n - 1, Math.floor((t - t0) / (t1 - t0) * n))); }
		var st = chart(s, height, function (ctx, w, h) {
			var pw = w - lw, span = view.b - view.a;
			var X = function (t) { return lw + (t - view.a) / span * pw; };
			ctx.fillStyle = color('muted');
			ctx.fillText(fmtNs(view.a), lw + 2, 12);
			ctx.textAlign = 'right';
			ctx.fillText(fmtNs(view.b), w - 2, 12);
			ctx.textAlign = 'left';
			layout.forEach(function (L) {
				if (L.group !== undefined) {
					ctx.fillStyle = color('fg');
					ctx.fillText(L.group.length > 60 ? L.group.slice(0, 58) + '…' : L.group, 4, L.y + 11);
					ctx.strokeStyle = color('line');
					ctx.beginPath(); ctx.moveTo(0, L.y + 0.5); ctx.lineTo(w, L.y + 0.5); ctx.stroke();
					return;
				}
				var r = L.row, col = color('c-' + (r.kind === 'thread' ? 'host_compute' : r.kind === 'api' ? 'host_launch' :
					r.kind === 'osrt' ? 'host_sync' : r.kind === 'copies' ? 'gpu_transfer' : 'gpu_compute'));
				ctx.fillStyle = color('muted');
				ctx.fillText(r.label, 16, L.y + 11);
				/* bins: per pixel column the largest busy share of the bins under it */
				var b0 = binAt(view.a), b1 = binAt(view.b);
				ctx.fillStyle = col;
				for (var px = 0; px < pw; px++) {
					var ta = view.a + span * px / pw, tb = view.a + span * (px + 1) / pw;
					var i0 = binAt(ta), i1 = Math.max(i0, binAt(tb - 1e-9)), mx = 0;
					if (i1 < b0 || i0 > b1) continue;
					for (var i = i0; i <= i1; i++) if (r.busy[i] > mx) mx = r.busy[i];
					if (mx > 0) {
						ctx.globalAlpha = 0.15 + 0.45 * mx / 1000;
						ctx.fillRect(lw + px, L.y + 2, 1, rowh - 4);
					}
				}
				ctx.globalAlpha = 1;
				var ev = r.events;
				for (var k = 0; k < ev.length; k += 4) {
					var a = ev[k], d = ev[k + 1];
					if (a + d < view.a || a > view.b) continue;
					var xa = Math.max(lw, X(a)), xb = Math.min(w, X(a + d));
					ctx.fillStyle = color('c-' + EV_CLS[ev[k + 3]]);
					ctx.fillRect(xa, L.y + 2, Math.max(1, xb - xa), rowh - 4);
					if (xb - xa > 40) {
						ctx.fillStyle = color('bg');
						var nm = names[ev[k + 2]];
						var room = Math.floor((xb - xa - 4) / 6);
						ctx.fillText(nm.length > room ? nm.slice(0, Math.max(0, room - 1)) + '…' : nm, xa + 2, L.y + 12);
					}
				}
			});
		}, function (x, y, w) {
			if (x < lw) return null;
			var pw = w - lw, t = view.a + (x - lw) / pw * (view.b - view.a), px = (view.b - view.a) / pw;
			for (var i = 0; i < layout.length; i++) {
				var L = layout[i];
				if (!L.row || y < L.y || y >= L.y + rowh) continue;
				var r = L.row, ev = r.events, best = -1;
				for (var k = 0; k < ev.length; k += 4)
					if (ev[k] <= t + px && ev[k] + ev[k + 1] >= t - px && (best < 0 || ev[k + 1] < ev[best + 1])) best = k;
				if (best >= 0)
					return names[ev[best + 2]] + '\n' + EV_KIND[ev[best + 3]] + ', ' + fmtNs(ev[best + 1]) +
						' at ' + fmtNs(ev[best]) + '\n' + r.group + ' / ' + r.label;
				var b = binAt(t), top = r.top[b];
				var ba = t0 + (t1 - t0) * b / n, bb = t0 + (t1 - t0) * (b + 1) / n;
				return r.group + ' / ' + r.label + '\n' + fmtNs(ba) + ' to ' + fmtNs(bb) + ': busy ' +
					(r.busy[b] / 10).toFixed(1) + '%' + (top >= 0 ? '\nmostly: ' + names[top] : '');
			}
			return null;
		}, function (c, st) {
			var drag = null;
			c.addEventListener('wheel', function (ev) {
				ev.preventDefault();
				var r = c.getBoundingClientRect(), pw = r.width - lw;
				var f = Math.max(0, Math.min(1, (ev.clientX - r.left - lw) / pw));
				var span = view.b - view.a, at = view.a + f * span;
				var ns = Math.min(t1 - t0, Math.max(1000, span * (ev.deltaY > 0 ? 1.25 : 0.8)));
				view.a = Math.max(t0, at - f * ns);
				view.b = Math.min(t1, view.a + ns);
				st.redraw();
			}, {passive: false});
			c.addEventListener('mousedown', function (ev) { drag = {x: ev.clientX, a: view.a, b: view.b}; });
			window.addEventListener('mouseup', function () { drag = null; });
			c.addEventListener('mousemove', function (ev) {
				if (!drag) return;
				var r = c.getBoundingClientRect(), pw = r.width - lw, span = drag.b - drag.a;
				var dt = -(ev.clientX - drag.x) / pw * span;
				dt = Math.max(t0 - drag.a, Math.min(t1 - drag.b, dt));
				view.a = drag.a + dt; view.b = drag.b + dt;
				st.redraw();
			});
			c.addEventListener('dblclick', function () { view.a = t0; view.b = t1; st.redraw(); });
		});
		reset.addEventListener('click', function () { view.a = t0; view.b = t1; st.redraw(); });
	}

	function topSection(id, title, rep, total, nameCol, cmd) {
		var s = section(id, title);
		if (!rep || !rep.rows.length) { note(s, 'None recorded.'); return; }
		hbars(s, rep.rows.slice(0, 15).map(function (r) {
			return {label: r[nameCol], value: r['Total Time (ns)'],
				text: fmtNs(r['Total Time (ns)']) + ' in ' + fmtCount(r.Instances) + ' (' + fmtPct(r['Time (%)']) + ')'};
		}), fmtNs);
		s.appendChild(el('h3', {text: rep.title + ' (' + cmd + ')'}));
		s.appendChild(reportTable(rep, [{col: 'Time (%)'}, {col: 'Total Time (ns)'}, {col: 'Instances', type: 'count'},
			{col: 'Avg (ns)'}, {col: 'Med (ns)'}, {col: 'Min (ns)'}, {col: 'Max (ns)'}, {col: nameCol, name: true}]));
		if (total > rep.rows.length) note(s, 'The first ' + rep.rows.length + ' of ' + fmtCount(total) + ' rows.');
	}

	/* What the host threads did (profile -t osrt, CPU sampling): the blocking calls, those
	   recorded with their stacks by the code that made them, the CUDA calls so recorded
	   (--cudabacktrace), the samples' top functions; no section for a trace without them */
	function hostSection(R) {
		var o = R.osrt_sum, st = R.osrt_stack_sum, cs = R.cpu_sample_sum, ca = R.cuda_api_stack_sum;
		if (!(o && o.rows.length) && !(cs && cs.rows.length) && !(ca && ca.rows.length)) return;
		var s = section('host', 'Host threads: blocking calls and CPU samples');
		function more(rep, name) {
			if (R.rows_total[name] > rep.rows.length)
				note(s, 'The first ' + rep.rows.length + ' of ' + fmtCount(R.rows_total[name]) + ' rows.');
		}
		if (o && o.rows.length) {
			hbars(s, o.rows.slice(0, 15).map(function (r) {
				return {label: r.Name, value: r['Total Time (ns)'], text: fmtNs(r['Total Time (ns)']) + ' in ' +
					fmtCount(r['Num Calls']) + ' calls (' + fmtPct(r['Time (%)']) + ')'};
			}), fmtNs);
			s.appendChild(el('h3', {text: o.title + ' (gpuscope stats -r osrt_sum)'}));
			s.appendChild(reportTable(o, [{col: 'Time (%)'}, {col: 'Total Time (ns)'}, {col: 'Num Calls', type: 'count'},
				{col: 'Avg (ns)'}, {col: 'Med (ns)'}, {col: 'Max (ns)'}, {col: 'Name', name: true}]));
			more(o, 'osrt_sum');
		}
		/* osrt_stack_sum and cuda_api_stack_sum: the same columns */
		function stackTable(rep, name) {
			s.appendChild(el('h3', {text: rep.title + ' (gpuscope stats -r ' + name + ')'}));
			s.appendChild(reportTable(rep, [{col: 'Time (%)'}, {col: 'Total Time (ns)'}, {col: 'Num Calls', type: 'count'},
				{col: 'Avg (ns)'}, {col: 'Name'}, {col: 'Caller', name: true}, {col: 'Stack', name: true}]));
			more(rep, name);
		}
		if (st && st.rows.length)
			stackTable(st, 'osrt_stack_sum');
		else if (o && o.rows.length)
			note(s, 'No call stacks: profile with --osrt-backtrace-threshold (default 80us) to record the code that made the long calls.');
		if (ca && ca.rows.length)
			stackTable(ca, 'cuda_api_stack_sum');
		if (cs && cs.rows.length) {
			s.appendChild(el('h3', {text: cs.title + ' (gpuscope stats -r cpu_sample_sum)'}));
			s.appendChild(reportTable(cs, [{col: 'Self (%)'}, {col: 'Self Samples', type: 'count'}, {col: 'Total (%)'},
				{col: 'Total Samples', type: 'count'}, {col: 'TID'}, {col: 'Thread'}, {col: 'Function', name: true},
				{col: 'Module'}]));
			more(cs, 'cpu_sample_sum');
		}
	}

	function copiesSection(C, R) {
		var s = section('copies', 'Copies by kind and memory type');
		if (!C || !C.length) { note(s, 'No copy or memset recorded.'); return; }
		hbars(s, C.map(function (c) {
			return {label: c.operation + ' ' + c.src + (c.operation === '[CUDA memset]' ? '' : ' → ' + c.dst),
				value: c.total_ns, text: fmtNs(c.total_ns) + ', ' + fmtCount(c.count) + ' ops, ' + fmtBytes(c.bytes),
				color: color('c-gpu_transfer')};
		}), fmtNs);
		s.appendChild(table([
			{key: 'operation', label: 'Operation'}, {key: 'src', label: 'From'},
			{key: 'dst', label: 'To'}, {key: 'count', label: 'Count', fmt: fmtCount, num: true},
			{key: 'bytes', label: 'Bytes', fmt: fmtBytes, num: true},
			{key: 'total_ns', label: 'Total Time', fmt: fmtNs, num: true},
			{key: function (c) { return c.total_ns ? c.bytes / c.total_ns : null; }, label: 'GB/s',
				fmt: function (v) { return fmtFloat(v, 2); }, num: true}
		], C, {'data-table': 'copies'}));
		if (R.cuda_gpu_mem_time_sum) {
			s.appendChild(el('h3', {text: R.cuda_gpu_mem_time_sum.title + ' (gpuscope stats -r cuda_gpu_mem_time_sum)'}));
			s.appendChild(reportTable(R.cuda_gpu_mem_time_sum, [{col: 'Time (%)'}, {col: 'Total Time (ns)'},
				{col: 'Count', type: 'count'}, {col: 'Avg (ns)'}, {col: 'Max (ns)'}, {col: 'Operation'}]));
		}
		if (R.cuda_gpu_mem_size_sum) {
			s.appendChild(el('h3', {text: R.cuda_gpu_mem_size_sum.title + ' (gpuscope stats -r cuda_gpu_mem_size_sum)'}));
			s.appendChild(reportTable(R.cuda_gpu_mem_size_sum, [{col: 'Total (MB)'}, {col: 'Count', type: 'count'},
				{col: 'Avg (MB)'}, {col: 'Max (MB)'}, {col: 'Operation'}]));
		}
	}

	function memorySection(R) {
		var s = section('memory', 'Device memory over time');
		var tl = R.memory_timeline, sum = R.memory_sum;
		if (!tl || !tl.rows.length) { note(s, 'No memory allocation recorded.'); return; }
		var groups = {}, keys = [], t0 = Infinity, t1 = 0, vmax = 0;
		tl.rows.forEach(function (r) {
			var k = 'pid ' + r.PID + ' GPU ' + r.Device + ' ' + r['Memory Kind'];
			if (!groups[k]) { groups[k] = []; keys.push(k); }
			groups[k].push(r);
			t0 = Math.min(t0, r['Start (ns)']); t1 = Math.max(t1, r['End (ns)']);
			vmax = Math.max(vmax, r['Max In Use (MB)']);
		});
		var palette = ['c-gpu_transfer', 'c-gpu_compute', 'c-host_launch', 'c-input_pipeline', 'bar'];
		var series = [];
		keys.forEach(function (k, i) {
			var g = groups[k];
			series.push({label: k + ' max in use', color: color(palette[i % palette.length]),
				pts: g.map(function (r) { return [r['Start (ns)'], r['Max In Use (MB)']]; })
					.concat([[g[g.length - 1]['End (ns)'], g[g.length - 1]['Max In Use (MB)']]])});
		});
		lines(s, series, t0, t1, niceMax(vmax), function (v) { return v.toFixed(1) + ' MB'; }, true);
		note(s, 'The largest amount in use in each of ten equal slices (gpuscope stats -r memory_timeline).');
		if (sum) {
			s.appendChild(el('h3', {text: sum.title + ' (gpuscope stats -r memory_sum)'}));
			s.appendChild(reportTable(sum, [{col: 'PID'}, {col: 'Device'}, {col: 'Memory Kind'},
				{col: 'Allocs', type: 'count'}, {col: 'Frees', type: 'count'}, {col: 'Allocated (MB)'},
				{col: 'Peak In Use (MB)'}, {col: 'Peak Time (ns)'}, {col: 'In Use at End (MB)'}]));
		}
	}

	function metaTable(M, O, T) {
		var rows = [
			['Trace', M.path], ['Source', M.source + (M.imported ? ' (imported)' : '')],
			['Command', M.command], ['Host', M.host], ['Recorded by', M.recorder],
			['Trace format', M.format], ['State', M.damaged ? 'damaged: ' + M.why : M.complete ? 'complete' : 'incomplete (cut short)'],
			['File size', fmtBytes(M.file_size)],
			['Started', M.start_real_ns ? new Date(M.start_real_ns / 1e6).toISOString() : ''],
			['Kernels', fmtCount(M.counts.kernels)], ['Copies', fmtCount(M.counts.copies)],
			['Memsets', fmtCount(M.counts.memsets)], ['CUDA API calls', fmtCount(M.counts.api_calls)],
			['NVTX ranges', fmtCount(M.counts.ranges)], ['Threads', fmtCount(M.counts.threads)],
			['Processes', M.processes.map(function (p) { return p.pid + ': ' + (p.cmdline || ''); }).join('\n')],
			['Devices', M.devices.map(function (d) { return d.id + ': ' + d.name + (d.sms ? ', ' + d.sms + ' SMs' : '') +
				(d.memory ? ', ' + fmtBytes(d.memory) : ''); }).join('\n')]
		];
		if (M.warning) rows.push(['Reader warning', M.warning]);
		if (T) rows.push(['Timeline', fmtCount(T.events) + ' events, ' + fmtCount(T.events_shown) + ' drawn one by one']);
		if (O && O.trace && O.trace.rows[0]) rows.push(['Duration', fmtNs(O.trace.rows[0]['Duration (ns)'])]);
		return table([{key: 0, label: 'Field'}, {key: 1, label: 'Value', cls: 'name'}],
			rows.filter(function (r) { return r[1]; }), {'class': 't kv', 'data-table': 'meta'});
	}
	function lostTable(parent, O) {
		var lost = O && O.lost;
		if (!lost || !lost.rows.length) {
			parent.appendChild(el('p', {'data-lost': '0', text: 'Lost records: none.'}));
			return;
		}
		var total = lost.rows.reduce(function (a, r) { return a + r.Count; }, 0);
		parent.appendChild(el('p', {'data-lost': String(total), 'class': 'delta-bad',
			text: 'Lost records: some of what the program did is missing; the numbers above undercount it.'}));
		parent.appendChild(table([{key: 'Count', label: 'Count', fmt: fmtCount, num: true}, {key: 'What', label: 'What'}],
			lost.rows, {'data-report': 'lost'}));
	}

	/* ---- the diff page ---- */
	function verdictClass(v) {
		return v === 'regression' ? 'delta-bad' : v === 'improvement' ? 'delta-good' : null;
	}
	function diffPage() {
		var X = D.diff, B = D.before, A = D.after;
		var s = section('diff-summary', 'Before and after');
		var st = X.step_time;
		var p = el('div', {'class': 'verdict', 'data-verdict': X.verdict, 'data-regressions': String(X.regressions.length),
			'data-improvements': String(X.improvements.length),
			'data-before-ms': String(st.before), 'data-after-ms': String(st.after)});
		p.appendChild(el('b', {text: 'Step time (median): ' + fmtMs(st.before) + ' → ' + fmtMs(st.after) + ': '}));
		p.appendChild(el('span', {'class': verdictClass(st.verdict), text: fmtSigned(st.delta, fmtMs(st.delta)) + ' (' +
			fmtSigned(st.pct, fmtPct(st.pct)) + ')'}));
		p.appendChild(document.createTextNode(st.ci ? ', 95% interval [' + fmtMs(st.ci[0]) + ', ' + fmtMs(st.ci[1]) + ']' : ''));
		p.appendChild(document.createTextNode(num(st.p) ? ', p = ' + (st.p < 1e-3 ? st.p.toExponential(1) : st.p.toFixed(3)) : ''));
		p.appendChild(document.createTextNode('. Verdict: ' + X.verdict + ' (' + X.regressions.length + ' regression' +
			(X.regressions.length === 1 ? '' : 's') + ', ' + X.improvements.length + ' improvement' +
			(X.improvements.length === 1 ? '' : 's') + ', threshold ' + X.settings.threshold_pct + '%).'));
		s.appendChild(p);
		note(s, 'Before: ' + X.before.trace + ' (' + X.before.steps + ' steps). After: ' + X.after.trace + ' (' + X.after.steps + ' steps).');
		var hb = X.before.step_hints || [], ha = (X.after.step_hints || []).filter(function (h) {
			return hb.some(function (g) { return g.name === h.name; }); });
		if (ha.length) { /* no steps marked: a range both traces repeat */
			var g = hb.filter(function (x) { return x.name === ha[0].name; })[0];
			note(s, 'No steps marked; both traces repeat the range ' + ha[0].name + ' (' + g.count + 'x → ' +
				ha[0].count + 'x): --step ' + ha[0].name + ' compares them step by step.');
		}

		var b = section('diff-breakdown', 'Step time breakdown, before and after');
		legend(b, CLS);
		var sides = [X.before, X.after], maxStep = niceMax(Math.max(X.before.step_time_ms, X.after.step_time_ms));
		chart(b, 90, function (ctx, w) {
			var lw = 60;
			sides.forEach(function (sd, i) {
				var y = 8 + i * 38, x = lw, tot = 0;
				ctx.fillStyle = color('muted');
				ctx.fillText(i ? 'after' : 'before', 4, y + 16);
				CLS.forEach(function (k) { tot += sd.ms_per_step[k] || 0; });
				CLS.forEach(function (k) {
					var bw = (w - lw - 80) * (sd.ms_per_step[k] || 0) / maxStep;
					ctx.fillStyle = color('c-' + k);
					ctx.fillRect(x, y, bw, 26);
					x += bw;
				});
				ctx.fillStyle = color('fg');
				ctx.fillText(fmtMs(tot), x + 6, y + 16);
			});
		}, function (x, y, w) {
			var i = y < 46 ? 0 : 1, sd = sides[i], t = (i ? 'after' : 'before') + ' (mean per step)';
			CLS.forEach(function (k) { t += '\n  ' + CLS_LABEL[k] + ': ' + fmtMs(sd.ms_per_step[k]); });
			return t;
		});
		var brows = CLS.map(function (k) { var q = X.breakdown[k]; return {cls: k, before: q.before, after: q.after, delta: q.delta, pct: q.pct, verdict: q.verdict}; });
		b.appendChild(diffTable(brows, 'breakdown', function (r) { return CLS_LABEL[r.cls]; }, 'Class'));

		[['kernels', 'Kernels'], ['ranges', 'NVTX ranges'], ['api_calls', 'CUDA API calls'], ['copies', 'Copies and memsets']]
			.forEach(function (k) {
				var items = X[k[0]] || [], sec = section('diff-' + k[0], k[1] + ' by change per step');
				if (!items.length) { note(sec, 'None in either trace.'); return; }
				var top = items.slice(0, 15);
				hbars(sec, top.map(function (it) {
					return {label: it.name, value: Math.abs(it.delta_ms_per_step) * 1e6,
						color: color(it.delta_ms_per_step > 0 ? 'bad' : 'good'),
						text: fmtSigned(it.delta_ms_per_step, fmtMs(it.delta_ms_per_step)) + ' per step (' +
							(num(it.pct) ? fmtSigned(it.pct, fmtPct(it.pct)) : it.presence) + ')'};
				}), function (v) { return fmtNs(v); });
				sec.appendChild(diffItems(items.slice(0, 50), k[0]));
				if (items.length > 50) note(sec, 'The first 50 of ' + items.length + ' rows.');
			});

		var f = section('diff-findings', 'Findings, before and after');
		var cols = el('div', {'class': 'cols'});
		[['before', B], ['after', A]].forEach(function (pair) {
			var col = el('div', {'data-side': pair[0]});
			col.appendChild(el('h3', {text: pair[0] === 'before' ? 'Before' : 'After'}));
			if (!pair[1].analysis.findings.length) col.appendChild(el('p', {'class': 'note', text: 'No finding.'}));
			pair[1].analysis.findings.forEach(function (fd) { col.appendChild(findingCard(fd)); });
			cols.appendChild(col);
		});
		f.appendChild(cols);
		var m = section('meta', 'Trace metadata and lost records');
		[['Before', B], ['After', A]].forEach(function (pair) {
			m.appendChild(el('h3', {text: pair[0]}));
			lostTable(m, pair[1].overview);
			m.appendChild(metaTable(pair[1].meta, pair[1].overview, null));
		});
	}
	function diffTable(rows, name, label, head) {
		return table([
			{key: label, label: head},
			{key: 'before', label: 'Before (ms)', fmt: fmtMs, num: true},
			{key: 'after', label: 'After (ms)', fmt: fmtMs, num: true},
			{key: 'delta', label: 'Change', fmt: function (v) { return fmtSigned(v, fmtMs(v)); }, num: true},
			{key: 'pct', label: 'Change (%)', fmt: function (v) { return num(v) ? fmtSigned(v, fmtPct(v)) : ''; }, num: true},
			{key: 'verdict', label: 'Verdict', fmt: function (v) { return el('span', {'class': verdictClass(v), text: v}); }}
		], rows, {'data-table': name});
	}
	function diffItems(items, name) {
		return table([
			{key: 'name', label: 'Name', cls: 'name'},
			{key: 'ms_per_step_before', label: 'Before (per step)', fmt: fmtMs, num: true},
			{key: 'ms_per_step_after', label: 'After (per step)', fmt: fmtMs, num: true},
			{key: 'delta_ms_per_step', label: 'Change', fmt: function (v) { return fmtSigned(v, fmtMs(v)); }, num: true},
			{key: 'pct', label: 'Change (%)', fmt: function (v) { return num(v) ? fmtSigned(v, fmtPct(v)) : ''; }, num: true},
			{key: function (it) { return it.presence === 'both' ? it.test && it.test.verdict : it.presence; }, label: 'Verdict',
				fmt: function (v) { return el('span', {'class': verdictClass(v), text: v || ''}); }}
		], items.map(function (it) { return Object.assign({_attrs: {'data-name': it.name}}, it); }), {'data-table': 'diff-' + name});
	}

	/* ---- the report page ---- */
	function reportPage() {
		var R = D.reports, A = D.analysis, T = D.timeline;
		verdictSection(A);
		findingsSection(A);
		stepsSection(A, R);
		utilSection(R, T, D.counters);
		timelineSection(T);
		topSection('kernels', 'Top kernels', R.cuda_gpu_kern_sum, R.rows_total.cuda_gpu_kern_sum, 'Name',
			'gpuscope stats -r cuda_gpu_kern_sum');
		topSection('ranges', 'Top NVTX ranges', R.nvtx_sum, R.rows_total.nvtx_sum, 'Range', 'gpuscope stats -r nvtx_sum');
		copiesSection(D.copies, R);
		memorySection(R);
		hostSection(R);
		var m = section('meta', 'Lost records and trace metadata');
		lostTable(m, D.overview);
		m.appendChild(metaTable(D.meta, D.overview, T));
	}

	if (D.kind === 'diff') diffPage(); else reportPage();
	var foot = el('p', {'class': 'note', text: 'Made by ' + D.generator + '. The tables hold the numbers of the gpuscope ' +
		'commands named above them; hover a chart for details.'});
	main.appendChild(foot);
	var pending = null;
	window.addEventListener('resize', function () {
		if (pending) return;
		pending = requestAnimationFrame(function () { pending = null; redraws.forEach(function (f) { f(); }); });
	});
	if (window.matchMedia) {
		var mq = window.matchMedia('(prefers-color-scheme: dark)');
		var again = function () { redraws.forEach(function (f) { f(); }); };
		if (mq.addEventListener) mq.addEventListener('change', again);
	}
	if (window.performance && performance.now)
		document.body.setAttribute('data-draw-ms', performance.now().toFixed(0));
	document.body.setAttribute('data-ready', '1');
})();
