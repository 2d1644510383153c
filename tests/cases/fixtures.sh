# fixtures.sh: committed traces (tests/data) still load, with the numbers they were made with.
echo "fixtures:"
D=$ROOT/tests/data
$GS stats -r nvtx_sum --format csv -o "$T/fx_threads.csv" "$D/threads_4x20.gst" 2>/dev/null
eq "fixture threads: counts" "80 160 1" "$(csv_field "$T/fx_threads.csv" :outer Instances) $(csv_field "$T/fx_threads.csv" :inner Instances) $(csv_field "$T/fx_threads.csv" :main_range Instances)"
i=$($GS info "$D/threads_4x20.gst")
has "fixture threads: complete, format 1.1" "format 1.1" "$i"; has "fixture threads: 5 threads" "threads (5):" "$i"
$GS stats -r nvtx_sum --format csv -o "$T/fx_features.csv" "$D/features.gst" 2>/dev/null
eq "fixture features: registered string" 3 "$(csv_field "$T/fx_features.csv" mydomain:registered_name Instances)"
has "fixture features: marks" "nvtx marks                9" "$($GS info "$D/features.gst")"
$GS stats -r nvtx_sum --format csv -o "$T/fx_startend.csv" "$D/startend.gst" 2>/dev/null
eq "fixture startend: cross" "5 StartEnd" "$(csv_field "$T/fx_startend.csv" :cross Instances) $(csv_field "$T/fx_startend.csv" :cross Style)"
i=$($GS info "$D/crash_segv.gst")
has "fixture crash: exit 139" "exit status: 139" "$i"; has "fixture crash: open range" "nvtx ranges never ended   1" "$i"
$GS dump --format jsonl "$D/features.gst" | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'
eq "fixture features: dump jsonl parses" 0 $?
