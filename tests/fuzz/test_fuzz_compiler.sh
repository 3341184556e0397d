#!/usr/bin/env bash
# The compiler's differential fuzzer, a short fixed run (tools/ovta-randgraph/README.md): seeds
# 1..N (each a random graph compiled fp32 for the CPU and int8 for the CPU path and the
# accelerator) must all pass: fp32 within 1e-4 of the reference evaluator (and of onnxruntime on
# every 4th seed when build/ort-ref is installed), int8 on fsim (and tsim on every 10th seed when
# it runs here) byte for byte the CPU path's. Also: the generator is deterministic, the graphs
# cover every operator family, the accelerator ran nodes, and an injected difference is caught
# with a reproducer folder.
# Usage: tests/fuzz/test_fuzz_compiler.sh [PATH/TO/ovta-randgraph]   (ovta beside it)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
RG=${1:-build/ovta-randgraph}
B=$(dirname "$RG")
N=${OVTA_FUZZC_COUNT:-20}
echo "[==========] Running the compiler differential fuzzer, seeds 1..$N."

run "$RG" --print 7
a=$out
run "$RG" --print 7
if [ $rc -eq 0 ] && [ -n "$a" ] && [ "$a" = "$out" ] && [ "$a" != "$("$RG" --print 8)" ]; then ok "a seed's graph is deterministic"
else bad "a seed's graph is deterministic" "rc $rc"; fi

args=(--seed 1 --count "$N" --out "$T/fc" --tsim-every 0)
R=$B/ort-ref
if command -v node >/dev/null && [ -d "$R/node_modules/onnxruntime-node" ]; then
  NODE_PATH=$(cd "$R" && pwd)/node_modules; export NODE_PATH
  args+=(--ort tools/ort-ref/ort-run.js --ort-every 4)
  ort=1
else
  skip "fp32 against onnxruntime" "onnxruntime not installed in $R (make test-ort or make fuzz-compiler installs it)"
  ort=0
fi
tsim_args=()
if [ -f "$B/tsim/default/libovta_tsim.so" ]; then tsim_args=(--tsim-every 10)
else skip "int8 on tsim" "no tsim model in $B/tsim/default (make tsim)"; fi
run nice "$RG" "${args[@]}" "${tsim_args[@]}"
echo "$out" | tail -6
sum=$(echo "$out" | grep '^ovta-randgraph:')
if [ $rc -eq 0 ] && echo "$sum" | grep -q "^ovta-randgraph: $N graphs tried .* 0 failed$"; then ok "$N random graphs: fp32 and int8 CPU = accelerator"
else bad "$N random graphs: fp32 and int8 CPU = accelerator" "$(echo "$out" | grep -E '^FAIL|^ovta-randgraph' | head -5)"; fi
acc=$(echo "$sum" | sed -n 's/.* \([0-9]*\) ran on the accelerator.*/\1/p')
if [ "${acc:-0}" -ge $((N / 2)) ]; then ok "the accelerator ran $acc nodes"; else bad "the accelerator ran nodes" "only ${acc:-0}"; fi
# int8 is not fp32, but near it on these small graphs (a quantization bug shows here: seed 2014's
# all-zero Concat member, tests/filecheck/quantize-concat-zero.json)
if echo "$out" | grep -q 'int8 against fp32 (information): 0 graphs off by > 25%'; then ok "int8 within 25% of fp32's range on every graph"
else bad "int8 within 25% of fp32's range on every graph" "$(echo "$out" | grep -E '^note|int8 against')"; fi
ops=$(echo "$out" | grep 'graphs using each operator')
missing=""
for op in Conv Gemm MatMul MaxPool AveragePool GlobalAveragePool Add Concat Relu Clip Flatten Reshape; do
  echo "$ops" | grep -q " $op [1-9]" || missing="$missing $op"
done
if [ -z "$missing" ]; then ok "every operator family drawn"; else bad "every operator family drawn" "missing:$missing"; fi
if [ $ort = 1 ]; then
  no=$(echo "$sum" | sed -n 's/.*, \([0-9]*\) against onnxruntime.*/\1/p')
  if [ "${no:-0}" -ge $((N / 4)) ]; then ok "$no graphs against onnxruntime"; else bad "graphs against onnxruntime" "${no:-0}"; fi
fi

# the checker itself: one flipped output byte of the accelerator run is a failure with a reproducer
# (seed 2: a conv on the accelerator)
run "$RG" --seed 2 --count 1 --out "$T/inj" --tsim-every 0 --inject-fault
d=$T/inj/seed-2
if [ $rc -eq 1 ] && grep -q '^FAIL seed 2 .*accel-vs-cpu: output 0: 1 of' "$T/out" && grep -q '^seed 2: accel-vs-cpu' "$d/repro.txt" &&
   [ -s "$d/graph.json" ] && [ -s "$d/model.onnx" ] && [ -s "$d/x.npy" ] && [ -s "$d/calib.npy" ]; then
  ok "an injected difference fails with a reproducer folder"
else bad "an injected difference fails with a reproducer folder" "rc $rc: $(head -3 "$T/out")"; fi
# the reproducer's command line: the accelerator plan from the files (the CLI path of the same graph)
run "$B/ovta" compile "$d/graph.json" --target accel --calib "$d/calib.npy" -o "$T/a.ovta"
if [ $rc -eq 0 ]; then run "$B/ovta" run "$T/a.ovta" --backend fsim --input x="$d/x.npy" --output-dir "$T/a.out"; fi
if [ $rc -eq 0 ] && ls "$T/a.out"/*.npy >/dev/null 2>&1; then ok "the reproducer's command line compiles and runs"
else bad "the reproducer's command line compiles and runs" "rc $rc: $(head -2 "$T/err")"; fi
# a plan compiled --target accel where no node landed on the accelerator (seed 3: Reshape,
# Sigmoid) runs, with the default backend and with --backend fsim (found by the fuzzer, seed 8142:
# it ran neither way)
"$RG" --write 3 "$T/s3" && run "$B/ovta" compile "$T/s3/graph.json" --target accel --calib "$T/s3/calib.npy" -o "$T/s3.ovta"
r1=$rc
[ $r1 -eq 0 ] && run "$B/ovta" run "$T/s3.ovta" --input x="$T/s3/x.npy" --output-dir "$T/s3a"
r2=$rc
[ $r2 -eq 0 ] && run "$B/ovta" run "$T/s3.ovta" --backend fsim --input x="$T/s3/x.npy" --output-dir "$T/s3b"
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ $rc -eq 0 ] && diff -r "$T/s3a" "$T/s3b" >/dev/null && ls "$T/s3a/"*.npy >/dev/null 2>&1; then
  ok "an accelerator plan with no accelerator node runs"
else bad "an accelerator plan with no accelerator node runs" "rc $r1/$r2/$rc: $(head -1 "$T/err")"; fi
finish
