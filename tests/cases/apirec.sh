# apirec.sh: the CUDA library's API-call record writer (src/collector/cuda/apirec.c) on the
# CPU, through tests/programs/cuda_apirec (the writer linked in, driven as CUPTI's callbacks
# drive it, under `gpuscope profile`): every call's record is in the trace once, with its
# thread, correlation id and kind; its start and end, written in the collector's clock (TSC
# ticks where it clocks by the TSC, which the CLI maps to nanoseconds), lie inside the NVTX
# range the program pushed around the call and span its sleep; the synchronization records
# carry the same times; a thread's chunk goes to the CLI a second after it was taken. Run
# with the clock the collector picks (the TSC here where the CPU has an invariant one) and
# with GPUSCOPE_CLOCK=monotonic. Then 4 threads write 200,000 records as fast as they can
# while the main thread flushes every slot every 20 us (what a capture range's end does while
# other threads call), without the lock (membarrier) and with it: every record arrives once
# and whole (a flush that does not wait for the record in progress loses some: checked).
echo "apirec:"
cd "$T" || exit 1

apirec_check() { # JSONL THREADS CALLS SLEEP_US: one line of figures, or "bad: why"
	python3 - "$@" <<'PY'
import bisect, json, sys
path, threads, calls, sleep_us = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
apis, syncs, ranges = [], [], {}
for line in open(path):
    r = json.loads(line)
    if r.get("cuda") in ("runtime_api", "driver_api"):
        apis.append(r)
    elif r.get("cuda") == "sync":
        syncs.append(r)
    elif r.get("event") == "range" and r.get("name") == "call":
        ranges.setdefault(r["tid"], []).append((r["start"], r["start"] + r["dur"]))
n = threads * calls
corr = sorted(a["correlation"] for a in apis)
kinds_ok = all((a["cuda"] == "driver_api") == (((a["correlation"] - 1) % calls) % 2 == 1) and
               a["cbid"] == (126 if a["cuda"] == "driver_api" else 131) for a in apis)
inside = 0
for v in ranges.values():
    v.sort()
for a in apis:  # the last range of its thread that starts at or before the call
    s, e = a["start"], a["start"] + a["dur"]
    rs = ranges.get(a["tid"], [])
    i = bisect.bisect_right(rs, (s, float("inf"))) - 1
    if i >= 0 and rs[i][0] <= s and e <= rs[i][1]:
        inside += 1
short = sum(1 for a in apis if a["dur"] < sleep_us * 1000)
by_corr = {a["correlation"]: a for a in apis}
sync_same = sum(1 for y in syncs if y["correlation"] in by_corr and
                y["start"] == by_corr[y["correlation"]]["start"] and
                y["dur"] == by_corr[y["correlation"]]["dur"] and y["type"] == 3 and
                y["stream"] == (y["correlation"] - 1) // calls + 1)
print(len(apis), int(corr == list(range(1, n + 1))), int(kinds_ok), len({a["tid"] for a in apis}),
      inside, short, len(syncs), sync_same)
PY
}

for clock in auto monotonic; do
	GPUSCOPE_CLOCK=$clock $GS profile -o ar_$clock --sample none -- "$P/cuda_apirec" 4 50 300 >ar_$clock.out 2>ar_$clock.err
	eq "apirec ($clock): the program ran (exit 0)" 0 $?
	eq "apirec ($clock): and said ok" ok "$(cat ar_$clock.out)"
	$GS dump --format jsonl ar_$clock.gst >ar_$clock.jsonl 2>ar_$clock.derr
	eq "apirec ($clock): dump exit 0" 0 $?
	want=monotonic # the collector's choice (init.c): the TSC where the kernel says it is invariant
	if [ $clock = auto ] && grep -m1 '^flags' /proc/cpuinfo | grep -q ' constant_tsc' &&
		grep -m1 '^flags' /proc/cpuinfo | grep -q ' nonstop_tsc'; then want=tsc; fi
	has "apirec ($clock): the session's clock is $want" "\"k7\":\"$want\"" "$(grep -m1 '"chunk":"session"' ar_$clock.jsonl)"
	read -r napi corr kinds tids inside short nsync same <<<"$(apirec_check ar_$clock.jsonl 4 50 300)"
	eq "apirec ($clock): 200 API records" 200 "$napi"
	eq "apirec ($clock): correlation ids 1..200, each once" 1 "$corr"
	eq "apirec ($clock): runtime and driver calls as made" 1 "$kinds"
	eq "apirec ($clock): on 4 threads" 4 "$tids"
	eq "apirec ($clock): every call inside its NVTX range" 200 "$inside"
	eq "apirec ($clock): none shorter than its 300 us sleep" 0 "$short"
	eq "apirec ($clock): 68 synchronization records (every third call)" 68 "$nsync"
	eq "apirec ($clock): each with its call's times, type and stream" 68 "$same"
	# what stats makes of them: 100 calls each way, each at least the sleep
	$GS stats -r cuda_api_sum --format csv ar_$clock.gst >ar_$clock.csv 2>&1
	eq "apirec ($clock): cuda_api_sum: 100 cudaStreamSynchronize calls" 100 \
		"$(python3 -c 'import csv,sys; print([r for r in csv.DictReader(open(sys.argv[1])) if r["Name"].startswith("cudaStreamSynchronize")][0]["Num Calls"])' ar_$clock.csv)"
	between "apirec ($clock): cuda_api_sum: their shortest, ns" 300000 100000000 \
		"$(python3 -c 'import csv,sys; print([r for r in csv.DictReader(open(sys.argv[1])) if r["Name"].startswith("cudaStreamSynchronize")][0]["Min (ns)"])' ar_$clock.csv)"
done

# a thread whose calls span more than a second hands its chunk on by age: 12 calls of
# 100 ms fill 672 bytes of a 4 KiB chunk, and the record ending a second after the chunk
# was taken starts another: two chunks, where one would hold them all
$GS profile -o ar_age --sample none -- "$P/cuda_apirec" 1 12 100000 >/dev/null 2>ar_age.err
eq "apirec age: exit 0" 0 $?
$GS dump --format jsonl ar_age.gst >ar_age.jsonl 2>/dev/null
eq "apirec age: 12 API records" 12 "$(grep -c '"cuda":"[a-z]*_api"' ar_age.jsonl)"
eq "apirec age: in two chunks (the first handed on by age)" 2 "$(grep -c '^{"chunk":"cuda"' ar_age.jsonl)"
# 1.2 s: the CLI took a time pair while it ran (one a second), and the calls map through it
read -r napi corr kinds tids inside short nsync same <<<"$(apirec_check ar_age.jsonl 1 12 100000)"
eq "apirec age: every call inside its NVTX range, none shorter than 100 ms" "12 0" "$inside $short"

# waves of threads that end (their chunks handed on at their end, their slots taken over by
# the next wave) while the main thread flushes: every record once, whole
$GS profile -o ar_waves --sample none -- "$P/cuda_apirec" --flush-every 20 --waves 25 4 2000 0 >/dev/null 2>ar_waves.err
eq "apirec waves: exit 0" 0 $?
$GS dump --format jsonl ar_waves.gst >ar_waves.jsonl 2>/dev/null
read -r napi corr kinds tids inside short nsync same <<<"$(apirec_check ar_waves.jsonl 100 2000 0)"
eq "apirec waves: 200,000 API records, correlation ids 1..200,000 each once, kinds as made" "200000 1 1" "$napi $corr $kinds"
between "apirec waves: from many threads (4 a wave, 25 waves)" 26 100 "$tids"
eq "apirec waves: every call inside its NVTX range" 200000 "$inside"
eq "apirec waves: the synchronization records, each its call's" "66700 66700" "$nsync $same"
rm -f ar_waves.jsonl

# flushes while the threads write: every record once, whole
for mode in lockfree lock; do
	opt=; [ $mode = lock ] && opt=--lock
	# the check needs flushes that met the threads writing: on a busy 2-core machine a run
	# (0.1 s) can have as few as one, so up to three runs are made for 3 of them
	for try in 1 2 3; do
		$GS profile -f -o ar_fl_$mode --sample none -- "$P/cuda_apirec" $opt --flush-every 20 4 50000 0 >ar_fl_$mode.out 2>ar_fl_$mode.err
		rc=$?
		[ "$(sed -n 's/.*: \([0-9]*\) flushes while the threads wrote/\1/p' ar_fl_$mode.err)" -ge 3 ] 2>/dev/null && break
	done
	eq "apirec flush ($mode): exit 0" 0 $rc
	if [ $mode = lockfree ] && grep -q "no membarrier" ar_fl_$mode.err; then
		ok "apirec flush ($mode): no membarrier on this machine: records took the lock"
	fi
	between "apirec flush ($mode): flushed while the threads wrote" 3 100000000 \
		"$(sed -n 's/.*: \([0-9]*\) flushes while the threads wrote/\1/p' ar_fl_$mode.err)"
	$GS dump --format jsonl ar_fl_$mode.gst >ar_fl_$mode.jsonl 2>/dev/null
	read -r napi corr kinds tids inside short nsync same <<<"$(apirec_check ar_fl_$mode.jsonl 4 50000 0)"
	eq "apirec flush ($mode): 200,000 API records" 200000 "$napi"
	eq "apirec flush ($mode): correlation ids 1..200,000, each once" 1 "$corr"
	eq "apirec flush ($mode): kinds as made" 1 "$kinds"
	eq "apirec flush ($mode): every call inside its NVTX range" 200000 "$inside"
	eq "apirec flush ($mode): 66,668 synchronization records, each its call's" "66668 66668" "$nsync $same"
	rm -f ar_fl_$mode.jsonl
done

# --cudabacktrace's stacks (default sync:80us): each runtime call's stack recorded as cupti.c's
# exit callback records a long call's (gs_cuda_stack_record, the real walk), from wait_here <
# sync_stream < worker, gpuscope's frames left out; joined to its call by correlation id
$GS profile -o ar_st --sample none -- "$P/cuda_apirec" --stacks 4 50 300 >/dev/null 2>ar_st.err
eq "apirec stacks: exit 0" 0 $?
eq "apirec stacks: info counts them, with the session's setting" "100 (--cudabacktrace sync:80000)" \
	"$($GS info ar_st.gst | sed -n 's/^ *with call stacks *//p' | head -1)"
$GS stats -r cuda_api_stack_sum --format csv -o ar_st.csv ar_st.gst
eq "apirec stacks: cuda_api_stack_sum: one row, the 100 runtime calls, named by their caller" \
	"cudaStreamSynchronize wait_here 100 wait_here < sync_stream < worker" \
	"$(python3 -c 'import csv,sys
r = list(csv.DictReader(open(sys.argv[1], newline="")))
print(len(r) == 1 and r[0]["Name"], r[0]["Caller"], r[0]["Num Calls"], " < ".join(r[0]["Stack"].split(" < ")[:3]))' ar_st.csv)"
$GS dump --format jsonl ar_st.gst >ar_st.jsonl
# their share of all calls' time, from dump's records (about half: the sleeps are alike, but a
# loaded machine oversleeps some, so the share itself is not asserted, the report's sum is)
eq "apirec stacks: Total Time the runtime calls' sum, Time (%) their share of every call's" "1 1" \
	"$(python3 -c 'import csv,json,sys
row = list(csv.DictReader(open(sys.argv[1], newline="")))[0]
a = [json.loads(l) for l in open(sys.argv[2]) if "_api\"" in l]
rt = sum(x["dur"] for x in a if x.get("cuda") == "runtime_api")
every = sum(x["dur"] for x in a if x.get("cuda") in ("runtime_api", "driver_api"))
print(int(int(row["Total Time (ns)"]) == rt and len(a) == 200),
      int(abs(float(row["Time (%)"]) - 100 * rt / every) <= 0.051))' ar_st.csv ar_st.jsonl)"
eq "apirec stacks: dump: 100 cuda_stack records, correlation ids of the runtime calls" "100 1" \
	"$(python3 -c 'import json,sys
c = [json.loads(l)["correlation"] for l in open(sys.argv[1]) if "\"event\":\"cuda_stack\"" in l]
print(len(c), int(all((k - 1) % 50 % 2 == 0 for k in c)))' ar_st.jsonl)"
$GS export -t chrome -o ar_st.json ar_st.gst
eq "apirec stacks: Chrome: args.stack on the 100 runtime calls, none on the driver calls" "100 0 wait_here" \
	"$(python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["traceEvents"]
rt = [x for x in e if x.get("cat") == "cuda_runtime"]
dr = [x for x in e if x.get("cat") == "cuda_driver"]
print(sum("stack" in x["args"] for x in rt), sum("stack" in x["args"] for x in dr), rt[0]["args"]["stack"][0])' ar_st.json)"
$GS export -t perfetto -o ar_st.pftrace ar_st.gst
out=$(python3 "$ROOT/tests/cases/export_pb.py" "$GS" ar_st.gst ar_st.pftrace 2>&1)
eq "apirec stacks: Perfetto: the stack annotations agree with cuda_api_stack_sum ($out)" 0 $?
$GS export -t sqlite -o ar_st.sqlite ar_st.gst
out=$(python3 "$ROOT/tests/cases/export_sqlite.py" "$GS" ar_st.gst ar_st.sqlite 2>&1)
eq "apirec stacks: SQLite: CUDA_CALLCHAINS agree with cuda_api_stack_sum ($out)" 0 $?
for o in --cudabacktrace=none --cuda-api=none; do
	$GS profile -o ar_st_$o --sample none $o -- "$P/cuda_apirec" --stacks 2 10 100 >/dev/null 2>&1
	eq "apirec stacks, $o: no stacks, none said" "0 " \
		"$($GS dump --format jsonl ar_st_$o.gst | grep -c '"event":"cuda_stack"') $($GS info ar_st_$o.gst | grep 'with call stacks')"
done
for v in bogus sync, :5 sync:2000s; do
	$GS profile --cudabacktrace=$v -o ar_bad -- true >/dev/null 2>ar_bad.err
	eq "apirec stacks: --cudabacktrace=$v is a usage error" "2 1" "$? $(grep -c 'cudabacktrace' ar_bad.err)"
done
$GS profile --cudabacktrace=kernel,sync:2ms -o ar_env -t nvtx -- sh -c 'echo "$GPUSCOPE_CUDA_BACKTRACE"' >ar_env.out 2>/dev/null
eq "apirec stacks: --cudabacktrace=kernel,sync:2ms reaches the collector as kinds:ns" "kernel,sync:2000000" "$(cat ar_env.out)"

# the chunks mapped ahead (GPUSCOPE_RING_AHEAD, default 4): a thread of the collector's maps the
# chunks past the ring's high-water mark before they are taken, so their first records do not
# fault their pages in on the program's thread (tests/programs/cuda_apirec --resident: the 4
# threads take a chunk each)
for a in default 0 4 16; do
	if [ $a = default ]; then
		$GS profile -o ar_ah --sample none -- "$P/cuda_apirec" --resident 4 50 300 >ar_ah.out 2>ar_ah.err
	else
		GPUSCOPE_RING_AHEAD=$a $GS profile -o ar_ah --sample none -f -- "$P/cuda_apirec" --resident 4 50 300 >ar_ah.out 2>ar_ah.err
	fi
	want=$((4 + ${a/default/4}))
	eq "apirec, chunks mapped ahead ($a): the 4 taken and $((want - 4)) more" "chunks taken 4 mapped $want ok" "$(tr '\n' ' ' <ar_ah.out | sed 's/ $//')"
done
# 25 waves of 4 threads write 2,000 records each into 16 KiB chunks: the mapped chunks follow
# the high-water mark
$GS profile -o ar_ahw --sample none -- "$P/cuda_apirec" --resident --waves 25 4 2000 0 >ar_ahw.out 2>ar_ahw.err
eq "apirec, chunks mapped ahead over 25 waves: 4 past the last taken" True \
	"$(python3 -c 'import sys; w = open(sys.argv[1]).read().split(); print(w[0:2] == ["chunks", "taken"] and int(w[2]) > 8 and int(w[4]) == int(w[2]) + 4)' ar_ahw.out)"
