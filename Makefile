# gpuscope build. `make` builds the CLI, the injected library and the test programs into
# $(BUILD); `make test` runs every test that needs no GPU, in a normal and in an ASan+UBSan
# build; `make demo` profiles a bundled example; `make install PREFIX=DIR`.

CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local
SAN     ?=
CUDA_HOME ?= /usr/local/cuda
NVTX_INC ?= $(CUDA_HOME)/include

OPT      = -O2
ifneq ($(SAN),)
OPT      = -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
WARN     = -Wall -Wextra -Werror
CFLAGS  ?=
CFLAGS  += -std=c17 $(WARN) -g $(OPT) -D_GNU_SOURCE -pthread
LDFLAGS ?=
# TLS descriptors: the collector reads its thread state on every record; gnu2 makes that a
# load instead of a call to __tls_get_addr once the state sits in static TLS.
LIB_CFLAGS := $(shell $(CC) -mtls-dialect=gnu2 -Werror -fPIC -E -x c /dev/null >/dev/null 2>&1 && echo -mtls-dialect=gnu2)
# Without them (clang before 19) every access calls __tls_get_addr, which after a library with
# TLS was loaded grows the thread's TLS vector with malloc: in the sampling signal handler, on a
# thread interrupted inside malloc, a deadlock (tests/programs/host_tlsload). Then the state is
# initial-exec TLS, a load from the thread pointer, and `gpuscope profile` always preloads the
# library so that its TLS is static (collector.h, GS_THREAD).
ifeq ($(LIB_CFLAGS),)
CFLAGS += -DGS_TLS_INITIAL_EXEC=1
endif

CLI_SRC  = $(wildcard src/util/*.c src/format/*.c src/capture/*.c src/model/*.c \
                      src/analysis/*.c src/render/*.c src/import/*.c \
                      src/export/*.c)
MAIN_SRC = $(wildcard src/cli/*.c)
LIB_SRC  = $(wildcard src/collector/*.c)
CUDA_LIB_SRC = $(wildcard src/collector/cuda/*.c)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
PROG_SRC = $(wildcard tests/programs/*.c) bench/nvtx_pair.c bench/osrt_calls.c
CXX_PROG_SRC = $(wildcard tests/programs/*.cc)
EX_SRC   = $(wildcard examples/*.c)
FUZZ_SRC = $(wildcard tests/fuzz/fuzz_*.c)

CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ = $(MAIN_SRC:%.c=$(BUILD)/obj/%.o)
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
CUDA_LIB_OBJ = $(CUDA_LIB_SRC:%.c=$(BUILD)/pic/%.o)

BIN      = $(BUILD)/bin/gpuscope
LIB      = $(BUILD)/lib/libgpuscope-inject.so
CUDA_LIB = $(BUILD)/lib/libgpuscope-cuda.so
PRELOAD_LIB = $(BUILD)/lib/libgpuscope-preload.so
OSRT_LIB = $(BUILD)/lib/libgpuscope-osrt.so
# `gpuscope profile --pytorch`: the Python hook, put on PYTHONPATH from lib/python/
PY_HOOK  = $(patsubst src/python/%,$(BUILD)/lib/python/%,$(wildcard src/python/*.py))
# CUPTI and the driver stub from the CUDA toolkit (headers: $(NVTX_INC)).
CUDA_LIBDIRS = $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib $(CUDA_HOME)/extras/CUPTI/lib64)
CUDA_STUBS = $(firstword $(wildcard $(CUDA_HOME)/lib64/stubs $(CUDA_HOME)/lib/stubs))
UNITS    = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
PROGS    = $(patsubst %.c,$(BUILD)/tests/programs/%,$(notdir $(PROG_SRC))) \
	   $(patsubst %.cc,$(BUILD)/tests/programs/%,$(notdir $(CXX_PROG_SRC)))
EXAMPLES = $(EX_SRC:%.c=$(BUILD)/%)
GEN_TRACE = $(BUILD)/bench/gen_trace
TIMEMAP_BENCH = $(BUILD)/bench/timemap
RINGFAULT_BENCH = $(BUILD)/bench/ringfault
FORKCOST_BENCH = $(BUILD)/bench/forkcost
CTXSWITCH_BENCH = $(BUILD)/bench/ctxswitch
GEN_COUNTERS = $(BUILD)/tests/tools/gen_counters
DEPS_OK  = $(BUILD)/.deps-ok
HOST_LIBS = $(patsubst tests/programs/peer/host_%.c,$(BUILD)/tests/programs/libhost_%.so,$(wildcard tests/programs/peer/host_*.c))

all: $(BIN) $(LIB) $(CUDA_LIB) $(PRELOAD_LIB) $(OSRT_LIB) $(PY_HOOK) $(PROGS) $(UNITS) $(EXAMPLES) $(BUILD)/tests/programs/libnvtx_peer.so \
	$(HOST_LIBS) $(BUILD)/tests/programs/other-nvperf/libnvperf_host.so $(GEN_TRACE) $(GEN_COUNTERS) $(TIMEMAP_BENCH) $(RINGFAULT_BENCH) $(FORKCOST_BENCH) $(CTXSWITCH_BENCH)

$(DEPS_OK): scripts/deps.sh
	@NVTX_INC='$(NVTX_INC)' CC='$(CC)' sh scripts/deps.sh
	@mkdir -p $(@D) && touch $@

$(BUILD)/obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The CUPTI decoder reads the toolkit's record layouts and a table of runtime API names
# generated from cupti_runtime_cbid.h.
$(BUILD)/obj/src/model/cupti.o: src/model/cupti.c $(BUILD)/gen/cupti_runtime_names.h \
		$(BUILD)/gen/cupti_driver_names.h | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(NVTX_INC) -I$(BUILD)/gen -MMD -MP -c $< -o $@

$(BUILD)/gen/cupti_runtime_names.h: $(NVTX_INC)/cupti_runtime_cbid.h | $(DEPS_OK)
	@mkdir -p $(@D)
	sed -n 's/^ *CUPTI_RUNTIME_TRACE_CBID_\([a-z][A-Za-z0-9_]*\) *= *\([0-9][0-9]*\),.*/[\2] = "\1",/p' $< >$@.tmp
	@test -s $@.tmp && mv $@.tmp $@

$(BUILD)/gen/cupti_driver_names.h: $(NVTX_INC)/cupti_driver_cbid.h | $(DEPS_OK)
	@mkdir -p $(@D)
	sed -n 's/^ *CUPTI_DRIVER_TRACE_CBID_\([a-z][A-Za-z0-9_]*\) *= *\([0-9][0-9]*\),.*/[\2] = "\1",/p' $< >$@.tmp
	@test -s $@.tmp && mv $@.tmp $@

# The report page's style sheet and script, as C strings (render/html.c includes them).
$(BUILD)/gen/html_assets.h: src/render/html_page.css src/render/html_page.js
	@mkdir -p $(@D)
	{ printf '/* generated from src/render/html_page.css and html_page.js */\n'; \
	  printf 'static const char gs_html_css[] =\n'; sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' \
		-e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' src/render/html_page.css; printf ';\n'; \
	  printf 'static const char gs_html_js[] =\n'; sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' \
		-e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' src/render/html_page.js; printf ';\n'; } >$@.tmp
	@mv $@.tmp $@

$(BUILD)/obj/src/render/html.o: src/render/html.c $(BUILD)/gen/html_assets.h | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(BUILD)/gen -MMD -MP -c $< -o $@

# The injected library: position independent, hidden by default, only libc/pthread/dl.
$(BUILD)/pic/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LIB_CFLAGS) -fPIC -fvisibility=hidden -I$(NVTX_INC) -MMD -MP -c $< -o $@

$(BIN): $(MAIN_OBJ) $(CLI_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lzstd -ldeflate -lz -lm

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--no-undefined -Wl,-soname,libgpuscope-inject.so \
		-o $@ $^ -ldl -lrt

# The CUDA library's calls into CUPTI must return into its own code: the CUPTI guard of
# libgpuscope-preload.so lets a call through by its return address, and a sibling (tail) call
# would return into the caller's library (libgpuscope-inject.so, on a capture range's end).
$(CUDA_LIB_OBJ): CFLAGS += -fno-optimize-sibling-calls -Isrc/collector/cuda/shim

# The CUDA side: links libgpuscope-inject.so (found beside it), libcupti and libcuda; a RUNPATH
# names the toolkit's library folders so libcupti is found where the toolkit put it.
$(CUDA_LIB): $(CUDA_LIB_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--no-undefined -Wl,-soname,libgpuscope-cuda.so \
		-o $@ $(CUDA_LIB_OBJ) -L$(BUILD)/lib -lgpuscope-inject $(CUDA_LIBDIRS:%=-L%) \
		-L$(CUDA_STUBS) -lcupti -lcuda -Wl,-rpath,'$$ORIGIN' \
		$(CUDA_LIBDIRS:%=-Wl,-rpath,%) -Wl,--enable-new-dtags

# The OS runtime wrappers (--trace osrt): preloaded with osrt only, beside the library above,
# whose record path they call (found beside it).
$(OSRT_LIB): $(BUILD)/pic/src/collector/osrt/osrt.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--no-undefined -Wl,-soname,libgpuscope-osrt.so \
		-o $@ $< -L$(BUILD)/lib -lgpuscope-inject -ldl -Wl,-rpath,'$$ORIGIN' -Wl,--enable-new-dtags

$(BUILD)/lib/python/%.py: src/python/%.py
	@mkdir -p $(@D)
	cp $< $@

# The exec and CUPTI interposer goes into every process of a CUDA session, whatever they were
# built with: never sanitized, only libc.
$(PRELOAD_LIB): src/collector/preload/preload.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) -std=c17 $(WARN) -g -O2 -D_GNU_SOURCE -fPIC -fvisibility=hidden -shared \
		-Wl,--no-undefined -Wl,-soname,libgpuscope-preload.so -I$(NVTX_INC) -o $@ $< -ldl

$(BUILD)/tests/unit/%: tests/unit/%.c $(CLI_OBJ) $(BUILD)/obj/src/cli/outname.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(NVTX_INC) -MMD -MP -o $@ $< $(CLI_OBJ) $(BUILD)/obj/src/cli/outname.o -lcmocka -lzstd -ldeflate -lz -lsqlite3 -lm

$(BUILD)/tests/programs/%: tests/programs/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(NVTX_INC) -o $@ $< -ldl

# C++ programs (the standard library's waits for --trace osrt); c++ is clang++ with CC=clang
CXX_FOR_CC = $(if $(findstring clang,$(CC)),clang++,$(CXX))
$(BUILD)/tests/programs/%: tests/programs/%.cc | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CXX_FOR_CC) -std=c++20 $(WARN) -g $(OPT) -pthread -o $@ $<

# the CUDA library's API-call record writer, driven on the CPU (tests/cases/apirec.sh)
$(BUILD)/tests/programs/cuda_apirec: tests/programs/cuda_apirec.c $(BUILD)/pic/src/collector/cuda/apirec.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(NVTX_INC) -o $@ $< $(BUILD)/pic/src/collector/cuda/apirec.o \
		-L$(BUILD)/lib -lgpuscope-inject -Wl,-rpath,'$$ORIGIN/../../lib' -ldl

# the kernel metrics' choice of libnvperf_host.so, driven on the CPU (tests/cases/kmetrics.sh),
# and the other release's copy that LD_LIBRARY_PATH offers there
$(BUILD)/tests/programs/cuda_nvperf: tests/programs/cuda_nvperf.c $(BUILD)/pic/src/collector/cuda/nvperf.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -ldl

$(BUILD)/tests/programs/other-nvperf/libnvperf_host.so: tests/programs/peer/nvperf_other.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -Wl,-soname,libnvperf_host.so -o $@ $<

# the CPU-bound function walks back into a JIT'ed frame that only %rbp chains
$(BUILD)/tests/programs/host_jitfork: CFLAGS += -fno-omit-frame-pointer

$(BUILD)/tests/programs/libnvtx_peer.so: tests/programs/peer/nvtx_peer.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -I$(NVTX_INC) -o $@ $< -ldl

# the host tests' libraries: tests/programs/peer/host_NAME.c as libhost_NAME.so
$(BUILD)/tests/programs/libhost_%.so: tests/programs/peer/host_%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

# linked with it: a library loaded at start (not dlopen'ed) is what a dlopen at exit initialised again
$(BUILD)/tests/programs/host_exitinit: tests/programs/host_exitinit.c $(BUILD)/tests/programs/libhost_exitinit.so | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(@D) -Wl,--no-as-needed -lhost_exitinit -Wl,-rpath,'$$ORIGIN'

$(BUILD)/examples/%: examples/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(NVTX_INC) -o $@ $< -ldl

$(BUILD)/tests/programs/nvtx_pair: bench/nvtx_pair.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(NVTX_INC) -o $@ $< -ldl

$(BUILD)/tests/programs/osrt_calls: bench/osrt_calls.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# The load benchmark's trace generator: writes real CUPTI records through the format's writers.
$(GEN_TRACE): bench/gen_trace.c $(CLI_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(NVTX_INC) -MMD -MP -o $@ $< $(CLI_OBJ) -lzstd -ldeflate -lz -lm

# What mapping a TSC timestamp costs the assembler (bench/timemap.c).
$(TIMEMAP_BENCH): bench/timemap.c $(CLI_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(CLI_OBJ) -lzstd -ldeflate -lz -lm

# What the first stores into a ring cost, in a file against a memfd (bench/ringfault.c).
$(RINGFAULT_BENCH): bench/ringfault.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $<

# What a fork of a process of many mappings costs (bench/forkcost.c, bench/forkcost.sh).
$(FORKCOST_BENCH): bench/forkcost.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $<

# What a context switch costs under each sampling clock (bench/ctxswitch.c, bench/sample_clock.sh).
$(CTXSWITCH_BENCH): bench/ctxswitch.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $<

# GPU counter tracks of known values, written through the format's writer (tests/cases/gpu_metrics.sh).
$(GEN_COUNTERS): tests/tools/gen_counters.c $(CLI_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(CLI_OBJ) -lzstd -ldeflate -lz -lm

# libFuzzer targets (clang only): make fuzz; tests/run.sh runs them for a bounded time.
fuzz: $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
build-fuzz/%: tests/fuzz/%.c $(CLI_SRC) $(BUILD)/gen/cupti_runtime_names.h \
		$(BUILD)/gen/cupti_driver_names.h $(BUILD)/gen/html_assets.h | $(DEPS_OK)
	@mkdir -p $(@D)
	clang -std=c17 $(WARN) -g -O1 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -pthread \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I$(NVTX_INC) -I$(BUILD)/gen -o $@ $< $(CLI_SRC) -lzstd -ldeflate -lz -lm

test:
	@bash tests/run.sh

demo: all
	@bash examples/demo.sh $(BUILD)

bench: all
	@bash bench/run.sh $(BUILD)

bench-load: $(BIN) $(GEN_TRACE)
	@bash bench/load.sh $(BUILD)

install: $(BIN) $(LIB) $(CUDA_LIB) $(PRELOAD_LIB) $(OSRT_LIB) $(PY_HOOK)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/lib/python
	install -m 644 $(PY_HOOK) $(DESTDIR)$(PREFIX)/lib/python/
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/gpuscope
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libgpuscope-inject.so
	install -m 755 $(CUDA_LIB) $(DESTDIR)$(PREFIX)/lib/libgpuscope-cuda.so
	install -m 755 $(PRELOAD_LIB) $(DESTDIR)$(PREFIX)/lib/libgpuscope-preload.so
	install -m 755 $(OSRT_LIB) $(DESTDIR)$(PREFIX)/lib/libgpuscope-osrt.so

clean:
	rm -rf build build-asan build-clang build-fuzz

.PHONY: all test demo bench bench-load install clean fuzz
.SECONDARY:

-include $(shell find $(BUILD) -name hta-venv -prune -o -name '*.d' -type f -print 2>/dev/null)
