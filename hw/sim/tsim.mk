# hw/sim/tsim.mk: the Verilator model of hw/rtl ("tsim"), one shared library per config:
#   build/tsim/CONFIG/libovta_tsim.so         (make tsim-CONFIG)
#   build/tsim/CONFIG-trace/libovta_tsim.so   (with FST waveforms: make tsim-CONFIG-trace)
# loaded with dlopen by driver/backend_tsim.c. The Verilated top is hw/sim/tsim/ovta_tsim_top.sv
# (ovta_top with registered inputs: one evaluation per cycle; see hw/sim/README.md). Rebuilt
# only when the RTL, the config's package or the harness change; Verilator's own make rebuilds
# incrementally inside obj/.
# Not part of `make all` (expensive); the tsim tests build what they need through `make tsim`.
# TSIM_PGO=1 (default; TSIM_PGO=0 to skip): the model's C++ built with GCC's profile-guided
# optimization (TSIM_BUILD_PGO below), for the configs build/bench/tsim_bench can load, of
# TSIM_PGO_CONFIGS (default: the default config, the one the benchmarks and models run on; `all`:
# every config). Each profiled model compiles twice (~1 min more each), so `make test`, which
# builds ~8 models, keeps the others plain (the same cycles: only the C++ compiler's layout differs).
TSIM_PGO_CONFIGS ?= default
TSIM_PGO_FOR = $(if $(or $(filter all,$(TSIM_PGO_CONFIGS)),$(filter $(1),$(TSIM_PGO_CONFIGS))),$(TSIM_PGO))

TSIM_CONFIGS := default small batch2 wide wide256
TSIM_RTL := $(sort $(wildcard hw/rtl/*.sv))
TSIM_RTL_SRCS = hw/rtl/ovta_rtl_pkg.sv $(filter-out hw/rtl/ovta_rtl_pkg.sv,$(TSIM_RTL))
TSIM_VFLAGS := --cc -O3 --x-assign fast --x-initial 0 --top-module ovta_tsim_top -Wno-fatal \
  -Wno-lint -Wno-style --prefix Vovta_top
TSIM_CXXFLAGS := -std=c++17 -O2 -fPIC -g0 -Wall -Wno-unused-parameter
VERILATOR_INC := /usr/share/verilator/include
TSIM_JOBS ?= 2

.PHONY: tsim $(TSIM_CONFIGS:%=tsim-%) $(TSIM_CONFIGS:%=tsim-%-trace)
## tsim: the Verilator models of the default and small configs
tsim: tsim-default tsim-small
## tsim-CONFIG: the Verilator model of one config (default small batch2 wide wide256)
$(TSIM_CONFIGS:%=tsim-%): tsim-%: $(B)/tsim/%/libovta_tsim.so
## tsim-CONFIG-trace: the same with FST waveforms (ovta sim --trace)
$(TSIM_CONFIGS:%=tsim-%-trace): tsim-%-trace: $(B)/tsim/%-trace/libovta_tsim.so

# tsim_cfg.h: the config's values as TSIM_* macros, from the generated package
$(B)/tsim/%/tsim_cfg.h: $(B)/gen/%/ovta_pkg.sv
	@mkdir -p $(dir $@)
	{ echo '#define TSIM_CONFIG_NAME "$*"'; \
	  sed -n 's/^  localparam int unsigned \([A-Z_0-9]*\) = \([0-9]*\);$$/#define TSIM_\1 \2/p' $<; } > $@
$(B)/tsim/%-trace/tsim_cfg.h: $(B)/gen/%/ovta_pkg.sv
	@mkdir -p $(dir $@)
	{ echo '#define TSIM_CONFIG_NAME "$*"'; echo '#define TSIM_TRACE 1'; \
	  sed -n 's/^  localparam int unsigned \([A-Z_0-9]*\) = \([0-9]*\);$$/#define TSIM_\1 \2/p' $<; } > $@

# $(1): output dir, $(2): config, $(3): extra verilator flags, $(4): extra harness sources and
# libraries, $(5): the design's sources (default: the RTL; hw/rtl/netlist.mk: the netlist),
# $(6): the C++ optimization of the model (default OPT_FAST=-O2 OPT_SLOW=-O1),
# $(7): 1 or clang to build the model with profile-guided optimization (TSIM_BUILD_PGO)
define TSIM_BUILD
	@mkdir -p $(1)/obj
	verilator $(TSIM_VFLAGS) $(3) -Mdir $(1)/obj -CFLAGS "-fPIC -O2 -g0" \
	  $(B)/gen/$(2)/ovta_pkg.sv $(or $(5),$(TSIM_RTL_SRCS)) hw/sim/tsim/ovta_tsim_top.sv
	@rm -f $(1)/obj/Vovta_top__ALL.a  # ar -rc would keep members of an older model next to the new ones
	@if [ -e $(1)/obj/pgo-instrumented ]; then rm -f $(1)/obj/*.o $(1)/obj/pgo-instrumented; fi
	$(if $(filter 1 clang,$(7)),$(call TSIM_BUILD_PGO,$(1),$(2),$(4),$(7)))
	$(MAKE) --no-print-directory -j$(TSIM_JOBS) -C $(1)/obj -f Vovta_top.mk Vovta_top__ALL.a \
	  $(or $(6),OPT_FAST=-O2 OPT_SLOW=-O1)$(if $(filter 1,$(7)), $(TSIM_PGO_USE))$(if \
	  $(filter clang,$(7)), $(call TSIM_PGO_USE_CLANG,$(1))) CXX="$(or $(TSIM_MODEL_CXX_$(7)),$(CXX)) -fPIC" >/dev/null
	$(call TSIM_LINK,$(1),$(4),$(1)/libovta_tsim.so)
endef
# $(1): output dir, $(2): harness extras as above, $(3): the library; $(4): extra C++ flags,
# $(5): the compiler (default $(CXX))
define TSIM_LINK
	$(or $(5),$(CXX)) $(TSIM_CXXFLAGS) $(4) -shared -include $(1)/tsim_cfg.h -Ihw/sim -I$(1)/obj \
	  -I$(VERILATOR_INC) -I$(VERILATOR_INC)/vltstd -o $(3) hw/sim/tsim/tsim.cpp \
	  $(VERILATOR_INC)/verilated.cpp $(VERILATOR_INC)/verilated_threads.cpp $(2) \
	  $(1)/obj/Vovta_top__ALL.a -lpthread
endef

# Profile-guided optimization of the model. tsim is bound by the instruction cache (bench/README.md
# "tsim speed"); GCC's profile puts the code each cycle runs together and the rest (idle units'
# branches, errors, start-up) out of the way: tsim_bench's programs +22% (GEMM), +27-30% (ALU,
# DMA; bench/README.md, 2026-11-27). Same function: only the compiler's layout and inlining differ. Steps, in $(1)/obj:
# the model's C++ instrumented (-fprofile-generate; pgo-instrumented marks such objects), a
# training run, `build/bench/tsim_bench CONFIG 1` (its GEMM, ALU and DMA programs, ~1 s), writes
# the .gcda profiles next to the objects; then TSIM_BUILD compiles them again with -fprofile-use.
# Without a profile (a config tsim_bench cannot load, a failed run) the model is built as without
# PGO (-Wno-missing-profile). Reproducible: the simulation and so the profile are deterministic.
# TSIM_PGO=clang (opt-in): the model's C++ by clang++ (clang-14) with LLVM's PGO instead, the
# profile merged by llvm-profdata-14 (Debian llvm-14; llvm-15's writes a format clang-14 cannot
# read); the harness stays g++. Measured 2026-11-27: gemm +25-30% over GCC's PGO, ALU/DMA 2-9% below.
TSIM_PGO ?= 1
TSIM_PGO_CLANG ?= clang++
TSIM_PGO_PROFDATA ?= llvm-profdata-14
TSIM_MODEL_CXX_clang = $(TSIM_PGO_CLANG) -Wno-parentheses-equality
TSIM_PGO_USE := OPT_FAST="-O2 -fprofile-use -fprofile-partial-training -Wno-missing-profile"
TSIM_PGO_GEN_1 := -fprofile-generate -fprofile-update=single
TSIM_PGO_GEN_clang := -fprofile-generate
# clang: the profile only if the training made one (clang fails on a missing profile file)
TSIM_PGO_USE_CLANG = OPT_FAST="-O2 $$(test -s $(abspath $(1))/obj/pgo.profdata && \
  echo -fprofile-use=$(abspath $(1))/obj/pgo.profdata -Wno-profile-instr-unprofiled)"
# The training run's config: a name of isa/configs, else the file of a test regression config
# or of TSIM_JSON (tsim_bench loads a config by name or path)
TSIM_PGO_CONFIG = $(firstword $(wildcard tests/gen/regress/$(1).json) \
  $(if $(filter $(1),$(TSIM_JSON_NAME)),$(TSIM_JSON)) $(1))
# $(1): output dir, $(2): config, $(3): harness extras, $(4): 1 (GCC) or clang
define TSIM_BUILD_PGO
	rm -f $(1)/obj/*.o $(1)/obj/*.gcda $(1)/obj/pgo.prof*
	touch $(1)/obj/pgo-instrumented
	$(MAKE) --no-print-directory -j$(TSIM_JOBS) -C $(1)/obj -f Vovta_top.mk Vovta_top__ALL.a \
	  OPT_FAST="-O2 $(TSIM_PGO_GEN_$(4))" OPT_SLOW=-O1 CXX="$(or $(TSIM_MODEL_CXX_$(4)),$(CXX)) -fPIC" >/dev/null
	$(call TSIM_LINK,$(1),$(3),$(1)/obj/pgo-train.so,$(TSIM_PGO_GEN_$(4)),$(or $(TSIM_MODEL_CXX_$(4)),$(CXX)))$(if \
	  $(filter clang,$(4)), -latomic)
	{ LLVM_PROFILE_FILE=$(abspath $(1))/obj/pgo.profraw OVTA_TSIM_LIB=$(abspath $(1)/obj/pgo-train.so) \
	  $(TSIM_BENCH) $(call TSIM_PGO_CONFIG,$(2)) 1 >/dev/null$(if $(filter clang,$(4)), && $(TSIM_PGO_PROFDATA) merge \
	  -o $(1)/obj/pgo.profdata $(1)/obj/pgo.profraw); } || \
	  { echo "tsim: no PGO training run for $(2): the model is built without a profile" >&2; \
	    rm -f $(1)/obj/*.gcda $(1)/obj/pgo.prof*; }
	rm -f $(1)/obj/*.o $(1)/obj/Vovta_top__ALL.a $(1)/obj/pgo-train.so $(1)/obj/pgo-instrumented
endef
TSIM_BENCH := $(B)/bench/tsim_bench

$(B)/tsim/%/libovta_tsim.so: $(TSIM_RTL) $(B)/gen/%/ovta_pkg.sv $(B)/tsim/%/tsim_cfg.h \
    hw/sim/tsim/tsim.cpp hw/sim/tsim.h hw/sim/tsim/ovta_tsim_top.sv | $(if $(filter 1 clang,$(TSIM_PGO)),$(TSIM_BENCH))
	$(call TSIM_BUILD,$(B)/tsim/$*,$*,,,,,$(call TSIM_PGO_FOR,$*))

$(B)/tsim/%-trace/libovta_tsim.so: $(TSIM_RTL) $(B)/gen/%/ovta_pkg.sv \
    $(B)/tsim/%-trace/tsim_cfg.h hw/sim/tsim/tsim.cpp hw/sim/tsim.h hw/sim/tsim/ovta_tsim_top.sv
	$(call TSIM_BUILD,$(B)/tsim/$*-trace,$*,--trace-fst,$(VERILATOR_INC)/verilated_fst_c.cpp -lz)
# make TSIM_JSON=FILE build/tsim/NAME/libovta_tsim.so: the model of a config file outside
# isa/configs (`ovta sweep`'s points, build/sweep-configs/NAME.json; NAME = the file's base name
# = its "name"): its package from the file, then the rules above.
ifneq ($(TSIM_JSON),)
TSIM_JSON_NAME := $(basename $(notdir $(TSIM_JSON)))
.PHONY: tsim-json
## tsim-json TSIM_JSON=FILE: the Verilator model of a config file (build/tsim/NAME/, NAME its base name)
tsim-json: $(B)/tsim/$(TSIM_JSON_NAME)/libovta_tsim.so
$(B)/gen/$(TSIM_JSON_NAME)/ovta_pkg.sv: $(ISAGEN) isa/encoding.json $(TSIM_JSON)
	@mkdir -p $(dir $@)
	$(ISAGEN) sv-package isa/encoding.json $(TSIM_JSON) $@
else
.PHONY: tsim-json
tsim-json:
	@echo "make tsim-json needs TSIM_JSON=FILE (a config file; its base name is its \"name\")" >&2; exit 2
endif
.PRECIOUS: $(B)/tsim/%/tsim_cfg.h $(B)/tsim/%-trace/tsim_cfg.h $(B)/gen/%/ovta_pkg.sv

# Configs of tests/gen/regress/NAME.json (only test_tsim_diff uses them): small-inp4k, whose INP
# and ACC depths differ (512 and 128 entries), unlike every config above.
TSIM_REGRESS_CONFIGS := small-inp4k
$(B)/gen/%/ovta_pkg.sv: $(ISAGEN) isa/encoding.json tests/gen/regress/%.json
	@mkdir -p $(dir $@)
	$(ISAGEN) sv-package isa/encoding.json tests/gen/regress/$*.json $@

# The models the tests load: build/tsim/CONFIG (driver/backend_tsim.c), made by the normal build,
# which `make test` runs before the sanitizer builds (SAN=1, TSAN=1): those need no models of their own.
TSIM_TEST_MODELS := $(if $(filter 1,$(SAN) $(TSAN)),,$(TSIM_CONFIGS:%=$(B)/tsim/%/libovta_tsim.so))
TSIM_TEST_REGRESS_MODELS := $(if $(TSIM_TEST_MODELS),$(TSIM_REGRESS_CONFIGS:%=$(B)/tsim/%/libovta_tsim.so))

# The tsim tests need every config's model: build them (incrementally) before the tests.
$(B)/tests/tsim/test_tsim: | $(TSIM_TEST_MODELS)

# tests/tsim/test_tsim_diff: random programs (tests/gen) on fsim and tsim; linked with the
# generator (its variables come from tests/gen/gen.mk, expanded in the recipe).
$(B)/tests/tsim/test_tsim_diff: tests/tsim/test_tsim_diff.c tests/gen/randprog.c tests/gen/randprog.h \
    tools/ovta/load.c tools/ovta/ovta_tool.h $(LIB) $(GEN) \
    | $(TSIM_TEST_MODELS) $(TSIM_TEST_REGRESS_MODELS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(RANDPROG_FLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(RANDPROG_SRCS) $(LIB) $(LDFLAGS) \
	  $(OVTA_TOOL_LDLIBS) $(TEST_LDLIBS) $(LDLIBS)

# make test-diff-long also runs DIFF_LONG_SEEDS programs per config on fsim against tsim (and
# long-loop and non-hermetic shapes on every fourth seed; tests/gen/diff_long.sh), on the test
# configs and on alveo-u250 (the 512-bit board config; its model is built only here).
# TSIM_LONG_CONFIGS="small" to run one config.
TSIM_LONG_CONFIGS ?= small default batch2 wide wide256 alveo-u250
.PHONY: test-diff-tsim-long
test-diff-long: test-diff-tsim-long
## test-diff-tsim-long [DIFF_LONG_SEEDS=3000] [DIFF_LONG_JOBS=2] [TSIM_LONG_CONFIGS=...]: random programs fsim against tsim, in parallel
test-diff-tsim-long: $(B)/ovta-randprog $(TSIM_LONG_CONFIGS:%=$(B)/tsim/%/libovta_tsim.so)
	@$(DIFF_LONG) --configs "$(TSIM_LONG_CONFIGS)" --backends fsim,tsim --shapes all

# make bench-tsim [BENCH_CONFIG=small]: cycles, GEMM uops per cycle, DMA bytes per cycle (JSON)
BENCH_CONFIG ?= default
.PHONY: bench-tsim
## bench-tsim [BENCH_CONFIG=default]: cycles, GEMM micro-ops per cycle, DMA bytes per cycle, as JSON
bench-tsim: $(TSIM_BENCH) $(B)/tsim/$(BENCH_CONFIG)/libovta_tsim.so
	$(TSIM_BENCH) $(BENCH_CONFIG)
$(TSIM_BENCH): bench/tsim_bench.c $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# tests/tsim/test_tsim_faults (cmocka) and tests/tsim/test_faults_kill.sh (faults from the command
# line, SIGKILL of vboard clients and servers): the models, build/ovta and build/ovta-vboard.
$(B)/tests/tsim/test_tsim_faults: | $(TSIM_TEST_MODELS)
TESTS += $(B)/tests/tsim/test_faults_kill
$(B)/tests/tsim/test_faults_kill: tests/tsim/test_faults_kill.sh hw/sim/tsim.mk $(B)/ovta $(B)/ovta-vboard \
    | $(TSIM_TEST_MODELS)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/tsim/test_faults_kill.sh" "%s/$(B)" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@
