#!/usr/bin/env bash
# The main job of `make run`: `ovta eval` on the shipped Fashion-MNIST CNN (models/fmnist/) over
# the 500 shipped test images: fp32 (CPU path) and int8 (on the cycle-accurate Verilator model of
# the RTL by default) top-1 accuracy against the labels, their agreement, fp32 against torch's
# shipped logits, times, and accelerator cycles and MAC utilization per image. Needs no torch.
#
# Usage: tools/run-main.sh [BUILD_DIR]      (BUILD_DIR default: build; built first if needed)
# Variables (environment, or `make run VAR=...`):
#   BACKEND=tsim|fsim|cpu   where the int8 model runs (default tsim: ~75 s for 500 images;
#                           fsim: functional simulator, no cycles; cpu: the CPU path)
#   CONFIG=NAME             hardware config for an accelerator backend (default: default)
#   COUNT=N                 evaluate the first N images (default: all 500)
#   JSON=1                  print the results as JSON
set -eu
b=${1:-build}
cd "$(dirname "$0")/.."
if [ ! -x "$b/ovta" ]; then
  make --no-print-directory -j2 all
fi
m=models/fmnist
args=("$m/fmnist_cnn.onnx" --images "$m/test_images.npy" --labels "$m/test_labels.npy"
      --reference "$m/torch_logits.npy" --calib "$m/calib_images.npy" --backend "${BACKEND:-tsim}")
[ -n "${CONFIG:-}" ] && args+=(--config "$CONFIG")
[ -n "${COUNT:-}" ] && args+=(--count "$COUNT")
[ "${JSON:-0}" = 1 ] && args+=(--json)
echo "make run: $b/ovta eval ${args[*]}" >&2
exec "$b/ovta" eval "${args[@]}"
