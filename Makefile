# ovta: top-level build. Each layer adds itself through its own fragment (isa/isa.mk,
# driver/driver.mk, ...). Targets: `make help` lists every public one, from the
# "## TARGET: what it does" line right above its rule in the fragment that defines it.
# Outputs go to build/ (SAN=1: build-san/ with AddressSanitizer and UBSan; FUZZ=1: build-fuzz/,
# clang with libFuzzer instrumentation, used by `make fuzz`; TSAN=1: build-tsan/, clang with
# ThreadSanitizer, used by `make test-tsan`).

SRC := $(abspath .)
SAN ?= 0
FUZZ ?= 0
TSAN ?= 0
CC := gcc
# CROSS_ARCH=aarch64|armv7 (set by `make cross ARCH=...`, boards/cross.mk): build-ARCH/, the
# runtime (ovta-rt) compiled by Debian's cross gcc; the tools that generate sources (the isa
# generator) are still built for and run on this machine, with HOST_CC.
CROSS_ARCH ?=
CROSS_TRIPLE_aarch64 := aarch64-linux-gnu
CROSS_TRIPLE_armv7 := arm-linux-gnueabihf
ifneq ($(CROSS_ARCH),)
CROSS_TRIPLE := $(CROSS_TRIPLE_$(CROSS_ARCH))
$(if $(CROSS_TRIPLE),,$(error CROSS_ARCH=$(CROSS_ARCH): not aarch64 or armv7))
B ?= build-$(CROSS_ARCH)
CC := $(CROSS_TRIPLE)-gcc
SANFLAGS :=
else ifeq ($(FUZZ),1)
B ?= build-fuzz
CC := clang
# (the functions tests/fuzz/coverage-ignore.txt names, fsim's GEMM/ALU loop nests, get no coverage
# instrumentation: tests/fuzz/README.md, "fsim")
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
  -fsanitize-coverage-ignorelist=$(SRC)/tests/fuzz/coverage-ignore.txt
else ifeq ($(TSAN),1)
B ?= build-tsan
CC := clang
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
else ifeq ($(SAN),1)
B ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
B ?= build
SANFLAGS :=
endif

CXX := g++
# the compiler of tools that run during the build (the isa generator)
HOST_CC := $(if $(CROSS_ARCH),gcc,$(CC))
OPT ?= -O2
# BASE_CPPFLAGS: what every object sees; the compiler's layers add their own include paths
# (compiler/compiler.mk), everything else sees all of CPPFLAGS.
BASE_CPPFLAGS := -I$(B)/gen -Iisa -DOVTA_SRC_DIR=\"$(SRC)\" -D_GNU_SOURCE
CPPFLAGS := $(BASE_CPPFLAGS) -Idriver -Ihw/sim -Ijit-runtime -Iplan
# The hardware-side layers, lowest first: isa/ -> hw/sim/ -> driver/ -> jit-runtime/ -> plan/. Each one's
# objects see only its own headers and those below, so an upward include fails to build (the
# compiler's layers do the same in compiler/compiler.mk).
$(B)/obj/isa/%.o: CPPFLAGS = $(BASE_CPPFLAGS)
$(B)/obj/hw/sim/%.o: CPPFLAGS = $(BASE_CPPFLAGS) -Ihw/sim
$(B)/obj/driver/%.o: CPPFLAGS = $(BASE_CPPFLAGS) -Ihw/sim -Idriver
$(B)/obj/jit-runtime/%.o: CPPFLAGS = $(BASE_CPPFLAGS) -Ihw/sim -Idriver -Ijit-runtime
PLAN_CPPFLAGS := $(BASE_CPPFLAGS) -Ihw/sim -Idriver -Ijit-runtime -Iplan
$(B)/obj/plan/%.o: CPPFLAGS = $(PLAN_CPPFLAGS)
CFLAGS := -std=c11 $(OPT) -g -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
  -Werror=incompatible-pointer-types -Werror=int-conversion -fPIC $(SANFLAGS)
LDFLAGS := $(SANFLAGS)
LDLIBS := -lcjson -lm -lpthread -ldl

.DEFAULT_GOAL := all
.PHONY: all deps run test clean help

## help: this list, from the "## TARGET: what" line above each public rule, by fragment
help:
	@awk 'FNR == 1 { file = FILENAME } \
	  /^## [a-z][^:]*: / { if (file != shown) { printf "%s%s\n", shown ? "\n" : "", file; shown = file } \
	    i = index($$0, ": "); t = substr($$0, 4, i - 4); if (length(t) > 22) { print "  " t; t = "" } \
	    printf "  %-22s %s\n", t, substr($$0, i + 2) }' \
	  $(filter Makefile %.mk,$(MAKEFILE_LIST))
	@echo; echo "The areas of make test AREA=NAME[,NAME...] (tests/README.md):"; echo "  $(TEST_AREAS)"

## deps: install the missing Debian packages (tools/install-deps.sh, apt-get)
deps:
	@bash tools/install-deps.sh

# The one library every layer goes into (defined before the fragments, which use it), and the
# runtime alone: plan/ and the layers below it, no compiler/ (what build/ovta-rt links).
LIB := $(B)/libovta.a
RT_LIB := $(B)/libovta-rt.a

# Fragments append to these.
LIB_SRCS :=
TOOLS :=
TESTS :=
GEN :=

include isa/isa.mk
include driver/driver.mk
include hw/sim/sim.mk
include hw/sim/tsim.mk
include boards/boards.mk
include boards/cross.mk
include hw/rtl/rtl.mk
include hw/rtl/netlist.mk
include jit-runtime/runtime.mk
include plan/plan.mk
include compiler/compiler.mk
include tools/tools.mk
include tests/tests.mk
include tests/layers/layers.mk
include tests/fuzz/fuzz.mk
include tests/gen/gen.mk
include tests/bad/bad.mk
include tests/soak/soak.mk
include tests/readme/readme.mk
include tests/remote/remote.mk

# Tests of these areas run programs on tsim: the models come first, also when `make test AREA=...`
# builds only the tests of some areas (without AREA, test_tsim's prerequisites build them).
TSIM_TEST_AREAS := boards cli e2e fsim fuzz layers profile remote runtime soak tsim vta
$(foreach a,$(TSIM_TEST_AREAS),$(filter $(B)/tests/$(a)/%,$(TESTS))): | $(TSIM_TEST_MODELS)

LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o)

$(B)/obj/%.o: %.c $(GEN) | $(B)/gen
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

RT_OBJS := $(filter-out $(B)/obj/compiler/% $(B)/obj/$(B)/gen/%,$(LIB_OBJS))
$(RT_LIB): $(RT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/gen:
	@mkdir -p $@

## all: build the library, the tools and the tests (the default goal)
all: $(LIB) $(TOOLS) $(TESTS)

# make test AREA=NAME[,NAME...]: only the tests of those areas, an area being the folder of a
# test program under build/tests/ (build/tests/vta/test_vta: vta); it builds the library, the
# tools and those tests only, in both builds. Without AREA: everything.
comma := ,
TEST_AREA_LIST = $(subst $(comma), ,$(AREA))
TEST_AREAS = $(sort $(foreach t,$(TESTS),$(firstword $(subst /, ,$(t:$(B)/tests/%=%)))))
# $(call in_area,BUILD_DIR,TEST...): the TESTs under BUILD_DIR/tests/AREA/ (all without AREA)
in_area = $(if $(AREA),$(filter $(foreach a,$(TEST_AREA_LIST),$(1)/tests/$(a)/%),$(2)),$(2))

## test [AREA=NAME[,NAME...]] [TEST_SAN=full|subset|none]: deps, build, run the tests (of AREA), then again in the ASan+UBSan build
test: deps
	$(if $(filter-out $(TEST_AREAS),$(TEST_AREA_LIST)),$(error AREA=$(AREA): no tests in \
	  $(filter-out $(TEST_AREAS),$(TEST_AREA_LIST)); the areas: $(TEST_AREAS)))
	@$(MAKE) --no-print-directory $(if $(AREA),$(LIB) $(TOOLS) $(call in_area,$(B),$(TESTS)),all)
	$(if $(TEST_SAN_BUILD),@$(MAKE) --no-print-directory SAN=1 $(TEST_SAN_BUILD))
	@bash tests/run.sh $(B) $(call in_area,$(B),$(TESTS)) $(call in_area,build-san,$(TEST_SAN_SUBSET))

## run [BACKEND=tsim|fsim|cpu] [CONFIG=NAME] [COUNT=N] [JSON=1]: deps, build, Fashion-MNIST fp32 vs int8 (README.md)
run: deps
	@$(MAKE) --no-print-directory all
	@bash tools/run-main.sh $(B)

## clean: remove build/, build-san/, build-fuzz/, build-tsan/ and the cross builds (build-aarch64/, build-armv7/)
clean:
	rm -rf build build-san build-fuzz build-tsan build-aarch64 build-armv7

-include $(shell find $(B)/obj $(B)/tests -name '*.d' 2>/dev/null)
