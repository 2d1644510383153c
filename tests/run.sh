#!/usr/bin/env bash
# run.sh: every test that needs no GPU, in a normal build and in an ASan+UBSan build, and in a
# clang build the unit tests and the collector's cases (its thread-local storage is compiled
# differently there: Makefile, GS_TLS_INITIAL_EXEC). Prints one closing line: "N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
. tests/lib.sh
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

build() { # dir, make args...
	local dir=$1; shift
	if ! make -s -j"$JOBS" BUILD="$dir" "$@" all >"$ROOT/$dir.log" 2>&1; then
		bad "build $dir" "$(tail -20 "$ROOT/$dir.log")"
		return 1
	fi
	ok "build $dir"
}

suite() { # build dir [case ...]: the unit tests, then the cases named (default: every one)
	export BUILD_DIR=$1
	export GS="$ROOT/$1/bin/gpuscope" P="$ROOT/$1/tests/programs"
	export T; T=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-test.XXXXXX")
	echo "== $1"
	echo "unit:"
	for u in "$ROOT/$1"/tests/unit/test_*; do
		[ -x "$u" ] || continue
		if out=$("$u" 2>&1); then ok "unit $(basename "$u")"; else bad "unit $(basename "$u")" "$(printf '%s' "$out" | grep -E 'FAIL|ERROR|error|Sanitizer' | head -8)"; fi
	done
	local cases=(tests/cases/*.sh)
	[ $# -gt 1 ] && cases=("${@:2}")
	for c in "${cases[@]}"; do
		# shellcheck disable=SC1090
		(cd "$T" && FAILED_NAMES= && . "$ROOT/$c"; echo "PASS=$PASS FAIL=$FAIL" >"$T/.counts"; printf '%s' "$FAILED_NAMES" >"$T/.failed")
		# shellcheck disable=SC1091
		. "$T/.counts"; FAILED_NAMES="$FAILED_NAMES$(cat "$T/.failed")"
	done
	rm -rf "$T"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
build build && suite build
build build-asan SAN=1 && GS_TEST_RANGES=${GS_TEST_RANGES_ASAN:-2000000} suite build-asan
build build-clang CC=clang && suite build-clang tests/cases/host.sh tests/cases/profile.sh tests/cases/apirec.sh
if [ -x tests/fuzz/run.sh ]; then echo "== fuzz"; . tests/fuzz/run.sh; fi
if [ "$FAIL" -gt 0 ]; then printf '\nfailed:%s\n' "$FAILED_NAMES"; fi
echo
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
