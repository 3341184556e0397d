# boards/vivado/zynq_bd.tcl: Vivado batch build of ovta for a Zynq-7000 / Zynq UltraScale+ board.
#   vivado -mode batch -source boards/vivado/zynq_bd.tcl -tclargs BOARD OUT_DIR SRC...
# Reads boards/BOARD/board.json (part, PS type, ports, clock, register base, bus width) and
# builds: project -> block design (PS + ovta_axi, whose AXI4 master goes to the PS HP port and
# whose AXI4-Lite slave hangs off the PS general-purpose master through a SmartConnect; a PS
# clock at the board's frequency; proc_sys_reset) -> synthesis -> implementation -> bitstream.
# Outputs in OUT_DIR: ovta.bit, ovta.hwh (PYNQ overlays), ovta.xsa, utilisation and timing.
set board [lindex $argv 0]
set out   [file normalize [lindex $argv 1]]
set srcs  [lrange $argv 2 end]
set here  [file dirname [file normalize [info script]]]
set root  [file normalize $here/../..]

proc jfield {text key} {
  if {[regexp "\"$key\"\\s*:\\s*\"?(\[^\",\}\]*)\"?" $text -> v]} { return [string trim $v] }
  error "board.json: no \"$key\""
}
set fh [open $root/boards/$board/board.json]; set bj [read $fh]; close $fh
set part     [jfield $bj part]
set ps       [jfield $bj ps]
set mhz      [jfield $bj clock_mhz]
set bus      [jfield $bj bus_bits]
set hp       [jfield $bj hp_port]
set gp       [jfield $bj gp_port]
set reg_base [jfield $bj reg_base]
set reg_size [jfield $bj reg_size]

file mkdir $out
create_project -force ovta_$board $out/proj -part $part
catch { set_property board_part [jfield $bj vendor_board_part] [current_project] }
add_files -norecurse $srcs
add_files -norecurse $here/ovta_axi.v
add_files -fileset constrs_1 -norecurse $root/boards/$board/ovta.xdc
update_compile_order -fileset sources_1

create_bd_design ovta_bd
if {$ps eq "processing_system7"} {
  set psi [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7 ps]
  catch { apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 -config {make_external "FIXED_IO, DDR" apply_board_preset "1"} $psi }
  set hp_idx [string index $hp end]
  set_property -dict [list CONFIG.PCW_USE_S_AXI_HP${hp_idx} 1 CONFIG.PCW_S_AXI_HP${hp_idx}_DATA_WIDTH $bus \
    CONFIG.PCW_USE_M_AXI_GP0 1 CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ $mhz] $psi
  set clk   ps/FCLK_CLK0
  set rstn  ps/FCLK_RESET0_N
  set gp_if ps/M_AXI_GP0
  set hp_if ps/S_AXI_HP${hp_idx}
  set clk_pins [list ps/M_AXI_GP0_ACLK ps/S_AXI_HP${hp_idx}_ACLK]
} else {
  set psi [create_bd_cell -type ip -vlnv xilinx.com:ip:zynq_ultra_ps_e ps]
  catch { apply_bd_automation -rule xilinx.com:bd_rule:zynq_ultra_ps_e -config {apply_board_preset "1"} $psi }
  # HP0_FPD is S_AXI_HP0_FPD = saxigp2 in the IP's naming; HPM0_FPD is maxigp0
  set_property -dict [list CONFIG.PSU__USE__S_AXI_GP2 1 CONFIG.PSU__SAXIGP2__DATA_WIDTH $bus \
    CONFIG.PSU__USE__M_AXI_GP0 1 CONFIG.PSU__USE__M_AXI_GP1 0 CONFIG.PSU__MAXIGP0__DATA_WIDTH 32 \
    CONFIG.PSU__FPGA_PL0_ENABLE 1 CONFIG.PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ $mhz] $psi
  set clk   ps/pl_clk0
  set rstn  ps/pl_resetn0
  set gp_if ps/M_AXI_HPM0_FPD
  set hp_if ps/S_AXI_HP0_FPD
  set clk_pins [list ps/maxihpm0_fpd_aclk ps/saxihp0_fpd_aclk]
}

set acc [create_bd_cell -type module -reference ovta_axi ovta]
set_property -dict [list CONFIG.DATA_WIDTH $bus CONFIG.ADDR_WIDTH 32] $acc
set rst [create_bd_cell -type ip -vlnv xilinx.com:ip:proc_sys_reset rst]
set sc  [create_bd_cell -type ip -vlnv xilinx.com:ip:smartconnect ctrl_sc]
set_property -dict [list CONFIG.NUM_SI 1 CONFIG.NUM_MI 1] $sc

connect_bd_net [get_bd_pins $clk] [get_bd_pins ovta/ap_clk] [get_bd_pins rst/slowest_sync_clk] \
  [get_bd_pins ctrl_sc/aclk]
foreach p $clk_pins { connect_bd_net [get_bd_pins $clk] [get_bd_pins $p] }
connect_bd_net [get_bd_pins $rstn] [get_bd_pins rst/ext_reset_in]
connect_bd_net [get_bd_pins rst/peripheral_aresetn] [get_bd_pins ovta/ap_rst_n] [get_bd_pins ctrl_sc/aresetn]
# AXI4-Lite: PS general-purpose master -> SmartConnect (protocol conversion) -> ovta registers
connect_bd_intf_net [get_bd_intf_pins $gp_if] [get_bd_intf_pins ctrl_sc/S00_AXI]
connect_bd_intf_net [get_bd_intf_pins ctrl_sc/M00_AXI] [get_bd_intf_pins ovta/s_axi_control]
# AXI4: ovta -> PS high-performance port -> DDR
connect_bd_intf_net [get_bd_intf_pins ovta/m_axi_gmem] [get_bd_intf_pins $hp_if]

assign_bd_address
# the register window at the board's reg_base (what the zynq backend and the device tree use)
foreach s [get_bd_addr_segs] {
  if {[string match *ovta* $s] && [string match *SEG* $s]} {
    catch { set_property offset $reg_base $s; set_property range $reg_size $s }
  }
}
validate_bd_design
save_bd_design

make_wrapper -files [get_files ovta_bd.bd] -top
add_files -norecurse [glob $out/proj/ovta_$board.gen/sources_1/bd/ovta_bd/hdl/ovta_bd_wrapper.v]
set_property top ovta_bd_wrapper [current_fileset]

launch_runs synth_1 -jobs 2
wait_on_run synth_1
if {[get_property PROGRESS [get_runs synth_1]] ne "100%"} { error "synthesis failed" }
launch_runs impl_1 -to_step write_bitstream -jobs 2
wait_on_run impl_1
if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} { error "implementation failed" }

open_run impl_1
report_utilization -file $out/utilization.txt
report_timing_summary -file $out/timing.txt
set wns [get_property SLACK [get_timing_paths -max_paths 1 -setup]]
file copy -force [glob $out/proj/ovta_$board.runs/impl_1/*.bit] $out/ovta.bit
file copy -force [glob $out/proj/ovta_$board.gen/sources_1/bd/ovta_bd/hw_handoff/ovta_bd.hwh] $out/ovta.hwh
write_hw_platform -fixed -include_bit -force $out/ovta.xsa
puts "ovta: $board bitstream $out/ovta.bit (worst setup slack $wns ns at $mhz MHz)"
if {$wns < 0} { puts "ovta: WARNING: timing not met; lower CLOCK_MHZ in boards/$board/config.json and board.json" }
