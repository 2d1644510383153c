# perfmap_fork.sh: CPU samples of a fork child that runs JIT'ed code its parent made before the
# fork (a DataLoader worker under CPython's perf trampolines): the child has no perf map of its
# own, so its trampoline frames are named from the parent's; a map of the child's own wins.
# The same through a jitdump file (oneDNN's way). The program is x86-64 code; skipped elsewhere.
echo "perfmap_fork:"
cd "$T" || exit 1

if [ "$(uname -m)" != x86_64 ]; then
	echo "  skip (the trampoline is x86-64 code)"
else
	# the row of FUNCTION for pid PID in cpu_sample_sum's CSV: its Total (%)
	total_pct() { awk -F, -v pid="$2" -v fn="$3" '$6 == pid && $9 == fn { print $3; exit }' "$1"; }

	pids=$($GS profile -o pf -- "$P/host_jitfork" 2>pf.err); eq "fork: exit 0" 0 $?
	set -- $pids; parent=${1:-0} child=${2:-0}
	eq "fork: the parent's map is in the trace" 1 "$($GS dump --format jsonl pf.gst | grep -c '"chunk":"perfmap"')"
	eq "fork: a JIT's own map is left in place" yes "$([ -e "/tmp/perf-$parent.map" ] && echo yes || echo no)"
	rm -f "/tmp/perf-$parent.map"
	has "fork: info lists the child under its parent" "pid $child  ppid $parent" "$($GS info pf.gst)"
	$GS stats -r cpu_sample_sum --format csv -o pf.csv pf.gst 2>/dev/null
	# every sample of the child is in spin() called through the trampoline, but for the few
	# in the loop's CPU-clock reads (outside the trampoline)
	between "fork: the child's stacks go through jit::worker_trampoline (>= 90% total)" 90 100 \
		"$(total_pct pf.csv "$child" jit::worker_trampoline)"
	eq "fork: no unnamed frame in the child" "" "$(total_pct pf.csv "$child" '[unknown]')"
	# the same trace read as a 1.6 file (no FORKED_FROM read): the same-image rule links them
	cp pf.gst pf16.gst && printf '\006' | dd of=pf16.gst bs=1 seek=10 conv=notrunc 2>/dev/null
	has "1.6: read as such" "format 1.6" "$($GS info pf16.gst)"
	$GS stats -r cpu_sample_sum --format csv -o pf16.csv pf16.gst 2>/dev/null
	between "1.6: the child's stacks go through jit::worker_trampoline (>= 90% total)" 90 100 \
		"$(total_pct pf16.csv "$child" jit::worker_trampoline)"
	$GS export -t folded -o pf.folded pf.gst 2>/dev/null; eq "folded: export ok" 0 $?
	has "folded: run -> jit::worker_trampoline -> spin" ";run;jit::worker_trampoline;spin " "$(cat pf.folded)"
	$GS export -t pprof -o pf.pb.gz pf.gst 2>/dev/null; eq "pprof: export ok" 0 $?
	# the string table holds the names of the functions the samples use, each once
	eq "pprof: the function is named" 1 "$(gzip -dc pf.pb.gz | grep -a -o 'jit::worker_trampoline' | wc -l)"

	# the child names the same code in a map of its own: that name, not the inherited one
	pids=$($GS profile -o pfo -- "$P/host_jitfork" own 2>/dev/null); eq "own map: exit 0" 0 $?
	set -- $pids; parent=${1:-0} child=${2:-0}
	rm -f "/tmp/perf-$parent.map" "/tmp/perf-$child.map"
	$GS stats -r cpu_sample_sum --format csv -o pfo.csv pfo.gst 2>/dev/null
	between "own map: the child's own name (>= 90% total)" 90 100 "$(total_pct pfo.csv "$child" jit::child_trampoline)"
	eq "own map: not the parent's name" "" "$(total_pct pfo.csv "$child" jit::worker_trampoline)"

	# a fork server's worker: the middle process made and named the code and recorded
	# nothing; its map, found up the worker's line of forks, names the worker's frames
	# (at 50 Hz: at 1 kHz the middle process's fork, slow under the sanitizer, took the 1 ms of
	# CPU time that gives it a sample and a ring, in 1 CI run of 6)
	out=$($GS profile -o pfm --sampling-frequency 50 -- "$P/host_jitfork" middle 2>/dev/null); eq "middle: exit 0" 0 $?
	set -- $out; middle=${1:-0} worker=${2:-0}
	rm -f "/tmp/perf-$middle.map"
	info=$($GS info pfm.gst)
	eq "middle: the middle process recorded nothing" "" "$(echo "$info" | grep -- " pid $middle ")"
	has "middle: the worker is in the trace" "pid $worker  ppid $middle" "$info"
	eq "middle: the middle process's map is in the trace" 1 "$($GS dump --format jsonl pfm.gst | grep -c '"chunk":"perfmap"')"
	$GS stats -r cpu_sample_sum --format csv -o pfm.csv pfm.gst 2>/dev/null
	between "middle: the worker's stacks go through jit::middle_trampoline (>= 90% total)" 90 100 \
		"$(total_pct pfm.csv "$worker" jit::middle_trampoline)"
	eq "middle: no unnamed frame in the worker" "" "$(total_pct pfm.csv "$worker" '[unknown]')"
	cp pfm.gst pfm16.gst && printf '\006' | dd of=pfm16.gst bs=1 seek=10 conv=notrunc 2>/dev/null
	$GS stats -r cpu_sample_sum --format csv -o pfm16.csv pfm16.gst 2>/dev/null
	eq "middle, read as 1.6: no line of forks, the frames unnamed" "" \
		"$(total_pct pfm16.csv "$worker" jit::middle_trampoline)"

	# A JIT that names its code in a jitdump file (oneDNN, PyTorch's CPU kernels, under
	# ONEDNN_JIT_PROFILE=4, which profile sets with JITDUMPDIR at the session directory when
	# the user set neither): the parent's file names the child's trampoline frames; nothing
	# of the session is left behind. The user's own setting is left alone, and without
	# stacks to name nothing is set (the program exits 3 without JITDUMPDIR).
	mkdir jd && cd jd || exit 1
	pids=$($GS profile -o pfj -- "$P/host_jitfork" jitdump 2>pfj.err); eq "jitdump: exit 0" 0 $?
	set -- $pids; parent=${1:-0} child=${2:-0}
	eq "jitdump: no perf map written" no "$([ -e "/tmp/perf-$parent.map" ] && echo yes || echo no)"
	eq "jitdump: the session directory and the jitdump file are gone" "pfj.err pfj.gst" "$(ls -A | xargs)"
	eq "jitdump: no warning" "" "$(grep -v 'gpuscope: wrote' pfj.err)"
	eq "jitdump: the names are in the trace, as the parent's map" 1 "$($GS dump --format jsonl pfj.gst | grep -c '"chunk":"perfmap"')"
	$GS stats -r cpu_sample_sum --format csv -o pfj.csv pfj.gst 2>/dev/null
	between "jitdump: the child's stacks go through jit::dumped_trampoline (>= 90% total)" 90 100 \
		"$(total_pct pfj.csv "$child" jit::dumped_trampoline)"
	$GS export -t folded -o pfj.folded pfj.gst 2>/dev/null
	has "jitdump: folded, run -> jit::dumped_trampoline -> spin" ";run;jit::dumped_trampoline;spin " "$(cat pfj.folded)"
	# a file cut short (its writer killed): the names before the cut kept, the file and the
	# byte named in one warning, the program's status as it was
	pids=$($GS profile -o pfjc -- "$P/host_jitfork" jitdump cut 2>pfjc.err); eq "jitdump cut: exit 0" 0 $?
	set -- $pids; child=${2:-0}
	has "jitdump cut: one warning naming the file and the byte" \
		"jit-$1.dump: jitdump record at byte 127 cut short (6 bytes of its 16-byte head); the JIT code names before it are kept" \
		"$(grep -v 'gpuscope: wrote' pfjc.err)"
	eq "jitdump cut: one line" 1 "$(grep -vc 'gpuscope: wrote' pfjc.err)"
	$GS stats -r cpu_sample_sum --format csv -o pfjc.csv pfjc.gst 2>/dev/null
	between "jitdump cut: the name before the cut kept (>= 90% total)" 90 100 \
		"$(total_pct pfjc.csv "$child" jit::dumped_trampoline)"
	rm -f pfjc.*
	ONEDNN_JIT_PROFILE=0 $GS profile -o pfj0 -- "$P/host_jitfork" jitdump >/dev/null 2>&1
	eq "jitdump: the user's ONEDNN_JIT_PROFILE kept, no JITDUMPDIR set" 3 $?
	$GS profile -o pfj1 -t nvtx --sample none -- "$P/host_jitfork" jitdump >/dev/null 2>&1
	eq "jitdump: --sample none, no stacks to name: no JITDUMPDIR set" 3 $?
	JITDUMPDIR=$PWD/mine $GS profile -o pfj2 -- "$P/host_jitfork" jitdump >/dev/null 2>&1
	eq "jitdump: the user's JITDUMPDIR kept" "0 1" "$? $(find mine -name 'jit-*.dump' | wc -l)"
	cd .. || exit 1
fi

# The committed trace of `host_jitfork middle` (format 1.7, tests/data/README.md): read on any
# machine, the worker's line of forks (4716, then 4714) names its trampoline frames from the
# middle process's map, the middle process itself having recorded nothing.
fx=$ROOT/tests/data/perfmap_forkline.gst
eq "fixture: the worker's line of forks" '"k14":[4716,4714]' \
	"$($GS dump --format jsonl "$fx" | grep -o '"k14":\[[0-9,]*\]')"
has "fixture: 2 processes, the middle one not among them" "pid 4717  ppid 4716" "$($GS info "$fx")"
$GS stats -r cpu_sample_sum --format csv -o pffx.csv "$fx" 2>/dev/null
eq "fixture: all 297 periods of the worker through jit::middle_trampoline" 297 \
	"$(awk -F, '$6 == 4717 && $9 == "jit::middle_trampoline" { print $4 }' pffx.csv)"
eq "fixture: no unnamed frame" "" "$(awk -F, '$9 == "[unknown]"' pffx.csv)"
