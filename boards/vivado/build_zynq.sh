#!/usr/bin/env bash
# boards/vivado/build_zynq.sh BOARD: bitstream for a Zynq board with Vivado (batch mode).
# Needs `vivado` on PATH (source Vivado's settings64.sh). Output: boards/BOARD/build/.
set -eu
board=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v vivado >/dev/null 2>&1; then
  echo "boards/$board: Vivado is not installed (no 'vivado' on PATH): source <Vivado>/settings64.sh, then rerun" >&2
  exit 2
fi
cd "$root"
make --no-print-directory build/gen/$board/ovta_pkg.sv >/dev/null
srcs=("$root/build/gen/$board/ovta_pkg.sv" "$root/hw/rtl/ovta_rtl_pkg.sv")
for f in hw/rtl/*.sv; do [ "$f" = hw/rtl/ovta_rtl_pkg.sv ] || srcs+=("$root/$f"); done
out=$root/boards/$board/build
mkdir -p "$out"
vivado -mode batch -nojournal -log "$out/vivado.log" -source boards/vivado/zynq_bd.tcl -tclargs "$board" "$out" "${srcs[@]}"
echo "boards/$board: $out/ovta.bit and $out/ovta.hwh; next: boards/README.md, 'On the board'"
