# boards/ultra96-v2/ovta.xdc: constraints of the ovta design on ultra96-v2.
# ovta uses no package pins: its clock is the PS's PL clock 0 (constrained by the PS IP at
# board.json's clock_mhz), its reset comes from proc_sys_reset, and both AXI ports stay inside
# the PS-PL boundary. What remains are bitstream options.
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
