#!/usr/bin/env bash
# End-to-end: depthwise and grouped convolutions on the accelerator (compiler/accel/README.md,
# "Grouped convolution"). tests/e2e/data/dw_model.onnx (written by gen_dw_model.py next to it: a
# 16->32 conv, two depthwise 3x3 convs (stride 1 and 2), a group-2 3x3 conv, a 32->72 1x1 conv, a
# depthwise 3x3 conv on 72 channels (not a block multiple: padded with all-zero groups), a 1x1 conv) is
# quantized to int8 by ovta-opt (calibrated on 8 random samples, deterministic) and that int8
# graph runs
#   - on the CPU path (`ovta run q.json`: every ovta.QConv lowered by compiler/cpu/conv.c), and
#   - compiled with --target accel (`ovta run q.ovta --backend fsim`, and tsim when built), where
#     the report must put all seven convs, the grouped ones included, on the accelerator;
# the outputs must be identical byte for byte (the same int8 values dequantized), not trivial
# (mostly nonzero), and close to the fp32 model's (correlation > 0.95: the int8 graph is the model).
# Usage: tests/e2e/test_dwconv.sh [PATH/TO/ovta]   (default build/ovta; ovta-opt beside it).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
OPT=$(dirname "$OVTA")/ovta-opt
D=tests/e2e/data
echo "[==========] Running depthwise / grouped conv end-to-end tests."

run "$OPT" --passes=infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify --calib-random=8 --emit=json "$D/dw_model.onnx"
cp "$T/out" "$T/q.json"
if [ $rc -eq 0 ] && [ "$(grep -cP '"group":\s*32' "$T/q.json")" = 2 ] && [ "$(grep -cP '"group":\s*2\b' "$T/q.json")" = 1 ] &&
   [ "$(grep -cP '"group":\s*72' "$T/q.json")" = 1 ]; then
  ok "int8 graph with three depthwise and one group-2 ovta.QConv"
else bad "int8 graph with three depthwise and one group-2 ovta.QConv" "rc $rc"; fi
# the grouped convs get per-channel weight exponents: a shifts attribute each (compiler/passes/README.md)
if [ "$(grep -cP '"shifts":' "$T/q.json")" = 4 ]; then ok "the four grouped convs with per-channel shifts"
else bad "the four grouped convs with per-channel shifts" "$(grep -cP '"shifts":' "$T/q.json") shifts attributes"; fi

run "$OVTA" run "$T/q.json" --input x="$D/dw_x.npy" --output-dir "$T/cpu"
if [ $rc -eq 0 ] && [ -s "$T/cpu/y.npy" ]; then ok "int8 on the cpu path"; else bad "int8 on the cpu path" "rc $rc"; fi
run "$OVTA" run "$D/dw_model.onnx" --input x="$D/dw_x.npy" --output-dir "$T/f32"
if [ $rc -eq 0 ]; then ok "fp32 on the cpu path"; else bad "fp32 on the cpu path" "rc $rc"; fi

run "$OVTA" compile "$T/q.json" --target accel --report -o "$T/q.ovta"
n_acc=$(grep -cP '^node (conv0|dw1|dw2|g2|ex|dw3|pw) op ovta.QConv: accel: tile' "$T/out")
if [ $rc -eq 0 ] && [ "$n_acc" = 7 ] && grep -q 'summary: 7 node(s) on the accelerator' "$T/out"; then
  ok "compile --target accel: the depthwise and grouped convs on the accelerator"
else bad "compile --target accel: the depthwise and grouped convs on the accelerator" "rc $rc, $n_acc convs on accel"; fi

backends=(fsim)
if "$OVTA" run "$T/q.ovta" --backend tsim --input x="$D/dw_x.npy" --output-dir "$T/probe" >/dev/null 2>&1; then backends+=(tsim)
else skip "tsim" "the tsim backend does not run here"; fi
for be in "${backends[@]}"; do
  run "$OVTA" run "$T/q.ovta" --backend "$be" --input x="$D/dw_x.npy" --output-dir "$T/$be" --stats
  pycheck "$be int8 = cpu int8, byte for byte" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
c, a, f = (np.load('$T/%s/y.npy' % d) for d in ('cpu', '$be', 'f32'))
bad = []
if c.shape != (1, 16, 6, 6) or a.shape != c.shape: bad.append('shapes %r %r' % (c.shape, a.shape))
elif c.tobytes() != a.tobytes(): bad.append('%d of %d outputs differ' % ((c != a).sum(), c.size))
elif (c != 0).mean() < 0.5 or len(np.unique(c)) < 20: bad.append('trivial output')
elif np.corrcoef(c.ravel(), f.ravel())[0, 1] < 0.95: bad.append('far from fp32: corr %.3f' % np.corrcoef(c.ravel(), f.ravel())[0, 1])
print('ok' if not bad else '; '.join(bad))"
  for nd in dw1 dw3; do
    if grep -qP "^node $nd: accel, runs 1, .*gemm uops [1-9]" "$T/err" "$T/out"; then ok "$be: $nd ran on the device"
    else bad "$be: $nd ran on the device" "no device counters for $nd"; fi
  done
done
finish
