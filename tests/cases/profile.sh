# profile.sh: profile the real NVTX programs in tests/programs and check the traces against
# what the programs did. Counts are exact; durations of sleeping ranges within tolerance.
echo "profile:"
cd "$T" || exit 1

stats_csv() { $GS stats -r nvtx_sum --format csv -o "$2" "$1" 2>/dev/null; }
field() { csv_field "$1" "$2" "$3"; }

# nested ranges on 4 threads, thread names
$GS profile --sample none -o threads "$P/nvtx_threads" 4 100 2>"$T/threads.err"; eq "threads: exit 0" 0 $?
has "threads: summary line" "gpuscope: wrote threads.gst" "$(cat "$T/threads.err")"
has "threads: summary counts" "1 process, 5 threads, 1,201 events, 0 lost" "$(cat "$T/threads.err")"
stats_csv threads.gst threads.csv
eq "threads: outer instances" 400 "$(field threads.csv :outer Instances)"
eq "threads: inner instances" 800 "$(field threads.csv :inner Instances)"
eq "threads: main_range instances" 1 "$(field threads.csv :main_range Instances)"
eq "threads: style" PushPop "$(field threads.csv :inner Style)"
eq "threads: csv header" 'Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range' "$(head -1 threads.csv)"
info=$($GS info threads.gst)
has "threads: complete" "state:       complete" "$info"
has "threads: 5 threads" "threads (5):" "$info"
for i in 0 1 2 3; do has "threads: name worker-$i" "worker-$i (nvtx: nvtx-worker-$i)" "$info"; done
has "threads: main named" "(nvtx: main)" "$info"
has "threads: exit status" "exit status: 0" "$info"
levels=$($GS dump threads.gst | grep -c 'name="inner".*level=1')
eq "threads: inner ranges at level 1" 800 "$levels"
$GS stats -r nvtx_sum --format json threads.gst >threads.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["rows"]; assert sum(r["Instances"] for r in d)==1201; assert abs(sum(r["Time (%)"] for r in d)-100)<0.5' threads.json
eq "threads: json stats valid" 0 $?
$GS dump --format jsonl threads.gst >threads.jsonl
python3 -c 'import json,sys; n=sum(1 for l in open(sys.argv[1]) if json.loads(l).get("event")=="range"); assert n==1201, n' threads.jsonl
eq "threads: dump jsonl has every range" 0 $?

# the default name and the overwrite guard
rm -f report1.gst report2.gst
$GS profile "$P/nvtx_loop" 10 2>/dev/null; $GS profile "$P/nvtx_loop" 10 2>/dev/null
eq "default names report1, report2" "report1.gst report2.gst" "$(echo report1.gst report2.gst | xargs ls 2>/dev/null | xargs)"
err=$($GS profile -o threads "$P/nvtx_loop" 5 2>&1); eq "refuses to overwrite: exit 1" 1 $?
has "refuses to overwrite: message" "'threads.gst' exists (use -f to overwrite it)" "$err"
$GS profile -f -o threads "$P/nvtx_loop" 5 2>/dev/null; eq "-f overwrites" 0 $?
stats_csv threads.gst ow.csv; eq "-f: new content" 5 "$(field ow.csv :loop Instances)"

# name patterns
RANK=3 $GS profile -o 'run_%q{RANK}' "$P/nvtx_loop" 3 2>/dev/null
eq "%q{RANK}" yes "$( [ -f run_3.gst ] && echo yes)"
$GS profile -o 'pid_%p' "$P/nvtx_loop" 3 2>/dev/null
f=$(ls pid_*.gst 2>/dev/null | head -1); pid=${f#pid_}; pid=${pid%.gst}
has "%p is the program's pid" "pid $pid " "$($GS info "$f")"
# a name ending in '/' is a folder: the trace goes into it as report1.gst, report2.gst, ...
mkdir -p into
$GS profile -o into/ "$P/nvtx_loop" 1 2>/dev/null && $GS profile -o into/ "$P/nvtx_loop" 1 2>/dev/null
eq "-o FOLDER/: reportN.gst inside it" "report1.gst report2.gst" "$(ls into | tr '\n' ' ' | sed 's/ $//')"
err=$($GS profile -o '' "$P/nvtx_loop" 1 2>&1); eq "-o '': usage error" 2 $?
has "-o '': says so" "the output name is empty" "$err"
# with -f too the name gets its .gst (it was written without one)
$GS profile -f -o 'fpid_%p' "$P/nvtx_loop" 1 2>/dev/null
eq "-f with %p: NAME.gst" "1 0" "$(ls fpid_*.gst 2>/dev/null | wc -l) $(ls fpid_* | grep -vc '\.gst$')"
err=$($GS profile -o 'x_%q{NO_SUCH_VAR_GS}' "$P/nvtx_loop" 1 2>&1); eq "%q of unset variable: exit 2" 2 $?

# start/end ranges crossing threads, attributes
$GS profile -o startend "$P/nvtx_startend" 20 2>/dev/null; eq "startend: exit 0" 0 $?
stats_csv startend.gst se.csv
eq "startend: cross instances" 20 "$(field se.csv :cross Instances)"
eq "startend: style" StartEnd "$(field se.csv :cross Style)"
eq "startend: same_thread" 1 "$(field se.csv :same_thread Instances)"
between "startend: cross min >= 1 ms" 1000000 100000000 "$(field se.csv :cross 'Min (ns)')"
d=$($GS dump startend.gst)
eq "startend: ended on another thread" 20 "$(printf '%s\n' "$d" | grep 'name="cross"' | grep -vc 'end_tid=0')"
has "startend: attributes kept" 'name="attr_range" category=7 color=4278255360 payload_type=2 payload=42' "$d"

# domains, registered strings, categories, payloads, wide strings, return values
out=$($GS profile -o features "$P/nvtx_features" 2>/dev/null)
eq "features: push/pop return levels" "push:0 1 2 pop:2 1 0" "$out"
stats_csv features.gst ft.csv
eq "features: registered string in domain" 3 "$(field ft.csv mydomain:registered_name Instances)"
eq "features: wide name" 1 "$(field ft.csv ':wide_ränge' Instances)"
eq "features: domain start/end" StartEnd "$(field ft.csv mydomain:dom_startend Style)"
eq "features: nesting" "1 1 1" "$(field ft.csv :depth0 Instances) $(field ft.csv :depth1 Instances) $(field ft.csv :depth2 Instances)"
d=$($GS dump features.gst)
has "features: double payload" 'name="mark_f64" domain="mydomain" category=2 color=4278190335 payload_type=3 payload=4612811918334230528' "$d"
has "features: wide domain mark" 'name="wdomain_mark" domain="wdomain"' "$d"
has "features: category name" 'name="dom_cat_two"' "$d"
has "features: marks counted" "nvtx marks                9" "$($GS info features.gst)"

# fork: the child keeps tracing into its own stream
$GS profile -o fork "$P/nvtx_fork" 2>/dev/null; eq "fork: exit 0" 0 $?
stats_csv fork.gst fork.csv
eq "fork: parent ranges" "10 10" "$(field fork.csv :parent_before Instances) $(field fork.csv :parent_after Instances)"
eq "fork: child ranges" 20 "$(field fork.csv :child_range Instances)"
between "fork: child sleep ~20 ms" 20000000 35000000 "$(field fork.csv :child_sleep 'Max (ns)')"
has "fork: two processes" "processes (2):" "$($GS info fork.gst)"
$GS profile -o fork2 "$P/nvtx_fork" exit 2>/dev/null; stats_csv fork2.gst fork2.csv
eq "fork+exit(): child ranges" 20 "$(field fork2.csv :child_range Instances)"

# exec: the new image is traced, same pid
$GS profile -o exec "$P/nvtx_exec" 2>/dev/null; eq "exec: exit 0" 0 $?
stats_csv exec.gst exec.csv
eq "exec: both images" "5 7" "$(field exec.csv :before_exec Instances) $(field exec.csv :after_exec Instances)"
has "exec: second image" "(after exec #1)" "$($GS info exec.gst)"

# where the rings live: in memory (a memfd sent through the session directory's ring.sock),
# their files in the session directory empty; with GPUSCOPE_RING_MEMORY=0 in the files.
# (bash, preloaded for sampling, makes a ring; its builtins look at the directory.)
look='for f in "$GPUSCOPE_SESSION_DIR"/*; do case $f in *.ring) [ -s "$f" ] && echo "ring in the file" || echo "ring file empty" ;; */ring.sock) [ -S "$f" ] && echo socket ;; esac; done'
eq "rings: in memory, the ring file empty, the socket there" "ring file empty|socket" \
	"$($GS profile -o rings_mem bash -c "$look" 2>/dev/null | sort | paste -sd'|')"
eq "rings: GPUSCOPE_RING_MEMORY=0, the ring in the file" "ring in the file|socket" \
	"$(GPUSCOPE_RING_MEMORY=0 $GS profile -o rings_file bash -c "$look" 2>/dev/null | sort | paste -sd'|')"
# a session directory too deep for a socket's path (107 bytes): an abstract socket named after
# it, so the rings are in memory there too (no socket file)
deep="$T/$(printf 'd%.0s' $(seq 60))/$(printf 'e%.0s' $(seq 50))"
mkdir -p "$deep"
eq "rings: a deep session directory, the ring in memory all the same" "ring file empty" \
	"$($GS profile -o "$deep/rings_deep" bash -c "$look" 2>/dev/null | sort | paste -sd'|')"
has "rings: ... and the trace written" "state:       complete" "$($GS info "$deep/rings_deep.gst")"
for mem in 1 0; do # the same records either way, forks and execs included
	GPUSCOPE_RING_MEMORY=$mem $GS profile --sample none -o rings_t$mem "$P/nvtx_threads" 4 100 2>rings_t$mem.err
	has "rings (memory $mem): threads, every record" "1 process, 5 threads, 1,201 events, 0 lost" "$(cat rings_t$mem.err)"
	GPUSCOPE_RING_MEMORY=$mem $GS profile -o rings_f$mem "$P/nvtx_fork" 2>/dev/null
	stats_csv rings_f$mem.gst rings_f$mem.csv
	eq "rings (memory $mem): fork, parent and child ranges" "10 10 20" \
		"$(field rings_f$mem.csv :parent_before Instances) $(field rings_f$mem.csv :parent_after Instances) $(field rings_f$mem.csv :child_range Instances)"
	GPUSCOPE_RING_MEMORY=$mem $GS profile -o rings_e$mem "$P/nvtx_exec" 2>/dev/null
	stats_csv rings_e$mem.gst rings_e$mem.csv
	eq "rings (memory $mem): exec, both images" "5 7" "$(field rings_e$mem.csv :before_exec Instances) $(field rings_e$mem.csv :after_exec Instances)"
done
# 64 processes started at once: each gets its ring in memory (none falls back to its file)
GPUSCOPE_DEBUG=1 $GS profile -o rings_burst bash -c 'for i in $(seq 64); do "$0" 1 & done; wait' "$P/nvtx_loop" >/dev/null 2>rings_burst.err
eq "rings: 64 processes at once, none fell back to a file" 0 "$(grep -c 'no ring in memory' rings_burst.err)"
eq "rings: 64 processes at once, every one's range" 64 "$($GS stats -r nvtx_sum --format csv rings_burst.gst 2>/dev/null | python3 -c 'import csv,sys; print(sum(int(r["Instances"]) for r in csv.DictReader(sys.stdin)))')"
# with a low open-files limit (64): the CLI raises its own for the memfds it holds, the program
# keeps the limit it was given
eq "rings: the program keeps its open-files limit" 64 "$(ulimit -Sn 64 && $GS profile -o rings_nofile bash -c 'ulimit -Sn' 2>/dev/null)"
GPUSCOPE_DEBUG=1 bash -c 'ulimit -Sn 64 && "$0" profile -o rings_burst64 bash -c "for i in \$(seq 100); do \"\$0\" 1 & done; wait" "$1"' "$GS" "$P/nvtx_loop" >/dev/null 2>rings_burst64.err
eq "rings: 100 processes at once under a limit of 64 descriptors, none fell back to a file" 0 "$(grep -c 'no ring in memory' rings_burst64.err)"
eq "rings: ... every one's range" 100 "$($GS stats -r nvtx_sum --format csv rings_burst64.gst 2>/dev/null | python3 -c 'import csv,sys; print(sum(int(r["Instances"]) for r in csv.DictReader(sys.stdin)))')"
# a hard limit of 64 descriptors (the CLI cannot raise its own): 100 processes at once, each
# filling chunks that the drain moves into a spool while they run. The CLI opens a spool only
# for a ring that has chunks to move and keeps at most a quarter of its limit open, least
# recently used closed first; a ring's memory is taken from the socket only with a descriptor
# free for it (with none, the kernel drops it from the message)
GPUSCOPE_DEBUG=1 bash -c 'ulimit -n 64 && ulimit -Hn 64 && "$0" profile -o rings_hard64 bash -c "for i in \$(seq 100); do \"\$0\" 3000 & done; wait" "$1"' "$GS" "$P/nvtx_loop" >/dev/null 2>rings_hard64.err
eq "rings: hard limit of 64, 100 processes at once: every range" 300000 "$($GS stats -r nvtx_sum --format csv rings_hard64.gst 2>/dev/null | python3 -c 'import csv,sys; print(sum(int(r["Instances"]) for r in csv.DictReader(sys.stdin)))')"
eq "rings: ... no ring unread" 0 "$(grep -c 'could not be read' rings_hard64.err)"
drain_line=$(grep '^gpuscope: drain:' rings_hard64.err)
has "rings: ... at most 16 spools open at once" "at most 16 open at once (16 allowed)" "$drain_line"
between "rings: ... and a spool for each process (made, then reopened to be read)" 100 101 "$(printf '%s\n' "$drain_line" | sed -n 's/.* \([0-9]*\) spools made.*/\1/p')"
# a ring file that is never readable (a process that ended while making it: here an empty one
# with no memory sent for it) is reported, not silently left out
err=$($GS profile -o rings_unread bash -c ': >"$GPUSCOPE_SESSION_DIR/999999-0.ring"' 2>&1)
eq "rings: an unreadable ring, the program's status kept" 0 $?
has "rings: ... reported" "1 ring of the session could not be read" "$err"
hasnt "rings: none reported when every ring was read" "could not be read" "$(cat rings_hard64.err)"
# a session kept because the trace cannot be written: the rings held in memory are written
# into their files there, holes for their pages of zeros
err=$($GS profile -o rings_kept bash -c 'echo x >rings_kept.gst' 2>&1)
kept=$(printf '%s\n' "$err" | sed -n "s/.*the raw session is kept in '\(.*\)'.*/\1/p")
has "rings: a kept session says where" "the raw session is kept in" "$err"
eq "rings: a kept session's ring file holds the ring (its size, written from memory)" 69246976 \
	"$(stat -c %s "$kept"/*-0.ring 2>/dev/null | head -1)"
between "rings: ... sparse (KiB on disk)" 1 8192 "$(du -k "$kept"/*-0.ring 2>/dev/null | head -1 | cut -f1)"
rm -rf "$kept" rings_kept.gst

# the clock is chosen once for the session and passed on: the program sees what the trace says
clk=$($GS profile -o clk_auto bash -c 'echo "$GPUSCOPE_CLOCK"' 2>/dev/null)
has "clock: the session's choice passed on (auto resolved)" "(clock: $clk)" "$($GS info clk_auto.gst | grep '^sources')"
eq "clock: resolved to tsc or monotonic" 1 "$(case $clk in tsc | monotonic) echo 1 ;; *) echo 0 ;; esac)"
eq "clock: a value the user set is kept" monotonic "$(GPUSCOPE_CLOCK=monotonic $GS profile -o clk_mono bash -c 'echo "$GPUSCOPE_CLOCK"' 2>/dev/null)"
has "clock: ... and used" "(clock: monotonic)" "$($GS info clk_mono.gst | grep '^sources')"

# deaths: status passed through, what was recorded survives
for mode in segv:139 abort:134 sigterm:143 exit3:3 _exit4:4 return5:5; do
	m=${mode%%:*}; want=${mode#*:}
	ASAN_OPTIONS=handle_segv=0:handle_abort=0:${ASAN_OPTIONS:-} $GS profile -o "crash_$m" "$P/nvtx_crash" "$m" 100 >/dev/null 2>&1
	eq "$m: exit status $want" "$want" $?
	stats_csv "crash_$m.gst" "crash_$m.csv"
	eq "$m: 100 ranges before the end" 100 "$(field "crash_$m.csv" :before_crash Instances)"
	has "$m: open range kept" "nvtx ranges never ended   1" "$($GS info "crash_$m.gst")"
done

# SIGKILL from outside: the collector gets no chance to run, the ring file still holds it all
rm -f fifo; mkfifo fifo
$GS profile -o killed "$P/nvtx_crash" kill 100 >fifo 2>/dev/null &
gp=$!
read -r line <fifo
prog=$(pgrep -P "$gp" | head -1)
kill -KILL "$prog"; wait "$gp"; rc=$?
eq "SIGKILL: ready line passed through" ready "$line"
eq "SIGKILL: exit 137" 137 $rc
stats_csv killed.gst killed.csv
eq "SIGKILL: 100 ranges survive" 100 "$(field killed.csv :before_crash Instances)"

# signals sent to gpuscope reach the program
$GS profile -o term "$P/nvtx_crash" kill 5 >fifo 2>/dev/null &
gp=$!; read -r line <fifo; kill -TERM "$gp"; wait "$gp"; rc=$?
eq "SIGTERM to gpuscope reaches the program" 143 $rc

# the program's behaviour is unchanged: output, input, exit status
want=$(echo hello | "$P/nvtx_signal" stdin 2>"$T/sig0.err"; echo "rc=$?")
got=$(echo hello | $GS profile -o sig "$P/nvtx_signal" stdin 2>"$T/sig1.err"; echo "rc=$?")
eq "signal: same stdout and status" "$want" "$got"
eq "signal: stdout" "handled 5
got: hello
rc=7" "$got"
eq "signal: program stderr unchanged" "to-stderr" "$(grep -v '^gpuscope: wrote' "$T/sig1.err")"
has "signal: marks from the handler" "nvtx marks                5" "$($GS info sig.gst)"

# --stats (nsys's --stats=true): the overview after the program's own output, on standard
# output; the program's exit status kept
got=$($GS profile --stats -o stats1 bash -c 'echo from-the-program; exit 3' 2>stats1.err); rc=$?
eq "--stats: the program's exit status" 3 $rc
eq "--stats: the program's output, then the overview of the trace" "from-the-program
$($GS stats stats1.gst)" "$got"
has "--stats: the overview's sections" "Lost records: none" "$got"
eq "--stats: the trace named on stderr as without it" 1 "$(grep -c '^gpuscope: wrote stats1.gst' stats1.err)"
got=$($GS profile --stats -o -dash bash -c 'exit 0' 2>/dev/null)
eq "--stats: a trace whose name begins with '-'" "$($GS stats -- -dash.gst)" "$got"
has "--stats: a trace whose name begins with '-': its overview" "Lost records: none" "$got"
got=$($GS profile --stats=false -o stats2 bash -c 'echo only-this' 2>/dev/null)
eq "--stats=false: the program's output alone" "only-this" "$got"
err=$($GS profile --stats=yes -o stats3 true 2>&1); eq "--stats=yes: usage error" 2 $?
has "--stats=yes: says what it takes" "--stats takes true or false, not 'yes'" "$err"
[ ! -e stats3.gst ]; eq "--stats=yes: the program not run, no trace" 0 $?

# silent unless GPUSCOPE_DEBUG
$GS profile -o quiet "$P/nvtx_loop" 10 2>q.err >/dev/null
eq "collector silent" "" "$(grep -v '^gpuscope: wrote' q.err)"
GPUSCOPE_DEBUG=1 $GS profile -o loud "$P/nvtx_loop" 10 2>l.err >/dev/null
has "GPUSCOPE_DEBUG logs" "gpuscope-inject[" "$(cat l.err)"

# a program that cannot be run
err=$($GS profile -o nope /no/such/program 2>&1); eq "missing program: 127" 127 $?
has "missing program message" "cannot run '/no/such/program': No such file or directory" "$err"
eq "missing program: no trace" no "$( [ -f nope.gst ] && echo yes || echo no)"

# many short-lived threads
$GS profile --sample none -o many "$P/nvtx_many_threads" 2000 2>/dev/null; eq "2000 threads: exit 0" 0 $?
stats_csv many.gst many.csv
eq "2000 threads: 20000 ranges" 20000 "$(field many.csv :t Instances)"
has "2000 threads: all threads" "threads (2000):" "$($GS info many.gst)"

# durations of sleeping ranges
$GS profile -o sleep "$P/nvtx_sleep" 2>/dev/null
stats_csv sleep.gst sleep.csv
between "sleep_10ms avg" 10000000 13000000 "$(field sleep.csv :sleep_10ms 'Avg (ns)')"
between "sleep_30ms avg" 30000000 34000000 "$(field sleep.csv :sleep_30ms 'Avg (ns)')"
between "outer_50ms avg" 50000000 56000000 "$(field sleep.csv :outer_50ms 'Avg (ns)')"
between "inner_20ms avg" 20000000 23000000 "$(field sleep.csv :inner_20ms 'Avg (ns)')"
eq "sleep counts" "5 3 2 2" "$(field sleep.csv :sleep_10ms Instances) $(field sleep.csv :sleep_30ms Instances) $(field sleep.csv :outer_50ms Instances) $(field sleep.csv :inner_20ms Instances)"

# capture ranges and windows on the same program: nvtx:NAME keeps what happens while a range
# of that name is open; --duration stops after the first 10 ms ranges (done by ~50 ms), well
# before the outer ranges start (>= 140 ms); --delay skips them
$GS profile -o cap -c nvtx:outer_50ms "$P/nvtx_sleep" 2>cap.err; eq "capture nvtx: exit 0" 0 $?
hasnt "capture nvtx: no warning that it never opened" "never opened" "$(cat cap.err)"
$GS stats -r nvtx_sum --format csv -o cap.csv cap.gst 2>/dev/null
eq "capture nvtx:outer_50ms: the two outer ranges and what they hold, nothing else" "2 2 ||" \
	"$(field cap.csv :outer_50ms Instances) $(field cap.csv :inner_20ms Instances) $(field cap.csv :sleep_10ms Instances)|$(field cap.csv :sleep_30ms Instances)|"
$GS profile -o capno -c nvtx:no_such_range "$P/nvtx_sleep" 2>capno.err; eq "capture nvtx, range never opened: exit 0" 0 $?
has "capture nvtx, range never opened: a warning says so" "gpuscope: warning: the capture range never opened: no NVTX range named 'no_such_range' was pushed or started" "$(cat capno.err)"
has "capture nvtx, range never opened: no ranges" "nvtx ranges (push/pop)    0" "$($GS info capno.gst)"
$GS profile -o dur --duration 100ms "$P/nvtx_sleep" 2>/dev/null; eq "--duration: exit 0" 0 $?
$GS stats -r nvtx_sum --format csv -o dur.csv dur.gst 2>/dev/null
# (the window opens when gpuscope starts: a program that takes over 50 ms to start on a loaded
# machine has ended fewer than its 5 first ranges by 100 ms; it never reaches the outer ones)
between "--duration 100ms: the first ranges" 1 5 "$(field dur.csv :sleep_10ms Instances)"
eq "--duration 100ms: not the late ones" "" "$(field dur.csv :outer_50ms Instances)"
$GS profile -o del --delay 0.1 "$P/nvtx_sleep" 2>/dev/null; eq "--delay: exit 0" 0 $?
$GS stats -r nvtx_sum --format csv -o del.csv del.gst 2>/dev/null
eq "--delay 0.1: the late ranges, not the first ones" "2 2|" "$(field del.csv :outer_50ms Instances) $(field del.csv :inner_20ms Instances)|$(field del.csv :sleep_10ms Instances)"
$GS profile -o bad --delay 1 -c cudaProfilerApi true >/dev/null 2>&1; eq "--delay with --capture-range: usage error" 2 $?
# cudaProfilerApi in a program that never calls cudaProfilerStart (no CUDA here): said (a
# range that opened is checked on the GPU, tests/gpu/cuda.sh)
$GS profile -o capapi -c cudaProfilerApi "$P/nvtx_loop" 2 2>capapi.err; eq "capture cudaProfilerApi, never started: exit 0" 0 $?
has "capture cudaProfilerApi, never started: a warning says so" "gpuscope: warning: nothing was recorded in the capture range: the program never called cudaProfilerStart" "$(cat capapi.err)"
$GS profile -o bad --duration 0 true >/dev/null 2>&1; eq "--duration 0: usage error" 2 $?
$GS profile -o bad -c nvtx: true >/dev/null 2>&1; eq "--capture-range=nvtx: without a name: usage error" 2 $?

# libgpuscope-preload.so: gpuscope puts it in LD_PRELOAD with --trace cuda, after the user's;
# its CUPTI guard refuses a foreign library once gpuscope owns CUPTI (one warning), lets the
# owner through; its exec wrappers run the owner's hook first
PL=$(dirname "$GS")/../lib/libgpuscope-preload.so
out=$($GS profile -o pre -t cuda,nvtx -- sh -c 'echo "$LD_PRELOAD"' 2>/dev/null)
has "preload: in LD_PRELOAD with --trace cuda" "libgpuscope-preload.so" "$out"
out=$(LD_PRELOAD=/nonexistent-first.so $GS profile -f -o pre -t cuda,nvtx -- sh -c 'echo "$LD_PRELOAD"' 2>/dev/null)
has "preload: after the user's LD_PRELOAD" "/nonexistent-first.so:" "$out"
out=$($GS profile -f -o pre -t nvtx --sample none -- sh -c 'echo "[$LD_PRELOAD]"' 2>/dev/null)
# (a build without TLS descriptors, clang before 19, marks the collector STATIC_TLS and preloads it always)
if readelf -d "$(dirname "$GS")/../lib/libgpuscope-inject.so" | grep -q STATIC_TLS; then
	eq "preload: with --trace nvtx, the collector alone (initial-exec TLS)" "[$(cd "$(dirname "$GS")/../lib" && pwd)/libgpuscope-inject.so]" "$out"
else
	eq "preload: not with --trace nvtx" "[]" "$out"
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
out=$(LD_PRELOAD=$PL "$P/preload_guard" foreign 2>pg.err)
eq "preload guard: foreign CUPTI calls refused (MULTIPLE_SUBSCRIBERS)" "subscribe 39 enable 39 again 39" "$out"
eq "preload guard: one warning naming the caller" "1 1" "$(grep -c 'called cuptiSubscribe, but gpuscope holds CUPTI' pg.err) $(grep -c 'preload_guard' pg.err)"
out=$(LD_PRELOAD=$PL "$P/preload_guard" owner 2>pg.err)
eq "preload guard: the owner's calls pass through (no CUPTI here)" "subscribe 15 enable 15 again 15|" "$out|$(cat pg.err)"
out=$(LD_PRELOAD=$PL "$P/preload_guard" exec 2>&1)
eq "preload exec: the hook runs before exec" "hook after" "$(echo $out)"

# cut traces: every prefix still opens, flagged incomplete; a flipped byte is reported
size=$(stat -c %s sleep.gst); okcut=1
for cut in 63 64 100 200 $((size / 2)) $((size - 1)); do
	head -c "$cut" sleep.gst >cut.gst
	o=$($GS info cut.gst 2>&1); rc=$?
	case "$o" in *incomplete*|*damaged*|*"not a gpuscope trace"*) ;; *) okcut=0; echo "cut $cut: $o" | head -3 ;; esac
	[ $rc -le 1 ] || okcut=0
done
eq "cut traces open, flagged" 1 "$okcut"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[100] ^= 0xFF; open(sys.argv[2], "wb").write(b)' sleep.gst flip.gst
has "flipped byte: damaged" "damaged" "$($GS info flip.gst 2>&1)"

# a good guest: two NVTX instances reach one registry; errno is never changed
out=$($GS profile -o guest "$P/nvtx_guest" "$P/libnvtx_peer.so" 2>/dev/null); eq "guest: errno kept" "errno kept" "$out"
stats_csv guest.gst guest.csv
eq "guest: main's ranges" "1 2" "$(field guest.csv :main_range Instances) $(field guest.csv shared_domain:main_in_domain Instances)"
eq "guest: the peer library's ranges, same domain" "4 1" "$(field guest.csv shared_domain:peer_registered Instances) $(field guest.csv :peer_range Instances)"

# edges: more domains than the per-thread table, nvtxRangeEnd(0), pop without push
out=$($GS profile -o edge "$P/nvtx_edge" domains 2>/dev/null); eq "edge: push levels" "levels 0 0" "$out"
stats_csv edge.gst edge.csv
eq "edge: 40 domains, one range each" 40 "$(grep -c ',PushPop,d[0-9]*:r$' edge.csv)"
eq "edge: nothing unpaired" "0 0" "$($GS info edge.gst | awk '/never ended/ {n=$NF} /unmatched/ {u=$3} END {print n, u}')"
$GS profile -o misuse "$P/nvtx_edge" misuse 2>/dev/null; eq "misuse: exit 0" 0 $?
stats_csv misuse.gst misuse.csv; eq "misuse: the good range" 1 "$(field misuse.csv :ok Instances)"
has "misuse: both counted" "unmatched pops/ends       2" "$($GS info misuse.gst)"
# a child that outlives the program: recorded until the program ends, and marked so
$GS profile -o orphan "$P/nvtx_edge" orphan 2>orphan.err; eq "orphan: exit 0" 0 $?
has "orphan: summary says still running" "1 process still running" "$(cat orphan.err)"
stats_csv orphan.gst orphan.csv
eq "orphan: ranges before the end" 3 "$(field orphan.csv :orphan_before Instances)"
has "orphan: marked in info" "still running when the session ended" "$($GS info orphan.gst)"
# A fork child makes its ring at its first record (collector/ring.c): one that records nothing
# (it execs or exits at once) costs no ring and is not in the trace; one that records is, from
# its fork on. A child forked just before the program ends that has recorded nothing yet is not
# waited for (it sleeps 1 s before its first range).
t0=$(date +%s%N)
$GS profile -o qfork "$P/nvtx_edge" quick_fork 2>qfork.err; eq "quick fork: exit 0" 0 $?
between "quick fork: the child not waited for, ms" 0 900 $((($(date +%s%N) - t0) / 1000000))
eq "quick fork: the program alone" 1 "$($GS info qfork.gst | sed -n 's/^processes (\([0-9]*\)):/\1/p')"
$GS profile -o forks "$P/nvtx_edge" forks 20 2>forks.err; eq "forks: exit 0" 0 $?
eq "forks: the program and the 20 children that recorded" 21 "$($GS info forks.gst | sed -n 's/^processes (\([0-9]*\)):/\1/p')"
stats_csv forks.gst forks.csv
eq "forks: each child's range, and the program's" "20 1" "$(field forks.csv :child Instances) $(field forks.csv :parent Instances)"
# (samples due while a fork was being made are skipped, and counted)
lostv=$($GS info forks.gst | sed -n 's/^lost records: //p' | sed 's/none//; s/,* *sample_skipped [0-9]*//')
eq "forks: no record lost" "" "$lostv"
# (seen once, thread_limit 1 in one CI run of 6 on 2026-12-06: most likely the program's one CPU
# sample coming while its first NVTX call gave its thread a slot, which lost it until ba476bc;
# tests/cases/host.sh holds a thread there. On a failure, which process and thread lost it:)
[ -z "$lostv" ] || { $GS dump --format jsonl forks.gst | grep '"k10"' | cut -c1-300; $GS info forks.gst | sed -n '/^threads/,$p' | awk 'NR == 1 || $4 > 0'; } | sed 's/^/       /'
# a child's process starts at its fork, not at its first record (0.3 s later here)
$GS profile -o slowc "$P/nvtx_edge" slow_child 2>/dev/null; eq "slow child: exit 0" 0 $?
between "slow child: its process lasts from its fork, ms" 290 2000 \
	"$($GS info slowc.gst | awk '/^  pid / { if (!root) root = $2; else if ($4 == root) print $5 }')"
# a fork child's 8 threads record at once: one makes the ring, the others wait for it
for i in 1 2 3; do
	$GS profile -f -o fthr "$P/nvtx_edge" fork_threads 2>/dev/null
	rc=$?
	stats_csv fthr.gst fthr.csv
	# (threads with 100 events each: a CPU sample may give the program's main thread, or the
	# child's, a slot of its own under the sanitizer's slower start)
	eq "fork threads (run $i): exit 0, the 800 ranges, 2 processes, 8 threads of 100 ranges, nothing lost" "0 800 2 8 none" \
		"$rc $(field fthr.csv :t Instances) $($GS info fthr.gst | sed -n 's/^processes (\([0-9]*\)):/\1/p') $($GS info fthr.gst | awk '/^threads \(/ {f = 1; next} f && NF == 0 {f = 0} f && $3 == 100 {n++} END {print n + 0}') $($GS info fthr.gst | sed -n 's/^lost records: //p')"
done
# ... and forked at once, while the collector's thread is starting: 40 runs end. Under
# AddressSanitizer (GCC's runtime takes no lock of its allocator around a fork) the child's
# threads waited for ever on the allocator's lock that the starting thread held at the fork,
# in about one run in six, until a collector thread's start became part of the fork gate.
hung=0
for i in $(seq 40); do
	timeout -s KILL 15 $GS profile -f -o fthr_q "$P/nvtx_edge" fork_threads >/dev/null 2>&1
	[ $? = 0 ] || hung=$((hung + 1))
done
eq "fork at start: 40 runs, each ends with exit 0" 0 "$hung"
# The same for the other programs a session runs (GPUSCOPE_ROOT_PID): a script's short commands
# that record nothing make no ring; one that records is there from its start (the NVTX program
# sleeps 0.3 s in a child before its first range; the exec'd image it forks from records
# nothing itself). The program started keeps its ring and exit status. (At 10 Hz: under the
# sanitizer, an image's start took the 1 ms of CPU time that gives it a sample at 1 kHz, and
# with it a ring, in 1 run of 9; sampling stays on, so the shell is preloaded.)
$GS profile -o script --sampling-frequency 10 bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done; "$0" slow_child; exit 3' "$P/nvtx_edge" 2>/dev/null
eq "script: exit 3 kept" 3 $?
eq "script: the shell and the recording child, not the 11 images that recorded nothing" 2 \
	"$($GS info script.gst | sed -n 's/^processes (\([0-9]*\)):/\1/p')"
has "script: the shell's exit status" "exit 3" "$($GS info script.gst | grep -A1 '^  pid' | head -1)"
stats_csv script.gst script.csv; eq "script: the child's range" 1 "$(field script.csv :late Instances)"
# such an image's threads that exit seal their chunks and are marked exited, as the program's
$GS profile -o script_thr --sample none bash -c '"$0" 4 100; exit 0' "$P/nvtx_threads" 2>/dev/null
eq "script: an image's 4 workers, each marked exited" 4 \
	"$($GS dump --format jsonl script_thr.gst | grep '"chunk":"thread"' | grep '"k3":"worker-' | grep -c '"k6":1')"
sleep 1.6

# output names with %h in the directory and %p in the file; an empty source list
mkdir -p "sub_$(hostname | tr '/' '_')"
$GS profile -o 'sub_%h/t_%p' "$P/nvtx_loop" 2 2>/dev/null; eq "%h directory with %p file" 0 $?
eq "%h/%p trace written" 1 "$(ls sub_*/t_*.gst 2>/dev/null | wc -l)"
$GS profile -t '' true 2>/dev/null; eq "empty --trace: exit 2" 2 $?

# Ctrl-C at a terminal reaches the program once; gpuscope survives it and writes the trace
out=$(python3 "$ROOT/tests/cases/ctrl_c.py" "$GS" "$P" ctrlc 2>&1)
has "Ctrl-C: gpuscope exits 130" "exit=130" "$out"
has "Ctrl-C: trace written" "gpuscope: wrote ctrlc.gst" "$out"
stats_csv ctrlc.gst ctrlc.csv; eq "Ctrl-C: ranges kept" 10 "$(field ctrlc.csv :before_crash Instances)"
