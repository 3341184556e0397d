# isa/: config, encoding (generated from isa/encoding.json), checks, assembler, disassembler.
ISA_GEN_H := $(B)/gen/ovta_isa_gen.h
# a tool of the build machine (HOST_CC; build-ARCH/host/isagen in a cross build)
ISAGEN := $(B)/$(if $(CROSS_ARCH),host/)isagen
GEN += $(ISA_GEN_H)
LIB_SRCS += isa/error.c isa/util.c isa/timing.c isa/parallel.c isa/array.c isa/config.c isa/layout.c isa/isa.c $(wildcard isa/asm.c isa/disasm.c)

$(ISAGEN): isa/gen/isagen.c isa/config.c isa/layout.c isa/error.c isa/ovta_base.h | $(B)/gen
	@mkdir -p $(dir $@)
	$(HOST_CC) $(CPPFLAGS) $(CFLAGS) -o $@ isa/gen/isagen.c isa/config.c isa/layout.c isa/error.c $(LDFLAGS) -lcjson

$(ISA_GEN_H): $(ISAGEN) isa/encoding.json
	$(ISAGEN) c-header isa/encoding.json $@

# The SystemVerilog package of a config: build/gen/CONFIG/ovta_pkg.sv
$(B)/gen/%/ovta_pkg.sv: $(ISAGEN) isa/encoding.json isa/configs/%.json
	@mkdir -p $(dir $@)
	$(ISAGEN) sv-package isa/encoding.json isa/configs/$*.json $@
