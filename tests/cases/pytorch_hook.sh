# pytorch_hook.sh: `gpuscope profile --pytorch` on Python programs where torch is absent (CI
# has no torch; the annotations themselves are checked on the GPU machine, tests/gpu/run.sh
# section pytorch): the program runs unchanged, and a sitecustomize of the user's own still runs.
echo "pytorch hook:"
mkdir -p "$T/py/site"
cat >"$T/py/prog.py" <<'PY'
import sys
try:
    import torch
    print("torch found")
except ImportError as e:
    print("no torch:", e.name)
print("args", sys.argv[1:], "sitecustomize" in sys.modules)
sys.exit(3)
PY
python3 "$T/py/prog.py" x y >"$T/py/plain.out" 2>"$T/py/plain.err"
want=$?
for mode in nvtx nvtx-shapes none; do
	$GS profile -f -o "$T/py/run_$mode" --pytorch $mode python3 "$T/py/prog.py" x y >"$T/py/$mode.out" 2>"$T/py/$mode.err"
	eq "--pytorch $mode: the program's exit status" "$want 3" "$? 3"
	eq "--pytorch $mode: the program's output unchanged" "$(cat "$T/py/plain.out")" "$(sed 's/ True$/ False/' "$T/py/$mode.out")"
	eq "--pytorch $mode: nothing on stderr but gpuscope's closing line" "" "$(grep -v '^gpuscope: wrote' "$T/py/$mode.err")"
done
# the hook's folder comes first on PYTHONPATH; the user's own sitecustomize must still run
printf 'import os\nprint("user sitecustomize ran", os.environ.get("GPUSCOPE_PYTORCH"))\n' >"$T/py/site/sitecustomize.py"
out=$(PYTHONPATH="$T/py/site" $GS profile -f -o "$T/py/run_site" --pytorch nvtx python3 "$T/py/prog.py" 2>"$T/py/site.err")
eq "--pytorch nvtx: exit status with a user sitecustomize" 3 $?
eq "--pytorch nvtx: the user's sitecustomize ran first, then the program" \
	"user sitecustomize ran nvtx|no torch: torch|args [] True" "$(printf '%s\n' "$out" | paste -sd'|')"
out=$(PYTHONPATH="$T/py/site" python3 "$T/py/prog.py" 2>&1)
eq "without gpuscope: the same sitecustomize, the same program" "user sitecustomize ran None|no torch: torch|args [] True" "$(printf '%s\n' "$out" | paste -sd'|')"
# a sitecustomize that fails: Python's own behaviour (a message, the program runs)
printf 'raise ValueError("broken site")\n' >"$T/py/site/sitecustomize.py"
PYTHONPATH="$T/py/site" $GS profile -f -o "$T/py/run_bad" --pytorch nvtx python3 "$T/py/prog.py" >"$T/py/bad.out" 2>"$T/py/bad.err"
eq "--pytorch nvtx: a failing user sitecustomize does not stop the program" 3 $?
has "--pytorch nvtx: its error is shown as Python shows it" "ValueError: broken site" "$(cat "$T/py/bad.err")"
eq "--pytorch nvtx: then the program ran" "no torch: torch" "$(head -1 "$T/py/bad.out")"
# options
$GS profile -f -o "$T/py/x" --pytorch nvtx -t cuda python3 "$T/py/prog.py" >/dev/null 2>"$T/py/opt.err"
eq "--pytorch without nvtx in --trace: usage error" 2 $?
has "--pytorch without nvtx: says why" "add nvtx to --trace" "$(cat "$T/py/opt.err")"
$GS profile -f -o "$T/py/x" --pytorch=onnx python3 "$T/py/prog.py" >/dev/null 2>"$T/py/opt.err"
eq "--pytorch=onnx: usage error" 2 $?
has "--pytorch=onnx: names the choices" "--pytorch takes nvtx, nvtx-shapes, none, not 'onnx'" "$(cat "$T/py/opt.err")"
# PyTorch's operator ranges carry a per-call op id ("aten::mm, seq = 1, op_id = 2"): reports
# group them by the operator (and by the shapes, which nvtx-shapes adds), so that nvtx_sum is the
# operator view; names of any other shape stay whole.
$GS profile -f -o "$T/py/names" "$P/nvtx_names" "aten::mm, seq = 1, op_id = 2" "aten::mm, seq = 3, op_id = 7" \
	"aten::mm" "aten::mm, seq = 5, op_id = 9, sizes = [[2, 2], [2, 2]], input_op_ids = [(0,-1), (0,-1)]" \
	"aten::mm, seq = -1, op_id = 12, sizes = [[2, 2], [2, 2]]" "AddmmBackward0, seq = 13, op_id = 428" \
	"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__, op_id = 5" "user, seq = x" \
	"a, op_id = 3, extra" ", op_id = 4" 2>/dev/null
eq "pytorch names: the program ran" 0 $?
$GS stats -r nvtx_sum --format csv -o "$T/py/names.csv" "$T/py/names.gst"
eq "pytorch names: aten::mm from two calls and a plain range" 3 "$(csv_field "$T/py/names.csv" ":aten::mm" Instances)"
eq "pytorch names: shapes kept, op ids dropped" 2 "$(csv_field "$T/py/names.csv" ":aten::mm, sizes = [[2, 2], [2, 2]]" Instances)"
eq "pytorch names: a backward op" 1 "$(csv_field "$T/py/names.csv" ":AddmmBackward0" Instances)"
eq "pytorch names: a record_function range" 1 "$(csv_field "$T/py/names.csv" ":enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" Instances)"
eq "pytorch names: other names whole" "1 1 1" "$(csv_field "$T/py/names.csv" ":user, seq = x" Instances) $(csv_field "$T/py/names.csv" ":a, op_id = 3, extra" Instances) $(csv_field "$T/py/names.csv" ":, op_id = 4" Instances)"
eq "pytorch names: 7 rows" 7 "$(($(wc -l <"$T/py/names.csv") - 1))"
# CPU sampling names Python frames through CPython's perf map: `profile` sets PYTHONPERFSUPPORT=1
# unless the user set it, and removes the maps CPython wrote for it once they are in the trace.
eq "perf maps: PYTHONPERFSUPPORT=1 under sampling" 1 "$($GS profile -f -o "$T/py/pp" sh -c 'echo $PYTHONPERFSUPPORT' 2>/dev/null)"
eq "perf maps: not set with --sample none --cudabacktrace=none" "" "$($GS profile -f -o "$T/py/pp" --sample none --cudabacktrace=none sh -c 'echo $PYTHONPERFSUPPORT' 2>/dev/null)"
eq "perf maps: not set with --sample none -t nvtx (no CUDA calls' stacks)" "" "$($GS profile -f -o "$T/py/pp" --sample none -t nvtx sh -c 'echo $PYTHONPERFSUPPORT' 2>/dev/null)"
eq "perf maps: PYTHONPERFSUPPORT=1 for the CUDA calls' stacks (--sample none, --cudabacktrace's default)" 1 \
	"$($GS profile -f -o "$T/py/pp" --sample none sh -c 'echo $PYTHONPERFSUPPORT' 2>/dev/null)"
eq "perf maps: PYTHONPERFSUPPORT=1 for osrt's stacks (--sample none -t osrt)" 1 \
	"$($GS profile -f -o "$T/py/pp" --sample none -t osrt sh -c 'echo $PYTHONPERFSUPPORT' 2>/dev/null)"
eq "perf maps: not set with --sample none -t osrt --osrt-backtrace-threshold none" "" \
	"$($GS profile -f -o "$T/py/pp" --sample none -t osrt --osrt-backtrace-threshold none sh -c 'echo $PYTHONPERFSUPPORT' 2>/dev/null)"
eq "perf maps: the user's own setting kept" 0 "$(PYTHONPERFSUPPORT=0 $GS profile -f -o "$T/py/pp" sh -c 'echo $PYTHONPERFSUPPORT' 2>/dev/null)"
# a map as CPython writes it (the shell's pid is the process's), and one of another JIT
printf 'echo "7f0000001000 40 py::train_step:/srv/train.py" >/tmp/perf-$$.map; echo $$; sleep 0.05\n' >"$T/py/pymap.sh"
printf 'echo "7f0000001000 40 jit_fn" >/tmp/perf-$$.map; echo $$; sleep 0.05\n' >"$T/py/jitmap.sh"
p=$($GS profile -f -o "$T/py/pm" sh "$T/py/pymap.sh" 2>/dev/null)
eq "perf maps: CPython's map is in the trace" 1 "$($GS dump --format jsonl "$T/py/pm.gst" | grep -c '"chunk":"perfmap"')"
eq "perf maps: CPython's map removed once copied" no "$([ -e "/tmp/perf-$p.map" ] && echo yes || echo no)"
p=$($GS profile -f -o "$T/py/pm" sh "$T/py/jitmap.sh" 2>/dev/null)
eq "perf maps: another JIT's map copied" 1 "$($GS dump --format jsonl "$T/py/pm.gst" | grep -c '"chunk":"perfmap"')"
eq "perf maps: another JIT's map left in place" yes "$([ -e "/tmp/perf-$p.map" ] && echo yes || echo no)"
rm -f "/tmp/perf-$p.map"
# a map dated before the session is an earlier process's with the same pid: neither copied nor
# removed; file times come from a coarse clock, so one dated less than a second before is this one's
printf 'echo "7f0000001000 40 py::old:/srv/old.py" >/tmp/perf-$$.map; touch -d "@$(($(date +%%s) - 5))" /tmp/perf-$$.map; echo $$\n' >"$T/py/oldmap.sh"
p=$($GS profile -f -o "$T/py/pm" sh "$T/py/oldmap.sh" 2>/dev/null)
eq "perf maps: one dated 5 s before the session is not copied, and stays" "0 yes" \
	"$($GS dump --format jsonl "$T/py/pm.gst" | grep -c '"chunk":"perfmap"') $([ -e "/tmp/perf-$p.map" ] && echo yes || echo no)"
rm -f "/tmp/perf-$p.map"
printf 'echo "7f0000001000 40 py::new:/srv/new.py" >/tmp/perf-$$.map; touch -d "@$(date +%%s.%%N | awk "{printf \\"%%.3f\\", \\$1 - 0.5}")" /tmp/perf-$$.map; echo $$\n' >"$T/py/lagmap.sh"
p=$($GS profile -f -o "$T/py/pm" sh "$T/py/lagmap.sh" 2>/dev/null)
eq "perf maps: one dated 0.5 s before the session (a coarse file clock) is copied and removed" "1 no" \
	"$($GS dump --format jsonl "$T/py/pm.gst" | grep -c '"chunk":"perfmap"') $([ -e "/tmp/perf-$p.map" ] && echo yes || echo no)"
rm -f "/tmp/perf-$p.map"
p=$(PYTHONPERFSUPPORT=1 $GS profile -f -o "$T/py/pm" sh "$T/py/pymap.sh" 2>/dev/null)
eq "perf maps: left in place when the user turned them on" yes "$([ -e "/tmp/perf-$p.map" ] && echo yes || echo no)"
rm -f "/tmp/perf-$p.map"
