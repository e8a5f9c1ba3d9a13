# qdc — ahead-of-time compiler for Quadrants GPU kernels.
#   make            build build/qdc, build/libqdrt.a and build/qdrun
#   make test       install missing Debian packages, build, run the suite (plain, fuzz smoke,
#                   ASan+UBSan) and print one summary; V=1 shows full command lines
#   make demo       compile every example for every family into build/demo and run it on the CPU
#   make lit        the FileCheck tests (tests/lit, examples/lit) through LLVM's lit
#   make layers     the circles of files that call each other; fails past the limit
#   make install    PREFIX=/usr/local DESTDIR=      (make uninstall removes the same files)
.SUFFIXES:
SHELL := /bin/bash

CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
LLVM     := /usr/lib/llvm-19
VERSION  := $(shell cat VERSION)

WARN     := -std=c17 -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wvla
DEFS     := -D_GNU_SOURCE
INCS     := -I$(LLVM)/include -I. -I/usr/include/spirv_cross
OPT      ?= -O2 -g
CFLAGS_Q  = $(WARN) $(DEFS) $(INCS) $(OPT) $(EXTRA_CFLAGS)
LIBS     := -L$(LLVM)/lib -Wl,-rpath,$(LLVM)/lib -lLLVM-19 -lyaml -lspirv-cross-c-shared \
            -lSPIRV-Tools -lstdc++ -lm -lpthread
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

# Debian 12 packages the build, the tests and the tools qdc spawns need (bazel-bootstrap, Bazel
# 4.2, 35 MB with its Java libraries: the bazel suite builds a workspace with bazel/'s rules).
DEB_PKGS := llvm-19-dev lld-19 libyaml-dev libcriterion-dev spirv-tools libspirv-cross-c-shared-dev \
            spirv-headers clang-19 libclang-rt-19-dev cmake ninja-build valgrind glslang-tools time \
            libvulkan-dev llvm-19-tools bazel-bootstrap

SRC_DIRS := cli frontend frontend/py ir capdb lower targets targets/llvm targets/spirv support
LIB_SRCS := $(filter-out cli/main.c,$(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
HDRS     := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.h $(d)/*.def)) $(wildcard runtime/*.h)
RT_SRCS  := $(wildcard runtime/*.c)
TEST_SRCS:= $(wildcard tests/unit/*.c)

B        ?= build

# Quiet build lines: one short line per file; V=1 prints the full commands.
V ?= 0
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-5s %s\n' '$(1)' '$(2)'
endif
OBJS      = $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRCS))
AOBJS     = $(patsubst %.c,$(B)/asan/obj/%.o,$(LIB_SRCS))

all: $(B)/qdc $(B)/libqdrt.a $(B)/qdrun $(B)/vkrun
.PHONY: all deps vulkan-deps test check lit layers unit test-asan demo clean install install-files uninstall FORCE

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing Debian packages that building and testing qdc need:$$missing"; \
	  echo "make deps: (apt-get via sudo; install them yourself and re-run to skip this)"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
	    || { echo "make deps: apt-get failed" >&2; exit 1; }; \
	fi

# lavapipe 25.x (Mesa's CPU Vulkan driver, bookworm-backports) for the suite's Vulkan runs,
# fetched with a private apt state into $(B)/vulkan (the machine's apt configuration is never
# touched). Without it the Vulkan runs are counted as SKIPPED; with CI set that fails (`make unit`
# and the suite both check). vkrun (tools/vulkan-runner) is a client of libqdrt's device API.
VK_DIR   := $(B)/vulkan
vulkan-deps:
	@if [ ! -f $(VK_DIR)/lvp_icd.json ] || [ tools/vulkan-runner/fetch-lavapipe.sh -nt $(VK_DIR)/lvp_icd.json ]; then \
	  bash tools/vulkan-runner/fetch-lavapipe.sh $(VK_DIR) || { \
	    echo "vulkan-deps: NO lavapipe: every Vulkan run of the suite will be SKIPPED" >&2; \
	    case "$${CI:-}" in ""|0|false) ;; *) echo "vulkan-deps: CI is set: failing" >&2; exit 1;; esac; }; \
	fi
VK_ENV    = QDC_VKRUN=$(CURDIR)/$(B)/vkrun QDC_VULKAN_DIR=$(CURDIR)/$(VK_DIR) \
            VK_DRIVER_FILES=$${VK_DRIVER_FILES:-$(CURDIR)/$(VK_DIR)/lvp_icd.json}

$(B)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_Q) -c $< -o $@
$(B)/asan/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$< (asan))
	$(Q)$(CC) $(CFLAGS_Q) -O1 $(SAN) -c $< -o $@

# build/version.h: --version's facts from the one version source (VERSION), git and the
# packages built against; rewritten only when its text changes, so nothing rebuilds needlessly.
$(B)/version.h: FORCE
	@mkdir -p $(B); v() { dpkg-query -W -f='$${Version}' "$$1" 2>/dev/null | sed 's/[-+~].*//' | grep . || echo unknown; }; \
	{ echo '#define QDC_VERSION "$(VERSION)"'; \
	  echo "#define QDC_GIT_REV \"$$(git -C '$(CURDIR)' describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)\""; \
	  echo "#define QDC_LLVM_VERSION \"$$($(LLVM)/bin/llvm-config --version 2>/dev/null || echo 19)\""; \
	  echo "#define QDC_SPIRV_TOOLS_VERSION \"$$(v spirv-tools)\""; \
	  echo "#define QDC_SPIRV_CROSS_VERSION \"$$(v libspirv-cross-c-shared0)\""; } > $@.tmp; \
	cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(B)/obj/cli/main.o $(B)/asan/obj/cli/main.o: $(B)/version.h
$(B)/obj/cli/main.o $(B)/asan/obj/cli/main.o: CFLAGS_Q += -I$(B)

$(B)/libqdc.a: $(OBJS)
	$(call say,AR,$@)
	@rm -f $@; ar rcs $@ $^
$(B)/asan/libqdc.a: $(AOBJS)
	$(call say,AR,$@)
	@rm -f $@; ar rcs $@ $^
$(B)/qdc: $(B)/obj/cli/main.o $(B)/libqdc.a | $(B)/qdc-build-tree
	$(call say,LINK,$@)
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS)
$(B)/asan/qdc: $(B)/asan/obj/cli/main.o $(B)/asan/libqdc.a | $(B)/asan/qdc-build-tree
	$(call say,LINK,$@)
	$(Q)$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS)
# Marks a qdc as running from this build tree: the file holds the path of the tree's
# capability-db relative to the binary's directory. `make install` never copies it, so an
# installed qdc reads only <prefix>/share/qdc/capability-db (and the directories it is given).
$(B)/qdc-build-tree $(B)/asan/qdc-build-tree:
	@mkdir -p $(dir $@)
	@realpath -m --relative-to=$(dir $@) capability-db > $@

# The runtime (libqdrt): plain C, pthreads and dlopen, no LLVM. Its device API opens the Vulkan
# loader, libcuda and libamdhip64 at run time (only Vulkan's headers are needed to build it); a
# program that runs CPU modules through it exports its qdrt_* symbols (RT_EXPORT, qdrt(3)).
RT_EXPORT := -rdynamic
$(B)/obj/runtime/device_vk.o $(B)/asan/obj/runtime/device_vk.o: runtime/vk_features.def
$(B)/libqdrt.a: $(patsubst %.c,$(B)/obj/%.o,$(RT_SRCS))
	$(call say,AR,$@)
	@rm -f $@; ar rcs $@ $^
$(B)/asan/libqdrt.a: $(patsubst %.c,$(B)/asan/obj/%.o,$(RT_SRCS))
	$(call say,AR,$@)
	@rm -f $@; ar rcs $@ $^
# qdrun(1): one kernel of a compiled module on a device, .npy files in and out.
$(B)/qdrun: $(B)/obj/tools/qdrun/qdrun.o $(B)/libqdrt.a
	$(call say,LINK,$@)
	$(Q)$(CC) $(OPT) -o $@ $^ -lpthread -lm $(RT_EXPORT)
$(B)/asan/qdrun: $(B)/asan/obj/tools/qdrun/qdrun.o $(B)/asan/libqdrt.a
	$(call say,LINK,$@)
	$(Q)$(CC) $(OPT) $(SAN) -o $@ $^ -lpthread -lm $(RT_EXPORT)
# vkrun: the suite's Vulkan runner (SPIR-V entry points, raw buffers), over libqdrt.
$(B)/vkrun: $(B)/obj/tools/vulkan-runner/vkrun.o $(B)/libqdrt.a
	$(call say,LINK,$@)
	$(Q)$(CC) $(OPT) -o $@ $^ -lpthread -lm

$(B)/qdc-tests: $(patsubst %.c,$(B)/obj/%.o,$(TEST_SRCS)) $(B)/libqdc.a $(B)/libqdrt.a
	$(call say,LINK,$@)
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS) -lcriterion $(RT_EXPORT)
$(B)/asan/qdc-tests: $(patsubst %.c,$(B)/asan/obj/%.o,$(TEST_SRCS)) $(B)/asan/libqdc.a $(B)/asan/libqdrt.a
	$(call say,LINK,$@)
	$(Q)$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS) -lcriterion $(RT_EXPORT)

export ASAN_OPTIONS := detect_leaks=1:abort_on_error=0:$(ASAN_OPTIONS)
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1

# Criterion's own closing line ("Synthesis: Tested: N | Passing: ...") ends each run; before it
# the suite prints "Vulkan runs: N executed, M skipped" (skips are never passes).
unit: vulkan-deps $(B)/qdc $(B)/qdc-tests $(B)/libqdrt.a $(B)/qdrun $(B)/vkrun
	$(call say,TEST,$(B)/qdc-tests $(CRITERION_ARGS))
	$(Q)$(VK_ENV) QDC_QDRUN=$(CURDIR)/$(B)/qdrun QDC_BIN=$(CURDIR)/$(B)/qdc QDC_RT=$(CURDIR)/$(B)/libqdrt.a QDC_ROOT=$(CURDIR) \
	  $(B)/qdc-tests --jobs 2 $(CRITERION_ARGS)
test-asan: vulkan-deps $(B)/asan/qdc $(B)/asan/qdc-tests $(B)/asan/libqdrt.a $(B)/asan/qdrun $(B)/vkrun
	$(call say,TEST,$(B)/asan/qdc-tests $(CRITERION_ARGS))
	$(Q)$(VK_ENV) QDC_QDRUN=$(CURDIR)/$(B)/asan/qdrun QDC_BIN=$(CURDIR)/$(B)/asan/qdc QDC_RT=$(CURDIR)/$(B)/asan/libqdrt.a QDC_ROOT=$(CURDIR) QDC_ASAN=1 \
	  $(B)/asan/qdc-tests --jobs 2 $(CRITERION_ARGS)

# The suite plain, each libFuzzer target for a short fixed-seed smoke run (replaying every saved
# regression input first), then the suite again under ASan+UBSan; every stage runs even when
# an earlier one failed, each log is kept in $(B)/test-<stage>.log, and one summary ends it.
TEST_STAGES := unit fuzz-smoke test-asan
test: deps
	@set -o pipefail; mkdir -p $(B); fail=0; sum=""; np=0; nf=0; \
	for st in $(TEST_STAGES); do \
	  echo "== make $$st"; \
	  if $(MAKE) --no-print-directory $$st 2>&1 | tee $(B)/test-$$st.log; then r=passed; else r=FAILED; fail=1; fi; \
	  d=$$(grep -ao 'Tested: [0-9]* | Passing: [0-9]* | Failing: [0-9]* | Crashing: [0-9]*' $(B)/test-$$st.log | tail -1); \
	  [ -n "$$d" ] || d=$$(grep -ac '^fuzz_[a-z]*: [0-9]* executions.* 0 new crash' $(B)/test-$$st.log | sed 's/$$/ fuzz targets without a new crash/'); \
	  sum="$$sum$$(printf '  %-10s %-7s %s' "$$st" "$$r" "$$d")\n"; \
	  set -- $$(echo "$$d" | sed -n 's/.*Passing: \([0-9]*\) | Failing: \([0-9]*\) | Crashing: \([0-9]*\).*/\1 \2 \3/p'); \
	  np=$$(( np + $${1:-0} )); nf=$$(( nf + $${2:-0} + $${3:-0} )); \
	done; \
	printf '\n== make test summary\n%b' "$$sum"; \
	[ $$fail = 0 ] && echo "make test: all stages passed" || echo "make test: FAILED (logs: $(B)/test-<stage>.log)"; \
	echo "tests: $$np passed, $$nf failed"; [ $$fail = 0 ]
check: test

# LLVM lit + FileCheck (llvm-19-tools): qdc's own FileCheck tests and the examples' (the suite
# runs both too: build_tools/lit_suite_passes, build_tools/lit_examples_pass).
LIT := /usr/lib/llvm-19/build/utils/lit/lit.py
lit: deps $(B)/qdc
	@QDC=$(CURDIR)/$(B)/qdc python3 $(LIT) -sv tests/lit examples/lit

# Circles of files that call each other (from the objects' symbol tables): fails when one has
# more files than tools/layers/circles.py's LIMIT (docs/architecture.md, "Circles"); the
# suite's layers/* tests check the same.
layers: $(OBJS)
	@python3 tools/layers/circles.py --root . $(B)/obj

# Compiles every example for every family into $(DEMO_DIR) (kept for inspection) and runs them
# on the CPU.
DEMO_DIR ?= $(B)/demo
demo: deps
	@$(MAKE) --no-print-directory all
	@bash examples/demo.sh $(B)/qdc $(DEMO_DIR)

install: all
	@$(MAKE) --no-print-directory B=$(B) install-files
# Copies what `all` built; the test suite calls it directly (no rebuild). Installed qdc finds
# its database at <bindir>/../share/qdc/capability-db; qdrt.pc and the CMake package locate
# the prefix relative to themselves, so the tree stays relocatable.
P := $(DESTDIR)$(PREFIX)
RT_PUBLIC_HDRS := $(filter-out runtime/qdrt_backend.h,$(wildcard runtime/*.h))
INSTALLED_FILES = bin/qdc bin/qdrun lib/libqdrt.a lib/pkgconfig/qdrt.pc \
  $(patsubst capability-db/%,share/qdc/capability-db/%,$(wildcard capability-db/*.yaml)) \
  $(patsubst runtime/%,include/qdc/%,$(RT_PUBLIC_HDRS)) \
  $(foreach s,1 3 5 7,$(patsubst man/%,share/man/man$(s)/%,$(wildcard man/*.$(s)))) \
  lib/cmake/qdc/qdcConfig.cmake lib/cmake/qdc/qdcConfigVersion.cmake lib/cmake/qdc/qdc-version.txt \
  $(patsubst %,share/doc/qdc/examples/%,$(notdir $(wildcard examples/*.qd))) \
  share/doc/qdc/examples/cuda-launcher/launch.c share/doc/qdc/examples/cuda-launcher/Makefile \
  share/bash-completion/completions/qdc
INSTALLED_DIRS := share/doc/qdc/examples/cuda-launcher share/doc/qdc/examples share/doc/qdc share/qdc/capability-db \
  share/qdc include/qdc lib/cmake/qdc lib/cmake lib/pkgconfig share/bash-completion/completions share/bash-completion
install-files:
	install -d $(P)/bin $(P)/share/qdc/capability-db $(P)/lib/cmake/qdc $(P)/lib/pkgconfig $(P)/include/qdc \
	  $(P)/share/doc/qdc/examples/cuda-launcher
	install -m 755 $(B)/qdc $(B)/qdrun $(P)/bin/
	$(foreach f,$(wildcard capability-db/*.yaml),install -m 644 $(f) $(P)/share/qdc/capability-db/ &&) true
	install -m 644 $(B)/libqdrt.a $(P)/lib/
	$(foreach f,$(RT_PUBLIC_HDRS),install -m 644 $(f) $(P)/include/qdc/ &&) true
	$(foreach s,1 3 5 7,$(foreach f,$(wildcard man/*.$(s)),install -d $(P)/share/man/man$(s) && \
	  sed '1,5s/"qdc [0-9][0-9.]*"/"qdc $(VERSION)"/' $(f) > $(P)/share/man/man$(s)/$(notdir $(f)) &&)) true
	install -m 644 cmake/qdcConfig.cmake cmake/qdcConfigVersion.cmake $(P)/lib/cmake/qdc/
	install -m 644 VERSION $(P)/lib/cmake/qdc/qdc-version.txt
	printf '%s\n' 'prefix=$${pcfiledir}/../..' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include/qdc' '' \
	  'Name: qdrt' 'Description: qdc runtime: runs kernels compiled by qdc on Vulkan, CUDA, HIP and the CPU (qdrt(3))' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lqdrt -lpthread -lm -rdynamic' \
	  > $(P)/lib/pkgconfig/qdrt.pc
	$(foreach f,$(wildcard examples/*.qd),install -m 644 $(f) $(P)/share/doc/qdc/examples/ &&) true
	install -m 644 tools/cuda-launcher/launch.c tools/cuda-launcher/Makefile $(P)/share/doc/qdc/examples/cuda-launcher/
	install -d $(P)/share/bash-completion/completions
	install -m 644 tools/completion/qdc.bash $(P)/share/bash-completion/completions/qdc
# Removes exactly what install-files wrote, then the directories it made if they are empty.
uninstall:
	rm -f $(addprefix $(P)/,$(INSTALLED_FILES))
	-rmdir $(addprefix $(P)/,$(INSTALLED_DIRS)) 2>/dev/null; true

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
	$(call say,CC,$< (fuzz))
	$(Q)clang-19 $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_BINS): $(FUZZ_B)/fuzz_%: $(FUZZ_B)/obj/fuzz/fuzz_%.o $(FUZZ_OBJS)
	$(call say,LINK,$@)
	$(Q)clang-19 -g $(SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)
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
