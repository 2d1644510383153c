#!/bin/sh
# deps.sh: check the build's Debian packages and headers; install what is missing when run
# as root (apt-get), otherwise print the exact line to run. Called once per build directory.
set -u
missing=""
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have_header zstd.h   || missing="$missing libzstd-dev"
have_header libdeflate.h || missing="$missing libdeflate-dev"
have_header zlib.h   || missing="$missing zlib1g-dev"
have_header sqlite3.h || missing="$missing libsqlite3-dev"
have_header stdarg.h || missing="$missing build-essential"
# a C++ compiler: the test programs include the C++ standard library's waits (host_cxxwaits)
printf '#include <atomic>\n' | ${CXX:-c++} -E -x c++ - >/dev/null 2>&1 || missing="$missing g++"
# libunwind: the CPU sampler walks native stacks with it in its signal handler (DWARF CFI, no
# frame pointers needed; its local unwinder is async-signal-safe)
have_header libunwind.h || missing="$missing libunwind-dev"
printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <cmocka.h>\n' \
	| ${CC:-cc} -E -x c - >/dev/null 2>&1 || missing="$missing libcmocka-dev"
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "deps: installing$missing" >&2
		(apt-get install -y -q $missing >/dev/null 2>&1 ||
		 { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $missing >/dev/null; }) || {
			echo "deps: apt-get failed; run: apt-get update && apt-get install -y$missing" >&2
			exit 1
		}
	else
		echo "gpuscope needs:$missing" >&2
		echo "run: sudo apt-get install -y$missing" >&2
		exit 1
	fi
fi
if [ ! -f "${NVTX_INC:-/usr/local/cuda/include}/nvtx3/nvToolsExt.h" ]; then
	echo "gpuscope needs the NVTX3 headers of the CUDA toolkit (nvtx3/nvToolsExt.h) in" >&2
	echo "'${NVTX_INC:-/usr/local/cuda/include}'; install the CUDA toolkit or set NVTX_INC=DIR" >&2
	exit 1
fi
if [ ! -f "${NVTX_INC:-/usr/local/cuda/include}/cupti_activity.h" ]; then
	echo "gpuscope needs the CUPTI headers of the CUDA toolkit (cupti_activity.h) in" >&2
	echo "'${NVTX_INC:-/usr/local/cuda/include}'; install the CUDA toolkit or set NVTX_INC=DIR" >&2
	exit 1
fi
# Optional, for the tests only: the report page's browser test (tests/cases/report.sh) opens
# the page in Debian's chromium, which that test installs when run as root and requires in CI
# (CI set). The build never needs it.
if ! command -v chromium >/dev/null 2>&1; then
	echo "deps: optional for 'make test': chromium (the report's browser test installs it when" \
		"run as root; else: sudo apt-get install -y chromium)" >&2
fi
exit 0
