#!/usr/bin/env bash
# End-to-end: pass s2d (compiler/passes/s2d.c) on a ResNet-like stem. tests/e2e/data/stem_model.onnx
# (torch export by gen_stem_model.py next to it: Conv 3->16 7x7 stride 2 pad 3, Relu, MaxPool 3x3/2,
# Conv 16->16 3x3; stem_ref.npy is torch's fp32 output for stem_x.npy):
#   - fp32: the model on the CPU path, and the graph after s2d (Pad + SpaceToDepth + a 4x4
#     stride-1 conv on 12 channels) on the CPU path, both equal torch's output (the rewrite is exact);
#   - int8 (ovta-opt through quantize, calibrated on 8 random samples): the int8 graph with s2d is
#     byte for byte the one without (same products, same exponents), and on the accelerator
#     (compile --target accel: the report puts both convs on the accelerator, the stem one with
#     12 input channels and a 4x4 kernel) fsim and tsim give the CPU path's bytes.
# Usage: tests/e2e/test_stem.sh [PATH/TO/ovta]   (default build/ovta; ovta-opt beside it).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
OPT=$(dirname "$OVTA")/ovta-opt
D=tests/e2e/data
FRONT=infer,fold,dce,fold-bn,fuse,split-groups
echo "[==========] Running stem (s2d) end-to-end tests."

# close_to_torch TAG DIR: DIR/y.npy equals torch's fp32 output (float rounding only)
close_to_torch() {
  pycheck "$1" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
y, r = np.load('$2/y.npy'), np.load('$D/stem_ref.npy')
if y.shape != r.shape: print('shape %r, torch %r' % (y.shape, r.shape)); sys.exit()
d = np.abs(y - r).max()
print('ok' if d < 1e-4 * max(1, np.abs(r).max()) else 'max |ovta - torch| = %g' % d)"
}

run "$OVTA" run "$D/stem_model.onnx" --input x="$D/stem_x.npy" --output-dir "$T/f32"
close_to_torch "fp32 model on the cpu path = torch" "$T/f32"

run "$OPT" --passes=$FRONT,s2d,infer,verify --emit=json "$D/stem_model.onnx"
cp "$T/out" "$T/s.json"
if [ $rc -eq 0 ] && grep -qP '"op":\s*"SpaceToDepth"' "$T/s.json" && grep -qP '"kernel_shape":\s*\[\s*4,\s*4\s*\]' "$T/s.json"; then
  ok "s2d: SpaceToDepth + a 4x4 stride-1 conv"
else bad "s2d: SpaceToDepth + a 4x4 stride-1 conv" "rc $rc"; fi
run "$OVTA" run "$T/s.json" --input x="$D/stem_x.npy" --output-dir "$T/s32"
close_to_torch "fp32 graph after s2d on the cpu path = torch" "$T/s32"

run "$OPT" --passes=$FRONT,infer,fold,dce,quantize,verify --calib-random=8 --emit=json "$D/stem_model.onnx"
cp "$T/out" "$T/q0.json"
run "$OPT" --passes=$FRONT,s2d,infer,fold,dce,quantize,verify --calib-random=8 --emit=json "$D/stem_model.onnx"
cp "$T/out" "$T/q.json"
if [ $rc -eq 0 ] && [ "$(grep -cP '"op":\s*"ovta.QConv"' "$T/q.json")" = 2 ] && grep -qP '"op":\s*"SpaceToDepth"' "$T/q.json"; then
  ok "int8 graph: SpaceToDepth and two ovta.QConv"
else bad "int8 graph: SpaceToDepth and two ovta.QConv" "rc $rc"; fi
run "$OVTA" run "$T/q0.json" --input x="$D/stem_x.npy" --output-dir "$T/cpu0"
run "$OVTA" run "$T/q.json" --input x="$D/stem_x.npy" --output-dir "$T/cpu"
pycheck "int8 cpu path: with s2d = without, byte for byte, and close to torch" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
a, b, r = np.load('$T/cpu/y.npy'), np.load('$T/cpu0/y.npy'), np.load('$D/stem_ref.npy')
if a.shape != r.shape or a.tobytes() != b.tobytes(): print('differ'); sys.exit()
if (a != 0).mean() < 0.5 or len(np.unique(a)) < 20: print('trivial output'); sys.exit()
c = np.dot(a.ravel(), r.ravel()) / np.linalg.norm(a) / np.linalg.norm(r)
print('ok' if c > 0.99 else 'cosine to torch %.4f' % c)"

run "$OVTA" compile "$T/q.json" --target accel --report -o "$T/q.ovta"
if [ $rc -eq 0 ] && grep -qP '^node /conv1/Conv op ovta.QConv: accel: tile' "$T/out" &&
   grep -qP '^node /conv2/Conv op ovta.QConv: accel: tile' "$T/out" &&
   grep -qP 'MACs on the accelerator (\d+) of \1 \(100.0%\)' "$T/out"; then
  ok "compile --target accel: both convs and every MAC on the accelerator"
else bad "compile --target accel: both convs and every MAC on the accelerator" "rc $rc"; fi
device_backends "" "$T/q.ovta" --input x="$D/stem_x.npy"
for be in "${backends[@]}"; do
  run "$OVTA" run "$T/q.ovta" --backend "$be" --input x="$D/stem_x.npy" --output-dir "$T/$be"
  pycheck "$be int8 = cpu int8, byte for byte" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
c, a = np.load('$T/cpu/y.npy'), np.load('$T/$be/y.npy')
print('ok' if c.shape == a.shape and c.tobytes() == a.tobytes() else '%d of %d outputs differ' % ((c != a).sum(), c.size))"
done
finish
