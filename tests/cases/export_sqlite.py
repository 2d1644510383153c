#!/usr/bin/env python3
"""export_sqlite.py GS TRACE OUT.sqlite: run nsys-style queries on a database written by
gpuscope's SQLite exporter and compare them with `gpuscope stats` on the same trace: the kernel
summary (COUNT and SUM of durations per shortName and per demangledName, names through
StringIds) against cuda_gpu_kern_sum, graph launches (CUPTI_ACTIVITY_KIND_GRAPH_TRACE, per
graphId) against cuda_gpu_graph_sum, and memory operations by size (copies by copyKind joined
to ENUM_CUDA_MEMCPY_OPER, and memsets) against cuda_gpu_mem_size_sum; first, SQLite's own
PRAGMA integrity_check on the file (gpuscope writes the file format itself) and the column
names of every table. Prints the number of checks; exit 1 on the first mismatch."""
import collections, json, re, sqlite3, subprocess, sys

gs, trace, out = sys.argv[1:4]
st = json.loads(subprocess.run([gs, 'stats', '-r',
                                'cuda_gpu_kern_sum,cuda_gpu_graph_sum,cuda_gpu_mem_size_sum,osrt_sum,osrt_stack_sum,cuda_api_stack_sum,'
                                'cpu_sample_sum',
                                '--format', 'json', trace],
                               check=True, capture_output=True, text=True).stdout)
db = sqlite3.connect(out)
checks = 0


def same(what, want, got):
    global checks
    if want != got:
        print('FAIL %s: stats %r, sqlite %r' % (what, want, got))
        sys.exit(1)
    checks += 1


same('integrity_check', [('ok',)], db.execute('PRAGMA integrity_check').fetchall())
cols = {t: [c[1] for c in db.execute('PRAGMA table_info(%s)' % t)] for (t,) in
        db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
same('tables', sorted(['StringIds', 'META_DATA_EXPORT', 'ENUM_CUDA_MEMCPY_OPER', 'ENUM_CUDA_MEM_KIND',
                       'ENUM_NSYS_EVENT_TYPE', 'ENUM_NSYS_EVENT_CLASS',
                       'ENUM_CUDA_KERNEL_LAUNCH_TYPE', 'ENUM_CUPTI_OVERHEAD_TYPE', 'TARGET_INFO_GPU',
                       'ThreadNames', 'PROFILER_OVERHEAD',
                       'CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
                       'CUPTI_ACTIVITY_KIND_MEMSET', 'CUPTI_ACTIVITY_KIND_RUNTIME', 'NVTX_EVENTS',
                       'OSRT_API', 'OSRT_CALLCHAINS', 'COMPOSITE_EVENTS', 'SAMPLING_CALLCHAINS',
                       'CUDA_CALLCHAINS', 'TARGET_INFO_GPU_METRICS', 'GPU_METRICS'] +
                      # as nsys: only where graph launches were recorded as one
                      ['CUPTI_ACTIVITY_KIND_GRAPH_TRACE'] * bool(st['cuda_gpu_graph_sum']['rows'])),
     sorted(cols))
graphs = st['cuda_gpu_graph_sum']['rows']
if graphs:
    same('graph trace columns', 'start end deviceId contextId greenContextId streamId correlationId '
         'globalPid graphId graphExecId', ' '.join(cols['CUPTI_ACTIVITY_KIND_GRAPH_TRACE']))
    same('graph launches per graph',
         sorted((r['Name'], r['Instances'], r['Total Time (ns)']) for r in graphs),
         sorted(('[CUDA graph %d]' % g, n, t) for g, n, t in db.execute(
             'SELECT graphId, COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE '
             'GROUP BY graphId')))
same('kernel columns', 'start end deviceId contextId greenContextId streamId correlationId '
     'globalPid demangledName shortName mangledName launchType cacheConfig registersPerThread '
     'gridX gridY gridZ blockX blockY blockZ staticSharedMemory dynamicSharedMemory '
     'localMemoryPerThread localMemoryTotal gridId sharedMemoryExecuted graphNodeId graphId',
     ' '.join(cols['CUPTI_ACTIVITY_KIND_KERNEL']))
same('overhead columns', 'start end globalTid nameId overheadType', ' '.join(cols['PROFILER_OVERHEAD']))
same('runtime columns', 'start end eventClass globalTid correlationId nameId returnValue callchainId',
     ' '.join(cols['CUPTI_ACTIVITY_KIND_RUNTIME']))

# as nsys's cuda_gpu_kern_sum does it: per name, from the kernel table joined to StringIds
kern = {name: (n, total, lo, hi) for name, n, total, lo, hi in db.execute(
    'SELECT d.value, COUNT(*), SUM(k.end - k.start), MIN(k.end - k.start), MAX(k.end - k.start) '
    'FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS d ON k.demangledName = d.id '
    'GROUP BY k.demangledName')}
rows = st['cuda_gpu_kern_sum']['rows']
same('kernel names', sorted(r['Name'] for r in rows), sorted(kern))
for r in rows:
    same('kernel ' + r['Name'][:60], (r['Instances'], r['Total Time (ns)'], r['Min (ns)'],
                                      r['Max (ns)']), kern[r['Name']])
# per shortName (the base name nsys shows with --base): stats' rows added up by the short name
# the database gives each demangled name
short_of = dict(db.execute(
    'SELECT DISTINCT d.value, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k '
    'JOIN StringIds AS d ON k.demangledName = d.id JOIN StringIds AS s ON k.shortName = s.id'))
want = collections.defaultdict(lambda: [0, 0])
for r in rows:
    w = want[short_of[r['Name']]]
    w[0] += r['Instances']
    w[1] += r['Total Time (ns)']
got = {s: [n, t] for s, n, t in db.execute(
    'SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k '
    'JOIN StringIds AS s ON k.shortName = s.id GROUP BY s.value')}
same('kernels per shortName', dict(want), got)

# memory operations by size: copies per copyKind (ENUM_CUDA_MEMCPY_OPER), memsets
op = {'CUDA_MEMCPY_OPER_' + k.upper(): '[CUDA memcpy %s]' % k for k in
      ('Unknown', 'HtoD', 'DtoH', 'HtoA', 'AtoH', 'AtoA', 'AtoD', 'DtoA', 'DtoD', 'HtoH', 'PtoP')}
mem = {}
for name, n, total, lo, hi in db.execute(
        'SELECT e.name, COUNT(*), SUM(c.bytes), MIN(c.bytes), MAX(c.bytes) '
        'FROM CUPTI_ACTIVITY_KIND_MEMCPY AS c JOIN ENUM_CUDA_MEMCPY_OPER AS e '
        'ON c.copyKind = e.id GROUP BY c.copyKind'):
    mem[op[name]] = (n, round(total / 1e6, 3), round(lo / 1e6, 3), round(hi / 1e6, 3))
for n, total, lo, hi in db.execute('SELECT COUNT(*), SUM(bytes), MIN(bytes), MAX(bytes) '
                                   'FROM CUPTI_ACTIVITY_KIND_MEMSET HAVING COUNT(*) > 0'):
    mem['[CUDA memset]'] = (n, round(total / 1e6, 3), round(lo / 1e6, 3), round(hi / 1e6, 3))
rows = st['cuda_gpu_mem_size_sum']['rows']
same('memory operations', sorted(r['Operation'] for r in rows), sorted(mem))
for r in rows:
    same(r['Operation'], (r['Count'], r['Total (MB)'], r['Min (MB)'], r['Max (MB)']),
         mem[r['Operation']])

# OS runtime calls as nsys's osrt_sum reads them: per name through StringIds
osrt = {name: (n, total, lo, hi) for name, n, total, lo, hi in db.execute(
    'SELECT s.value, COUNT(*), SUM(o.end - o.start), MIN(o.end - o.start), MAX(o.end - o.start) '
    'FROM OSRT_API AS o JOIN StringIds AS s ON o.nameId = s.id WHERE o.eventClass = 27 '
    'GROUP BY s.value')}
rows = st['osrt_sum']['rows']
same('osrt names', sorted(r['Name'] for r in rows), sorted(osrt))
for r in rows:
    same('osrt ' + r['Name'], (r['Num Calls'], r['Total Time (ns)'], r['Min (ns)'], r['Max (ns)']),
         osrt[r['Name']])
# the calls' stacks (--osrt-backtrace-threshold) in OSRT_CALLCHAINS: per name and innermost
# frame (stackDepth 0, osrt_stack_sum's Caller) the calls and their time, and every chain whole
callers = collections.Counter()
for name, caller, n, total in db.execute(
        'SELECT s.value, f.value, COUNT(*), SUM(o.end - o.start) FROM OSRT_API AS o '
        'JOIN StringIds AS s ON o.nameId = s.id '
        'JOIN OSRT_CALLCHAINS AS c ON c.id = o.callchainId AND c.stackDepth = 0 '
        'JOIN StringIds AS f ON c.symbol = f.id GROUP BY s.value, f.value'):
    callers[(name, caller)] = (n, total)
want = collections.defaultdict(lambda: [0, 0])
for r in st['osrt_stack_sum']['rows']:
    w = want[(r['Name'], r['Caller'])]
    w[0] += r['Num Calls']
    w[1] += r['Total Time (ns)']
same('osrt stacks by name and caller', sorted((k, tuple(v)) for k, v in want.items()), sorted(callers.items()))
same('osrt chains whole (depths 0..n-1)', [], db.execute(
    'SELECT id FROM OSRT_CALLCHAINS GROUP BY id HAVING MAX(stackDepth) + 1 != COUNT(*) '
    'OR MIN(stackDepth) != 0').fetchall())
# the CUDA API calls' stacks (--cudabacktrace) in CUDA_CALLCHAINS: per name (the API's, its
# _vNNNN cut) and stack (the symbols from stackDepth 0 out, joined as cuda_api_stack_sum's Stack,
# at most 24) the calls and their time, and every chain whole
chains = collections.defaultdict(list)
for cid, sym in db.execute('SELECT c.id, s.value FROM CUDA_CALLCHAINS AS c JOIN StringIds AS s '
                           'ON c.symbol = s.id ORDER BY c.id, c.stackDepth'):
    chains[cid].append(sym)
got = collections.defaultdict(lambda: [0, 0])
for name, cid, dur in db.execute('SELECT s.value, r.callchainId, r.end - r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r '
                                 'JOIN StringIds AS s ON r.nameId = s.id WHERE r.callchainId IS NOT NULL'):
    fr = chains[cid]
    g = got[(re.sub(r'_v[0-9]+$', '', name), ' < '.join(fr[:24]) + (' < (%d more)' % (len(fr) - 24) if len(fr) > 24 else ''))]
    g[0] += 1
    g[1] += dur
want = collections.defaultdict(lambda: [0, 0])
for r in st['cuda_api_stack_sum']['rows']:
    w = want[(r['Name'], r['Stack'])]
    w[0] += r['Num Calls']
    w[1] += r['Total Time (ns)']
same('cuda api stacks by name and stack', sorted(want.items()), sorted(got.items()))
same('cuda chains whole (depths 0..n-1)', [], db.execute(
    'SELECT id FROM CUDA_CALLCHAINS GROUP BY id HAVING MAX(stackDepth) + 1 != COUNT(*) '
    'OR MIN(stackDepth) != 0').fetchall())
# CPU samples: a function's self samples on a thread are the samples whose leaf frame
# (stackDepth 0) it is, its total those with it anywhere in the stack (once per sample)
gt = lambda p, t: (p << 24) | t
selfs = {(g, name): n for g, name, n in db.execute(
    'SELECT e.globalTid, s.value, SUM(e.cpuCycles) FROM COMPOSITE_EVENTS AS e '
    'JOIN SAMPLING_CALLCHAINS AS c ON c.id = e.id AND c.stackDepth = 0 '
    'JOIN StringIds AS s ON c.symbol = s.id GROUP BY e.globalTid, s.value')}
totals = {(g, name): n for g, name, n in db.execute(
    'SELECT g, v, SUM(w) FROM (SELECT DISTINCT e.id, e.globalTid AS g, s.value AS v, '
    'e.cpuCycles AS w FROM COMPOSITE_EVENTS AS e JOIN SAMPLING_CALLCHAINS AS c ON c.id = e.id '
    'JOIN StringIds AS s ON c.symbol = s.id) GROUP BY g, v')}
for r in st['cpu_sample_sum']['rows']:
    k = (gt(r['PID'], r['TID']), r['Function'])
    same('samples self ' + r['Function'][:40], r['Self Samples'], selfs.get(k, 0))
    same('samples total ' + r['Function'][:40], r['Total Samples'], totals.get(k, 0))
print(checks)
