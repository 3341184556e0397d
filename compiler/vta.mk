# compiler/ (back half): accelerator lowering through staged loop IR to runtime calls.
# See compiler/README-vta.md. Sources compiler/vta*.c (vta_main.c is the build/ovta-vta tool).
LIB_SRCS += $(filter-out compiler/vta_main.c,$(wildcard compiler/vta*.c))

OVTA_VTA := $(B)/ovta-vta
TOOLS += $(OVTA_VTA)
$(OVTA_VTA): compiler/vta_main.c $(B)/libovta.a $(GEN)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ compiler/vta_main.c $(B)/libovta.a $(LDFLAGS) $(LDLIBS)

# FileCheck tests of every lowering stage (tests/vta/*.test; RUN lines use $OVTA_VTA), run by the
# shared runner tests/filecheck/run.sh, which prints cmocka-style lines for tests/run.sh.
VTA_FC := $(B)/tests/vta/run-filecheck
TESTS += $(VTA_FC)
$(VTA_FC): $(OVTA_VTA) tests/filecheck/run.sh compiler/vta.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\ncd "%s" && OVTA_VTA="%s/$(OVTA_VTA)" exec bash tests/filecheck/run.sh $(B) tests/vta/*.test "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

# The full-size ResNet-18 sweep (C2..C11, 1 and 2 virtual threads, every config): slow on small.
.PHONY: test-vta-full bench-layers
test-vta-full: $(B)/tests/vta/test_vta
	OVTA_VTA_FULL=1 $(B)/tests/vta/test_vta

# bench/resnet_layers.c: per layer JSON (instructions, uops, bytes; cycles and MAC utilization on a
# backend that counts cycles). Env OVTA_BENCH_BACKENDS (default fsim), OVTA_BENCH_CONFIGS.
LAYERS_BENCH := $(B)/bench/resnet_layers
TOOLS += $(LAYERS_BENCH)
$(LAYERS_BENCH): bench/resnet_layers.c $(B)/libovta.a $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)
bench-layers: $(LAYERS_BENCH)
	$(LAYERS_BENCH)
