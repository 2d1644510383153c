# cli.sh: command table, help, version, usage errors (exit 2, one line with a hint).
echo "cli:"
out=$($GS --version); eq "version" "gpuscope 0.1.0" "$out"
out=$($GS help); has "help lists profile" "profile" "$out"; has "help lists stats" "stats" "$out"
for c in profile stats export info dump help version; do
	$GS "$c" --help >/dev/null 2>&1; eq "$c --help exits 0" 0 $?
	has "$c has a man page" "$c" "$(cat "$ROOT/docs/gpuscope-$c.md" 2>/dev/null | head -5)"
done
err=$($GS frobnicate 2>&1); rc=$?
eq "unknown command exits 2" 2 $rc; eq "unknown command: one line" 1 "$(printf '%s\n' "$err" | wc -l)"
has "unknown command hint" "gpuscope help" "$err"
err=$($GS stats --bogus x 2>&1); rc=$?
eq "unknown option exits 2" 2 $rc; eq "unknown option: one line" 1 "$(printf '%s\n' "$err" | wc -l)"
has "unknown option names it" "'--bogus'" "$err"; has "unknown option hint" "gpuscope stats --help" "$err"
err=$($GS profile 2>&1); eq "profile without program exits 2" 2 $?
err=$($GS profile -t nvtx,bogus true 2>&1); eq "unknown trace source exits 2" 2 $?
has "unknown source named" "'bogus'" "$err"
err=$($GS stats -r nope x.gst 2>&1); eq "unknown report exits 2" 2 $?; has "known reports listed" "nvtx_sum" "$err"
err=$($GS stats "$T/none.gst" 2>&1); eq "missing trace exits 1" 1 $?
has "missing trace message" "no trace at '$T/none.gst' (run 'gpuscope profile' first)" "$err"
printf 'not a trace' >"$T/junk.gst"
# several reports as csv into a file: a file of each, BASE_REPORT.csv as nsys writes them,
# each as the report alone; to standard output the tables one after another
X=$ROOT/tests/data/item_sync.gst
mkdir -p "$T/two"
err=$($GS stats -r nvtx_sum,cuda_gpu_kern_sum --format csv -o "$T/two/run.csv" "$X" 2>&1)
eq "stats -r a,b csv -o run.csv: exit 0" 0 $?
eq "stats -r a,b csv -o run.csv: a file of each, no run.csv" "run_cuda_gpu_kern_sum.csv run_nvtx_sum.csv" "$(cd "$T/two" && echo *)"
has "stats -r a,b csv -o: names the files" "gpuscope: wrote $T/two/run_nvtx_sum.csv" "$err"
$GS stats -r nvtx_sum --format csv -o "$T/two/one_nvtx.csv" "$X" 2>/dev/null
$GS stats -r cuda_gpu_kern_sum --format csv -o "$T/two/one_kern.csv" "$X" 2>/dev/null
eq "stats -r a,b csv: each file as the report alone" "same same" \
	"$(cmp -s "$T/two/run_nvtx_sum.csv" "$T/two/one_nvtx.csv" && echo same) $(cmp -s "$T/two/run_cuda_gpu_kern_sum.csv" "$T/two/one_kern.csv" && echo same)"
$GS stats -r nvtx_sum,cuda_gpu_kern_sum --format csv -o "$T/two/base" "$X" 2>/dev/null
eq "stats -r a,b csv -o base: base_REPORT.csv" "yes" "$([ -s "$T/two/base_nvtx_sum.csv" ] && [ -s "$T/two/base_cuda_gpu_kern_sum.csv" ] && echo yes)"
eq "stats -r a,b csv to standard output: the tables one after another" "$(cat "$T/two/one_nvtx.csv" "$T/two/one_kern.csv")" \
	"$($GS stats -r nvtx_sum,cuda_gpu_kern_sum --format csv "$X" 2>/dev/null)"
eq "stats -r a -r b (nsys's repeated -r): as -r a,b" "$($GS stats -r nvtx_sum,cuda_gpu_kern_sum --format csv "$X" 2>/dev/null)" \
	"$($GS stats -r nvtx_sum -r cuda_gpu_kern_sum --format csv "$X" 2>/dev/null)"
eq "stats -r b -r a: in the order given" "$(cat "$T/two/one_kern.csv" "$T/two/one_nvtx.csv")" \
	"$($GS stats -r cuda_gpu_kern_sum -r nvtx_sum --format csv "$X" 2>/dev/null)"
err=$($GS stats -r nvtx_sum -r nope "$X" 2>&1); eq "stats -r a -r unknown: exit 2" 2 $?
has "stats -r a -r unknown: names it" "unknown report 'nope'" "$err"
$GS stats -r nvtx_sum,cuda_gpu_kern_sum --format csv -o "$T/nodir/run.csv" "$X" >/dev/null 2>&1
eq "stats -r a,b csv -o into a missing folder: exit 1" 1 $?
# tsv (nsys stats -f tsv): the cells of csv, tab-separated and unquoted (ResNet-50's kernel
# names hold commas and quotes); several reports into files BASE_REPORT.tsv; column
# (nsys's console format's name) is table
R=$ROOT/tests/data/cuda_resnet50.gst
eq "stats tsv: csv's cells, tab-separated" "same 2" "$(python3 -c '
import csv, subprocess, sys
def rows(f, **k):
    out = subprocess.run([sys.argv[1], "stats", "-r", "cuda_gpu_kern_sum,cuda_api_sum", "-f", f, sys.argv[2]],
                         capture_output=True, text=True, check=True).stdout
    return list(csv.reader(out.splitlines(), **k))
c, t = rows("csv"), rows("tsv", delimiter="\t", quoting=csv.QUOTE_NONE)
print("same" if c == t and len(c) > 30 else "differ", sum(r[0] == "Time (%)" for r in t))' "$GS" "$R")"
err=$($GS stats -r nvtx_sum,cuda_gpu_kern_sum -f tsv -o "$T/two/run.tsv" "$X" 2>&1)
eq "stats -r a,b tsv -o run.tsv: a file of each" "yes yes" \
	"$([ -s "$T/two/run_nvtx_sum.tsv" ] && echo yes) $(cmp -s "$T/two/run_cuda_gpu_kern_sum.tsv" <($GS stats -r cuda_gpu_kern_sum -f tsv "$X") && echo yes)"
has "stats -r a,b tsv -o: names the files" "gpuscope: wrote $T/two/run_nvtx_sum.tsv" "$err"
eq "stats -f column: the table" "$($GS stats -r cuda_api_sum "$X")" "$($GS stats -r cuda_api_sum -f column "$X")"
# htable and hdoc (nsys stats's HTML formats): each table's cells, read back by Python's HTML
# parser, are csv's; hdoc is one document around them, htable the tables alone; a trace report
# (streamed a window of rows at a time) likewise
eq "stats htable and hdoc: csv's cells in HTML tables" "same same 3 doc tables" "$(python3 -c '
import csv, html.parser, subprocess, sys
def run(f, r):
    return subprocess.run([sys.argv[1], "stats", "-r", r, "-f", f, sys.argv[2]], capture_output=True, text=True, check=True).stdout
class Cells(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.rows, s.cell, s.tags = [], None, []
    def handle_starttag(s, t, a):
        s.tags.append(t)
        if t == "tr": s.rows.append([])
        if t in ("td", "th"): s.cell = ""
    def handle_endtag(s, t):
        if t in ("td", "th"): s.rows[-1].append(s.cell); s.cell = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
def cells(text):
    p = Cells(); p.feed(text); p.close(); return p
r = "cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_trace"
c = list(csv.reader(run("csv", r).splitlines()))
t, d = cells(run("htable", r)), cells(run("hdoc", r))
doc = run("hdoc", r)
print("same" if t.rows == c and len(c) > 100 else "differ", "same" if d.rows == c else "differ", t.tags.count("table"),
      "doc" if doc.startswith("<!DOCTYPE html>") and doc.rstrip().endswith("</html>") and "html" not in t.tags else "nodoc",
      "tables" if d.tags.count("table") == 3 else "")' "$GS" "$R")"
err=$($GS stats -f xml "$X" 2>&1); eq "stats -f unknown: exit 2" 2 $?
has "stats -f unknown: lists the formats" "(table, csv, tsv, json, htable, hdoc)" "$err"
err=$($GS info "$T/junk.gst" 2>&1); eq "junk exits 1" 1 $?; has "junk message" "not a gpuscope trace" "$err"
# every collector variable is documented, and nothing else is
env_names=$(sed -n 's/^GS_ENV(\([A-Z_0-9]*\),.*/\1/p' "$ROOT/src/collector/env.def" | sort)
doc_names=$(sed -n 's/^## \(GPUSCOPE_[A-Z_0-9]*\)$/\1/p' "$ROOT/docs/gpuscope-environment.md" | grep -v GPUSCOPE_INJECT_LIB | sort)
eq "environment docs match env.def" "$env_names" "$doc_names"
# --help lists every report and every export format, from their tables
help_lists() { # COMMAND TABLE-FILE LEAST WHAT: each name of the table's rows on a line of its own
	local help names n
	help=$($GS "$1" --help)
	names=$(sed -n 's/^\t{"\([a-z_0-9]*\)", .*/\1/p' "$ROOT/$2")
	between "$4 names read from $2" "$3" 1000 "$(echo $names | wc -w)"
	for r in $names; do
		n=$(printf '%s\n' "$help" | grep -cE "^  $r( |\$)"); eq "$1 --help lists $r" 1 "$n"
	done
}
help_lists stats src/analysis/reports.c 23 report
help_lists export src/export/exporters.c 7 format
help_export=$($GS export --help)
has "export --help names pprof's output" "(TRACE.pb.gz)" "$help_export"
has "export --help names csv's folder" "(TRACE-csv/)" "$help_export"
help_env=$($GS help environment)
for v in $env_names; do has "help environment lists $v" "$v" "$help_env"; done

# stats on a terminal: colour unless NO_COLOR (https://no-color.org) or TERM=dumb, the
# terminal's width (TIOCGWINSZ) when COLUMNS is not set; never colour into a pipe or a file
tty_run() { # COLS ENV... -- ARGS...: stats on a pseudo-terminal of COLS columns; prints its output
	python3 - "$GS" "$@" <<'PY'
import fcntl, os, pty, struct, subprocess, sys, termios
gs, cols, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
sep = rest.index("--")
env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
env.update({"TERM": "xterm", "LANG": "C.UTF-8"})
env.update(dict(e.split("=", 1) for e in rest[:sep]))
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
p = subprocess.Popen([gs, "stats"] + rest[sep + 1:], stdout=slave, stderr=subprocess.DEVNULL, env=env)
os.close(slave)
out = b""
while True:
    try:
        b = os.read(master, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
p.wait()
sys.stdout.write(out.decode().replace("\r\n", "\n"))
PY
}
RN=$ROOT/tests/data/cuda_resnet50.gst
out=$(tty_run 100 -- "$RN")
has "stats on a terminal: bold titles" "$(printf '\033[1mTrace\033[0m')" "$out"
has "stats on a terminal: dim units" "$(printf '12.8 \033[2ms\033[0m')" "$out"
eq "stats on a terminal: fits its width" "ok" "$(printf '%s\n' "$out" | python3 -c '
import re, sys
w = max(len(re.sub("\033\\[[0-9]*m", "", l)) for l in sys.stdin.read().split("\n"))
print("ok" if 90 <= w <= 100 else w)')"
out=$(tty_run 100 NO_COLOR=1 -- "$RN")
hasnt "NO_COLOR: no escapes" "$(printf '\033')" "$out"
has "NO_COLOR: same text" "Top kernels by GPU time" "$out"
hasnt "TERM=dumb: no escapes" "$(printf '\033')" "$(tty_run 100 TERM=dumb -- "$RN")"
out=$(tty_run 100 COLUMNS=60 -- -r cuda_gpu_kern_sum "$RN")
has "COLUMNS wins over the terminal; reports are cut too" "$(printf '\033[1mName\033[0m')" "$out"
eq "COLUMNS=60: kernel names cut" "ok" "$(printf '%s\n' "$out" | python3 -c '
import re, sys
rows = [re.sub("\033\\[[0-9]*m", "", l) for l in sys.stdin.read().split("\n") if "void " in l]
print("ok" if rows and all(r.endswith("\u2026") for r in rows) else rows[:2])')"
hasnt "-o FILE: no escapes" "$(printf '\033')" "$(tty_run 100 -- -o "$T/tty.txt" "$RN"; cat "$T/tty.txt")"
