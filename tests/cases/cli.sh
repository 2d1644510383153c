# cli.sh: command table, help, version, usage errors (exit 2, one line with a hint).
echo "cli:"
out=$($GS --version); eq "version" "gpuscope 0.1.0" "$out"
out=$($GS help); has "help lists profile" "profile" "$out"; has "help lists stats" "stats" "$out"
for c in profile stats info dump help version; do
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
err=$($GS info "$T/junk.gst" 2>&1); eq "junk exits 1" 1 $?; has "junk message" "not a gpuscope trace" "$err"
# every collector variable is documented, and nothing else is
env_names=$(sed -n 's/^GS_ENV(\([A-Z_0-9]*\),.*/\1/p' "$ROOT/src/collector/env.def" | sort)
doc_names=$(sed -n 's/^## \(GPUSCOPE_[A-Z_0-9]*\)$/\1/p' "$ROOT/docs/gpuscope-environment.md" | grep -v GPUSCOPE_INJECT_LIB | sort)
eq "environment docs match env.def" "$env_names" "$doc_names"
help_env=$($GS help environment)
for v in $env_names; do has "help environment lists $v" "$v" "$help_env"; done
