# hw/rtl: the accelerator RTL (SystemVerilog; see hw/rtl/README.md).
#   make lint-rtl   verilator --lint-only -Wall on every config (must print nothing)
#   make synth      Yosys synth_xilinx of the default config: LUT/FF/DSP/BRAM counts
#                   (SYNTH_CONFIG=small for a quicker run; output in build/synth/CONFIG/)
# The Verilator simulation is built by hw/sim/tsim.mk.

RTL_CONFIGS := default small batch2
RTL_SRCS = hw/rtl/ovta_rtl_pkg.sv $(filter-out hw/rtl/ovta_rtl_pkg.sv,$(sort $(wildcard hw/rtl/*.sv)))
SYNTH_CONFIG ?= default

.PHONY: lint-rtl synth
lint-rtl: $(RTL_CONFIGS:%=$(B)/gen/%/ovta_pkg.sv)
	@for c in $(RTL_CONFIGS); do \
	  echo "lint-rtl: $$c"; \
	  verilator --lint-only -Wall --top-module ovta_top hw/rtl/lint.vlt $(B)/gen/$$c/ovta_pkg.sv $(RTL_SRCS) || exit 1; \
	done

# Yosys 0.23's SystemVerilog frontend has no `import`: synthesis reads one flattened file, the
# package bodies at file scope followed by the modules without their import lines.
$(B)/synth/%/ovta_flat.sv: $(B)/gen/%/ovta_pkg.sv $(sort $(wildcard hw/rtl/*.sv))
	@mkdir -p $(dir $@)
	{ sed -e '/^package\|^endpackage\|^`ifndef\|^`define\|^`endif/d' $<; \
	  sed -e '/^package\|^endpackage\|^  import /d' hw/rtl/ovta_rtl_pkg.sv; \
	  for f in $(filter-out hw/rtl/ovta_rtl_pkg.sv,$(sort $(wildcard hw/rtl/*.sv))); do \
	    sed -e '/^  import ovta.*::\*;$$/d' -e "s/int'(/(/g" $$f; done; } > $@

synth: $(B)/synth/$(SYNTH_CONFIG)/ovta_flat.sv
	yosys -q -l $(B)/synth/$(SYNTH_CONFIG)/yosys.log -p "read_verilog -sv $<; \
	  synth_xilinx -top ovta_top -flatten; tee -o $(B)/synth/$(SYNTH_CONFIG)/stat.txt stat" >/dev/null
	@grep -E "LUT[1-6]|FD[CPRSE]+ |DSP48|RAMB|RAM(32|64|128|256)|Number of cells" \
	  $(B)/synth/$(SYNTH_CONFIG)/stat.txt
