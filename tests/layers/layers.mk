# tests/layers/: the layering rules, checked by compiling one-line files (test_layers.sh): each
# compiler layer with its own include flags (compiler/compiler.mk) against every layer header,
# and hw/sim against the driver. The wrapper carries the flags, taken from the fragments.
LAYERS_TEST := $(B)/tests/layers/test_layers
TESTS += $(LAYERS_TEST)
# What hw/sim may see: isa/, the generated headers and its own folder (the driver uses the
# simulators, not the other way round).
HW_SIM_CPPFLAGS = $(BASE_CPPFLAGS) -Ihw/sim

$(LAYERS_TEST): tests/layers/test_layers.sh tests/layers/layers.mk compiler/compiler.mk Makefile $(GEN)
	@mkdir -p $(dir $@)
	@{ printf '#!/bin/sh\n# made by tests/layers/layers.mk\n'; \
	  printf "CC='%s'\nLAYERS='%s'\nHW_SIM_FLAGS='%s'\nPLAN_FLAGS='%s'\n" '$(CC)' '$(COMPILER_LAYERS)' '$(HW_SIM_CPPFLAGS)' '$(PLAN_CPPFLAGS)'; \
	  $(foreach l,$(COMPILER_LAYERS),printf "USES_%s='%s'\nFLAGS_%s='%s'\n" \
	    $(l) '$(COMPILER_USES_$(l))' $(l) '$(call compiler_layer_cppflags,$(l))';) \
	  printf 'export CC LAYERS HW_SIM_FLAGS PLAN_FLAGS %s\ncd "%s" && exec bash tests/layers/test_layers.sh "$$@"\n' \
	    '$(foreach l,$(COMPILER_LAYERS),USES_$(l) FLAGS_$(l))' '$(SRC)'; } > $@
	chmod +x $@
