# hw/rtl/netlist.mk: the Yosys netlist of hw/rtl simulated against the RTL (see hw/rtl/README.md,
# "Netlist simulation"). For one config (NETLIST_CONFIG, default small):
#   build/netlist/CONFIG/netlist.v               Yosys 0.23 generic `synth -flatten` (internal
#                                                gates $_AND_, $_DFF_P_, ... written as Verilog
#                                                by write_verilog -noattr; memories kept as
#                                                arrays), with yosys.log and stat.txt
#   build/tsim/CONFIG-netlist/libovta_tsim.so    that netlist behind the tsim harness
#                                                (hw/sim/tsim/, built with TSIM_NETLIST)
#   make test-netlist                            random programs (tests/gen) on the RTL model and
#                                                on the netlist model: DRAM bytes and counters
#                                                against the reference, cycles netlist = RTL
# Not part of `make test` (the synthesis alone takes minutes).

NETLIST_CONFIG ?= small
NETLIST_SEEDS ?= 2000
NETLIST_LIB = $(abspath $(B)/tsim/$(NETLIST_CONFIG)-netlist/libovta_tsim.so)
# The synthesis: synth's script up to "fine", then its "fine" steps without memory_map (an SRAM
# as thousands of flip-flops would make a model Verilator builds and runs very slowly), and
# without `alumacc`: Yosys 0.23's alumacc/maccmap produce wrong gates for the GEMM's packed upper
# products and the ALU's signed compares (hw/rtl/README.md "Netlist simulation"; the $add, $sub,
# $lt and $mul cells then map one by one).
NETLIST_YOSYS = synth -top ovta_top -flatten -noalumacc -run begin:fine; opt -fast -full; opt -full; techmap; opt -fast; \
  abc -fast; opt -fast; hierarchy -check; check -assert; tee -o $(dir $@)stat.txt stat; write_verilog -noattr $@

$(B)/netlist/%/ovta_flat.sv: $(B)/gen/%/ovta_pkg.sv $(sort $(wildcard hw/rtl/*.sv))
	@mkdir -p $(dir $@)
	$(call RTL_FLATTEN,$<,$@)

$(B)/netlist/%/netlist.v: $(B)/netlist/%/ovta_flat.sv
	nice yosys -q -l $(dir $@)yosys.log -p "read_verilog -sv $<; $(NETLIST_YOSYS)" >/dev/null

$(B)/tsim/%-netlist/tsim_cfg.h: $(B)/gen/%/ovta_pkg.sv
	@mkdir -p $(dir $@)
	{ echo '#define TSIM_CONFIG_NAME "$*"'; echo '#define TSIM_NETLIST 1'; \
	  sed -n 's/^  localparam int unsigned \([A-Z_0-9]*\) = \([0-9]*\);$$/#define TSIM_\1 \2/p' $<; } > $@

# The harness's wrapper imports the packages; the design is the netlist's ovta_top. UNOPTFLAT:
# the netlist's multi-bit wires (a struct, an address register) have bits computed from other
# bits of the same wire, which Verilator reports as a loop through the wire (a speed note, not
# a loop: the gates have none, `check -assert` above). The model's C++ (about 50 MB for small)
# is compiled at -O1 (-O0 for the run-once code): at -O2 it took over an hour on the shared
# machine, at -O1 about a tenth of gcc's CPU time.
$(B)/tsim/%-netlist/libovta_tsim.so: $(B)/netlist/%/netlist.v $(B)/tsim/%-netlist/tsim_cfg.h \
    hw/sim/tsim/tsim.cpp hw/sim/tsim.h hw/sim/tsim/ovta_tsim_top.sv
	$(call TSIM_BUILD,$(B)/tsim/$*-netlist,$*,-Wno-UNOPTFLAT,,hw/rtl/ovta_rtl_pkg.sv $<,OPT_FAST=-O1 OPT_SLOW=-O0)
.PRECIOUS: $(B)/netlist/%/ovta_flat.sv $(B)/netlist/%/netlist.v $(B)/tsim/%-netlist/tsim_cfg.h

.PHONY: netlist test-netlist
## netlist [NETLIST_CONFIG=small]: the Yosys gate-level netlist of the RTL and its Verilator model
netlist: $(B)/tsim/$(NETLIST_CONFIG)-netlist/libovta_tsim.so
## test-netlist [NETLIST_CONFIG=small] [NETLIST_SEEDS=2000]: random programs on the netlist against the RTL
test-netlist: $(B)/ovta-randprog $(B)/tsim/$(NETLIST_CONFIG)/libovta_tsim.so $(B)/tsim/$(NETLIST_CONFIG)-netlist/libovta_tsim.so
	@bash tests/gen/diff_long.sh --randprog $(B)/ovta-randprog --configs $(NETLIST_CONFIG) \
	  --seeds 1:$(NETLIST_SEEDS) --jobs $(DIFF_LONG_JOBS) --chunk 100 --shapes all \
	  --backends "tsim,tsim=$(NETLIST_LIB)" --fail-dir $(B)/randprog-fail --log $(B)/netlist/test-netlist.jsonl
