#!/usr/bin/env bash
# boards/pynq-z2/build.sh: the pynq-z2 bitstream (Vivado, batch mode): boards/pynq-z2/build/ovta.bit + ovta.hwh
exec "$(dirname "$0")/../vivado/build_zynq.sh" pynq-z2
