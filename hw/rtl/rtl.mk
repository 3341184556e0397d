# hw/rtl: the accelerator RTL (SystemVerilog; see hw/rtl/README.md): lint and synthesis targets.
# The Verilator simulation is built by hw/sim/tsim.mk.

RTL_CONFIGS := default small batch2 wide wide256 alveo-u250
RTL_SRCS = hw/rtl/ovta_rtl_pkg.sv $(filter-out hw/rtl/ovta_rtl_pkg.sv,$(sort $(wildcard hw/rtl/*.sv)))

.PHONY: lint-rtl synth
# Must print only the config names: the test configs and alveo-u250 (512-bit bus).
## lint-rtl: verilator --lint-only -Wall on the RTL for every config of RTL_CONFIGS
lint-rtl: $(RTL_CONFIGS:%=$(B)/gen/%/ovta_pkg.sv)
	@for c in $(RTL_CONFIGS); do \
	  echo "lint-rtl: $$c"; \
	  verilator --lint-only -Wall --top-module ovta_top hw/rtl/lint.vlt $(B)/gen/$$c/ovta_pkg.sv $(RTL_SRCS) || exit 1; \
	done

SYNTH_CONFIG ?= default
SYNTH_FAMILY ?= xc7
ifneq ($(filter %.json,$(SYNTH_CONFIG)),)
SYNTH_NAME := $(basename $(notdir $(SYNTH_CONFIG)))
SYNTH_JSON := $(SYNTH_CONFIG)
else
SYNTH_NAME := $(SYNTH_CONFIG)
SYNTH_JSON := isa/configs/$(SYNTH_CONFIG).json
endif
SYNTH_TAG := $(SYNTH_NAME)$(if $(filter xc7,$(SYNTH_FAMILY)),,-$(SYNTH_FAMILY))
SYNTH_DIR := $(B)/synth/$(SYNTH_TAG)
SYNTH_LIMITS ?= $(if $(filter xc7,$(SYNTH_FAMILY)),53200 106400 220 140,)

# make synth: LUT/FF/DSP/BRAM counts, printed and written as JSON to build/synth/NAME.json
# (NAME-FAMILY.json for another family); work files in build/synth/NAME[-FAMILY]/. Parameters:
#   SYNTH_CONFIG=default|small|batch2|wide|wide256|path/to/config.json   (default: default)
#   SYNTH_FAMILY=xc7|xcup       synth_xilinx -family (default xc7: Zynq-7000)
#   SYNTH_LIMITS="LUT FF DSP BRAM36"  part limits for the utilization and "fits" fields
#                               (default for xc7: the xc7z020; none otherwise)
#   BOARD=NAME                  a board's config, family and limits (boards/boards.mk)
# About 5 minutes for the default config; not part of `make test`.
.PHONY: synth
## synth [SYNTH_CONFIG=NAME|FILE] [SYNTH_FAMILY=xc7|xcup] [BOARD=NAME]: Yosys synth_xilinx, LUT/FF/DSP/BRAM as JSON
synth: $(B)/synth/$(SYNTH_TAG).json

# the config's package (from any config file)
$(SYNTH_DIR)/ovta_pkg.sv: $(ISAGEN) isa/encoding.json $(SYNTH_JSON)
	@mkdir -p $(dir $@)
	$(ISAGEN) sv-package isa/encoding.json $(SYNTH_JSON) $@

# Yosys 0.23's SystemVerilog frontend has no `import`: synthesis reads one flattened file, the
# package bodies at file scope followed by the modules without their import lines.
# $(1): the config's package, $(2): the flattened file (also used by hw/rtl/netlist.mk)
define RTL_FLATTEN
	{ sed -e '/^package\|^endpackage\|^`ifndef\|^`define\|^`endif/d' $(1); \
	  sed -e '/^package\|^endpackage\|^  import /d' hw/rtl/ovta_rtl_pkg.sv; \
	  for f in $(filter-out hw/rtl/ovta_rtl_pkg.sv,$(sort $(wildcard hw/rtl/*.sv))); do \
	    sed -e '/^  import ovta.*::\*;$$/d' -e "s/int'(/(/g" $$f; done; } > $(2)
endef
$(SYNTH_DIR)/ovta_flat.sv: $(SYNTH_DIR)/ovta_pkg.sv $(sort $(wildcard hw/rtl/*.sv))
	$(call RTL_FLATTEN,$<,$@)

$(B)/synth/$(SYNTH_TAG).json: $(SYNTH_DIR)/ovta_flat.sv hw/rtl/synth_report.sh
	yosys -q -l $(SYNTH_DIR)/yosys.log -p "read_verilog -sv $<; \
	  synth_xilinx -family $(SYNTH_FAMILY) -top ovta_top -flatten; tee -o $(SYNTH_DIR)/stat.txt stat" >/dev/null
	@bash hw/rtl/synth_report.sh $(SYNTH_DIR)/stat.txt $(SYNTH_NAME) $(SYNTH_FAMILY) $@ $(SYNTH_LIMITS)
