#!/usr/bin/env bash
# `make test-zoo [ZOO_MODELS=a,b,...]`: torchvision's classification zoo (seeded random weights)
# through ovta, checked against references nobody here wrote. Not part of `make test`: it needs
# Debian's python3-torch/torchvision (bench/install-torch.sh installs them), the npm
# onnxruntime-node (tools/ort-ref/, installed into BUILD/ort-ref like `make test-ort`) and a long
# time (the whole zoo: hours on 2 cores). For every model, cheapest first:
#   1. export: models/zoo/export.py into BUILD/zoo/NAME/ (kept; exported again when export.py is
#      newer): model.onnx, input.npy, torch_out.npy (torch's fp32 logits), calib.npy;
#   2. fp32 on ovta's CPU path (`ovta run`) against torch and against onnxruntime-node: match when
#      max |ovta - ref| <= 1e-4 x max |ref|;
#   3. int8 for the accelerator (`ovta compile --target accel --calib calib.npy --report`), one
#      inference on fsim (`ovta profile`): share of the model's MACs on the accelerator, int8
#      logits against torch's fp32 logits (cosine, top-1); then on tsim (cycle accurate) when the
#      accelerator part is small (<= ZOO_TSIM_GMAC GMAC, default 4) and quick (ZOO_TSIM_TIMEOUT s).
# Each step's stderr is kept in BUILD/zoo/NAME/*.err; a refusal's ovta error line goes into the
# table. Progress on stderr; at the end one markdown table on stdout and in BUILD/zoo/table.md
# (tools/zoo/zoo.py). Exit status 1 when some check mismatched (a refusal is reported, not failed).
# Usage: tools/zoo/run.sh [BUILD_DIR]
# Environment: ZOO_MODELS=a,b (default: all, cheapest first), ZOO_TIMEOUT (s per ovta/ort step,
#   default 3600), ZOO_TSIM_GMAC, ZOO_TSIM_TIMEOUT (default 300), ZOO_TABLE (default
#   BUILD/zoo/table.md).
set -u
b=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
PY=/usr/bin/python3
OVTA=$b/ovta
R=$b/ort-ref
JS=tools/ort-ref/ort-run.js
Z=$b/zoo
TO=${ZOO_TIMEOUT:-3600}
TSIM_GMAC=${ZOO_TSIM_GMAC:-4}
TSIM_TO=${ZOO_TSIM_TIMEOUT:-300}
mkdir -p "$Z"
bash bench/install-torch.sh >&2 || exit 1
if [ ! -d "$R/node_modules/onnxruntime-node" ] || ! cmp -s tools/ort-ref/package-lock.json "$R/package-lock.json"; then
  mkdir -p "$R" && cp tools/ort-ref/package.json tools/ort-ref/package-lock.json "$R/"
  echo "test-zoo: npm ci --ignore-scripts in $R" >&2
  (cd "$R" && npm ci --ignore-scripts --no-audit --no-fund >npm.log 2>&1) || {
    echo "test-zoo: npm install failed:" >&2; tail -20 "$R/npm.log" >&2; exit 1; }
fi
export NODE_PATH=$PWD/$R/node_modules

if [ -n "${ZOO_MODELS:-}" ]; then
  IFS=, read -r -a models <<<"$ZOO_MODELS"
else
  mapfile -t models < <($PY models/zoo/export.py --list | cut -d' ' -f1)
fi
[ ${#models[@]} -gt 0 ] || { echo "test-zoo: no models" >&2; exit 1; }

log() { echo "test-zoo: $(date +%H:%M:%S) $*" >&2; }
# step NAME DIR TIMEOUT CMD...: run CMD with its stderr in DIR/NAME.err, its time in DIR/NAME.time
step() {
  local n=$1 d=$2 t=$3 s e rc
  shift 3
  s=$(date +%s%N)
  timeout "$t" nice "$@" >"$d/$n.out" 2>"$d/$n.err"
  rc=$?
  e=$(date +%s%N)
  [ $rc -eq 124 ] && echo "timed out after $t s" >>"$d/$n.err"
  echo "$rc $(((e - s) / 1000000000)).$(((e - s) / 100000000 % 10))" >"$d/$n.time"
  return $rc
}

k=0
for m in "${models[@]}"; do
  k=$((k + 1))
  d=$Z/$m
  mkdir -p "$d"
  rm -f "$d"/*.err "$d"/*.time "$d"/*.out "$d/row.json"
  rm -rf "$d/cpu" "$d/ort" "$d/int8" "$d/int8-tsim" "$d/int8.ovta"
  log "[$k/${#models[@]}] $m: export"
  if [ ! -s "$d/torch_out.npy" ] || [ models/zoo/export.py -nt "$d/torch_out.npy" ] ||
     { [ ! -s "$d/model.onnx" ] && [ ! -s "$d/export_error.txt" ]; }; then
    step export "$d" "$TO" $PY models/zoo/export.py "$m" "$Z"
  fi
  if [ -s "$d/model.onnx" ]; then
    log "[$k/${#models[@]}] $m: fp32 on the CPU path (ovta run)"
    step cpu "$d" "$TO" "$OVTA" run "$d/model.onnx" --input image="$d/input.npy" --output-dir "$d/cpu"
    log "[$k/${#models[@]}] $m: onnxruntime-node"
    step ort "$d" "$TO" node "$JS" run "$d/model.onnx" "$d/ort" image="$d/input.npy"
    log "[$k/${#models[@]}] $m: int8 compile for the accelerator"
    if step compile "$d" "$TO" "$OVTA" compile "$d/model.onnx" --target accel --calib "$d/calib.npy" \
         -o "$d/int8.ovta" --report; then
      log "[$k/${#models[@]}] $m: int8 on fsim"
      if step fsim "$d" "$TO" "$OVTA" profile "$d/int8.ovta" --input image="$d/input.npy" --backend fsim \
           --json-out "$d/profile-fsim.json" --output-dir "$d/int8"; then
        g=$($PY -c "import json,sys; p=json.load(open(sys.argv[1])); print(int(sum(l['macs'] for l in p['layers'] if l['where']=='accel') <= float(sys.argv[2])*1e9))" \
            "$d/profile-fsim.json" "$TSIM_GMAC")
        if [ "$g" = 1 ]; then
          log "[$k/${#models[@]}] $m: int8 on tsim"
          step tsim "$d" "$TSIM_TO" "$OVTA" profile "$d/int8.ovta" --input image="$d/input.npy" --backend tsim \
            --json-out "$d/profile-tsim.json" --output-dir "$d/int8-tsim"
        else
          echo "skipped: more than $TSIM_GMAC GMAC on the accelerator (ZOO_TSIM_GMAC)" >"$d/tsim.skip"
        fi
      fi
    fi
  fi
  $PY tools/zoo/zoo.py row "$d" >&2
done
$PY tools/zoo/zoo.py table "${ZOO_TABLE:-$Z/table.md}" "$Z" "${models[@]}"
