# tools/: the `ovta` command (tools/ovta/*.c -> build/ovta) and its CLI tests (tests/cli/).
# `ovta sim` needs the driver and the fsim backend: load.c is compiled in and cmd_sim.c gets
# -DOVTA_HAVE_DRIVER once the driver with its fsim backend (driver/driver.mk: driver.c,
# backend_fsim.c) and the simulator (hw/sim/sim.mk: fsim.c) are part of libovta; until then
# `ovta sim` says it is not built yet.
OVTA_TOOL_SRCS := tools/ovta/main.c tools/ovta/common.c tools/ovta/cmd_asm.c tools/ovta/cmd_disasm.c \
  tools/ovta/cmd_sim.c tools/ovta/cmd_config.c tools/ovta/cmd_compile.c tools/ovta/cmd_run.c \
  tools/ovta/image.c tools/ovta/remote.c
OVTA_TOOL_DEFS :=
ifneq ($(and $(filter driver/driver.c,$(LIB_SRCS)),$(filter driver/backend_fsim.c,$(LIB_SRCS)),$(filter hw/sim/fsim.c,$(LIB_SRCS))),)
OVTA_TOOL_SRCS += tools/ovta/load.c tools/ovta/cmd_tune.c tools/ovta/cmd_sweep.c
OVTA_TOOL_DEFS += -DOVTA_HAVE_DRIVER
endif
# `ovta eval`, `make bench-resnet18`, `make test-ort` and the e2e test: tools/e2e.mk.
include tools/e2e.mk
# `ovta profile`, `ovta bench` and their tests: tests/profile/profile.mk.
include tests/profile/profile.mk
# Extra link libraries a backend needs (e.g. the Verilator model's C++ runtime): set by its fragment.
OVTA_TOOL_LDLIBS ?=
# PNG inputs (tools/ovta/image.c): Debian's libpng (libpng-dev).
OVTA_TOOL_PNG_LDLIBS := -lpng

TOOLS += $(B)/ovta

$(B)/ovta: $(OVTA_TOOL_SRCS) tools/ovta/ovta_tool.h tools/tools.mk $(LIB) $(GEN)
	$(CC) $(CPPFLAGS) -Itools/ovta $(OVTA_TOOL_DEFS) $(CFLAGS) -o $@ $(OVTA_TOOL_SRCS) $(LIB) $(LDFLAGS) \
	  -Wl,--export-dynamic-symbol='ovta_par_*' $(OVTA_TOOL_LDLIBS) $(OVTA_TOOL_PNG_LDLIBS) $(LDLIBS)

# CLI tests: tests/cli/test_cli.sh, run by tests/run.sh through a wrapper that names the build.
TESTS += $(B)/tests/cli/test_cli

$(B)/tests/cli/test_cli: tests/cli/test_cli.sh $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/cli/test_cli.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

# `ovta tune`'s tests: tests/cli/test_tune.sh (Fashion-MNIST, a few trials per layer on tsim).
TESTS += $(B)/tests/cli/test_tune

$(B)/tests/cli/test_tune: tests/cli/test_tune.sh $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/cli/test_tune.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

# `ovta sweep`'s fast test: tests/cli/test_sweep.sh (two shipped configs on tsim, their models
# built here when missing, no synthesis; fsim when tsim cannot be built).
TESTS += $(B)/tests/cli/test_sweep

$(B)/tests/cli/test_sweep: tests/cli/test_sweep.sh $(B)/ovta | $(B)/tsim/small/libovta_tsim.so $(B)/tsim/default/libovta_tsim.so
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/cli/test_sweep.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

# make test-slurm: `ovta sweep --slurm` and `ovta tune --slurm` on a one-node Slurm cluster
# started on this machine (tests/slurm/cluster.sh; Debian's slurm-wlm and munge, installed here
# by tools/install-deps.sh slurm), their tables compared with local runs. Not in `make test`.
.PHONY: test-slurm
## test-slurm: a one-node Slurm cluster here; a small sweep and a small tune through Slurm give the local tables
test-slurm: $(B)/ovta $(B)/tsim/small/libovta_tsim.so $(B)/tsim/default/libovta_tsim.so
	bash tools/install-deps.sh slurm
	bash tests/slurm/test_slurm.sh $(SRC)/$(B)/ovta

# build/ovta-opt: graph passes on a model file (tools/ovta-opt/main.c); build/ovta-vta: one
# accelerator operator through the lowering stages (tools/ovta-vta/main.c).
OVTA_OPT := $(B)/ovta-opt
OVTA_VTA := $(B)/ovta-vta
TOOLS += $(OVTA_OPT) $(OVTA_VTA)
$(OVTA_OPT): tools/ovta-opt/main.c $(LIB) $(GEN)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)
$(OVTA_VTA): tools/ovta-vta/main.c $(LIB) $(GEN)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# build/ovta-randgraph: the compiler's differential fuzzer (tools/ovta-randgraph/README.md): random
# graphs from seeds, fp32 against the reference evaluator and onnxruntime, int8 CPU path against
# the accelerator byte for byte. `make fuzz-compiler [SECONDS=300]`; a short fixed run in `make
# test` (tests/fuzz/test_fuzz_compiler.sh).
OVTA_RANDGRAPH := $(B)/ovta-randgraph
OVTA_RANDGRAPH_SRCS := tools/ovta-randgraph/main.c tools/ovta-randgraph/gen.c tools/ovta-randgraph/check.c
TOOLS += $(OVTA_RANDGRAPH)
$(OVTA_RANDGRAPH): $(OVTA_RANDGRAPH_SRCS) tools/ovta-randgraph/randgraph.h $(LIB) $(GEN)
	$(CC) $(CPPFLAGS) -Itools/ovta-randgraph $(CFLAGS) -o $@ $(OVTA_RANDGRAPH_SRCS) $(LIB) $(LDFLAGS) \
	  -Wl,--export-dynamic-symbol='ovta_par_*' $(OVTA_TOOL_LDLIBS) $(LDLIBS)
.PHONY: fuzz-compiler
## fuzz-compiler [SECONDS=300]: the compiler's differential fuzzer: random graphs, fp32 vs ort, int8 CPU vs accelerator
fuzz-compiler: $(OVTA_RANDGRAPH) $(B)/ovta
	bash tests/fuzz/fuzz_compiler.sh $(B) $(or $(SECONDS),300)

# The full-size ResNet-18 sweep (C2..C11, 1 and 2 virtual threads, every config): slow on small.
.PHONY: test-vta-full bench-layers
## test-vta-full: test_vta with all ten full-size ResNet-18 layers on every config (minutes)
test-vta-full: $(B)/tests/vta/test_vta
	OVTA_VTA_FULL=1 $(B)/tests/vta/test_vta

# bench/resnet_layers.c: per layer JSON (instructions, uops, bytes; cycles and MAC utilization on a
# backend that counts cycles). Env OVTA_BENCH_BACKENDS (default fsim), OVTA_BENCH_CONFIGS.
LAYERS_BENCH := $(B)/bench/resnet_layers
TOOLS += $(LAYERS_BENCH)
$(LAYERS_BENCH): bench/resnet_layers.c $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)
## bench-layers: ResNet-18 layers through the accelerator lowering, one JSON line per layer (bench/resnet_layers.c)
bench-layers: $(LAYERS_BENCH)
	$(LAYERS_BENCH)

# build/ovta-rt: the runtime alone (tools/ovta-rt/main.c): plan folders run through plan/, the
# driver and the JIT runtime. It sees only the headers below the compiler and links
# libovta-rt.a (Makefile: libovta.a without compiler/) without LLVM or protobuf-c; the
# accelerator host code in kernels.so finds the shims ovta_vrt_* among the executable's dynamic
# symbols.
OVTA_RT := $(B)/ovta-rt
# kernels.so is linked by ld.lld alone, without the target's libraries: what its code calls
# besides ovta_vrt_* and libc must be in ovta-rt's global scope, so libm is needed even when
# ovta-rt itself calls nothing in it (rintf on ARMv7, which has no rounding instruction; expf
# and the like), and on 32-bit ARM libgcc_s too (__aeabi_ldivmod: 64-bit division).
OVTA_RT_LDLIBS := -lcjson -Wl,--push-state,--no-as-needed -lm $(if $(filter armv7,$(CROSS_ARCH)),-lgcc_s) \
  -Wl,--pop-state -lpthread -ldl
TOOLS += $(OVTA_RT)
.PHONY: ovta-rt
## ovta-rt: build/ovta-rt, the runtime alone: runs `ovta compile` folders, no compiler, LLVM or protobuf
ovta-rt: $(OVTA_RT)
$(OVTA_RT): tools/ovta-rt/main.c plan/ovta_plan.h plan/ovta_remote.h tools/tools.mk $(RT_LIB) $(GEN)
	$(CC) $(PLAN_CPPFLAGS) $(CFLAGS) -o $@ $< $(RT_LIB) $(LDFLAGS) \
	  -Wl,--export-dynamic-symbol='ovta_vrt_*' -Wl,--export-dynamic-symbol='ovta_par_*' $(OVTA_RT_LDLIBS)

# ovta-rt's tests (tests/cli/test_ovta_rt.sh: the same outputs as `ovta run`, no LLVM/protobuf,
# bad plan folders), run by tests/run.sh through a wrapper that names the build.
TESTS += $(B)/tests/cli/test_ovta_rt
$(B)/tests/cli/test_ovta_rt: tests/cli/test_ovta_rt.sh $(OVTA_RT) $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/cli/test_ovta_rt.sh" "%s/$(OVTA_RT)" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" "$(SRC)" > $@
	chmod +x $@
