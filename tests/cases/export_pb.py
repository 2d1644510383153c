#!/usr/bin/env python3
"""export_pb.py GS TRACE OUT.pftrace: read a Perfetto trace written by gpuscope back by hand
(the protobuf wire format: varints and length-delimited fields, Perfetto's field numbers) and
check its slices against `gpuscope stats` on the same trace: per name, the count and summed
duration of kernels (cuda_gpu_kern_sum), graph launches (cuda_gpu_graph_sum), copies and
memsets (cuda_gpu_mem_time_sum), CUDA API
calls (cuda_api_sum), ranges (nvtx_sum) and CUPTI's overhead records (gpuscope dump). Every SLICE_END must close an open slice of its
track, but for ranges never ended (left open). Prints the number of checks and of ranges left
open; exit 1 on the first mismatch.

export_pb.py --kmetrics GS TRACE OUT.pftrace: the debug annotations of each kernel slice
against `gpuscope stats -r kernel_metrics --format csv` on the same trace (rows matched by
correlation id): every value the report shows, to its precision, under the report's label (and
the duration under ncu's name), the class and its reason; a kernel the report does not list
carries no metric. With CHROME.json (the Chrome export of TRACE) after OUT, each measured
kernel's annotations are its Chrome args after "block", the same names in the same order and
the same values. Prints per measured launch "CorrId Name Ld-sectors/request DRAM% bound",
then the number of launches and values compared and of kernels without metrics."""
import collections, csv, io, json, re, struct, subprocess, sys


def fields(b):
    """(field number, value) of a message: ints for varints and fixed64, bytes for the rest."""
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        f, w = tag >> 3, tag & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = int.from_bytes(b[i:i + 8], 'little'), i + 8
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError('wire type %d' % w)
        yield f, v


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def annotation(b, an_names):
    """A DebugAnnotation's (name, value): the name interned or inline, the value an int, a
    float or a str."""
    name = value = None
    for k, v in fields(b):
        if k == 1:
            name = an_names[v]
        elif k == 10:
            name = v.decode()
        elif k == 3:
            value = v
        elif k == 5:
            value = struct.unpack('<d', v.to_bytes(8, 'little'))[0]
        elif k == 6:
            value = v.decode()
    return name, value


def read(path):
    names, stacks, an_names, begins = {}, collections.defaultdict(list), {}, []
    fnames, frames, callstacks, samples = {}, {}, {}, []
    slices = collections.defaultdict(lambda: [0, 0])  # (kind, name) -> [count, total ns]
    for f, packet in fields(open(path, 'rb').read()):
        assert f == 1, 'a Trace holds only packets'
        ts, ev = 0, None
        for g, v in fields(packet):
            if g == 8:
                ts = v
            elif g == 12:  # interned data: event names; function names, frames, callstacks
                for h, e in fields(v):
                    if h == 2:
                        d = dict(fields(e))
                        names[d[1]] = d[2].decode()
                    elif h == 3:
                        d = dict(fields(e))
                        an_names[d[1]] = d[2].decode()
                    elif h == 5:
                        d = dict(fields(e))
                        assert d[1] not in fnames, 'function name %d interned twice' % d[1]
                        fnames[d[1]] = d[2].decode()
                    elif h == 6:
                        d = dict(fields(e))
                        frames[d[1]] = d[2]
                    elif h == 7:
                        ids = [v for k, v in fields(e) if k == 2]
                        callstacks[dict(fields(e))[1]] = ids
            elif g == 11:
                ev = v
            elif g == 66:  # a CPU sample: pid, tid, callstack
                d = dict(fields(v))
                samples.append((d[2], d[3], d[4]))
        if ev is None:
            continue
        e = collections.defaultdict(list)
        for g, v in fields(ev):
            e[g].append(v)
        typ, track = e[9][0], e[11][0]
        if typ == 1:  # begin: an API call or GPU operation carries annotations, a range or an
            # OS runtime call none (other than the call's "stack", --osrt-backtrace-threshold)
            stacks[track].append((ts, names[e[10][0]], any(annotation(a, an_names)[0] != 'stack' for a in e[4])))
            begins.append((names[e[10][0]], [annotation(a, an_names) for a in e[4]]))
        elif typ == 2:
            assert stacks[track], 'an end with no open slice on track %d' % track
            t0, name, annotated = stacks[track].pop()
            s = slices[(annotated, name)]
            s[0] += 1
            s[1] += ts - t0
    left = [x for st in stacks.values() for x in st]
    assert not any(annotated for _, _, annotated in left), 'a call or GPU operation left open'
    # per (pid, tid, function): samples with it as the leaf (the callstack's last frame: the
    # outermost comes first), and with it anywhere (once per sample)
    self_, total = collections.Counter(), collections.Counter()
    for pid, tid, cs in samples:
        fns = [fnames[frames[f]] for f in callstacks[cs]]
        self_[(pid, tid, fns[-1])] += 1
        for fn in set(fns):
            total[(pid, tid, fn)] += 1
    return slices, len(left), self_, total, begins


def main():
    gs, trace, out = sys.argv[1:4]
    got, never_ended, self_, total, begins = read(out)
    st = json.loads(subprocess.run([gs, 'stats', '-r', 'cuda_gpu_kern_sum,cuda_gpu_graph_sum,cuda_gpu_mem_time_sum,'
                                    'cuda_api_sum,nvtx_sum,osrt_sum,osrt_stack_sum,cuda_api_stack_sum,cpu_sample_sum', '--format',
                                    'json', trace],
                                   check=True, capture_output=True, text=True).stdout)
    want = collections.defaultdict(lambda: [0, 0])
    for r in st['cuda_gpu_kern_sum']['rows'] + st['cuda_gpu_graph_sum']['rows']:
        want[(True, r['Name'])] = [r['Instances'], r['Total Time (ns)']]
    for r in st['cuda_gpu_mem_time_sum']['rows']:
        want[(True, r['Operation'])] = [r['Count'], r['Total Time (ns)']]
    for r in st['cuda_api_sum']['rows']:
        want[(True, r['Name'])] = [r['Num Calls'], r['Total Time (ns)']]
    for r in st['nvtx_sum']['rows']:  # "domain:name", ranges of every domain and style
        w = want[(False, r['Range'].split(':', 1)[1])]
        w[0] += r['Instances']
        w[1] += r['Total Time (ns)']
    for r in st['osrt_sum']['rows']:  # OS runtime calls: slices without annotations, as ranges
        w = want[(False, r['Name'])]
        w[0] += r['Num Calls']
        w[1] += r['Total Time (ns)']
    # CUPTI's overhead records of threads (gpuscope dump lists them; a .gst trace only): slices
    # on the thread's track, annotated with the API call's correlation id when they have one
    dump = subprocess.run([gs, 'dump', '--format', 'jsonl', trace], capture_output=True, text=True)
    for line in dump.stdout.splitlines() if dump.returncode == 0 else []:
        if '"cuda":"overhead"' in line:
            r = json.loads(line)
            if 'device' not in r:
                w = want[('correlation' in r, r['name'])]
                w[0] += 1
                w[1] += r['dur']
    api = collections.defaultdict(lambda: [0, 0])
    for (annotated, name), v in got.items():  # cuda_api_sum strips the _vNNNN suffix
        k = (annotated, re.sub(r'_v[0-9]+$', '', name) if annotated else name)
        api[k][0] += v[0]
        api[k][1] += v[1]
    checks = 0
    for k in sorted(set(want) | set(api)):
        if want[k] != api[k]:
            print('FAIL %s %r: stats %s, perfetto %s' % ('op' if k[0] else 'range', k[1], want[k], api[k]))
            sys.exit(1)
        checks += 1
    # the OS runtime and CUDA API calls' stacks: per (call, stack) the slices whose "stack"
    # annotation holds it, a function a line (osrt_stack_sum and cuda_api_stack_sum join them by
    # " < ", at most 24)
    stk = collections.Counter()
    for name, ans in begins:
        for k, v in ans:
            if k == 'stack':
                fr = v.split('\n')
                stk[(name, ' < '.join(fr[:24]) + (' < (%d more)' % (len(fr) - 24) if len(fr) > 24 else ''))] += 1
    want = collections.Counter()
    for r in st['osrt_stack_sum']['rows'] + st['cuda_api_stack_sum']['rows']:
        want[(r['Name'], r['Stack'])] += r['Num Calls']
    base = collections.Counter()  # the API's name without its _vNNNN, as the stats name it
    for (n, k), v in stk.items():
        base[(re.sub(r'_v[0-9]+$', '', n), k)] += v
    stk = base
    if want != stk:
        print('FAIL osrt and cuda api stacks: stats %s, perfetto %s' % (sorted(want.items())[:3], sorted(stk.items())[:3]))
        sys.exit(1)
    checks += len(want)
    for r in st['cpu_sample_sum']['rows']:
        k = (r['PID'], r['TID'], r['Function'])
        if (r['Self Samples'], r['Total Samples']) != (self_[k], total[k]):
            print('FAIL samples %r: stats %s %s, perfetto %s %s' % (k, r['Self Samples'],
                  r['Total Samples'], self_[k], total[k]))
            sys.exit(1)
        checks += 1
    print(checks, never_ended)


def kmetrics():
    gs, trace, out = sys.argv[2:5]
    begins = read(out)[4]
    chrome = {}
    if len(sys.argv) > 5:
        for e in json.load(open(sys.argv[5]))['traceEvents']:
            if e.get('cat') == 'kernel':
                keys = list(e['args'])
                chrome[e['args']['correlation']] = [(k, e['args'][k]) for k in
                                                    keys[keys.index('block') + 1:] if k != 'graph id']
    rows = {int(r['CorrId']): r for r in csv.DictReader(io.StringIO(subprocess.run(
        [gs, 'stats', '-r', 'kernel_metrics', '--format', 'csv', trace], check=True,
        capture_output=True, text=True).stdout))}
    labels = ['SM %', 'Memory %', 'DRAM %', 'L1 Hit %', 'L2 Hit %', 'Occupancy %',
              'Ld Sectors/Req', 'St Sectors/Req', 'Tensor %', 'FLOP/Byte', 'GFLOP/s']
    launches = values = bare = 0
    for name, an in begins:
        d = dict(an)
        if 'grid' not in d:  # not a kernel
            continue
        assert len(d) == len(an), '%s: an annotation twice' % name
        r = rows.pop(d['correlation'], None)
        if r is None:
            metric = [k for k in d if k not in ('grid', 'block', 'correlation')]
            assert not metric, '%s (correlation %d) unmeasured but annotated %s' % (
                name, d['correlation'], metric)
            bare += 1
            continue
        assert r['Name'] == name, 'correlation %d: %s in the report, %s in the trace' % (
            d['correlation'], r['Name'], name)
        for k in labels:
            if r[k] == '':
                assert k not in d, '%s %s: none in the report, %r in the trace' % (name, k, d.get(k))
                continue
            decimals = len(r[k].split('.')[1]) if '.' in r[k] else 0
            got = '%.*f' % (decimals, d[k])
            assert got == r[k], '%s %s: %s in the report, %s (%r) in the trace' % (name, k, r[k], got, d[k])
            values += 1
        want = {'bound': r['Bound'], 'bound reason': r['Reason'],
                'gpu__time_duration.sum': int(r['Duration (ns)'])}
        for k, v in want.items():
            assert d[k] == v, '%s %s: %r in the report, %r in the trace' % (name, k, v, d[k])
            values += 1
        if chrome:
            mine = [(k, v) for k, v in an if k not in ('grid', 'block', 'correlation')]
            theirs = chrome[d['correlation']]
            assert [k for k, _ in mine] == [k for k, _ in theirs], '%s: names differ from Chrome\'s' % name
            for (k, v), (_, w) in zip(mine, theirs):
                same = v == w if isinstance(v, str) else abs(v - w) <= 1e-12 * max(abs(v), 1)
                assert same, '%s %s: %r in Chrome, %r in Perfetto' % (name, k, w, v)
                values += 1
        launches += 1
        print(r['CorrId'], name, r['Ld Sectors/Req'] or '-', r['DRAM %'], r['Bound'])
    assert not rows, 'launches in the report without a kernel slice: %s' % sorted(rows)
    print('%d launches, %d values agree; %d kernels without metrics, none annotated' % (
        launches, values, bare))


if __name__ == '__main__':
    kmetrics() if sys.argv[1] == '--kmetrics' else main()
