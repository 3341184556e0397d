# boards/vivado/alveo_xo.tcl: package ovta as a Vitis RTL kernel (ovta.xo).
#   vivado -mode batch -source boards/vivado/alveo_xo.tcl -tclargs PART DATA_WIDTH OUT_DIR SRC...
# The kernel "ovta" has no ap_ctrl protocol (ap_ctrl_none): the driver (driver/backend_xrt.c)
# opens it exclusively and drives the register map of hw/rtl/README.md itself. Argument 0 is
# the DRAM pointer bound to m_axi_gmem, so xrtKernelArgGroupId(kernel, 0) names its bank.
set part  [lindex $argv 0]
set width [lindex $argv 1]
set out   [file normalize [lindex $argv 2]]
set srcs  [lrange $argv 3 end]
set here  [file dirname [file normalize [info script]]]
file mkdir $out
create_project -force ovta_ip $out/ip_proj -part $part
add_files -norecurse $srcs
add_files -norecurse $here/ovta_axi.v
set_property top ovta_axi [current_fileset]
update_compile_order -fileset sources_1
ipx::package_project -root_dir $out/ip -vendor ovta.dev -library kernel -taxonomy /KernelIP -import_files -set_current true
set core [ipx::current_core]
set_property name ovta $core
set_property sdx_kernel true $core
set_property sdx_kernel_type rtl $core
ipx::update_source_project_archive -component $core
set_property value $width [ipx::get_user_parameters DATA_WIDTH -of_objects $core]
ipx::associate_bus_interfaces -busif s_axi_control -clock ap_clk $core
ipx::associate_bus_interfaces -busif m_axi_gmem -clock ap_clk $core
# the register map as XRT sees it: one 64-bit pointer argument for the memory bank
set mm [ipx::add_memory_map s_axi_control $core]
set_property slave_memory_map_ref s_axi_control [ipx::get_bus_interfaces s_axi_control -of_objects $core]
set blk [ipx::add_address_block reg0 $mm]
set_property range 0x1000 $blk
set reg [ipx::add_register gmem_ptr $blk]
set_property address_offset 0x100 $reg
set_property size 64 $reg
ipx::add_register_parameter ASSOCIATED_BUSIF $reg
set_property value m_axi_gmem [ipx::get_register_parameters ASSOCIATED_BUSIF -of_objects $reg]
ipx::create_xgui_files $core
ipx::update_checksums $core
ipx::check_integrity -kernel $core
ipx::save_core $core
# kernel.xml: ap_ctrl_none, the pointer argument at 0x100 (outside the register map ovta uses)
set xml $out/kernel.xml
set fh [open $xml w]
puts $fh {<?xml version="1.0" encoding="UTF-8"?>
<root versionMajor="1" versionMinor="6">
  <kernel name="ovta" language="ip_c" vlnv="ovta.dev:kernel:ovta:1.0" attributes="" preferredWorkGroupSizeMultiple="0" workGroupSize="1" interrupt="false" hwControlProtocol="ap_ctrl_none">
    <ports>
      <port name="s_axi_control" mode="slave" range="0x1000" dataWidth="32" portType="addressable" base="0x0"/>
      <port name="m_axi_gmem" mode="master" range="0xFFFFFFFF" dataWidth="WIDTH" portType="addressable" base="0x0"/>
    </ports>
    <args>
      <arg name="gmem" addressQualifier="1" id="0" port="m_axi_gmem" size="0x8" offset="0x100" hostOffset="0x0" hostSize="0x8" type="void*"/>
    </args>
  </kernel>
</root>}
close $fh
set fh [open $xml]; set t [read $fh]; close $fh
set fh [open $xml w]; puts -nonewline $fh [string map [list WIDTH $width] $t]; close $fh
package_xo -force -xo_path $out/ovta.xo -kernel_name ovta -ip_directory $out/ip -kernel_xml $xml
puts "ovta: $out/ovta.xo"
