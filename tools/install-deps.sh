#!/usr/bin/env bash
# Install the Debian packages ovta needs, only those missing. Runs non-interactively (CI has no
# standard input); uses sudo when not root. Called by `make run` and `make test`.
# The ARM cross build (`make cross`, `make test-board-emu`, boards/README.md) needs Debian's cross
# compilers, qemu-user and libcjson for arm64 and armhf (multiarch: the two foreign architectures
# are added to dpkg first); tests/boards/test_board_emu.sh in `make test` uses them.
# Optional groups, named as arguments and installed only then: `slurm` (Debian's slurm-wlm and
# munge: the one-node test cluster of `make test-slurm`, tests/slurm/cluster.sh).
set -eu
if [ "${1:-}" = slurm ]; then
  pkgs=(slurm-wlm munge)          # slurmctld, slurmd, sbatch/squeue/sacct, munged
else
pkgs=(
  gcc g++ make pkg-config          # build
  libcjson-dev                     # JSON configs and graphs
  libpng-dev                       # PNG image inputs (ovta run/profile --input, eval --images)
  libcmocka-dev                    # tests
  verilator yosys                  # RTL simulation and synthesis
  llvm-15-dev llvm-15-tools        # LLVM-C code generation, FileCheck
  lld-15                           # links a plan's kernels.so (ovta compile; one linker for every target)
  libprotobuf-c-dev protobuf-c-compiler python3-onnx  # ONNX import (onnx.proto from python3-onnx)
  python3-numpy                    # test scripts read .npy files with Debian's python
  libonnx-testdata                 # ONNX conformance tests
  dataset-fashion-mnist            # the shipped model's data set
  gnuplot-nox                      # profile plots
  clang libclang-rt-14-dev         # fuzzers and sanitizer runtimes
  libxgboost-dev                   # ovta tune: the XGBoost cost model (C API)
  libxrt-dev                       # the xrt board backend (Alveo) is compiled and its device-free paths tested
  gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf  # make cross ARCH=aarch64|armv7 (ovta-rt for the boards)
  libc6-dev-arm64-cross libc6-dev-armhf-cross    # their C libraries (only recommended by the compilers)
  qemu-user                        # make test-board-emu: the cross-built ovta-rt under qemu-aarch64/qemu-arm
  libcjson-dev:arm64 libcjson-dev:armhf  # ovta-rt's one library besides libc, for the boards (multiarch)
)
fi
cross_arches=(arm64 armhf)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ovta: installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
export DEBIAN_FRONTEND=noninteractive
# add_cross_arches: dpkg's foreign architectures for the :arm64/:armhf packages (multiarch)
add_cross_arches() {
  local a
  for a in "${cross_arches[@]}"; do
    dpkg --print-foreign-architectures | grep -qx "$a" || $sudo dpkg --add-architecture "$a"
  done
}
add_cross_arches
# A mirror caught mid-sync fails one index (seen: bookworm-security armhf); the install below
# then says whether anything needed is really missing.
$sudo apt-get update -q >/dev/null || echo "ovta: apt-get update reported errors; trying the install anyway" >&2
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >/tmp/ovta-apt.log 2>&1 || {
  echo "ovta: apt-get install failed; see /tmp/ovta-apt.log" >&2; tail -20 /tmp/ovta-apt.log >&2; exit 1; }
