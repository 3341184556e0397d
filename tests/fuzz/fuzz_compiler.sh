#!/usr/bin/env bash
# `make fuzz-compiler [SECONDS=300]`: the compiler's differential fuzzer (build/ovta-randgraph,
# tools/ovta-randgraph/README.md) for SECONDS at nice 10, from a fresh first seed (the time, or
# $SEED; $CONFIG: the accelerator config, default "default"), with onnxruntime on every 10th seed
# when tools/ort-ref is installed (it installs it with npm ci --ignore-scripts into BUILD/ort-ref
# when node and npm exist) and tsim on every 20th.
# Failing seeds: reproducer folders in BUILD/fuzz-compiler/seed-N. Record the run in
# tests/fuzz/README.md ("Compiler differential fuzzer").
# Usage: tests/fuzz/fuzz_compiler.sh [BUILD_DIR] [SECONDS]
set -u
b=${1:-build}
secs=${2:-300}
cd "$(dirname "$0")/../.." || exit 1
seed=${SEED:-$(date +%s)}
args=(--seed "$seed" --seconds "$secs" --out "$b/fuzz-compiler" -q)
[ -n "${CONFIG:-}" ] && args+=(--config "$CONFIG")
R=$b/ort-ref
if command -v node >/dev/null && command -v npm >/dev/null; then
  if [ ! -d "$R/node_modules/onnxruntime-node" ] || ! cmp -s tools/ort-ref/package-lock.json "$R/package-lock.json"; then
    mkdir -p "$R" && cp tools/ort-ref/package.json tools/ort-ref/package-lock.json "$R/"
    echo "fuzz-compiler: npm ci --ignore-scripts in $R" >&2
    (cd "$R" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null 2>&1) || echo "fuzz-compiler: npm ci failed: no onnxruntime" >&2
  fi
fi
if [ -d "$R/node_modules/onnxruntime-node" ]; then
  NODE_PATH=$(cd "$R" && pwd)/node_modules; export NODE_PATH
  args+=(--ort tools/ort-ref/ort-run.js --ort-every 10)
else
  echo "fuzz-compiler: onnxruntime not installed: fp32 only against the reference evaluator" >&2
fi
echo "fuzz-compiler: $b/ovta-randgraph ${args[*]}"
exec nice -n 10 "$b/ovta-randgraph" "${args[@]}"
