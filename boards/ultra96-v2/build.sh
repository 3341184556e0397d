#!/usr/bin/env bash
# boards/ultra96-v2/build.sh: the ultra96-v2 bitstream (Vivado, batch mode): boards/ultra96-v2/build/ovta.bit + ovta.hwh
exec "$(dirname "$0")/../vivado/build_zynq.sh" ultra96-v2
