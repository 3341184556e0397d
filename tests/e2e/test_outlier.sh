#!/usr/bin/env bash
# End-to-end: per-channel weight exponents for ungrouped convs and dense layers whose weights hold
# an outlier (compiler/passes/quantize.c, q_per_channel / outlier_channels). tests/e2e/data/
# outlier_model.onnx (gen_outlier_model.py next to it: Conv 16->32 3x3, Relu, GlobalAveragePool,
# Flatten, Gemm 32->40; weights N(0, 0.02) with one weight of 2.0 in each layer, as torch's
# trunc_normal_ leaves in torchvision's ConvNeXt and Swin):
#   - int8 (ovta-opt through quantize, calibrated on 8 random samples): the conv and the dense get
#     per-channel `shifts`; with --quant-per-tensor neither does;
#   - the per-channel int8 graph on the CPU path is close to the fp32 model (cosine >= 0.99), the
#     per-tensor one clearly farther (the reason for the rule);
#   - compiled --target accel, both layers run on the accelerator, and fsim and tsim give the CPU
#     path's bytes;
#   - outlier_wide.onnx (Gemm 16->3072 with an outlier, Relu, Gemm 3072->16): the wide layer gets
#     per-channel shifts whose bias and shifts (384 ACC elements) do not stay in the ACC; it runs on
#     the accelerator all the same (each output-channel tile loads its slice), fsim and tsim equal
#     to the CPU path byte for byte.
# Usage: tests/e2e/test_outlier.sh [PATH/TO/ovta]   (default build/ovta; ovta-opt beside it).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
OPT=$(dirname "$OVTA")/ovta-opt
D=tests/e2e/data
PASSES=infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify
echo "[==========] Running outlier-weight (per-channel exponents) end-to-end tests."

run "$OPT" --passes=$PASSES --calib-random=8 --emit=json "$D/outlier_model.onnx"
cp "$T/out" "$T/q.json"
if [ $rc -eq 0 ] && [ "$(grep -cP '"op":\s*"ovta.Q(Conv|Dense)"' "$T/q.json")" = 2 ] && [ "$(grep -cP '"shifts":' "$T/q.json")" = 2 ]; then
  ok "int8 graph: the conv and the dense with per-channel shifts"
else bad "int8 graph: the conv and the dense with per-channel shifts" "rc $rc, $(grep -cP '"shifts":' "$T/q.json") shifts"; fi
run "$OPT" --passes=$PASSES --calib-random=8 --quant-per-tensor --emit=json "$D/outlier_model.onnx"
cp "$T/out" "$T/qt.json"
if [ $rc -eq 0 ] && [ "$(grep -cP '"shifts":' "$T/qt.json")" = 0 ]; then ok "--quant-per-tensor: no per-channel shifts"
else bad "--quant-per-tensor: no per-channel shifts" "rc $rc"; fi

run "$OVTA" run "$D/outlier_model.onnx" --input x="$D/outlier_x.npy" --output-dir "$T/f32"
run "$OVTA" run "$T/q.json" --input x="$D/outlier_x.npy" --output-dir "$T/cpu"
run "$OVTA" run "$T/qt.json" --input x="$D/outlier_x.npy" --output-dir "$T/cput"
pycheck "int8 cpu path: per-channel close to fp32, per-tensor farther" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
f, q, t = (np.load('$T/%s/y.npy' % d).ravel() for d in ('f32', 'cpu', 'cput'))
cos = lambda a, b: float(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b))
cq, ct = cos(q, f), cos(t, f)
print('ok' if cq >= 0.99 and ct < cq - 0.02 else 'cosine to fp32: per-channel %.4f, per-tensor %.4f' % (cq, ct))"

# on_accel TAG GRAPH X CPU NODES SHAPE MINUNIQ: GRAPH compiled --target accel puts the two nodes
# matched by the regex NODES on the accelerator (100% of the MACs); on fsim (and tsim when it runs
# here) its output y for input X equals the CPU path's (CPU: its output folder) byte for byte, of
# shape SHAPE with at least MINUNIQ distinct values.
on_accel() {
  local tag=$1 graph=$2 x=$3 cpu=$4 nodes=$5 shape=$6 nu=$7 be
  run "$OVTA" compile "$graph" --target accel --report -o "$T/$tag.ovta"
  if [ $rc -eq 0 ] && [ "$(grep -cP "^node $nodes: accel: tile" "$T/out")" = 2 ] &&
     grep -qP 'MACs on the accelerator (\d+) of \1 \(100.0%\)' "$T/out"; then
    ok "$tag: compile --target accel: both layers on the accelerator"
  else bad "$tag: compile --target accel: both layers on the accelerator" "rc $rc"; fi
  device_backends "$tag" "$T/$tag.ovta" --input x="$x"
  for be in "${backends[@]}"; do
    run "$OVTA" run "$T/$tag.ovta" --backend "$be" --input x="$x" --output-dir "$T/$tag-$be"
    pycheck "$tag: $be int8 = cpu int8, byte for byte" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
c, a = np.load('$cpu/y.npy'), np.load('$T/$tag-$be/y.npy')
if c.shape != $shape or a.shape != c.shape: print('shapes %r %r' % (c.shape, a.shape))
elif c.tobytes() != a.tobytes(): print('%d of %d outputs differ' % ((c != a).sum(), c.size))
elif len(np.unique(c)) < $nu: print('trivial output')
else: print('ok')"
  done
}
on_accel outlier "$T/q.json" "$D/outlier_x.npy" "$T/cpu" '(conv|dense) op ovta.Q(Conv|Dense)' '(1, 40)' 20

W=outlier_wide
run "$OPT" --passes=$PASSES --calib-random=8 --emit=json "$D/$W.onnx"
cp "$T/out" "$T/w.json"
if [ $rc -eq 0 ] && grep -qP '"shifts":\s*\[' "$T/w.json"; then ok "wide: int8 graph with per-channel shifts"
else bad "wide: int8 graph with per-channel shifts" "rc $rc"; fi
run "$OVTA" run "$T/w.json" --input x="$D/${W}_x.npy" --output-dir "$T/wcpu"
on_accel wide "$T/w.json" "$D/${W}_x.npy" "$T/wcpu" 'fc[12] op ovta.QDense' '(1, 16)' 8
finish
