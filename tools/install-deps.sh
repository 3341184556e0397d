#!/usr/bin/env bash
# Install the Debian packages ovta needs, only those missing. Runs non-interactively (CI has no
# standard input); uses sudo when not root. Called by `make run` and `make test`.
set -eu
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
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ovta: installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >/tmp/ovta-apt.log 2>&1 || {
  echo "ovta: apt-get install failed; see /tmp/ovta-apt.log" >&2; tail -20 /tmp/ovta-apt.log >&2; exit 1; }
