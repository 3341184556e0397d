#!/usr/bin/env bash
# hw/rtl/netlist_unit/run.sh [WORKDIR]: the netlist-vs-RTL mismatch of ovta issue 19 on a unit
# small enough to iterate on (Yosys about 3 min, the model's C++ about 5 min at -O0 on the
# shared machine, instead of 24 + 18 min for ovta_top): nl_unit.sv (ovta_compute with the INP
# and WGT SRAMs, small config) through the same Yosys commands as hw/rtl/netlist.mk, and
# Verilator (flags of hw/sim/tsim.mk) on the RTL and the netlist side by side (tb_nl_unit.*).
# A debugging aid, not a test: see hw/rtl/README.md "Netlist simulation".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
w=${1:-$src/build/netlist-unit}
mkdir -p "$w"
cd "$src"
make --no-print-directory build/gen/small/ovta_pkg.sv >/dev/null
{ sed -e '/^package\|^endpackage\|^`ifndef\|^`define\|^`endif/d' build/gen/small/ovta_pkg.sv
  sed -e '/^package\|^endpackage\|^  import /d' hw/rtl/ovta_rtl_pkg.sv
  for f in $(ls hw/rtl/*.sv | grep -v ovta_rtl_pkg.sv); do
    sed -e '/^  import ovta.*::\*;$/d' -e "s/int'(/(/g" "$f"; done
  cat "$here/nl_unit.sv"; } > "$w/flat.sv"
# NL_PASSES: the Yosys passes (default: those of hw/rtl/netlist.mk, with -noalumacc; without it
# the unit shows the Yosys 0.23 alumacc fault), to bisect the flow; e.g.
# NL_PASSES="synth -top nl_unit -flatten -run begin:fine; maccmap -unmap" (coarse cells only)
passes=${NL_PASSES:-"synth -top nl_unit -flatten -noalumacc -run begin:fine; opt -fast -full; opt -full; techmap; \
  opt -fast; abc -fast; opt -fast; hierarchy -check; check -assert"}
# NL_PROBE=1: also print the exec signals that differ, cycle by cycle (tb_nl_unit.sv)
probe=; [ "${NL_PROBE:-0}" = 1 ] && probe=+define+NL_PROBE
nice yosys -q -l "$w/yosys.log" -p "read_verilog -sv $w/flat.sv; $passes; write_verilog -noattr $w/netlist.v" >/dev/null
sed 's/^module nl_unit(/module nl_unit_nl(/' "$w/netlist.v" > "$w/netlist_r.v"
nice verilator --cc --exe -O3 --x-assign fast --x-initial 0 -Wno-fatal -Wno-lint -Wno-style -Wno-UNOPTFLAT $probe \
  --top-module tb_nl_unit -Mdir "$w/obj" "$w/flat.sv" "$w/netlist_r.v" "$here/tb_nl_unit.sv" "$here/tb_nl_unit.cpp" \
  > "$w/verilator.log" 2>&1
nice make --no-print-directory -j2 -C "$w/obj" -f Vtb_nl_unit.mk OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0 \
  Vtb_nl_unit > "$w/make.log" 2>&1
for m in 0 1 2 3; do echo "== mode $m"; "$w/obj/Vtb_nl_unit" $m | grep -v " both "; done
