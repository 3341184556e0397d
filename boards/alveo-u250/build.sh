#!/usr/bin/env bash
# boards/alveo-u250/build.sh: ovta.xclbin for the Alveo U250 (Vivado packages the RTL kernel,
# Vitis v++ links it into the platform). Needs `vivado` and `v++` on PATH (source Vitis'
# settings64.sh and XRT's setup.sh) and the platform installed (board.json "platform"; override
# with OVTA_U250_PLATFORM). Output: boards/alveo-u250/build/ovta.xclbin.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
board=alveo-u250
for tool in vivado v++; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "boards/$board: Vitis is not installed (no '$tool' on PATH): source <Vitis>/settings64.sh, then rerun" >&2
    exit 2
  fi
done
json=$root/boards/$board/board.json
field() { sed -n "s/.*\"$1\": *\"\{0,1\}\([^\",}]*\)\"\{0,1\}.*/\1/p" "$json" | head -1; }
platform=${OVTA_U250_PLATFORM:-$(field platform)}
part=$(field part) width=$(field bus_bits) mhz=$(field clock_mhz) mem=$(field memory)
cd "$root"
make --no-print-directory build/gen/$board/ovta_pkg.sv >/dev/null
srcs=("$root/build/gen/$board/ovta_pkg.sv" "$root/hw/rtl/ovta_rtl_pkg.sv")
for f in hw/rtl/*.sv; do [ "$f" = hw/rtl/ovta_rtl_pkg.sv ] || srcs+=("$root/$f"); done
out=$root/boards/$board/build
mkdir -p "$out"
vivado -mode batch -nojournal -log "$out/package.log" -source boards/vivado/alveo_xo.tcl \
  -tclargs "$part" "$width" "$out" "${srcs[@]}"
v++ -l -t hw --platform "$platform" --kernel_frequency "$mhz" \
  --connectivity.sp "ovta_1.m_axi_gmem:$mem" -o "$out/ovta.xclbin" "$out/ovta.xo" \
  --temp_dir "$out/vpp" --log_dir "$out/vpp/logs"
echo "boards/$board: $out/ovta.xclbin; run with OVTA_XRT_XCLBIN=$out/ovta.xclbin ovta ... --backend xrt"
