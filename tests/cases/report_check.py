#!/usr/bin/env python3
"""report_check.py: open a page of `gpuscope report` (or `gpuscope diff --format html`) in
headless Chromium and check it against the commands whose numbers it shows.

  report_check.py report GS PAGE TRACE OUTDIR [--no-util-sum] [--step=NAME]
  report_check.py diff GS PAGE BEFORE AFTER OUTDIR
  report_check.py pixel FILE.png        (the top-left pixel's R G B)

Chromium loads the page from the file (no network), its DOM after the script ran is dumped
and a screenshot taken into OUTDIR. Checked: no console message at all and no error caught by
the page, the page's script finished (data-ready), the expected sections, and the numbers in
the tables (their data-v values, and the text shown) against `gpuscope stats -r R --format
json`, `gpuscope analyze --format json` and `gpuscope diff --format json` of the same traces.
Prints one line per failed check and a closing "checks: N, failed: F, draw: MS ms" line;
exits 1 when a check failed."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import time

FAILS = []
CHECKS = [0]


def check(name, cond, detail=''):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(name)
        print('FAIL %s %s' % (name, detail))


def browser():
    for b in ('chromium', 'chromium-browser', 'google-chrome'):
        p = shutil.which(b)
        if p:
            return p
    return None


def chrome(page, *args):
    cmd = [browser(), '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
           '--disable-extensions', '--enable-logging=stderr', '--v=0', '--hide-scrollbars',
           '--user-data-dir=' + os.path.join(OUT, 'profile')] + list(args) + ['file://' + os.path.abspath(page)]
    t = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p, time.time() - t


class Dom(html.parser.HTMLParser):
    """The elements with their attributes and text, tables as rows of cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.elems = []    # (tag, attrs)
        self.tables = []   # {'attrs', 'rows': [[{'attrs', 'text'}]]}
        self.cell = None
        self.ids = set()
        self.text = []     # the page's text outside scripts and styles
        self.code = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elems.append((tag, a))
        if tag in ('script', 'style'):
            self.code += 1
        if 'id' in a:
            self.ids.add(a['id'])
        if tag == 'table':
            self.tables.append({'attrs': a, 'rows': []})
        elif tag == 'tr' and self.tables:
            self.tables[-1]['rows'].append({'attrs': a, 'cells': []})
        elif tag in ('td', 'th') and self.tables and self.tables[-1]['rows']:
            self.cell = {'attrs': a, 'text': '', 'th': tag == 'th'}
            self.tables[-1]['rows'][-1]['cells'].append(self.cell)

    def handle_endtag(self, tag):
        if tag in ('td', 'th'):
            self.cell = None
        if tag in ('script', 'style') and self.code:
            self.code -= 1

    def handle_data(self, data):
        if self.cell is not None:
            self.cell['text'] += data
        if not self.code:
            self.text.append(data)


def gs_json(*args):
    if args[0] in ('stats', 'analyze'):
        args = args[:1] + tuple(EXTRA) + args[1:]
    p = subprocess.run([GS] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    return json.loads(p.stdout)


def table(dom, **attr):
    for t in dom.tables:
        if all(t['attrs'].get(k.replace('_', '-')) == v for k, v in attr.items()):
            return [{c['attrs'].get('data-col'): c for c in r['cells']} for r in t['rows'] if r['cells'] and not r['cells'][0]['th']]
    return None


def elem(dom, key):
    for tag, a in dom.elems:
        if key in a:
            return a
    return None


def num(s):
    return float(s) if s not in (None, '') else None


UNIT = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}


def shown_ns(text):
    m = re.match(r'^(-?[0-9.]+) (ns|us|ms|s)$', text.strip())
    return float(m.group(1)) * UNIT[m.group(2)] if m else None


def load_page(page):
    p, secs = chrome(page, '--virtual-time-budget=10000', '--dump-dom')
    err = p.stderr.decode('utf-8', 'replace')
    console = [l for l in err.splitlines() if ':CONSOLE' in l]
    check('no console message', not console, '\n'.join(console[:5]))
    dom = Dom()
    dom.feed(p.stdout.decode('utf-8', 'replace'))
    body = elem(dom, 'data-page')
    check('page loaded, script finished', body is not None and body.get('data-ready') == '1',
          'rc %d, %d bytes of DOM' % (p.returncode, len(p.stdout)))
    check('no error caught by the page', body is not None and 'data-errors' not in body,
          body.get('data-errors') if body else '')
    shot = os.path.join(OUT, os.path.basename(page) + '.png')
    q, _ = chrome(page, '--virtual-time-budget=10000', '--window-size=1280,2400', '--screenshot=' + shot)
    size = os.path.getsize(shot) if os.path.exists(shot) else 0
    check('screenshot taken (%d bytes)' % size, size > 20000)
    if size:
        with open(shot, 'rb') as f:
            head = f.read(24)
        check('screenshot is a 1280-wide PNG', head[:8] == b'\x89PNG\r\n\x1a\n' and int.from_bytes(head[16:20], 'big') == 1280)
    draw = int(body.get('data-draw-ms', '-1')) if body else -1
    return dom, draw


def same_rows(name, dom_rows, ref_rows, key, cols):
    """Each row shown is the reference's row at the same place: its key, and cols exactly."""
    check(name + ': rows shown', dom_rows is not None and len(dom_rows) > 0 and len(dom_rows) <= len(ref_rows),
          '%s shown of %d' % (None if dom_rows is None else len(dom_rows), len(ref_rows)))
    for i, r in enumerate(dom_rows or []):
        ref = ref_rows[i]
        k = r.get(key)
        check('%s row %d: %s' % (name, i, key), k is not None and k['text'] == str(ref[key]),
              '%r vs %r' % (k and k['text'], ref[key]))
        for c in cols:
            v = r.get(c)
            want = ref[c]
            got = num(v['attrs'].get('data-v')) if v else 'missing'
            check('%s row %d: %s' % (name, i, c), got == want or (want is None and got is None),
                  '%r vs %r' % (got, want))
            if v and c.endswith('(ns)') and want is not None and want > 0:
                s = shown_ns(v['text'])
                check('%s row %d: %s as shown' % (name, i, c), s is not None and abs(s - want) <= 0.006 * want + 0.5,
                      '%r vs %r' % (v['text'], want))


def check_report(page, trace, util_sum):
    dom, draw = load_page(page)
    for s in ('verdict', 'findings', 'steps', 'utilization', 'timeline', 'kernels', 'ranges', 'copies',
              'memory', 'meta'):
        check('section ' + s, s in dom.ids)
    a = gs_json('analyze', '--format', 'json', trace)
    v = elem(dom, 'data-primary')
    check('verdict: primary', v and v['data-primary'] == a['verdict']['primary'], str(v))
    check('verdict: median step', v and int(v['data-median-ns']) == round(a['verdict']['step_time_ms'] * 1e6), str(v))
    check('verdict: steps', v and int(v['data-steps']) == a['verdict']['steps'], str(v))
    ih = a['verdict'].get('idle_host')
    text = ' '.join(dom.text)
    # the verdict other names it ('Idle: ... host ranges; for X of its idle time ...'); host_compute
    # names it after the host range when the thread waited or was off CPU ('Yet for X ...')
    other = "host ranges; for %.1f%% of its idle time the main thread" % (100 * ih['share']) if ih else None
    yet = "Yet for %.1f%% of the GPU's idle time the main thread" % (100 * ih['share']) if ih else None
    prim = a['verdict']['primary']
    check('verdict: the main thread\'s activity named as analyze names it (%s)' % ih,
          ('host ranges; for ' in text) == (ih is not None and prim == 'other') and
          ('Yet for ' in text) == (ih is not None and prim != 'other') and
          (ih is None or ((other if prim == 'other' else yet) in text and
                          (ih['name'] is None or ih['name'] in text))))
    check('verdict: the thread that ran it named as analyze names it (%s)' % ih,
          ih is None or not ih.get('thread') or 'waits while thread %s ' % ih['thread'] in text)
    wu = a['verdict'].get('warmup', 'missing')
    check('verdict: the warm-up note shown as analyze has it (%s)' % (wu,),
          wu != 'missing' and ('a warm-up that weighs' in text) == (wu is not None) and
          (wu is None or ('analyze --time %s: leaves it out' % wu['time_from'] in text and
                          ('; of it, while the GPU idled, ' in text) == (wu['import_ms'] + wu['compile_ms'] > 0) and
                          ('torch.compile compiling ' in text) == (wu['compile_ms'] > 0))))
    su = a['verdict'].get('startup', 'missing')
    check('verdict: the start-up note shown as analyze has it (%s)' % (su,),
          su != 'missing' and ('Start-up takes ' in text) == (su is not None) and
          (su is None or ('Start-up takes %.1f%% of the run' % (100 * su['share']) in text and
                          ('byte-compiling sources' in text) == (su['pyc_ms'] > 0) and
                          ('torch.compile compiling' in text) == (su['compile_ms'] > 0) and
                          ('MB to the GPU before its first kernel' in text) == (su['load_ms'] > 0))))
    hr = a['verdict'].get('host_range', 'missing')
    check('verdict: the host range named as analyze names it (%s)' % (hr,),
          hr != 'missing' and ((' of it inside ' in text) == (hr is not None)) and
          (hr is None or ' of it inside ' + hr['name'] in text) and
          (('a range that repeats' in text) == any(h['name'] == hr['name'] for h in a['verdict']['step_hints']
                                                   if hr is not None)))
    sh = a['verdict'].get('step_hints', 'missing')
    check('verdict: the ranges that could be steps shown as analyze names them (%s)' % (sh,),
          sh != 'missing' and (('No steps marked; ranges that repeat' in text) == bool(sh)) and
          all('%s (%sx)' % (h['name'], h['count']) in text for h in sh))
    gw = a['verdict'].get('gpu_work', 'missing')
    check('verdict: the note on no GPU work shown as analyze has it (gpu_work %s)' % (gw,),
          gw in (True, False) and (('No GPU work: no kernel, copy or memset' in text) == (gw is False)))
    said = 'The trace has no CUDA API calls' in ' '.join(dom.text)
    check('verdict: the note on API calls not recorded shown as analyze says',
          said == (a['verdict']['host_launch_measured'] is False), 'shown %s, measured %s' % (said, a['verdict']['host_launch_measured']))
    po = a['verdict']['profiler_overhead']
    said = 'CUPTI\'s own work' in text
    check('verdict: the note on CUPTI\'s own time shown as analyze has it',
          said == (po['ns'] > 0), 'shown %s, %r' % (said, po))
    ids = [x['data-id'] for t, x in dom.elems if t == 'div' and 'data-id' in x]
    check('findings in analyze\'s order', ids == [f['id'] for f in a['findings']], '%s vs %s' % (ids, [f['id'] for f in a['findings']]))
    savings = [float(x['data-saving-ms']) for t, x in dom.elems if t == 'div' and 'data-saving-ms' in x]
    check('findings: savings', savings == [f['saving_ms_per_step'] for f in a['findings']])

    def stats(r):
        return gs_json('stats', '-r', r, '--format', 'json', trace)
    k = stats('cuda_gpu_kern_sum')
    if k['rows']:
        same_rows('kernels', table(dom, data_report='cuda_gpu_kern_sum'), k['rows'], 'Name',
                  ['Total Time (ns)', 'Instances', 'Time (%)', 'Avg (ns)', 'Med (ns)'])
    n = stats('nvtx_sum')
    if n['rows']:
        same_rows('ranges', table(dom, data_report='nvtx_sum'), n['rows'], 'Range', ['Total Time (ns)', 'Instances'])
    st = stats('step_sum')
    rows = table(dom, data_report='step_sum')
    ref = st['rows'] if len(st['rows']) <= 32 else st['rows'][:30] + st['rows'][-2:]
    check('steps: every step shown (or 30 and the summary rows)', rows is not None and len(rows) == len(ref))
    same_rows('steps', rows, ref, 'Step', ['Duration (ns)', 'Kernel (ns)', 'Idle (ns)', 'Sync Wait (ns)', 'GPU Util (%)'])
    u = stats('gpu_util')
    if u['rows']:
        same_rows('gpu_util', table(dom, data_report='gpu_util'), u['rows'], 'Device', ['Busy (ns)', 'Wall (ns)', 'Utilization (%)'])
    busy = {int(x['data-device']): int(x['data-busy-ns']) for t, x in dom.elems if 'data-busy-ns' in x}
    if util_sum:
        check('utilization chart: its bins add up to gpu_util\'s busy time',
              busy == {r['Device']: r['Busy (ns)'] for r in u['rows']}, '%s vs %s' % (busy, u['rows']))
    mt = stats('cuda_gpu_mem_time_sum')
    if mt['rows']:
        same_rows('copies', table(dom, data_report='cuda_gpu_mem_time_sum'), mt['rows'], 'Operation',
                  ['Total Time (ns)', 'Count'])
    by = {}
    for r in table(dom, data_table='copies') or []:
        op = r['Operation']['text']
        c, t = by.get(op, (0, 0))
        by[op] = (c + int(r['Count']['attrs']['data-v']), t + int(r['Total Time']['attrs']['data-v']))
    check('copies by memory kind add up to cuda_gpu_mem_time_sum',
          by == {r['Operation']: (r['Count'], r['Total Time (ns)']) for r in mt['rows']}, '%s vs %s' % (by, mt['rows']))
    # the host threads: osrt_sum, osrt_stack_sum and cpu_sample_sum in a section of their own,
    # which a trace without OS runtime calls or CPU samples does not have
    host = {r: stats(r) for r in ('osrt_sum', 'osrt_stack_sum', 'cpu_sample_sum')}
    check('section host only with host data', ('host' in dom.ids) ==
          bool(host['osrt_sum']['rows'] or host['cpu_sample_sum']['rows']))
    if host['osrt_sum']['rows']:
        same_rows('osrt', table(dom, data_report='osrt_sum'), host['osrt_sum']['rows'], 'Name',
                  ['Total Time (ns)', 'Num Calls', 'Max (ns)'])
    if host['osrt_stack_sum']['rows']:
        same_rows('osrt stacks', table(dom, data_report='osrt_stack_sum'), host['osrt_stack_sum']['rows'], 'Caller',
                  ['Total Time (ns)', 'Num Calls'])
        shown = [r['Stack']['text'] for r in table(dom, data_report='osrt_stack_sum')]
        check('osrt stacks: the stacks as stats gives them',
              shown == [r['Stack'] for r in host['osrt_stack_sum']['rows']][:len(shown)])
    if host['cpu_sample_sum']['rows']:
        same_rows('cpu samples', table(dom, data_report='cpu_sample_sum'), host['cpu_sample_sum']['rows'], 'Function',
                  ['Self Samples', 'Total Samples'])
    o = gs_json('stats', '--format', 'json', trace)
    lost = elem(dom, 'data-lost')
    check('lost records', lost and int(lost['data-lost']) == sum(r['Count'] for r in o['lost']['rows']), str(lost))
    meta = table(dom, data_table='meta') or []
    check('metadata: the trace named', any(r['Field']['text'] == 'Trace' and os.path.basename(r['Value']['text']) == os.path.basename(trace) for r in meta))
    return draw


def check_diff(page, before, after):
    dom, draw = load_page(page)
    for s in ('diff-summary', 'diff-breakdown', 'diff-kernels', 'diff-ranges', 'diff-api_calls', 'diff-copies',
              'diff-findings', 'meta'):
        check('section ' + s, s in dom.ids)
    d = gs_json('diff', '--format', 'json', before, after)
    v = elem(dom, 'data-verdict')
    check('diff: verdict', v and v['data-verdict'] == d['verdict'], str(v))
    check('diff: regressions', v and int(v['data-regressions']) == len(d['regressions']))
    check('diff: improvements', v and int(v['data-improvements']) == len(d['improvements']))
    check('diff: step time before', v and float(v['data-before-ms']) == d['step_time']['before'])
    check('diff: step time after', v and float(v['data-after-ms']) == d['step_time']['after'])
    for kind in ('kernels', 'ranges', 'api_calls', 'copies'):
        rows = table(dom, data_table='diff-' + kind) or []
        check('diff %s: rows' % kind, len(rows) == min(50, len(d[kind])))
        for i, r in enumerate(rows):
            it = d[kind][i]
            check('diff %s row %d: name' % (kind, i), r['Name']['text'] == it['name'])
            check('diff %s row %d: change' % (kind, i), float(r['Change']['attrs']['data-v']) == it['delta_ms_per_step'])
            check('diff %s row %d: before' % (kind, i), float(r['Before (per step)']['attrs']['data-v']) == it['ms_per_step_before'])
    hb = [h['name'] for h in d['before'].get('step_hints', [])]
    both = [h for h in d['after'].get('step_hints', []) if h['name'] in hb]
    text = ' '.join(dom.text)
    check('diff: a range both traces repeat shown as the text diff names it (%s)' % [h['name'] for h in both],
          ('both traces repeat the range' in text) == bool(both) and
          (not both or '--step %s compares them' % both[0]['name'] in text))
    br = table(dom, data_table='breakdown') or []
    check('diff breakdown: seven classes', len(br) == 7)
    for side in ('before', 'after'):
        a = gs_json('analyze', '--format', 'json', before if side == 'before' else after)
        ids = []
        col = False
        for t, x in dom.elems:
            if 'data-side' in x:
                col = x['data-side'] == side
            elif col and t == 'div' and 'data-id' in x:
                ids.append(x['data-id'])
        check('diff findings %s: analyze\'s' % side, ids == [f['id'] for f in a['findings']], '%s' % ids)
    return draw


def first_pixel(png):
    """The top-left pixel of a PNG (8-bit RGB or RGBA): the first pixel of the first row is
    stored as it is whatever the row's filter."""
    import struct
    import zlib
    data = open(png, 'rb').read()
    pos, idat, depth, ctype = 8, b'', 0, 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            depth, ctype = body[8], body[9]
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompressobj().decompress(idat, 64)
    assert depth == 8 and ctype in (2, 6), (depth, ctype)
    return tuple(raw[1:4])


if __name__ == '__main__':
    if sys.argv[1] == 'pixel':
        print(' '.join(str(v) for v in first_pixel(sys.argv[2])))
        sys.exit(0)
    pos = [a for a in sys.argv[1:] if not a.startswith('--')]
    mode, GS, page = pos[0], pos[1], pos[2]
    EXTRA = [a for a in sys.argv if a.startswith('--step=')]
    if not browser():
        print('FAIL no chromium found (apt-get install -y chromium)')
        sys.exit(1)
    if mode == 'report':
        OUT = pos[4]
        draw = check_report(page, pos[3], '--no-util-sum' not in sys.argv)
    else:
        OUT = pos[5]
        draw = check_diff(page, pos[3], pos[4])
    print('checks: %d, failed: %d, draw: %d ms' % (CHECKS[0], len(FAILS), draw))
    sys.exit(1 if FAILS else 0)
