#!/usr/bin/env bash
# scripts/system_libs.sh: the system's shared libraries that load without side effects worth
# noting (the C library's own, sanitizer runtimes, allocators, preload tricks, GL and NSS left
# out), one path a line, at most N: what the benches and tests load to give a process as many
# libraries as a PyTorch one has.
#   usage: scripts/system_libs.sh [N]   (default: all)
ls /usr/lib/x86_64-linux-gnu/*.so.* 2>/dev/null |
	grep -v -E '/(libc|libpthread|libdl|librt|libm|ld-linux|libasan|libtsan|liblsan|libubsan|libhwasan|libmemusage|libpcprofile|libSegFault|libthread_db|libunwind|libjemalloc|libtcmalloc|libfakeroot|libeatmydata|libGL|libEGL|libnss_)' |
	head -"${1:-1000000}"
