# qdc — ahead-of-time compiler for Quadrants GPU kernels.
#   make            build build/qdc and build/libqdrt.a
#   make test       install missing Debian packages, build, run the suite (plain and ASan+UBSan)
#   make demo       compile every example and run it on the CPU
#   make install    PREFIX=/usr/local DESTDIR=
.SUFFIXES:
SHELL := /bin/bash

CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
LLVM     := /usr/lib/llvm-19
VERSION  := 0.1.0

WARN     := -std=c17 -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wvla
DEFS     := -D_GNU_SOURCE -DQDC_VERSION='"$(VERSION)"'
INCS     := -I$(LLVM)/include -I. -I/usr/include/spirv_cross
OPT      ?= -O2 -g
CFLAGS_Q  = $(WARN) $(DEFS) $(INCS) $(OPT) $(EXTRA_CFLAGS)
LIBS     := -L$(LLVM)/lib -Wl,-rpath,$(LLVM)/lib -lLLVM-19 -lyaml -lspirv-cross-c-shared \
            -lSPIRV-Tools -lstdc++ -lm -lpthread
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

# Debian 12 packages the build, the tests and the tools qdc spawns need.
DEB_PKGS := llvm-19-dev lld-19 libyaml-dev libcriterion-dev spirv-tools libspirv-cross-c-shared-dev \
            spirv-headers clang-19 libclang-rt-19-dev cmake ninja-build valgrind glslang-tools time \
            libvulkan-dev

SRC_DIRS := cli frontend ir capdb lower targets targets/llvm targets/spirv support
LIB_SRCS := $(filter-out cli/main.c,$(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
HDRS     := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.h $(d)/*.def)) $(wildcard runtime/*.h)
RT_SRCS  := $(wildcard runtime/*.c)
TEST_SRCS:= $(wildcard tests/unit/*.c)

B        ?= build
OBJS      = $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRCS))
AOBJS     = $(patsubst %.c,$(B)/asan/obj/%.o,$(LIB_SRCS))

all: $(B)/qdc $(B)/libqdrt.a
.PHONY: all deps vulkan-deps test check unit test-asan demo clean install install-files

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
	    || { echo "make deps: apt-get failed" >&2; exit 1; }; \
	fi

# lavapipe 25.x (Mesa's CPU Vulkan driver, bookworm-backports) for the suite's Vulkan runs,
# fetched with a private apt state into $(B)/vulkan (the machine's apt configuration is never
# touched), and vkrun built against the system loader (libvulkan-dev). Without them the Vulkan
# runs are counted as SKIPPED; with CI set that fails (`make unit` and the suite both check).
VK_DIR   := $(B)/vulkan
vulkan-deps:
	@if [ ! -f $(VK_DIR)/lvp_icd.json ] || [ tools/vulkan-runner/fetch-lavapipe.sh -nt $(VK_DIR)/lvp_icd.json ]; then \
	  bash tools/vulkan-runner/fetch-lavapipe.sh $(VK_DIR) || { \
	    echo "vulkan-deps: NO lavapipe: every Vulkan run of the suite will be SKIPPED" >&2; \
	    case "$${CI:-}" in ""|0|false) ;; *) echo "vulkan-deps: CI is set: failing" >&2; exit 1;; esac; }; \
	fi
	@if [ ! -x $(B)/vkrun ] || [ tools/vulkan-runner/vkrun.c -nt $(B)/vkrun ]; then \
	  mkdir -p $(B) && $(CC) -std=c17 -O2 -Wall -Wextra -Werror -o $(B)/vkrun tools/vulkan-runner/vkrun.c -lvulkan || { \
	    rm -f $(B)/vkrun; echo "vulkan-deps: cannot build vkrun (libvulkan-dev?): Vulkan runs will be SKIPPED" >&2; \
	    case "$${CI:-}" in ""|0|false) ;; *) exit 1;; esac; }; \
	fi
VK_ENV    = QDC_VKRUN=$(CURDIR)/$(B)/vkrun QDC_VULKAN_DIR=$(CURDIR)/$(VK_DIR) \
            VK_DRIVER_FILES=$${VK_DRIVER_FILES:-$(CURDIR)/$(VK_DIR)/lvp_icd.json}

$(B)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_Q) -c $< -o $@
$(B)/asan/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_Q) -O1 $(SAN) -c $< -o $@

$(B)/libqdc.a: $(OBJS)
	@rm -f $@; ar rcs $@ $^
$(B)/asan/libqdc.a: $(AOBJS)
	@rm -f $@; ar rcs $@ $^
$(B)/qdc: $(B)/obj/cli/main.o $(B)/libqdc.a | $(B)/qdc-build-tree
	$(CC) $(OPT) -o $@ $^ $(LIBS)
$(B)/asan/qdc: $(B)/asan/obj/cli/main.o $(B)/asan/libqdc.a | $(B)/asan/qdc-build-tree
	$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS)
# Marks a qdc as running from this build tree: the file holds the path of the tree's
# capability-db relative to the binary's directory. `make install` never copies it, so an
# installed qdc reads only <prefix>/share/qdc/capability-db (and the directories it is given).
$(B)/qdc-build-tree $(B)/asan/qdc-build-tree:
	@mkdir -p $(dir $@)
	realpath -m --relative-to=$(dir $@) capability-db > $@

# The CPU runtime (libqdrt): plain C and pthreads, no LLVM.
$(B)/libqdrt.a: $(patsubst %.c,$(B)/obj/%.o,$(RT_SRCS))
	@rm -f $@; ar rcs $@ $^
$(B)/asan/libqdrt.a: $(patsubst %.c,$(B)/asan/obj/%.o,$(RT_SRCS))
	@rm -f $@; ar rcs $@ $^

$(B)/qdc-tests: $(patsubst %.c,$(B)/obj/%.o,$(TEST_SRCS)) $(B)/libqdc.a $(B)/libqdrt.a
	$(CC) $(OPT) -o $@ $^ $(LIBS) -lcriterion
$(B)/asan/qdc-tests: $(patsubst %.c,$(B)/asan/obj/%.o,$(TEST_SRCS)) $(B)/asan/libqdc.a $(B)/asan/libqdrt.a
	$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS) -lcriterion

export ASAN_OPTIONS := detect_leaks=1:abort_on_error=0:$(ASAN_OPTIONS)
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1

# Criterion's own closing line ("Synthesis: Tested: N | Passing: ...") ends each run; before it
# the suite prints "Vulkan runs: N executed, M skipped" (skips are never passes).
unit: vulkan-deps $(B)/qdc $(B)/qdc-tests $(B)/libqdrt.a
	$(VK_ENV) QDC_BIN=$(CURDIR)/$(B)/qdc QDC_RT=$(CURDIR)/$(B)/libqdrt.a QDC_ROOT=$(CURDIR) \
	  $(B)/qdc-tests --jobs 2 $(CRITERION_ARGS)
test-asan: vulkan-deps $(B)/asan/qdc $(B)/asan/qdc-tests $(B)/asan/libqdrt.a
	$(VK_ENV) QDC_BIN=$(CURDIR)/$(B)/asan/qdc QDC_RT=$(CURDIR)/$(B)/asan/libqdrt.a QDC_ROOT=$(CURDIR) QDC_ASAN=1 \
	  $(B)/asan/qdc-tests --jobs 2 $(CRITERION_ARGS)

# The suite plain, each libFuzzer target for a short fixed-seed smoke run (replaying every saved
# regression input first), then the suite again under ASan+UBSan.
test: deps
	$(MAKE) unit
	$(MAKE) fuzz-smoke
	$(MAKE) test-asan
check: test

demo: deps
	$(MAKE) all
	@bash examples/demo.sh $(B)/qdc

install: all
	@$(MAKE) --no-print-directory B=$(B) install-files
# Copies what `all` built; the test suite calls it directly (no rebuild). Installed qdc finds
# its database at <bindir>/../share/qdc/capability-db.
install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/qdc/capability-db \
	  $(DESTDIR)$(PREFIX)/lib/cmake/qdc $(DESTDIR)$(PREFIX)/include/qdc
	install -m 755 $(B)/qdc $(DESTDIR)$(PREFIX)/bin/qdc
	$(foreach f,$(wildcard capability-db/*.yaml),install -m 644 $(f) $(DESTDIR)$(PREFIX)/share/qdc/capability-db/ &&) true
	install -m 644 $(B)/libqdrt.a $(DESTDIR)$(PREFIX)/lib/
	$(foreach f,$(wildcard runtime/*.h),install -m 644 $(f) $(DESTDIR)$(PREFIX)/include/qdc/ &&) true
	$(foreach s,1 5 7,$(foreach f,$(wildcard man/*.$(s)),install -D -m 644 $(f) $(DESTDIR)$(PREFIX)/share/man/man$(s)/$(notdir $(f)) &&)) true
	install -m 644 cmake/qdcConfig.cmake cmake/qdcConfigVersion.cmake $(DESTDIR)$(PREFIX)/lib/cmake/qdc/

# ---- Hardening (issue 8) and benchmarks (issue 9) ----
#   make fuzz FUZZ_SECONDS=N   replay testdata/regress/, then run each libFuzzer target N s
#   make fuzz-smoke            the same with FUZZ_SMOKE_SECONDS (10) each and a fixed seed (for make test)
#   make memcheck              valgrind: no definite leaks compiling each example for each backend kind
#   make bench                 compile latency, PTX quality, x86 run time, scaling -> bench/results.md
FUZZ_B       ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_NAMES   := frontend capdb pipeline kernel
FUZZ_BINS    := $(patsubst %,$(FUZZ_B)/fuzz_%,$(FUZZ_NAMES))
FUZZ_CFLAGS   = $(WARN) -Wno-error $(DEFS) $(INCS) -O1 -g $(SAN) -fsanitize=fuzzer-no-link
FUZZ_OBJS     = $(patsubst %.c,$(FUZZ_B)/obj/%.o,$(LIB_SRCS) fuzz/fuzz_common.c)
.PHONY: fuzz fuzz-smoke fuzz-build memcheck bench gpu-check

$(FUZZ_B)/obj/%.o: %.c $(HDRS) fuzz/fuzz.h fuzz/yaml_mutator.h fuzz/kernel_mutator.h
	@mkdir -p $(dir $@)
	clang-19 $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_BINS): $(FUZZ_B)/fuzz_%: $(FUZZ_B)/obj/fuzz/fuzz_%.o $(FUZZ_OBJS)
	clang-19 -g $(SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)
$(FUZZ_B)/fuzz_capdb: $(FUZZ_B)/obj/fuzz/yaml_mutator.o
$(FUZZ_B)/fuzz_kernel: $(FUZZ_B)/obj/fuzz/kernel_mutator.o
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do bash fuzz/run.sh $(FUZZ_B) $$n $(FUZZ_SECONDS) random || exit 1; done
fuzz-smoke: fuzz-build
	@for n in $(FUZZ_NAMES); do bash fuzz/run.sh $(FUZZ_B) $$n $(FUZZ_SMOKE_SECONDS) 1 || exit 1; done
memcheck: all
	@bash fuzz/memcheck.sh $(B)/qdc
bench: all
	@bash bench/bench.sh $(B)
# Examples + the atomics matrix from the PTX on this machine's NVIDIA GPU (CUDA driver only; never
# in CI) -> bench/gpu-results.md. Exit 77 without a GPU.
gpu-check: all
	@bash tools/cuda-launcher/gpu-check.sh $(B)

clean:
	rm -rf $(B)
