# lib.sh: assertions for the end-to-end tests. Each check prints "ok"/"FAIL" with a name and
# counts; tests/run.sh adds the counts up. Sourced, not run.
PASS=${PASS:-0}
FAIL=${FAIL:-0}
FAILED_NAMES=${FAILED_NAMES:-}

ok() { PASS=$((PASS + 1)); printf '  ok   %s\n' "$1"; }
bad() {
	FAIL=$((FAIL + 1)); FAILED_NAMES="$FAILED_NAMES
  $1"
	printf '  FAIL %s\n' "$1"; [ -n "${2:-}" ] && printf '       %s\n' "$2"; return 0
}
# eq NAME EXPECTED ACTUAL
eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected [$2], got [$3]"; fi; }
# has NAME NEEDLE HAYSTACK
has() { case "$3" in *"$2"*) ok "$1" ;; *) bad "$1" "no [$2] in [$(printf '%s' "$3" | head -c 600)]" ;; esac; }
hasnt() { case "$3" in *"$2"*) bad "$1" "unexpected [$2]" ;; *) ok "$1" ;; esac; }
# between NAME LO HI VALUE (integers or decimals)
between() {
	if awk -v lo="$2" -v hi="$3" -v v="$4" 'BEGIN { exit !(v != "" && v + 0 >= lo + 0 && v + 0 <= hi + 0) }'; then
		ok "$1"; else bad "$1" "[$4] not in [$2, $3]"; fi
}
# csv_field FILE.csv RANGE COLUMN-NAME: the cell of the row whose Range is RANGE
csv_field() {
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
for r in rows:
    if r['Range'] == sys.argv[2]:
        print(r[sys.argv[3]]); break
PY
}

# GPUSCOPE_DEBUG=1's sampling figures in a collector's stderr, with GPUSCOPE_UNWIND_CHECK=1:
# "WALKS OURS COMPARED DIFFERING" (stacks walked, by gpuscope's walk, compared with libunwind's,
# differing)
uwcheck() { # ERRFILE
	echo "$(sed -n 's/.*sampling: \([0-9]*\) stacks walked (\([0-9]*\) by gpuscope.s walk, .*/\1 \2/p' "$1" | tail -1)" \
		"$(sed -n 's/.*unwind check: \([0-9]*\) walks compared with libunwind.s, \([0-9]*\) differ$/\1 \2/p' "$1" | tail -1)"
}
# most stacks walked by gpuscope's walk, each compared with libunwind's, none differing
uwcheck_judge() { # LABEL ERRFILE
	local walks ours cmp diff
	read -r walks ours cmp diff <<<"$(uwcheck "$2")"
	between "$1: most stacks walked by gpuscope's walk (of ${walks:-?})" $((${walks:-0} * 3 / 4 + 1)) "${walks:-0}" "${ours:-0}"
	eq "$1: each compared with libunwind's" "${ours:-x}" "${cmp:-y}"
	eq "$1: none differs (first difference: $(grep -m3 'frame .* !=' "$2" | tr '\n' ' '))" 0 "${diff:-x}"
	# a walk libunwind gave up on where gpuscope's went on (its frames the first of gpuscope's)
	# is libunwind's: counted apart, a few at most
	between "$1: walks where libunwind stopped first, at most 1 in 20 of those compared" 0 $((${cmp:-0} / 20)) \
		"$(sed -n 's/.*unwind check: \([0-9]*\) walks where libunwind stopped first.*/\1/p' "$2" | awk '{n += $1} END {print n + 0}')"
	eq "$1: no walk met its stack pointer outside its thread's stack (every process)" 0 \
		"$(sed -n 's/.* \([0-9]*\) with the stack pointer outside the thread.s stack.*/\1/p' "$2" | awk '{n += $1} END {print n + 0}')"
}
