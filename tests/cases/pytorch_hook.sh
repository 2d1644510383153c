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
