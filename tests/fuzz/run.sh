# tests/fuzz/run.sh: sourced by tests/run.sh. Builds the libFuzzer targets with clang
# (ASan+UBSan) and runs each for a bounded time (FUZZ_SECONDS, default 60) from the committed
# fixtures in tests/data (fuzz_gst, fuzz_analyze and fuzz_export: the .gst traces, the
# examples' and the inputs that found bugs (tests/data/fuzz) among them; fuzz_kineto: tests/data/kineto, decompressed, with a dictionary, inputs
# up to 64 KiB). Clang's UBSan, unlike gcc's, reports a zero offset added to a null pointer, so
# the fixtures alone are a check. Needs clang's fuzzer runtime (Debian: libclang-rt-14-dev).
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
fuzz_ok=1
if ! echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){(void)d;(void)n;return 0;}' |
	clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -q libclang-rt-14-dev >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1; apt-get install -y -q libclang-rt-14-dev >/dev/null 2>&1; }
	fi
	echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){(void)d;(void)n;return 0;}' |
		clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1 || fuzz_ok=0
fi
if [ "$fuzz_ok" = 0 ]; then
	bad "fuzz: clang's fuzzer runtime" "install it: apt-get install -y libclang-rt-14-dev"
elif ! make -s -j"${JOBS:-2}" fuzz >"$ROOT/build-fuzz.log" 2>&1; then
	bad "fuzz: build" "$(tail -5 "$ROOT/build-fuzz.log")"
else
	for src in tests/fuzz/fuzz_*.c; do
		name=$(basename "$src" .c)
		f=build-fuzz/$name
		corpus=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-corpus.XXXXXX")
		dict=
		case $name in
		fuzz_kineto) # the importer's corpus: the Kineto fixtures, decompressed
			for t in tests/data/kineto/*.json tests/data/kineto/*.json.gz; do
				[ -f "$t" ] && gzip -dcf "$t" >"$corpus/$(basename "$t" .gz)"
			done
			dict="-dict=tests/fuzz/kineto.dict -max_len=65536" ;;
		*) cp tests/data/*.gst tests/data/kmetrics/*.gst tests/data/cuda/*.gst tests/data/diff/*.gst tests/data/examples/*.gst tests/data/jitdump/*.dump tests/data/fuzz/*.gst "$corpus/" 2>/dev/null ;;
		esac
		if "$f" $dict -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
			-artifact_prefix="$ROOT/build-fuzz/$name-" "$corpus" >"$ROOT/build-fuzz/$name.log" 2>&1; then
			ok "fuzz: $name, ${FUZZ_SECONDS}s, $(grep -oE 'Done [0-9]+ runs' "$ROOT/build-fuzz/$name.log" | awk '{print $2}') inputs"
		else
			bad "fuzz: $name" "$(grep -E 'ERROR|SUMMARY' "$ROOT/build-fuzz/$name.log" | head -3); artifact in build-fuzz/"
		fi
		rm -rf "$corpus"
	done
fi
