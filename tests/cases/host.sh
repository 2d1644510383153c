# host.sh: what the host threads did: `--trace osrt` on a program that blocks in known ways
# (a mutex held 40 ms, sleeps of 20 ms, a pipe whose writer waits 30 ms), CPU sampling on a
# program whose two hot functions share the work 70/30 (forked child too), the reports
# (osrt_sum, cpu_sample_sum), info, dump and the exports (folded, pprof, chrome).
echo "host:"
cd "$T" || exit 1

osrt_field() { # csv NAME COLUMN
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline='')):
    if r['Name'] == sys.argv[2]:
        print(r[sys.argv[3]]); break
PY
}

# ---- OS runtime ----
$GS profile -o hs_blk -t osrt --sample none "$P/host_block" 2>hs_blk.err; eq "osrt: program's exit status 7 kept" 7 $?
$GS stats -r osrt_sum --format csv -o hs_blk.csv hs_blk.gst 2>/dev/null
eq "osrt: csv header (nsys's columns)" 'Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name' "$(head -1 hs_blk.csv)"
eq "osrt: 3 blocked mutex locks" 3 "$(osrt_field hs_blk.csv pthread_mutex_lock 'Num Calls')"
between "osrt: mutex wait min ~40 ms" 35000000 80000000 "$(osrt_field hs_blk.csv pthread_mutex_lock 'Min (ns)')"
between "osrt: mutex wait max ~40 ms" 39000000 80000000 "$(osrt_field hs_blk.csv pthread_mutex_lock 'Max (ns)')"
eq "osrt: 5 usleep calls" 5 "$(osrt_field hs_blk.csv usleep 'Num Calls')"
between "osrt: usleep median ~20 ms" 19900000 40000000 "$(osrt_field hs_blk.csv usleep 'Med (ns)')"
eq "osrt: 5 nanosleep calls (3 x 40 ms, 2 x 30 ms)" 5 "$(osrt_field hs_blk.csv nanosleep 'Num Calls')"
between "osrt: nanosleep total ~180 ms" 179000000 300000000 "$(osrt_field hs_blk.csv nanosleep 'Total Time (ns)')"
eq "osrt: 2 blocking pipe reads" 2 "$(osrt_field hs_blk.csv read 'Num Calls')"
between "osrt: pipe read min ~30 ms" 29000000 60000000 "$(osrt_field hs_blk.csv read 'Min (ns)')"
first=$(sed -n 2p hs_blk.csv | awk -F, '{print $NF}')
eq "osrt: rows by total time, nanosleep first" nanosleep "$first"
info=$($GS info hs_blk.gst)
has "osrt: info counts the calls" "os runtime calls" "$info"
has "osrt: info shows the threshold" "(at least 1000 ns)" "$info"
hasnt "osrt: no samples with --sample none" "cpu samples" "$info"
n=$($GS dump --format jsonl hs_blk.gst | grep -c '"event":"osrt"')
calls=$(python3 -c 'import csv,sys; print(sum(int(r["Num Calls"]) for r in csv.DictReader(open(sys.argv[1]))))' hs_blk.csv)
eq "osrt: dump shows every call" "$calls" "$n"
$GS export -t chrome -o hs_blk.json hs_blk.gst 2>/dev/null
eq "osrt: chrome export, the mutex waits on their threads" 3 \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for e in d["traceEvents"] if e.get("cat")=="os_runtime" and e["name"]=="pthread_mutex_lock" and e["ph"]=="X" and e["dur"]>=35000))' hs_blk.json)"

# osrt's backtraces: the calls of at least 80 us (the default, as nsys) carry the stack of the
# program's call, grouped by stack in osrt_stack_sum
stack_field() { # csv NAME CALLER COLUMN: the row of the call made from that caller
	python3 - "$@" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline='')):
    if r['Name'] == sys.argv[2] and r['Caller'] == sys.argv[3]:
        print(r[sys.argv[4]]); break
PY
}
$GS stats -r osrt_stack_sum --format csv -o hs_blks.csv hs_blk.gst 2>/dev/null
eq "osrt stacks: csv header" 'Time (%),Total Time (ns),Num Calls,Avg (ns),Max (ns),Name,Caller,Stack' "$(head -1 hs_blks.csv)"
eq "osrt stacks: the 3 mutex waits, called from locker" 3 "$(stack_field hs_blks.csv pthread_mutex_lock locker 'Num Calls')"
eq "osrt stacks: the 5 usleeps, called from main" 5 "$(stack_field hs_blks.csv usleep main 'Num Calls')"
eq "osrt stacks: the 2 pipe reads, called from main" 2 "$(stack_field hs_blks.csv read main 'Num Calls')"
# nanosleep from sleep_ms, inlined or not: 3 x 40 ms on main, 2 x 30 ms on the writer thread
eq "osrt stacks: nanosleep, 3 on main's stack and 2 on writer's" "3 2" "$(python3 - hs_blks.csv <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline='')) if r['Name'] == 'nanosleep']
on = lambda f: sum(int(r['Num Calls']) for r in rows if f in r['Stack'].split(' < '))
print(on('main'), on('writer'))
PY
)"
has "osrt stacks: main's stack reaches __libc_start_main" "main < " "$(stack_field hs_blks.csv usleep main Stack)"
between "osrt stacks: mutex waits' time ~120 ms" 105000000 300000000 "$(stack_field hs_blks.csv pthread_mutex_lock locker 'Total Time (ns)')"
# sem_wait's waits (a few us to 1 ms, main thread waking the locker) may pass 80 us; every
# listed call is one of osrt_sum's, none shorter than the threshold
python3 - hs_blk.csv hs_blks.csv >hs_blks.chk <<'PY'
import csv, sys
calls = {r['Name']: int(r['Num Calls']) for r in csv.DictReader(open(sys.argv[1], newline=''))}
st = {}
for r in csv.DictReader(open(sys.argv[2], newline='')):
    st[r['Name']] = st.get(r['Name'], 0) + int(r['Num Calls'])
    if int(r['Max (ns)']) < 80000 or float(r['Avg (ns)']) < 80000:
        print('short', r['Name'])
print(all(st[k] <= calls.get(k, 0) for k in st))
PY
eq "osrt stacks: each call's stack is one of its calls, none under 80 us" True "$(cat hs_blks.chk)"
has "osrt stacks: info counts them" "with call stacks" "$($GS info hs_blk.gst)"
has "osrt stacks: info shows their threshold" "(at least 80000 ns)" "$($GS info hs_blk.gst)"
eq "osrt stacks: dump shows them (15 calls of 20 ms or more)" 15 "$($GS dump --format jsonl hs_blk.gst | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin for e in [json.loads(l)] if e.get("event") == "osrt_stack" and e["name"] != "sem_wait" and e["name"] != "pthread_join" and e["frames"]))')"
# --osrt-backtrace-threshold 35ms: the 40 ms waits only (a 30 ms one stretched past 35 ms
# on a loaded machine is kept, as it should be); none: no stacks, the calls unchanged
$GS profile -o hs_bt35 -t osrt --osrt-backtrace-threshold 35ms --sample none "$P/host_block" 2>/dev/null; eq "osrt stacks 35 ms: exit 7" 7 $?
$GS stats -r osrt_stack_sum --format csv -o hs_bt35.csv hs_bt35.gst 2>/dev/null
eq "osrt stacks 35 ms: the 40 ms mutex waits" 3 "$(stack_field hs_bt35.csv pthread_mutex_lock locker 'Num Calls')"
eq "osrt stacks 35 ms: no usleep (20 ms)" "" "$(stack_field hs_bt35.csv usleep main 'Num Calls')"
eq "osrt stacks 35 ms: every row's calls 35 ms or longer" True "$(python3 -c '
import csv, sys
print(all(float(r["Avg (ns)"]) >= 35e6 for r in csv.DictReader(open(sys.argv[1], newline=""))))' hs_bt35.csv)"
$GS profile -o hs_btn -t osrt --osrt-backtrace-threshold none --sample none "$P/host_block" 2>/dev/null; eq "osrt stacks none: exit 7" 7 $?
eq "osrt stacks none: no stack chunk" 0 "$($GS dump hs_btn.gst | grep -c 'chunk osrt_stacks')"
$GS stats -r osrt_sum --format csv -o hs_btn.csv hs_btn.gst 2>/dev/null
eq "osrt stacks none: the calls still recorded" "3 5 2" \
	"$(osrt_field hs_btn.csv pthread_mutex_lock 'Num Calls') $(osrt_field hs_btn.csv usleep 'Num Calls') $(osrt_field hs_btn.csv read 'Num Calls')"
hasnt "osrt stacks none: info says nothing of them" "with call stacks" "$($GS info hs_btn.gst)"
$GS profile -o hs_bt0 -t osrt --osrt-backtrace-threshold 0 --sample none "$P/host_block" 2>/dev/null; eq "osrt stacks 0: exit 7" 7 $?
eq "osrt stacks 0: every recorded call has its stack" "$($GS stats -r osrt_sum --format csv hs_bt0.gst | python3 -c 'import csv,sys; print(sum(int(r["Num Calls"]) for r in csv.DictReader(sys.stdin)))')" \
	"$($GS stats -r osrt_stack_sum --format csv hs_bt0.gst | python3 -c 'import csv,sys; print(sum(int(r["Num Calls"]) for r in csv.DictReader(sys.stdin)))')"
$GS profile -o hs_bad -t osrt --osrt-backtrace-threshold soon true 2>/dev/null; eq "osrt stacks: bad threshold is a usage error" 2 $?
# every call walked (thresholds 0) while the sampler (5 kHz) interrupts the same thread: no hang,
# each of the 1,000,000 calls with its stack (a sample that comes during such a walk is skipped)
timeout 120 $GS profile -o hs_btsmp -t osrt --osrt-threshold 0 --osrt-backtrace-threshold 0 --sampling-frequency 5000 \
	"$P/osrt_calls" 200000 5 >/dev/null 2>hs_btsmp.err
eq "osrt stacks under sampling: exit 0, no hang" 0 $?
info=$($GS info hs_btsmp.gst)
has "osrt stacks under sampling: every call recorded" "os runtime calls          1,000,000" "$info"
has "osrt stacks under sampling: every call with its stack" "with call stacks        1,000,000" "$info"
between "osrt stacks under sampling: samples taken" 50 100000 "$(printf '%s\n' "$info" | awk '/cpu samples/ { gsub(",", "", $3); print $3 }')"
eq "osrt stacks under sampling: the reads (the calls clocked), all from main" "read main 1000000" \
	"$($GS stats -r osrt_stack_sum --format csv hs_btsmp.gst 2>/dev/null | python3 -c '
import csv, sys
print(" ".join("%s %s %s" % (r["Name"], r["Caller"], r["Num Calls"]) for r in csv.DictReader(sys.stdin)))')"

# the threshold: 25 ms leaves the 20 ms sleeps out, keeps the 30 and 40 ms waits
$GS profile -o hs_blk25 -t osrt --osrt-threshold 25ms --sample none "$P/host_block" 2>/dev/null; eq "osrt threshold: exit 7" 7 $?
$GS stats -r osrt_sum --format csv -o hs_blk25.csv hs_blk25.gst 2>/dev/null
# a loaded machine can stretch a 20 ms sleep past 25 ms: such a one is kept, as it should be
n=$(osrt_field hs_blk25.csv usleep 'Num Calls')
between "osrt threshold: the 20 ms usleeps left out (at most 2 of 5 kept, stretched)" 0 2 "${n:-0}"
min=$(osrt_field hs_blk25.csv usleep 'Min (ns)')
between "osrt threshold: a usleep kept took 25 ms or more" 25000000 100000000000 "${min:-25000000}"
eq "osrt threshold: 30 and 40 ms sleeps kept" 5 "$(osrt_field hs_blk25.csv nanosleep 'Num Calls')"
eq "osrt threshold: mutex waits kept" 3 "$(osrt_field hs_blk25.csv pthread_mutex_lock 'Num Calls')"
has "osrt threshold: recorded in the trace" "(at least 25000000 ns)" "$($GS info hs_blk25.gst)"
# The threshold is compared in clock ticks, at the TSC rate `gpuscope profile` measured once
# (GPUSCOPE_TSC_HZ): given a rate a thousandth of the true one, 25 ms is a few microseconds' worth
# of ticks and the 20 ms sleeps are kept too
if [ "$($GS info hs_blk25.gst | sed -n 's/.*(clock: \([a-z]*\)).*/\1/p')" = tsc ]; then
	GPUSCOPE_TSC_HZ=$((1000000 + RANDOM)) $GS profile -o hs_blkhz -t osrt --osrt-threshold 25ms --sample none "$P/host_block" 2>/dev/null
	$GS stats -r osrt_sum --format csv -o hs_blkhz.csv hs_blkhz.gst 2>/dev/null
	eq "osrt threshold: in ticks at the session's TSC rate (a rate too low keeps the 20 ms sleeps)" 5 "$(osrt_field hs_blkhz.csv usleep 'Num Calls')"
fi
$GS profile -o hs_bad -t osrt --osrt-threshold x true 2>/dev/null; eq "osrt threshold: bad value is a usage error" 2 $?
# inside a capture range only: nvtx_sleep's two outer_50ms ranges hold 3 sleeps each (20, 20
# and 10 ms); its 8 sleeps before them are not recorded, nor any CPU sample
$GS profile -o hs_cap -t nvtx,osrt -c nvtx:outer_50ms "$P/nvtx_sleep" 2>/dev/null; eq "osrt capture range: exit 0" 0 $?
$GS stats -r osrt_sum --format csv -o hs_cap.csv hs_cap.gst 2>/dev/null
eq "osrt capture range: the 6 sleeps inside outer_50ms, not the 8 before" 6 "$(osrt_field hs_cap.csv clock_nanosleep 'Num Calls')"
eq "osrt capture range: every recorded call inside an outer_50ms range" 6 "$($GS dump --format jsonl hs_cap.gst | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
outer = [(e["start"], e["start"] + e["dur"]) for e in ev if e.get("event") == "range" and e.get("name") == "outer_50ms"]
print(sum(1 for e in ev if e.get("event") == "osrt" and any(a <= e["start"] and e["start"] + e["dur"] <= b for a, b in outer)))')"
$GS profile -o hs_nos --sample none "$P/host_block" 2>/dev/null; eq "no osrt: exit 7" 7 $?
eq "no osrt: no calls recorded" 0 "$($GS dump --format jsonl hs_nos.gst | grep -c '"event":"osrt"')"
# the other waits (host_waits: its main thread blocks ~30 ms once in each), every call kept
# (--osrt-threshold 0): each wait on the main thread once, lasting 10 ms to 2 s; fcntl's
# commands that do not wait (F_GETFL, F_SETFL, F_SETFD: 5 calls) and syscall(2)'s other
# numbers are not clocked at all
mkdir -p hs_waits.d
$GS profile -o hs_waits -t osrt --osrt-threshold 0 --sample none "$P/host_waits" hs_waits.d 2>hs_waits.err
eq "osrt waits: exit 3 kept" 3 $?
$GS dump --format jsonl hs_waits.gst >hs_waits.jsonl
waits="sem_clockwait pthread_cond_clockwait pthread_mutex_clocklock pthread_rwlock_clockrdlock
pthread_rwlock_clockwrlock pthread_timedjoin_np pthread_clockjoin_np pthread_barrier_wait
epoll_pwait2 sigwait sigwaitinfo sigtimedwait sigsuspend pause flock lockf lockf64 fcntl fcntl64
fopen fopen64 fread fwrite fclose futex"
grep -q "futex_waitv: ENOSYS" hs_waits.err || waits="$waits futex_waitv"
eq "osrt waits: each call once on the main thread, 10 ms to 2 s" "$(echo $waits | tr ' ' '\n' | sed 's/$/ 1/' | tr '\n' ' ')" \
	"$(python3 - hs_waits.jsonl $waits <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
os = [e for e in ev if e.get("event") == "osrt"]
main = min(os, key=lambda e: e["start"])["pid"]  # the children (lockf) start later
n = {w: 0 for w in sys.argv[2:]}
for e in ev:
    if e.get("event") == "osrt" and e["tid"] == main and e["name"] in n and 10e6 <= e["dur"] <= 2e9:
        n[e["name"]] += 1
print(" ".join("%s %d" % (w, n[w]) for w in sys.argv[2:]), end=" ")
PY
)"
eq "osrt waits: fcntl recorded only for its one F_OFD_SETLKW, fcntl64 for its F_SETLKW" "1 1" \
	"$(grep '"event":"osrt"' hs_waits.jsonl | grep -c '"name":"fcntl"') $(grep '"event":"osrt"' hs_waits.jsonl | grep -c '"name":"fcntl64"')"
eq "osrt waits: syscall(2) recorded only for its one FUTEX_WAIT (not gettid, not the FUTEX_WAKE)" 1 \
	"$(grep '"event":"osrt"' hs_waits.jsonl | grep -c '"name":"futex"')"
# the C++ standard library's timed waits (host_cxxwaits): condition_variable::wait_for,
# timed_mutex::try_lock_for, shared_timed_mutex::try_lock_shared_for, atomic<int>::wait, each
# ~30 ms once on the main thread (at least 10 ms of it in the call, whatever the load)
$GS profile -o hs_cxx -t osrt --sample none "$P/host_cxxwaits" 2>/dev/null
eq "osrt C++ waits: exit 4 kept" 4 $?
eq "osrt C++ waits: each on the main thread, 10 ms to 2 s" \
	"pthread_cond_clockwait 1 pthread_mutex_clocklock 1 pthread_rwlock_clockrdlock 1 futex 1" \
	"$($GS dump --format jsonl hs_cxx.gst | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
w = ["pthread_cond_clockwait", "pthread_mutex_clocklock", "pthread_rwlock_clockrdlock", "futex"]
n = {x: 0 for x in w}
for e in ev:
    if e.get("event") == "osrt" and e["tid"] == e["pid"] and e["name"] in n and 10e6 <= e["dur"] <= 2e9:
        n[e["name"]] += 1
print(" ".join("%s %d" % (x, n[x]) for x in w))')"
# Python's waits with a timeout (CPython 3.11+: sem_clockwait where glibc has it, else
# sem_timedwait): queue.get on an empty queue that a thread fills every 30 ms, 4 times
cat >hs_qwait.py <<'PY'
import queue, threading, time
q = queue.Queue()
def put():
    for i in range(4):
        time.sleep(0.03)
        q.put(i)
threading.Thread(target=put).start()
print(sum(q.get(timeout=10) for _ in range(4)))
PY
eq "osrt, Python queue.get(timeout=): program's output kept" 6 "$($GS profile -o hs_qwait -t osrt --sample none python3 hs_qwait.py 2>/dev/null)"
eq "osrt, Python queue.get(timeout=): 4 waits of 10 ms or more on the main thread" 4 \
	"$($GS dump --format jsonl hs_qwait.gst | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
print(sum(1 for e in ev if e.get("event") == "osrt" and e["tid"] == e["pid"]
          and e["name"] in ("sem_clockwait", "sem_timedwait") and e["dur"] >= 10e6))')"

# ---- CPU sampling ----
$GS profile -o hs_cpu -t nvtx "$P/host_cpu" 12 2>hs_cpu.err; eq "sample: exit 0" 0 $?
$GS stats -r cpu_sample_sum --format csv -o hs_cpu.csv hs_cpu.gst 2>/dev/null
eq "sample: csv header" 'Self (%),Self Samples,Total (%),Total Samples,Self Time (ns),PID,TID,Thread,Function,Module' "$(head -1 hs_cpu.csv)"
eq "sample: hot_seventy tops the table" hot_seventy "$(sed -n 2p hs_cpu.csv | cut -d, -f9)"
eq "sample: hot_thirty second" hot_thirty "$(sed -n 3p hs_cpu.csv | cut -d, -f9)"
between "sample: hot_seventy ~70% self" 60 80 "$(sed -n 2p hs_cpu.csv | cut -d, -f1)"
between "sample: hot_thirty ~30% self" 20 40 "$(sed -n 3p hs_cpu.csv | cut -d, -f1)"
has "sample: module is the program" ",hot_seventy,host_cpu" "$(sed -n 2p hs_cpu.csv)"
# nearly every stack: a sample may land in start-up or exit code, outside warm_path
between "sample: warm_path on (nearly) every stack (>= 97% total)" 97 100 "$(grep ',warm_path,' hs_cpu.csv | cut -d, -f3)"
total=$(grep ',main,' hs_cpu.csv | cut -d, -f4)
between "sample: samples x period ~ the CPU time (>= 100 ms)" 100 100000 "$total"
info=$($GS info hs_cpu.gst)
has "sample: info counts the samples" "cpu samples" "$info"
has "sample: info shows the frequency" "1000 Hz of CPU time" "$info"

# folded stacks: root first, the thread's name, the two hot paths
$GS export -t folded -o hs_cpu.folded hs_cpu.gst 2>/dev/null; eq "folded: export ok" 0 $?
has "folded: main -> warm_path -> hot_seventy" "main;warm_path;hot_seventy " "$(cat hs_cpu.folded)"
has "folded: starts with the thread name" "host_cpu;" "$(head -1 hs_cpu.folded)"
r=$(awk '/;hot_seventy [0-9]+$/ {s += $NF} /;hot_thirty [0-9]+$/ {t += $NF} END {if (s + t) printf "%.2f", s / (s + t)}' hs_cpu.folded)
between "folded: 70/30 split" 0.60 0.80 "$r"

# pprof: gzipped profile.proto, decoded by hand (wire format) in the test
$GS export -t pprof -o hs_cpu.pb.gz hs_cpu.gst 2>/dev/null; eq "pprof: export ok" 0 $?
out=$(python3 - hs_cpu.pb.gz <<'PY'
import gzip, sys
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i); f, w = k >> 3, k & 7
        if w == 0: v, i = varint(b, i)
        elif w == 2: n, i = varint(b, i); v = b[i:i + n]; i += n
        else: raise SystemExit("wire type %d" % w)
        out.append((f, v))
    return out
def packed(b):
    i, r = 0, []
    while i < len(b): v, i = varint(b, i); r.append(v)
    return r
p = fields(gzip.open(sys.argv[1]).read())
strs = [v.decode() for f, v in p if f == 6]
assert strs[0] == ""
types = [(strs[dict(fields(v))[1]], strs[dict(fields(v))[2]]) for f, v in p if f == 1]
assert types == [("samples", "count"), ("cpu", "nanoseconds")], types
fn = {d[1]: strs[d[2]] for d in (dict(fields(v)) for f, v in p if f == 5)}
loc = {}
for f, v in p:
    if f == 4:
        d = fields(v); lid = dict(d)[1]; line = dict(fields(dict(d)[4])); loc[lid] = fn[line[1]]
tot = {}
for f, v in p:
    if f == 2:
        d = fields(v); ids = packed(dict(d)[1]); vals = packed(dict(d)[2])
        assert all(i in loc for i in ids)
        tot[loc[ids[0]]] = tot.get(loc[ids[0]], 0) + vals[0]
period = dict(p)[12]
s, t = tot.get("hot_seventy", 0), tot.get("hot_thirty", 0)
print(period, "%.2f" % (s / (s + t)), "main" in fn.values())
PY
)
eq "pprof: period 1 ms, main among the functions" "1000000 True" "$(echo "$out" | awk '{print $1, $3}')"
between "pprof: 70/30 split by leaf" 0.60 0.80 "$(echo "$out" | awk '{print $2}')"

# a forked child is sampled too, and keeps its own process
$GS profile -o hs_fork -t nvtx "$P/host_cpu" 8 fork 2>/dev/null; eq "sample fork: exit 5 kept" 5 $?
$GS stats -r cpu_sample_sum --format csv -o hs_fork.csv hs_fork.gst 2>/dev/null
eq "sample fork: hot_seventy in both processes" 2 "$(grep ',hot_seventy,' hs_fork.csv | cut -d, -f6 | sort -u | wc -l)"

# jit_full FOLDED [recursion]: the % of the samples (of those in the recursion, with
# "recursion") whose stack has all 31 recurse frames and main
jit_full() {
	python3 - "$@" <<'PY'
import sys
tot = full = 0
for l in open(sys.argv[1]):
    st, c = l.rsplit(" ", 1)
    fr = st.split(";")
    if len(sys.argv) > 2 and "recurse" not in fr:
        continue  # elsewhere (in dlopen, loading libraries)
    tot += int(c)
    full += int(c) if fr.count("recurse") == 31 and "main" in fr else 0
print(round(100 * full / tot) if tot else 0)
PY
}
# JIT frames (tests/programs/host_jit.c: 30 calls through a trampoline in anonymous memory, no
# unwind information, like CPython's perf trampolines): every stack reaches main through them;
# the program's own sigprocmask calls work (it exits 3 if not)
$GS profile -o hs_jit -t nvtx "$P/host_jit" 30 >/dev/null 2>&1; eq "sample jit: exit 0 (the program's sigprocmask works)" 0 $?
$GS export -t folded -o hs_jit.folded hs_jit.gst 2>/dev/null
if [ "$(uname -m)" = x86_64 ]; then
	between "sample jit: the samples' stacks go through the 30 JIT frames to main (31 recurse), %" 95 100 "$(jit_full hs_jit.folded)"
fi
# GPUSCOPE_DEBUG=1: at exit the collector says what its walks cost, one per sample recorded
GPUSCOPE_DEBUG=1 $GS profile -o hs_jitd -t nvtx "$P/host_jit" 30 2>hs_jitd.err >/dev/null
eq "sample jit, debug: exit 0" 0 $?
walks=$(sed -n 's/.*sampling: \([0-9]*\) stacks walked ([0-9]* by gpuscope.s walk, [0-9]* rules worked out, [0-9]* given to libunwind; \([0-9]*\) by unw_step), mean \([0-9.]*\) us, max \([0-9.]*\) us, \([0-9]*\) over 50 us, [0-9.]* frames, \([0-9]*\) page faults (\([0-9]*\) major), \([0-9]*\) object look-ups (\([0-9]*\) from the collector.s list), [0-9.]* us in look-ups per walk$/\1 \2 \3 \4 \5 \6 \7 \8 \9/p' hs_jitd.err)
ns=$($GS info hs_jitd.gst | sed -n 's/^  cpu samples *\([0-9,]*\) .*/\1/p' | tr -d ,)
between "sample jit, debug: stacks walked = samples recorded ($ns; a sample taken after the figures were printed, at exit, aside)" \
	$((ns - 2)) "$ns" "${walks%% *}"
between "sample jit, debug: mean walk, us" 0.01 1000 "$(echo "$walks" | cut -d' ' -f3)"
# gpuscope's own walk of each sample's stack (cfi.c, from the unwind tables) against
# libunwind's, stack by stack (GPUSCOPE_UNWIND_CHECK=1): through the 30 JIT frames (stepped by
# their frame pointer), through a library of 4000 functions calling each other at random (a
# rule worked out for most addresses), and in the Python interpreter
uwcheck_run() { # NAME LABEL PROGRAM ARGS...
	local name=$1 label=$2
	shift 2
	GPUSCOPE_DEBUG=1 GPUSCOPE_UNWIND_CHECK=1 $GS profile -o "$name" -t nvtx "$@" 2>"$name.err" >/dev/null
	eq "unwind check, $label: exit 0" 0 $?
	uwcheck_judge "unwind check, $label" "$name.err"
}
uwcheck_run hs_uc_jit "30 JIT frames" "$P/host_jit" 30
uwcheck_run hs_uc_wide "4000 functions at random" "$P/host_forkwalk" "$P/libhost_wide.so" 300
# realigned frames (GCC's DRAP: the CFA read from the frame, RBP's copy by an expression; the
# gcc build has them, `readelf --debug-dump=frames` shows "DW_OP_deref"), and the stacks
# through them reach main
uwcheck_run hs_uc_drap "realigned frames" "$P/host_drap" 10
# An address in an object loaded after the walks' table was made (or before there is one) is
# looked up in the loader's list by gpuscope's walk itself (gs_cfi_find): a library loaded and
# run at once, here with no table ever (GPUSCOPE_UNWIND_WARM=0), every stack by gpuscope's walk
# (before: every one given to libunwind), each as libunwind makes it
GPUSCOPE_UNWIND_WARM=0 uwcheck_run hs_uc_late "a library loaded since the table, no table" "$P/host_cpu" 1 dlrun "$P/libhost_hot.so"
# (a sample that lands in the dynamic loader at a frame whose rule gpuscope's walk cannot
# describe, as dlopen runs, goes to libunwind: seen once in about 60 samples on the GPU
# machine's host, at ld-linux-x86-64.so.2+0x1537d; those are not what this checks)
read -r walks ours _ <<<"$(uwcheck hs_uc_late.err)"
since=$(sed -n 's/.* \([0-9]*\) at an address in an object loaded since.*/\1/p' hs_uc_late.err | tail -1)
eq "unwind check, a library loaded since the table: none given to libunwind for it" 0 "${since:-x}"
between "unwind check, a library loaded since the table: every stack but one at most by gpuscope's walk (of ${walks:-?})" \
	$((${walks:-2} - 1)) "${walks:-0}" "${ours:-0}"
$GS export -t folded -o hs_uc_drap.folded hs_uc_drap.gst 2>/dev/null
between "unwind check, realigned frames: samples in leaf() under realigned() under main" 10 100000 \
	"$(awk '/;main;outer;realigned;leaf / {n += $NF} END {print n + 0}' hs_uc_drap.folded)"
cat >hs_uc.py <<'PY'
import json, time
def leaf(n):
    return sorted(json.dumps({"k%d" % i: [i, str(i)] for i in range(n)}))
def mid(n):
    return [len(leaf(n)) for _ in range(3)]
t0 = time.time()
while time.time() - t0 < 1.0:
    mid(200)
PY
uwcheck_run hs_uc_py "python3" python3 hs_uc.py
# the main thread's stack, worked out from the collector's first read of /proc/self/maps as
# glibc's pthread_getattr_np does (which would read it again): its walks as libunwind's; and a
# fork child's thread, which keeps the bounds of the thread that forked (the child leaves by
# _exit, without the debug figures): its samples reach main as the parent's do
GPUSCOPE_DEBUG=1 GPUSCOPE_UNWIND_CHECK=1 $GS profile -o hs_uc_fork -t nvtx "$P/host_cpu" 4 fork 2>hs_uc_fork.err >/dev/null
eq "unwind check, main thread (fork): exit 5 kept" 5 $?
uwcheck_judge "unwind check, main thread (fork)" hs_uc_fork.err
$GS stats -r cpu_sample_sum --format csv -o hs_uc_fork.csv hs_uc_fork.gst 2>/dev/null
eq "unwind check, fork child: hot_seventy sampled in both processes" 2 "$(grep ',hot_seventy,' hs_uc_fork.csv | cut -d, -f6 | sort -u | wc -l)"
$GS export -t folded -o hs_uc_fork.folded hs_uc_fork.gst 2>/dev/null
# (the stacks walked: a sample that could not be walked, the loader's lock held by another
# thread, keeps hot_seventy alone under [stack not walked]; seen in 1 run of 15)
eq "unwind check, fork child: every hot_seventy stack, both processes, through main" 0 \
	"$(grep 'hot_seventy' hs_uc_fork.folded | grep -vF '[stack not walked]' | grep -vc ';main;')"
# GPUSCOPE_UNWINDER=libunwind: every stack by libunwind
GPUSCOPE_UNWINDER=libunwind GPUSCOPE_DEBUG=1 $GS profile -o hs_uc_lu -t nvtx "$P/host_jit" 10 2>hs_uc_lu.err >/dev/null
read -r walks ours _ <<<"$(uwcheck hs_uc_lu.err)"
between "GPUSCOPE_UNWINDER=libunwind: stacks walked" 1 100000 "${walks:-0}"
eq "GPUSCOPE_UNWINDER=libunwind: none by gpuscope's walk" 0 "${ours:-x}"
# Libraries with thread-local storage loaded while the main thread's samples walk its stack
# inside malloc (host_tlsload, 40 copies of libhost_tls.so): a walk that reached a dlopen'ed
# library's thread-local storage in the signal handler (libunwind's unw_backtrace, the walk
# before this one) takes malloc's lock when glibc grows the thread's TLS vector, a deadlock: the
# previous build hung in 3 of 5 runs. Each walk, 3 runs each: every run ends.
mkdir -p hs_tls
for i in $(seq 40); do cp "$P/libhost_tls.so" "hs_tls/libtls$i.so"; done
for u in gpuscope libunwind; do
	ok=0
	for _ in 1 2 3; do
		GPUSCOPE_UNWINDER=$u timeout 30 $GS profile -f -o hs_tls -t nvtx "$P/host_tlsload" hs_tls/*.so >hs_tls.out 2>/dev/null &&
			[ "$(cat hs_tls.out)" = "loaded: 40" ] && ok=$((ok + 1))
		pkill -KILL -f "$P/host_tlsload" 2>/dev/null
	done
	eq "TLS libraries loaded during walks (GPUSCOPE_UNWINDER=$u): runs that ended" 3 "$ok"
done
# At exit, while a library's destructor runs (host_exitinit: 400 ms, linked with the program),
# the loader has marked that library finalized: the unwind-table thread, whose first look at
# the loaded objects falls in that time, once held each object open with dlopen, which ran such
# a library's constructor a second time (3 of 3 runs). It reads them under the loader's lock
# now: the constructor runs once, every run.
for i in 1 2 3; do
	out=$($GS profile -f -o hs_exit "$P/host_exitinit" 2>/dev/null)
	rc=$?
	eq "a library's constructor runs once when the program exits during the unwind thread's look (run $i)" \
		"constructor|loaded|0" "$(printf '%s\n' "$out" | paste -sd'|')|$rc"
done
# The descriptors a program finds open and its first open's number are those it has without
# gpuscope: libunwind's pipe (made at the sampler's first walk) took 3 and 4 before.
"$P/host_fds" </dev/null >hs_fds.ref 2>/dev/null
$GS profile -o hs_fds "$P/host_fds" </dev/null >hs_fds.out 2>/dev/null
eq "descriptors: the program's first open and the ones it finds, as without gpuscope" "$(cat hs_fds.ref)" "$(cat hs_fds.out)"
GPUSCOPE_UNWINDER=libunwind $GS profile -o hs_fds_lu "$P/host_fds" </dev/null >hs_fds_lu.out 2>/dev/null
eq "descriptors: the same with libunwind's walk" "$(cat hs_fds.ref)" "$(cat hs_fds_lu.out)"
# A CPU sample that comes while the collector gives a thread its slot in the ring waits and is
# written afterwards: one written between the two (the thread's generation current, its slot not
# yet set) was lost as thread_limit (seen once in CI, in the forks case of profile.sh, the
# parent's first record being its first NVTX call). libhost_slowname.so holds the collector
# there: it spins 30 ms of CPU in the process's first PR_GET_NAME, which the slot's making
# calls; nvtx_loop's first record is its first NVTX call. Before the fix: thread_limit 6 to 8.
for i in 1 2; do
	# (the sanitizer build's CLI starts with a library preloaded before its runtime)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD="$P/libhost_slowname.so" \
		$GS profile -f -o hs_slot "$P/nvtx_loop" 3 >/dev/null 2>&1
	info=$($GS info hs_slot.gst)
	eq "a sample while a thread gets its slot: nothing lost but samples skipped, the 3 ranges (run $i)" \
		"lost: sample_skipped or none|ranges: 3" \
		"lost: $(sed -n 's/^lost records: //p' <<<"$info" | sed -E 's/^(none|sample_skipped [0-9]+)$/sample_skipped or none/')|ranges: $(awk '/nvtx ranges \(push\/pop\)/ {print $NF}' <<<"$info")"
	between "a sample while a thread gets its slot: samples written (run $i)" 1 1000 \
		"$(awk '/^  cpu samples/ {print $3}' <<<"$info")"
done
# A program that uses SIGPROF itself (host_sigprof; the sampler's signal too): what it sees and
# how it ends are the same under gpuscope as without it (the count of its own 100 Hz profiling
# ticks apart, which is checked for range: 400 ms of CPU). Before sigchain.c the program saw a
# foreign handler at start, its handler got the sampler's timer signals, a SIGPROF left at the
# default did not end it, and an exec did not keep it ignored.
for m in handler default ignore oneshot mask; do
	# (through sh, whose stderr takes the shell's "Profiling timer expired")
	rc_ref=$(sh -c '"$1" "$2" >"$3" 2>/dev/null; echo $?' sh "$P/host_sigprof" $m hs_sp_$m.ref 2>/dev/null)
	$GS profile -f -o hs_sp_$m "$P/host_sigprof" $m >hs_sp_$m.out 2>/dev/null
	rc=$?
	echo $rc >hs_sp_$m.rc
	eq "own SIGPROF ($m): the output and exit status ($rc_ref) without a profiler" \
		"$(sed 's/^ticks: .*/ticks/' hs_sp_$m.ref)|$rc_ref" "$(sed 's/^ticks: .*/ticks/' hs_sp_$m.out)|$rc"
done
has "own SIGPROF: the program's handler got its own timer's signal, not the sampler's" "timer: 1 value 42" "$(cat hs_sp_handler.out)"
eq "own SIGPROF: the handler's mask as the program set it (sa_mask, SA_NODEFER)" "mask: usr1 1 prof 1|nodefer: usr1 0 prof 0" "$(paste -sd'|' hs_sp_mask.out)"
eq "own SIGPROF: the default action ends the program (128 + SIGPROF)" "before|155" "$(cat hs_sp_default.out)|$(cat hs_sp_default.rc)"
between "own SIGPROF: the program's 100 Hz ticks in 400 ms of CPU" 34 44 "$(sed -n 's/^ticks: \([0-9]*\).*/\1/p' hs_sp_handler.out)"
out=$(python3 "$ROOT/tests/cases/sigprof.py" 2>&1; echo "rc $?")
eq "own SIGPROF, Python: as it runs without a profiler" "start: 0|ticks for 400 ms of CPU at 100 Hz, 20 to 60: True|handler kept: True|end|rc 0" "$(printf '%s\n' "$out" | paste -sd'|')"
out=$($GS profile -o hs_sp_py python3 "$ROOT/tests/cases/sigprof.py" 2>/dev/null; echo "rc $?")
eq "own SIGPROF, Python: the same under gpuscope" "start: 0|ticks for 400 ms of CPU at 100 Hz, 20 to 60: True|handler kept: True|end|rc 0" "$(printf '%s\n' "$out" | paste -sd'|')"
$GS stats -r cpu_sample_sum --format csv -o hs_sp.csv hs_sp_handler.gst 2>/dev/null
between "own SIGPROF: the sampler still samples (1 kHz of CPU: burn_with_handler's self samples)" 250 480 \
	"$(python3 -c 'import csv,sys; print(sum(int(r["Self Samples"]) for r in csv.DictReader(open(sys.argv[1])) if r["Function"].startswith("burn_with_handler")))' hs_sp.csv)"
# With 100 more libraries loaded first (system ones, as bench/sample_walk.sh picks them), the
# look-ups of libunwind's walks (GPUSCOPE_UNWINDER=libunwind here: gpuscope's walk makes none)
# of the object that holds an address are answered from the collector's list
# (unwind_warm.c; the thread started at once, GPUSCOPE_UNWIND_WARM=2: the program has one
# thread), recent finds first, and the stacks are as complete; without the collector's
# thread (GPUSCOPE_UNWIND_WARM=0) libc answers them all. The program sleeps 0.5 s after loading
# them: the thread looks for new libraries twenty times a second, libc answering until then (the
# samples taken while the libraries load).
"$ROOT/scripts/system_libs.sh" 100 >libs100
lookups() { sed -n 's/.* \([0-9]*\) object look-ups (\([0-9]*\) from the collector.s list), .*/\1 \2/p' "$1"; }
for w in 2 0; do
	GPUSCOPE_UNWINDER=libunwind GPUSCOPE_UNWIND_WARM=$w GPUSCOPE_DEBUG=1 $GS profile -o hs_jitl$w -t nvtx "$P/host_jit" 30 10 libs100 500 2>hs_jitl$w.err >hs_jitl$w.out
	eq "sample jit, 100 libraries (warm $w): exit 0" 0 $?
done
between "sample jit, 100 libraries: loaded" 50 100 "$(cut -d' ' -f1 hs_jitl2.out)"
read -r look listed <<<"$(lookups hs_jitl2.err)"
between "sample jit, 100 libraries: the walks looked objects up" 1 100000000 "$look"
between "sample jit, 100 libraries: the collector's list answered look-ups ($listed of $look; libc the others, made while the libraries were being loaded)" 5 "$look" "$listed"
read -r look listed <<<"$(lookups hs_jitl0.err)"
eq "sample jit, 100 libraries, GPUSCOPE_UNWIND_WARM=0: none from a list ($look look-ups)" 0 "$listed"
$GS export -t folded -o hs_jitl2.folded hs_jitl2.gst 2>/dev/null
if [ "$(uname -m)" = x86_64 ]; then
	between "sample jit, 100 libraries: the recursion's stacks go through the 30 JIT frames to main, %" 95 100 "$(jit_full hs_jitl2.folded recursion)"
fi
# A fork child writes its parent's executable mappings into its own ring from the collector's
# copy (no read of /proc/self/maps, a few ms in a process of thousands of mappings); a library
# the parent loaded since its last read is added by the fork's prepare handler. The child here
# lives for milliseconds, so the CLI's own reads of /proc/PID/maps do not see it. Its sleep, an
# OS runtime record, makes its ring: on a loaded machine a CPU-time timer can fire only after
# tens of ms of CPU (signals of weight 22 to 85 seen on the dev VM beside two busy loops), so a
# child of 8 ms of CPU may have no sample.
child=$($GS profile -o hs_dlfork -t nvtx,osrt "$P/host_cpu" 1 dlfork "$P/libhost_hot.so" 2>/dev/null)
eq "fork after dlopen: exit 6 kept" 6 $?
$GS dump --format jsonl hs_dlfork.gst >hs_dlfork.jsonl 2>/dev/null
between "fork after dlopen: the child's mappings (from the parent's copy)" 5 100000 \
	"$(grep -c "\"pid\":${child:-0},\"offset\"" hs_dlfork.jsonl)"
eq "fork after dlopen: ... include the library the parent loaded before the fork" 1 \
	"$(grep "\"pid\":${child:-0},\"offset\"" hs_dlfork.jsonl | grep -c 'libhost_hot.so' | sed 's/^[1-9][0-9]*$/1/')"
eq "fork after dlopen: ... and the program itself" 1 \
	"$(grep "\"pid\":${child:-0},\"offset\"" hs_dlfork.jsonl | grep -c 'programs/host_cpu"' | sed 's/^[1-9][0-9]*$/1/')"
# Samples inside the taking or leaving of the loader's lock (host_dliter: dl_iterate_phdr in a
# loop for 2 s): the walk, which takes that lock, must not wait for the call it interrupted
# (before, the program hung in every run, every signal blocked, so only SIGKILL ended it). Such
# samples keep the interrupted function only, under "[stack not walked]" (until 2026-12-06 they
# were skipped: their time was missing from the reports); the others have their stacks.
# skipped_of TRACE: the samples skipped while recording it, as info counts them
skipped_of() { $GS info "$1" | sed -n 's/.*sample_skipped \([0-9]*\).*/\1/p' | head -1; }
# not_walked TRACE: the sampling periods of its samples taken where no walk could be
not_walked() { $GS export -f -t folded -o "$1.folded" "$1" 2>/dev/null &&
	awk '/;\[stack not walked\];/ { n += $NF } END { print n + 0 }' "$1.folded"; }
timeout -s KILL 60 $GS profile -o hs_dli -t nvtx "$P/host_dliter" 2 >hs_dli.out 2>hs_dli.err
eq "loader's lock: the program ends, exit 0" "0 ok" "$? $(cat hs_dli.out)"
eq "loader's lock: profile's line: nothing lost, no sample skipped" 1 "$(grep 'wrote' hs_dli.err | grep -c ' 0 lost)')"
between "loader's lock: samples taken" 100 100000 "$($GS info hs_dli.gst | awk '/cpu samples/ {gsub(",", "", $3); print $3}')"
between "loader's lock: samples inside its taking or leaving kept, not walked (periods)" 1 100000 \
	"$(not_walked hs_dli.gst)"
eq "loader's lock: none skipped" "" "$(skipped_of hs_dli.gst)"
eq "loader's lock: those samples name the function they came in (a mutex's lock or unlock, or libc)" \
	"" "$(grep -F ';[stack not walked];' hs_dli.gst.folded | grep -v -E ';((__)?pthread_mutex_(un)?lock[a-z_]*|\[libc\.so\.6\]|\[ld-linux-x86-64\.so\.2\]|_dl_[a-z_]*|dl_iterate_phdr) [0-9]+$')"
has "loader's lock: cpu_sample_sum counts them under [stack not walked]" ",[stack not walked]," \
	"$($GS stats -r cpu_sample_sum --format csv hs_dli.gst)"
# no gap in the sampling: stats warns of nothing
eq "loader's lock: stats warns of nothing" "" "$($GS stats -r osrt_sum hs_dli.gst 2>&1 >/dev/null)"
# ... but only when they are 1% or more of the samples: 2 skipped in 2,120 (a PyTorch process,
# recorded on an H100) go unmentioned, 1 in 33 (a fork child) is said
w=$($GS stats -r cuda_gpu_kern_sum "$ROOT/tests/data/kmetrics/convt_reset.gst" 2>&1 >/dev/null)
eq "skipped samples: 2 in 2,120, no warning" "" "$w"
has "skipped samples: ... the trace holds them (info)" "sample_skipped 2" "$($GS info "$ROOT/tests/data/kmetrics/convt_reset.gst")"
w=$($GS stats -r cuda_gpu_kern_sum "$ROOT/tests/data/cuda135/fork_after.gst" 2>&1 >/dev/null)
has "skipped samples: 1 in 33, warned" "1 CPU samples were skipped while recording" "$w"
# A function without call frame information (host_nofde: a loop at its entry, as a library's
# _fini is interrupted at its first instruction): the return address on top of the stack
# continues the walk through main to _start (before: handed to libunwind, which stopped at the
# function itself, or at exit named a stale slot's address; the ASan build's perfmap_fork case
# failed so in CI).
if [ "$(uname -m)" = x86_64 ]; then
	$GS profile -o hs_nofde -t nvtx "$P/host_nofde" 2>/dev/null; eq "no FDE: exit 0" 0 $?
	# the % of a folded export's periods in nofde_spin with its callers up to _start
	to_start_pct() { awk '{ t += $NF } /;_start;.*;main;nofde_spin / { s += $NF }
		END { print t ? int(s * 100 / t) : 0 }' "$1"; }
	$GS export -t folded -o hs_nofde.folded hs_nofde.gst 2>/dev/null
	between "no FDE: periods in nofde_spin with its callers to _start (% of all)" 90 100 \
		"$(to_start_pct hs_nofde.folded)"
	eq "no FDE: no unnamed frame" "" "$(grep -F '[unknown]' hs_nofde.folded)"
	# without the collector's table of objects (as in a fork child whose parent had made none
	# yet): both addresses found in the loader's list
	GPUSCOPE_UNWIND_WARM=0 $GS profile -o hs_nofde0 -t nvtx "$P/host_nofde" 2>/dev/null
	$GS export -t folded -o hs_nofde0.folded hs_nofde0.gst 2>/dev/null
	between "no FDE, no table of objects: periods with their callers to _start (% of all)" 90 100 \
		"$(to_start_pct hs_nofde0.folded)"
fi
# Another thread holds the loader's lock for 2 s (host_dliter hold: a dl_iterate_phdr whose
# callback sleeps) while the main thread spins 100 ms of CPU: its samples wait at most 200 us
# for the lock, then keep the interrupted function only (before: each waited out the hold,
# 100,000 yields, and the 100 ms took the whole 2 s).
out=$(timeout -s KILL 60 $GS profile -o hs_dlh -t nvtx "$P/host_dliter" hold 2000 2>/dev/null)
eq "loader's lock held: the program ends, exit 0" "0 ok" "$? ${out% *}"
between "loader's lock held 2 s: the sampled thread's 100 ms of CPU in under 1 s (ms)" 100 1000 "${out#ok }"
between "loader's lock held: its samples kept, not walked (periods)" 1 100000 \
	"$(not_walked hs_dlh.gst)"
# Forks while another thread's samples walk its stack (host_forkwalk: 200 children that exit at
# once): glibc does not reset the loader's list lock in a fork child, so a fork made while a
# walk or the collector's thread is inside dl_iterate_phdr would leave the child blocked; the
# fork's prepare handler closes a gate and waits for them, and the samples that come while it
# is closed keep the interrupted function only ("[stack not walked]").
# Whether a sample lands while the gate is closed is chance (none did once in CI's clang suite,
# on a loaded 2-core machine): up to three runs, each of which must end well, until one has.
fw_rcs= fw_outs= fw_nw=0
for fw_try in 1 2 3; do
	$GS profile -o hs_fw -t nvtx "$P/host_forkwalk" "$P/libhost_wide.so" 200 >hs_fw.out 2>/dev/null
	fw_rcs="$fw_rcs$? " fw_outs="$fw_outs$(cat hs_fw.out)|"
	fw_nw=$(not_walked hs_fw.gst)
	[ "$fw_nw" -gt 0 ] && break
done
eq "fork during walks: exit 0, every child exited (each run)" "" "$(echo "$fw_rcs" | tr -d '0 ')"
eq "fork during walks: all forks made (each run)" "" "$(echo "$fw_outs" | sed 's/forks: 200|//g')"
between "fork during walks: samples while the gate was closed kept, not walked (periods; $fw_try run(s))" 1 100000 "$fw_nw"
hasnt "sample jit: no walk figures without GPUSCOPE_DEBUG" "stacks walked" "$($GS profile -o hs_jitq -t nvtx "$P/host_jit" 3 2>&1)"
# a library loaded with dlopen after the start, the process then killed (SIGKILL: no exit
# path): its mappings were read from /proc while it ran, so its function is named
$GS profile -o hs_dl -t nvtx "$P/host_cpu" 1 dlopen "$P/libhost_hot.so" 2>/dev/null; eq "sample dlopen: killed, 137 kept" 137 $?
$GS stats -r cpu_sample_sum --format csv -o hs_dl.csv hs_dl.gst 2>/dev/null
eq "sample dlopen: hot_in_library named, in its library" "hot_in_library,libhost_hot.so" "$(sed -n 2p hs_dl.csv | cut -d, -f9,10)"

# The unwind tables of a library loaded at run time (libhost_wide.so: 29 pages of them, which
# nothing in the program reads) are mapped by the collector's thread, not by the walks
# (unwind_warm.c); not with sampling off, nor with GPUSCOPE_UNWIND_WARM=0. The thread starts
# with the program's second thread ("thread": one made before the load), at once with
# GPUSCOPE_UNWIND_WARM=2: a single-threaded program stays single-threaded for glibc (host.c's
# walks_setup says why). Each line: "LIB: MAPPED of TOTAL pages ...", then "single S".
ehmap() { sed -n "s/^libhost_wide.so: \([0-9]*\) of \([0-9]*\) pages .*/\1 \2/p"; }
single() { sed -n 's/^single //p'; }
"$P/host_ehmap" "$P/libhost_wide.so" 300 >hs_ehnone.out
read -r m t <<<"$(ehmap <hs_ehnone.out)"
between "unwind tables: the library has them (pages)" 20 1000 "$t"
between "unwind tables: with no profiler, few are mapped (of $t)" 0 $((t / 2)) "$m"
eq "unwind tables: with no profiler, single-threaded" 1 "$(single <hs_ehnone.out)"
for w in thread 2; do # the default with a thread made by the program; the thread at once
	if [ $w = 2 ]; then warm=2 arg=; else warm=1 arg=thread; fi
	GPUSCOPE_UNWIND_WARM=$warm GPUSCOPE_DEBUG=1 $GS profile -o hs_eh$w -t nvtx "$P/host_ehmap" "$P/libhost_wide.so" 5000 $arg >hs_eh$w.out 2>hs_eh$w.err
	eq "unwind tables, sampling ($w): exit 0" 0 $?
	read -r m t <<<"$(ehmap <hs_eh$w.out)"
	eq "unwind tables, sampling ($w): all of the library's are mapped" "$t" "$m"
	between "unwind tables, debug ($w): objects read (the program, libc, libunwind, libhost_wide, ...)" 5 1000 \
		"$(sed -n 's/.*unwind tables: \([0-9]*\) objects, .*/\1/p' hs_eh$w.err | tail -1)"
	eq "unwind tables, sampling ($w): multi-threaded" 0 "$(single <hs_eh$w.out)"
done
GPUSCOPE_DEBUG=1 $GS profile -o hs_eh1 -t nvtx "$P/host_ehmap" "$P/libhost_wide.so" 500 >hs_eh1.out 2>hs_eh1.err
read -r m t <<<"$(ehmap <hs_eh1.out)"
between "unwind tables, sampling, one thread: few mapped (of $t)" 0 $((t / 2)) "$m"
eq "unwind tables, sampling, one thread: no collector's thread" 0 "$(grep -c 'unwind tables: ' hs_eh1.err)"
eq "unwind tables, sampling, one thread: still single-threaded for glibc" 1 "$(single <hs_eh1.out)"
# A single-threaded parent that forks children which make threads: the thread stays out of the
# parent and starts in each child at its second thread (not in a fork handler); the children's
# threads are sampled and walked
GPUSCOPE_DEBUG=1 $GS profile -o hs_ft -t nvtx "$P/host_forkthread" 4 >hs_ft.out 2>hs_ft.err
eq "fork children with threads: exit 0" 0 $?
eq "fork children with threads: the parent single-threaded" "parent single 1" "$(cat hs_ft.out)"
eq "fork children with threads: the collector's thread started in each child" 4 "$(grep -c 'unwind-table thread started' hs_ft.err)"
$GS stats -r cpu_sample_sum --format csv -o hs_ft.csv hs_ft.gst 2>/dev/null
eq "fork children with threads: burn_in_thread sampled in each child" 4 \
	"$(python3 -c 'import csv,sys; print(len({r["PID"] for r in csv.DictReader(open(sys.argv[1])) if r["Function"] == "burn_in_thread" and int(r["Self Samples"]) >= 5}))' hs_ft.csv)"
GPUSCOPE_UNWIND_WARM=0 $GS profile -o hs_eh0 -t nvtx "$P/host_ehmap" "$P/libhost_wide.so" 500 >hs_eh0.out 2>/dev/null
read -r m t <<<"$(ehmap <hs_eh0.out)"
between "unwind tables, GPUSCOPE_UNWIND_WARM=0: few mapped (of $t)" 0 $((t / 2)) "$m"
$GS profile -o hs_ehn -t nvtx --sample none "$P/host_ehmap" "$P/libhost_wide.so" 500 >hs_ehn.out 2>/dev/null
read -r m t <<<"$(ehmap <hs_ehn.out)"
between "unwind tables, --sample none: few mapped (of $t)" 0 $((t / 2)) "$m"

# --sample none, --sampling-frequency
$GS profile -o hs_none --sample none -t nvtx "$P/host_cpu" 3 2>/dev/null; eq "sample none: exit 0" 0 $?
eq "sample none: no samples" 0 "$($GS dump --format jsonl hs_none.gst | grep -c '"event":"sample"')"
hasnt "sample none: no sample line in info" "cpu samples" "$($GS info hs_none.gst)"
$GS profile -o hs_f100 --sampling-frequency 100 -t nvtx "$P/host_cpu" 6 2>/dev/null; eq "sampling frequency: exit 0" 0 $?
has "sampling frequency: 100 Hz recorded" "100 Hz of CPU time" "$($GS info hs_f100.gst)"
$GS profile -o hs_bad --sampling-frequency 0 true 2>/dev/null; eq "sampling frequency 0: usage error" 2 $?
$GS profile -o hs_bad --sample gpu true 2>/dev/null; eq "--sample gpu: usage error" 2 $?

# The sampling clock (--sampling-clock). timer (the default): a POSIX timer of each thread's
# CPU time, which the kernel checks at its tick (CONFIG_HZ, often 250: a sample then stands for
# several periods, its weight), no descriptor. perf: each thread's perf task-clock event where
# the kernel allows it (GPUSCOPE_DEBUG=1 says which clock), a high-resolution timer, so a sample
# a period at 1 kHz; one descriptor per thread (host_pfd counts them): a fork child closes its
# parent's threads' and opens its own, an exec closes them, a thread's end closes its own.
# Refused the event (a user namespace's root, under perf_event_paranoid 2), it takes timers.
# clock_of TRACE: "SAMPLES PERIODS" from info
clock_of() { $GS info "$1" | sed -n 's/^  cpu samples *\([0-9,]*\) ([0-9]* Hz of CPU time, \([0-9,]*\) periods.*/\1 \2/p' | tr -d ,; }
GPUSCOPE_DEBUG=1 $GS profile -o hs_clkt -t nvtx "$P/host_cpu" 2>hs_clkt.err >/dev/null; eq "sampling clock, default: exit 0" 0 $?
has "sampling clock, default: timers" "sampling: CPU-time timers, 1000000 ns" "$(cat hs_clkt.err)"
read -r ts tp <<<"$(clock_of hs_clkt.gst)"
between "sampling clock, default: periods of host_cpu's ~450 ms" 300 5000 "$tp"
eq "sampling clock, default: no perf descriptor" "threads: 0 child: 0 exec: 0 joined: 0 " \
	"$($GS profile -o hs_pfdt -t nvtx "$P/host_pfd" 2>/dev/null | tr '\n' ' ')"
GPUSCOPE_DEBUG=1 $GS profile -o hs_clk -t nvtx --sampling-clock perf "$P/host_cpu" 2>hs_clk.err >/dev/null; eq "--sampling-clock perf: exit 0" 0 $?
read -r ns np <<<"$(clock_of hs_clk.gst)"
pfd=$($GS profile -o hs_pfd -t nvtx --sampling-clock perf "$P/host_pfd" 2>/dev/null | tr '\n' ' ')
if grep -q 'sampling: perf task clock, 1000000 ns' hs_clk.err; then
	eq "task clock: a sample a period (samples, periods)" "$np" "$ns"
	between "task clock: samples of host_cpu's ~450 ms" 300 5000 "$ns"
	eq "task clock: a descriptor per thread; a fork child's own only; an exec's own; gone at a thread's end" \
		"threads: 4 child: 1 exec: 1 joined: 1 " "$pfd"
else
	has "--sampling-clock perf, refused here: timers, said so" "no perf task clock" "$(cat hs_clk.err)"
	eq "--sampling-clock perf, refused here: no perf descriptor" "threads: 0 child: 0 exec: 0 joined: 0 " "$pfd"
fi
$GS profile -o hs_bad --sampling-clock auto true 2>/dev/null; eq "--sampling-clock auto: usage error" 2 $?
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" = 2 ] && unshare -U -r true 2>/dev/null; then
	unshare -U -r env GPUSCOPE_DEBUG=1 $GS profile -o hs_clkns -t nvtx --sampling-clock perf "$P/host_cpu" 2>hs_clkns.err >/dev/null
	has "task clock refused: the collector says so and takes timers" "no perf task clock (Permission denied): CPU-time timers" "$(cat hs_clkns.err)"
	read -r us up <<<"$(clock_of hs_clkns.gst)"
	between "task clock refused: periods of host_cpu's ~450 ms all the same" 300 5000 "$up"
fi

# committed fixtures of format 1.4 (tests/data/README.md): read as recorded; the program that
# host_cpu.gst sampled is not on this machine, so its frames are named after their module
G=$ROOT/tests/data
$GS stats -r osrt_sum --format csv -o hs_fx.csv "$G/host_block.gst" 2>/dev/null
eq "fixture host_block: calls per function" "nanosleep 5 pthread_mutex_lock 3 usleep 5 read 2" \
	"$(for n in nanosleep pthread_mutex_lock usleep read; do printf '%s %s ' $n "$(osrt_field hs_fx.csv $n 'Num Calls')"; done | sed 's/ $//')"
eq "fixture host_block: mutex wait total" 120453547 "$(osrt_field hs_fx.csv pthread_mutex_lock 'Total Time (ns)')"
eq "fixture host_block (format 1.4): no call stacks" 1 "$($GS stats -r osrt_stack_sum --format csv "$G/host_block.gst" | wc -l)"
hasnt "fixture host_block: info names no stacks" "with call stacks" "$($GS info "$G/host_block.gst")"
# host_stacks.gst (format 1.7): host_block's calls of 80 us or more with their stacks
$GS stats -r osrt_stack_sum --format csv -o hs_fxs.csv "$G/host_stacks.gst" 2>/dev/null
eq "fixture host_stacks: rows (name, calls, total, stack)" \
'pthread_mutex_lock 3 120408841 [host_block] < [libc.so.6] < [libc.so.6]
nanosleep 3 120296224 [host_block] < [libc.so.6] < __libc_start_main < [host_block]
usleep 5 100434354 [host_block] < [libc.so.6] < __libc_start_main < [host_block]
read 2 60368748 [host_block] < [libc.so.6] < __libc_start_main < [host_block]
nanosleep 2 60155343 [host_block] < [libc.so.6] < [libc.so.6]' \
	"$(python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    print(r["Name"], r["Num Calls"], r["Total Time (ns)"], r["Stack"])' hs_fxs.csv)"
eq "fixture host_stacks: Time (%) of all calls' time" 26.1 "$(sed -n 2p hs_fxs.csv | cut -d, -f1)"
has "fixture host_stacks: info" "with call stacks        15 (at least 80000 ns)" "$($GS info "$G/host_stacks.gst")"
eq "fixture host_stacks: dump, 15 stacks of 3 to 4 frames" "15 True" "$($GS dump --format jsonl "$G/host_stacks.gst" | python3 -c '
import json, sys
st = [e for l in sys.stdin for e in [json.loads(l)] if e.get("event") == "osrt_stack"]
print(len(st), all(3 <= len(e["frames"]) <= 4 for e in st))')"
$GS export -t chrome -o hs_fxs.json "$G/host_stacks.gst" 2>/dev/null
eq "fixture host_stacks: chrome export, the stacks in the calls' args" "15 5" "$(python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "os_runtime"]
st = [e for e in ev if "stack" in e.get("args", {})]
print(len(st), sum(1 for e in st if e["name"] == "usleep" and e["args"]["stack"][2] == "__libc_start_main"))' hs_fxs.json)"
an=$(COLUMNS=200 $GS analyze "$G/host_stacks.gst")
has "fixture host_stacks: analyze names the caller of the wait" "waits in nanosleep from [host_block]" "$an"
has "fixture host_stacks: the idle table too" "nanosleep from [host_block]" "$(printf '%s\n' "$an" | grep '^  blocked')"
$GS export -t folded-osrt -o hs_fxs.folded "$G/host_stacks.gst" 2>/dev/null; eq "fixture host_stacks: folded-osrt export ok" 0 $?
eq "fixture host_stacks: folded-osrt, root first, the call as the leaf, its time in ns" \
	"host_block;[libc.so.6];[libc.so.6];[host_block];pthread_mutex_lock 120408841" "$(grep ';pthread_mutex_lock ' hs_fxs.folded)"
eq "fixture host_stacks: folded-osrt, the calls with stacks, every ns" "5 461663510" \
	"$(awk '{ n++; t += $NF } END { print n, t }' hs_fxs.folded)"
$GS export -t folded-osrt -o hs_fx.folded "$G/host_block.gst" 2>/dev/null
eq "fixture host_block: folded-osrt of a trace without stacks is empty" "0 0" "$? $(wc -c <hs_fx.folded)"
has "fixture host_cpu: 119 samples, 243 periods at 500 Hz" "cpu samples               119 (500 Hz of CPU time, 243 periods: 486.0 ms)" "$($GS info "$G/host_cpu.gst")"
$GS stats -r cpu_sample_sum --format csv -o hs_fxc.csv "$G/host_cpu.gst" 2>/dev/null
eq "fixture host_cpu: a missing binary's frames are named after it" "100.0,243,100.0,243,486000000,21983,21983,host_cpu,[host_cpu],host_cpu" "$(sed -n 2p hs_fxc.csv)"
