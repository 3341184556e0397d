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
# The same for group_model.onnx (same generator): grouped convs whose groups straddle the blocks,
# cut by pass split-groups into convs over runs of whole groups (compiler/passes/split_groups.c):
# 12 convs, every MAC on the accelerator, byte for byte the CPU path's on fsim and tsim.
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

# same_on_devices TAG Q.JSON X.npy FP32.onnx REPORT_RE NACC: the int8 graph Q.JSON on the CPU path,
# compiled --target accel (the report must list NACC nodes matching REPORT_RE on the accelerator
# and put every MAC there), then on fsim (and tsim): outputs byte for byte the CPU path's, not
# trivial, close to the fp32 model's.
same_on_devices() {
  local tag=$1 q=$2 x=$3 f32=$4 re=$5 nacc=$6 be
  run "$OVTA" run "$q" --input x="$x" --output-dir "$T/$tag-cpu"
  if [ $rc -eq 0 ] && [ -s "$T/$tag-cpu/y.npy" ]; then ok "$tag: int8 on the cpu path"; else bad "$tag: int8 on the cpu path" "rc $rc"; fi
  run "$OVTA" run "$f32" --input x="$x" --output-dir "$T/$tag-f32"
  if [ $rc -eq 0 ]; then ok "$tag: fp32 on the cpu path"; else bad "$tag: fp32 on the cpu path" "rc $rc"; fi
  run "$OVTA" compile "$q" --target accel --report -o "$T/$tag.ovta"
  local n=$(grep -cP "^node $re op ovta.QConv: accel: tile" "$T/out")
  if [ $rc -eq 0 ] && [ "$n" = "$nacc" ] && grep -qP 'MACs on the accelerator (\d+) of \1 \(100.0%\)' "$T/out"; then
    ok "$tag: compile --target accel: the $nacc convs and every MAC on the accelerator"
  else bad "$tag: compile --target accel: the $nacc convs and every MAC on the accelerator" "rc $rc, $n convs on accel"; fi
  local backends
  device_backends "$tag" "$T/$tag.ovta" --input x="$x"
  for be in "${backends[@]}"; do
    run "$OVTA" run "$T/$tag.ovta" --backend "$be" --input x="$x" --output-dir "$T/$tag-$be" --stats
    pycheck "$tag: $be int8 = cpu int8, byte for byte" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
c, a, f = (np.load('$T/$tag-%s/y.npy' % d) for d in ('cpu', '$be', 'f32'))
bad = []
if c.shape != (1, 16, 6, 6) or a.shape != c.shape: bad.append('shapes %r %r' % (c.shape, a.shape))
elif c.tobytes() != a.tobytes(): bad.append('%d of %d outputs differ' % ((c != a).sum(), c.size))
elif (c != 0).mean() < 0.5 or len(np.unique(c)) < 20: bad.append('trivial output')
elif np.corrcoef(c.ravel(), f.ravel())[0, 1] < 0.95: bad.append('far from fp32: corr %.3f' % np.corrcoef(c.ravel(), f.ravel())[0, 1])
print('ok' if not bad else '; '.join(bad))"
  done
}

same_on_devices dw "$T/q.json" "$D/dw_x.npy" "$D/dw_model.onnx" '(conv0|dw1|dw2|g2|ex|dw3|pw)' 7
for be in fsim; do
  for nd in dw1 dw3; do
    if grep -qP "^node $nd: accel, runs 1, .*gemm uops [1-9]" "$T/err" "$T/out"; then ok "$be: $nd ran on the device"
    else bad "$be: $nd ran on the device" "no device counters for $nd"; fi
  done
done

# group_model.onnx: groups straddling the blocks, cut by pass split-groups (in the accelerator
# pipeline) into convs over runs of whole groups: g3 into 2, g2s into 2, mult into 3, g2w kept
# whole; 12 convs, all on the accelerator.
run "$OPT" --passes=infer,fold,dce,fold-bn,fuse,split-groups,infer,fold,dce,quantize,verify --calib-random=8 --emit=json "$D/group_model.onnx"
cp "$T/out" "$T/g.json"
if [ $rc -eq 0 ] && [ "$(grep -cP '"op":\s*"ovta.QConv"' "$T/g.json")" = 12 ] && [ "$(grep -cP '"op":\s*"Slice"' "$T/g.json")" = 7 ]; then
  ok "group model: split-groups cut the three grouped convs into 7 parts (12 int8 convs)"
else bad "group model: split-groups cut the three grouped convs into 7 parts (12 int8 convs)" "rc $rc"; fi
same_on_devices groups "$T/g.json" "$D/group_x.npy" "$D/group_model.onnx" '(conv0|g3_\d+|p1|g2s_\d+|p2|g2w|mult_\d+|pw)' 12
finish
