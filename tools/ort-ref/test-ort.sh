#!/usr/bin/env bash
# `make test-ort`: ovta's CPU path against onnxruntime (npm onnxruntime-node 1.30.0, CPU, pinned in
# tools/ort-ref/package-lock.json; a reference tool only). Not part of `make test`: it needs the
# npm registry once (install with --ignore-scripts into BUILD/ort-ref/node_modules, ~290 MB; the
# CPU binaries ship inside the package), then runs offline.
# Compared, every value within |ovta - ort| <= atol + rtol*|ort| and the same top-1 per row:
#   - the shipped Fashion-MNIST CNN on the 500 shipped images (batch 500), atol 1e-4, rtol 1e-4
#   - ONNX conformance node tests (libonnx-testdata): ovta vs ort, and ort vs the shipped output
#   - ResNet-18 (BUILD/resnet18/, when `make bench-resnet18` has exported it)
# Usage: tools/ort-ref/test-ort.sh [BUILD_DIR]
set -u
b=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
R=$b/ort-ref
OVTA=$b/ovta
JS=tools/ort-ref/ort-run.js
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "test-ort: node and npm are needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
mkdir -p "$R"
if [ ! -d "$R/node_modules/onnxruntime-node" ] || ! cmp -s tools/ort-ref/package-lock.json "$R/package-lock.json"; then
  cp tools/ort-ref/package.json tools/ort-ref/package-lock.json "$R/"
  echo "test-ort: npm ci --ignore-scripts in $R" >&2
  (cd "$R" && npm ci --ignore-scripts --no-audit --no-fund >"$T/npm.log" 2>&1) || {
    echo "test-ort: npm install failed:" >&2; tail -20 "$T/npm.log" >&2; exit 1; }
fi
export NODE_PATH=$PWD/$R/node_modules
passed=0
failed=0
ok() { echo "[       OK ] $1"; passed=$((passed + 1)); }
bad() { echo "[  FAILED  ] $1: $2"; failed=$((failed + 1)); }

# ---- Fashion-MNIST, 500 images
m=models/fmnist
node $JS unit $m/test_images.npy "$T/x.npy"
if "$OVTA" run $m/fmnist_cnn.onnx --input image="$T/x.npy" --output-dir "$T/ovta" >/dev/null 2>"$T/err" &&
   node $JS run $m/fmnist_cnn.onnx "$T/ort" image="$T/x.npy" >/dev/null 2>>"$T/err"; then
  if r=$(node $JS compare "$T/ovta/logits.npy" "$T/ort/logits.npy" 1e-4 1e-4); then ok "fmnist 500 images: $r"
  else bad "fmnist 500 images" "$r"; fi
  if r=$(node $JS compare "$T/ort/logits.npy" $m/torch_logits.npy 1e-4 1e-4); then ok "fmnist ort vs torch: $r"
  else bad "fmnist ort vs torch" "$r"; fi
else bad "fmnist" "$(head -3 "$T/err")"; fi

# ---- ONNX conformance node tests
D=/usr/share/libonnx-testdata/data/node
for t in test_conv_with_strides_and_asymmetric_padding test_conv_with_autopad_same test_gemm_all_attributes \
         test_matmul_4d test_maxpool_2d_pads test_maxpool_2d_ceil test_averagepool_2d_pads_count_include_pad \
         test_globalaveragepool test_batchnorm_example test_softmax_axis_0 test_add_bcast test_relu test_sigmoid \
         test_tanh test_transpose_all_permutations_0; do
  [ -d "$D/$t" ] || { bad "$t" "not in $D (Debian libonnx-testdata)"; continue; }
  o=$T/$t
  mapfile -t ins < <(/usr/bin/python3 tools/ort-ref/pb2npy.py "$D/$t" "$o")
  args=()
  for a in "${ins[@]}"; do args+=(--input "$a"); done
  if ! "$OVTA" run "$D/$t/model.onnx" "${args[@]}" --output-dir "$o/ovta" >/dev/null 2>"$o/err"; then bad "$t" "ovta: $(head -1 "$o/err")"; continue; fi
  if ! node $JS run "$D/$t/model.onnx" "$o/ort" "${ins[@]}" >/dev/null 2>"$o/err"; then bad "$t" "ort: $(head -1 "$o/err")"; continue; fi
  for f in "$o"/expected/*.npy; do
    n=$(basename "$f")
    if r=$(node $JS compare "$o/ovta/$n" "$o/ort/$n" 1e-5 1e-4) && r2=$(node $JS compare "$o/ort/$n" "$f" 1e-5 1e-4); then
      ok "$t ${n%.npy}: $r"
    else bad "$t ${n%.npy}" "ovta vs ort: $r; ort vs shipped: ${r2:-}"; fi
  done
done

# ---- ResNet-18 (when exported)
if [ -s "$b/resnet18/resnet18.onnx" ]; then
  d=$b/resnet18
  if "$OVTA" run "$d/resnet18.onnx" --input image="$d/input.npy" --output-dir "$T/r18ovta" >/dev/null 2>"$T/err" &&
     node $JS run "$d/resnet18.onnx" "$T/r18ort" image="$d/input.npy" >/dev/null 2>>"$T/err"; then
    if r=$(node $JS compare "$T/r18ovta/logits.npy" "$T/r18ort/logits.npy" 1e-4 1e-4); then ok "resnet18: $r"; else bad "resnet18" "$r"; fi
  else bad "resnet18" "$(head -3 "$T/err")"; fi
else
  echo "[ SKIPPED  ] resnet18: $b/resnet18/resnet18.onnx not exported (make bench-resnet18)"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
