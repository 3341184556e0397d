#!/usr/bin/env bash
# boards/zcu104/build.sh: the zcu104 bitstream (Vivado, batch mode): boards/zcu104/build/ovta.bit + ovta.hwh
exec "$(dirname "$0")/../vivado/build_zynq.sh" zcu104
